"""The one JSON scanner of the formats that are JSON (a JSON pad, a JSON Lines line, a Letta
agent file): reading a document with the one error line a person sees, and finding where
its values lie in the text (which a write needs, to keep every untouched entry's bytes)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from padtui.core.errors import PadError

WS = " \t\n\r"  # JSON's white space
_WS_RUN = re.compile(r"[ \t\n\r]*")
_AFTER_VALUE = re.compile(r"[ \t\n\r]*([,\]])[ \t\n\r]*")
_DECODER = json.JSONDecoder()
# the json module's own scanner of one value at a position (what raw_decode calls; its
# StopIteration is raw_decode's "Expecting value")
SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
# a lone surrogate can only come from a \uD8xx-\uDFxx escape: without one, no field
# needs the (costly) check that it can be written back as UTF-8
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
# what the one-pass scan raises on a text it does not read (json.loads then says why)
NOT_READ = (ValueError, IndexError, StopIteration, RecursionError)


def loads(path: str, text: str, *, line: str | None = None, what: str = "") -> Any:
    """``json.loads``, its errors a one-line PadError: ``what`` goes before the problem,
    ``line`` (a JSON Lines line) names the place, else the error's line and column do."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}" if line is None else line
        raise PadError(
            path, f"{what}invalid JSON: {exc.msg}", f"{where}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise PadError(path, f"{what}invalid JSON: nested too deeply", line) from None
    except ValueError as exc:  # e.g. an integer past Python's digit limit
        raise PadError(path, f"{what}invalid JSON: {str(exc).split(';')[0]}", line) from None


def has_surrogate_escape(text: str) -> bool:
    """May a string of this JSON text hold a lone surrogate (from a ``\\ud800`` escape)?"""
    return _SURROGATE_ESCAPE.search(text) is not None


def skip(text: str, i: int) -> int:
    """The position of the first character at or after ``i`` that is not white space."""
    m = _WS_RUN.match(text, i)  # a "*" pattern always matches
    return m.end() if m is not None else i


def value_end(text: str, i: int) -> int:
    """Where the (valid) JSON value that starts at ``i`` ends."""
    return _DECODER.raw_decode(text, i)[1]


class NotPlain(ValueError):
    """The one-pass scan met something it does not read: json.loads says what is wrong."""


Scan = tuple[Any, int | None, list[tuple[int, int]], list[Any], int]


def scan_document(text: str, start: int, key: str = "entries") -> Scan:
    """Read a JSON document in one pass: the document, the position of its array's ``[``
    (the document itself, or the array under ``key`` of an object; None without one), each
    element's span and value, and the position of the array's ``]``.

    It accepts exactly what ``json.loads`` accepts (every value goes through the json
    module's own scanner; this only walks the punctuation between them) and raises one of
    :data:`NOT_READ` on anything else.
    """
    scan = SCAN
    astart: int | None = None
    items: list[Any] = []
    spans: list[tuple[int, int]] = []
    close = -1
    if text[start] == "[":
        astart = start
        items, spans, close = scan_array(text, start)
        doc: Any = items
        end = close + 1
    elif text[start] == "{":
        obj: dict[str, Any] = {}
        i = skip(text, start + 1)
        while text[i] != "}" or obj:
            if text[i] != '"':
                raise NotPlain
            name, i = scan(text, i)
            i = skip(text, i)
            if text[i] != ":":
                raise NotPlain
            i = skip(text, i + 1)
            if name == key and text[i] == "[":
                astart = i
                items, spans, close = scan_array(text, i)
                obj[name], i = items, close + 1
            else:
                if name == key:
                    astart = None  # a later one wins, as in json.loads
                obj[name], i = scan(text, i)
            i = skip(text, i)
            if text[i] == "}":
                break
            if text[i] != ",":
                raise NotPlain
            i = skip(text, i + 1)
        doc, end = obj, i + 1
    else:
        raise NotPlain
    if skip(text, end) != len(text):
        raise NotPlain
    return doc, astart, spans, items, close


def scan_array(text: str, start: int) -> tuple[list[Any], list[tuple[int, int]], int]:
    """The values of the array at ``start``, their spans, and the position of its ``]``."""
    scan = SCAN
    after = _AFTER_VALUE.match
    items: list[Any] = []
    spans: list[tuple[int, int]] = []
    i = skip(text, start + 1)
    if text[i] == "]":
        return items, spans, i
    while True:
        value, end = scan(text, i)
        items.append(value)
        spans.append((i, end))
        m = after(text, end)
        if m is None:
            raise NotPlain
        if m.group(1) == "]":
            return items, spans, m.start(1)
        i = m.end()


def member(text: str, start: int, name: str) -> int | None:
    """In the (valid) JSON object at ``start``, where the value of ``name`` starts (the last
    one, as ``json.loads`` keeps the last of duplicate keys); None without one, or when no
    object starts at ``start``."""
    if start >= len(text) or text[start] != "{":
        return None
    found = None
    i = skip(text, start + 1)
    while text[i] == '"':
        key, i = _DECODER.raw_decode(text, i)
        i = skip(text, skip(text, i) + 1)  # past ":"
        if key == name:
            found = i
        i = skip(text, value_end(text, i))
        if text[i] == ",":
            i = skip(text, i + 1)
    return found


def array_spans(text: str, start: int) -> tuple[list[tuple[int, int]], int] | None:
    """The element spans of the (valid) JSON array at ``start`` and the position of its
    ``]``; None when no array starts at ``start``."""
    if start >= len(text) or text[start] != "[":
        return None
    spans = []
    i = skip(text, start + 1)
    while text[i] != "]":
        end = value_end(text, i)
        spans.append((i, end))
        i = skip(text, end)
        if text[i] == ",":
            i = skip(text, i + 1)
    return spans, i
