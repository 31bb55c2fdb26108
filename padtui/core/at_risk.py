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
        old = self._by_entry if words == self._words else {}
        get = old.get
        by_entry: dict[int, tuple[Entry, Rows]] = {}
        fresh: list[Entry] = []
        for e in pad.entries:
            if e.sealed:
                continue
            hit = get(id(e))
            if hit is not None and hit[0] is e:
                by_entry[id(e)] = hit
            else:
                fresh.append(e)
        if most is not None and len(fresh) > most:
            return None
        if fresh:
            found: dict[int, list[tuple[str, str, str | None]]] = {e.index: [] for e in fresh}
            for r in find_rules(replace(pad, entries=tuple(fresh)), rule_map, memo):
                found[r.entry].append((r.kind, r.text, r.heading))
            for e in fresh:
                by_entry[id(e)] = (e, tuple(found[e.index]))
        out: list[RuleAtRisk] = []
        for e in pad.entries:
            rows = () if e.sealed else by_entry[id(e)][1]
            if rows:
                out += [RuleAtRisk(e, kind, text, heading, False) for kind, text, heading in rows]
        self._words, self._by_entry = words, by_entry
        return tuple(out)

    @staticmethod
    def _map(pad: Pad, rule_map: RuleMap | None) -> RuleMap:
        return (rule_map or RuleMap.default()).for_pad(pad)
