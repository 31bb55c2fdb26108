"""Runs of a list: a list found again run by run is found where it is the same, and costs
hashing only near what changed; its runs are those of the list cut afresh."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from padtui.core.sequences import runs

PROPS = settings(max_examples=150, deadline=None)

# texts of many lengths (a run ends after a text whose length is a multiple of its size)
words = st.sampled_from(["a", "retry", " the ledger", "Never export on Fridays.", "x" * 16, ""])
texts = st.lists(words, max_size=4).map("".join)
EDITS = st.lists(
    st.tuples(st.sampled_from(["set", "insert", "delete", "move"]), st.integers(0), texts),
    max_size=6,
)


def _runs(items: list[str]) -> runs.Runs:
    return runs.of(b"t", list(map(len, items)), runs.texts_digest(items))


def edited(items: list[str], changes: list[tuple[str, int, str]]) -> list[str]:
    out = list(items)
    for how, at, text in changes:
        if how == "insert" or not out:
            out.insert(at % (len(out) + 1), text)
            continue
        i = at % len(out)
        if how == "set":
            out[i] = text
        elif how == "delete":
            del out[i]
        else:
            out.insert((at // 7) % len(out), out.pop(i))
    return out


@PROPS
@given(before=st.lists(texts, max_size=300), changes=EDITS)
def test_runs_found_again_hold_the_same_items_and_are_the_runs_cut_afresh(
    before: list[str], changes: list[tuple[str, int, str]]
) -> None:
    after = edited(before, changes)
    lengths = list(map(len, after))
    now, again = runs.match(b"t", lengths, runs.texts_digest(after), _runs(before))
    assert now == _runs(after)
    assert now.valid(len(after)) or not after
    done = 0
    for start, end, was in again:
        assert done <= start < end
        assert after[start:end] == before[was : was + end - start]
        done = end


def test_a_list_as_it_was_is_found_whole_by_its_long_runs() -> None:
    items = [f"entry {i}: " + "word " * (i % 23) for i in range(3000)]
    before = _runs(items)
    now, again = runs.match(b"t", list(map(len, items)), runs.texts_digest(items), before)
    assert now is before and again == [(0, len(items), 0)]
    assert len(before.ends) < len(items) / (runs.LONG / 2)


def test_a_few_changes_in_a_long_list_leave_all_but_their_runs_found() -> None:
    """One text changed, one added and one removed, far apart: every item but those in the
    short runs beside them is found again (what a re-check hashes one by one)."""
    items = [f"entry {i}: " + "word " * (i % 23) for i in range(3000)]
    after = list(items)
    after[500] += " (revised)"
    after.insert(1500, "a new lesson")
    del after[2500]
    now, again = runs.match(b"t", list(map(len, after)), runs.texts_digest(after), _runs(items))
    found = sum(end - start for start, end, _ in again)
    assert found >= len(after) - 3 * 2 * 4 * runs.RUN  # (a short run each side of each)
    assert now == _runs(after)


def test_items_of_one_length_are_cut_at_the_longest_run_and_never_below_the_shortest() -> None:
    assert runs.cut([3] * 200, 16, 0, 200) == [64, 128, 192, 200]
    assert runs.cut([16] * 10, 16, 0, 10) == [4, 8, 10]  # (every length a multiple of 16)
    assert runs.cut([16, 3, 3, 32, 3], 16, 0, 5) == [4, 5]
    assert runs.cut([], 16, 0, 0) == []


@given(lengths=st.lists(st.sampled_from([0, 1, 7, 16, 32, 64, 65]), max_size=400))
def test_no_run_is_shorter_than_a_quarter_of_its_size_but_the_last(lengths: list[int]) -> None:
    for size in (runs.RUN, runs.LONG):
        ends = runs.cut(lengths, size, 0, len(lengths))
        sizes = [b - a for a, b in zip([0, *ends], ends, strict=False)]
        assert sum(sizes) == len(lengths)
        assert all(size // 4 <= n <= 4 * size for n in sizes[:-1])
        assert not sizes or 0 < sizes[-1] <= 4 * size
