"""Is a rewrite no rewrite at all? The same entries in any order, or the same words with
only their white space changed: the audit's verdict is then ``unchanged``, with no check
run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from padtui.core.model import Entry, Pad

_DEFAULTS: dict[str, Any] = {"sealed": False, "derived_from": [], "id": None, "op": None}


def _content(e: Entry) -> dict[str, Any]:
    """An entry's content, whatever the file's formatting: defaults written out or left out
    (``"sealed": false``, ``"derived_from": []``) and key order do not count."""
    out = e.as_dict()
    for key, default in _DEFAULTS.items():
        if key in out and (out[key] == default or out[key] is None):
            del out[key]
    return out


def same_content(
    old: Pad, new: Pad, matches: dict[int, tuple[int, str]], ends: tuple[int, int] = (0, 0)
) -> bool:
    """The same entries, in any order, under the same headings. (``ends``: the entries at
    the two ends paired with themselves, the very objects, looked at no further.)"""
    if len(old.entries) != len(new.entries) or len(matches) != len(old.entries):
        return False  # (an entry came or went: most rewrites, told apart at once)
    head, tail = ends
    between = old.entries[head : len(old.entries) - tail]
    pairs = [(o, new.entries[matches[o.index][0]]) for o in between]
    if not all(a is b or (a.text == b.text and a.context == b.context) for a, b in pairs):
        return False
    key = lambda e: json.dumps([_content(e), list(e.context)], sort_keys=True)  # noqa: E731
    return sorted(map(key, old.entries)) == sorted(map(key, new.entries))


def same_words(old: Pad, new: Pad, ends: tuple[int, int]) -> bool:
    """The same words in the same places, only white space changed (a blank line taken out,
    line endings, indentation): no rewrite at all. The entries the two versions share at
    their ends (``ends``: the very objects) say the same words in both, so only those
    between are compared, with the heading they follow and the first shared entry after."""
    olds, news = old.entries, new.entries
    if len(olds) == len(news) and all(
        a.text == b.text and a.context == b.context for a, b in zip(olds, news, strict=True)
    ):
        return False  # (the same texts: told apart by same_content, not by white space)
    a, t = ends
    head = _head(olds[a - 1]) if a else None
    after = 1 if t else 0  # (its heading is written again when the one before it differs)
    return _flat_words(olds[a : len(olds) - t + after], head) == _flat_words(
        news[a : len(news) - t + after], head
    )


def _head(e: Entry) -> tuple[object, ...]:
    titles = tuple(t for t in e.context if t.strip())  # (an empty "# " heading says nothing)
    return (titles, e.kind, e.sealed, e.id, tuple(e.derived_from))


def _flat_words(entries: Sequence[Entry], head: tuple[object, ...] | None) -> list[str]:
    parts: list[str] = []
    for e in entries:
        now = _head(e)
        if now != head:
            parts.append(repr(now))
            head = now
        parts.append(e.text)
    return " ".join(parts).split()
