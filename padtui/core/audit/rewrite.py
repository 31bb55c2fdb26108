"""Audit of one rewrite: a declared compaction, or corruption?

Entries of the old version are matched to the new one by ``id``, else by exact kind and
text, else by close text within the same kind, to report where content went. The judgement
is made claim by claim across the whole pad: each rule of an entry the rewrite changed
(``rules.py`` finds them, by place and by wording) is carried, weakened, declared or lost
(``carry.py`` looks for it and weighs its force), and the claims of an entry that went are
carried elsewhere or lost. A loss is declared by ``derived_from`` or by a loss record that
names, quotes or describes what went.

False alarms matter as much as missed ones: a critical finding on an honest rewrite teaches
a person to ignore the alarm. So a join, a split, a reorder or a rewording that carries
every rule with its polarity, modal, conditions, numbers and names loses nothing, and a
plain fact updated in place is an update. README, "How padtui finds rules in your memory",
says what this sees and what it cannot.
"""

from __future__ import annotations

import json
import re
import threading
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from operator import attrgetter, itemgetter
from typing import Any, Generic, TypeVar

from padtui.core.audit.carry import (
    LOOSER,
    TIGHTER,
    UNSURE,
    Carry,
    ClaimIndex,
    NewClaim,
    OldClaim,
    find,
    keeps_name,
    old_claims,
    stems,
)
from padtui.core.audit.matching import match_ends
from padtui.core.audit.wording import RecordNames, cut, normalize, weakening
from padtui.core.counting.tokens import TokenCounter, counter_for
from padtui.core.model import CAUTION_KINDS, Entry, Pad
from padtui.core.rules.claims import count_claims, split_claims
from padtui.core.rules.finder import (
    DATE_TAIL,
    Rule,
    RuleMap,
    entry_claims,
    entry_rules,
    imperative,
    may_hold_rules,
)
from padtui.core.rules.finder import place_of as rules_place
from padtui.core.sequences.ends import common_ends
from padtui.core.vocabulary import FindingCode, Reason, Severity, Verdict

CRITICAL = Severity.CRITICAL
WARNING = Severity.WARNING
SEVERITY: dict[FindingCode, Severity] = {
    FindingCode.SEALED_REMOVED: CRITICAL,
    FindingCode.SEALED_EDITED: CRITICAL,
    FindingCode.SEALED_UNSEALED: CRITICAL,
    FindingCode.LOSS_RECORD_EVICTED: CRITICAL,
    FindingCode.CONSTRAINT_DROPPED: CRITICAL,
    FindingCode.CONSTRAINT_WEAKENED: CRITICAL,
    FindingCode.CONSTRAINT_DEMOTED: WARNING,
    FindingCode.UNDECLARED_LOSS: WARNING,
    FindingCode.CLAIMS_REDUCED: WARNING,
    FindingCode.CAUTION_FALLING: WARNING,
    FindingCode.RULE_MOVED: Severity.INFO,
    FindingCode.RULE_SCOPE_NARROWED: WARNING,
    FindingCode.RULE_TIGHTENED: WARNING,
    FindingCode.RULE_UNCERTAIN: WARNING,
}
VERDICTS = tuple(Verdict)


@dataclass(frozen=True)
class Finding:
    """One thing an audit noticed about a transition, with the text before and after."""

    code: FindingCode
    entries: tuple[str, ...]
    message: str
    before: str | None = None
    after: str | None = None
    # what part of a rule's force the finding is about (polarity, modal, condition, number,
    # name; gone: the rule or entry itself), for a machine to read beside the message
    reasons: tuple[Reason, ...] = ()

    @property
    def severity(self) -> Severity:
        return SEVERITY[self.code]

    def as_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "entries": list(self.entries),
            "message": self.message,
            "reasons": list(self.reasons),
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True, kw_only=True)
class Audit:
    """The findings and verdict of one transition ``old -> new``."""

    verdict: Verdict
    findings: tuple[Finding, ...]
    matches: Mapping[int, tuple[int, str]]  # old index -> (new index, "id"|"exact"|"close")
    tokens_before: int
    tokens_after: int
    claims_before: int
    claims_after: int

    @property
    def critical(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == CRITICAL)

    @property
    def codes(self) -> list[FindingCode]:
        return [f.code for f in self.findings]

    def as_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "findings": [f.as_json() for f in self.findings],
            "tokens": {"before": self.tokens_before, "after": self.tokens_after},
            "claims": {"before": self.claims_before, "after": self.claims_after},
        }


# --- the audit -----------------------------------------------------------------------------


def audit(
    old: Pad,
    new: Pad,
    counter: TokenCounter | None = None,
    rule_map: RuleMap | None = None,
) -> Audit:
    """Findings and verdict of the transition from ``old`` to ``new``.

    ``rule_map``: the headings that hold rules (padtui's own by default); each pad's own
    ``rule_headings`` extend or replace it for that pad.
    """
    counter = counter or counter_for(new.encoding or old.encoding)
    before = totals(old, counter)
    after = totals(new, counter)
    matches, ends = match_ends(old, new)
    if _same_content(old, new, matches, ends) or _same_words(old, new, ends):
        return _audit(Verdict.UNCHANGED, (), matches, before, after)
    base = rule_map or RuleMap.default()
    ctx = _Rewrite(old, new, matches, base.for_pad(old), base.for_pad(new), ends)
    ctx.count_lost = after.claims < before.claims  # (claims lost matter only if claims fell)
    findings: list[Finding] = []
    derived = ctx.derived
    a, t = ends  # (the very entries, each paired with itself: nothing to say of them)
    for o in old.entries if derived else old.entries[a : len(old.entries) - t]:
        hit = matches.get(o.index)
        n = new.entries[hit[0]] if hit else None
        if n is o and not derived:
            continue  # the very entry, kept where it was (a live pad's most): nothing to say
        findings += ctx.sealed(o, n)
        findings += ctx.claims(o, n)
    findings += _pad_findings(ctx, before, after, counter)
    verdict = _verdict(old, matches, findings, ctx, before, after)
    return _audit(verdict, tuple(findings), matches, before, after)


def _audit(
    verdict: Verdict,
    findings: tuple[Finding, ...],
    matches: dict[int, tuple[int, str]],
    before: _Totals,
    after: _Totals,
) -> Audit:
    return Audit(
        verdict=verdict,
        findings=findings,
        matches=matches,
        tokens_before=before.tokens,
        tokens_after=after.tokens,
        claims_before=before.claims,
        claims_after=after.claims,
    )


@dataclass
class _Totals:
    """A version's tokens (all, constraints and negative facts, sealed) and claims."""

    tokens: int
    caution: int
    claims: int
    costs: list[int]  # each entry's tokens
    entry_claims: list[int]  # each entry's claims
    entries: tuple[Entry, ...]
    sealed: int = 0

    def __init__(self, pad: Pad, counter: TokenCounter, base: _Totals | None = None) -> None:
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


T = TypeVar("T")


class _Remembered(Generic[T]):
    """What was last worked out for a few pads, by the pads' identity (each pad, and what
    else the key names by ``id``, is held: its id is not reused meanwhile)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._found: dict[Hashable, tuple[tuple[object, ...], T]] = {}
        self._guard = threading.Lock()

    def get(self, key: Hashable, held: tuple[object, ...], make: Callable[[], T]) -> T:
        with self._guard:
            hit = self._found.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], held, strict=True)):
            return hit[1]
        got = make()
        with self._guard:
            self._found[key] = (held, got)
            while len(self._found) > self._size:
                del self._found[next(iter(self._found))]
        return got

    def recent(self) -> list[tuple[tuple[object, ...], T]]:
        """What is remembered, newest first: (what its key held, what was worked out)."""
        with self._guard:
            return list(reversed(self._found.values()))


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


# The totals of the last few pads counted: a live audit of v1 -> v2, then v2 -> v3, counts v2
# once (and the inspection that took v2 in has counted it already).
_RECENT = 8
_totals: _Remembered[_Totals] = _Remembered(_RECENT)
_shares: _Remembered[float] = _Remembered(_RECENT)


def totals(pad: Pad, counter: TokenCounter) -> _Totals:
    """The pad's totals with this counter (remembered for the last few pads)."""

    def make() -> _Totals:
        bases = [got for held, got in _totals.recent() if held[1] is counter]
        return _Totals(pad, counter, _base(bases, pad))

    return _totals.get((id(pad), id(counter)), (pad, counter), make)


def _base(recent: list[_Totals], pad: Pad) -> _Totals | None:
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
    return _shares.get((id(pad), rule_map), (pad,), lambda: _rule_share(pad, costs, rule_map))


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


def _what(e: Entry) -> str:
    return f"{e.kind.replace('_', ' ')} {e.label}"


def _rule_what(e: Entry, kinds: Sequence[str], rules: dict[str, Rule]) -> str:
    """``constraint c-retry``, or for a rule found by place or wording elsewhere, its entry,
    the kind of rule and where: ``#3 (prohibition, under 'Boundaries')``."""
    if e.kind in CAUTION_KINDS or not kinds:
        return _what(e)
    kind = kinds[0] if len(set(kinds)) == 1 else "rules"
    heading = next((r.heading for r in rules.values() if r.heading), None)
    where = f", under {cut(heading, 30)!r}" if heading else ""
    return f"{e.label} ({kind.replace('_', ' ')}{where})"


# Words of a loss record that say *that* something went, not *what* went.
_RECORD_WORDS = frozenset(
    stems(
        "removed remove dropped drop deleted delete obsolete outdated stale old lesson lessons "
        "rule rules entry entries merged merge condensed condense consolidated consolidation "
        "summarized summary record records loss losses block blocks note notes section "
        "sections item items bullet bullets line lines no longer needed redundant duplicate "
        "replaced superseded folded into pruned trimmed cleaned"
    )
)


_DERIVED_FROM = attrgetter("derived_from")


class _Rewrite:
    """The two sides of the rewrite being audited, and what the findings look up in them."""

    def __init__(
        self,
        old: Pad,
        new: Pad,
        matches: dict[int, tuple[int, str]],
        old_map: RuleMap,
        new_map: RuleMap,
        ends: tuple[int, int] = (0, 0),
    ) -> None:
        self.old, self.new = old, new
        self.old_map, self.new_map = old_map, new_map
        matched = dict(zip(map(itemgetter(0), matches.values()), matches, strict=True))
        self.back = matched
        # records that this rewrite wrote: their "#N" labels count old positions
        records = [e for e in new.entries if e.kind == "loss_record"]
        self.records = [RecordNames(e, e.index not in matched) for e in records]
        self.record_texts = [normalize(e.text) for e in records]
        # only a record this rewrite wrote (or edited) can declare its losses by describing
        # them or naming their section: an old record about a section declares nothing new
        written = [
            e
            for e in records
            if e.index not in matched or old.entries[matched[e.index]].text != e.text
        ]
        self.new_record_texts = [normalize(e.text) for e in written]
        self.record_stems = [stems(e.text) - _RECORD_WORDS for e in written]
        # the new entries this rewrite wrote or edited: where a changed claim went, mostly
        # (those at the two ends paired with themselves, the very objects, are neither)
        a, t = ends
        self.changed = [
            e
            for e in new.entries[a : len(new.entries) - t]
            if e.index not in matched
            or old.entries[matched[e.index]].text != e.text
            or old.entries[matched[e.index]].context != e.context
        ]
        self._changed_index: ClaimIndex | None = None
        self._whole: ClaimIndex | None = None  # built only when a claim is looked for there
        self._df: dict[str, int] | None = None
        self._flat: str | None = None
        self._titles: set[str] | None = None
        self._scripts: tuple[dict[str, float], dict[str, float]] | None = None
        self.derived: dict[str, list[Entry]] = defaultdict(list)
        if any(map(_DERIVED_FROM, new.entries)):  # (most pads: none, looked for in C)
            for n in new.entries:
                for ref in n.derived_from:
                    self.derived[ref].append(n)
        self.declared = False  # some loss was declared (derived_from or a loss record)
        self.lost_claims = 0  # claims carried nowhere, undeclared
        self.count_lost = True

    def heirs(self, o: Entry, n: Entry | None) -> list[Entry]:
        if not self.derived:
            return []
        ref = o.label if o.id is None else o.id
        out = {h.index: h for h in self.derived.get(ref, ()) if h is not n}
        return list(out.values())

    def named(self, o: Entry) -> bool:
        body = normalize(o.text)
        return any(r.names(o, body) for r in self.records)

    def heading_named(self, o: Entry) -> bool:
        """Does a loss record name the section the entry sat in ("removed the "Flaky test
        handling" section")? Then everything under that heading went on the record."""
        title = o.context[-1] if o.context else o.kind.replace("_", " ")
        flat = normalize(DATE_TAIL.sub("", title)).strip(" #*:")
        if len(flat) < 8 or " " not in flat:
            return False  # a one-word heading ("Notes") names nothing in particular
        return any(flat in t for t in self.new_record_texts)

    def described(self, text: str) -> bool:
        """Does a loss record describe this text by its own words ("removed the obsolete
        seaborn style-name lesson")? Two of its content words, one of them rare in the old
        version (a word every entry shares names none of them)."""
        if not self.record_stems:
            return False
        mine = stems(text)
        for words in self.record_stems:
            shared = mine & words
            if len(shared) >= 2 and any(self.df().get(w, 0) <= 2 for w in shared):
                return True
        return False

    def df(self) -> dict[str, int]:
        if self._df is None:
            self._df = defaultdict(int)
            for e in self.old.entries:
                for w in stems(e.text):
                    self._df[w] += 1
        return self._df

    def anywhere(self, name: str) -> bool:
        """Does the new version still say this name, anywhere?"""
        if self._flat is None:
            self._flat = normalize("\n".join(e.text for e in self.new.entries))
        return keeps_name(name, self._flat)

    def stood(self, c: NewClaim) -> bool:
        """Did this new claim stand in the old version as it stands now (in the entry its
        entry was matched to)? Then it is a rule of its own, not where another one went."""
        o = self.back.get(c.entry)
        if o is None:
            return False
        old = self.old.entries[o]
        if old.text == self.new.entries[c.entry].text:
            return True
        return normalize(c.body) in _bodies(old.text)

    def places(self, own: ClaimIndex, declared: bool) -> Iterator[ClaimIndex]:
        """Where an old claim is looked for, in turn: where its entry went, the entries this
        rewrite wrote or edited, then (for a loss not declared) the whole version, whose
        index is built only when a claim gets that far (most rewrites of a large pad change
        a few entries, and their claims are found among those)."""
        yield own
        yield self.changed_index()
        if not declared:
            if self._whole is None:
                self._whole = ClaimIndex(self.new.entries)
            yield self._whole

    def changed_index(self) -> ClaimIndex:
        if self._changed_index is None:
            self._changed_index = ClaimIndex(self.changed)
        return self._changed_index

    def sealed(self, o: Entry, n: Entry | None) -> list[Finding]:
        out: list[Finding] = []
        if o is n or (not o.sealed and o.kind != "loss_record"):
            return out  # the same entry, or one this check is not about
        what = f"sealed {_what(o)}"
        if o.sealed and n is None:
            out.append(
                Finding(
                    FindingCode.SEALED_REMOVED,
                    (o.label,),
                    f"{what} is gone from the append-only region",
                    o.text,
                    None,
                    (Reason.GONE,),
                )
            )
        elif o.sealed and n is not None:
            if n.text != o.text:
                out.append(
                    Finding(
                        FindingCode.SEALED_EDITED,
                        (o.label,),
                        f"{what} was rewritten in the append-only region",
                        *_changed_part(o.text, n.text),
                        _edited_reasons(o.text, n.text),
                    )
                )
            elif n.kind != o.kind:
                out.append(
                    Finding(
                        FindingCode.SEALED_EDITED,
                        (o.label,),
                        f"{what} was changed into a {n.kind.replace('_', ' ')}",
                        o.text,
                        n.text,
                    )
                )
            if not n.sealed:
                out.append(
                    Finding(
                        FindingCode.SEALED_UNSEALED,
                        (o.label,),
                        f"{what} was moved out of the sealed region",
                        o.text,
                        n.text,
                    )
                )
        if o.kind == "loss_record" and n is None and not self._record_kept(o):
            out.append(
                Finding(
                    FindingCode.LOSS_RECORD_EVICTED,
                    (o.label,),
                    f"loss record {o.label} was evicted: the record of an earlier loss is lost",
                    o.text,
                    None,
                    (Reason.GONE,),
                )
            )
        return out

    def _record_kept(self, o: Entry) -> bool:
        """A record folded verbatim into another loss record still says what it said."""
        body = normalize(o.text)
        return bool(body) and any(body in t for t in self.record_texts)

    def claims(self, o: Entry, n: Entry | None) -> list[Finding]:
        """Each claim of ``o`` carried, weakened, declared or lost."""
        if o.kind == "loss_record":
            return []  # reported as LOSS_RECORD_EVICTED
        if n is not None and n.text == o.text and n.context == o.context and not self.derived:
            if n.kind != o.kind and o.kind in CAUTION_KINDS and _rewritable_elsewhere([n]):
                return [_demoted(o, [n])]
            return []  # the same text in the same place (the common case: said first)
        heirs = self.heirs(o, n)
        if n is not None and not heirs and n.text == o.text and n.context == o.context:
            if n.kind != o.kind and o.kind in CAUTION_KINDS and _rewritable_elsewhere([n]):
                return [_demoted(o, [n])]
            return []  # the same text in the same place
        named = self.named(o) or self.heading_named(o)
        if heirs or named:
            self.declared = True
        rules = {r.text: r for r in entry_rules(o, self.old_map)}
        own = ClaimIndex([e for e in (n, *heirs) if e is not None])
        weak: list[tuple[OldClaim, NewClaim, tuple[str, ...]]] = []
        weak_reasons: list[Reason] = []
        tight: list[tuple[OldClaim, NewClaim, Carry]] = []
        unsure: list[tuple[OldClaim, NewClaim, Carry]] = []
        doubted: list[OldClaim] = []  # rules only by their place, carried nowhere
        foreign: list[OldClaim] = []  # rules of a pad rewritten into another language
        lost: list[OldClaim] = []
        plain = lost_plain = 0
        gone_plain: list[str] = []
        carriers: set[int] = set()
        kinds: list[str] = []
        declared = bool(heirs or named)
        for c in old_claims(o, list(rules.values())):
            if not c.rule and (declared or (n is not None and not self.count_lost)):
                continue  # a declared loss, or an edit while no claim was lost overall
            # a declared entry's rules are looked for where it went, not in the whole pad
            carry = find(c, self.places(own, declared), self.stood, anywhere=self.anywhere)
            if not c.rule:
                if carry.found is None and self.translated(c.body):
                    continue  # (said in the other language, as far as the audit can tell)
                plain += 1
                if carry.found is None:
                    lost_plain += 1
                    if len(stems(c.body)) >= 3:  # ("Partner: none": too little to tell)
                        gone_plain.append(c.text)
                elif n is not None and not heirs and not named:
                    carry = find(
                        c,
                        self.places(own, declared),
                        self.stood,
                        loose=False,
                        anywhere=self.anywhere,
                    )
                if carry.found is None and n is not None and not heirs and not named:
                    self.lost_claims += 1  # an edit that lost a claim (not an entry)
                continue
            if carry.found is not None and carry.lost and self._other(o, n, heirs, carry.found):
                carry = Carry(None)  # weakened in another entry: not where this one went
            if carry.carried and carry.found is not None:
                carriers.add(carry.found.entry)
                if carry.tighter:
                    tight.append((c, carry.found, carry))
            elif carry.found is not None and not carry.lost:
                carriers.add(carry.found.entry)
                unsure.append((c, carry.found, carry))
            elif carry.found is not None and self.placed(o, rules[c.text], c):
                carriers.add(carry.found.entry)
                unsure.append((c, carry.found, _doubt(carry)))
            elif carry.found is not None:
                weak.append((c, carry.found, carry.lost))
                weak_reasons += [ch.reason for ch in carry.changes if ch.way == LOOSER]
                kinds.append(rules[c.text].kind)
            elif heirs or not (named or self.described(c.body)):
                if self.translated(c.body):
                    foreign.append(c)
                    continue
                if self.placed(o, rules[c.text], c):
                    doubted.append(c)
                    continue
                lost.append(c)
                kinds.append(rules[c.text].kind)
            else:
                self.declared = True
        out: list[Finding] = []
        what = _rule_what(o, kinds, rules)
        if weak:
            at = [self.new.entries[i] for i in sorted({f.entry for _, f, _ in weak})]
            many = len(rules) > 1
            reasons = _union(
                (f"{r} in {cut(c.body, 40)!r}" if many else r) for c, _, why in weak for r in why
            )
            into = ", ".join(e.label for e in at if e.label != o.label)
            now = f" (now in {into})" if into else ""
            out.append(
                Finding(
                    FindingCode.CONSTRAINT_WEAKENED,
                    _labels(o, at),
                    _short(f"{what} lost {reasons}{now}"),
                    _part(o.text, [c.text for c, _, _ in weak]),
                    _part("\n".join(e.text for e in at), [f.text for _, f, _ in weak]),
                    _reasons(weak_reasons),
                )
            )
        if lost and (heirs or n is not None):
            went = [e for e in (n, *heirs) if e is not None]
            after = "\n".join(e.text for e in went)
            said = _explain([c.text for c in lost], after)
            how = f"was condensed into {', '.join(_what(h) for h in heirs)}" if heirs else ""
            how = how or "was rewritten"
            out.append(
                Finding(
                    FindingCode.CONSTRAINT_WEAKENED,
                    _labels(o, went),
                    _short(f"{what} {how} and lost {said}"),
                    _part(o.text, [c.text for c in lost]),
                    cut(after, 400) if heirs else None,
                    _said_reasons(said),
                )
            )
        elif lost:
            out.append(
                Finding(
                    FindingCode.CONSTRAINT_DROPPED,
                    (o.label,),
                    _short(f"{what} is gone: carried nowhere, and no loss record names it"),
                    _part(o.text, [c.text for c in lost]),
                    None,
                    (Reason.GONE,),
                )
            )
        out += _changed(FindingCode.RULE_TIGHTENED, o, what, tight, self.new, TIGHTER)
        out += _changed(FindingCode.RULE_UNCERTAIN, o, what, unsure, self.new, UNSURE)
        if doubted:
            out.append(
                Finding(
                    FindingCode.RULE_UNCERTAIN,
                    (o.label,),
                    _short(
                        f"{_what(o)} is carried nowhere: a rule only by the heading it sat "
                        "under (its own words bind nobody), and no loss record names it"
                    ),
                    _part(o.text, [c.text for c in doubted]),
                    None,
                    (Reason.GONE,),
                )
            )
        if foreign:
            out.append(
                Finding(
                    FindingCode.RULE_UNCERTAIN,
                    (o.label,),
                    _short(
                        f"{_what(o)}: the pad was rewritten in another language, and the audit "
                        "cannot match this rule word for word: read it in the new version"
                    ),
                    _part(o.text, [c.text for c in foreign]),
                    None,
                )
            )
        holders = heirs or [self.new.entries[i] for i in sorted(carriers)]
        if (
            o.kind in CAUTION_KINDS
            and holders
            and (heirs or not out)
            and _rewritable_elsewhere(holders)
            and (heirs or not any(self._ruled_place(h) for h in holders))
        ):
            out.append(_demoted(o, holders))
        # an edit that left out what the entry said (not an update of it in place)
        left_out = n is not None and gone_plain and not declared and not o.sealed
        if left_out and n is not None and not any(self.described(t) for t in gone_plain):
            out.append(
                Finding(
                    FindingCode.UNDECLARED_LOSS,
                    _labels(o, [n]),
                    _short(
                        f"{_what(o)} was rewritten without {len(gone_plain)} of its claims, "
                        "carried nowhere, and no loss record names them"
                    ),
                    "\n".join(dict.fromkeys(gone_plain)),
                    None,
                    (Reason.GONE,),
                )
            )
        if n is None and not heirs and not named and plain and not o.sealed:
            if lost_plain * 2 > plain and not self.described(o.text):
                self.lost_claims += lost_plain
                out.append(
                    Finding(
                        FindingCode.UNDECLARED_LOSS,
                        (o.label,),
                        _short(
                            f"{_what(o)} is gone ({lost_plain} of {plain} claims carried "
                            "nowhere), and no derived_from or loss record names it"
                        ),
                        o.text,
                        None,
                        (Reason.GONE,),
                    )
                )
            elif lost_plain and self.described(o.text):
                self.declared = True
        return out

    def placed(self, o: Entry, rule: Rule, c: OldClaim) -> bool:
        """A rule only by the title of the whole file ("# Claude Code Instructions" over
        "## Claude-Specific" and "MCP servers: memory, 4da (31 tools)"): its own words, its
        section's heading and what lends it force bind nobody. Losing or changing one is no
        strong evidence: the audit says so as a warning, not as corruption."""
        if rule.kind != "instruction" or rule.lent is not None or len(o.context) < 2:
            return False
        label = c.label or c.body.split(":", 1)[0] if ":" in c.body[:40] else c.label
        if imperative(c.body) or (label and self.old_map.names_rules(label)):
            return False  # "Use it verbatim ...", "Subagent rules: spawn for ..."
        if o.kind in CAUTION_KINDS or _slug(o.context[0]) == o.kind:
            return False  # (the outer heading is the entry's own section)
        if self._titles is None:
            self._titles = {e.context[0] for e in self.old.entries if e.context}
        if len(self._titles) > 1:
            return False  # one of several "#" sections ("# Lessons"), not the file's title
        inner = [*o.context[1:], *(h for c in entry_claims(o.text) for h in c.headings)]
        return all(self.old_map.names_rules(t) is None for t in inner)

    def translated(self, text: str) -> bool:
        """Was the pad rewritten into another script than this rule's (English into
        Japanese)? A rule restated in another language is carried; the audit cannot match
        it word for word, so its loss is uncertain, not corruption."""
        if self._scripts is None:
            self._scripts = (_scripts(_all_text(self.old)), _scripts(_all_text(self.new)))
        was, now = self._scripts
        mine = _script(text)
        if mine is None or not now:
            return False  # (an empty version moved into no other script)
        return was.get(mine, 0) >= 0.6 and now.get(mine, 0) <= 0.3

    def _other(self, o: Entry, n: Entry | None, heirs: list[Entry], c: NewClaim) -> bool:
        """Is the entry a weakened rule was found in another entry than the one ``o``
        became (an entry of another id, while ``o``'s own is gone)?"""
        if n is not None or heirs or o.id is None:
            return False
        e = self.new.entries[c.entry]
        return e.id is not None and e.id != o.id

    def _ruled_place(self, e: Entry) -> bool:
        return rules_place(e, self.new_map)[0] is not None


_SCRIPTS = (
    ("cjk", re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")),
    ("hangul", re.compile(r"[\uac00-\ud7af]")),
    ("cyrillic", re.compile(r"[\u0400-\u04ff]")),
    ("latin", re.compile(r"[A-Za-z\u00c0-\u024f]")),
)


def _scripts(text: str) -> dict[str, float]:
    """The share of a text's letters written in each script (a Japanese or Chinese character
    counts for three letters of English: it says about as much), code left out."""
    prose = re.sub(r"```.*?```|`[^`\n]*`", " ", text, flags=re.S)
    counts = {name: len(p.findall(prose)) * (3 if name == "cjk" else 1) for name, p in _SCRIPTS}
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()} if total else {}


def _script(text: str) -> str | None:
    """The script most of a text's letters are written in."""
    shares = _scripts(text)
    return max(shares, key=lambda k: shares[k]) if shares else None


def _all_text(pad: Pad) -> str:
    return "\n".join(e.text for e in pad.entries)


def _slug(title: str) -> str:
    return "_".join(re.findall(r"\w+", DATE_TAIL.sub("", title).lower()))


def _doubt(carry: Carry) -> Carry:
    """A carry's changes all read as changes it cannot be sure of."""
    changes = tuple(replace(ch, way=UNSURE) for ch in carry.changes if ch.way != TIGHTER)
    return replace(carry, changes=changes)


def _reasons(reasons: Iterable[Reason]) -> tuple[Reason, ...]:
    """The reasons, each once, in the order of ``Reason``."""
    have = set(reasons)
    return tuple(r for r in Reason if r in have)


def _said_reasons(said: str) -> tuple[Reason, ...]:
    """The reasons of a rule rewritten out of its entry (``wording.weakening``'s words)."""
    found = [Reason.GONE]
    if "prohibition" in said or "negation" in said:
        found.append(Reason.POLARITY)
    if "number" in said:
        found.append(Reason.NUMBER)
    if "name" in said:
        found.append(Reason.NAME)
    return _reasons(found)


def _edited_reasons(before: str, after: str) -> tuple[Reason, ...]:
    """What an edit of a sealed entry changed of what it says (none found: its wording)."""
    said = "; ".join(weakening(before, after))
    return tuple(r for r in _said_reasons(said) if r != Reason.GONE)


def _changed(
    code: FindingCode,
    o: Entry,
    what: str,
    rules: Sequence[tuple[OldClaim, NewClaim, Carry]],
    new: Pad,
    way: str,
) -> list[Finding]:
    """A warning for the rules carried stricter than before, or changed in a way the audit
    cannot read with confidence: each rule before and after, and what changed."""
    if not rules:
        return []
    at = [new.entries[i] for i in sorted({f.entry for _, f, _ in rules})]
    changes = [ch for _, _, carry in rules for ch in carry.changes if ch.way == way]
    said = _union(ch.text for ch in changes)
    verb = "was made stricter:" if way == TIGHTER else "changed in a way the audit cannot read:"
    return [
        Finding(
            code,
            _labels(o, at),
            _short(f"{what} {verb} {said}"),
            "\n".join(dict.fromkeys(c.text for c, _, _ in rules)),
            "\n".join(dict.fromkeys(f.text for _, f, _ in rules)),
            _reasons(ch.reason for ch in changes),
        )
    ]


def _union(items: Iterable[str]) -> str:
    seen: list[str] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return "; ".join(seen)


def _explain(claims: Sequence[str], after: str) -> str:
    """What words the lost rules took with them ("its prohibition ('not'); number '5xx'")."""
    said = weakening("\n".join(claims), after)
    return "; ".join(said) if said else "the rule " + repr(cut(claims[0], 50))


def _short(message: str, width: int = 160) -> str:
    return cut(message, width)


def _part(text: str, claims: Sequence[str]) -> str:
    """An entry's text when short; else the claims that changed (not the head of a long
    entry)."""
    if len(text) <= 400 or not claims:
        return text if len(text) <= 400 else cut(text, 400)
    return "\n".join(dict.fromkeys(claims))


@lru_cache(maxsize=4096)
def _bodies(text: str) -> frozenset[str]:
    return frozenset(normalize(c.body) for c in entry_claims(text))


def _labels(o: Entry, into: Sequence[Entry]) -> tuple[str, ...]:
    """The old entry, then where it went (itself, under the same label, not twice)."""
    return (o.label, *dict.fromkeys(e.label for e in into if e.label != o.label))


def _changed_part(before: str, after: str) -> tuple[str, str]:
    """The sentences that differ between two texts (not the head of a long entry)."""
    a, b = split_claims(before), split_claims(after)
    if len(before) <= 400 and len(after) <= 400:
        return before, after
    gone = [c for c in a if c not in set(b)]
    came = [c for c in b if c not in set(a)]
    return ("\n".join(gone) or cut(before, 400), "\n".join(came) or cut(after, 400))


def _rewritable_elsewhere(entries: Iterable[Entry]) -> bool:
    return all(h.kind not in CAUTION_KINDS and not h.sealed for h in entries)


def _demoted(o: Entry, holders: Sequence[Entry]) -> Finding:
    where = ", ".join(_what(h) for h in holders)
    return Finding(
        FindingCode.CONSTRAINT_DEMOTED,
        (o.label, *(h.label for h in holders)),
        f"{_what(o)} now lives only inside rewritable {where}, where the next budget pass "
        "can drop it",
        o.text,
        "\n".join(h.text for h in holders),
    )


CAUTION_DROP = 0.05  # a fall of the rules' share by 5 points or more


def _pad_findings(
    ctx: _Rewrite, before: _Totals, after: _Totals, counter: TokenCounter
) -> list[Finding]:
    out = []
    if after.claims < before.claims and ctx.lost_claims:
        out.append(
            Finding(
                FindingCode.CLAIMS_REDUCED,
                (),
                f"claims fell from {before.claims} to {after.claims}, {ctx.lost_claims} of "
                f"them carried nowhere and undeclared (tokens per claim {_per(before)} -> "
                f"{_per(after)}): claim reduction, where constraints die, not compression",
                str(before.claims),
                str(after.claims),
            )
        )
    if after.tokens < before.tokens:
        was = rule_share(ctx.old, before.costs, ctx.old_map)
        now = rule_share(ctx.new, after.costs, ctx.new_map)
        if was - now >= CAUTION_DROP:
            out.append(
                Finding(
                    FindingCode.CAUTION_FALLING,
                    (),
                    f"the pad shrank ({before.tokens} -> {after.tokens} tokens) and the share "
                    f"of its tokens that state rules fell ({_pct(was, now)}): the agent grows "
                    "more decisive as its memory degrades",
                    f"{was:.3f}",
                    f"{now:.3f}",
                )
            )
    return out


def _pct(a: float, b: float) -> str:
    for digits in (0, 1, 2):
        x, y = f"{a:.{digits}%}", f"{b:.{digits}%}"
        if x != y:
            break
    return f"{x} -> {y}"


def _per(t: _Totals) -> str:
    return f"{t.tokens / t.claims:.1f}" if t.claims else "-"


_DEFAULTS: dict[str, Any] = {"sealed": False, "derived_from": [], "id": None, "op": None}


def _content(e: Entry) -> dict[str, Any]:
    """An entry's content, whatever the file's formatting: defaults written out or left out
    (``"sealed": false``, ``"derived_from": []``) and key order do not count."""
    out = e.as_dict()
    for key, default in _DEFAULTS.items():
        if key in out and (out[key] == default or out[key] is None):
            del out[key]
    return out


def _same_content(
    old: Pad, new: Pad, matches: dict[int, tuple[int, str]], ends: tuple[int, int] = (0, 0)
) -> bool:
    """The same entries, in any order, under the same headings. (``ends``: the entries at
    the two ends paired with themselves, the very objects, looked at no further.)"""
    if len(old.entries) != len(new.entries) or len(matches) != len(old.entries):
        return False  # (an entry came or went: most rewrites, told apart at once)
    head, tail = ends
    between = old.entries[head : len(old.entries) - tail]
    pairs = [(o, new.entries[matches[o.index][0]]) for o in between]
    if not all(a is b or (a.text == b.text and a.context == b.context) for a, b in pairs):
        return False
    key = lambda e: json.dumps([_content(e), list(e.context)], sort_keys=True)  # noqa: E731
    return sorted(map(key, old.entries)) == sorted(map(key, new.entries))


def _same_words(old: Pad, new: Pad, ends: tuple[int, int]) -> bool:
    """The same words in the same places, only white space changed (a blank line taken out,
    line endings, indentation): no rewrite at all. The entries the two versions share at
    their ends (``ends``: the very objects) say the same words in both, so only those
    between are compared, with the heading they follow and the first shared entry after."""
    olds, news = old.entries, new.entries
    if len(olds) == len(news) and all(
        a.text == b.text and a.context == b.context for a, b in zip(olds, news, strict=True)
    ):
        return False  # (the same texts: told apart by _same_content, not by white space)
    a, t = ends
    head = _head(olds[a - 1]) if a else None
    after = 1 if t else 0  # (its heading is written again when the one before it differs)
    return _flat_words(olds[a : len(olds) - t + after], head) == _flat_words(
        news[a : len(news) - t + after], head
    )


def _head(e: Entry) -> tuple[object, ...]:
    titles = tuple(t for t in e.context if t.strip())  # (an empty "# " heading says nothing)
    return (titles, e.kind, e.sealed, e.id, tuple(e.derived_from))


def _flat_words(entries: Sequence[Entry], head: tuple[object, ...] | None) -> list[str]:
    parts: list[str] = []
    for e in entries:
        now = _head(e)
        if now != head:
            parts.append(repr(now))
            head = now
        parts.append(e.text)
    return " ".join(parts).split()


def _verdict(
    old: Pad,
    matches: dict[int, tuple[int, str]],
    findings: Sequence[Finding],
    ctx: _Rewrite,
    before: _Totals,
    after: _Totals,
) -> Verdict:
    if any(f.severity == CRITICAL for f in findings):
        return Verdict.CORRUPTION
    if any(
        f.code == FindingCode.UNDECLARED_LOSS
        or (f.code == FindingCode.RULE_UNCERTAIN and Reason.GONE in f.reasons)
        for f in findings
    ):
        return Verdict.UNDECLARED_LOSS
    # a version that grew and lost nothing grew, whatever entries it joined or rewrote
    removed = len(matches) < len(old.entries) and after.tokens <= before.tokens
    if removed or ctx.declared or after.tokens < before.tokens:
        return Verdict.COMPACTION
    return Verdict.GROWTH
