"""The shapes memory tools export as JSON (an array of strings, or of objects holding their
text under ``memory``, ``content``, ...; or an object with ``memories``): read by the JSON
format as notes, read-only."""

from __future__ import annotations

from typing import Any

from padtui.core.errors import PadError, json_type
from padtui.core.formats.objects import check_text, fast_entry
from padtui.core.model import Entry

# where a memory object of a memory tool's export keeps its text, in the order looked for
MEMORY_TEXT_KEYS = ("memory", "content", "text", "value", "data")
MEMORY_READ_ONLY = (
    "padtui reads this memory export read-only (a memory tool's own shape, not a pad): "
    "change its memories in the tool that wrote them"
)


def _text_key(obj: dict[str, Any]) -> str | None:
    for key in MEMORY_TEXT_KEYS:
        if isinstance(obj.get(key), str):
            return key
    return None


def is_memory_list(items: list[Any]) -> bool:
    """Is a bare array a memory tool's export (strings, or objects with their text under
    ``memory``, ``content``, ``text``, ``value`` or ``data`` and no ``kind``)? Decided by
    its first item; an array in which some object has a ``kind`` is a pad of entries."""
    if not items:
        return False
    first = items[0]
    if isinstance(first, dict) and (_text_key(first) is None or "kind" in first):
        return False
    if not isinstance(first, str | dict):
        return False
    return not any(isinstance(x, dict) and "kind" in x for x in items)


def memory_entry(path: str, obj: Any, index: int, where: str, source: str | None) -> Entry:
    """One memory of a memory tool's export, as an entry of kind ``note`` (an object's
    string ``id`` is its id; every field of the object is kept in ``raw``)."""
    if isinstance(obj, str):
        check_text(path, where, "memory", obj)
        return fast_entry("note", obj, False, None, (), None, index, {}, source)
    if not isinstance(obj, dict):
        raise PadError(
            path,
            "a memory must be a string, or an object with its text in "
            f"{', '.join(MEMORY_TEXT_KEYS)}; got {json_type(obj)}",
            where,
        )
    key = _text_key(obj)
    if key is None:
        raise PadError(
            path,
            f"a memory object needs its text (a string) in {', '.join(MEMORY_TEXT_KEYS)}",
            where,
        )
    text = obj[key]
    check_text(path, where, key, text)
    eid = obj.get("id")
    if isinstance(eid, str):
        check_text(path, where, "id", eid)
    else:
        eid = None
    return fast_entry("note", text, False, eid, (), None, index, obj, source)
