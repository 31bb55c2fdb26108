"""JSON pads (``.json``): an array of entries, or an object with ``entries`` beside the pad's
settings; the memory exports of memory tools (``memories.py``) are read here too, read-only.

A pad is read together with its layout: the exact text around and between its entries.
Writing back reuses the source text of every entry that did not change, so a commit changes
nothing but what it means to change (unknown fields, key order, indentation).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate, repeat
from operator import add, attrgetter
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
from padtui.core.sequences.ends import common_text_ends


@dataclass(frozen=True, kw_only=True)
class JsonLayout(Layout):
    """A JSON pad's text around its entries' pieces."""

    head: str  # text up to and including the entries array's "["
    tail: str  # text after the last entry's piece
    indent: str | None  # indentation unit of a new entry (None: one line)
    lead: str  # white space put before a new entry's piece

    @cached_property
    def ascii(self) -> bool:
        """Escape non-ASCII in new entries, as the file does (all ASCII, with a ``\\u``
        escape)? Asked only by a write that adds or changes an entry, so found then: no
        version read pays for it. (No escape spans two parts: a "," or "[" parts them.)"""
        parts = (self.head, *self.pieces, self.tail)
        return all(map(str.isascii, parts)) and any("\\u" in p for p in parts)


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
        indent=_indent_unit(text, sources[0] if sources else None, lead),
        lead=lead if pieces else _guess_lead(text, close),
        read_only=MEMORY_READ_ONLY if memories else None,
    )
    return settings.pad(entries), layout


def _read_after(path: str, text: str, previous: PadFile) -> tuple[Pad, JsonLayout] | None:
    """A JSON pad read against an earlier version of it: the same head and tail (everything
    before and after the entries), its entries walked in order, each one that is still
    there as it was (the same JSON text) taken over without parsing it, the others parsed.
    The entries in the text the two versions share at their start, and those in what they
    share at their end, are taken over without a walk: a large pad costs what changed.
    None when the text is not so (another head or tail, bad JSON...): then it is read in
    full, which also says what is wrong with it. The result is what a full read gives."""
    old = previous.layout
    olds = previous.pad.entries
    if not isinstance(old, JsonLayout) or old.read_only is not None or not olds:
        return None
    end = len(text) - len(old.tail)  # where the last entry's JSON ends
    if end <= len(old.head) or not text.startswith(old.head) or not text.endswith(old.tail):
        return None
    n = len(olds)
    # where each old piece starts (and, one past the last, where a next one would)
    starts = list(accumulate(map(add, map(len, old.pieces), repeat(1)), initial=len(old.head)))
    k, tail_from, shift = 0, len(text) + 1, 0
    old_text = old.head + ",".join(old.pieces) + old.tail
    if all(map(attrgetter("source"), olds)):  # (else each is read as the walk finds it)
        same_start, same_end = common_text_ends(old_text, text)
        # the pieces before the first change, with the "," after each, are the old ones
        k = min(bisect_right(starts, same_start, 1) - 1, n - 1)
        # from a piece's start at or after this, the text is the old text from shift before
        tail_from, shift = len(text) - same_end, len(text) - len(old_text)
    walked: list[tuple[Entry | Any, int, int]] = []  # (old entry or new value, its span)
    pieces = list(old.pieces[:k])
    moved: dict[str, int] | None = None
    rest = n  # the old entries taken over after the walk: olds[rest:]
    j = k  # the old entry expected next
    pos = starts[k]
    try:
        while True:
            if pos >= tail_from:  # the rest as it was, if the walk is at an old piece
                m = bisect_left(starts, pos - shift, 0, n)
                if m < n and starts[m] == pos - shift:
                    rest = m
                    break
            a = skip(text, pos)
            o = olds[j] if j < n else None
            source = o.source if o is not None else None
            if source and text.startswith(source, a):  # a JSON object ends where it ends
                b = a + len(source)
                walked.append((o, a, b))
                j += 1
            else:
                value, b = jsonscan.SCAN(text, a)
                source = text[a:b]
                if moved is None and source in old_text:  # (else it is new: no entry moved)
                    moved = {e.source: i for i, e in enumerate(olds) if e.source}
                at = moved.get(source) if moved is not None else None
                if at is not None:  # an entry that moved
                    walked.append((olds[at], a, b))
                    j = at + 1
                else:
                    walked.append((value, a, b))
                    j += 1
            if b == end:
                pieces.append(text[pos:end])
                break
            c = skip(text, b)
            if c >= end or text[c] != ",":
                return None  # not the old tail after the last entry, or not JSON
            pieces.append(text[pos:c])
            pos = c + 1
    except jsonscan.NOT_READ:
        return None
    entries: list[Entry] = list(olds[:k])
    for i, (item, a, b) in enumerate(walked, k):
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
    entries += olds[rest:]
    pieces += old.pieces[rest:]
    lead = _lead_of(pieces[-1])
    layout = JsonLayout(
        format="json",
        head=old.head,
        tail=old.tail,
        pieces=tuple(pieces),
        indent=_indent_unit(text, entries[0].source, lead),
        lead=lead,
    )
    return Settings.of(previous.pad).pad(entries), layout


def _lead_of(piece: str) -> str:
    return piece[: len(piece) - len(piece.lstrip(WS))]


def _indent_unit(text: str, first: str | None, lead: str) -> str | None:
    """The indentation of a new entry, copied from the first entry's own layout (``first``:
    its source text, None in a pad of no entries)."""
    if first is None:
        return "  " if "\n" in text.strip(WS) else None
    if "\n" not in first:
        return None
    second = first.split("\n", 1)[1]
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
