"""Each scripted agent, played to its end: the audit verdicts and findings it must produce."""

from __future__ import annotations

from itertools import pairwise

import pytest

from padtui.core.audit.rewrite import audit
from padtui.core.errors import PadError
from padtui.core.formats import load, parse
from padtui.demo_agent import ScriptedAgent, load_scenario, names


def play(tmp_path, name, mode="atomic"):
    """Run a scenario; return the audits of each written version and the halting step."""
    path = str(tmp_path / "pad.json")
    agent = ScriptedAgent(path, load_scenario(name), mode)
    agent.start()
    written = [load(path).pad]
    halted = None
    while result := agent.step(on_write=lambda data: written.append(parse(path, data).pad)):
        if result.halted:
            halted = result
            break
    audits = [audit(old, new) for old, new in pairwise(written)]
    return audits, halted, agent


def codes(a):
    return {f.code for f in a.findings}


def test_every_scenario_is_listed_and_loads():
    assert set(names()) == {
        "retry-5xx",
        "billing",
        "loss-record-eviction",
        "healthy",
        "sealed-overflow",
    }
    for name in names():
        scenario = load_scenario(name)
        assert scenario.steps and scenario.teaches


@pytest.mark.parametrize("mode", ["atomic", "inplace"])
def test_retry_5xx_ends_in_corruption_of_the_retry_constraint(tmp_path, mode):
    audits, halted, agent = play(tmp_path, "retry-5xx", mode)
    assert halted is None and agent.done
    verdicts = [a.verdict for a in audits]
    assert verdicts[:2] == ["growth", "growth"]  # the rule and the note are added
    condense = audits[2]
    assert condense.verdict == "corruption"
    assert codes(condense) & {"CONSTRAINT_WEAKENED", "CONSTRAINT_DROPPED"}
    weakened = [f for f in condense.findings if f.code == "CONSTRAINT_WEAKENED"]
    assert weakened and "c-retry" in weakened[0].entries
    assert verdicts[3] == "growth"  # the retry itself looks like ordinary progress


def test_billing_drops_the_prohibition_and_the_pad_gets_more_decisive(tmp_path):
    audits, _, _ = play(tmp_path, "billing")
    assert [a.verdict for a in audits] == ["growth", "corruption", "growth"]
    assert {"CONSTRAINT_DROPPED", "CAUTION_FALLING"} <= codes(audits[1])


def test_loss_record_eviction_is_caught(tmp_path):
    audits, _, _ = play(tmp_path, "loss-record-eviction")
    assert [a.verdict for a in audits] == ["growth", "corruption", "growth"]
    assert "LOSS_RECORD_EVICTED" in codes(audits[1])


def test_healthy_never_reports_anything_but_growth_or_compaction(tmp_path):
    audits, halted, _ = play(tmp_path, "healthy")
    assert halted is None
    assert {a.verdict for a in audits} <= {"growth", "compaction"}
    assert "compaction" in [a.verdict for a in audits]  # a real budget pass happened
    assert not any(f.severity == "critical" for a in audits for f in a.findings)


def test_sealed_overflow_halts_and_surfaces(tmp_path):
    audits, halted, agent = play(tmp_path, "sealed-overflow")
    assert halted is not None and halted.refusal is not None
    assert halted.refusal.code == "SEALED_OVER_BUDGET"
    assert agent.done
    assert [a.verdict for a in audits].count("compaction") >= 1  # it compacted before
    assert not any(a.verdict == "corruption" for a in audits)


def test_an_unknown_scenario_is_a_one_line_error():
    with pytest.raises(PadError, match="no such scenario"):
        load_scenario("nope")
