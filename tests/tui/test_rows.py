"""The entry panes measure a row by wrapping its plain text, and draw it with the same
breaks: heights and drawings must agree for any text and width, or rows would be cut off
or overlap as a pane scrolls."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.style import Style
from textual.visual import RenderOptions

from padtui.core.model import Entry, make_entry
from padtui.tui.widgets import Row, RowVisual, wrap_breaks

words = st.sampled_from(
    ["do", "not", "retry", "5xx;", "idempotency-key", "x" * 30, "日本語", "🙂🙂", "é", "a"]
)
spaces = st.sampled_from([" ", "  ", "   "])
lines = st.lists(st.tuples(words, spaces), max_size=25).map(
    lambda pairs: "".join(w + s for w, s in pairs)
) | st.text(alphabet=" ab日🙂", max_size=60)


def pieces(line: str, width: int) -> list[str]:
    cuts = [0, *wrap_breaks(line, width), len(line)]
    return [line[a:b] for a, b in pairwise(cuts)]


@settings(max_examples=600, deadline=None)
@given(line=lines, width=st.integers(min_value=1, max_value=50))
def test_a_wrapped_line_fits_keeps_every_character_and_fills_each_line(
    line: str, width: int
) -> None:
    got = pieces(line, width)
    assert "".join(got) == line  # cut, never rewritten
    for i, piece in enumerate(got):
        shown = piece.rstrip(" ")
        widest = max((cell_len(c) for c in shown), default=0)
        assert cell_len(shown) <= max(width, widest), (piece, width)
        if i + 1 < len(got):
            assert shown or i == 0, "a line of nothing but spaces before a break"
            nxt = got[i + 1].split(" ")[0]  # the word that went to the next line
            if piece.endswith(" "):  # broken at a space: that word would not have fitted
                assert cell_len(piece.rstrip(" ") + piece[len(shown) :] + nxt) > width


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(lines, min_size=1, max_size=4).map("\n".join),
    width=st.integers(min_value=4, max_value=60),
    dropped=st.booleans(),
)
def test_a_row_is_as_high_as_it_is_drawn(text: str, width: int, dropped: bool) -> None:
    row = Row(make_entry("constraint", text, id="c-retry"), tokens=42, dropped=dropped)
    visual = RowVisual(row)
    options = RenderOptions(Style.parse, {})
    strips = visual.render_strips(width, None, Style(), options)
    assert len(strips) == visual.get_height({}, width)
    assert all(strip.cell_length <= width for strip in strips)
    drawn = "".join(strip.text for strip in strips).replace(" ", "")
    assert drawn == visual.plain.replace(" ", "").replace("\n", "")


# --- a new version's rows, made for what it changed -------------------------------------

_ENTRIES = st.builds(
    lambda kind, text, sealed: make_entry(kind, text, sealed=sealed),
    st.sampled_from(["note", "constraint", "plan"]),
    st.sampled_from(["a", "b", "c"]),
    st.booleans(),
)


def _rows_afresh(entries: tuple[Entry, ...]) -> tuple[list[Row], list[Row]]:
    sealed: list[Row] = []
    rewritable: list[Row] = []
    for e in entries:
        row = Row(e, len(e.text), hazard=e.protected and not e.sealed)
        (sealed if e.sealed else rewritable).append(row)
    return sealed, rewritable


@given(
    st.lists(_ENTRIES, max_size=12),
    st.lists(st.tuples(st.integers(0, 12), st.one_of(st.none(), _ENTRIES)), max_size=4),
)
def test_the_rows_of_a_new_version_are_its_rows_made_afresh(
    first: list[Entry], edits: list[tuple[int, Entry | None]]
) -> None:
    """The inspector makes rows only for the entries a new version changed: the rows are
    those made afresh, and an entry kept (the very object) keeps its row."""
    from padtui.tui.inspector import _rows_after

    old = tuple(first)
    entries = list(old)
    for at, new in edits:
        if new is None and entries:
            del entries[at % len(entries)]
        elif new is not None:
            entries.insert(at % (len(entries) + 1), new)
    now = tuple(entries)
    before = _rows_afresh(old)
    sealed, rewritable = _rows_after((old, *before), now, [len(e.text) for e in now])
    assert (sealed, rewritable) == _rows_afresh(now)
    rows_before = {id(r.entry): r for r in (*before[0], *before[1])}
    same = 0
    while same < min(len(old), len(now)) and old[same] is now[same]:
        same += 1
    for e in now[:same]:  # (the entries kept at the start: their very rows)
        assert any(r is rows_before[id(e)] for r in (*sealed, *rewritable))


@given(
    kind=st.sampled_from(["note", "constraint", "negative_fact", "loss_record", "fact"]),
    sealed=st.booleans(),
    tokens=st.integers(min_value=0, max_value=10**6),
)
def test_a_plain_row_made_the_fast_way_is_the_row(kind: str, sealed: bool, tokens: int) -> None:
    """The rows of a large pad are made the fast way: the same row, field for field, with a
    protected kind in the rewritable region marked as a hazard."""
    from dataclasses import replace

    e = replace(make_entry(kind, "Never retry writes after a 5xx."), sealed=sealed)
    fast = Row.plain(e, tokens)
    assert fast == Row(e, tokens, hazard=e.protected and not e.sealed)
    assert vars(fast) == vars(Row(e, tokens, hazard=e.protected and not e.sealed))
    assert fast.hazard == (kind in ("constraint", "negative_fact", "loss_record") and not sealed)
