"""The rules at risk in a live pad's versions, looked for only in the entries that changed.

A new version of a pad shares its unchanged entries, as the very same objects, with the
version before (``inspection.shared``). So the rules of each entry are kept with it, and a
new version costs a look at the entries between those it shares at its start and its end
(``matching.common_ends``), and a search only in those that are new objects: the result is
:func:`~padtui.core.compaction.plan.unsealed_rules`'s, for what changed.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import chain
from typing import cast

from padtui.core.compaction.plan import RuleAtRisk
from padtui.core.model import Entry, Pad
from padtui.core.rules.finder import RuleMap, RuleMemo, find_rules
from padtui.core.sequences.ends import common_ends

# an entry's rules at risk (none for a sealed entry)
PerEntry = tuple[RuleAtRisk, ...]


class AtRisk:
    """The unsealed rules of the versions of one pad, kept by entry (one finder a pad; it
    may be asked from two threads at once: each call works from the last one's result and
    sets its own)."""

    def __init__(self) -> None:
        # the words of the rule map, the entries of the pad looked at last, and the rules of
        # each of them
        self._last: tuple[frozenset[str], tuple[Entry, ...], list[PerEntry]] | None = None

    def of(
        self, pad: Pad, rule_map: RuleMap | None = None, memo: RuleMemo | None = None
    ) -> tuple[RuleAtRisk, ...]:
        """The rules of ``pad`` in unsealed entries, in file order (none marked dropped):
        ``unsealed_rules(pad, rule_map, memo=memo)``."""
        return self._find(pad, rule_map, memo, None) or ()

    def at_once(
        self, pad: Pad, rule_map: RuleMap | None, most: int
    ) -> tuple[RuleAtRisk, ...] | None:
        """:meth:`of`, or None (nothing looked at) when more than ``most`` of the pad's
        unsealed entries are new here: look for them in a thread."""
        return self._find(pad, rule_map, None, most)

    def _find(
        self, pad: Pad, rule_map: RuleMap | None, memo: RuleMemo | None, most: int | None
    ) -> tuple[RuleAtRisk, ...] | None:
        words = self._map(pad, rule_map).words
        entries = pad.entries
        last = self._last
        before: tuple[Entry, ...] = ()
        per_before: list[PerEntry] = []
        a = t = 0
        if last is not None and last[0] == words:
            before, per_before = last[1], last[2]
            a, t = common_ends(before, entries)  # (the very entries: their very rules)
        end, end_before = len(entries) - t, len(before) - t
        # the entries between those runs: moved ones keep their rules, new ones are looked at
        kept = zip(before[a:end_before], per_before[a:end_before], strict=True)
        moved = {id(e): (e, p) for e, p in kept}
        middle: list[PerEntry | None] = []
        fresh: list[Entry] = []
        for e in entries[a:end]:
            hit = moved.get(id(e))
            if e.sealed:
                middle.append(())
            elif hit is not None and hit[0] is e:
                middle.append(hit[1])
            else:
                middle.append(None)
                fresh.append(e)
        if most is not None and len(fresh) > most:
            return None
        if fresh:
            made: dict[int, list[RuleAtRisk]] = {e.index: [] for e in fresh}
            of_index = {e.index: e for e in fresh}
            for r in find_rules(replace(pad, entries=tuple(fresh)), rule_map, memo):
                made[r.entry].append(
                    RuleAtRisk(of_index[r.entry], r.kind, r.text, r.heading, False)
                )
            middle = [
                m if m is not None else tuple(made[e.index])
                for m, e in zip(middle, entries[a:end], strict=True)
            ]
        per = [*per_before[:a], *cast(list[PerEntry], middle), *per_before[end_before:]]
        self._last = (words, entries, per)
        return tuple(chain.from_iterable(per))

    @staticmethod
    def _map(pad: Pad, rule_map: RuleMap | None) -> RuleMap:
        return (rule_map or RuleMap.default()).for_pad(pad)
