"""JSON Lines pads (``.jsonl``): one entry object a line. Blank lines stay where they are, and
every line that did not change is written back as it was, with its own line ending."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from padtui.core.formats import jsonscan, known
from padtui.core.formats.base import BOM, Layout, PadFile, split_lines
from padtui.core.formats.jsonscan import WS, has_surrogate_escape
from padtui.core.formats.objects import JsonObjects, dumps, entry_from, unchanged_pieces
from padtui.core.model import Entry, Pad


@dataclass(frozen=True, kw_only=True)
class JsonlLayout(Layout):
    """A JSON Lines pad's text around its lines (each piece: the blank lines before an
    entry's line, and the line with its ending)."""

    head: str  # the byte order mark, if the file starts with one
    tail: str  # the blank lines after the last entry
    newline: str  # the file's line ending, for new lines


class JsonlFormat(JsonObjects):
    name = known.JSONL.name
    suffixes = known.JSONL.suffixes

    def read(self, path: str, text: str, previous: PadFile | None) -> tuple[Pad, Layout]:
        body = text.removeprefix(BOM)
        head = text[: len(text) - len(body)]
        entries: list[Entry] = []
        pieces: list[str] = []
        pending = ""
        newline = "\r\n" if "\r\n" in body else "\r" if "\r" in body and "\n" not in body else "\n"
        surrogates = has_surrogate_escape(body)
        for lineno, line in enumerate(split_lines(body), start=1):
            if not line.strip(WS):
                pending += line
                continue
            where = f"line {lineno}"
            obj = jsonscan.loads(path, line, line=where)
            source = line.rstrip("\r\n").strip(WS)
            entries.append(
                entry_from(path, obj, len(entries), where, source, surrogates=surrogates)
            )
            pieces.append(pending + line)
            pending = ""
        layout = JsonlLayout(
            format=self.name, head=head, tail=pending, pieces=tuple(pieces), newline=newline
        )
        return Pad.of(entries), layout

    def write(self, layout: Layout, entries: Sequence[Entry]) -> str:
        assert isinstance(layout, JsonlLayout)
        by_source = unchanged_pieces(layout, entries)
        out = [layout.head]
        for i, e in enumerate(entries):
            piece = by_source.get(i) or dumps(e.as_dict(), False) + layout.newline
            if not piece.endswith(("\n", "\r")):
                piece += layout.newline
            out.append(piece)
        text = "".join(out) + layout.tail
        original_ends_open = (
            bool(layout.pieces) and not layout.pieces[-1].endswith(("\n", "\r")) and not layout.tail
        )
        if original_ends_open and text.endswith(layout.newline):
            text = text[: -len(layout.newline)]
        return text


FORMAT = JsonlFormat()
