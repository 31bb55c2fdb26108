"""Entries and settings as JSON objects hold them (a JSON pad, a JSON Lines line): read and
checked into padtui's records, and written back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from padtui.core.errors import PadError, json_type, shown
from padtui.core.formats.base import MAX_BUDGET, Format, Layout, Settings, budget_problem
from padtui.core.formats.jsonscan import WS
from padtui.core.model import Entry

_MISSING = object()


class JsonObjects(Format):
    """What the formats whose entries are JSON objects share: every field of an entry is
    written back, and an entry is what its source text says."""

    keeps_fields = True
    entry_is_source = True
    empty = "empty file: a pad needs at least [] or {}"


def check_text(path: str, where: str, name: str, value: str) -> None:
    """PadError when the string ``value`` of field ``name`` could not be written as UTF-8."""
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
    check_text(path, where, name, value)
    return value


def settings_from(path: str, doc: dict[str, Any]) -> Settings:
    """The settings a pad's JSON object holds, checked."""
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
        check_text(path, "", "rule_headings", h)
    replace_ = doc.get("rule_headings_replace")
    if replace_ is None:
        replace_ = False
    if not isinstance(replace_, bool):
        raise PadError(
            path, f'"rule_headings_replace" must be true or false, got {json_type(replace_)}'
        )
    return Settings(
        budget_tokens=budget,
        encoding=encoding,
        rule_headings=tuple(headings),
        rule_headings_replace=replace_,
    )


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
                check_text(path, where, "derived_from", d)
        derived_from = tuple(derived)
    elif derived is not None and not isinstance(derived, list):  # "", 0, false, {}
        raise PadError(path, '"derived_from" must be an array of id strings', where)
    eid = get("id")
    if eid is not None and (surrogates or type(eid) is not str):
        eid = _opt_str(path, where, obj, "id")
    op = get("op")
    if op is not None and (surrogates or type(op) is not str):
        op = _opt_str(path, where, obj, "op")
    return fast_entry(kind, text, sealed, eid, derived_from, op, index, obj, source)


_new = object.__new__
_set = object.__setattr__


def fast_entry(
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
    ``__dict__`` at once (tests check that the two are the same entry, field for field). It
    is ``model.made_whole`` written out: a call more for each entry read costs 3 % of the
    read of a pad of 20,000 entries."""
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


def unchanged_pieces(layout: Layout, entries: Sequence[Entry]) -> dict[int, str]:
    """Entries still carrying their source get their original piece (matched by source)."""
    available: dict[str, list[str]] = {}
    for piece in layout.pieces:
        available.setdefault(piece.strip(WS), []).append(piece)
    out: dict[int, str] = {}
    for i, e in enumerate(entries):
        if e.source is not None:
            bucket = available.get(e.source)
            if bucket:
                out[i] = bucket.pop(0)
    return out


def dumps(obj: Any, ascii: bool, indent: str | int | None = None) -> str:
    """``json.dumps``; non-ASCII escaped as the file does, or where a lone surrogate (read
    from a ``\\ud800`` escape in an unknown field) could not be written as UTF-8."""
    text = json.dumps(obj, ensure_ascii=ascii, indent=indent)
    if not ascii:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = json.dumps(obj, ensure_ascii=True, indent=indent)
    return text
