"""Claims (SPEC section 3): a claim is a sentence or a bullet line of an entry's text."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from padtui.core.model import Entry

_LINES = re.compile(r"[\r\n]+")
_SENTENCES = re.compile(r"(?<=[.!?;])\s+")
_WORDY = re.compile(r"\w")
_NUMBERED = re.compile(r"\s*\d+\.(?:\s+|$)")  # "1. " opening a numbered bullet line


def split_claims(text: str) -> list[str]:
    """The claims of a text: pieces split on line breaks and on ``. ! ? ;`` + white space.

    A piece with no letter or digit in it (a lone bullet mark, an ellipsis) is not a claim,
    and the number of a numbered bullet stays with its line: ``1. fetch`` is one claim.
    """
    claims: list[str] = []
    for line in _LINES.split(text):
        mark = _NUMBERED.match(line)
        start = mark.end() if mark else 0
        for i, piece in enumerate(_SENTENCES.split(line[start:])):
            if _WORDY.search(piece):
                claims.append((line[:start] + piece if i == 0 else piece).strip())
    return claims


@lru_cache(maxsize=200_000)
def count_claims(text: str) -> int:
    return len(split_claims(text))


def pad_claims(entries: Iterable[Entry]) -> int:
    """Claims of a pad: every entry's, loss records included (they are in the pad too)."""
    return sum(count_claims(e.text) for e in entries)
