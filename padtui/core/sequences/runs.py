"""A long list (a pad's texts, its entries) cut into runs, each run hashed: a list as it was
is found again by its runs' hashes, and a list that changed in a few places run by run, so
that only the items of the runs that changed are hashed one by one (an edit or two of a large
pad: the entries beside them; 1 % of its entries changed at random: about a quarter of them).

Runs come in two sizes. Short runs (:data:`RUN` items on average) are hashed, each once; a long
run (:data:`LONG` items on average) is hashed from the hashes of its short runs. Long runs are
sought first: few, so a list as it was is found by a few comparisons. Only where a long run is
not found again are its short runs sought among those the list had before. Either way every
item is hashed once.

A run ends after an item whose length is a multiple of its size (once it holds a quarter of
its size of items), or after four times its size of items: where runs end depends on the
items near the end alone, so an item added or removed moves only the runs beside it, not all
those after it. Short runs are cut within
each long run, and each run's hash holds how many items it has and their lengths.
"""

from __future__ import annotations

import hashlib
from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import compress, pairwise
from operator import not_
from typing import Any

RUN = 16  # items a short run holds, on average, in a list of varied lengths
LONG = 4 * RUN  # ... and a long run
KEY = 16  # bytes of a hash

# feed the items from start to end to a hash
Digest = Callable[[Any, int, int], None]


@dataclass(frozen=True)
class Runs:
    """Where each long run of a list ends (the index after its last item) and each one's
    hash; the same of its short runs (every long run's end is a short run's end)."""

    ends: Sequence[int]
    digests: Sequence[bytes]
    short_ends: Sequence[int]
    short_digests: Sequence[bytes]

    def valid(self, n: int) -> bool:
        """Do these runs tile a list of ``n`` items, long and short alike?"""
        for ends in (self.ends, self.short_ends):
            if not ends or ends[0] <= 0 or ends[-1] != n:
                return False
            if any(a >= b for a, b in pairwise(ends)):
                return False
        return set(self.ends) <= set(self.short_ends)


def cut(lengths: Sequence[int], size: int, start: int, stop: int) -> list[int]:
    """Where each run of ``size`` items on average ends, of the items from ``start`` to
    ``stop`` of a list of items of these lengths (a run holds at least a quarter of ``size``
    items but the last: items whose lengths are all multiples of ``size`` make no more runs
    than that)."""
    return _cut(_marks(lengths, size, start, stop), size, start, stop)


def _marks(lengths: Sequence[int], size: int, start: int = 0, stop: int | None = None) -> list[int]:
    """The end of each item from ``start`` to ``stop`` whose length is a multiple of
    ``size`` (the index after it): where a run of that size may end."""
    stop = len(lengths) if stop is None else stop
    multiples = map(not_, map(size.__rmod__, lengths[start:stop]))  # (a loop in C)
    return list(compress(range(start + 1, stop + 1), multiples))


def _cut(marks: Sequence[int], size: int, start: int, stop: int) -> list[int]:
    """``cut``, from the ``_marks`` of its items."""
    out: list[int] = []
    last, shortest, longest = start, max(size // 4, 1), 4 * size
    for end in (*marks, stop):
        while end - last > longest:
            last += longest
            out.append(last)
        if end - last >= shortest or (end == stop > last):
            out.append(end)
            last = end
    return out


def _hashed(seed: Any, digest: Digest, start: int, ends: list[int]) -> list[bytes]:
    out = []
    for end in ends:
        h = seed.copy()
        digest(h, start, end)
        out.append(h.digest()[:KEY])
        start = end
    return out


def of(seed: bytes, lengths: Sequence[int], digest: Digest) -> Runs:
    """The runs of a list of items of these lengths, with ``digest`` (feeding a hash begun
    with ``seed``: SHA-256, which hashes long input fastest here)."""
    base = hashlib.sha256(seed)
    ends, short_ends = _cuts(lengths)
    short_digests = _hashed(base, digest, 0, short_ends)
    return Runs(
        ends, _long_digests(base, ends, short_ends, short_digests), short_ends, short_digests
    )


def _cuts(lengths: Sequence[int]) -> tuple[list[int], list[int]]:
    """Where each long run ends, and each short run (cut within each long one)."""
    marks = _marks(lengths, RUN)
    ends = _cut([n for n in marks if not lengths[n - 1] % LONG], LONG, 0, len(lengths))
    short_ends: list[int] = []
    start, i = 0, 0
    for end in ends:
        j = bisect_right(marks, end, i)
        short_ends += _cut(marks[i:j], RUN, start, end)
        start, i = end, j
    return ends, short_ends


def _long_digests(
    base: Any, ends: list[int], short_ends: list[int], short_digests: list[bytes]
) -> list[bytes]:
    """Each long run's hash, of its short runs' hashes: the items are hashed once, in their
    short runs (which hold how many items each has, and their lengths)."""
    out = []
    i = 0
    for end in ends:
        j = bisect_right(short_ends, end, i)
        h = base.copy()
        h.update(b"\1long" + b"".join(short_digests[i:j]))
        out.append(h.digest()[:KEY])
        i = j
    return out


def match(
    seed: bytes, lengths: Sequence[int], digest: Digest, before: Runs
) -> tuple[Runs, list[tuple[int, int, int]]]:
    """The runs of a list (as :func:`of` gives), and the runs that the list ``before`` had
    too: (start, end, start before) each. A list as it was is ``before`` itself."""
    base = hashlib.sha256(seed)
    n = len(lengths)
    ends, short_ends = _cuts(lengths)
    short_digests = _hashed(base, digest, 0, short_ends)
    digests = _long_digests(base, ends, short_ends, short_digests)
    if digests == list(before.digests) and list(ends) == list(before.ends):
        return before, [(0, n, 0)] if n else []
    long_at = dict(zip(before.digests, [0, *before.ends][:-1], strict=True))
    short_at: dict[bytes, int] | None = None
    again: list[tuple[int, int, int]] = []
    start, i = 0, 0
    for end, d in zip(ends, digests, strict=True):
        j = bisect_right(short_ends, end, i)
        was = long_at.get(d)
        if was is not None:
            again.append((start, end, was))
        else:
            if short_at is None:
                old = before.short_ends
                short_at = dict(zip(before.short_digests, [0, *old][:-1], strict=True))
            at = start
            for e, sd in zip(short_ends[i:j], short_digests[i:j], strict=True):
                if (w := short_at.get(sd)) is not None:
                    again.append((at, e, w))
                at = e
        start, i = end, j
    return Runs(ends, digests, short_ends, short_digests), again


def strings_digest(h: Any, strings: Sequence[str]) -> None:
    """Feed a list of strings to the hash ``h``, so that no other list feeds the same bytes:
    how many, their lengths, then their characters."""
    h.update(array("Q", [len(strings), *map(len, strings)]).tobytes())
    if len(strings) <= 256:  # (a run's)
        h.update("".join(strings).encode("utf-8", "surrogatepass"))
        return
    for at in range(0, len(strings), 256):  # (in pieces: one copy of a large pad costs more)
        h.update("".join(strings[at : at + 256]).encode("utf-8", "surrogatepass"))


def texts_digest(texts: Sequence[str]) -> Digest:
    """The digest of the runs of a list of texts."""

    def digest(h: Any, start: int, end: int) -> None:
        strings_digest(h, texts[start:end])

    return digest
