"""The inspector's widgets: the entry panes, the budget gauge and the status lines.

Pad text is untrusted: it is only ever put into ``rich.text.Text`` objects (never parsed as
markup) after control characters are stripped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Literal, cast

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.content import Content
from textual.css.styles import RulesMap
from textual.geometry import Size
from textual.reactive import reactive
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual, VisualType
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from padtui.core.model import Entry, made_whole
from padtui.core.sequences.ends import common_ends
from padtui.core.text import clean
from padtui.tui.drawing import PaneLines, PaneScrollBar

KIND_STYLES = {
    "constraint": "bold #ff8787",
    "negative_fact": "bold #ffaf5f",
    "loss_record": "bold #87afff",
    "plan": "bold #87d787",
    "note": "bold #bcbcbc",
    "hypothesis": "bold #d7afff",
}


# a pane lays out (measures) this many rows at a time, the next on the next turn of the
# event loop, so that a pad of 20,000 entries is on screen before all are measured
LAYOUT_STEP = 250
NEAR_LIMIT = 0.9  # a Letta block this full of its limit (characters) is marked near it


@dataclass(frozen=True)
class Row:
    """One entry as a pane shows it."""

    entry: Entry
    tokens: int
    hazard: bool = False  # a protected kind in the rewritable region
    dropped: bool = False  # the trial preview drops it
    pending: bool = False  # the trial would append it (the loss record)
    focus: bool = False  # the drop the stepper is on
    finding: str | None = None  # a critical finding of the last rewrite that names it
    rules: int = 0  # the rules in it, unsealed: strict keeps them, the seed policy may drop them
    keeps: bool = False  # the policy is strict: the rules are protected
    limit: tuple[int, int] | None = None  # a Letta block: its characters, and its limit

    @classmethod
    def plain(cls, entry: Entry, tokens: int) -> Row:
        """``Row(entry, tokens, hazard=...)``, a row with no mark but its hazard, made the
        fast way (``made_whole``: a pad of 20,000 entries has as many rows)."""
        hazard = entry.protected and not entry.sealed
        return made_whole(cls, {**_PLAIN, "entry": entry, "tokens": tokens, "hazard": hazard})


_PLAIN = {f.name: f.default for f in fields(Row) if f.name not in ("entry", "tokens")}


def _head(row: Row) -> list[tuple[str, str]]:
    """The first line of a row, as (text, style) pieces: ``kind  id  N tok`` and its flags."""
    e = row.entry
    pieces = []
    if row.hazard:
        pieces.append(("⚠ ", "bold red"))
    pieces += [(clean(e.kind), KIND_STYLES.get(e.kind, "bold")), ("  ", "")]
    pieces += [(clean(e.label), "bold"), (f"  {row.tokens} tok", "dim")]
    if row.limit is not None:
        chars, limit = row.limit
        pieces.append((f"  {chars}/{limit} chars", "dim"))
        if chars > limit:
            pieces.append(("  ✖ over its limit", "bold red"))
        elif chars >= NEAR_LIMIT * limit:
            pieces.append(("  ⚠ near its limit", "bold yellow"))
    if row.finding:
        pieces.append((f"  ✖ {row.finding}", "bold white on red"))
    if row.hazard:
        pieces.append(("  unsealed: compaction may drop it", "red"))
    if row.rules:
        what = f"{row.rules} rule{'s' if row.rules > 1 else ''}"
        if row.dropped:
            tell = "would drop: refused" if row.keeps else "dropped"
            pieces.append((f"  ⚑ {what} {tell}", "bold red"))
        elif row.keeps:
            pieces.append((f"  ⚑ {what} · protected", "bold cyan"))
        else:
            pieces.append((f"  ⚑ {what} at risk", "yellow"))
    if row.pending:
        pieces.append(("  + pending loss record", "bold green"))
    if row.dropped:
        pieces.append(("  − dropped by the trial", "bold yellow" if row.focus else "yellow"))
    if e.derived_from:
        pieces.append(("  ← " + ", ".join(clean(d) for d in e.derived_from), "dim italic"))
    return pieces


def _body(row: Row) -> str:
    # tabs expanded here, so that the text measured is the text drawn
    return clean(row.entry.text).expandtabs(8) or "(empty)"


def row_text(row: Row) -> Text:
    """``kind  id  N tok`` and flags on the first line, the entry's text below it."""
    head = Text()
    for piece, style in _head(row):
        head.append(piece, style=style)
    body = Text(_body(row), style="" if row.entry.text else "italic dim")
    text = Text("\n").join([head, body, Text()])
    if row.dropped:
        text.stylize("strike dim")
    if row.pending:
        text.stylize("italic")
    return text


def wrap_breaks(line: str, width: int) -> list[int]:
    """Where the lines of ``line`` (no line breaks in it) begin after the first, wrapped at
    ``width`` cells: after the last space that fits; a word wider than a line is folded.
    Spaces at a break are left at the end of the line before it (and not drawn)."""
    width = max(width, 1)
    ascii_only = line.isascii()
    if (len(line) if ascii_only else cell_len(line)) <= width:
        return []
    breaks: list[int] = []
    start, end = 0, len(line)
    while True:
        limit = start + width if ascii_only else _fitting(line, start, width)
        if limit >= end:
            return breaks
        indent = len(line) - len(line[start:].lstrip(" ")) if line[start] == " " else start
        if indent == end:  # only spaces left: they hang off this line
            return breaks
        space = line.rfind(" ", indent + 1, limit + 1)  # (an indent is no place to break)
        # after the last space that fits; else a word wider than a line, folded where full
        following = space + 1 if space != -1 else max(limit, start + 1)
        while following < end and line[following] == " ":
            following += 1
        if following == end:  # only spaces left: they hang off this line
            return breaks
        breaks.append(following)
        start = following


def _fitting(line: str, start: int, width: int) -> int:
    """The end of the longest run of ``line`` from ``start`` that fits ``width`` cells."""
    used = 0
    for i in range(start, len(line)):
        used += get_character_cell_size(line[i])
        if used > width:
            return i
    return len(line)


class RowVisual(Visual):
    """An entry's row as a pane draws it.

    A pane of thousands of entries must know every row's height to scroll, but only draws
    the rows on screen. So the height at a width comes from wrapping the row's plain text
    (``wrap_breaks``: a few string searches a line), and the same breaks cut the styled
    text when the row is drawn: the two always agree. Styling and drawing a row waits
    until it reaches the screen.
    """

    def __init__(self, row: Row) -> None:
        self.row = row
        self._lines: list[str] | None = None  # (made when first measured)
        self._breaks: tuple[int, list[list[int]], int] | None = None  # width, breaks, height
        self._content: Content | None = None

    @property
    def lines(self) -> list[str]:
        """The row's lines, unstyled and unwrapped."""
        if self._lines is None:
            head = "".join(piece for piece, _style in _head(self.row))
            self._lines = [*head.split("\n"), *_body(self.row).split("\n"), ""]
        return self._lines

    @property
    def plain(self) -> str:
        """The row's text, unstyled and unwrapped."""
        return "\n".join(self.lines)

    def __str__(self) -> str:
        return self.plain

    def _wrapped(self, width: int) -> tuple[int, list[list[int]], int]:
        if self._breaks is None or self._breaks[0] != width:
            breaks = [wrap_breaks(line, width) for line in self.lines]
            self._breaks = (width, breaks, len(breaks) + sum(map(len, breaks)))
        return self._breaks

    def breaks(self, width: int) -> list[list[int]]:
        """Where each line of the row is cut at ``width`` (see ``wrap_breaks``)."""
        return self._wrapped(width)[1]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self._wrapped(width)[2]

    def _pieces(self, width: int) -> list[Content]:
        """The row's styled lines, wrapped at ``width`` cells."""
        if self._content is None:
            self._content = Content.from_rich_text(row_text(self.row))
        lines = self._content.split("\n", allow_blank=True)
        return [
            piece.rstrip()
            for line, breaks in zip(lines, self.breaks(width), strict=True)
            for piece in (line.divide(breaks) if breaks else [line])
        ]

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        strips = [Strip(piece.render_segments(style)) for piece in self._pieces(width)]
        return strips if height is None else strips[:height]

    def padded_strips(
        self, width: int, left: int, right: int, style: Style, meta: RichStyle
    ) -> list[Strip] | None:
        """The row's lines as an ``OptionList`` draws an option (padded with ``left`` and
        ``right`` cells and filled out to ``width``, every segment carrying ``meta``), each
        made at once rather than by a strip per step. None if a line would not fit."""
        inner = width - left - right
        rich_style = style.rich_style
        before = [Segment(" " * left, rich_style)] if left else []
        after = [Segment(" " * right, rich_style)] if right else []
        strips = []
        for piece in self._pieces(inner):
            fill = inner - piece.cell_length
            if fill < 0:
                return None
            segments = piece.render_segments(style)
            if fill:
                segments.append(Segment(" " * fill, rich_style))
            line = [*before, *segments, *after]
            strips.append(Strip(list(Segment.apply_style(line, meta)), width))
        return strips


_row_flags = attrgetter(*(f.name for f in fields(Row) if f.name != "entry"))
_entry_look = attrgetter("kind", "text", "sealed", "id", "label", "derived_from", "op")


def row_key(row: Row) -> tuple[object, ...]:
    """Everything a row's look depends on: the row but its entry's position (except as the
    entry's ``#N`` label), so that an entry that only moved keeps its rendered option."""
    return _entry_look(row.entry), _row_flags(row)


class PagedList(OptionList):
    """An ``OptionList`` whose page keys work in any size of terminal.

    OptionList lays its options out only when it has room on screen: one squeezed to
    nothing (a small terminal) has no lines to page through, and paging would fail."""

    def _move_page(self, direction: Literal[-1, 1]) -> None:
        self._update_lines()
        if self.highlighted is None or self.highlighted in self._index_to_line:
            super()._move_page(direction)


class EntryPane(PagedList):
    """A line-based list of entries (thousands scroll smoothly: one widget for all).

    A new version of a pad usually changes a few entries, and the others are the very same
    entry objects (``inspection.shared``): their options are kept (with their text already
    wrapped and measured), and only the run of rows from the first changed one to the last
    is swapped in the list and its map of lines, so showing it costs the changes, not the pad.
    """

    DEFAULT_CSS = """
    EntryPane {
        height: 1fr;
        width: 1fr;
        border: round $panel-lighten-2;
        padding: 0 1;
        /* OptionList measures wrapped options once per width, and a scroll bar that comes
           or goes does not count as a resize: keep its room, so the width never changes
           under the measured heights (which would cut entries' last lines). */
        scrollbar-gutter: stable;
    }
    EntryPane:focus { border: round $accent; }
    """

    def __init__(self, title: str, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self._styles_cache = PaneLines()
        self.border_title = title
        self.rows: list[Row] = []
        # each row's option, by its entry object's identity (the row holds the entry, so
        # that its id is not reused while it is here)
        self._by_entry: dict[int, tuple[Row, Option]] = {}
        self.swapped = 0  # options the last show swapped in (the rows it built or moved)
        self._laying_out = False  # the next options are to be laid out on the next turn
        self._sized = (0, 0)  # the lines and options the pane's size was last set for

    def _options_for(self, rows: list[Row], before: list[Row]) -> list[Option]:
        """An option for each row: the one it had if its entry is the same object with the
        same flags, else one of an entry that looks the same (moved, or parsed again), else
        a new one. The rows the list shares with ``before`` (the rows shown, whose options
        these are) at its start and end, the very objects, keep theirs without a look."""
        a, t = common_ends(before, rows)
        shown = self._options
        if len(shown) != len(before):  # (never so: the options are the rows')
            a = t = 0
            self._by_entry = {}
        by_entry = self._by_entry
        old: dict[int, tuple[Row, Option]] = {}  # the options of the rows taken out
        for r in before[a : len(before) - t]:
            hit = by_entry.pop(id(r.entry), None)
            if hit is not None:
                old[id(r.entry)] = hit
        middle = rows[a : len(rows) - t]
        if not old:  # (rows only added, as when a large pad's first rows become all of them)
            fresh = [Option(RowVisual(r)) for r in middle]
            for r, option in zip(middle, fresh, strict=True):
                by_entry.setdefault(id(r.entry), (r, option))
            return [*shown[:a], *fresh, *shown[len(shown) - t :]]
        options: list[Option | None] = []
        unmatched: list[int] = []
        for i, r in enumerate(middle):
            key = id(r.entry)
            hit = old.get(key) if key not in by_entry else None  # (one use per list)
            if hit is not None and (
                hit[0] is r or (hit[0].entry is r.entry and _row_flags(hit[0]) == _row_flags(r))
            ):
                del old[key]
                options.append(hit[1])
                by_entry[key] = (r, hit[1])
            else:
                options.append(None)
                unmatched.append(i)
        if unmatched:
            by_look: dict[tuple[object, ...], Option] = {}
            for row, option in old.values():
                by_look.setdefault(row_key(row), option)
            for i in unmatched:
                r = middle[i]
                option = by_look.pop(row_key(r), None) or Option(RowVisual(r))  # type: ignore[arg-type]
                options[i] = option
                by_entry.setdefault(id(r.entry), (r, option))
        return [*shown[:a], *cast(list[Option], options), *shown[len(shown) - t :]]

    def show(self, rows: Sequence[Row], subtitle: str = "", to_change: bool = False) -> None:
        """Replace the rows, keeping the cursor on the same entry where it still exists; or
        (``to_change``: a new version) moving it to the first row that is not as it was."""
        keep = self.selected_row
        before, self.rows = self.rows, list(rows)
        options = self._options_for(self.rows, before)
        first = self._swap(options)
        if subtitle != self.border_subtitle:  # (setting it redraws the pane)
            self.border_subtitle = subtitle
        if not self.rows:
            return
        if to_change and first is not None:
            # (only rows gone from the end: the last)
            self.highlighted = min(first, len(self.rows) - 1)
            return
        target = 0
        kept = self._by_entry.get(id(keep.entry)) if keep is not None else None
        if kept is not None and keep is not None and kept[0].entry is keep.entry:
            target = self._option_to_index.get(kept[1], 0)  # (the same entry: no search)
            keep = None
        for i, r in enumerate(self.rows):
            if r.focus:
                target = i
                break
            if keep is not None and r.entry.label == keep.entry.label:
                target = i
        self.highlighted = target

    def _swap(self, options: list[Option]) -> int | None:
        """Make ``options`` the list's, swapping only the run that differs from the options
        there (compared by identity); returns where that run starts (None: nothing changed).

        ``OptionList.set_options`` would empty its map of lines and measure every option
        again; here the lines of the rows before the run are kept, and those after it too
        when the number of options is the same (else they are laid out again, each height
        already measured)."""
        old = self._options
        n_old, n_new = len(old), len(options)
        a, tail = common_ends(old, options)
        if a == n_old == n_new:
            self.swapped = 0
            return None
        b_old, b_new = n_old - tail, n_new - tail
        self.swapped = b_new - a
        if (a == 0 and tail == 0) or not self.is_mounted:  # (all of it: the plain way)
            self.set_options(options)
            return 0
        index = self._option_to_index
        for option in old[a:b_old]:
            index.pop(option, None)
        old[a:b_old] = options[a:b_new]
        for i in range(a, b_new if n_old == n_new else n_new):
            index[old[i]] = i
        cache = self._line_cache
        laid = len(cache.heights)
        if n_old == n_new:
            # (the run's rows laid out so far measured again; those not yet laid out are
            # measured by the layout under way, from the new options)
            if a < laid:
                self._relayout(a, min(b_new, laid))
        else:
            # the options from the run on are laid out again (those after it have new
            # indices)
            if a < laid:
                del cache.lines[cache.index_to_line[a] :]
                for i in range(a, laid):
                    del cache.heights[i], cache.index_to_line[i]
            if n_old != n_new:  # (the drawn options carry their index: drawn again)
                self._option_render_cache.clear()
        self._update_lines()
        self.refresh()
        # (as set_options does: the cursor is set anew by the caller, the view follows it)
        self.highlighted = None
        self.scroll_y = 0
        return a

    def _update_lines(self) -> None:
        """Lay out (measure into the map of lines) the options not laid out yet, at most
        ``LAYOUT_STEP`` of them now and the next ones on the next turn of the event loop:
        the first rows of a pad of 20,000 entries are drawn while the rest are measured.
        (``OptionList`` lays them all out at once.)

        It is asked again for each line drawn: when the lines are those it last sized the
        pane for, and every option is laid out or the next step waits for its turn, it
        returns at once. (A resize empties the map of lines.)"""
        cache = self._line_cache
        options = self._options
        lines = cache.lines
        if (
            lines
            and self._sized == (len(lines), len(options))
            and (self._laying_out or lines[-1][0] + 1 == len(options))
        ):
            return  # (all laid out, or the next step waits for its turn: sized for these)
        if not self.scrollable_content_region:
            return
        start = cache.lines[-1][0] + 1 if cache.lines else 0
        # (one step a turn: the next waits for its turn, however often the lines are read)
        end = start if self._laying_out else min(len(options), start + LAYOUT_STEP)
        width = self._measure_width() if end > start else 0
        first_new = len(cache.lines)
        for index in range(start, end):
            cache.index_to_line[index] = len(cache.lines)
            height = self._measure(options[index], width)
            cache.heights[index] = height
            cache.lines.extend([(index, k) for k in range(height)])
        if end < len(options) and not self._laying_out:
            self._laying_out = True
            self.call_after_refresh(self._lay_out_more)  # (after the frame so far, most often)
        divider = end == len(options) and options and options[-1]._divider
        size = Size(self._layout_width(), len(cache.lines) - (1 if divider else 0))
        if size != self.virtual_size:
            # (the reactive would lay the whole screen out again: the pane's size is the
            # same, only what scrolls in it is not; a scroll bar shown or hidden still is)
            self.set_reactive(PagedList.virtual_size, size)
            self._scroll_update(size)  # (the scroll bar drawn again)
            # the lines in view drawn again only if some are new: a step that lays out rows
            # below the view (most steps of a large pad's) changes only the scroll bar
            if first_new < self.scroll_offset.y + self.scrollable_content_region.height:
                self.refresh()
        self._sized = (len(cache.lines), len(options))

    def _lay_out_more(self) -> None:
        self._laying_out = False
        self._update_lines()

    @property
    def laid_out(self) -> int:
        """How many options are laid out (the others are on their way)."""
        return len(self._line_cache.heights)

    def _layout_width(self) -> int:
        return self.scrollable_content_region.width - self._get_left_gutter_width()

    def _measure_width(self) -> int:
        """The width an option is laid out at (asked once for all the options measured)."""
        padding = self.get_component_styles("option-list--option").padding
        return self._layout_width() - padding.width

    def _measure(self, option: Option, width: int | None = None) -> int:
        """An option's height in lines, at the pane's width (``width``, when known)."""
        rules = cast(RulesMap, self.styles)
        visual = self._get_visual(option)
        at = self._measure_width() if width is None else width
        return visual.get_height(rules, at) + option._divider

    def _relayout(self, a: int, b: int) -> None:
        """Measure the options ``a`` to ``b`` (swapped in place of as many, and laid out
        before) into the map of lines, moving the lines of those laid out after them if
        their height changed."""
        cache = self._line_cache
        start = cache.index_to_line[a]
        before = sum(cache.heights[i] for i in range(a, b))
        lines: list[tuple[int, int]] = []
        width = self._measure_width()
        for i in range(a, b):
            height = self._measure(self._options[i], width)
            cache.heights[i] = height
            cache.index_to_line[i] = start + len(lines)
            lines.extend((i, k) for k in range(height))
        cache.lines[start : start + before] = lines
        moved = len(lines) - before
        if moved:
            to_line = cache.index_to_line
            for i in range(b, len(cache.heights)):
                to_line[i] += moved

    def _get_option_render(self, option: Option, style: Style) -> list[Strip]:
        """An option's lines as ``OptionList`` draws them: a row's made in one pass
        (``RowVisual.padded_strips``), since a pane scrolled to a change draws a screenful
        of rows it has not drawn before. Anything else is drawn ``OptionList``'s way."""
        padding = self.get_component_styles("option-list--option").padding
        key = (option, style, padding)
        strips = self._option_render_cache.get(key)
        if strips is None:
            visual = self._get_visual(option)
            if (
                isinstance(visual, RowVisual)
                and not (padding.top or padding.bottom or option._divider)
                and self.styles.content_align == ("left", "top")
            ):
                width = self.scrollable_content_region.width - self._get_left_gutter_width()
                meta = RichStyle.from_meta({"option": self._option_to_index[option]})
                strips = visual.padded_strips(width, padding.left, padding.right, style, meta)
            if strips is None:
                return super()._get_option_render(option, style)
            self._option_render_cache[key] = strips
        return strips

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """The pane's scroll bar (a ``PaneScrollBar``), made when first asked for."""
        if self._vertical_scrollbar is None:
            bar = PaneScrollBar(
                vertical=True, name="vertical", thickness=self.scrollbar_size_vertical
            )
            bar.display = False
            self._vertical_scrollbar = bar
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

    @property
    def selected_row(self) -> Row | None:
        i = self.highlighted
        return self.rows[i] if i is not None and 0 <= i < len(self.rows) else None


def gauge_text(sealed: int, rewritable: int, budget: int, width: int) -> Text:
    """A bar of ``width`` cells: sealed | rewritable | free, and overflow past the budget."""
    total = sealed + rewritable
    scale = max(total, budget, 1)
    s_end = round(width * sealed / scale)
    t_end = round(width * total / scale)
    b_end = round(width * budget / scale)
    bar = Text()
    for start, end, cell, style in (  # in runs of one style: a wide bar is redrawn often
        (0, s_end, "█", "#87afff"),
        (s_end, min(t_end, b_end), "█", "#87d787"),  # rewritable, within the budget
        (max(s_end, b_end), t_end, "█", "red"),  # rewritable, past it
        (t_end, width, "░", "#444444"),
    ):
        if end > start:
            bar.append(cell * (end - start), style=style)
    if total > budget and 0 < b_end < width:
        bar = bar[:b_end] + Text("│", style="bold white") + bar[b_end + 1 :]
    return bar


def redraw(widget: Widget) -> None:
    """Draw a widget whose content changed, laying the screen out again only when its
    content's height changed (a layout measures and places every widget again)."""
    width, height = widget.content_size
    if width and widget.get_content_height(widget.container_size, widget.app.size, width) == (
        height
    ):
        widget.refresh()
    else:
        widget.refresh(layout=True)


def set_text(widget: Static, content: VisualType) -> None:
    """``widget.update(content)``, laid out again only when its height changed
    (:func:`redraw`)."""
    widget.update(content, layout=False)
    redraw(widget)


class BudgetGauge(Widget):
    """Tokens against the budget: now, and after the trial when one is open."""

    DEFAULT_CSS = """
    BudgetGauge { height: auto; min-height: 1; padding: 0 1; }
    """

    sealed: reactive[int] = reactive(0)
    """Tokens in the sealed region."""
    rewritable: reactive[int] = reactive(0)
    """Tokens in the rewritable region."""
    budget: reactive[int] = reactive(4000)
    """The token budget."""
    after: reactive[tuple[int, int] | None] = reactive(None)
    """Sealed and rewritable tokens after the previewed trial, or None."""
    chars: reactive[tuple[int, int, int, str] | None] = reactive(None)
    """A Letta agent file's gauge in its own unit: sealed and rewritable characters, the
    blocks' limits summed, and what to say of the blocks near or over theirs (else None)."""

    def render(self) -> Text:
        if self.chars is not None:
            sealed, rewritable, limits, blocks = self.chars
            line = self._line("now  ", sealed, rewritable, limits, "chars")
            line.append(blocks, style="bold yellow")
            lines = [line]
        else:
            lines = [self._line("now  ", self.sealed, self.rewritable)]
        if self.after is not None:
            lines.append(self._line("after", *self.after))
        return Text("\n").join(lines)

    def _line(
        self, name: str, sealed: int, rewritable: int, budget: int | None = None, unit: str = "tok"
    ) -> Text:
        budget = self.budget if budget is None else budget
        total = sealed + rewritable
        over = total - budget
        numbers = Text(f" {total}/{budget} {unit}", style="bold")
        numbers.append(f" (sealed {sealed} · rewritable {rewritable})", style="dim")
        if over > 0:
            numbers.append(f" over by {over}", style="bold red")
        else:
            numbers.append(f" {-over} free", style="green")
        width = max(10, self.content_size.width - len(name) - 1 - numbers.cell_len)
        if unit != "tok":
            width -= 30  # (room for what is said of the blocks)
        line = Text(f"{name} ", style="bold")
        line.append_text(gauge_text(sealed, rewritable, budget, max(10, width)))
        line.append_text(numbers)
        return line

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 2 if self.after is not None else 1


class StatusLine(Static):
    """One line of state: the verdict of the trial, or of the last rewrite."""

    DEFAULT_CSS = """
    StatusLine { height: auto; padding: 0 1; }
    """


def cut_middle(text: Text, width: int) -> Text:
    """``text`` in ``width`` cells, its middle given up for … when it is longer (a path's
    start and its end both say which pad it is)."""
    if text.cell_len <= width:
        return text
    if width <= 1:
        return Text("…"[:width])
    tail = (width - 1) // 2
    head = width - 1 - tail
    cut = text[:head]
    cut.append("…")
    cut.append_text(text[len(text) - tail :] if tail else Text())
    return cut


class TopBar(Static):
    """A bar of parts on one line. Where the terminal is too narrow for all of them, the
    parts with the highest ``give`` are left out first; a part whose ``give`` is 0 always
    shows, and one whose ``give`` is -1 (the pad's name) too, cut in the middle if need be."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.parts: list[tuple[Text, int]] = []

    def show(self, parts: list[tuple[Text, int]]) -> None:
        self.parts = parts
        set_text(self, Text("").join(p for p, _give in parts))  # (its content: the whole bar)

    def render(self) -> Text:
        width = self.content_region.width or self.size.width
        parts = list(self.parts)
        gives = sorted({g for _p, g in parts if g > 0}, reverse=True)
        while sum(p.cell_len for p, _g in parts) > width and gives:
            drop = gives.pop(0)
            parts = [(p, g) for p, g in parts if g != drop]
        line = Text("", no_wrap=True, overflow="ellipsis", end="")
        over = sum(p.cell_len for p, _g in parts) - width
        for p, g in parts:
            if g < 0 and over > 0:
                p = cut_middle(p, max(1, p.cell_len - over))
                over = 0
            line.append_text(p)
        line.truncate(max(width, 0), overflow="ellipsis")
        return line
