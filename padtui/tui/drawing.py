"""Lines a pane draws in one pass: its lines of content, and its scroll bar.

A pane that scrolls to what a new version changed draws, on every version, a screenful of
lines it has not drawn before and a scroll bar that moved. Textual draws each of those lines
in steps, a new strip each, working out again for each line what depends only on the pane's
styles (its border's glyphs and colours, its padding's style). Here each line is one strip,
the same segments as Textual's; anything styled in a way this does not know is drawn
Textual's way. The tests hold both to Textual's own output, line for line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.terminal_theme import TerminalTheme
from textual._border import get_box
from textual._styles_cache import StylesCache
from textual.color import Color
from textual.content import Content
from textual.css.styles import StylesBase
from textual.geometry import Region, Size, Spacing
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.style import Style

# lines of content a pane keeps framed (``PaneLines._framed``): a few screens' worth
FRAMED_LINES = 2048


class PaneLines(StylesCache):
    """A pane's styles cache, whose lines of content are each made as one strip.

    A pane scrolled to a change draws a screenful of lines it has not drawn before, and the
    styles cache makes each one afresh: the border's colours and glyphs and the padding's
    style worked out again a line, and a strip a step. Those depend on the pane's styles
    and colours, not on the line: here they are worked out once for them, and a line of
    content is its border, its padding and the option's line, the same segments. The
    border's own lines, and a pane styled in a way this does not know (an outline, a hatch,
    a tint, transparency), are made the styles cache's way.

    A line of content framed once is framed again as the very same strip, while the option's
    line is the same strip and the edges are the same: what Textual does to a strip once it is
    made (the line filters, the compositor's cuts, the terminal's escape codes) is kept on it,
    so a line drawn again costs none of that. A new version redraws the whole pane, and an
    agent that edits near where it last did leaves most of those lines as they were."""

    def __init__(self) -> None:
        super().__init__()
        self._edges: tuple[tuple[object, ...], _Edges | None] | None = None
        # each framed line by its line of content, for the edges of ``_edges`` (the line of
        # content is kept with it, so that its id is not reused while it is a key)
        self._framed: dict[int, tuple[Strip, Strip]] = {}

    def render_line(
        self,
        styles: StylesBase,
        y: int,
        size: Size,
        content_size: Size,
        padding: Spacing,
        base_background: Color,
        background: Color,
        render_content_line: Callable[[int], Strip],
        border_title: tuple[Content, Color, Color, Style] | None,
        border_subtitle: tuple[Content, Color, Color, Style] | None,
        opacity: float,
        ansi_theme: TerminalTheme,
        native_ansi: bool,
    ) -> Strip:
        edges = self._edges_for(
            _Look(styles, size, content_size, padding, base_background, background, opacity)
        )
        if edges is not None and edges.top <= y < edges.bottom:
            content = render_content_line(y - edges.top)
            framed = self._framed.get(id(content))
            if framed is not None and framed[0] is content:
                return framed[1]
            line = content.adjust_cell_length(edges.content_width, edges.inner)
            strip = Strip(
                [edges.left, *edges.pad_left, *line, *edges.pad_right, edges.right], size.width
            )
            if len(self._framed) >= FRAMED_LINES:
                self._framed.clear()
            self._framed[id(content)] = (content, strip)
            return strip
        return super().render_line(
            styles,
            y,
            size,
            content_size,
            padding,
            base_background,
            background,
            render_content_line,
            border_title,
            border_subtitle,
            opacity,
            ansi_theme,
            native_ansi,
        )

    def _edges_for(self, look: _Look) -> _Edges | None:
        changes = getattr(look.styles, "_cache_key", None)  # (changes with any of the styles)
        if changes is None:
            return None
        key = (changes, *look[1:])
        if self._edges is not None and self._edges[0] == key:
            return self._edges[1]
        edges = _Edges.of(look)
        self._edges = (key, edges)
        self._framed.clear()  # (framed with the edges before)
        return edges


class _Look(NamedTuple):
    """What the styles cache is given to make a pane's line, but the line itself."""

    styles: StylesBase
    size: Size
    content_size: Size
    padding: Spacing
    base_background: Color
    background: Color
    opacity: float


@dataclass(frozen=True)
class _Edges:
    """What the styles cache puts around a pane's line of content (see ``PaneLines``)."""

    top: int  # the first line of content, and the line after the last
    bottom: int
    content_width: int
    inner: RichStyle
    left: Segment
    right: Segment
    pad_left: tuple[Segment, ...]
    pad_right: tuple[Segment, ...]

    @classmethod
    def of(cls, look: _Look) -> _Edges | None:
        """As ``StylesCache.render_line`` makes them, for a line of content; None where it
        would do more than this knows (a side with no border, an outline, a hatch, a tint,
        transparency, content that does not reach the bottom padding)."""
        styles, size, content_size, padding, base_background, background, opacity = look
        (_, _), (border_right, right_color), (_, _), (border_left, left_color) = styles.border
        gutter = styles.gutter
        if (
            not (border_left and border_right)
            or any(edge for edge, _color in styles.outline)
            or styles.has_rule("hatch")
            or styles.tint.a
            or styles.text_opacity != 1
            or opacity != 1
            or padding.top
            or padding.bottom
            or content_size.height != size.height - gutter.height
        ):
            return None
        # (as StylesCache.get_inner_outer)
        inner_style = Style(background=base_background + background)
        outer_style = Style(background=base_background)
        inner = inner_style.rich_style

        def side(edge: str, color: Color, at: int) -> Segment:
            style = Style(foreground=base_background + color.multiply_alpha(opacity))
            return get_box(edge, inner_style, outer_style, style)[1][at]

        def blank(cells: int) -> tuple[Segment, ...]:
            return (Segment(" " * cells, inner),) if cells else ()

        return cls(
            top=gutter.top,
            bottom=size.height - gutter.bottom,
            content_width=content_size.width,
            inner=inner,
            left=side(border_left, left_color, 0),
            right=side(border_right, right_color, 2),
            pad_left=blank(padding.left),
            pad_right=blank(padding.right),
        )


class PaneScrollBar(ScrollBar):
    """A pane's scroll bar, drawn a strip a line.

    A pane that scrolls to what a new version changed moves its bar on every version, and
    ``ScrollBar`` draws the bar through Rich and the widget's styles, four strips a line.
    This makes each line at once, as the same segments; a bar styled in a way this does not
    know (a border, padding, a tint, transparency) is drawn ``ScrollBar``'s way."""

    _drawn: tuple[tuple[object, ...], list[Strip]] | None = None  # what it drew, and for what

    def render_lines(self, crop: Region) -> list[Strip]:
        bar = self.render()
        styles = self.styles
        if (
            not self.vertical
            or type(bar) is not ScrollBarRender  # (a renderer of someone's own draws it)
            or not isinstance(bar.style, RichStyle)
            or crop.bottom > self.size.height
            or styles.gutter != _NO_SPACE
            or any(edge for edge, _color in styles.outline)
            or styles.tint.a
            or styles.text_opacity != 1
            or self.opacity != 1
            or styles.has_rule("hatch")
        ):
            return super().render_lines(crop)
        width, height = self.size
        base = self.visual_style.rich_style
        _base_background, background = self.background_colors
        filters = tuple(self.get_line_filters())
        look = (bar.virtual_size, bar.window_size, bar.position, bar.style, base, background)
        key = (self.size, look, filters)
        if self._drawn is None or self._drawn[0] != key:  # (a bar that did not move: as drawn)
            segments = ScrollBarRender.render_bar(
                size=height,
                virtual_size=bar.virtual_size,
                window_size=bar.window_size,
                position=bar.position,
                thickness=width,
                vertical=True,
                back_color=bar.style.bgcolor or _BAR_BACK,
                bar_color=bar.style.color or _BAR_COLOR,
            )
            lines = [
                Strip([Segment(text, base + style)], width)
                for text, style, _control in segments.segments
                if text != "\n"
            ]
            if len(lines) != height:
                return super().render_lines(crop)
            for line_filter in filters:
                lines = [line.apply_filter(line_filter, background) for line in lines]
            self._drawn = (key, lines)
        strips = self._drawn[1][crop.y : crop.bottom]
        if crop.column_span != (0, width):
            x1, x2 = crop.column_span
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips


_NO_SPACE = Spacing(0, 0, 0, 0)
_BAR_BACK = RichColor.parse("#555555")  # (ScrollBarRender's, when the style has none)
_BAR_COLOR = RichColor.parse("bright_magenta")
