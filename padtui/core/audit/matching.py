"""Matching the entries of two versions of a pad: by id, exact text, then close text."""

from __future__ import annotations

import bisect
import heapq
import re
import threading
from array import array
from collections import defaultdict, deque
from collections.abc import Iterator, Mapping, Sequence
from difflib import SequenceMatcher
from itertools import compress, repeat
from operator import and_, attrgetter, eq, is_, itemgetter, not_, sub

from padtui.core.model import Entry, Pad
from padtui.core.sequences.ends import common_ends

CLOSE_ENOUGH = 0.6  # SequenceMatcher ratio of a small edit
CLOSE_COVERED = 0.85  # ...or this much of the old text kept, in a text at least
CLOSE_FLOOR = 0.4  # this close overall (an entry extended in place)
_CROSS_REGION = 0.1  # penalty on a close pair of a sealed and an unsealed entry
# close matching is not quadratic: an entry's rarest words pick its candidates, looking at
# most at the entries nearest in position for a common word; the candidates sharing most
# words are ranked by word overlap, and only the best few are compared character-wise
_RARE_WORDS = 6
_POSTING_CAP = 400
_CANDIDATES = 24
_TRIES = 4
_TRY_FLOOR = 0.75  # (those with at least this share of the best one's word overlap)


# --- matching ------------------------------------------------------------------------------

_WORD = re.compile(r"\w{3,}")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def match(old: Pad, new: Pad) -> dict[int, tuple[int, str]]:
    """Pair old entries with new ones: by id, then exact kind+text, then close text.

    Close text pairs entries of the same kind only, never two entries that carry different
    ids (an id is the entry's identity), and never unsealed loss records: records of two
    different losses read alike, and a new one must not pass for an old one edited (a sealed
    record edited is reported as such, so sealed ones may pair).

    A live pad's new version holds most of the version before's entries, as the very
    objects, at its start and its end (``inspection.shared``). Where the steps would pair
    those with themselves (see ``_ends_pair_themselves``), they are, and the steps go over
    the entries between alone: the pairing costs what changed. It is the same pairing.
    """
    return match_ends(old, new)[0]


def match_ends(old: Pad, new: Pad) -> tuple[dict[int, tuple[int, str]], tuple[int, int]]:
    """:func:`match`, and how many entries at the start and at the end of the two versions
    are the very objects, each paired with itself ((0, 0) when the pairing went over all)."""
    olds, news = old.entries, new.entries
    a, t = common_ends(olds, news)
    if (a or t) and _ends_pair_themselves(olds, news, a, t):
        ends = [*olds[:a], *olds[len(olds) - t :]]
        at = list(map(_INDEX, ends))
        hows = map(_HOWS.__getitem__, map(is_, map(_ID, ends), repeat(None)))
        found = dict(zip(at, zip(at, hows, strict=True), strict=True))
        taken = set(at)
        _pair(olds[a : len(olds) - t], news[a : len(news) - t], found, taken, old, new)
        return found, (a, t)
    found, taken = {}, set()
    _pair(olds, news, found, taken, old, new)
    return found, (0, 0)


_INDEX = attrgetter("index")
_ID = attrgetter("id")
_TEXT = attrgetter("text")
_HOWS = ("id", "exact")  # (by whether the entry has no id)
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


def _ends_pair_themselves(olds: Sequence[Entry], news: Sequence[Entry], a: int, t: int) -> bool:
    """Would the steps pair each entry the two versions share at their ends (``a`` at the
    start, ``t`` at the end) with itself? They would when no id is held twice in either
    version, and no entry between the ends has the text of an entry of the end: by id, an
    entry's id names it alone; by exact text, the k-th entry of a text in the old version
    takes the k-th in the new, and the entries before the ones between are all paired before
    any of those is looked at. (Those after are not: an entry between with the text of one
    after could take its place, or be taken by it.) Otherwise the steps go over them all."""
    if not (_ids_unique(olds) and _ids_unique(news)):
        return False
    after = olds[len(olds) - t :]
    between = [*olds[a : len(olds) - t], *news[a : len(news) - t]]
    if not after or not between:
        return True
    if len(between) > 8:  # (a set of the texts after, rather than a look at each)
        texts = set(map(_TEXT, after))
        return not any(e.text in texts for e in between)
    return not any(e.text in map(_TEXT, after) for e in between)


_unique: dict[int, tuple[Sequence[Entry], bool]] = {}  # by the entries' identity (held)
_UNIQUE_KEPT = 8
_unique_guard = threading.Lock()  # (the fleet's readers audit in threads at once)


def _ids_unique(entries: Sequence[Entry]) -> bool:
    """No id is held by two of these entries (remembered for the last few versions: a live
    pad's version is the new one of an audit, then the old one of the next)."""
    with _unique_guard:
        hit = _unique.get(id(entries))
    if hit is not None and hit[0] is entries:
        return hit[1]
    ids = list(map(_ID, entries))
    held = set(ids)
    held.discard(None)
    unique = len(held) == len(ids) - ids.count(None)
    with _unique_guard:
        _unique[id(entries)] = (entries, unique)
        while len(_unique) > _UNIQUE_KEPT:
            del _unique[next(iter(_unique))]
    return unique


def _pair(
    olds: Sequence[Entry],
    news: Sequence[Entry],
    found: dict[int, tuple[int, str]],
    taken: set[int],
    old: Pad,
    new: Pad,
) -> None:
    """The steps of :func:`match` over these entries (by their indices in ``old`` and
    ``new``), adding to what is ``found`` and ``taken`` already."""
    # (the first entry with an id is the one it names: built from the end, the first wins)
    by_id = {n.id: n.index for n in reversed(news) if n.id is not None}
    for o in olds:
        hit = by_id.get(o.id) if o.id is not None else None
        if hit is not None and hit not in taken:
            found[o.index] = (hit, "id")
            taken.add(hit)
    if len(found) == len(old.entries) or len(taken) == len(new.entries):
        return  # every entry on one side paired by id: nothing left to pair by text
    # exact text: first within the same region (a sealed copy is not the unsealed one it
    # duplicates), then across it (an entry sealed or unsealed as it is)
    for region in (True, False):
        exact: dict[tuple[str, str, bool], deque[int]] = defaultdict(deque)
        for n in news:
            if n.index not in taken:
                exact[(n.kind, n.text, n.sealed and region)].append(n.index)
        for o in olds:
            if o.index in found:
                continue
            bucket = exact.get((o.kind, o.text, o.sealed and region))
            if bucket:
                hit = bucket.popleft()
                found[o.index] = (hit, "exact")
                taken.add(hit)
    _match_close(olds, news, new, found, taken)


class Pairs(Mapping[int, tuple[int, str]]):
    """A matching kept for later (the history's diff), as runs of consecutive entries paired
    alike: a pad of thousands of entries, most of them paired in place, costs a few runs,
    not a dict of thousands of pairs."""

    __slots__ = ("_hows", "_lens", "_news", "_olds", "_size")

    def __init__(self, pairs: Mapping[int, tuple[int, str]]) -> None:
        olds = sorted(pairs)
        got = list(map(pairs.__getitem__, olds))
        news, hows = list(map(_FIRST, got)), list(map(_SECOND, got))
        # a run goes on where the next pair is one on from the last, on both sides, and was
        # paired alike (worked out in C: a pad of thousands of entries makes a few runs)
        goes_on = map(
            and_,
            map(
                and_,
                map(eq, map(sub, olds[1:], olds), repeat(1)),
                map(eq, map(sub, news[1:], news), repeat(1)),
            ),
            map(eq, hows[1:], hows),
        )
        starts = [0, *compress(range(1, len(olds)), map(not_, goes_on))] if olds else []
        ends = [*starts[1:], len(olds)]
        self._olds = array("q", map(olds.__getitem__, starts))
        self._news = array("q", map(news.__getitem__, starts))
        self._lens = array("q", map(sub, ends, starts))
        self._hows = tuple(map(hows.__getitem__, starts))
        self._size = len(pairs)

    def __getitem__(self, old: int) -> tuple[int, str]:
        i = bisect.bisect_right(self._olds, old) - 1
        if i >= 0 and old < self._olds[i] + self._lens[i]:
            return self._news[i] + old - self._olds[i], self._hows[i]
        raise KeyError(old)

    def __iter__(self) -> Iterator[int]:
        for start, length in zip(self._olds, self._lens, strict=True):
            yield from range(start, start + length)

    def __len__(self) -> int:
        return self._size

    @property
    def runs(self) -> int:
        """How many runs hold the pairs (what they cost)."""
        return len(self._olds)

    def __repr__(self) -> str:
        return f"Pairs({dict(self.items())!r})"


def _closeness(sm: SequenceMatcher[str], a: str, b: str) -> float:
    """How close ``b`` is to ``a`` as an edit of it (0 when not close enough).

    ``sm`` already has ``a`` as its second sequence (its index is built once per entry).
    """
    sm.set_seq1(b)
    if sm.real_quick_ratio() < CLOSE_FLOOR or sm.quick_ratio() < CLOSE_FLOOR:
        return 0.0
    ratio = sm.ratio()
    if ratio >= CLOSE_ENOUGH:
        return ratio
    kept = sum(block.size for block in sm.get_matching_blocks())
    return ratio if a and ratio >= CLOSE_FLOOR and kept / len(a) >= CLOSE_COVERED else 0.0


def _may_pair(e: Entry) -> bool:
    return e.kind != "loss_record" or e.sealed


def _match_close(
    olds: Sequence[Entry],
    news: Sequence[Entry],
    new: Pad,
    found: dict[int, tuple[int, str]],
    taken: set[int],
) -> None:
    """Pair the entries left by close text within the same kind, the closest pairs first."""
    index: dict[tuple[str, str], list[int]] = defaultdict(list)
    words: dict[int, set[str]] = {}
    for n in news:
        if n.index not in taken and _may_pair(n):
            words[n.index] = _words(n.text)
            for w in words[n.index]:
                index[(n.kind, w)].append(n.index)
    pairs: list[tuple[float, int, int]] = []
    for o in olds:
        if o.index not in found and _may_pair(o):
            pairs += _close_pairs(o, new, index, words)
    for _score, oi, ni in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):
        if oi not in found and ni not in taken:
            found[oi] = (ni, "close")
            taken.add(ni)


def _close_pairs(
    o: Entry, new: Pad, index: Mapping[tuple[str, str], list[int]], words: Mapping[int, set[str]]
) -> list[tuple[float, int, int]]:
    """The new entries close enough to ``o`` to pair with it, each with its closeness."""
    mine = _words(o.text)
    best = _sharing(o, mine, index)
    # the few with the most words in common (relative to their size) get a close look
    overlap = {i: len(mine & words[i]) / len(mine | words[i]) for i in best}
    sm: SequenceMatcher[str] = SequenceMatcher(None, autojunk=False)
    sm.set_seq2(o.text)
    tries = heapq.nsmallest(_TRIES, best, key=lambda i: (-overlap[i], i))
    floor = overlap[tries[0]] * _TRY_FLOOR if tries else 0.0
    pairs = []
    for i in (i for i in tries if overlap[i] >= floor):
        n = new.entries[i]
        if o.id is not None and n.id is not None and o.id != n.id:
            continue
        score = _closeness(sm, o.text, n.text)
        if score:  # a pair in the same region is likelier the same entry
            pairs.append((score - _CROSS_REGION * (o.sealed != n.sealed), o.index, i))
    return pairs


def _sharing(o: Entry, mine: set[str], index: Mapping[tuple[str, str], list[int]]) -> list[int]:
    """The new entries of ``o``'s kind that share most of its rarest words."""
    postings = [p for w in mine if (p := index.get((o.kind, w)))]
    shared: dict[int, int] = defaultdict(int)
    for posting in heapq.nsmallest(_RARE_WORDS, postings, key=len):
        if len(posting) > _POSTING_CAP:  # a common word: look near the entry's place
            at = bisect.bisect_left(posting, o.index) - _POSTING_CAP // 2
            posting = posting[max(at, 0) : max(at, 0) + _POSTING_CAP]
        for i in posting:
            shared[i] += 1
    return heapq.nsmallest(_CANDIDATES, shared, key=lambda i: (-shared[i], i))
