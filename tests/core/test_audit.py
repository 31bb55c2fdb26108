"""The audit of one rewrite (the README's "What it is for"): declared compaction, or corruption?

Each test states a behaviour a user relies on: that the seed's observed failure (a
constraint paraphrased away inside a condensed plan) is called corruption, that an honest
rewrite is not, and that every finding names its entries and shows the text before/after.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from padtui.core.audit.findings import CRITICAL, SEVERITY, WARNING, Finding
from padtui.core.audit.matching import match
from padtui.core.audit.rewrite import Audit, audit
from padtui.core.audit.wording import named_by, weakening
from padtui.core.compaction.plan import plan
from padtui.core.counting.tokens import counter_for
from padtui.core.formats import load
from padtui.core.model import Entry, Pad, make_entry

COUNTER = counter_for("cl100k_base")
RETRY = "Do not retry writes after a 5xx; the write may have landed."
NOW = datetime(2026, 11, 14, 9, 30, tzinfo=UTC)


def pad(*entries: Entry) -> Pad:
    return Pad.of(entries)


def run(old: Pad, new: Pad) -> Audit:
    return audit(old, new, COUNTER)


def the(result: Audit, code: str) -> Finding:
    """The one finding of this code (failing with the whole list when there is not one)."""
    hits = [f for f in result.findings if f.code == code]
    assert len(hits) == 1, f"expected one {code}, got {result.findings}"
    return hits[0]


def lacks(result: Audit, *codes: str) -> None:
    found = [f for f in result.findings if f.code in codes]
    assert not found, f"false alarm: {found}"


def constraint(text: str, id: str | None = None, **kw: Any) -> Entry:
    return make_entry("constraint", text, id=id, **kw)


def plan_step(text: str, id: str | None = None, **kw: Any) -> Entry:
    return make_entry("plan", text, id=id, **kw)


# --- 1. the seed's observed failure ----------------------------------------------------------

FETCH = "Fetch the invoice batch from the billing queue."
POST = "Post each invoice total to the ledger."
CONDENSED = "Fetch the invoice batch, post each total to the ledger and handle write errors."


def seed_old() -> Pad:
    return pad(
        constraint(RETRY, id="c-retry"),
        plan_step(FETCH, id="p-fetch"),
        plan_step(POST, id="p-post"),
    )


def test_seed_condense_with_derived_from_is_constraint_weakened() -> None:
    new = pad(
        plan_step(CONDENSED, id="p-run", derived_from=["c-retry", "p-fetch", "p-post"], op="merge")
    )
    result = run(seed_old(), new)
    assert result.verdict == "corruption"
    weak = the(result, "CONSTRAINT_WEAKENED")
    assert weak.severity == CRITICAL
    assert weak.entries == ("c-retry", "p-run")
    assert weak.before == RETRY
    assert weak.after == CONDENSED
    assert "prohibition" in weak.message and "'not'" in weak.message
    assert "5xx" in weak.message
    lacks(result, "CONSTRAINT_DROPPED", "UNDECLARED_LOSS")
    # it now lives only in a plan entry, which the next budget pass may drop
    assert the(result, "CONSTRAINT_DEMOTED").entries == ("c-retry", "p-run")


def test_seed_condense_without_derived_from_is_constraint_dropped() -> None:
    new = pad(plan_step(CONDENSED, id="p-run"))
    result = run(seed_old(), new)
    assert result.verdict == "corruption"
    dropped = the(result, "CONSTRAINT_DROPPED")
    assert dropped.severity == CRITICAL
    assert dropped.entries == ("c-retry",)
    assert dropped.before == RETRY and dropped.after is None
    assert "no loss record names it" in dropped.message
    lacks(result, "CONSTRAINT_WEAKENED")
    # the two plan steps live on, joined, in the condensed step: a join loses nothing
    lacks(result, "UNDECLARED_LOSS")


def test_seed_merging_two_plan_steps_declared_is_compaction() -> None:
    sealed_rule = constraint(RETRY, id="c-retry", sealed=True)
    old = pad(sealed_rule, plan_step(FETCH, id="p-fetch"), plan_step(POST, id="p-post"))
    merged = "Fetch the invoice batch from the billing queue and post each total to the ledger."
    new = pad(sealed_rule, plan_step(merged, id="p-run", derived_from=["p-fetch", "p-post"]))
    result = run(old, new)
    assert result.verdict == "compaction"
    assert not result.critical
    lacks(result, "UNDECLARED_LOSS", "CONSTRAINT_DEMOTED")
    # two claims became one, declared: a fully declared compaction does not warn
    lacks(result, "CLAIMS_REDUCED")


def test_seed_annotation_evicted_by_the_next_pass_is_corruption() -> None:
    """The seed's second observation: the loss record is the first thing the next pass drops."""
    note = make_entry("loss_record", "[condensed: dropped explicit retry prohibition]")
    old = pad(plan_step(CONDENSED, id="p-run"), note)
    new = pad(plan_step(CONDENSED, id="p-run"))
    result = run(old, new)
    assert result.verdict == "corruption"
    evicted = the(result, "LOSS_RECORD_EVICTED")
    assert evicted.entries == ("#1",)
    assert evicted.before == note.text and evicted.after is None
    lacks(result, "SEALED_REMOVED", "UNDECLARED_LOSS")


# --- 2. one test per finding code, and where it must not be raised ---------------------------


def test_every_code_has_its_spec_severity() -> None:
    assert SEVERITY == {
        "SEALED_REMOVED": CRITICAL,
        "SEALED_EDITED": CRITICAL,
        "SEALED_UNSEALED": CRITICAL,
        "LOSS_RECORD_EVICTED": CRITICAL,
        "CONSTRAINT_DROPPED": CRITICAL,
        "CONSTRAINT_WEAKENED": CRITICAL,
        "CONSTRAINT_DEMOTED": WARNING,
        "UNDECLARED_LOSS": WARNING,
        "CLAIMS_REDUCED": WARNING,
        "CAUTION_FALLING": WARNING,
        "RULE_MOVED": "info",
        "RULE_SCOPE_NARROWED": WARNING,
        "RULE_TIGHTENED": WARNING,
        "RULE_UNCERTAIN": WARNING,
    }


def test_sealed_removed() -> None:
    fact = make_entry("note", "The ledger lives in the ops account.", id="n-ledger", sealed=True)
    old = pad(fact, plan_step(FETCH, id="p-fetch"))
    result = run(old, pad(plan_step(FETCH, id="p-fetch")))
    f = the(result, "SEALED_REMOVED")
    assert (f.severity, f.entries, f.before, f.after) == (
        CRITICAL,
        ("n-ledger",),
        fact.text,
        None,
    )
    assert "n-ledger" in f.message
    assert result.verdict == "corruption"
    lacks(result, "UNDECLARED_LOSS")  # one loss, reported once, as what it is


def test_sealed_removed_not_raised_when_only_its_position_changed() -> None:
    fact = make_entry("note", "The ledger lives in the ops account.", sealed=True)
    old = pad(fact, plan_step(FETCH))
    new = pad(plan_step(POST), plan_step(FETCH), fact)
    result = run(old, new)
    lacks(result, "SEALED_REMOVED", "SEALED_EDITED")
    assert result.verdict == "growth"


def test_sealed_edited() -> None:
    before = make_entry("note", "Backups run at 02:00 UTC.", id="n-backup", sealed=True)
    after = make_entry("note", "Backups run at 03:00 UTC.", id="n-backup", sealed=True)
    result = run(pad(before), pad(after))
    f = the(result, "SEALED_EDITED")
    assert (f.severity, f.entries, f.before, f.after) == (
        CRITICAL,
        ("n-backup",),
        before.text,
        after.text,
    )
    assert result.verdict == "corruption"


def test_sealed_edited_when_its_kind_changes() -> None:
    """The sealed region is append-only: a sealed constraint may not turn into a note."""
    before = constraint(RETRY, id="c-retry", sealed=True)
    after = make_entry("note", RETRY, id="c-retry", sealed=True)
    f = the(run(pad(before), pad(after)), "SEALED_EDITED")
    assert (f.entries, f.before, f.after) == (("c-retry",), RETRY, RETRY)
    assert "note" in f.message


def test_sealed_unsealed() -> None:
    rule = constraint(RETRY, id="c-retry", sealed=True)
    result = run(pad(rule), pad(constraint(RETRY, id="c-retry")))
    f = the(result, "SEALED_UNSEALED")
    assert (f.severity, f.entries, f.before, f.after) == (CRITICAL, ("c-retry",), RETRY, RETRY)
    assert result.codes == ["SEALED_UNSEALED"]
    assert result.verdict == "corruption"


def test_sealing_an_entry_is_not_an_alarm() -> None:
    """externalize flips one sealed flag: the opposite of SEALED_UNSEALED."""
    result = run(
        pad(constraint(RETRY, id="c-retry")), pad(constraint(RETRY, id="c-retry", sealed=True))
    )
    assert result.findings == ()
    assert result.verdict != "corruption"


def test_loss_record_evicted_unsealed() -> None:
    record = make_entry("loss_record", "dropped p-old (plan, 12 tokens)", id="loss-1")
    old = pad(record, plan_step(FETCH, id="p-fetch"))
    result = run(old, pad(plan_step(FETCH, id="p-fetch")))
    f = the(result, "LOSS_RECORD_EVICTED")
    assert (f.severity, f.entries, f.before, f.after) == (CRITICAL, ("loss-1",), record.text, None)
    lacks(result, "SEALED_REMOVED", "UNDECLARED_LOSS")
    assert result.verdict == "corruption"


def test_loss_record_evicted_sealed_is_also_sealed_removed() -> None:
    record = make_entry("loss_record", "dropped p-old (plan, 12 tokens)", id="loss-1", sealed=True)
    result = run(pad(record, plan_step(FETCH)), pad(plan_step(FETCH)))
    assert the(result, "LOSS_RECORD_EVICTED").entries == ("loss-1",)
    assert the(result, "SEALED_REMOVED").entries == ("loss-1",)


def test_loss_record_evicted_even_when_a_new_similar_record_is_appended() -> None:
    """Records of two different losses look alike: a new one is not the old one edited."""
    first = make_entry(
        "loss_record",
        "compaction at 2026-11-14T09:00:00Z (strict, budget 400) dropped 1 entry, 9 tokens: "
        "p-a (plan, 9 tokens)",
        id="loss-20261114T090000Z",
    )
    second = make_entry(
        "loss_record",
        "compaction at 2026-11-14T10:00:00Z (strict, budget 400) dropped 1 entry, 8 tokens: "
        "p-b (plan, 8 tokens)",
        id="loss-20261114T100000Z",
    )
    old = pad(plan_step(FETCH, id="p-b"), first)
    new = pad(second)
    result = run(old, new)
    assert the(result, "LOSS_RECORD_EVICTED").entries == ("loss-20261114T090000Z",)
    assert result.verdict == "corruption"

    # the same without ids: still the old record is gone
    old = pad(plan_step(FETCH), make_entry("loss_record", first.text))
    new = pad(make_entry("loss_record", second.text.replace("p-b", "#0")))
    assert the(run(old, new), "LOSS_RECORD_EVICTED").entries == ("#1",)


def test_sealed_loss_record_edited_without_ids_is_sealed_edited() -> None:
    before = make_entry("loss_record", "dropped p-a (plan, 9 tokens)", sealed=True)
    after = make_entry("loss_record", "dropped p-a (plan, 4 tokens)", sealed=True)
    result = run(pad(before), pad(after))
    assert result.matches == {0: (0, "close")}
    f = the(result, "SEALED_EDITED")
    assert (f.entries, f.before, f.after) == (("#0",), before.text, after.text)
    assert result.verdict == "corruption"


def test_loss_record_kept_when_folded_verbatim_into_a_larger_record() -> None:
    first = make_entry("loss_record", "dropped p-a (plan, 9 tokens)")
    both = make_entry("loss_record", "dropped p-a (plan, 9 tokens); dropped p-b (plan, 8 tokens)")
    old = pad(first, plan_step(FETCH, id="p-b"))
    result = run(old, pad(both))
    lacks(result, "LOSS_RECORD_EVICTED", "UNDECLARED_LOSS")
    assert result.verdict == "compaction"


def test_constraint_dropped() -> None:
    old = pad(constraint(RETRY, id="c-retry"), plan_step(FETCH, id="p-fetch"))
    result = run(old, pad(plan_step(FETCH, id="p-fetch")))
    f = the(result, "CONSTRAINT_DROPPED")
    assert (f.severity, f.entries, f.before, f.after) == (CRITICAL, ("c-retry",), RETRY, None)
    assert result.verdict == "corruption"


def test_negative_fact_dropped() -> None:
    fact = make_entry("negative_fact", "Bulk import via the v1 endpoint was tried and failed.")
    result = run(pad(fact, plan_step(FETCH)), pad(plan_step(FETCH)))
    f = the(result, "CONSTRAINT_DROPPED")
    assert (f.entries, f.before, f.after) == (("#0",), fact.text, None)
    assert "negative fact #0" in f.message


def test_constraint_dropped_but_named_by_loss_record_by_id() -> None:
    old = pad(constraint(RETRY, id="c-retry"), plan_step(FETCH, id="p-fetch"))
    record = make_entry(
        "loss_record", "externalised nothing; dropped c-retry to fit 4000", sealed=True
    )
    result = run(old, pad(plan_step(FETCH, id="p-fetch"), record))
    lacks(result, "CONSTRAINT_DROPPED", "CONSTRAINT_WEAKENED")
    assert not result.critical
    assert result.verdict == "compaction"


def test_constraint_dropped_but_named_by_loss_record_drops_field() -> None:
    old = pad(constraint(RETRY, id="7"), plan_step(FETCH, id="p-fetch"))
    record = make_entry("loss_record", "dropped one entry", sealed=True, drops=["7"])
    result = run(old, pad(plan_step(FETCH, id="p-fetch"), record))
    lacks(result, "CONSTRAINT_DROPPED")
    assert result.verdict == "compaction"


def test_constraint_dropped_but_quoted_by_loss_record() -> None:
    old = pad(constraint(RETRY), plan_step(FETCH))
    for text in (
        f'dropped constraint "{RETRY}" to make room',
        'dropped #0 ("Do not retry writes after a...")',  # quoted the way strict quotes
        "dropped #0 (\u201cdo not retry writes after a 5xx;\u2026\u201d)",  # curly, ellipsis
        f"dropped: {RETRY}",  # verbatim, unquoted
    ):
        record = make_entry("loss_record", text, sealed=True)
        result = run(old, pad(plan_step(FETCH), record))
        lacks(result, "CONSTRAINT_DROPPED")
        assert result.verdict == "compaction", text


def test_constraint_not_named_by_a_record_that_names_something_else() -> None:
    old = pad(constraint(RETRY, id="c-retry"), constraint("Never email customers.", id="c-mail"))
    for text in (
        "dropped c-retry-old (plan)",  # a longer id that merely starts with this one
        'dropped "Do not retry reads..."',  # a quote of another text
        "dropped c-mail",
    ):
        record = make_entry("loss_record", text, sealed=True)
        result = run(old, pad(constraint("Never email customers.", id="c-mail"), record))
        assert the(result, "CONSTRAINT_DROPPED").entries == ("c-retry",), text


def test_numeric_id_not_named_by_a_count_in_a_record() -> None:
    old = pad(constraint(RETRY, id="12"), plan_step(FETCH, id="p-fetch"))
    record = make_entry(
        "loss_record", "dropped 1 entry, 12 tokens: p-other (plan, 12 tokens)", sealed=True
    )
    result = run(old, pad(plan_step(FETCH, id="p-fetch"), record))
    assert the(result, "CONSTRAINT_DROPPED").entries == ("12",)


@pytest.mark.parametrize(
    ("before", "after", "lost"),
    [
        # a lost prohibition or negation
        ("Never call the billing API from tests.", "Call the billing API from tests.", "never"),
        (RETRY, "Retry writes after a 5xx; the write may have landed.", "not"),
        (
            "Avoid the staging database during the freeze.",
            "Use the staging database during the freeze.",
            "avoid",
        ),
        ("Don't retry writes after a 5xx.", "Retry writes after a 5xx.", "don't"),
        (
            "Do not retry writes after a 5xx. Never call the billing API twice.",
            "Do not retry writes after a 5xx. Call the billing API twice.",
            "never call the billing api twice",
        ),
        # a lost number
        ("Retry a read at most 3 times.", "Retry a read a few times.", "'3'"),
        ("Keep batches under 500 rows.", "Keep batches under 5000 rows.", "'500'"),
        ("Wait 30 seconds between deploys.", "Wait between deploys.", "'30'"),
        # a lost named object
        (
            "Do not touch billing_api.charge in staging.",
            "Do not touch the charge endpoint in staging.",
            "billing_api.charge",
        ),
        (
            "Never email Stripe support about refunds.",
            "Never email support about refunds.",
            "stripe",
        ),
        (
            "Never write to /etc/hosts on the runner.",
            "Never write to system files on the runner.",
            "/etc/hosts",
        ),
        ("Do not call the HTTP API twice.", "Do not call it twice.", "http"),
        ("Never run `make clean` in prod.", "Never clean up in prod.", "make clean"),
        (
            'Never retry on "connection reset by peer".',
            "Never retry on resets.",
            "connection reset",
        ),
        # a limit stated differently does not keep a flat prohibition
        ("Do not retry writes.", "Retry writes at most 3 times.", "not"),
        # a negative fact's failure
        ("The v1 bulk endpoint was tried and failed.", "The v1 bulk endpoint was tried.", "fail"),
    ],
)
def test_constraint_weakened_by_a_rewrite(before: str, after: str, lost: str) -> None:
    old = pad(constraint(before, id="c1"), plan_step(FETCH, id="p"))
    new = pad(constraint(after, id="c1"), plan_step(FETCH, id="p"))
    result = run(old, new)
    f = the(result, "CONSTRAINT_WEAKENED")
    assert (f.severity, f.entries, f.before, f.after) == (CRITICAL, ("c1",), before, after)
    assert lost in f.message.lower()
    assert result.verdict == "corruption"
    assert weakening(before, after)


def test_negative_fact_weakened_when_condensed() -> None:
    fact = make_entry(
        "negative_fact", "Bulk import via the v1 endpoint was tried and failed.", id="nf-1"
    )
    merged = make_entry(
        "note", "Import via the endpoint in bulk.", id="n-import", derived_from=["nf-1"]
    )
    result = run(pad(fact), pad(merged))
    f = the(result, "CONSTRAINT_WEAKENED")
    assert f.entries == ("nf-1", "n-import")
    assert (f.before, f.after) == (fact.text, merged.text)
    assert "v1" in f.message and "fail" in f.message
    assert "negative fact nf-1" in f.message


def test_condensed_into_an_entry_without_an_id_names_it_by_position() -> None:
    old = pad(constraint(RETRY))
    new = pad(plan_step(FETCH), plan_step("Handle write errors.", derived_from=["#0"]))
    f = the(run(old, new), "CONSTRAINT_WEAKENED")
    assert f.entries == ("#0", "#1")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Do not retry writes after a 5xx", "Never retry writes after a 5xx"),
        ("Never retry writes after a 5xx", "Do not retry writes after a 5xx"),
        (RETRY, "Never retry a write after a 5xx: it may have landed."),
        (RETRY, "Writes after a 5xx may have landed, so they must not be retried."),
        ("Avoid calling the billing API.", "Don't call the billing API."),
        ("Do not call the billing API.", "Calling the billing API is forbidden."),
        ("No more than 3 retries per write.", "Retry a write at most 3 times."),
        ("Retry at most three times.", "Retry at most 3 times."),
        ("Retry at most 3 times.", "Retry at most three times."),
        ("Keep batches under 4,000 rows.", "Keep batches under 4000 rows."),
        (
            "Wait 10s between deploys; never overlap them.",
            "Never overlap deploys: wait 10 seconds.",
        ),
        # capitalised sentence starts and bullet marks are not named objects
        (
            "- Do not retry writes.\n- Never overlap deploys.",
            "Never retry writes or overlap deploys.",
        ),
        (
            "1. Do not retry writes.\n2. Never overlap deploys.",
            "* Don't retry writes\n* Don't overlap deploys",
        ),
        ("Note: Never retry writes after a 5xx.", "Do not retry writes after a 5xx."),
        ("DO NOT retry writes after a 5xx.", "Never retry writes after a 5xx."),
        ("IMPORTANT: never retry writes.", "Do not retry writes."),
        ("**Writes:** Never retry them after a 5xx.", "Do not retry writes after a 5xx."),
        ("Never retry writes, e.g. inserts and/or updates.", "Never retry inserts or updates."),
        ("Do not call the APIs of Stripe.", "Do not call Stripe's API."),
        ("Never deploy on Fridays.", "Do not deploy on a Friday."),
        ("The v1 endpoint was tried and failed.", "Tried the v1 endpoint: it failed."),
        ("The v1 endpoint was tried and failed.", "The v1 endpoint does not work (tried)."),
        ("The v1 endpoint was tried and failed.", "Tried the v1 endpoint; it timed out."),
        ("If a deploy fails, roll back.", "On deploy errors, roll back."),
        ("Never edit `__init__.py` by hand.", "Do not hand-edit __init__.py files."),
        ("Do not touch billing_api.charge (Stripe).", "Never touch Stripe's billing_api.charge."),
        # scare quotes and Title Case labels are not named objects
        ('Keep replies brief to avoid "yapping" in channels.', "Keep replies brief; avoid spam."),
        (
            "**Response Protocol:** I will ONLY respond to messages that tag me.",
            "Only respond to messages that tag me; never to others.",
        ),
    ],
)
def test_rewrite_that_keeps_meaning_is_not_weakened(before: str, after: str) -> None:
    assert weakening(before, after) == []
    old = pad(constraint(before, id="c1"))
    new = pad(constraint(after, id="c1"))
    result = run(old, new)
    lacks(result, "CONSTRAINT_WEAKENED")
    assert not result.critical


PROHIBITIONS = ["Do not", "Never", "Don't", "You must not", "Under no circumstances"]
VERBS = ["retry", "call", "touch", "deploy", "write to", "delete", "page"]
OBJECTS = [
    "writes after a 5xx",
    "the billing API",
    "billing_api.charge",
    "/etc/hosts",
    "Stripe more than 3 times",
    "the EU cluster before 08:00 UTC",
    "`make clean`",
    "the v1 endpoint",
    "users with ids below 1000",
]
BULLETS = ["", "- ", "* ", "1. ", "\u2022 "]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(PROHIBITIONS),
    st.sampled_from(PROHIBITIONS),
    st.sampled_from(VERBS),
    st.sampled_from(OBJECTS),
    st.sampled_from(BULLETS),
    st.sampled_from(BULLETS),
    st.sampled_from([".", "!", "", ";"]),
)
def test_prohibition_reworded_is_kept_and_deleted_is_weakened(
    neg: str, neg2: str, verb: str, obj: str, mark: str, mark2: str, end: str
) -> None:
    before = f"{mark}{neg} {verb} {obj}{end}"
    reworded = f"{mark2}{neg2} {verb} {obj}{end}"
    assert weakening(before, reworded) == []
    assert weakening(before, "  " + reworded.replace(" ", "  ")) == []
    bare = f"{mark2}{verb.capitalize()} {obj}{end}"
    lost = weakening(before, bare)
    assert lost and "prohibition" in lost[0]


def test_constraint_condensed_with_others_keeping_each_meaning_is_not_weakened() -> None:
    old = pad(
        constraint("Do not retry writes after a 5xx.", id="c1"),
        constraint("Never call the billing API twice.", id="c2"),
    )
    both = "Never retry writes after a 5xx, and never call the billing API twice."
    new = pad(constraint(both, id="c3", derived_from=["c1", "c2"], sealed=True))
    result = run(old, new)
    lacks(result, "CONSTRAINT_WEAKENED", "CONSTRAINT_DROPPED", "CONSTRAINT_DEMOTED")
    assert result.verdict == "compaction"


def test_constraint_split_in_two_is_not_weakened() -> None:
    both = "Do not retry writes after a 5xx. Never call the billing API twice."
    first = "Do not retry writes after a 5xx."
    second = "Never call the billing API twice."
    old = pad(constraint(both, id="c1"))
    # undeclared: the second half moves to a new constraint
    result = run(old, pad(constraint(first, id="c1"), constraint(second, id="c2")))
    lacks(result, "CONSTRAINT_WEAKENED", "CONSTRAINT_DROPPED")
    # declared: the second half derived from c1, and without ids at all
    result = run(old, pad(constraint(first, id="c1"), constraint(second, derived_from=["c1"])))
    lacks(result, "CONSTRAINT_WEAKENED", "CONSTRAINT_DROPPED")
    result = run(pad(constraint(both)), pad(constraint(first), constraint(second)))
    assert not result.critical, result.findings


def test_weakening_not_masked_by_a_similar_new_constraint() -> None:
    """A new constraint about something else does not carry the lost prohibition."""
    old = pad(constraint("Do not retry writes after a 5xx.", id="c1"))
    new = pad(
        constraint("Retry writes after a 5xx.", id="c1"),
        constraint("Do not retry reads after a 5xx.", id="c2"),
    )
    f = the(run(old, new), "CONSTRAINT_WEAKENED")
    assert f.entries == ("c1",)


def test_prohibition_lost_in_a_plan_that_negates_something_else() -> None:
    """A negation elsewhere in the condensed text does not keep this one's prohibition."""
    old = pad(constraint(RETRY, id="c-retry"), plan_step(FETCH, id="p-fetch"))
    merged = "Fetch the batch, no need to log it; handle write errors after a 5xx."
    new = pad(plan_step(merged, id="p-run", derived_from=["c-retry", "p-fetch"]))
    f = the(run(old, new), "CONSTRAINT_WEAKENED")
    assert "prohibition" in f.message


def test_constraint_demoted_when_moved_verbatim_into_a_plan() -> None:
    old = pad(constraint(RETRY, id="c-retry"), plan_step(FETCH, id="p-fetch"))
    holder = plan_step(f"{FETCH} {RETRY}", id="p-run")
    result = run(old, pad(holder))
    f = the(result, "CONSTRAINT_DEMOTED")
    assert (f.severity, f.entries, f.before, f.after) == (
        WARNING,
        ("c-retry", "p-run"),
        RETRY,
        holder.text,
    )
    lacks(result, "CONSTRAINT_DROPPED", "CONSTRAINT_WEAKENED")
    assert result.verdict in ("compaction", "undeclared_loss")


def test_constraint_demoted_when_its_kind_changes() -> None:
    result = run(pad(constraint(RETRY, id="c-retry")), pad(make_entry("note", RETRY, id="c-retry")))
    f = the(result, "CONSTRAINT_DEMOTED")
    assert f.entries == ("c-retry", "c-retry")
    assert (f.before, f.after) == (RETRY, RETRY)
    assert not result.critical


def test_constraint_not_demoted_when_condensed_into_a_sealed_or_protected_entry() -> None:
    old = pad(constraint(RETRY, id="c-retry"))
    for heir in (
        constraint(RETRY + " Check the ledger first.", id="c2", derived_from=["c-retry"]),
        make_entry("note", RETRY, id="n2", sealed=True, derived_from=["c-retry"]),
    ):
        lacks(run(old, pad(heir)), "CONSTRAINT_DEMOTED")


def test_undeclared_loss() -> None:
    old = pad(plan_step(FETCH, id="p-fetch"), plan_step(POST, id="p-post"))
    result = run(old, pad(plan_step(POST, id="p-post")))
    f = the(result, "UNDECLARED_LOSS")
    assert (f.severity, f.entries, f.before, f.after) == (WARNING, ("p-fetch",), FETCH, None)
    assert result.verdict == "undeclared_loss"


def test_plan_entry_dropped_by_strict_compaction_is_not_undeclared() -> None:
    old = pad(
        constraint(RETRY, id="c-retry", sealed=True),
        plan_step(FETCH * 12, id="p-fetch"),
        plan_step(POST),
    )
    trial = plan(old, 100, "strict", COUNTER, now=NOW)
    assert not trial.refused and [e.label for e in trial.dropped] == ["p-fetch"]
    new = Pad.of(trial.result())
    result = run(old, new)
    lacks(result, "UNDECLARED_LOSS")
    assert not result.critical
    assert result.verdict == "compaction"


def test_plan_entry_folded_verbatim_into_an_edited_entry_is_not_lost() -> None:
    old = pad(plan_step(FETCH), plan_step(POST, id="p-post"))
    new = pad(plan_step(f"{POST} Before that: {FETCH}", id="p-post"))
    lacks(run(old, new), "UNDECLARED_LOSS")


def test_duplicate_removed_is_not_a_loss() -> None:
    old = pad(constraint(RETRY), plan_step(FETCH), constraint(RETRY), plan_step(FETCH))
    new = pad(constraint(RETRY), plan_step(FETCH))
    result = run(old, new)
    lacks(result, "CONSTRAINT_DROPPED", "UNDECLARED_LOSS")
    assert not result.critical


def test_claims_reduced() -> None:
    before = "Fetch the batch. Post the totals. Reconcile the ledger."
    after = "Fetch, post and reconcile."
    result = run(pad(plan_step(before, id="p")), pad(plan_step(after, id="p")))
    f = the(result, "CLAIMS_REDUCED")
    assert f.severity == WARNING
    assert f.entries == ()
    assert (f.before, f.after) == ("3", "1")
    assert "3 to 1" in f.message
    assert (result.claims_before, result.claims_after) == (3, 1)


def test_claims_not_reduced_by_compression() -> None:
    before = "Fetch the whole invoice batch from the queue. Post all of the totals to the ledger."
    after = "Fetch the invoice batch. Post totals."
    result = run(pad(plan_step(before, id="p")), pad(plan_step(after, id="p")))
    lacks(result, "CLAIMS_REDUCED")
    assert result.tokens_after < result.tokens_before


def test_caution_falling() -> None:
    old = pad(constraint(RETRY, id="c-retry"), plan_step(FETCH, id="p-fetch"))
    record = make_entry("loss_record", "dropped c-retry", sealed=True)
    result = run(old, pad(plan_step(FETCH, id="p-fetch"), record))
    f = the(result, "CAUTION_FALLING")
    assert f.severity == WARNING
    assert f.entries == ()
    assert f.before is not None and f.after is not None
    assert float(f.after) < float(f.before)
    assert "decisive" in f.message
    # declared, so a compaction: but one that leaves the agent bolder
    assert result.verdict == "compaction"


def test_caution_not_falling_when_plan_shrinks() -> None:
    old = pad(constraint(RETRY, id="c"), plan_step(FETCH, id="a"), plan_step(POST, id="b"))
    new = pad(constraint(RETRY, id="c"), plan_step(FETCH, id="a"))
    lacks(run(old, new), "CAUTION_FALLING")


def test_messages_are_short_and_name_the_entry() -> None:
    old = seed_old()
    new = pad(plan_step(CONDENSED, id="p-run", derived_from=["c-retry"]))
    for f in run(old, new).findings:
        assert len(f.message) <= 160, f.message
        assert "\n" not in f.message
        for label in f.entries:
            assert label in f.message
        assert f.as_json()["severity"] == f.severity


# --- 3. verdicts ------------------------------------------------------------------------------


def test_verdict_unchanged_identical() -> None:
    old = seed_old()
    result = run(old, seed_old())
    assert result.verdict == "unchanged"
    assert result.findings == ()


def test_verdict_unchanged_when_only_the_file_format_differs(tmp_path: Path) -> None:
    entries = [
        {"kind": "constraint", "text": RETRY, "id": "c-retry", "sealed": True},
        {"kind": "plan", "text": FETCH, "id": "p-fetch", "sealed": False, "derived_from": []},
        {"kind": "note", "text": POST},
    ]
    pretty = tmp_path / "pad.json"
    pretty.write_text(json.dumps({"budget_tokens": 4000, "entries": entries}, indent=4))
    lines = tmp_path / "pad.jsonl"
    # keys in another order, defaults left out
    reordered = [{"text": RETRY, "sealed": True, "id": "c-retry", "kind": "constraint"}]
    reordered += [{"id": "p-fetch", "text": FETCH, "kind": "plan"}, {"text": POST, "kind": "note"}]
    lines.write_text("\n".join(json.dumps(e) for e in reordered) + "\n")
    result = run(load(str(pretty)).pad, load(str(lines)).pad)
    assert result.verdict == "unchanged"
    assert result.findings == ()


def test_verdict_growth() -> None:
    old = seed_old()
    new = pad(
        *old.entries,
        plan_step("Reconcile the ledger.", id="p-rec"),
        make_entry("negative_fact", "The v1 bulk endpoint times out.", id="nf-1"),
    )
    result = run(old, new)
    assert result.verdict == "growth"
    assert result.findings == ()


def test_verdict_compaction() -> None:
    sealed_rule = constraint(RETRY, id="c-retry", sealed=True)
    old = pad(sealed_rule, plan_step(FETCH, id="p-fetch"), plan_step(POST, id="p-post"))
    record = make_entry("loss_record", "dropped p-post (plan)", sealed=True)
    result = run(old, pad(sealed_rule, plan_step(FETCH, id="p-fetch"), record))
    assert result.verdict == "compaction"
    assert not result.critical


def test_verdict_undeclared_loss() -> None:
    old = pad(constraint(RETRY, id="c-retry"), plan_step(FETCH), plan_step(POST))
    result = run(old, pad(constraint(RETRY, id="c-retry"), plan_step(POST)))
    assert result.verdict == "undeclared_loss"
    assert not result.critical


def test_verdict_corruption_beats_everything_else() -> None:
    old = pad(constraint(RETRY, id="c-retry"), plan_step(FETCH), plan_step(POST))
    result = run(old, pad(plan_step(POST), plan_step("Reconcile the ledger.")))
    assert result.verdict == "corruption"
    assert {"CONSTRAINT_DROPPED", "UNDECLARED_LOSS"} <= set(result.codes)


def test_audit_json_shape() -> None:
    result = run(seed_old(), pad(plan_step(CONDENSED, id="p-run")))
    data = result.as_json()
    assert data["verdict"] == "corruption"
    codes = {f["code"] for f in data["findings"]}
    assert "CONSTRAINT_DROPPED" in codes
    for f in data["findings"]:
        assert set(f) >= {"code", "severity", "entries", "message", "before", "after"}
    json.dumps(data)


# --- 4. matching --------------------------------------------------------------------------------


def test_match_by_id_even_when_the_text_changed() -> None:
    old = pad(plan_step(FETCH, id="p-fetch"), plan_step(POST, id="p-post"))
    new = pad(
        plan_step("Something else entirely.", id="p-post"), plan_step("Also new.", id="p-fetch")
    )
    assert match(old, new) == {0: (1, "id"), 1: (0, "id")}


def test_match_by_exact_kind_and_text_when_ids_are_absent_and_positions_shift() -> None:
    old = pad(plan_step(FETCH), plan_step(POST), constraint(RETRY))
    new = pad(constraint(RETRY), plan_step("Reconcile."), plan_step(FETCH), plan_step(POST))
    assert match(old, new) == {0: (2, "exact"), 1: (3, "exact"), 2: (0, "exact")}


def test_match_by_exact_text_when_the_id_was_dropped() -> None:
    old = pad(plan_step(FETCH, id="p-fetch"))
    assert match(old, pad(plan_step(FETCH))) == {0: (0, "exact")}


def test_match_by_exact_text_prefers_the_same_region() -> None:
    """An unsealed entry dropped while its sealed copy stays: the copy is not taken for it."""
    old = pad(plan_step(FETCH), plan_step(POST, sealed=True), plan_step(POST))
    new = pad(plan_step(FETCH), plan_step(POST, sealed=True))
    assert match(old, new) == {0: (0, "exact"), 1: (1, "exact")}
    result = run(old, new)
    lacks(result, "SEALED_REMOVED", "UNDECLARED_LOSS")  # a duplicate went, nothing was lost
    # and an entry sealed as it is (externalize) still pairs with itself
    assert match(pad(constraint(RETRY)), pad(constraint(RETRY, sealed=True))) == {0: (0, "exact")}


def test_match_by_close_text_within_the_same_kind() -> None:
    old = pad(plan_step(FETCH), constraint(RETRY))
    new = pad(
        constraint("Do not retry writes after a 5xx: the write may have landed."),
        plan_step("Fetch the invoice batch from the main billing queue."),
    )
    assert match(old, new) == {0: (1, "close"), 1: (0, "close")}
    result = run(old, new)
    assert not result.critical
    lacks(result, "UNDECLARED_LOSS", "CONSTRAINT_DROPPED")


def test_match_never_across_kinds() -> None:
    old = pad(constraint(RETRY))
    new = pad(make_entry("note", RETRY), make_entry("plan", RETRY[:-1]))
    assert match(old, new) == {}
    # the constraint now lives only in a note: demoted, not dropped
    result = run(old, new)
    assert the(result, "CONSTRAINT_DEMOTED").entries[0] == "#0"
    lacks(result, "CONSTRAINT_DROPPED")


def test_match_close_text_never_pairs_two_different_ids() -> None:
    old = pad(constraint("Never call the billing API from tests.", id="c-bill"))
    new = pad(constraint("Call the billing API from the tests.", id="c-other"))
    assert match(old, new) == {}
    assert the(run(old, new), "CONSTRAINT_DROPPED").entries == ("c-bill",)


def test_constraint_reworded_under_a_new_id_is_not_dropped() -> None:
    """Different ids never pair, but a new constraint that carries every claim whole
    (prohibition, content, numbers, names) keeps it: no alarm."""
    old = pad(constraint(RETRY, id="c-retry"))
    new = pad(constraint("Never retry a write after a 5xx: it may have landed.", id="c-7"))
    assert match(old, new) == {}
    result = run(old, new)
    assert not result.critical, result.findings


def test_match_close_prefers_the_closest_candidate() -> None:
    old = pad(plan_step("Fetch the invoice batch from the billing queue"))
    new = pad(
        plan_step("Fetch the invoice batch from the queue of billing jobs nightly"),
        plan_step("Fetch the invoice batch from the billing queue now"),
    )
    assert match(old, new) == {0: (1, "close")}


def test_close_match_that_drops_a_negation_is_weakened() -> None:
    """Without ids a rewrite is matched by close text, and checked like any other."""
    old = pad(constraint("Never retry writes after a 5xx."), plan_step(FETCH))
    new = pad(constraint("Retry writes after a 5xx."), plan_step(FETCH))
    f = the(run(old, new), "CONSTRAINT_WEAKENED")
    assert f.entries == ("#0",)


def test_named_by_public_helper() -> None:
    rule = Pad.of([constraint(RETRY, id="c-retry")]).entries[0]
    assert named_by(rule, [make_entry("loss_record", "dropped c-retry")])
    assert named_by(rule, [make_entry("loss_record", f'dropped "{RETRY}"')])
    assert not named_by(rule, [make_entry("loss_record", "dropped c-retry2")])
    assert not named_by(rule, [])


# --- 5. round trip with the strict compaction ---------------------------------------------------

REWRITABLE_KINDS = ("plan", "note", "hypothesis", "scratch")
WORDS = st.sampled_from(
    [
        "fetch",
        "the",
        "invoice",
        "batch",
        "Post",
        "totals",
        "ledger",
        "5xx",
        "retry",
        "API",
        "billing_api",
        '"quoted"',
        "it's",
        "...",
        "…",
        "—",
        "#3",
        "p-1",
        "héllo",
        "日本",
        "<|endoftext|>",
        "x.y",
        "\n",
        "- ",
        ";",
        "'",
        '"',
        "  ",
    ]
)
SHORT = st.one_of(
    st.lists(WORDS, min_size=0, max_size=40).map(" ".join),
    st.text(max_size=80),
    st.sampled_from([FETCH, POST, RETRY, "", " ", "Fetch."]),
)
LONG = st.tuples(SHORT, st.integers(2, 12)).map(lambda t: " ".join([t[0]] * t[1]))
TEXT = st.one_of(SHORT, LONG, LONG)
IDS = st.one_of(st.none(), st.from_regex(r"[a-z0-9][a-z0-9_.:-]{0,8}", fullmatch=True))


@st.composite
def pads(draw: st.DrawFn) -> Pad:
    """Random pads whose rewritable region holds no protected kind (so strict can drop)."""
    entries: list[Entry] = []
    used: set[str] = set()
    for _ in range(draw(st.integers(2, 20))):
        sealed = draw(st.booleans())
        kinds = (*REWRITABLE_KINDS, "constraint", "negative_fact", "loss_record")
        kind = draw(st.sampled_from(kinds if sealed else REWRITABLE_KINDS))
        eid = draw(IDS)
        if eid is not None and (eid in used or eid.startswith("loss-")):
            eid = None
        if eid is not None:
            used.add(eid)
        entries.append(make_entry(kind, draw(TEXT), sealed=sealed, id=eid))
    at = draw(st.integers(0, len(entries)))
    entries.insert(at, make_entry(draw(st.sampled_from(REWRITABLE_KINDS)), draw(LONG)))
    return Pad.of(entries)


@settings(max_examples=700, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pads(), st.data())
def test_strict_compaction_audits_as_compaction(old: Pad, data: st.DataObject) -> None:
    total = sum(COUNTER.count(e.text) for e in old.entries)
    sealed = sum(COUNTER.count(e.text) for e in old.sealed)
    share = data.draw(st.sampled_from([0.3, 0.5, 0.7, 0.8, 0.9, 0.95]), label="share")
    budget = sealed + int((total - sealed) * share)
    trial = plan(old, budget, "strict", COUNTER, now=NOW)
    if trial.code == "RECORD_WOULD_NOT_FIT" and trial.fits_at is not None:
        # the tightest budget that affords its loss record, as the refusal's advice finds it
        # (bisected: a token less is refused)
        budget = trial.fits_at
        trial = plan(old, budget, "strict", COUNTER, now=NOW)
        assert not trial.refused, (budget, trial.message)
    event(f"plan {trial.verdict}")
    if trial.refused:
        return  # a refused plan commits nothing
    new = Pad.of(trial.result())
    result = run(old, new)
    assert not result.critical, result.findings
    lacks(result, "UNDECLARED_LOSS", "LOSS_RECORD_EVICTED", "CONSTRAINT_DROPPED")
    if trial.dropped:
        assert result.verdict == "compaction", result.findings
        assert trial.loss_record is not None
        for e in trial.dropped:
            assert named_by(e, [trial.loss_record]), (e, trial.loss_record.text)
    else:
        assert result.verdict == "unchanged"


def test_strict_compaction_of_entries_without_ids_is_recognised() -> None:
    """Entries without an id are quoted by the record: quotes inside their text, text that
    is only white space, and duplicates must all still read as declared."""
    quoted = 'Call "charge" with the idempotency key, then "verify" the "result" status. '
    old = pad(
        constraint(RETRY, sealed=True),
        plan_step(quoted * 3),
        plan_step("Fetch."),
        plan_step(" \n\t " * 30),
        plan_step("Fetch."),
        make_entry("note", "a b c d e f g h i j k l m n o p " * 4),
        make_entry("note", '… \u201cwhat\u201d ... it\'s "done"...'),
    )
    dropped: set[str] = set()
    for budget in range(60, 260, 5):
        trial = plan(old, budget, "strict", COUNTER, now=NOW)
        if trial.refused or not trial.dropped:
            continue
        dropped |= {e.label for e in trial.dropped}
        result = run(old, Pad.of(trial.result()))
        assert result.verdict == "compaction", (budget, result.findings)
        assert not result.critical
    assert {"#1", "#3", "#5"} <= dropped


# --- 6. a realistic large pad -----------------------------------------------------------------


def big_pad(n: int, seed: int = 7) -> list[Entry]:
    rng = random.Random(seed)
    verbs = ["Fetch", "Post", "Reconcile", "Check", "Retry", "Summarise", "Compare", "Archive"]
    things = ["invoice", "ledger", "batch", "refund", "customer", "report", "queue", "payout"]
    places = ["staging", "prod", "the billing queue", "the warehouse", "S3", "the cache"]
    out: list[Entry] = []
    for i in range(n):
        v, t, p = rng.choice(verbs), rng.choice(things), rng.choice(places)
        r = rng.random()
        if r < 0.1:
            text = (
                f"Do not {v.lower()} any {t} in {p} before step {i}; it was locked at {i % 60} min."
            )
            out.append(constraint(text, id=f"c{i}" if i % 3 else None, sealed=i % 2 == 0))
        elif r < 0.15:
            text = f"{v} of {t} {i} in {p} was tried and failed (HTTP {400 + i % 100})."
            out.append(make_entry("negative_fact", text, id=f"nf{i}"))
        else:
            kind = rng.choice(["plan", "note", "hypothesis"])
            text = f"{v} the {t} {i} in {p}, then note the result for batch {i // 10}."
            out.append(make_entry(kind, text, id=f"e{i}" if rng.random() < 0.5 else None))
    return out


def test_large_pad_with_one_constraint_weakened() -> None:
    entries = big_pad(4000)
    at = next(
        i for i, e in enumerate(entries) if e.kind == "constraint" and not e.sealed and i > 2000
    )
    old = Pad.of(entries)
    target = entries[at]
    weaker = target.text.replace("Do not ", "Please ", 1)
    new_entries = list(entries)
    new_entries[at] = make_entry(target.kind, weaker, id=target.id)
    new = Pad.of(new_entries)
    result = run(old, new)
    f = the(result, "CONSTRAINT_WEAKENED")
    assert f.entries == (old.entries[at].label,)
    assert (f.before, f.after) == (target.text, weaker)
    assert result.critical == (f,)
    lacks(result, "UNDECLARED_LOSS", "CONSTRAINT_DEMOTED", "CLAIMS_REDUCED")
    assert result.verdict == "corruption"
    assert len(result.matches) == len(entries)


def test_large_pad_with_entries_shifted_and_one_plan_step_dropped() -> None:
    entries = big_pad(3000, seed=11)
    old = Pad.of(entries)
    at = next(i for i, e in enumerate(entries) if e.kind == "plan" and e.id is None and i > 1500)
    shifted = [plan_step("A new first step."), *entries[:at], *entries[at + 1 :]]
    result = run(old, Pad.of(shifted))
    f = the(result, "UNDECLARED_LOSS")
    assert f.entries == (f"#{at}",)
    assert result.verdict == "undeclared_loss"


def test_large_pad_fully_reworded_still_matches_each_entry() -> None:
    """Every entry edited a little (no ids): close matching finds each, without blowing up."""
    entries = [replace_id(e) for e in big_pad(2000, seed=3)]
    old = Pad.of(entries)
    new = Pad.of(
        [make_entry(e.kind, e.text.replace(", then", "; then"), sealed=e.sealed) for e in entries]
    )
    result = run(old, new)
    assert not result.critical
    kinds = {k for _, k in result.matches.values()}
    assert len(result.matches) == len(entries)
    assert "close" in kinds


def replace_id(e: Entry) -> Entry:
    return make_entry(e.kind, e.text, sealed=e.sealed)


def test_an_old_record_does_not_declare_a_later_loss_from_its_section() -> None:
    """A record that named a section long ago declares what it dropped then, not whatever
    leaves that section later (nor anything its words happen to describe)."""
    record = make_entry(
        "loss_record", 'removed two stale bullets from the "Deploy safety rules" section'
    )
    rule = Entry(
        "deploy_safety_rules",
        "Never deploy on Fridays after 16:00.",
        context=("Deploy safety rules",),
    )
    fact = Entry("deploy_safety_rules", "Deploys go through the canary.", context=rule.context)
    old = Pad.of([rule, fact, record])
    new = Pad.of([fact, record])
    result = run(old, new)
    assert the(result, "CONSTRAINT_DROPPED").entries == ("#0",)
    # the same words in a record this rewrite wrote do declare it
    fresh = make_entry(
        "loss_record", 'dropped the Friday rule from the "Deploy safety rules" section'
    )
    assert run(old, Pad.of([fact, record, fresh])).verdict == "compaction"


# --- a live pad's new version shares its unchanged entries with the one before -------------

_LIVE_TEXTS = [
    "Never retry writes after a 5xx.",
    "Handle write errors.",
    "Always ask before deleting a branch.",
    "The ledger lives in the ops account.",
    "Deploys went fine today.",
]
_LIVE_ENTRY = st.builds(
    lambda kind, text, sealed, eid, derived: Entry(
        kind, text, sealed=sealed, id=eid, derived_from=derived
    ),
    st.sampled_from(["note", "constraint", "negative_fact", "loss_record", "plan"]),
    st.sampled_from(_LIVE_TEXTS),
    st.booleans(),
    st.sampled_from([None, "a", "b", "c"]),
    st.sampled_from([(), ("a",), ("b", "c")]),
)


@given(
    st.lists(_LIVE_ENTRY, min_size=1, max_size=6),
    st.lists(st.tuples(st.integers(0, 8), st.one_of(st.none(), _LIVE_ENTRY)), max_size=4),
)
def test_an_audit_says_the_same_of_entries_shared_or_parsed_again(
    first: list[Entry], edits: list[tuple[int, Entry | None]]
) -> None:
    """The inspector's new version is the old one's entry objects where they did not change:
    its audit is the audit of the same pad read afresh (every entry a new object)."""
    old = Pad.of(first)
    entries = list(old.entries)
    for at, new in edits:
        if new is None and entries:
            del entries[at % len(entries)]
        elif new is not None:
            entries.insert(at % (len(entries) + 1), new)
    shared = Pad.of(entries)
    fresh = Pad(tuple(Entry(**{**e.__dict__}) for e in shared.entries))
    assert all(a == b and a is not b for a, b in zip(shared.entries, fresh.entries, strict=True))
    counter = counter_for()
    got, want = audit(old, shared, counter), audit(old, fresh, counter)
    assert (got.verdict, got.findings) == (want.verdict, want.findings)


_KINDS = ["note", "constraint", "negative_fact", "plan", "loss_record"]
_versions_steps = st.lists(
    st.tuples(
        st.sampled_from(["edit", "insert", "delete", "move", "copy", "seal"]),
        st.integers(0, 40),
        st.sampled_from(["Never retry a 5xx.", "Cache in /tmp/c1.", "ok", "Do not push."]),
        st.sampled_from(_KINDS),
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(
    first=st.lists(
        st.tuples(st.sampled_from(_KINDS), st.text(max_size=30), st.booleans()),
        min_size=0,
        max_size=12,
    ),
    steps=st.lists(_versions_steps, min_size=1, max_size=4),
)
def test_a_version_s_totals_taken_from_the_version_before_are_its_totals_counted_afresh(
    first: list[tuple[str, str, bool]], steps: list[list[tuple[str, int, str, str]]]
) -> None:
    """A live version's totals come from the version before: the entries it shares (the very
    objects, at its ends or moved) keep their counts, and the sums are taken by difference.
    They must be what counting the version afresh gives, field for field."""
    from padtui.core.audit.totals import Totals as _Totals

    counter = counter_for()
    entries = [make_entry(k, t, sealed=s) for k, t, s in first]
    totals = _Totals(Pad.of(entries), counter)
    for version in steps:
        entries = list(entries)
        for what, n, text, kind in version:
            i = n % (len(entries) + 1)
            if what == "insert" or not entries:
                entries.insert(i, make_entry(kind, text))
                continue
            i %= len(entries)
            if what == "edit":
                entries[i] = make_entry(entries[i].kind, entries[i].text + text)
            elif what == "delete":
                del entries[i]
            elif what == "move":
                entries.append(entries.pop(i))
            elif what == "copy":  # the very entry twice
                entries.insert(n % len(entries), entries[i])
            else:
                entries[i] = make_entry(entries[i].kind, entries[i].text, sealed=True)
        pad = Pad.of(entries)
        entries = list(pad.entries)
        totals = _Totals(pad, counter, totals)
        fresh = _Totals(pad, counter)
        got = (totals.tokens, totals.caution, totals.sealed, totals.claims)
        assert got == (fresh.tokens, fresh.caution, fresh.sealed, fresh.claims)
        assert (totals.costs, totals.entry_claims) == (fresh.costs, fresh.entry_claims)
