"""Claims (SPEC section 3): a claim is a sentence or a bullet line of an entry's text."""

from __future__ import annotations

import re
from functools import lru_cache
from collections.abc import Iterable

from padtui.core.model import Entry

_SPLIT = re.compile(r"[\r\n]+|(?<=[.!?;])\s+")
_WORDY = re.compile(r"\w")


def split_claims(text: str) -> list[str]:
    """The claims of a text: pieces split on line breaks and on ``. ! ? ;`` + white space.

    A piece with no letter or digit in it (a lone bullet mark, an ellipsis) is not a claim.
    """
    return [p.strip() for p in _SPLIT.split(text) if _WORDY.search(p)]


@lru_cache(maxsize=200_000)
def count_claims(text: str) -> int:
    return len(split_claims(text))


def pad_claims(entries: Iterable[Entry]) -> int:
    """Claims of a pad: every entry's, loss records included (they are in the pad too)."""
    return sum(count_claims(e.text) for e in entries)
