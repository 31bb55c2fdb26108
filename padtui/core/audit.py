"""Audit of one rewrite (SPEC section 4): a declared compaction, or corruption?

Entries of the old version are matched to the new one by ``id``, else by exact kind and
text, else by close text within the same kind. Every loss is then checked against what the
new version declares (``derived_from``, loss records), and every constraint against what it
says (prohibitions, numbers, named objects).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from padtui.core.claims import pad_claims, split_claims
from padtui.core.model import CAUTION_KINDS, Entry, Pad
from padtui.core.tokens import TokenCounter, counter_for

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
CLOSE_ENOUGH = 0.6
_CANDIDATES = 24  # close-text candidates looked at per entry, so matching is not quadratic


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


# --- matching ------------------------------------------------------------------------------

_WORD = re.compile(r"\w{3,}")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def match(old: Pad, new: Pad) -> dict[int, tuple[int, str]]:
    """Pair old entries with new ones: by id, then exact kind+text, then close text."""
    found: dict[int, tuple[int, str]] = {}
    taken: set[int] = set()
    by_id: dict[str, int] = {}
    for n in new.entries:
        if n.id is not None:
            by_id.setdefault(n.id, n.index)
    for o in old.entries:
        hit = by_id.get(o.id) if o.id is not None else None
        if hit is not None and hit not in taken:
            found[o.index] = (hit, "id")
            taken.add(hit)
    exact: dict[tuple[str, str], list[int]] = defaultdict(list)
    for n in new.entries:
        if n.index not in taken:
            exact[(n.kind, n.text)].append(n.index)
    for o in old.entries:
        if o.index in found:
            continue
        bucket = exact.get((o.kind, o.text))
        while bucket and bucket[0] in taken:
            bucket.pop(0)
        if bucket:
            hit = bucket.pop(0)
            found[o.index] = (hit, "exact")
            taken.add(hit)
    _match_close(old, new, found, taken)
    return found


def _match_close(old: Pad, new: Pad, found: dict[int, tuple[int, str]], taken: set[int]) -> None:
    index: dict[tuple[str, str], list[int]] = defaultdict(list)
    for n in new.entries:
        if n.index not in taken:
            for w in _words(n.text):
                index[(n.kind, w)].append(n.index)
    pairs: list[tuple[float, int, int]] = []
    for o in old.entries:
        if o.index in found:
            continue
        shared: dict[int, int] = defaultdict(int)
        for w in _words(o.text):
            for i in index.get((o.kind, w), ()):
                shared[i] += 1
        best = sorted(shared, key=lambda i: -shared[i])[:_CANDIDATES]
        for i in best:
            sm = SequenceMatcher(None, o.text, new.entries[i].text, autojunk=False)
            if sm.quick_ratio() >= CLOSE_ENOUGH and sm.ratio() >= CLOSE_ENOUGH:
                pairs.append((sm.ratio(), o.index, i))
    for _score, oi, ni in sorted(pairs, key=lambda p: -p[0]):
        if oi not in found and ni not in taken:
            found[oi] = (ni, "close")
            taken.add(ni)


# --- what a constraint says ----------------------------------------------------------------

_NEGATION = re.compile(
    r"\b(?:not|never|no|none|nor|neither|cannot|avoid\w*|forbid\w*|prohibit\w*|"
    r"disallow\w*|without|refus\w*|\w+n't|\w+n\u2019t)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\b\w*\d\w*\b")
_NAME = re.compile(
    r"`[^`]+`"  # code
    r"|\"[^\"]{2,}\"|“[^”]{2,}”"  # quoted
    r"|\b[\w-]*[_/.:][\w/.:-]*\w"  # identifiers and paths: billing_api, /v1/x, a.b
    r"|\b[A-Z]{2,}\w*"  # API, HTTP, SQLs
)
_CAPITALISED = re.compile(r"\b[A-Z][a-z]\w*")
_BULLET = re.compile(r"^[\s\-*+•>#\d.)]*")


def negations(text: str) -> int:
    return len(_NEGATION.findall(text))


def salient(text: str) -> set[str]:
    """Numbers and named objects a rewrite of this text must keep."""
    found = {m.lower() for m in _NUMBER.findall(text)}
    found |= {m.strip('`"“”').lower() for m in _NAME.findall(text)}
    for claim in split_claims(text):
        body = _BULLET.sub("", claim)
        first = re.match(r"\W*\w+", body)
        rest = body[first.end() :] if first else body
        found |= {m.lower() for m in _CAPITALISED.findall(rest)}
    return {f for f in found if f}


def weakening(source: str, result: str) -> list[str]:
    """What ``result`` lost of ``source``: its prohibition, numbers or named objects."""
    lost = []
    if negations(source) and not negations(result):
        words = sorted({w.lower() for w in _NEGATION.findall(source)})
        lost.append("its prohibition (" + ", ".join(repr(w) for w in words) + ")")
    low = result.lower()
    keep = _words(result) | {m.lower() for m in _NUMBER.findall(result)}
    missing = sorted(s for s in salient(source) if s not in keep and s not in low)
    if missing:
        lost.append(", ".join(repr(m) for m in missing))
    return lost


# --- declarations --------------------------------------------------------------------------

_QUOTE = re.compile(r"\"([^\"]+)\"|“([^”]+)”")


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def named_by(entry: Entry, records: Sequence[Entry]) -> bool:
    """Does a loss record name this entry, by its id or by quoting it?"""
    body = _norm(entry.text)
    for r in records:
        if entry.id is not None:
            if re.search(rf"(?<![\w-]){re.escape(entry.id)}(?![\w-])", r.text):
                return True
            drops = r.raw.get("drops")
            if isinstance(drops, list) and entry.id in drops:
                return True
        if len(body) >= 12 and body in _norm(r.text):
            return True
        for q in _QUOTE.findall(r.text):
            quote = _norm("".join(q)).removesuffix("...").removesuffix("…").strip()
            if quote and (quote == body or (len(quote) >= 8 and body.startswith(quote))):
                return True
    return False


def _holds(container: Entry, entry: Entry) -> bool:
    body = _norm(entry.text)
    return bool(body) and body in _norm(container.text)


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
    before = _Totals(old, counter)
    after = _Totals(new, counter)
    findings += _pad_findings(before, after)
    verdict = _verdict(old, new, matches, findings, ctx, before, after)
    return Audit(
        verdict, tuple(findings), matches, before.tokens, after.tokens, before.claims, after.claims
    )


@dataclass
class _Totals:
    tokens: int
    caution: int
    claims: int

    def __init__(self, pad: Pad, counter: TokenCounter) -> None:
        costs = counter.count_many(e.text for e in pad.entries)
        self.tokens = sum(costs)
        self.caution = sum(
            c for e, c in zip(pad.entries, costs, strict=True) if e.kind in CAUTION_KINDS
        )
        self.claims = pad_claims(pad.entries)

    @property
    def share(self) -> float:
        return self.caution / self.tokens if self.tokens else 0.0


class _Ctx:
    def __init__(self, old: Pad, new: Pad, matches: dict[int, tuple[int, str]]) -> None:
        self.old, self.new = old, new
        self.records = [e for e in new.entries if e.kind == "loss_record"]
        self.matched_new = {n for n, _ in matches.values()}
        self.unmatched_new = [e for e in new.entries if e.index not in self.matched_new]
        self.derived: dict[str, list[Entry]] = defaultdict(list)
        for n in new.entries:
            for ref in n.derived_from:
                self.derived[ref].append(n)
        self.declared = False  # some loss was declared (derived_from or a loss record)

    def heirs(self, o: Entry, n: Entry | None) -> list[Entry]:
        refs = [o.label] if o.id is None else [o.id]
        out = {h.index: h for r in refs for h in self.derived.get(r, ()) if h is not n}
        return list(out.values())

    def sealed(self, o: Entry, n: Entry | None) -> list[Finding]:
        out = []
        what = f"sealed {o.kind.replace('_', ' ')} {o.label}"
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
        if o.kind == "loss_record" and n is None:
            out.append(
                Finding(
                    "LOSS_RECORD_EVICTED",
                    (o.label,),
                    f"loss record {o.label} was evicted: the record of an earlier "
                    "loss is itself lost",
                    o.text,
                    None,
                )
            )
        return out

    def caution(self, o: Entry, n: Entry | None) -> list[Finding]:
        what = f"{o.kind.replace('_', ' ')} {o.label}"
        if n is not None:
            out = []
            if n.text != o.text:
                lost = weakening(o.text, n.text)
                if lost:
                    out.append(
                        Finding(
                            "CONSTRAINT_WEAKENED",
                            (o.label,),
                            f"{what} was rewritten and lost " + "; ".join(lost),
                            o.text,
                            n.text,
                        )
                    )
            if n.kind not in CAUTION_KINDS and not n.sealed:
                out.append(_demoted(o, [n]))
            return out
        heirs = self.heirs(o, n)
        if heirs:
            self.declared = True
            return self._condensed(o, heirs)
        holders = [e for e in self.unmatched_new if _holds(e, o)]
        if holders:
            if all(h.kind not in CAUTION_KINDS and not h.sealed for h in holders):
                return [_demoted(o, holders)]
            return []
        if named_by(o, self.records):
            self.declared = True
            return []
        return [
            Finding(
                "CONSTRAINT_DROPPED",
                (o.label,),
                f"{what} is gone and no loss record names it",
                o.text,
                None,
            )
        ]

    def _condensed(self, o: Entry, heirs: list[Entry]) -> list[Finding]:
        what = f"{o.kind.replace('_', ' ')} {o.label}"
        into = ", ".join(f"{h.kind.replace('_', ' ')} {h.label}" for h in heirs)
        after = "\n".join(h.text for h in heirs)
        out = []
        lost = weakening(o.text, after)
        if lost:
            out.append(
                Finding(
                    "CONSTRAINT_WEAKENED",
                    (o.label, *(h.label for h in heirs)),
                    f"{what} was condensed into {into} and lost " + "; ".join(lost),
                    o.text,
                    after,
                )
            )
        if all(h.kind not in CAUTION_KINDS and not h.sealed for h in heirs):
            out.append(_demoted(o, heirs))
        return out

    def lost(self, o: Entry) -> list[Finding]:
        if o.kind == "loss_record" or o.sealed:
            return []  # reported as LOSS_RECORD_EVICTED / SEALED_REMOVED
        if self.heirs(o, None) or named_by(o, self.records):
            self.declared = True
            return []
        if any(_holds(e, o) for e in self.unmatched_new):
            return []
        return [
            Finding(
                "UNDECLARED_LOSS",
                (o.label,),
                f"{o.kind.replace('_', ' ')} {o.label} is gone with no derived_from "
                "pointing at it and no loss record naming it",
                o.text,
                None,
            )
        ]


def _demoted(o: Entry, holders: Sequence[Entry]) -> Finding:
    where = ", ".join(f"{h.kind.replace('_', ' ')} {h.label}" for h in holders)
    return Finding(
        "CONSTRAINT_DEMOTED",
        (o.label, *(h.label for h in holders)),
        f"{o.kind.replace('_', ' ')} {o.label} now lives only inside rewritable "
        f"{where}, where the next budget pass can drop it",
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
                f"constraints and negative facts fell ({before.share:.0%} -> {after.share:.0%}): "
                "the agent grows more decisive as its memory degrades",
                f"{before.share:.3f}",
                f"{after.share:.3f}",
            )
        )
    return out


def _per(t: _Totals) -> str:
    return f"{t.tokens / t.claims:.1f}" if t.claims else "-"


def _verdict(
    old: Pad,
    new: Pad,
    matches: dict[int, tuple[int, str]],
    findings: Sequence[Finding],
    ctx: _Ctx,
    before: _Totals,
    after: _Totals,
) -> str:
    if [e.as_dict() for e in old.entries] == [e.as_dict() for e in new.entries]:
        return "unchanged"
    if any(f.severity == CRITICAL for f in findings):
        return "corruption"
    if any(f.code == "UNDECLARED_LOSS" for f in findings):
        return "undeclared_loss"
    removed = len(matches) < len(old.entries)
    if removed or ctx.declared or after.tokens < before.tokens:
        return "compaction"
    return "growth"
