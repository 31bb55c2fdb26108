"""The strict loss record sized to the pad, and the way out of each refusal (the README's
"Policies").

A record that names every dropped entry (label, kind, tokens, a quote) costs 20 to 30 tokens
an entry: on a pad of small bullets it costs more than the pass frees, and the pass is refused
for a record it never needed. The record names ranges or counts per kind when the detail would
cost entries; its ``drops`` field lists every label whatever the text says.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from padtui.core.audit.rewrite import audit
from padtui.core.audit.wording import named_by
from padtui.core.compaction.plan import Plan, loss_record, plan, short_quote
from padtui.core.counting.tokens import counter_for
from padtui.core.model import Entry, Pad, make_entry
from tests.memory_fixtures import PLAIN_ISSUES as KNOWN_ISSUES

COUNTER = counter_for("cl100k_base")
NOW = datetime(2026, 11, 14, 9, 30, tzinfo=UTC)
ISSUES = KNOWN_ISSUES


def cost(*entries: Entry) -> int:
    return sum(COUNTER.count(e.text) for e in entries)


def bullets(kind: str, texts: list[str], heading: str | None = None) -> list[Entry]:
    """Bullets as a Markdown memory file has them: no ids, the kind a heading's slug."""
    out = [make_entry(kind, t) for t in texts]
    return [replace(e, context=("Progress", heading)) for e in out] if heading else out


def declared(p: Plan) -> None:
    """Every dropped entry is declared as the next audit reads the record, and the record's
    cost is what the pass counted."""
    record = p.loss_record
    assert record is not None and record.sealed and record.kind == "loss_record"
    assert record.raw["drops"] == [e.label for e in p.dropped]
    for e in p.dropped:
        assert named_by(e, [record]), (e.label, record.text)
    assert p.record_tokens == COUNTER.count(record.text)
    assert p.tokens_after == cost(*p.result()) <= p.budget


# --- 1. a record sized to the pad ------------------------------------------------------------


def test_a_pad_of_small_bullets_is_compacted_with_a_record_of_ranges() -> None:
    pad = Pad.of(
        bullets("what_works", [f"Feature {i} works end to end" for i in range(20)])
        + bullets("known_issues", ISSUES * 3)
    )
    budget = cost(*pad.entries) - 60  # over by 60: a few bullets must go
    # naming each bullet (kind, tokens, a quote) costs more than the bullets themselves
    each = loss_record(pad, pad.entries[-20:], {e.index: cost(e) for e in pad.entries}, 1, NOW)
    assert COUNTER.count(each.text) > cost(*pad.entries[-20:])

    got = plan(pad, budget, "strict", COUNTER, now=NOW, fmt="json")
    assert got.verdict == "compactable", got.message
    assert got.record_form == "ranges"
    assert {e.kind for e in got.dropped} == {"known_issues"}
    assert got.loss_record is not None
    part = got.loss_record.text.split(": ", 1)[1]
    assert part.startswith(f"{len(got.dropped)} known_issues entries (#")
    assert "\u2013" in part  # neighbours dropped together are one range
    assert got.record_tokens < 60  # the head (time, budget, totals) and one group
    declared(got)


def test_a_markdown_pad_of_small_bullets_gets_a_record_whose_text_declares_each() -> None:
    """Markdown keeps no drops field: the text names each bullet by a short quote, which
    the audit recognises, at a fraction of what naming each in full costs."""
    pad = Pad.of(
        bullets("what_works", [f"Feature {i} works end to end" for i in range(20)])
        + bullets("known_issues", ISSUES * 3)
    )
    budget = cost(*pad.entries) - 60
    for fmt in ("md", None):
        got = plan(pad, budget, "strict", COUNTER, now=NOW, fmt=fmt)
        assert got.verdict == "compactable", got.message
        assert got.record_form == "names"
        declared(got)
        assert got.loss_record is not None
        text_only = make_entry("loss_record", got.loss_record.text, sealed=True)
        assert all(named_by(e, [text_only]) for e in got.dropped)
        assert '"Some recipes..."' in got.loss_record.text  # the first bullet, quoted short
        each = loss_record(pad, got.dropped, got.costs, budget, NOW)
        assert got.record_tokens * 2 < COUNTER.count(each.text)


def test_the_groups_name_each_kind_in_one_word() -> None:
    pad = Pad.of(
        [
            *bullets("user_preferences", ["Prefers tabs", "Answers in French"], "User Preferences"),
            *bullets("note", ["a note that goes", "another one"]),
            make_entry("plan", "step " * 40, id="p-long"),
        ]
    )
    costs = {e.index: cost(e) for e in pad.entries}
    record = loss_record(pad, pad.entries, costs, 9, NOW, "ranges")
    head, _, body = record.text.partition(": ")
    assert head.endswith("dropped 5 entries, " + str(cost(*pad.entries)) + " tokens")
    parts = body.split("; ")
    assert parts[0] == f"2 user_preferences entries (#0\u2013#1), {cost(*pad.entries[:2])} tokens"
    assert parts[1] == f"2 notes (#2\u2013#3), {cost(*pad.entries[2:4])} tokens"
    assert parts[2] == f"1 plan (p-long), {cost(pad.entries[4])} tokens"
    counts = loss_record(pad, pad.entries, costs, 9, NOW, "counts")
    assert (
        counts.text.split(": ", 1)[1].split("; ")[1] == f"2 notes, {cost(*pad.entries[2:4])} tokens"
    )
    assert counts.raw["drops"] == ["#0", "#1", "#2", "#3", "p-long"]


def test_a_record_never_says_the_title_of_the_section_it_drops_from() -> None:
    """The audit reads a record that says a section's title as declaring every entry under
    it, in every later rewrite too: a record of two preferences must not let a later,
    undeclared loss of the third one pass."""
    prefs = ["Prefers tabs over spaces in every file", "Answers in French", "Never push to main"]
    old = Pad.of(
        [
            *bullets("user_preferences", prefs, "User Preferences"),
            make_entry("note", "Status: the export is half done.", id="n1"),
        ]
    )
    costs = {e.index: cost(e) for e in old.entries}
    for form in ("each", "names", "ranges", "counts"):
        record = loss_record(old, old.entries[:2], costs, 9, NOW, form)
        assert "user preferences" not in " ".join(record.text.lower().split()), form
    # a compaction that drops two preferences, then an agent's rewrite that drops the third
    compacted = Pad.of(
        [*old.entries[2:], loss_record(old, old.entries[:2], costs, 9, NOW, "names")]
    )
    assert audit(old, compacted, COUNTER).verdict == "compaction"
    later = Pad.of([e for e in compacted.entries if e.text != "Never push to main"])
    found = audit(compacted, later, COUNTER)
    assert found.verdict == "corruption"
    assert any(f.code == "CONSTRAINT_DROPPED" for f in found.findings)


def test_kinds_that_take_turns_get_their_runs_once_across_the_kinds() -> None:
    kinds = ["plan", "note", "hypothesis"]
    pad = Pad.of(make_entry(kinds[i % 3], f"entry {i}: " + "word " * 8) for i in range(30))
    costs = {e.index: cost(e) for e in pad.entries}
    record = loss_record(pad, pad.entries[10:], costs, 9, NOW, "ranges")
    parts = record.text.split(": ", 1)[1].split("; ")
    assert [p.split(",")[0] for p in parts[:3]] == ["7 notes", "7 hypotheses", "6 plans"]
    assert parts[3] == "entries #10\u2013#29"  # one run, not twenty labels in three lists
    assert record.raw["drops"] == [f"#{i}" for i in range(10, 30)]
    # a Markdown-like pad, each kind in one run: the runs stay with their kinds
    sections = Pad.of(
        make_entry("what_works" if i < 15 else "known_issues", f"item {i}") for i in range(30)
    )
    costs = {e.index: cost(e) for e in sections.entries}
    record = loss_record(sections, sections.entries[10:], costs, 9, NOW, "ranges")
    assert (
        record.text.split(": ", 1)[1]
        .split("; ")[0]
        .startswith("5 what_works entries (#10\u2013#14)")
    )


def test_a_range_covers_only_neighbours_dropped_together() -> None:
    entries = [
        make_entry("note", f"note number {i} " + "word " * (30 if i in (2, 5) else 2))
        for i in range(8)
    ]
    entries[6] = make_entry("note", entries[6].text, id="n-six")
    pad = Pad.of(entries)
    dropped = [pad.entries[i] for i in (0, 1, 3, 4, 6, 7)]  # 2 and 5 kept
    record = loss_record(pad, dropped, {e.index: cost(e) for e in pad.entries}, 9, NOW, "ranges")
    assert record.text.endswith("6 notes (#0\u2013#1, #3\u2013#4, n-six, #7)")


def test_detail_is_written_only_when_it_costs_no_entry() -> None:
    big = make_entry("plan", " ".join(["step"] * 200), id="p-long")
    small = make_entry("note", "ok")
    pad = Pad.of([small, big])
    roomy = plan(pad, 120, "strict", COUNTER, now=NOW, fmt="json")  # room to spare
    assert roomy.record_form == "each"
    assert roomy.loss_record is not None and "p-long (plan, 200 tokens)" in roomy.loss_record.text
    declared(roomy)
    # no room for the detail: the note would have to go to pay for it, so the names are
    # written (ranges too would cost it nothing more, and say less)
    names = loss_record(pad, [big], roomy.costs, 0, NOW, "names")
    tight = COUNTER.count(names.text) + cost(small)
    got = plan(pad, tight, "strict", COUNTER, now=NOW, fmt="json")
    assert [e.label for e in got.dropped] == ["p-long"]
    assert got.record_form == "names"
    assert got.loss_record is not None and got.loss_record.text.endswith(": 1 plan (p-long)")
    declared(got)


def test_counts_when_even_the_labels_would_not_fit() -> None:
    """Scattered entries with ids: the ids alone cost more than the room beside the sealed
    region, a count per kind does not. The drops field still declares each of them."""
    rule = make_entry("constraint", "Never call the billing API. " * 20, sealed=True, id="c1")
    notes = [
        make_entry("note", f"observation {i}: " + "detail " * 6, id=f"obs-{i:03d}")
        for i in range(40)
    ]
    pad = Pad.of([rule, *notes])
    budget = cost(rule) + 45
    got = plan(pad, budget, "strict", COUNTER, now=NOW, fmt="jsonl")
    assert got.verdict == "compactable", got.message
    assert got.record_form == "counts"
    assert got.loss_record is not None and "obs-" not in got.loss_record.text
    assert len(got.dropped) >= 39
    declared(got)
    # a Markdown pad's record cannot leave its entries to a field it has not got: refused
    md = plan(pad, budget, "strict", COUNTER, now=NOW, fmt="md")
    assert md.code == "RECORD_WOULD_NOT_FIT"


def test_a_large_pad_of_bullets_compacts_where_naming_each_was_refused() -> None:
    pad = Pad.of(
        bullets("progress", [f"Step {i} done: checked the {i}th batch" for i in range(400)])
    )
    total = cost(*pad.entries)
    got = plan(pad, total // 2, "strict", COUNTER, now=NOW, fmt="json")
    assert got.verdict == "compactable"
    assert got.record_tokens < 60  # one range: "200 entries under progress (#200-#399)"
    declared(got)
    # a Markdown record quotes each bullet (about half what a bullet costs here): it
    # affords a tenth of the pad, not half of it
    md = plan(pad, total - total // 10, "strict", COUNTER, now=NOW, fmt="md")
    assert md.verdict == "compactable" and md.record_form == "names"
    declared(md)
    assert plan(pad, total // 2, "strict", COUNTER, now=NOW, fmt="md").code == (
        "RECORD_WOULD_NOT_FIT"
    )


# --- 2. a way out that fits the case ---------------------------------------------------------


def goes_through(p: Plan, budget: int, fmt: str | None = None) -> None:
    again = plan(p.source, budget, p.policy, COUNTER, now=NOW, fmt=fmt)
    assert not again.refused, again.message


def test_record_would_not_fit_says_what_the_record_costs_and_what_budget_fits() -> None:
    rule = make_entry("constraint", "Never call the billing API. " * 10, sealed=True, id="c1")
    pad = Pad.of([rule, *bullets("note", ISSUES)])
    seen = set()
    for budget in range(cost(rule) + 1, cost(*pad.entries)):
        got = plan(pad, budget, "strict", COUNTER, now=NOW)
        if got.code != "RECORD_WOULD_NOT_FIT":
            continue
        way_out = got.way_out or ""
        record = int(got.message.split("loss record ")[1].split(" tokens")[0])
        n = len(got.dropped)
        assert f"a record of the {n} entries this pass drops needs {record} tokens" in way_out
        assert got.fits_at is not None and budget < got.fits_at <= got.tokens_total
        if got.fits_at < got.tokens_total:
            assert f"at a budget of {got.fits_at} a strict pass goes through: " in way_out
        else:
            assert "below the pad's own size no strict pass goes through" in way_out
        assert f"padtui check PATH --budget {got.fits_at}" in way_out
        goes_through(got, got.fits_at)
        # the sealed region is in the way when the record alone would fit the budget:
        # consolidating it by the shortfall would do too; else it is not the cause
        short = cost(rule) + record - budget
        consolidate = f"or a person consolidates the sealed region (1 entry, {cost(rule)} tokens) "
        assert (consolidate + f"by {short} tokens" in way_out) == (record <= budget)
        assert ("consolidat" in way_out) == (record <= budget)
        seen.add(record <= budget)
    assert seen == {True, False}


def test_record_would_not_fit_with_nothing_sealed_never_speaks_of_the_sealed_region() -> None:
    pad = Pad.of(bullets("note", ISSUES))
    total = cost(*pad.entries)
    # a Markdown record quotes each note: no pass affords its record below the pad's size
    md = plan(pad, 12, "strict", COUNTER, now=NOW, fmt="md")
    assert md.code == "RECORD_WOULD_NOT_FIT" and md.fits_at == total
    assert md.way_out == (
        f"halt and surface: a record of the {len(md.dropped)} entries this pass drops needs "
        f"{md.message.split('loss record ')[1].split(' tokens')[0]} tokens (this format keeps "
        "no drops field: its text names each entry); below the pad's own size no strict pass "
        f"goes through: at a budget of {total} nothing is dropped: "
        f"padtui check PATH --budget {total}"
    )
    # a JSON record may count them: a budget below the pad's size affords one
    js = plan(pad, 12, "strict", COUNTER, now=NOW, fmt="json")
    assert js.code == "RECORD_WOULD_NOT_FIT"
    assert js.fits_at is not None and js.fits_at < total
    assert f"at a budget of {js.fits_at} a strict pass goes through" in (js.way_out or "")
    for got, fmt in ((md, "md"), (js, "json")):
        assert "sealed region" not in (got.way_out or "")
        assert "consolidat" not in (got.way_out or "")
        assert got.fits_at is not None
        goes_through(got, got.fits_at, fmt)


@pytest.mark.parametrize("policy", ["strict", "seed"])
def test_sealed_over_budget_names_the_sealed_region_and_a_budget_that_fits(policy: str) -> None:
    rule = make_entry("constraint", "Never call the billing API. " * 10, sealed=True, id="c1")
    fact = make_entry("negative_fact", "The v1 endpoint is gone.", sealed=True, id="nf1")
    pad = Pad.of([rule, fact, *bullets("note", ISSUES)])
    got = plan(pad, cost(rule), policy, COUNTER, now=NOW)
    assert got.code == "SEALED_OVER_BUDGET"
    way_out = got.way_out or ""
    assert f"the sealed region (2 entries, {cost(rule, fact)} tokens)" in way_out
    assert "consolidates it" in way_out
    assert got.fits_at is not None and got.fits_at >= cost(rule, fact)
    assert f"padtui check PATH --budget {got.fits_at}" in way_out
    assert ("--policy seed" in way_out) == (policy == "seed")
    goes_through(got, got.fits_at)


def test_protected_kind_way_out_is_a_command_whose_every_argument_is_quoted() -> None:
    fact = make_entry("negative_fact", "Retrying with a fresh key was tried and failed.")
    odd = make_entry("constraint", "Never deploy on Fridays.", id="rule; rm -rf ~")
    pad = Pad.of([make_entry("plan", "step " * 50), fact, odd])
    got = plan(pad, 40, "strict", COUNTER, now=NOW, fmt="json")
    assert got.code == "PROTECTED_KIND_WOULD_DROP"
    command = (got.way_out_for("my pads/pad.json") or "").split(": ", 1)[1]
    assert shlex.split(command) == [
        "padtui",
        "externalize",
        os.path.abspath("my pads/pad.json"),  # (pasted in any folder, the same file)
        "#1",
        "rule; rm -rf ~",
    ]
    assert "sealed region" in (got.way_out or "")
    assert "consolidat" not in (got.way_out or "")


def test_protected_kind_way_out_says_when_sealing_them_overflows_the_budget() -> None:
    fact = make_entry("negative_fact", "The v1 endpoint was tried and it failed. " * 8, id="nf1")
    pad = Pad.of([make_entry("note", "ok"), fact])
    got = plan(pad, cost(fact) - 5, "strict", COUNTER, now=NOW)
    assert got.code == "PROTECTED_KIND_WOULD_DROP"
    assert f"the sealed region {cost(fact)} tokens, over the budget of {cost(fact) - 5}" in (
        got.way_out or ""
    )
    fits = plan(pad, cost(fact) + 200, "strict", COUNTER, now=NOW)
    assert fits.verdict == "fits"


def test_no_loss_record_way_out_quotes_the_labels() -> None:
    fact = make_entry("negative_fact", "The v1 endpoint was tried and it failed. " * 8)
    pad = Pad.of([make_entry("note", "ok"), fact])
    got = plan(pad, 10, "seed", COUNTER)
    assert got.code == "NO_LOSS_RECORD"
    assert got.way_out == "externalize before compacting: padtui externalize PATH '#1'"


def test_refusals_on_the_protected_kinds_read_naturally() -> None:
    fact = make_entry("negative_fact", "The v1 endpoint was tried and it failed. " * 8)
    pad = Pad.of([make_entry("user_preferences", "Prefers tabs"), fact])
    got = plan(pad, 10, "strict", COUNTER, now=NOW)
    assert got.code == "PROTECTED_KIND_WOULD_DROP"
    assert "would drop negative fact #1:" in got.message


@settings(max_examples=500, deadline=None)
@given(
    text=st.text(min_size=1, max_size=60).filter(lambda t: bool(t.split())),
    before=st.sampled_from(["", "1 note (", "3 entries under user preferences (p1, "]),
)
def test_a_short_quote_is_recognised_by_the_audit_whatever_the_text(text: str, before: str) -> None:
    """What a Markdown record's text alone declares: the audit reads the short quote of any
    text (dots, quotes, ellipses, scripts without spaces) as naming its entry."""
    e = Pad.of([make_entry("note", text)]).entries[0]
    quote = short_quote(text)
    assert len(quote) <= max(len(" ".join(text.split())) + 2, 2 * 8 + 7)
    record = make_entry("loss_record", f"compaction dropped 1 entry: {before}{quote})")
    assert named_by(e, [record]), (text, quote)
