"""Reading and writing pad files (SPEC section 1): JSON, JSON Lines and Markdown (the
Markdown reader and writer live in ``markdown.py``); Letta agent files (``letta.py``) are
read, never written.

A pad is read together with its *layout*: the exact text around and between its entries.
Writing back reuses the source text of every entry that did not change, so a commit changes
nothing but what it means to change (unknown fields, key order, indentation, line endings).
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from padtui.core import letta
from padtui.core.errors import PadError, json_type, shown
from padtui.core.model import Entry, Pad

if TYPE_CHECKING:
    from padtui.core import markdown

MAX_PAD_BYTES = 64 * 1024 * 1024
# the largest budget a pad may set: far above any model's context, and small enough that no
# arithmetic on it (a share, a float) can overflow
MAX_BUDGET = 10**12
# How a file's name says its format: the one table by which every part of padtui (this
# module, the store, the fleet's folder view, the command line's help) decides a format from
# a path. An ending matches the end of the file's name, case forgiven; the memory files that
# agents keep as Markdown under other names are read (and written back) as Markdown.
PAD_NAMES: tuple[tuple[str, str], ...] = (
    (".json", "json"),
    (".jsonl", "jsonl"),
    (".md", "md"),
    (".mdc", "md"),  # Cursor rules (their front matter kept verbatim)
    (".cursorrules", "md"),
    (".clinerules", "md"),
    (".windsurfrules", "md"),
    (".af", "af"),  # Letta agent files, read-only
)
# the formats ``--format`` may name, to read a file of any name as that format
CHOSEN_FORMATS = ("md", "json", "jsonl")
READ_ONLY_FORMATS = {"af": letta.READ_ONLY}
_WS = " \t\n\r"
_BOM = "\ufeff"


@dataclass(frozen=True)
class Layout:
    """Where the entries sit in the file, so that a write can splice them back."""

    format: str
    head: str  # text before the first entry's piece (for JSON, up to and including "[")
    tail: str  # text after the last entry's piece
    pieces: tuple[str, ...]  # each entry's source, with the white space before it
    indent: str | None  # JSON: indentation unit of a new entry (None: one line)
    lead: str  # white space put before a new entry's piece
    ascii: bool  # JSON: escape non-ASCII in new entries, as the file does
    newline: str  # JSONL: the file's line ending
    md: markdown.MdLayout | None = None  # Markdown: the sections the writer splices
    read_only: str | None = None  # why padtui does not write this file back (None: it does)


@dataclass(frozen=True)
class PadFile:
    """A pad as read from disk: the parsed pad, its layout and the exact bytes."""

    path: str
    pad: Pad
    layout: Layout
    data: bytes


def format_for_name(name: str) -> str | None:
    """The format a file's name says (by :data:`PAD_NAMES`), or None."""
    lower = os.path.basename(name).lower()
    for ending, fmt in PAD_NAMES:
        if lower.endswith(ending):
            return fmt
    return None


def pad_names_text() -> str:
    """The names padtui reads, in words (for help and errors), from :data:`PAD_NAMES`."""
    own = [e for e, f in PAD_NAMES if f in ("json", "jsonl") or e == ".md"]
    memory = [e for e, f in PAD_NAMES if f == "md" and e != ".md"]
    read_only = [e for e, f in PAD_NAMES if f in READ_ONLY_FORMATS]
    return (
        f"{', '.join(own)}; Markdown memory files {', '.join(memory)}; "
        f"{', '.join(read_only)} read-only"
    )


def format_of(path: str, fmt: str | None = None) -> str:
    """The format of the pad at ``path``: ``fmt`` when one is chosen (``--format``), else
    the one its name says. PadError for a name that says none, or an unknown ``fmt``."""
    if fmt is not None:
        if fmt not in CHOSEN_FORMATS:
            raise PadError(
                path, f"unknown format {fmt!r}; --format is one of {', '.join(CHOSEN_FORMATS)}"
            )
        return fmt
    found = format_for_name(path)
    if found is None:
        ext = os.path.splitext(os.path.basename(path))[1]
        raise PadError(
            path,
            f"unsupported format {ext or '(no extension)'!r}; padtui reads {pad_names_text()} "
            f"(--format {'|'.join(CHOSEN_FORMATS)} reads any name as that format)",
        )
    return found


def check_writable(path: str, fmt: str | None = None, layout: Layout | None = None) -> None:
    """PadError, in one line, for a pad padtui does not write back: a format it only reads
    (``.af``), or (``layout``) a file read in a shape it only reads (a memory export)."""
    problem = READ_ONLY_FORMATS.get(fmt or format_of(path))
    if problem is None and layout is not None:
        problem = layout.read_only
    if problem is not None:
        raise PadError(path, problem)


def read_bytes(path: str, limit: int | None = None) -> bytes:
    """The file's bytes, or a PadError that says in one line why not."""
    if limit is None:
        limit = MAX_PAD_BYTES  # looked up at call time, so a caller may lower it
    try:
        # O_NONBLOCK: a FIFO named like a pad must not block the reader forever
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError
            if not stat.S_ISREG(st.st_mode):
                raise PadError(path, "not a regular file")
            size = st.st_size
            if size > limit:
                raise PadError(
                    path,
                    f"file is {size / 2**20:.1f} MiB; padtui reads pads "
                    f"up to {limit / 2**20:.0f} MiB",
                )
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise PadError(path, "no such file") from None
    except IsADirectoryError:
        raise PadError(path, "is a directory, not a pad file") from None
    except PermissionError:
        raise PadError(path, "permission denied") from None
    except OSError as exc:
        raise PadError(path, exc.strerror or str(exc)) from None
    if len(data) > limit:
        raise PadError(path, f"file grew past {limit / 2**20:.0f} MiB while being read")
    return data


def load(path: str, fmt: str | None = None) -> PadFile:
    """Read and parse a pad file (``fmt``: read it as that format, whatever its name). Bad
    input raises PadError, never anything else."""
    if os.path.isdir(path):
        raise PadError(path, "is a directory, not a pad file")
    fmt = format_of(path, fmt)
    data = read_bytes(path)
    return parse(path, data, fmt)


def parse(
    path: str, data: bytes, fmt: str | None = None, previous: PadFile | None = None
) -> PadFile:
    """Parse a pad's bytes. ``previous``, an earlier version of the same pad, lets a JSON pad
    that is mostly that version be read as such: only what changed is parsed (the result is
    the same as without it)."""
    fmt = fmt or format_of(path)
    text = decode(path, data, fmt)
    if fmt == "json":
        after = _parse_json_after(path, text, previous) if previous is not None else None
        pad, layout = after if after is not None else _parse_json(path, text)
    elif fmt == "jsonl":
        pad, layout = _parse_jsonl(path, text)
    elif fmt == "md":
        from padtui.core import markdown  # (not imported by those who never read one)

        pad, md = markdown.parse(path, text)
        layout = Layout("md", "", "", md.pieces, None, "", False, md.newline, md=md)
    elif fmt == "af":
        pad = letta.parse(path, text)
        layout = Layout("af", text, "", (), None, "", False, "\n")
    else:
        raise PadError(path, f"unknown pad format {fmt!r}")
    return PadFile(path, pad, layout, data)


_EMPTY = {
    "md": "empty file: a Markdown pad needs at least one heading, bullet or paragraph",
    "af": "empty file: a Letta agent file is a JSON object",
}


def decode(path: str, data: bytes, fmt: str = "json") -> str:
    nul = data.find(b"\0")
    if nul >= 0:
        raise PadError(path, "binary file (NUL byte)", f"byte {nul}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PadError(path, "not valid UTF-8", f"line {line}, byte {exc.start}") from None
    if not text.strip(_WS + _BOM):
        raise PadError(path, _EMPTY.get(fmt, "empty file: a pad needs at least [] or {}"))
    return text


# --- JSON ---------------------------------------------------------------------------------


def _loads(path: str, text: str) -> Any:
    try:
        return json.loads(text.removeprefix(_BOM))
    except json.JSONDecodeError as exc:
        raise PadError(
            path, f"invalid JSON: {exc.msg}", f"line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise PadError(path, "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer past Python's digit limit
        raise PadError(path, f"invalid JSON: {str(exc).split(';')[0]}") from None


_WS_RUN = re.compile(r"[ \t\n\r]*")  # JSON's white space, as the json module reads it
_DECODER = json.JSONDecoder()
# the json module's own scanner of one value at a position (what raw_decode calls; its
# StopIteration is raw_decode's "Expecting value")
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


def _skip(text: str, i: int) -> int:
    m = _WS_RUN.match(text, i)  # a "*" pattern always matches
    return m.end() if m is not None else i


def _value_end(text: str, i: int) -> int:
    return _DECODER.raw_decode(text, i)[1]


class _NotPlain(ValueError):
    """The one-pass scan met something it does not read: json.loads says what is wrong."""


Scan = tuple[Any, int | None, list[tuple[int, int]], list[Any], int]


def _scan_json(text: str, start: int) -> Scan:
    """Read a JSON pad in one pass: the document, the position of the entries array's ``[``
    (None without one), each entry's span and value, and the position of the array's ``]``.

    It accepts exactly what ``json.loads`` accepts (every value goes through the json
    module's own scanner; this only walks the punctuation between them) and raises
    ValueError, IndexError or StopIteration on anything else.
    """
    scan = _SCAN
    astart: int | None = None
    items: list[Any] = []
    spans: list[tuple[int, int]] = []
    close = -1
    if text[start] == "[":
        astart = start
        items, spans, close = _scan_array(text, start)
        doc: Any = items
        end = close + 1
    elif text[start] == "{":
        obj: dict[str, Any] = {}
        i = _skip(text, start + 1)
        while text[i] != "}" or obj:
            if text[i] != '"':
                raise _NotPlain
            key, i = scan(text, i)
            i = _skip(text, i)
            if text[i] != ":":
                raise _NotPlain
            i = _skip(text, i + 1)
            if key == "entries" and text[i] == "[":
                astart = i
                items, spans, close = _scan_array(text, i)
                obj[key], i = items, close + 1
            else:
                if key == "entries":
                    astart = None  # a later "entries" wins, as in json.loads
                obj[key], i = scan(text, i)
            i = _skip(text, i)
            if text[i] == "}":
                break
            if text[i] != ",":
                raise _NotPlain
            i = _skip(text, i + 1)
        doc, end = obj, i + 1
    else:
        raise _NotPlain
    if _skip(text, end) != len(text):
        raise _NotPlain
    return doc, astart, spans, items, close


_AFTER_VALUE = re.compile(r"[ \t\n\r]*([,\]])[ \t\n\r]*")


def _scan_array(text: str, start: int) -> tuple[list[Any], list[tuple[int, int]], int]:
    """The values of the array at ``start``, their spans, and the position of its ``]``."""
    scan = _SCAN
    after = _AFTER_VALUE.match
    items: list[Any] = []
    spans: list[tuple[int, int]] = []
    i = _skip(text, start + 1)
    if text[i] == "]":
        return items, spans, i
    while True:
        value, end = scan(text, i)
        items.append(value)
        spans.append((i, end))
        m = after(text, end)
        if m is None:
            raise _NotPlain
        if m.group(1) == "]":
            return items, spans, m.start(1)
        i = m.end()


def _member_span(text: str, start: int, name: str) -> int | None:
    """In a top-level object at ``start``, where the value of ``name`` starts (the last
    one, as ``json.loads`` keeps the last of duplicate keys)."""
    found = None
    i = _skip(text, start + 1)
    decoder = json.JSONDecoder()
    while i < len(text) and text[i] != "}":
        key, i = decoder.raw_decode(text, i)
        i = _skip(text, _skip(text, i) + 1)  # past ":"
        if key == name:
            found = i
        i = _skip(text, _value_end(text, i))
        if text[i] == ",":
            i = _skip(text, i + 1)
    return found


def _array_spans(text: str, start: int) -> tuple[list[tuple[int, int]], int]:
    """Element spans of the (valid) array at ``start`` and the position of its ``]``."""
    spans = []
    i = _skip(text, start + 1)
    while text[i] != "]":
        end = _value_end(text, i)
        spans.append((i, end))
        i = _skip(text, end)
        if text[i] == ",":
            i = _skip(text, i + 1)
    return spans, i


# --- the shapes memory tools export -------------------------------------------------------

# where a memory object of a memory tool's export keeps its text, in the order looked for
MEMORY_TEXT_KEYS = ("memory", "content", "text", "value", "data")
MEMORY_READ_ONLY = (
    "padtui reads this memory export read-only (a memory tool's own shape, not a pad): "
    "change its memories in the tool that wrote them"
)


@dataclass(frozen=True)
class Settings:
    """A pad file's own settings (JSON object keys, Markdown front matter)."""

    budget_tokens: int | None = None
    encoding: str | None = None
    rule_headings: tuple[str, ...] = ()
    rule_headings_replace: bool = False

    def pad(self, entries: Sequence[Entry]) -> Pad:
        """A pad of these entries with these settings."""
        return Pad.of(
            entries,
            self.budget_tokens,
            self.encoding,
            rule_headings=self.rule_headings,
            rule_headings_replace=self.rule_headings_replace,
        )

    @classmethod
    def of(cls, pad: Pad) -> Settings:
        return cls(pad.budget_tokens, pad.encoding, pad.rule_headings, pad.rule_headings_replace)


def _memory_text_key(obj: dict[str, Any]) -> str | None:
    for key in MEMORY_TEXT_KEYS:
        if isinstance(obj.get(key), str):
            return key
    return None


def _is_memory_list(items: list[Any]) -> bool:
    """Is a bare array a memory tool's export (strings, or objects with their text under
    ``memory``, ``content``, ``text``, ``value`` or ``data`` and no ``kind``)? Decided by
    its first item; an array in which some object has a ``kind`` is a pad of entries."""
    if not items:
        return False
    first = items[0]
    if isinstance(first, dict) and (_memory_text_key(first) is None or "kind" in first):
        return False
    if not isinstance(first, str | dict):
        return False
    return not any(isinstance(x, dict) and "kind" in x for x in items)


def memory_entry(path: str, obj: Any, index: int, where: str, source: str | None) -> Entry:
    """One memory of a memory tool's export, as an entry of kind ``note`` (an object's
    string ``id`` is its id; every field of the object is kept in ``raw``)."""
    if isinstance(obj, str):
        _check_text(path, where, "memory", obj)
        return _entry("note", obj, False, None, (), None, index, {}, source)
    if not isinstance(obj, dict):
        raise PadError(
            path,
            "a memory must be a string, or an object with its text in "
            f"{', '.join(MEMORY_TEXT_KEYS)}; got {json_type(obj)}",
            where,
        )
    key = _memory_text_key(obj)
    if key is None:
        raise PadError(
            path,
            f"a memory object needs its text (a string) in {', '.join(MEMORY_TEXT_KEYS)}",
            where,
        )
    text = obj[key]
    _check_text(path, where, key, text)
    eid = obj.get("id")
    if isinstance(eid, str):
        _check_text(path, where, "id", eid)
    else:
        eid = None
    return _entry("note", text, False, eid, (), None, index, obj, source)


def _document(path: str, doc: Any) -> tuple[list[Any], Settings, bool]:
    """A pad document's items, its settings, and whether they are the memories of a memory
    tool's export (read-only) rather than entries."""
    if isinstance(doc, list):
        return doc, Settings(), _is_memory_list(doc)
    if not isinstance(doc, dict):
        raise PadError(
            path, f'expected an array of entries or an object with "entries", got {json_type(doc)}'
        )
    settings = _settings(path, doc)
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


def load_pad(path: str, fmt: str | None = None) -> Pad:
    """A pad to read and not write back (``check``, ``audit``): the same pad and the same
    errors as ``load(path, fmt).pad``. A JSON pad is read by ``json.loads`` alone, without
    finding where each entry lies in the text, which only a write needs (the entries' own
    text, kept so that untouched entries are written back byte for byte): on a large pad
    that search is most of the time it takes to read it."""
    if os.path.isdir(path) or format_of(path, fmt) != "json":
        return load(path, fmt).pad
    data = read_bytes(path)
    text = decode(path, data)
    try:
        items, settings, memories = _document(path, _loads(path, text))
        surrogates = _SURROGATE_ESCAPE.search(text) is not None
        entries = [
            memory_entry(path, obj, i, "", None)
            if memories
            else entry_from(path, obj, i, "", None, surrogates=surrogates)
            for i, obj in enumerate(items)
        ]
    except PadError:  # read again the long way, for the error that names the entry's line
        return parse(path, data, "json").pad
    return settings.pad(entries)


def _parse_json(path: str, text: str) -> tuple[Pad, Layout]:
    lstart = len(text) - len(text.lstrip(_WS + _BOM))
    try:  # one pass over a well-formed pad (a large pad is read once, not three times)
        doc, astart, spans, items, close = _scan_json(
            text, _skip(text, len(_BOM) if text.startswith(_BOM) else 0)
        )
    except (ValueError, IndexError, StopIteration, RecursionError):
        doc = _loads(path, text)  # bad JSON: the error that says where
        astart, spans, items, close = None, [], [], -1  # (valid after all: found below)
    found, settings, memories = _document(path, doc)
    if memories and isinstance(doc, dict):  # the scan found the spans of "entries" only
        astart = None
    if astart is None:  # read by json.loads: find the entries in the text
        name = "memories" if memories else "entries"
        astart = _member_span(text, lstart, name) if isinstance(doc, dict) else lstart
        assert astart is not None
        items = found
        spans, close = _array_spans(text, astart)
    surrogates = _SURROGATE_ESCAPE.search(text) is not None
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
    skip = _WS_RUN.match
    commas = [m.end() for a, b in spans if (m := skip(text, b)) is not None]
    starts = [astart + 1, *(c + 1 for c in commas[:-1])]
    ends = [*commas[:-1], spans[-1][1]] if spans else []
    pieces = [text[a:b] for a, b in zip(starts, ends, strict=True)] if spans else []
    tail_start = spans[-1][1] if spans else astart + 1
    lead = pieces[-1][: len(pieces[-1]) - len(pieces[-1].lstrip(_WS))] if pieces else ""
    layout = Layout(
        format="json",
        head=text[: astart + 1],
        tail=text[tail_start:],
        pieces=tuple(pieces),
        indent=_indent_unit(text, spans, lead),
        lead=lead if pieces else _guess_lead(text, close),
        ascii=text.isascii() and "\\u" in text,
        newline="\n",
        read_only=MEMORY_READ_ONLY if memories else None,
    )
    return settings.pad(entries), layout


def _parse_json_after(path: str, text: str, previous: PadFile) -> tuple[Pad, Layout] | None:
    """A JSON pad read against an earlier version of it: the same head and tail (everything
    before and after the entries), its entries walked in order, each one that is still
    there as it was (the same JSON text) taken over without parsing it, the others parsed.
    None when the text is not so (another head or tail, bad JSON...): then it is read in
    full, which also says what is wrong with it. The result is what a full read gives."""
    old = previous.layout
    olds = previous.pad.entries
    if old.format != "json" or old.read_only is not None or old.md is not None or not olds:
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
            a = _skip(text, pos)
            o = olds[j] if j < len(olds) else None
            source = o.source if o is not None else None
            if source and text.startswith(source, a):  # a JSON object ends where it ends
                b = a + len(source)
                found.append(o)
                j += 1
            else:
                value, b = _SCAN(text, a)
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
            c = _skip(text, b)
            if c >= end or text[c] != ",":
                return None  # not the old tail after the last entry, or not JSON
            commas.append(c)
            pos = c + 1
    except (ValueError, IndexError, StopIteration, RecursionError):
        return None
    entries: list[Entry] = []
    for i, (item, (a, b)) in enumerate(zip(found, spans, strict=True)):
        if isinstance(item, Entry):
            entries.append(item)
            continue
        source = text[a:b]
        surrogates = _SURROGATE_ESCAPE.search(source) is not None
        try:
            entries.append(entry_from(path, item, i, "", source, surrogates=surrogates))
        except PadError:  # again, naming the entry and its line
            entry_from(path, item, i, f"entry {i} (line {text.count(chr(10), 0, a) + 1})", source)
            raise
    starts = [len(old.head), *(c + 1 for c in commas)]
    ends = [*commas, end]
    pieces = [text[a:b] for a, b in zip(starts, ends, strict=True)]
    lead = pieces[-1][: len(pieces[-1]) - len(pieces[-1].lstrip(_WS))]
    layout = Layout(
        format="json",
        head=old.head,
        tail=old.tail,
        pieces=tuple(pieces),
        indent=_indent_unit(text, spans, lead),
        lead=lead,
        ascii=text.isascii() and "\\u" in text,
        newline="\n",
    )
    return Settings.of(previous.pad).pad(entries), layout


def _indent_unit(text: str, spans: list[tuple[int, int]], lead: str) -> str | None:
    """The indentation of a new entry, copied from the first entry's own layout."""
    if not spans:
        return "  " if "\n" in text.strip(_WS) else None
    a, b = spans[0]
    src = text[a:b]
    if "\n" not in src:
        return None
    second = src.split("\n", 1)[1]
    indent = second[: len(second) - len(second.lstrip(" \t"))]
    base = lead.rsplit("\n", 1)[-1]
    return indent[len(base) :] or "  "


def _guess_lead(text: str, close: int) -> str:
    before = text[:close].rstrip(_WS)
    line_start = before.rfind("\n") + 1
    own = before[line_start:]
    indent = own[: len(own) - len(own.lstrip(" \t"))]
    return "\n" + indent + "  " if "\n" in text.strip(_WS) else ""


def _settings(path: str, doc: dict[str, Any]) -> Settings:
    budget = doc.get("budget_tokens")
    if budget is not None and (type(budget) is not int or not 0 <= budget <= MAX_BUDGET):
        raise PadError(path, f'"budget_tokens" {budget_problem(shown(budget))}')
    encoding = doc.get("encoding")
    if encoding is not None and not isinstance(encoding, str):
        raise PadError(path, f'"encoding" must be a string, got {json_type(encoding)}')
    headings = doc.get("rule_headings")
    if headings is None:
        headings = []
    if not isinstance(headings, list):
        raise PadError(
            path, f'"rule_headings" must be an array of strings, got {json_type(headings)}'
        )
    for k, h in enumerate(headings):
        if not isinstance(h, str):
            raise PadError(
                path, f'"rule_headings" must be an array of strings; item {k} is {json_type(h)}'
            )
        _check_text(path, "", "rule_headings", h)
    replace_ = doc.get("rule_headings_replace")
    if replace_ is None:
        replace_ = False
    if not isinstance(replace_, bool):
        raise PadError(
            path, f'"rule_headings_replace" must be true or false, got {json_type(replace_)}'
        )
    return Settings(budget, encoding, tuple(headings), replace_)


def budget_problem(got: str) -> str:
    """What is wrong with a budget that is not one (``got``: the value as shown)."""
    return f"must be a whole number >= 0 (at most {MAX_BUDGET}), got {got}"


def _check_text(path: str, where: str, name: str, value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise PadError(path, f'"{name}" holds an unpaired surrogate escape', where) from None


def _opt_str(path: str, where: str, obj: dict[str, Any], name: str) -> str | None:
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise PadError(path, f'"{name}" must be a string, got {json_type(value)}', where)
    _check_text(path, where, name, value)
    return value


# a lone surrogate can only come from a \uD8xx-\uDFxx escape: without one, no field
# needs the (costly) check that it can be written back as UTF-8
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_MISSING = object()


def entry_from(
    path: str,
    obj: Any,
    index: int,
    where: str,
    source: str | None,
    *,
    surrogates: bool = True,
) -> Entry:
    """Validate one entry object; ``where`` names it in errors.

    ``surrogates=False`` says the document holds no surrogate escape, so that no string of
    it needs checking for a lone surrogate (the check copies every text). The common case,
    strings where strings belong, takes the shortest way: this runs once per entry of what
    may be a very large pad.
    """
    if type(obj) is not dict and not isinstance(obj, dict):
        raise PadError(path, f"an entry must be an object, got {json_type(obj)}", where)
    get = obj.get
    kind = get("kind", _MISSING)
    text = get("text", _MISSING)
    if kind is _MISSING:
        raise PadError(path, 'missing "kind"', where)
    if text is _MISSING:
        raise PadError(path, 'missing "text"', where)
    if type(kind) is not str or type(text) is not str or surrogates:
        kind = _opt_str(path, where, obj, "kind")
        text = _opt_str(path, where, obj, "text")
        if kind is None or text is None:
            raise PadError(path, '"kind" and "text" must be strings, not null', where)
    if not kind:
        raise PadError(path, '"kind" must not be empty', where)
    sealed = get("sealed", False)
    if sealed is not True and sealed is not False:
        if sealed is None:
            sealed = False
        elif not isinstance(sealed, bool):
            raise PadError(path, f'"sealed" must be true or false, got {json_type(sealed)}', where)
    derived = get("derived_from")
    derived_from: tuple[str, ...] = ()
    if derived:
        if not isinstance(derived, list) or not all(isinstance(d, str) for d in derived):
            raise PadError(path, '"derived_from" must be an array of id strings', where)
        if surrogates:
            for d in derived:
                _check_text(path, where, "derived_from", d)
        derived_from = tuple(derived)
    elif derived is not None and not isinstance(derived, list):  # "", 0, false, {}
        raise PadError(path, '"derived_from" must be an array of id strings', where)
    eid = get("id")
    if eid is not None and (surrogates or type(eid) is not str):
        eid = _opt_str(path, where, obj, "id")
    op = get("op")
    if op is not None and (surrogates or type(op) is not str):
        op = _opt_str(path, where, obj, "op")
    return _entry(kind, text, sealed, eid, derived_from, op, index, obj, source)


_new = object.__new__
_set = object.__setattr__


def _entry(
    kind: str,
    text: str,
    sealed: bool,
    id: str | None,
    derived_from: tuple[str, ...],
    op: str | None,
    index: int,
    raw: dict[str, Any],
    source: str | None,
) -> Entry:
    """``Entry(...)``, made the fast way: a frozen dataclass sets its fields one by one through
    ``object.__setattr__``, which is most of the cost of reading a large pad; this sets its
    ``__dict__`` at once (tests check that the two are the same entry, field for field)."""
    e: Entry = _new(Entry)
    _set(
        e,
        "__dict__",
        {
            "kind": kind,
            "text": text,
            "sealed": sealed,
            "id": id,
            "derived_from": derived_from,
            "op": op,
            "index": index,
            "raw": raw,
            "source": source,
            "context": (),
        },
    )
    return e


# --- JSON Lines -----------------------------------------------------------------------------


def _parse_jsonl(path: str, text: str) -> tuple[Pad, Layout]:
    body = text.removeprefix(_BOM)
    head = text[: len(text) - len(body)]
    entries: list[Entry] = []
    pieces: list[str] = []
    pending = ""
    newline = "\r\n" if "\r\n" in body else "\r" if "\r" in body and "\n" not in body else "\n"
    surrogates = _SURROGATE_ESCAPE.search(body) is not None
    for lineno, line in enumerate(_lines(body), start=1):
        if not line.strip(_WS):
            pending += line
            continue
        where = f"line {lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PadError(
                path, f"invalid JSON: {exc.msg}", f"{where}, column {exc.colno}"
            ) from None
        except RecursionError:
            raise PadError(path, "invalid JSON: nested too deeply", where) from None
        except ValueError as exc:  # e.g. an integer past Python's digit limit
            raise PadError(path, f"invalid JSON: {str(exc).split(';')[0]}", where) from None
        stripped = line.rstrip("\r\n")
        source = stripped.strip(_WS)
        entries.append(entry_from(path, obj, len(entries), where, source, surrogates=surrogates))
        pieces.append(pending + line)
        pending = ""
    layout = Layout("jsonl", head, pending, tuple(pieces), None, "", False, newline)
    return Pad.of(entries), layout


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _lines(body: str) -> list[str]:
    """The lines of a JSON Lines text, each with its ending (``\\n``, ``\\r\\n`` or ``\\r``).

    ``str.splitlines()`` would also split on U+2028, U+0085 and the like, which a JSON
    string may hold unescaped; a JSON string never holds a raw CR or LF.
    """
    return _LINE.findall(body)


# --- writing -------------------------------------------------------------------------------


def render(layout: Layout, entries: Sequence[Entry]) -> str:
    """The file's new text: untouched entries keep their source, changed ones are dumped.

    ValueError for a format that is not written back (``.af``), or a new entry that a
    Markdown pad cannot hold as written (see ``markdown.render``).
    """
    if layout.format in READ_ONLY_FORMATS:
        raise ValueError(READ_ONLY_FORMATS[layout.format])
    if layout.read_only is not None:
        raise ValueError(layout.read_only)
    if layout.md is not None:
        from padtui.core import markdown

        return markdown.render(layout.md, entries)
    by_source = _unchanged_pieces(layout, entries)
    if layout.format == "jsonl":
        return _render_jsonl(layout, entries, by_source)
    pieces = [by_source.get(i) or layout.lead + _dump(layout, e) for i, e in enumerate(entries)]
    if not layout.pieces and pieces:
        return layout.head + ",".join(pieces) + _closing_ws(layout) + layout.tail.lstrip(_WS)
    return layout.head + ",".join(pieces) + layout.tail


def _closing_ws(layout: Layout) -> str:
    if "\n" not in layout.lead:
        return ""
    indent = layout.lead.rsplit("\n", 1)[1]
    return "\n" + indent[: len(indent) - len(layout.indent or "")]


def _unchanged_pieces(layout: Layout, entries: Sequence[Entry]) -> dict[int, str]:
    """Entries still carrying their source get their original piece (matched by source)."""
    available: dict[str, list[str]] = {}
    for piece in layout.pieces:
        available.setdefault(piece.strip(_WS), []).append(piece)
    out: dict[int, str] = {}
    for i, e in enumerate(entries):
        if e.source is not None:
            bucket = available.get(e.source)
            if bucket:
                out[i] = bucket.pop(0)
    return out


def _dumps(obj: Any, ascii: bool, indent: str | int | None = None) -> str:
    """``json.dumps``; non-ASCII escaped as the file does, or where a lone surrogate (read
    from a ``\\ud800`` escape in an unknown field) could not be written as UTF-8."""
    text = json.dumps(obj, ensure_ascii=ascii, indent=indent)
    if not ascii:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = json.dumps(obj, ensure_ascii=True, indent=indent)
    return text


def _dump(layout: Layout, entry: Entry) -> str:
    if layout.indent is None:
        return _dumps(entry.as_dict(), layout.ascii)
    dumped = _dumps(entry.as_dict(), layout.ascii, layout.indent)
    base = layout.lead.rsplit("\n", 1)[-1]
    return dumped.replace("\n", "\n" + base)


def _render_jsonl(layout: Layout, entries: Sequence[Entry], by_source: dict[int, str]) -> str:
    out = [layout.head]
    for i, e in enumerate(entries):
        piece = by_source.get(i) or _dumps(e.as_dict(), False) + layout.newline
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


def to_bytes(text: str) -> bytes:
    return text.encode("utf-8")
