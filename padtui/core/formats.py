"""Reading and writing pad files (SPEC section 1): JSON and JSON Lines.

A pad is read together with its *layout*: the exact text around and between its entries.
Writing back reuses the source text of every entry that did not change, so a commit changes
nothing but what it means to change (unknown fields, key order, indentation, line endings).
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from padtui.core.errors import PadError
from padtui.core.model import Entry, Pad

MAX_PAD_BYTES = 64 * 1024 * 1024
FORMATS = {".json": "json", ".jsonl": "jsonl", ".md": "md"}
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
    whole: dict[str, Any] | None = None  # JSON object form without "entries": re-dumped


@dataclass(frozen=True)
class PadFile:
    """A pad as read from disk: the parsed pad, its layout and the exact bytes."""

    path: str
    pad: Pad
    layout: Layout
    data: bytes


def format_of(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        raise PadError(
            path,
            f"unsupported format {ext or '(no extension)'!r}; "
            "padtui reads .json, .jsonl and .md pads",
        )
    return FORMATS[ext]


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


def load(path: str) -> PadFile:
    """Read and parse a pad file. Bad input raises PadError, never anything else."""
    if os.path.isdir(path):
        raise PadError(path, "is a directory, not a pad file")
    fmt = format_of(path)
    data = read_bytes(path)
    return parse(path, data, fmt)


def parse(path: str, data: bytes, fmt: str | None = None) -> PadFile:
    fmt = fmt or format_of(path)
    text = decode(path, data)
    if fmt == "json":
        pad, layout = _parse_json(path, text)
    elif fmt == "jsonl":
        pad, layout = _parse_jsonl(path, text)
    else:
        raise PadError(path, "Markdown pads are not supported yet; use .json or .jsonl")
    return PadFile(path, pad, layout, data)


def decode(path: str, data: bytes) -> str:
    nul = data.find(b"\0")
    if nul >= 0:
        raise PadError(path, "binary file (NUL byte)", f"byte {nul}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PadError(path, "not valid UTF-8", f"line {line}, byte {exc.start}") from None
    if not text.strip(_WS + _BOM):
        raise PadError(path, "empty file: a pad needs at least [] or {}")
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


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _value_end(text: str, i: int) -> int:
    return json.JSONDecoder().raw_decode(text, i)[1]


def _entries_span(text: str, start: int) -> int | None:
    """In a top-level object at ``start``, the position of the "entries" array's ``[``."""
    found = None
    i = _skip(text, start + 1)
    decoder = json.JSONDecoder()
    while i < len(text) and text[i] != "}":
        key, i = decoder.raw_decode(text, i)
        i = _skip(text, _skip(text, i) + 1)  # past ":"
        if key == "entries":
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


def _parse_json(path: str, text: str) -> tuple[Pad, Layout]:
    doc = _loads(path, text)
    lstart = len(text) - len(text.lstrip(_WS + _BOM))
    budget = encoding = None
    if isinstance(doc, dict):
        budget, encoding = _settings(path, doc)
        if "entries" not in doc:
            layout = Layout("json", text, "", (), "  ", "\n  ", False, "\n", whole=doc)
            return Pad.of((), budget, encoding), layout
        items = doc["entries"]
        if not isinstance(items, list):
            raise PadError(path, f'"entries" must be an array, got {_kind(items)}')
        astart = _entries_span(text, lstart)
        assert astart is not None
    elif isinstance(doc, list):
        items, astart = doc, lstart
    else:
        raise PadError(
            path, f'expected an array of entries or an object with "entries", got {_kind(doc)}'
        )
    spans, close = _array_spans(text, astart)
    entries = []
    pieces = []
    prev = astart + 1
    line, seen = 1, 0
    for i, ((a, b), obj) in enumerate(zip(spans, items, strict=True)):
        line, seen = line + text.count("\n", seen, a), a
        where = f"entry {i} (line {line})"
        # white space between an entry and its "," stays with the entry (the last entry's
        # goes to the tail), so that an unchanged pad renders byte for byte
        piece = text[prev : b if i == len(spans) - 1 else _skip(text, b)]
        entries.append(entry_from(path, obj, i, where, text[a:b]))
        pieces.append(piece)
        prev = _skip(text, b) + 1  # past ","
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
    )
    return Pad.of(entries, budget, encoding), layout


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


def _settings(path: str, doc: dict[str, Any]) -> tuple[int | None, str | None]:
    budget = doc.get("budget_tokens")
    if budget is not None and (type(budget) is not int or budget < 0):
        raise PadError(path, f'"budget_tokens" must be a whole number >= 0, got {budget!r}')
    encoding = doc.get("encoding")
    if encoding is not None and not isinstance(encoding, str):
        raise PadError(path, f'"encoding" must be a string, got {_kind(encoding)}')
    return budget, encoding


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


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
        raise PadError(path, f'"{name}" must be a string, got {_kind(value)}', where)
    _check_text(path, where, name, value)
    return value


def entry_from(path: str, obj: Any, index: int, where: str, source: str | None) -> Entry:
    """Validate one entry object; ``where`` names it in errors."""
    if not isinstance(obj, dict):
        raise PadError(path, f"an entry must be an object, got {_kind(obj)}", where)
    for name in ("kind", "text"):
        if name not in obj:
            raise PadError(path, f'missing "{name}"', where)
    kind = _opt_str(path, where, obj, "kind")
    text = _opt_str(path, where, obj, "text")
    if kind is None or text is None:
        raise PadError(path, '"kind" and "text" must be strings, not null', where)
    if not kind:
        raise PadError(path, '"kind" must not be empty', where)
    sealed = obj.get("sealed", False)
    if sealed is None:
        sealed = False
    if not isinstance(sealed, bool):
        raise PadError(path, f'"sealed" must be true or false, got {_kind(sealed)}', where)
    derived = obj.get("derived_from")
    if derived is None:
        derived = []
    if not isinstance(derived, list) or not all(isinstance(d, str) for d in derived):
        raise PadError(path, '"derived_from" must be an array of id strings', where)
    for d in derived:
        _check_text(path, where, "derived_from", d)
    return Entry(
        kind=kind,
        text=text,
        sealed=sealed,
        id=_opt_str(path, where, obj, "id"),
        derived_from=tuple(derived),
        op=_opt_str(path, where, obj, "op"),
        index=index,
        raw=obj,
        source=source,
    )


# --- JSON Lines -----------------------------------------------------------------------------


def _parse_jsonl(path: str, text: str) -> tuple[Pad, Layout]:
    body = text.removeprefix(_BOM)
    head = text[: len(text) - len(body)]
    entries: list[Entry] = []
    pieces: list[str] = []
    pending = ""
    newline = "\r\n" if "\r\n" in body else "\r" if "\r" in body and "\n" not in body else "\n"
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
        entries.append(entry_from(path, obj, len(entries), where, stripped.strip(_WS)))
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
    """The file's new text: untouched entries keep their source, changed ones are dumped."""
    if layout.whole is not None:
        if not entries:
            return layout.head
        doc = dict(layout.whole)
        doc["entries"] = [e.as_dict() for e in entries]
        bom = _BOM if layout.head.startswith(_BOM) else ""
        return bom + _dumps(doc, False, 2) + "\n"
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
