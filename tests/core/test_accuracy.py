"""The audit's accuracy on the labelled corpus (tests/corpus/pairs): the figures ACCURACY.md
reports, held to the targets a user decides to trust the alarm by."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECALL = 0.95  # of rewrites that drop or weaken a rule, judged corruption
FALSE_ALARMS = 0.05  # of honest rewrites, with a critical finding


def _accuracy() -> ModuleType:
    spec = importlib.util.spec_from_file_location("accuracy", ROOT / "bench" / "accuracy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["accuracy"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def judged() -> tuple[ModuleType, list]:  # type: ignore[type-arg]
    acc = _accuracy()
    pairs = acc.load_pairs(acc.CORPUS)
    return acc, acc.judge(pairs)


def test_the_corpus_is_large_and_covers_every_variant(judged) -> None:  # type: ignore[no-untyped-def]
    acc, outcomes = judged
    assert len(outcomes) >= 150
    variants = {o.pair.variant for o in outcomes}
    assert variants >= set(acc.VARIANTS)
    styles = {o.pair.style for o in outcomes}
    assert len(styles) >= 6


def test_every_pair_is_read(judged) -> None:  # type: ignore[no-untyped-def]
    _acc, outcomes = judged
    errors = [f"{o.pair.name}: {o.error}" for o in outcomes if o.error]
    assert not errors, errors


def test_recall_on_rewrites_that_drop_or_weaken_a_rule(judged) -> None:  # type: ignore[no-untyped-def]
    acc, outcomes = judged
    s = acc.summarize(outcomes)
    missed = [o.pair.name for o in outcomes if o.corrupt and o.verdict != "corruption"]
    assert s.recall >= RECALL, f"recall {s.recall:.1%}; missed: {missed}"


def test_false_alarms_on_honest_rewrites(judged) -> None:  # type: ignore[no-untyped-def]
    acc, outcomes = judged
    s = acc.summarize(outcomes)
    alarms = [o.pair.name for o in outcomes if not o.corrupt and o.alarm]
    assert s.false_alarm_rate <= FALSE_ALARMS, f"{s.false_alarm_rate:.1%}: {alarms}"


def test_accuracy_md_is_the_report_of_this_corpus(judged) -> None:  # type: ignore[no-untyped-def]
    """ACCURACY.md is generated, not written: its figures are the ones the audit gets now."""
    acc, outcomes = judged
    body = acc.report(outcomes, "tests/corpus/pairs")
    text = (ROOT / "ACCURACY.md").read_text(encoding="utf-8")
    assert body in text, "ACCURACY.md is stale: run python bench/accuracy.py --write ACCURACY.md"


def test_the_audit_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    """Sets iterate in an order each process draws at random: a verdict must not."""
    import json
    import os
    import subprocess

    acc = _accuracy()
    pairs = acc.load_pairs(acc.CORPUS)[::9]
    script = (
        "import json, sys\n"
        "from padtui.core.audit.rewrite import audit\n"
        "from padtui.core.formats import load_pad\n"
        "out = [audit(load_pad(a), load_pad(b)).as_json() for a, b in json.load(sys.stdin)]\n"
        "print(json.dumps(out, sort_keys=True))\n"
    )
    given = json.dumps([[str(p.old), str(p.new)] for p in pairs])
    runs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script],
            input=given,
            capture_output=True,
            text=True,
            env=env,
            check=True,
            cwd=tmp_path,
        )
        runs.add(done.stdout)
    assert len(runs) == 1
