"""Claims, counted by the compaction and the audit: a claim is a sentence or a bullet line
of an entry's text."""

from __future__ import annotations

import re
import zlib
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


# Counting claims without building them (a large pad has tens of thousands of entries): a
# claim is a piece between delimiters that holds a letter or digit. A delimiter is a line
# break, or one of ``. ! ? ;`` followed by white space (taken here with the mark: the mark is
# no letter, so no piece changes its standing). Each pattern opens with a character class,
# which the regex engine scans for quickly, and is possessive, so that no input makes it
# backtrack. A numbered bullet's number ("1." opening a line) is a piece here and not a claim
# in ``split_claims`` (it stays with its line), so numbered lines are taken off again.
_PIECE_TO_WORD = r"(?:[^\w.!?;\r\n]|[.!?;](?!\s))*+\w"
_FIRST_WORDY = re.compile(_PIECE_TO_WORD)
_NEXT_WORDY = re.compile(r"[.!?;\r\n](?:(?<=[\r\n])|(?=\s))\s*+" + _PIECE_TO_WORD)
_FIRST_NUMBERED = re.compile(r"[^\S\r\n]*+\d+\.(?:[^\S\r\n]+|(?=[\r\n])|\Z)")
_NEXT_NUMBERED = re.compile(r"[\r\n][^\S\r\n]*+\d+\.(?:[^\S\r\n]+|(?=[\r\n])|\Z)")


# What a claim is, for the count cache (padtui/core/countcache.py): a count cached under other
# rules is not used. The patterns are in it; raise the number when the code counting changes.
_PATTERNS: tuple[re.Pattern[str], ...] = (_LINES, _SENTENCES, _WORDY, _NUMBERED)
_PATTERNS += (_FIRST_WORDY, _NEXT_WORDY, _FIRST_NUMBERED, _NEXT_NUMBERED)
CLAIM_RULES = "1-" + format(zlib.crc32("\0".join(p.pattern for p in _PATTERNS).encode()), "08x")


@lru_cache(maxsize=200_000)
def count_claims(text: str) -> int:
    """``len(split_claims(text))``, four times faster."""
    n = len(_NEXT_WORDY.findall(text))
    if _FIRST_WORDY.match(text):
        n += 1
    if _FIRST_NUMBERED.match(text):
        n -= 1
    if "\n" in text or "\r" in text:
        n -= len(_NEXT_NUMBERED.findall(text))
    return n


def pad_claims(entries: Iterable[Entry]) -> int:
    """Claims of a pad: every entry's, loss records included (they are in the pad too)."""
    return sum(map(count_claims, [e.text for e in entries]))
