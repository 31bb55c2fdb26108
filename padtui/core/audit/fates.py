"""Where each claim of an old entry went: carried (perhaps stricter), changed in a way the
audit cannot read, weakened, declared, or lost; a plain claim (no rule) kept or lost. The
checks of an entry's claims (``claims.py``) read their findings from these fates."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property

from padtui.core.audit.carry import (
    TIGHTER,
    UNSURE,
    Carry,
    ClaimIndex,
    OldClaim,
    find,
    old_claims,
    stems,
)
from padtui.core.audit.context import Rewrite
from padtui.core.model import Entry
from padtui.core.rules.finder import Rule, entry_rules

# what became of a rule
CARRIED = "carried"  # with its force (perhaps stricter: its carry says what it gained)
UNREAD = "unread"  # found, changed in a way the audit cannot read with confidence
WEAKENED = "weakened"  # found, with less force
LOST = "lost"  # carried nowhere, and no loss record says so
DOUBTED = "doubted"  # carried nowhere, a rule only by the heading it sat under
FOREIGN = "foreign"  # carried nowhere the audit can read: the pad changed language
DECLARED = "declared"  # carried nowhere, and a loss record names or describes it
# what became of a plain claim
KEPT = "kept"
LOOSE = "loose"  # found only loosely, in an entry edited in place: left out of it
MISSING = "missing"


@dataclass(frozen=True)
class Fate:
    claim: OldClaim
    way: str
    carry: Carry


@dataclass(frozen=True)
class Fates:
    """What became of each claim of the old entry ``old`` (``new``: what it became, if
    anything; ``heirs``: the entries derived from it; ``named``: a loss record names it or
    its section)."""

    old: Entry
    new: Entry | None
    heirs: tuple[Entry, ...]
    named: bool
    rules: Mapping[str, Rule]
    fates: tuple[Fate, ...]

    @property
    def declared(self) -> bool:
        """The entry's loss declared as a whole (derived into others, or named)."""
        return bool(self.heirs or self.named)

    @property
    def edited(self) -> bool:
        """Edited in place: it has a new entry, and no other says it is derived from it."""
        return self.new is not None and not self.heirs and not self.named

    def of(self, *ways: str) -> list[Fate]:
        return [f for f in self.fates if f.way in ways]

    @cached_property
    def kinds(self) -> list[str]:
        """The kinds of the rules it weakened or lost."""
        return [self.rules[f.claim.text].kind for f in self.of(WEAKENED, LOST)]

    @cached_property
    def carriers(self) -> list[int]:
        """The new entries that carry its rules (whole or changed unreadably), in order."""
        found = {f.carry.found.entry for f in self.of(CARRIED, UNREAD) if f.carry.found}
        return sorted(found)

    @property
    def plain(self) -> int:
        return len(self.of(KEPT, LOOSE, MISSING))

    @property
    def missing(self) -> int:
        return len(self.of(MISSING))

    @property
    def gone_plain(self) -> list[str]:
        """The plain claims carried nowhere that say enough to tell ("Partner: none" does
        not)."""
        return [f.claim.text for f in self.of(MISSING) if len(stems(f.claim.body)) >= 3]

    @property
    def edited_out(self) -> int:
        """The plain claims an edit in place left out."""
        return len(self.of(MISSING, LOOSE)) if self.edited else 0


def fates_of(ctx: Rewrite, o: Entry, n: Entry | None, heirs: tuple[Entry, ...]) -> Fates:
    """Each claim of ``o`` looked for: where its entry went, then in the entries the rewrite
    wrote or edited, then (for a loss not declared) in the whole version."""
    named = ctx.named(o) or ctx.heading_named(o)
    rules = {r.text: r for r in entry_rules(o, ctx.old_map)}
    own = ClaimIndex([e for e in (n, *heirs) if e is not None])
    entry = Fates(o, n, heirs, named, rules, ())
    fates = []
    for c in old_claims(o, list(rules.values())):
        fate = _rule_fate(ctx, entry, own, c) if c.rule else _plain_fate(ctx, entry, own, c)
        if fate is not None:
            fates.append(fate)
    return replace(entry, fates=tuple(fates))


def _rule_fate(ctx: Rewrite, entry: Fates, own: ClaimIndex, c: OldClaim) -> Fate:
    o, n, heirs = entry.old, entry.new, entry.heirs
    # a declared entry's rules are looked for where it went, not in the whole pad
    carry = find(c, ctx.places(own, entry.declared), ctx.stood, anywhere=ctx.anywhere)
    if carry.found is not None and carry.lost and ctx.other(o, n, heirs, carry.found):
        carry = Carry(None)  # weakened in another entry: not where this one went
    if carry.found is not None:
        return _found_fate(ctx, entry, c, carry)
    if heirs or not (entry.named or ctx.described(c.body)):
        if ctx.translated(c.body):
            return Fate(c, FOREIGN, carry)
        if ctx.placed(o, entry.rules[c.text], c):
            return Fate(c, DOUBTED, carry)
        return Fate(c, LOST, carry)
    return Fate(c, DECLARED, carry)


def _found_fate(ctx: Rewrite, entry: Fates, c: OldClaim, carry: Carry) -> Fate:
    if carry.carried:
        return Fate(c, CARRIED, carry)
    if not carry.lost:
        return Fate(c, UNREAD, carry)
    if ctx.placed(entry.old, entry.rules[c.text], c):
        return Fate(c, UNREAD, _doubt(carry))
    return Fate(c, WEAKENED, carry)


def _plain_fate(ctx: Rewrite, entry: Fates, own: ClaimIndex, c: OldClaim) -> Fate | None:
    if entry.declared or (entry.new is not None and not ctx.count_lost):
        return None  # a declared loss, or an edit while no claim was lost overall
    carry = find(c, ctx.places(own, False), ctx.stood, anywhere=ctx.anywhere)
    if carry.found is None:
        if ctx.translated(c.body):
            return None  # (said in the other language, as far as the audit can tell)
        return Fate(c, MISSING, carry)
    if entry.edited:
        strict = find(c, ctx.places(own, False), ctx.stood, loose=False, anywhere=ctx.anywhere)
        if strict.found is None:
            return Fate(c, LOOSE, strict)
    return Fate(c, KEPT, carry)


def _doubt(carry: Carry) -> Carry:
    """A carry's changes all read as changes it cannot be sure of."""
    changes = tuple(replace(ch, way=UNSURE) for ch in carry.changes if ch.way != TIGHTER)
    return replace(carry, changes=changes)
