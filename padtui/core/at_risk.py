"""The rules at risk in a live pad's versions, looked for only in the entries that changed.

A new version of a pad shares its unchanged entries, as the very same objects, with the
version before (``inspection.shared``). So the rules of each unsealed entry are kept by the
entry object, and a new version costs a look at the entries that are new objects: the
result is :func:`~padtui.core.compaction.unsealed_rules`'s, for what changed.
"""

from __future__ import annotations

from dataclasses import replace

from padtui.core.compaction import RuleAtRisk
from padtui.core.model import Entry, Pad
from padtui.core.rules import RuleMap, RuleMemo, find_rules

# an entry's rules: (kind, text, heading) each
Rows = tuple[tuple[str, str, str | None], ...]


class AtRisk:
    """The unsealed rules of the versions of one pad, kept by entry (one finder a pad; it
    may be asked from two threads at once: each call works on its own map and sets it)."""

    def __init__(self) -> None:
        self._words: frozenset[str] | None = None  # the rule map they were found with
        # each unsealed entry's rules, by the entry object's identity (the entry is held so
        # that its identity is not reused while it is here)
        self._by_entry: dict[int, tuple[Entry, Rows]] = {}

    def to_look_at(self, pad: Pad, rule_map: RuleMap | None = None) -> int:
        """How many of the pad's unsealed entries have not been looked at."""
        old = self._by_entry if self._map(pad, rule_map).words == self._words else {}
        return sum(1 for e in pad.entries if not e.sealed and _kept(old, e) is None)

    def of(
        self, pad: Pad, rule_map: RuleMap | None = None, memo: RuleMemo | None = None
    ) -> tuple[RuleAtRisk, ...]:
        """The rules of ``pad`` in unsealed entries, in file order (none marked dropped):
        ``unsealed_rules(pad, rule_map, memo=memo)``."""
        words = self._map(pad, rule_map).words
        old = self._by_entry if words == self._words else {}
        unsealed = [e for e in pad.entries if not e.sealed]
        fresh = [e for e in unsealed if _kept(old, e) is None]
        found: dict[int, list[tuple[str, str, str | None]]] = {e.index: [] for e in fresh}
        if fresh:
            for r in find_rules(replace(pad, entries=tuple(fresh)), rule_map, memo):
                found[r.entry].append((r.kind, r.text, r.heading))
        by_entry: dict[int, tuple[Entry, Rows]] = {}
        out: list[RuleAtRisk] = []
        for e in unsealed:
            rows = _kept(old, e)
            if rows is None:
                rows = tuple(found[e.index])
            by_entry[id(e)] = (e, rows)
            out += [RuleAtRisk(e, kind, text, heading, False) for kind, text, heading in rows]
        self._words, self._by_entry = words, by_entry
        return tuple(out)

    @staticmethod
    def _map(pad: Pad, rule_map: RuleMap | None) -> RuleMap:
        return (rule_map or RuleMap.default()).for_pad(pad)


def _kept(old: dict[int, tuple[Entry, Rows]], entry: Entry) -> Rows | None:
    hit = old.get(id(entry))
    return hit[1] if hit is not None and hit[0] is entry else None
