"""What two versions share at their start and at their end: the very objects of two
sequences (entries, rows, strings), or the characters of two texts. A live pad's new version
is mostly its version before; what lies between the two runs is what changed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress, count, islice
from operator import is_not


def common_ends(old: Sequence[object], new: Sequence[object]) -> tuple[int, int]:
    """How many items the two share, as the very objects, at their start and then at their
    end (the two runs never overlap). (Compared in C: a large pad's rows cost their changes.)"""
    n = min(len(old), len(new))
    # (the place of the first pair that differs, found without a list of the comparisons)
    a = next(compress(count(), map(is_not, old, new)), n)
    m = n - a
    t = next(compress(count(), islice(map(is_not, reversed(old), reversed(new)), m)), m)
    return a, t


# common_text_ends compares whole blocks of this many characters, then halves the first
# block that differs: each comparison is a copy and a compare in C, so a large pad's two
# versions are compared in a few dozen steps, not character by character
_BLOCK = 1 << 16


def common_text_ends(old: str, new: str) -> tuple[int, int]:
    """How many characters the two texts share at their start, and then at their end (the
    two runs never overlap)."""
    n = min(len(old), len(new))
    a = _common_run(n, lambda i, j: old[i:j] == new[i:j])
    m = n - a
    lo, ho = len(old), len(new)
    t = _common_run(m, lambda i, j: old[lo - j : lo - i] == new[ho - j : ho - i])
    return a, t


def _common_run(n: int, same: Callable[[int, int], bool]) -> int:
    """The largest k <= n such that ``same(0, k)``, given that ``same(i, j)`` compares the
    characters from i to j (counted from the end they share) and that runs concatenate."""
    lo = 0
    while lo < n:
        hi = min(lo + _BLOCK, n)
        if not same(lo, hi):
            while hi - lo > 1:  # (same(0, lo) holds, same(0, hi) does not)
                mid = (lo + hi) // 2
                if same(lo, mid):
                    lo = mid
                else:
                    hi = mid
            return lo
        lo = hi
    return n
