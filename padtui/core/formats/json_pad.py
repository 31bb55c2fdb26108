"""JSON pads (``.json``): an array of entries, or an object with ``entries`` beside the pad's
settings; the memory exports of memory tools (``memories.py``) are read here too, read-only.

A pad is read together with its layout: the exact text around and between its entries.
Writing back reuses the source text of every entry that did not change, so a commit changes
nothing but what it means to change (unknown fields, key order, indentation).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from padtui.core.errors import PadError, json_type
from padtui.core.formats import jsonscan, known
from padtui.core.formats.base import BOM, Layout, PadFile, Settings
from padtui.core.formats.jsonscan import WS, has_surrogate_escape, skip
from padtui.core.formats.memories import MEMORY_READ_ONLY, is_memory_list, memory_entry
from padtui.core.formats.objects import (
    JsonObjects,
    dumps,
    entry_from,
    settings_from,
    unchanged_pieces,
)
from padtui.core.model import Entry, Pad


@dataclass(frozen=True, kw_only=True)
class JsonLayout(Layout):
    """A JSON pad's text around its entries' pieces."""

    head: str  # text up to and including the entries array's "["
    tail: str  # text after the last entry's piece
    indent: str | None  # indentation unit of a new entry (None: one line)
    lead: str  # white space put before a new entry's piece
    ascii: bool  # escape non-ASCII in new entries, as the file does


class JsonFormat(JsonObjects):
    name = known.JSON.name
    suffixes = known.JSON.suffixes
    glue = re.compile(r"[\s,\[\]]*")

    def read(self, path: str, text: str, previous: PadFile | None) -> tuple[Pad, Layout]:
        after = _read_after(path, text, previous) if previous is not None else None
        return after if after is not None else _read(path, text)

    def read_pad(self, path: str, text: str) -> Pad:
        """Read by ``json.loads`` alone, without finding where each entry lies in the text,
        which only a write needs: on a large pad that search is most of the time it takes."""
        try:
            items, settings, memories = _document(
                path, jsonscan.loads(path, text.removeprefix(BOM))
            )
            surrogates = has_surrogate_escape(text)
            entries = [
                memory_entry(path, obj, i, "", None)
                if memories
                else entry_from(path, obj, i, "", None, surrogates=surrogates)
                for i, obj in enumerate(items)
            ]
        except PadError:  # read again the long way, for the error that names the entry's line
            return _read(path, text)[0]
        return settings.pad(entries)

    def write(self, layout: Layout, entries: Sequence[Entry]) -> str:
        assert isinstance(layout, JsonLayout)
        if layout.read_only is not None:
            raise ValueError(layout.read_only)
        by_source = unchanged_pieces(layout, entries)
        pieces = [by_source.get(i) or layout.lead + _dump(layout, e) for i, e in enumerate(entries)]
        if not layout.pieces and pieces:
            return layout.head + ",".join(pieces) + _closing_ws(layout) + layout.tail.lstrip(WS)
        return layout.head + ",".join(pieces) + layout.tail


FORMAT = JsonFormat()


def _document(path: str, doc: Any) -> tuple[list[Any], Settings, bool]:
    """A pad document's items, its settings, and whether they are the memories of a memory
    tool's export (read-only) rather than entries."""
    if isinstance(doc, list):
        return doc, Settings(), is_memory_list(doc)
    if not isinstance(doc, dict):
        raise PadError(
            path, f'expected an array of entries or an object with "entries", got {json_type(doc)}'
        )
    settings = settings_from(path, doc)
    for name in ("entries", "memories"):
        if name in doc:
            items = doc[name]
            if not isinstance(items, list):
                raise PadError(path, f'"{name}" must be an array, got {json_type(items)}')
            return items, settings, name == "memories"
    raise PadError(
        path,
        'no entries array: a JSON pad is an array of entries or an object with "entries" '
        '(memory exports: an object with "memories", or an array of strings)',
    )


def _read(path: str, text: str) -> tuple[Pad, JsonLayout]:
    lstart = len(text) - len(text.lstrip(WS + BOM))
    try:  # one pass over a well-formed pad (a large pad is read once, not three times)
        doc, astart, spans, items, close = jsonscan.scan_document(
            text, skip(text, len(BOM) if text.startswith(BOM) else 0)
        )
    except jsonscan.NOT_READ:
        doc = jsonscan.loads(path, text.removeprefix(BOM))  # bad JSON: the error that says where
        astart, spans, items, close = None, [], [], -1  # (valid after all: found below)
    found, settings, memories = _document(path, doc)
    if memories and isinstance(doc, dict):  # the scan found the spans of "entries" only
        astart = None
    if astart is None:  # read by json.loads: find the entries in the text
        name = "memories" if memories else "entries"
        astart = jsonscan.member(text, lstart, name) if isinstance(doc, dict) else lstart
        assert astart is not None
        items = found
        array = jsonscan.array_spans(text, astart)
        assert array is not None
        spans, close = array
    surrogates = has_surrogate_escape(text)
    sources = [text[a:b] for a, b in spans]
    what = "memory" if memories else "entry"
    try:
        if memories:
            entries = [
                memory_entry(path, obj, i, "", source)
                for i, (obj, source) in enumerate(zip(items, sources, strict=True))
            ]
        else:
            entries = [
                entry_from(path, obj, i, "", source, surrogates=surrogates)
                for i, (obj, source) in enumerate(zip(items, sources, strict=True))
            ]
    except PadError:
        # again, naming the entry and its line (only a bad pad pays for counting lines)
        for i, (obj, (a, _b)) in enumerate(zip(items, spans, strict=True)):
            where = f"{what} {i} (line {text.count(chr(10), 0, a) + 1})"
            if memories:
                memory_entry(path, obj, i, where, None)
            else:
                entry_from(path, obj, i, where, None)
        raise
    # white space between an entry and its "," stays with the entry (the last entry's goes
    # to the tail), so that an unchanged pad renders byte for byte
    commas = [skip(text, b) for a, b in spans]
    starts = [astart + 1, *(c + 1 for c in commas[:-1])]
    ends = [*commas[:-1], spans[-1][1]] if spans else []
    pieces = [text[a:b] for a, b in zip(starts, ends, strict=True)] if spans else []
    tail_start = spans[-1][1] if spans else astart + 1
    lead = _lead_of(pieces[-1]) if pieces else ""
    layout = JsonLayout(
        format="json",
        head=text[: astart + 1],
        tail=text[tail_start:],
        pieces=tuple(pieces),
        indent=_indent_unit(text, spans, lead),
        lead=lead if pieces else _guess_lead(text, close),
        ascii=text.isascii() and "\\u" in text,
        read_only=MEMORY_READ_ONLY if memories else None,
    )
    return settings.pad(entries), layout


def _read_after(path: str, text: str, previous: PadFile) -> tuple[Pad, JsonLayout] | None:
    """A JSON pad read against an earlier version of it: the same head and tail (everything
    before and after the entries), its entries walked in order, each one that is still
    there as it was (the same JSON text) taken over without parsing it, the others parsed.
    None when the text is not so (another head or tail, bad JSON...): then it is read in
    full, which also says what is wrong with it. The result is what a full read gives."""
    old = previous.layout
    olds = previous.pad.entries
    if not isinstance(old, JsonLayout) or old.read_only is not None or not olds:
        return None
    end = len(text) - len(old.tail)  # where the last entry's JSON ends
    if end <= len(old.head) or not text.startswith(old.head) or not text.endswith(old.tail):
        return None
    spans: list[tuple[int, int]] = []
    commas: list[int] = []
    found: list[Entry | Any] = []  # an old entry taken over, or a new entry's JSON value
    moved: dict[str, int] | None = None
    j = 0  # the old entry expected next
    pos = len(old.head)
    try:
        while True:
            a = skip(text, pos)
            o = olds[j] if j < len(olds) else None
            source = o.source if o is not None else None
            if source and text.startswith(source, a):  # a JSON object ends where it ends
                b = a + len(source)
                found.append(o)
                j += 1
            else:
                value, b = jsonscan.SCAN(text, a)
                source = text[a:b]
                if moved is None:
                    moved = {e.source: i for i, e in enumerate(olds) if e.source}
                k = moved.get(source)
                if k is not None:  # an entry that moved
                    found.append(olds[k])
                    j = k + 1
                else:
                    found.append(value)
                    j += 1
            spans.append((a, b))
            if b == end:
                break
            c = skip(text, b)
            if c >= end or text[c] != ",":
                return None  # not the old tail after the last entry, or not JSON
            commas.append(c)
            pos = c + 1
    except jsonscan.NOT_READ:
        return None
    entries: list[Entry] = []
    for i, (item, (a, b)) in enumerate(zip(found, spans, strict=True)):
        if isinstance(item, Entry):
            entries.append(item)
            continue
        source = text[a:b]
        surrogates = has_surrogate_escape(source)
        try:
            entries.append(entry_from(path, item, i, "", source, surrogates=surrogates))
        except PadError:  # again, naming the entry and its line
            entry_from(path, item, i, f"entry {i} (line {text.count(chr(10), 0, a) + 1})", source)
            raise
    starts = [len(old.head), *(c + 1 for c in commas)]
    ends = [*commas, end]
    pieces = [text[a:b] for a, b in zip(starts, ends, strict=True)]
    lead = _lead_of(pieces[-1])
    layout = JsonLayout(
        format="json",
        head=old.head,
        tail=old.tail,
        pieces=tuple(pieces),
        indent=_indent_unit(text, spans, lead),
        lead=lead,
        ascii=text.isascii() and "\\u" in text,
    )
    return Settings.of(previous.pad).pad(entries), layout


def _lead_of(piece: str) -> str:
    return piece[: len(piece) - len(piece.lstrip(WS))]


def _indent_unit(text: str, spans: list[tuple[int, int]], lead: str) -> str | None:
    """The indentation of a new entry, copied from the first entry's own layout."""
    if not spans:
        return "  " if "\n" in text.strip(WS) else None
    a, b = spans[0]
    src = text[a:b]
    if "\n" not in src:
        return None
    second = src.split("\n", 1)[1]
    indent = second[: len(second) - len(second.lstrip(" \t"))]
    base = lead.rsplit("\n", 1)[-1]
    return indent[len(base) :] or "  "


def _guess_lead(text: str, close: int) -> str:
    before = text[:close].rstrip(WS)
    line_start = before.rfind("\n") + 1
    own = before[line_start:]
    indent = own[: len(own) - len(own.lstrip(" \t"))]
    return "\n" + indent + "  " if "\n" in text.strip(WS) else ""


def _closing_ws(layout: JsonLayout) -> str:
    if "\n" not in layout.lead:
        return ""
    indent = layout.lead.rsplit("\n", 1)[1]
    return "\n" + indent[: len(indent) - len(layout.indent or "")]


def _dump(layout: JsonLayout, entry: Entry) -> str:
    if layout.indent is None:
        return dumps(entry.as_dict(), layout.ascii)
    dumped = dumps(entry.as_dict(), layout.ascii, layout.indent)
    base = layout.lead.rsplit("\n", 1)[-1]
    return dumped.replace("\n", "\n" + base)
