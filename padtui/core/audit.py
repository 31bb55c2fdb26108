"""Audit of one rewrite (SPEC section 4): a declared compaction, or corruption?

Entries of the old version are matched to the new one by ``id``, else by exact kind and
text, else by close text within the same kind. Every loss is then checked against what the
new version declares (``derived_from``, loss records), and every constraint against what it
says (prohibitions, numbers, named objects).

False alarms matter as much as missed ones: a critical finding on an honest rewrite teaches
a person to ignore the alarm. So an entry whose text survives verbatim (a duplicate removed,
an entry folded into another) is not lost; a constraint reworded with its prohibition,
numbers and names intact ("Never retry writes after a 5xx" for "Do not retry writes after a
5xx") is not weakened; and one whose every claim another protected entry carries whole (a
constraint split in two, or re-written under a new id) is not dropped. A prohibition is
checked claim by claim, so a negation elsewhere in a condensed text does not stand in for
the one that was lost.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from padtui.core.claims import pad_claims, split_claims
from padtui.core.matching import match
from padtui.core.model import CAUTION_KINDS, Entry, Pad
from padtui.core.tokens import TokenCounter, counter_for
from padtui.core.wording import (
    NEGATION,
    RecordNames,
    normalize,
    weakening,
    word_stems,
)

CRITICAL = "critical"
WARNING = "warning"
SEVERITY = {
    "SEALED_REMOVED": CRITICAL,
    "SEALED_EDITED": CRITICAL,
    "SEALED_UNSEALED": CRITICAL,
    "LOSS_RECORD_EVICTED": CRITICAL,
    "CONSTRAINT_DROPPED": CRITICAL,
    "CONSTRAINT_WEAKENED": CRITICAL,
    "CONSTRAINT_DEMOTED": WARNING,
    "UNDECLARED_LOSS": WARNING,
    "CLAIMS_REDUCED": WARNING,
    "CAUTION_FALLING": WARNING,
}
VERDICTS = ("unchanged", "growth", "compaction", "undeclared_loss", "corruption")


@dataclass(frozen=True)
class Finding:
    """One thing an audit noticed about a transition, with the text before and after."""

    code: str
    entries: tuple[str, ...]
    message: str
    before: str | None = None
    after: str | None = None

    @property
    def severity(self) -> str:
        return SEVERITY[self.code]

    def as_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "entries": list(self.entries),
            "message": self.message,
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True)
class Audit:
    """The findings and verdict of one transition ``old -> new``."""

    verdict: str
    findings: tuple[Finding, ...]
    matches: dict[int, tuple[int, str]]  # old index -> (new index, "id"|"exact"|"close")
    tokens_before: int
    tokens_after: int
    claims_before: int
    claims_after: int

    @property
    def critical(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == CRITICAL)

    @property
    def codes(self) -> list[str]:
        return [f.code for f in self.findings]

    def as_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "findings": [f.as_json() for f in self.findings],
            "tokens": {"before": self.tokens_before, "after": self.tokens_after},
            "claims": {"before": self.claims_before, "after": self.claims_after},
        }


# --- the audit -----------------------------------------------------------------------------


def audit(old: Pad, new: Pad, counter: TokenCounter | None = None) -> Audit:
    """Findings and verdict of the transition from ``old`` to ``new``."""
    counter = counter or counter_for(new.encoding or old.encoding)
    matches = match(old, new)
    ctx = _Ctx(old, new, matches)
    findings: list[Finding] = []
    for o in old.entries:
        hit = matches.get(o.index)
        n = new.entries[hit[0]] if hit else None
        findings += ctx.sealed(o, n)
        if o.kind in CAUTION_KINDS:
            findings += ctx.caution(o, n)
        elif n is None:
            findings += ctx.lost(o)
    before = totals(old, counter)
    after = totals(new, counter)
    if _same_content(old, new):
        return Audit(
            "unchanged", (), matches, before.tokens, after.tokens, before.claims, after.claims
        )
    findings += _pad_findings(before, after)
    verdict = _verdict(old, matches, findings, ctx, before, after)
    return Audit(
        verdict, tuple(findings), matches, before.tokens, after.tokens, before.claims, after.claims
    )


@dataclass
class _Totals:
    """A version's tokens (all, constraints and negative facts, sealed) and claims."""

    tokens: int
    caution: int
    claims: int
    sealed: int = 0

    def __init__(self, pad: Pad, counter: TokenCounter) -> None:
        costs = counter.count_many(e.text for e in pad.entries)
        self.tokens = sum(costs)
        caution = sealed = 0
        for e, c in zip(pad.entries, costs, strict=True):
            if e.kind in CAUTION_KINDS:
                caution += c
            if e.sealed:
                sealed += c
        self.caution, self.sealed = caution, sealed
        self.claims = pad_claims(pad.entries)

    @property
    def share(self) -> float:
        return self.caution / self.tokens if self.tokens else 0.0


# The totals of the last few pads counted: a live audit of v1 -> v2, then v2 -> v3, counts v2
# once (and the inspection that took v2 in has counted it already).
_RECENT = 8
_recent: dict[tuple[int, int], tuple[Pad, TokenCounter, _Totals]] = {}
_recent_lock = threading.Lock()


def totals(pad: Pad, counter: TokenCounter) -> _Totals:
    """The pad's totals with this counter (remembered for the last few pads)."""
    key = (id(pad), id(counter))
    with _recent_lock:
        hit = _recent.get(key)
    if hit is not None and hit[0] is pad and hit[1] is counter:
        return hit[2]
    got = _Totals(pad, counter)
    with _recent_lock:
        _recent[key] = (pad, counter, got)  # (the pad is held, so its id is not reused)
        while len(_recent) > _RECENT:
            del _recent[next(iter(_recent))]
    return got


def _what(e: Entry) -> str:
    return f"{e.kind.replace('_', ' ')} {e.label}"


def _rewritable_elsewhere(entries: Iterable[Entry]) -> bool:
    return all(h.kind not in CAUTION_KINDS and not h.sealed for h in entries)


class _Ctx:
    def __init__(self, old: Pad, new: Pad, matches: dict[int, tuple[int, str]]) -> None:
        self.old, self.new = old, new
        matched = {n: o for o, (n, _) in matches.items()}
        # records that this rewrite wrote: their "#N" labels count old positions
        self.records = [
            RecordNames(e, e.index not in matched) for e in new.entries if e.kind == "loss_record"
        ]
        self.record_texts = [normalize(e.text) for e in new.entries if e.kind == "loss_record"]
        # where a lost entry's text may live on: new entries, or edited ones, or any entry
        # with the very same text (a duplicate removed)
        self.changed = [
            e
            for e in new.entries
            if e.index not in matched or old.entries[matched[e.index]].text != e.text
        ]
        self.changed_flat = [normalize(e.text) for e in self.changed]
        self.protected_changed = [
            e
            for e in self.changed
            if e.kind in CAUTION_KINDS or (e.sealed and e.kind != "loss_record")
        ]
        self._carrier_index: _Carriers | None = None
        self._same_text: dict[str, list[Entry]] | None = None  # built when first needed
        self.derived: dict[str, list[Entry]] = defaultdict(list)
        for n in new.entries:
            for ref in n.derived_from:
                self.derived[ref].append(n)
        self.declared = False  # some loss was declared (derived_from or a loss record)

    def same_text(self) -> dict[str, list[Entry]]:
        """New entries by their text (normalized): where a lost entry may live on whole.
        Built only when an entry is lost: most rewrites of a large pad lose none."""
        if self._same_text is None:
            self._same_text = defaultdict(list)
            for e in self.new.entries:
                self._same_text[normalize(e.text)].append(e)
        return self._same_text

    def heirs(self, o: Entry, n: Entry | None) -> list[Entry]:
        ref = o.label if o.id is None else o.id
        out = {h.index: h for h in self.derived.get(ref, ()) if h is not n}
        return list(out.values())

    def holders(self, o: Entry) -> list[Entry]:
        """New entries that hold this old entry's text verbatim."""
        body = normalize(o.text)
        if not body:
            return []
        out = {e.index: e for e in self.same_text().get(body, ())}
        for e, flat in zip(self.changed, self.changed_flat, strict=True):
            if body in flat:
                out.setdefault(e.index, e)
        return [out[i] for i in sorted(out)]

    def named(self, o: Entry) -> bool:
        body = normalize(o.text)
        return any(r.names(o, body) for r in self.records)

    def sealed(self, o: Entry, n: Entry | None) -> list[Finding]:
        out: list[Finding] = []
        if o is n or (not o.sealed and o.kind != "loss_record"):
            return out  # the same entry, or one this check is not about
        what = f"sealed {_what(o)}"
        if o.sealed and n is None:
            out.append(
                Finding(
                    "SEALED_REMOVED",
                    (o.label,),
                    f"{what} is gone from the append-only region",
                    o.text,
                    None,
                )
            )
        elif o.sealed and n is not None:
            if n.text != o.text:
                out.append(
                    Finding(
                        "SEALED_EDITED",
                        (o.label,),
                        f"{what} was rewritten in the append-only region",
                        o.text,
                        n.text,
                    )
                )
            elif n.kind != o.kind:
                out.append(
                    Finding(
                        "SEALED_EDITED",
                        (o.label,),
                        f"{what} was changed into a {n.kind.replace('_', ' ')}",
                        o.text,
                        n.text,
                    )
                )
            if not n.sealed:
                out.append(
                    Finding(
                        "SEALED_UNSEALED",
                        (o.label,),
                        f"{what} was moved out of the sealed region",
                        o.text,
                        n.text,
                    )
                )
        if o.kind == "loss_record" and n is None and not self._record_kept(o):
            out.append(
                Finding(
                    "LOSS_RECORD_EVICTED",
                    (o.label,),
                    f"loss record {o.label} was evicted: the record of an earlier loss is lost",
                    o.text,
                    None,
                )
            )
        return out

    def _record_kept(self, o: Entry) -> bool:
        """A record folded verbatim into another loss record still says what it said."""
        body = normalize(o.text)
        return bool(body) and any(body in t for t in self.record_texts)

    def caution(self, o: Entry, n: Entry | None) -> list[Finding]:
        heirs = self.heirs(o, n)
        if n is not None:
            out = []
            if n.text != o.text or heirs:
                lost = self._weakened(o, [n, *heirs])
                if lost:
                    into = "" if not heirs else " into " + ", ".join(_what(h) for h in heirs)
                    out.append(
                        Finding(
                            "CONSTRAINT_WEAKENED",
                            (o.label, *(h.label for h in heirs)),
                            f"{_what(o)} was rewritten{into} and lost " + "; ".join(lost),
                            o.text,
                            "\n".join(e.text for e in [n, *heirs]),
                        )
                    )
            if _rewritable_elsewhere([n, *heirs]) and not self._carried_whole(o):
                out.append(_demoted(o, [n, *heirs]))
            return out
        if heirs:
            self.declared = True
            return self._condensed(o, heirs)
        holders = self.holders(o)
        if holders:
            if _rewritable_elsewhere(holders) and not self._carried_whole(o):
                return [_demoted(o, holders)]
            return []
        if self.named(o):
            self.declared = True
            return []
        if self._carried_whole(o):
            return []  # reworded into other protected entries, every claim intact
        return [
            Finding(
                "CONSTRAINT_DROPPED",
                (o.label,),
                f"{_what(o)} is gone and no loss record names it",
                o.text,
                None,
            )
        ]

    def _condensed(self, o: Entry, heirs: list[Entry]) -> list[Finding]:
        into = ", ".join(_what(h) for h in heirs)
        after = "\n".join(h.text for h in heirs)
        out = []
        lost = self._weakened(o, heirs)
        if lost:
            out.append(
                Finding(
                    "CONSTRAINT_WEAKENED",
                    (o.label, *(h.label for h in heirs)),
                    f"{_what(o)} was condensed into {into} and lost " + "; ".join(lost),
                    o.text,
                    after,
                )
            )
        if _rewritable_elsewhere(heirs) and not self._carried_whole(o):
            out.append(_demoted(o, heirs))
        return out

    def _weakened(self, o: Entry, into: Sequence[Entry]) -> list[str]:
        """What the entries ``o`` became lost of it, once claims that other protected
        entries carry whole (a constraint split in two, say) are set aside."""
        after = "\n".join(e.text for e in into)
        lost = weakening(o.text, after)
        if not lost:
            return []
        rest = self._uncarried(o, exclude={e.index for e in into})
        if len(rest) == len(split_claims(o.text)):
            return lost
        return weakening("\n".join(rest), after) if rest else []

    def _carried_whole(self, o: Entry) -> bool:
        return bool(split_claims(o.text)) and not self._uncarried(o)

    def _uncarried(self, o: Entry, exclude: set[int] | frozenset[int] = frozenset()) -> list[str]:
        """The claims of ``o`` that no protected entry new or edited in this version carries
        whole: with its prohibition, every content word, number and name."""
        index = self._carriers()
        return [c for c in split_claims(o.text) if not index.carries(c, exclude)]

    def _carriers(self) -> _Carriers:
        if self._carrier_index is None:
            self._carrier_index = _Carriers(self.protected_changed)
        return self._carrier_index

    def lost(self, o: Entry) -> list[Finding]:
        if o.kind == "loss_record" or o.sealed:
            return []  # reported as LOSS_RECORD_EVICTED / SEALED_REMOVED
        if self.heirs(o, None) or self.named(o):
            self.declared = True
            return []
        if self.holders(o):
            return []
        return [
            Finding(
                "UNDECLARED_LOSS",
                (o.label,),
                f"{_what(o)} is gone with no derived_from pointing at it and no loss "
                "record naming it",
                o.text,
                None,
            )
        ]


class _Carriers:
    """The claims of some entries, indexed by content word, to find one that carries a
    given claim whole (its prohibition, every content word, number and name)."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.claims: list[tuple[int, str, bool]] = []  # entry index, claim, negated
        self.by_stem: dict[str, set[int]] = defaultdict(set)
        for e in entries:
            for claim in split_claims(e.text):
                for stem in word_stems(claim):
                    self.by_stem[stem].add(len(self.claims))
                self.claims.append((e.index, claim, bool(NEGATION.search(claim))))

    def carries(self, source: str, exclude: set[int] | frozenset[int]) -> bool:
        if not self.claims:
            return False
        stems = word_stems(source)
        if stems:
            postings = sorted((self.by_stem.get(s, set()) for s in stems), key=len)
            found = set.intersection(*postings)
        else:
            found = set(range(len(self.claims)))
        negated = bool(NEGATION.search(source))
        for i in sorted(found):
            index, claim, neg = self.claims[i]
            if index in exclude or (negated and not neg):
                continue
            if not weakening(source, claim):
                return True
        return False


def _demoted(o: Entry, holders: Sequence[Entry]) -> Finding:
    where = ", ".join(_what(h) for h in holders)
    return Finding(
        "CONSTRAINT_DEMOTED",
        (o.label, *(h.label for h in holders)),
        f"{_what(o)} now lives only inside rewritable {where}, where the next budget pass "
        "can drop it",
        o.text,
        "\n".join(h.text for h in holders),
    )


def _pad_findings(before: _Totals, after: _Totals) -> list[Finding]:
    out = []
    if after.claims < before.claims:
        out.append(
            Finding(
                "CLAIMS_REDUCED",
                (),
                f"claims fell from {before.claims} to {after.claims} "
                f"(tokens per claim {_per(before)} -> {_per(after)}): claim reduction, where "
                "constraints die, not compression",
                str(before.claims),
                str(after.claims),
            )
        )
    if after.tokens < before.tokens and after.share < before.share:
        out.append(
            Finding(
                "CAUTION_FALLING",
                (),
                f"the pad shrank ({before.tokens} -> {after.tokens} tokens) and the share of "
                f"constraints and negative facts fell ({_pct(before.share, after.share)}): "
                "the agent grows more decisive as its memory degrades",
                f"{before.share:.3f}",
                f"{after.share:.3f}",
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


def _same_content(old: Pad, new: Pad) -> bool:
    return len(old.entries) == len(new.entries) and all(
        a is b or _content(a) == _content(b)  # (versions seen live share unchanged entries)
        for a, b in zip(old.entries, new.entries, strict=True)
    )


def _verdict(
    old: Pad,
    matches: dict[int, tuple[int, str]],
    findings: Sequence[Finding],
    ctx: _Ctx,
    before: _Totals,
    after: _Totals,
) -> str:
    if any(f.severity == CRITICAL for f in findings):
        return "corruption"
    if any(f.code == "UNDECLARED_LOSS" for f in findings):
        return "undeclared_loss"
    removed = len(matches) < len(old.entries)
    if removed or ctx.declared or after.tokens < before.tokens:
        return "compaction"
    return "growth"
