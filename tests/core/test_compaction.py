"""Compaction by hand-made pads (the README's "Policies"): each refusal, the budget, the result
order, and what ``check --json`` prints (the README's ``padtui check``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import padtui
from padtui.cli import main
from padtui.core.compaction.plan import plan, resolve_budget
from padtui.core.counting.tokens import counter_for
from padtui.core.model import Entry, Pad, make_entry

COUNTER = counter_for("cl100k_base")
NOW = datetime(2026, 11, 14, 9, 30, tzinfo=UTC)


def cost(*entries: Entry) -> int:
    return sum(COUNTER.count(e.text) for e in entries)


def labels(entries: tuple[Entry, ...]) -> list[str]:
    return [e.label for e in entries]


RULE = make_entry("constraint", "Do not retry writes after a 5xx.", sealed=True, id="c1")
LEDGER = make_entry("loss_record", "nothing dropped yet", sealed=True, id="lr0")
FACT = make_entry(
    "negative_fact",
    "Retrying the payment write with a fresh idempotency key was tried and it failed twice.",
    id="nf1",
)
SHORT = make_entry("note", "ok", id="n-short")
LONG = make_entry("plan", " ".join(["step"] * 200), id="p-long")


# --- SEALED_OVER_BUDGET ----------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["strict", "seed"])
def test_sealed_region_over_budget_is_refused(policy: str) -> None:
    pad = Pad.of([RULE, LEDGER, SHORT])
    sealed = cost(RULE, LEDGER)

    over = plan(pad, sealed - 1, policy, COUNTER)
    assert over.refused
    assert over.code == "SEALED_OVER_BUDGET"
    assert str(sealed) in over.message
    assert over.way_out and "budget" in over.way_out
    assert over.dropped == ()
    assert over.loss_record is None
    assert over.tokens_after == over.tokens_total  # nothing changes

    at = plan(pad, sealed, policy, COUNTER)
    assert at.code != "SEALED_OVER_BUDGET"


def test_compact_raises_when_sealed_region_is_over_budget() -> None:
    items = [{"kind": "constraint", "text": RULE.text, "sealed": True}]
    with pytest.raises(padtui.UnrecoverableCompactionError, match="sealed region"):
        padtui.compact(items, cost(RULE) - 1, COUNTER.tokenize)
    assert padtui.compact(items, cost(RULE), COUNTER.tokenize) == items
    assert issubclass(padtui.UnrecoverableCompactionError, RuntimeError)


# --- NO_LOSS_RECORD (seed) -------------------------------------------------------------------


def test_seed_refuses_to_drop_a_protected_kind_without_a_sealed_loss_record() -> None:
    pad = Pad.of([RULE, FACT, SHORT])
    budget = cost(RULE, SHORT)  # the negative fact cannot fit

    got = plan(pad, budget, "seed", COUNTER)
    assert got.code == "NO_LOSS_RECORD"
    assert labels(got.dropped) == ["nf1"]
    assert "nf1" in got.message
    assert got.way_out == "externalize before compacting: padtui externalize PATH nf1"
    assert got.tokens_after == got.tokens_total

    items = [{"kind": e.kind, "text": e.text, "sealed": e.sealed} for e in pad.entries]
    with pytest.raises(padtui.UnrecoverableCompactionError, match="loss_record"):
        padtui.compact(items, budget, COUNTER.tokenize)


def test_seed_drops_a_protected_kind_once_a_sealed_loss_record_exists() -> None:
    # the reference only asks that some sealed loss record exists; it records nothing itself
    pad = Pad.of([RULE, FACT, LEDGER, SHORT])
    got = plan(pad, cost(RULE, LEDGER, SHORT), "seed", COUNTER)
    assert not got.refused
    assert got.verdict == "compactable"
    assert labels(got.kept) == ["c1", "lr0", "n-short"]  # sealed, then kept
    assert labels(got.dropped) == ["nf1"]
    assert got.loss_record is None
    assert labels(got.result()) == ["c1", "lr0", "n-short"]


# --- PROTECTED_KIND_WOULD_DROP (strict) ------------------------------------------------------


def test_strict_refuses_to_drop_an_unsealed_protected_kind_even_with_a_loss_record() -> None:
    loose_rule = make_entry("constraint", "Never call the billing API from a retry loop.")
    pad = Pad.of([RULE, LEDGER, LONG, FACT, loose_rule, SHORT])
    budget = cost(RULE, LEDGER, LONG, SHORT) + 5  # first-fit keeps LONG, not the rest
    got = plan(pad, budget, "strict", COUNTER)
    assert got.code == "PROTECTED_KIND_WOULD_DROP"
    assert got.refused
    assert got.tokens_after == got.tokens_total
    assert labels(got.dropped) == ["nf1", "#4"]
    # everything protected that the pass would drop is named, so it can be externalized;
    # each name a shell word of its own ("#4" bare would start a shell comment)
    assert got.way_out == "externalize them into the sealed region first: " + (
        "padtui externalize PATH nf1 '#4'"
    )
    assert "nf1" in got.message and "#4" in got.message


def test_strict_refuses_a_protected_kind_that_only_the_loss_record_pushes_out() -> None:
    pad = Pad.of([FACT, LONG])
    budget = 50
    # the record of dropping LONG fits the budget, but not beside the fact
    alone = plan(Pad.of([LONG]), budget, "strict", COUNTER, now=NOW)
    assert alone.verdict == "compactable"
    assert alone.record_tokens <= budget < cost(FACT) + alone.record_tokens
    # without a record the fact would be kept: first-fit drops only LONG
    assert labels(plan(pad, budget, "seed", COUNTER).dropped) == ["p-long"]
    got = plan(pad, budget, "strict", COUNTER, now=NOW)
    assert got.code == "PROTECTED_KIND_WOULD_DROP"
    assert labels(got.dropped) == ["nf1", "p-long"]


# --- RECORD_WOULD_NOT_FIT (strict) -----------------------------------------------------------


def test_strict_refuses_a_pass_that_cannot_afford_the_record_of_its_loss() -> None:
    pad = Pad.of([RULE, LONG])
    budget = cost(RULE) + 5  # the sealed region fits, a record of dropping LONG does not
    got = plan(pad, budget, "strict", COUNTER)
    assert got.code == "RECORD_WOULD_NOT_FIT"
    assert got.refused
    assert labels(got.dropped) == ["p-long"]
    assert "loss record" in got.message
    assert got.way_out and "halt" in got.way_out
    assert got.tokens_after == got.tokens_total
    # the seed policy has no such scruple: it drops the plan and records nothing
    seed = plan(pad, budget, "seed", COUNTER)
    assert seed.verdict == "compactable"
    assert seed.loss_record is None


# --- strict compacts, and counts its record ----------------------------------------------------


def test_strict_appends_a_sealed_loss_record_and_counts_it_and_the_sealed_region() -> None:
    pad = Pad.of([RULE, LONG, SHORT])
    budget = 150
    got = plan(pad, budget, "strict", COUNTER, now=NOW)
    assert got.verdict == "compactable"
    assert got.code is None
    assert labels(got.dropped) == ["p-long"]
    assert labels(got.kept) == ["c1", "n-short"]  # file order, sealed entries included
    record = got.loss_record
    assert record is not None
    assert record.sealed and record.kind == "loss_record" and record.op == "compact"
    assert "p-long" in record.text
    assert "2026-11-14T09:30:00Z" in record.text
    assert "200 tokens" in record.text
    assert got.record_tokens == cost(record)
    # the pad after the commit: sealed rule, the short note, the record
    assert got.tokens_after == cost(RULE, SHORT, record)
    assert got.tokens_after <= budget
    assert got.as_json()["tokens"]["after"] == cost(*got.result())


def test_strict_recomputes_the_pass_until_the_record_fits() -> None:
    small = make_entry("note", "ok")
    middle = make_entry("note", " ".join(["middle"] * 120))
    pad = Pad.of([small, middle, LONG])
    budget = 150
    assert cost(small, middle) <= budget  # without a record, both would be kept
    got = plan(pad, budget, "strict", COUNTER, now=NOW)
    assert got.verdict == "compactable"
    assert labels(got.dropped) == ["#1", "p-long"]
    assert got.loss_record is not None
    assert "#1 (note, 120 tokens" in got.loss_record.text
    assert '"middle middle middle middle middle middle..."' in got.loss_record.text
    assert got.tokens_after == cost(small, got.loss_record) <= budget


def test_loss_record_id_does_not_collide_with_an_existing_one() -> None:
    taken = make_entry("loss_record", "earlier", sealed=True, id="loss-20261114T093000Z")
    got = plan(Pad.of([taken, LONG, SHORT]), 200, "strict", COUNTER, now=NOW)
    assert got.loss_record is not None
    assert got.loss_record.id == "loss-20261114T093000Z-2"


def test_a_pad_within_budget_fits_and_changes_nothing() -> None:
    pad = Pad.of([SHORT, RULE, FACT])
    for policy in ("strict", "seed"):
        got = plan(pad, cost(SHORT, RULE, FACT), policy, COUNTER)
        assert got.verdict == "fits"
        assert got.code is None and got.dropped == () and got.loss_record is None
        assert got.result() == pad.entries
        assert got.tokens_after == got.tokens_total


# --- Plan.result() ---------------------------------------------------------------------------


def test_result_keeps_the_files_order_and_appends_the_record() -> None:
    first = make_entry("note", "first note")
    last = make_entry("hypothesis", "the cache may be stale")
    pad = Pad.of([first, RULE, LONG, LEDGER, last])
    budget = cost(first, RULE, LEDGER, last) + 120
    strict = plan(pad, budget, "strict", COUNTER, now=NOW)
    assert labels(strict.dropped) == ["p-long"]
    assert strict.loss_record is not None
    assert labels(strict.result()) == ["#0", "c1", "lr0", "#4", strict.loss_record.label]

    seed = plan(pad, budget, "seed", COUNTER)
    assert labels(seed.kept) == ["c1", "lr0", "#0", "#4"]  # the policy's result order
    assert labels(seed.result()) == ["#0", "c1", "lr0", "#4"]  # a commit keeps the file's


# --- the budget ------------------------------------------------------------------------------


def test_budget_is_the_argument_else_the_files_else_4000() -> None:
    mine = Pad.of([SHORT], budget_tokens=123)
    plain = Pad.of([SHORT])
    assert resolve_budget(mine, 50) == 50
    assert resolve_budget(mine, 0) == 0  # an explicit 0 is a budget, not "unset"
    assert resolve_budget(mine, None) == 123
    assert resolve_budget(plain, None) == 4000
    assert plan(mine).budget == 123
    assert plan(plain).budget == 4000
    assert plan(Pad.of([SHORT], budget_tokens=0)).budget == 0


def write(path: Path, doc: Any) -> str:
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return str(path)


def check_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(["check", *argv, "--json"])
    out, err = capsys.readouterr()
    assert err == ""
    return code, json.loads(out)


ENTRIES = [
    {"kind": "constraint", "text": RULE.text, "sealed": True, "id": "c1"},
    {"kind": "plan", "text": LONG.text, "id": "p-long"},
    {"kind": "note", "text": "ok"},
]


def test_cli_budget_resolution(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    obj = write(tmp_path / "obj.json", {"budget_tokens": 7, "entries": ENTRIES})
    bare = write(tmp_path / "bare.json", ENTRIES)
    lines = tmp_path / "pad.jsonl"
    lines.write_text("".join(json.dumps(e) + "\n" for e in ENTRIES), encoding="utf-8")

    assert check_json(capsys, obj)[1]["budget"] == 7
    assert check_json(capsys, obj, "--budget", "900")[1]["budget"] == 900
    assert check_json(capsys, obj, "--budget", "0")[1]["budget"] == 0
    assert check_json(capsys, bare)[1]["budget"] == 4000
    assert check_json(capsys, str(lines))[1]["budget"] == 4000


# --- check --json ----------------------------------------------------------------------------


def test_check_json_reports_the_fields_of_section_5(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "pad.json", {"budget_tokens": 150, "entries": ENTRIES})
    code, out = check_json(capsys, path)
    assert code == 0
    assert out["verdict"] == "compactable"
    assert out["code"] is None
    assert out["policy"] == "strict"
    assert out["budget"] == 150
    assert out["encoding"] == "cl100k_base"
    tokens = out["tokens"]
    assert tokens["sealed"] == COUNTER.count(RULE.text)
    assert tokens["rewritable"] == COUNTER.count(LONG.text) + COUNTER.count("ok")
    assert tokens["total"] == tokens["sealed"] + tokens["rewritable"]
    assert tokens["sealed"] < tokens["after"] <= 150
    assert out["kept"] == ["c1", "#2"]
    assert out["dropped"] == ["p-long"]
    assert isinstance(out["loss_record"], str) and "p-long" in out["loss_record"]
    claims = out["claims"]
    assert claims["before"] == 3
    assert claims["after"] == 2 + padtui.core.rules.claims.count_claims(out["loss_record"])
    assert isinstance(out["message"], str) and out["message"]


def test_check_json_of_a_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "pad.json", ENTRIES)
    code, out = check_json(capsys, path, "--budget", "3")
    assert code == 1
    assert out["verdict"] == "refused"
    assert out["code"] == "SEALED_OVER_BUDGET"
    assert out["tokens"]["after"] == out["tokens"]["total"]
    assert out["dropped"] == []
    assert out["message"]


def test_check_json_under_the_seed_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [{"kind": "note", "text": "ok"}, *ENTRIES]
    path = write(tmp_path / "pad.json", entries)
    code, out = check_json(capsys, path, "--policy", "seed", "--budget", "40")
    assert code == 0
    assert out["policy"] == "seed"
    assert out["verdict"] == "compactable"
    assert out["kept"] == ["c1", "#0", "#3"]  # sealed, then kept
    assert out["dropped"] == ["p-long"]
    assert out["loss_record"] is None

    code, out = check_json(capsys, path, "--policy", "seed", "--budget", "4000")
    assert (code, out["verdict"], out["dropped"]) == (0, "fits", [])
