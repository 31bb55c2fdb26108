"""What a trial says beyond its drops: every rule a pass may drop (the README's "How padtui
finds rules in your memory": rules wherever they live), the ones this pass drops, and a pass
that drops far more than it had to free (first fit over a big entry)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from padtui.core.compaction.plan import plan, rules_at_risk
from padtui.core.counting.tokens import counter_for
from padtui.core.model import Entry, Pad, make_entry

COUNTER = counter_for("cl100k_base")
NOW = datetime(2026, 11, 14, 9, 30, tzinfo=UTC)


def cost(*entries: Entry) -> int:
    return sum(COUNTER.count(e.text) for e in entries)


SEALED_RULE = make_entry("constraint", "Never call the billing API.", sealed=True, id="c1")
PREFERENCE = make_entry("user_preferences", "Always answer in French.")
BY_WORDING = make_entry("note", "The v1 export endpoint does not work; use v2.", id="n-v1")
PLAIN = make_entry("note", "The staging ledger is a day behind production.", id="n-plain")
LONG_RULE = make_entry(
    "note", "Do not deploy on Fridays. " + "Context and history. " * 40, id="n-long"
)


def memory() -> Pad:
    return Pad.of([SEALED_RULE, PREFERENCE, BY_WORDING, PLAIN, LONG_RULE])


# --- rules at risk -----------------------------------------------------------------------------


def test_every_unsealed_rule_is_at_risk_and_the_dropped_ones_are_marked() -> None:
    pad = memory()
    budget = cost(*pad.entries) - cost(LONG_RULE) + 60  # the long note goes, nothing else
    got = plan(pad, budget, "strict", COUNTER, now=NOW, fmt="json")
    # (strict refuses the pass, for the rule in the long note; its rules at risk are those
    # of the pass it would have made)
    assert got.code == "RULE_WOULD_DROP" and [e.label for e in got.dropped] == ["n-long"]
    risk = {(r.entry.label, r.text): r for r in got.rules_at_risk}
    # the sealed rule is safe; the plain note holds no rule
    assert not any(label in ("c1", "n-plain") for label, _ in risk)
    # a rule by place (a preferences heading), kept by this pass, is still at risk
    pref = risk[("#1", "Always answer in French.")]
    assert (pref.kind, pref.dropped, pref.entry.kind) == ("obligation", False, "user_preferences")
    assert pref.where == "user preferences"  # the heading's slug read back as words
    # a rule by wording in a note, kept; and one in the note this pass drops
    v1 = risk[("n-v1", "The v1 export endpoint does not work;")]
    assert (v1.kind, v1.dropped) == ("negative_fact", False)
    friday = risk[("n-long", "Do not deploy on Fridays.")]
    assert (friday.kind, friday.dropped) == ("prohibition", True)
    assert [r.entry.index for r in got.rules_at_risk] == sorted(
        r.entry.index for r in got.rules_at_risk
    )  # file order


def test_rules_at_risk_are_listed_when_the_pass_keeps_everything_or_is_refused() -> None:
    pad = memory()
    fits = plan(pad, cost(*pad.entries), "strict", COUNTER, now=NOW)
    assert fits.verdict == "fits"
    assert {r.entry.label for r in fits.rules_at_risk} == {"#1", "n-v1", "n-long"}
    assert not any(r.dropped for r in fits.rules_at_risk)
    refused = plan(pad, cost(SEALED_RULE) + 5, "strict", COUNTER, now=NOW)
    assert refused.refused
    dropped = {e.index for e in refused.dropped}
    assert all(r.dropped == (r.entry.index in dropped) for r in refused.rules_at_risk)


def test_a_sealed_pad_has_no_rule_at_risk_and_the_json_says_where_each_lives() -> None:
    sealed = Pad.of([SEALED_RULE, PLAIN])
    assert plan(sealed, 1000, "strict", COUNTER).rules_at_risk == ()
    heading = replace(PREFERENCE, context=("Memory", "User Preferences"))
    got = plan(Pad.of([heading, PLAIN]), 1000, "strict", COUNTER)
    (rule,) = got.as_json()["rules_at_risk"]
    assert rule == {
        "entry": "#0",
        "entry_kind": "user_preferences",
        "kind": "obligation",
        "text": "Always answer in French.",
        "heading": "User Preferences",
        "dropped": False,
    }
    assert rules_at_risk(got) == got.rules_at_risk


# --- over-dropping -----------------------------------------------------------------------------


def test_a_pass_that_drops_a_big_entry_for_a_small_overrun_says_so() -> None:
    small = [make_entry("note", f"note {i}: the batch is fine", id=f"n{i}") for i in range(4)]
    big = make_entry("note", "A long log of what happened. " * 60, id="big")
    pad = Pad.of([small[0], big, *small[1:]])
    budget = cost(*pad.entries) - 5  # five tokens over: first fit drops the big entry
    got = plan(pad, budget, "strict", COUNTER, now=NOW, fmt="json")
    assert [e.label for e in got.dropped] == ["big"]
    assert got.overrun == 5 and got.tokens_needed == 5 + got.record_tokens
    assert got.over_dropping
    line = got.over_dropping_line()
    assert line == (
        f"over-dropping: the pass drops {cost(big)} tokens to free {got.tokens_needed} "
        f"(5 over the budget + {got.record_tokens} for its loss record): first fit drops "
        f"every entry that no longer fits, whatever its size (the largest, big, is "
        f"{cost(big)} tokens)"
    )
    assert got.as_json()["over_dropping"] == {
        "dropped": cost(big),
        "needed": got.tokens_needed,
        "overrun": 5,
    }


def test_a_pass_that_drops_about_what_it_must_does_not_say_so() -> None:
    notes = [make_entry("note", f"note {i}: " + "word " * 20, id=f"n{i}") for i in range(10)]
    pad = Pad.of(notes)
    got = plan(pad, cost(*pad.entries) - 30, "strict", COUNTER, now=NOW, fmt="json")
    assert got.verdict == "compactable"
    assert got.tokens_dropped <= 2 * got.tokens_needed
    assert not got.over_dropping and got.over_dropping_line() is None
    assert got.as_json()["over_dropping"] is None


def test_over_dropping_needs_both_twice_the_need_and_fifty_tokens_more() -> None:
    """Twice the need but under 50 tokens more is first fit's granularity, not a fault."""
    small = make_entry("note", "ok", id="ok")
    middle = make_entry("note", "word " * 30, id="mid")
    pad = Pad.of([small, middle])
    got = plan(pad, cost(*pad.entries) - 1, "seed", COUNTER)  # (seed: no record to count)
    assert [e.label for e in got.dropped] == ["mid"] and got.tokens_needed == 1
    assert got.tokens_dropped > 2 * got.tokens_needed
    assert got.tokens_dropped - got.tokens_needed <= 50
    assert not got.over_dropping
    bigger = Pad.of([small, make_entry("note", "word " * 60, id="big")])
    assert plan(bigger, cost(*bigger.entries) - 1, "seed", COUNTER).over_dropping
