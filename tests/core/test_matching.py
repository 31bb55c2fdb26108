"""A live version is paired with the version before it as it would be in full: the entries the
two share at their ends (the very objects) are paired with themselves without the steps of the
pairing only where those steps would pair them so."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import event, given, settings
from hypothesis import strategies as st

from padtui.core.audit import matching
from padtui.core.audit.matching import match
from padtui.core.audit.rewrite import audit
from padtui.core.counting.tokens import counter_for
from padtui.core.model import Entry, Pad
from padtui.core.sequences.ends import common_ends

_TEXTS = ["Never retry a 5xx.", "Never retry a 5xx!", "Cache in /tmp/c1.", "ok", "", "Do not push."]
_ENTRY = st.builds(
    Entry,
    kind=st.sampled_from(["note", "constraint", "loss_record", "plan"]),
    # (texts said twice, and texts of their own; ids held twice, and ids of their own)
    text=st.one_of(st.sampled_from(_TEXTS), st.integers(0, 99).map(lambda n: f"step {n} done")),
    sealed=st.booleans(),
    id=st.one_of(st.none(), st.sampled_from(["a", "b"]), st.integers(0, 99).map(str)),
)
# entries of their own (their ids and texts most often held by no other)
_OWN = st.builds(
    Entry,
    kind=st.sampled_from(["note", "constraint", "loss_record", "plan"]),
    text=st.integers(0, 10**6).map(lambda n: f"lesson {n} learned"),
    sealed=st.booleans(),
    id=st.one_of(st.none(), st.integers(0, 10**6).map(str)),
    # (now and then an entry says what it was made from: the audit then looks at them all)
    derived_from=st.one_of(st.just(()), st.tuples(st.sampled_from(["a", "#0", "#1", "#2"]))),
)


def in_full(old: Pad, new: Pad) -> dict[int, tuple[int, str]]:
    """The pairing made by the steps over every entry."""
    found: dict[int, tuple[int, str]] = {}
    matching._pair(old.entries, new.entries, found, set(), old, new)
    return found


_FIRST = st.one_of(
    st.lists(_ENTRY, min_size=2, max_size=14), st.lists(_OWN, min_size=2, max_size=14)
)
_EDITS = st.lists(
    st.tuples(
        st.sampled_from(["edit", "insert", "delete", "copy"]),
        st.integers(0, 40),
        st.one_of(_ENTRY, _OWN),
    ),
    min_size=1,
    max_size=4,
)


def edited(old: Pad, edits: list[tuple[str, int, Entry]]) -> Pad:
    """``old`` edited as an agent would, its unchanged entries the very objects where they
    keep their place (as a live version read against the one before holds them)."""
    entries = list(old.entries)
    for what, at, e in edits:
        if what == "insert" or not entries:
            entries.insert(at % (len(entries) + 1), e)
            continue
        i = at % len(entries)
        if what == "edit":  # a new object in its place
            entries[i] = e
        elif what == "delete":
            del entries[i]
        else:  # a new entry with the text of another (before, between or after the change)
            entries.insert(i, replace(e, text=entries[at * 7 % len(entries)].text))
    return Pad.of(entries)


@settings(max_examples=400, deadline=None)
@given(first=_FIRST, edits=_EDITS)
def test_a_version_sharing_its_ends_is_paired_as_in_full(
    first: list[Entry], edits: list[tuple[str, int, Entry]]
) -> None:
    old = Pad.of(first)
    new = edited(old, edits)
    a, t = common_ends(old.entries, new.entries)
    alone = bool(a or t) and matching._ends_pair_themselves(old.entries, new.entries, a, t)
    event(
        "ends paired alone" if alone else "shared ends, paired in full" if a or t else "none shared"
    )
    assert match(old, new) == in_full(old, new)


@settings(max_examples=250, deadline=None)
@given(first=_FIRST, edits=_EDITS)
def test_a_version_sharing_its_ends_is_audited_as_when_read_afresh(
    first: list[Entry], edits: list[tuple[str, int, Entry]]
) -> None:
    """The audit of a live version (its ends the very entries of the version before) is the
    audit of the same version read afresh, every entry a new object: verdict, findings and
    pairs."""
    old = Pad.of(first)
    new = edited(old, edits)
    fresh = Pad(tuple(Entry(**e.__dict__) for e in new.entries))
    counter = counter_for()
    got, want = audit(old, new, counter), audit(old, fresh, counter)
    assert (got.verdict, got.findings, got.matches) == (want.verdict, want.findings, want.matches)


def test_a_large_pad_s_edit_pairs_its_ends_alone_and_as_in_full() -> None:
    old = Pad.of(
        Entry(kind="note", text=f"note {i} on the cache", id=None if i % 3 else f"n{i}")
        for i in range(3000)
    )
    entries = list(old.entries)
    entries[1500] = Entry(kind="note", text="note 1500 on the cache, moved to /var")
    new = Pad.of(entries)
    assert matching._ends_pair_themselves(old.entries, new.entries, 1500, 1499)
    found = match(old, new)
    assert found == in_full(old, new)
    assert found[1500] == (1500, "close")
    assert found[3] == (3, "id") and found[4] == (4, "exact")


def note(text: str, id: str | None = None) -> Entry:
    return Entry(kind="note", text=text, id=id)


def test_an_entry_between_with_the_text_of_one_after_takes_its_pair_as_in_full() -> None:
    """By exact text, the first old entry of a text takes the first new one: an entry edited
    away from a text that an entry after it also holds takes that entry's pair."""
    old = Pad.of([note("kept", "k"), note("Cache in /tmp."), note("Cache in /tmp.")])
    new = Pad.of([old.entries[0], note("Cache moved to /var."), old.entries[2]])
    assert common_ends(old.entries, new.entries) == (1, 1)
    found = match(old, new)
    assert found == in_full(old, new)
    assert found[1] == (2, "exact")  # (not the entry after paired with itself)


def test_a_new_entry_between_with_the_text_of_one_after_is_taken_by_it_as_in_full() -> None:
    """An entry after the change pairs with the first new entry of its text: a copy of it
    added before it."""
    old = Pad.of([note("kept", "k"), note("Retry once.", "r"), note("Cache in /tmp.")])
    new = Pad.of([old.entries[0], note("Cache in /tmp."), old.entries[2]])
    assert common_ends(old.entries, new.entries) == (1, 1)
    found = match(old, new)
    assert found == in_full(old, new)
    assert found[2] == (1, "exact")


def test_many_entries_between_one_with_the_text_of_one_after_pair_as_in_full() -> None:
    """(Many entries between the ends are looked up in a set of the texts after them.)"""
    old = Pad.of([*(note(f"lesson {i}") for i in range(29)), note("Cache in /tmp.")])
    entries = list(old.entries)
    entries[10:20] = [note(f"lesson {i}, revised") for i in range(10, 19)] + [
        note("Cache in /tmp.")
    ]
    new = Pad.of(entries)
    assert common_ends(old.entries, new.entries) == (10, 10)
    found = match(old, new)
    assert found == in_full(old, new)
    assert found[29] == (19, "exact")
