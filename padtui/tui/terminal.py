"""The last step before the terminal: no control character of pad text is drawn.

Textual puts every line a widget draws through the app's line filters, after the widget
has laid it out. ``Cleaned`` removes from each line what ``clean`` removes from text (ESC,
C0 and C1 controls, DEL, bidirectional controls), so that a screen that forgot to clean a
label, a file name or a journal's field still sends none of them. The characters it
removes take no cell, so the lines keep their layout.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from padtui.core.text import clean


class Cleaned(LineFilter):
    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        out = segments
        for i, segment in enumerate(segments):
            if segment.control:  # (Textual's own: cursor moves, never pad text)
                continue
            text = clean(segment.text)
            if text != segment.text:
                if out is segments:
                    out = list(segments)
                out[i] = Segment(text, segment.style)
        return out


CLEANED = Cleaned()
