"""A version's totals (tokens, those of its rules, its sealed ones, its claims) and the share
of its tokens that state rules, each remembered for the last few pads.

Why a memo: a live pad is audited version after version (v1 -> v2, then v2 -> v3), so each
version is counted as the after of one audit and again as the before of the next; and the
inspection that took a version in has counted it already. ``Recent`` keeps what was worked
out for the last few pads, found by the pad itself (the very object: comparing pads by value
would read every entry) and what it was counted with, and holds both, so no other pad can
be taken for one it remembers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from padtui.core.counting.tokens import TokenCounter
from padtui.core.model import CAUTION_KINDS, Entry, Pad
from padtui.core.rules.claims import count_claims
from padtui.core.rules.finder import RuleMap, entry_rules, may_hold_rules
from padtui.core.sequences.ends import common_ends

T = TypeVar("T")


class Recent(Generic[T]):
    """What was last worked out for a few pads, each found by the pad (the very object) and
    what it was worked out with (``by``: equal to it), newest first, at most ``size``."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._found: list[tuple[Pad, object, T]] = []
        self._guard = threading.Lock()

    def get(self, pad: Pad, by: object, make: Callable[[], T]) -> T:
        with self._guard:
            hit = next((got for p, b, got in self._found if p is pad and b == by), None)
        if hit is not None:
            return hit
        got = make()
        with self._guard:
            self._found = [(p, b, v) for p, b, v in self._found if p is not pad or b != by]
            self._found.insert(0, (pad, by, got))
            del self._found[self._size :]
        return got

    def recent(self, by: object) -> list[T]:
        """What was worked out with ``by``, newest first."""
        with self._guard:
            return [got for _p, b, got in self._found if b == by]


@dataclass
class Totals:
    """A version's tokens (all, constraints and negative facts, sealed) and claims."""

    tokens: int
    caution: int
    claims: int
    costs: list[int]  # each entry's tokens
    entry_claims: list[int]  # each entry's claims
    entries: tuple[Entry, ...]
    sealed: int = 0

    def __init__(self, pad: Pad, counter: TokenCounter, base: Totals | None = None) -> None:
        entries = pad.entries
        self.entries = entries
        # ``base``: the totals of a version this one shares entry objects with (the version
        # before it): those entries' counts and claims are its, not counted again
        if base is None:
            costs, claims = counter.start_with_claims(e.text for e in entries)()
            self.costs, self.entry_claims = list(costs), list(claims)
            self.tokens, self.caution, self.sealed, self.claims = _sums(
                entries, self.costs, self.entry_claims
            )
            return
        # the very entries at the two ends (most of a live pad's) are taken over, their sums
        # by difference; those between are found by their text (see _kept)
        olds = base.entries
        a, t = common_ends(olds, entries)
        b, z = len(olds) - t, len(entries) - t
        was, mid = olds[a:b], entries[a:z]
        kept = _kept(was, mid)
        new = [i for i in range(len(mid)) if i not in kept]
        fresh = dict(zip(new, counter.count_many(mid[i].text for i in new), strict=True))
        old_costs, old_claims = base.costs[a:b], base.entry_claims[a:b]
        costs = [old_costs[kept[i]] if i in kept else fresh[i] for i in range(len(mid))]
        claims = [
            old_claims[kept[i]] if i in kept else count_claims(e.text) for i, e in enumerate(mid)
        ]
        self.costs = [*base.costs[:a], *costs, *base.costs[b:]]
        self.entry_claims = [*base.entry_claims[:a], *claims, *base.entry_claims[b:]]
        now, gone = _sums(mid, costs, claims), _sums(was, old_costs, old_claims)
        whole = (base.tokens, base.caution, base.sealed, base.claims)
        self.tokens, self.caution, self.sealed, self.claims = (
            w + n - g for w, n, g in zip(whole, now, gone, strict=True)
        )

    @property
    def share(self) -> float:
        return self.caution / self.tokens if self.tokens else 0.0

    @property
    def per_claim(self) -> str:
        """Tokens per claim, as a finding says it."""
        return f"{self.tokens / self.claims:.1f}" if self.claims else "-"


def _sums(
    entries: Sequence[Entry], costs: Sequence[int], claims: Sequence[int]
) -> tuple[int, int, int, int]:
    """The tokens of these entries (``costs``: each one's), those of their constraints and
    negative facts, those of the sealed ones, and their claims."""
    caution = sealed = 0
    for e, c in zip(entries, costs, strict=True):
        if e.kind in CAUTION_KINDS:
            caution += c
        if e.sealed:
            sealed += c
    return sum(costs), caution, sealed, sum(claims)


def _kept(before: Sequence[Entry], after: Sequence[Entry]) -> dict[int, int]:
    """Where each entry of ``after`` whose text is the very string of an entry of ``before``
    (shared with it: see ``inspection.shared``) was in it; an entry that moved is looked
    for only when the number of entries changed (else it is counted again)."""
    kept: dict[int, int] = {}
    where: dict[int, int] | None = None
    # as many entries as before: one not in its place is taken for edited (and counted)
    in_place = len(before) == len(after)
    for i, e in enumerate(after):
        if i < len(before) and before[i].text is e.text:
            kept[i] = i
            continue
        if in_place:
            continue
        if where is None:
            where = {id(o.text): j for j, o in enumerate(before)}
        j = where.get(id(e.text))
        if j is not None:
            kept[i] = j
    return kept


_RECENT = 8
_totals: Recent[Totals] = Recent(_RECENT)
_shares: Recent[float] = Recent(_RECENT)


def totals(pad: Pad, counter: TokenCounter) -> Totals:
    """The pad's totals with this counter (remembered for the last few pads)."""

    def make() -> Totals:
        return Totals(pad, counter, _base(_totals.recent(counter), pad))

    return _totals.get(pad, counter, make)


def _base(recent: list[Totals], pad: Pad) -> Totals | None:
    """The totals counted lately of a pad that shares its first or last entry's text (the
    string itself) with ``pad`` (most often the version before it), if any."""
    ends = {id(e.text) for e in (pad.entries[:1] + pad.entries[-1:])}
    for t in recent:
        if ends & {id(e.text) for e in (t.entries[:1] + t.entries[-1:])}:
            return t
    return None


def rule_share(pad: Pad, costs: Sequence[int], rule_map: RuleMap) -> float:
    """The share of a pad's tokens that state rules (each entry's cost, in the proportion
    of its text that its rules take); remembered for the last few pads, as their totals."""
    return _shares.get(pad, rule_map, lambda: _rule_share(pad, costs, rule_map))


def _rule_share(pad: Pad, costs: Sequence[int], rule_map: RuleMap) -> float:
    total = sum(costs)
    if not total:
        return 0.0
    ruled = 0.0
    for e, cost in zip(pad.entries, costs, strict=True):
        if not cost or not e.text:
            continue
        if e.kind in CAUTION_KINDS:
            ruled += cost
            continue
        if not may_hold_rules(e, rule_map):
            continue  # (most entries of a large pad: one search, no claims read)
        found = entry_rules(e, rule_map)
        if found:
            ruled += cost * min(1.0, sum(len(r.text) for r in found) / len(e.text))
    return ruled / total
