"""The checks of an old entry's claims, each returning its findings: rules weakened where
they went, rules lost, rules made stricter or changed unreadably, rules only by their place
or in another language, a constraint left only in rewritable entries, and plain claims an
edit left out or an entry that went took with it.

What the verdict needs of them (whether some loss was declared, how many claims went
undeclared) is a :class:`Losses`, a value each entry's checks return beside their findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from padtui.core.audit.carry import LOOSER, TIGHTER, UNSURE
from padtui.core.audit.context import Rewrite
from padtui.core.audit.fates import (
    CARRIED,
    DECLARED,
    DOUBTED,
    FOREIGN,
    LOST,
    UNREAD,
    WEAKENED,
    Fate,
    Fates,
    fates_of,
)
from padtui.core.audit.findings import Finding, FindingCode, finding
from padtui.core.audit.shown import (
    in_order,
    labels,
    part,
    rule_what,
    said_reasons,
    union,
    what,
)
from padtui.core.audit.wording import cut, weakening
from padtui.core.model import CAUTION_KINDS, Entry
from padtui.core.vocabulary import Reason

GONE = (Reason.GONE,)


@dataclass(frozen=True)
class Losses:
    """What the verdict reads of the claims' checks: was some loss declared (by
    ``derived_from`` or a loss record), and how many claims went carried nowhere,
    undeclared."""

    declared: bool = False
    claims: int = 0

    def __add__(self, other: Losses) -> Losses:
        return Losses(self.declared or other.declared, self.claims + other.claims)


def entry_claims(ctx: Rewrite, o: Entry, n: Entry | None) -> tuple[list[Finding], Losses]:
    """Each claim of ``o`` carried, weakened, declared or lost: the findings, and what the
    verdict needs to know of the losses."""
    if o.kind == "loss_record":
        return [], Losses()  # (reported as LOSS_RECORD_EVICTED)
    heirs = tuple(ctx.heirs(o, n))
    if n is not None and not heirs and n.text == o.text and n.context == o.context:
        return kept_in_place(o, n), Losses()  # (the common case: said first)
    fates = fates_of(ctx, o, n, heirs)
    out = weakened_rules(ctx, fates)
    out += lost_rules(fates)
    out += changed_rules(ctx, fates, FindingCode.RULE_TIGHTENED, TIGHTER)
    out += changed_rules(ctx, fates, FindingCode.RULE_UNCERTAIN, UNSURE)
    out += uncertain_rules(fates)
    out += demoted(ctx, fates, out)
    out += left_out(ctx, fates)
    gone = entry_gone(ctx, fates)
    out += gone
    declared = fates.declared or bool(fates.of(DECLARED)) or _gone_declared(ctx, fates)
    lost = fates.edited_out + (fates.missing if gone else 0)
    return out, Losses(declared, lost)


def kept_in_place(o: Entry, n: Entry) -> list[Finding]:
    """The same text in the same place: a constraint made a rewritable kind is demoted."""
    if n.kind != o.kind and o.kind in CAUTION_KINDS and _rewritable([n]):
        return [demoted_finding(o, [n])]
    return []


def _what_rules(fates: Fates) -> str:
    return rule_what(fates.old, fates.kinds, fates.rules.values())


def weakened_rules(ctx: Rewrite, fates: Fates) -> list[Finding]:
    """Rules found where they went with less force: what each lost."""
    weak = fates.of(WEAKENED)
    if not weak:
        return []
    o = fates.old
    found = [f.carry.found for f in weak if f.carry.found is not None]
    at = [ctx.new.entries[i] for i in sorted({c.entry for c in found})]
    many = len(fates.rules) > 1
    lost = union(
        (f"{r} in {cut(f.claim.body, 40)!r}" if many else r) for f in weak for r in f.carry.lost
    )
    into = ", ".join(e.label for e in at if e.label != o.label)
    reasons = in_order(ch.reason for f in weak for ch in f.carry.changes if ch.way == LOOSER)
    return [
        finding(
            FindingCode.CONSTRAINT_WEAKENED,
            labels(o, at),
            part(o.text, [f.claim.text for f in weak]),
            part("\n".join(e.text for e in at), [c.text for c in found]),
            reasons,
            case="found",
            what=_what_rules(fates),
            lost=lost,
            now=f" (now in {into})" if into else "",
        )
    ]


def lost_rules(fates: Fates) -> list[Finding]:
    """Rules carried nowhere and declared by nothing: lost from the entry they were
    rewritten in or condensed into, or dropped with their entry."""
    lost = [f.claim.text for f in fates.of(LOST)]
    if not lost:
        return []
    o, heirs = fates.old, fates.heirs
    if not heirs and fates.new is None:
        return [
            finding(
                FindingCode.CONSTRAINT_DROPPED,
                (o.label,),
                part(o.text, lost),
                None,
                GONE,
                what=_what_rules(fates),
            )
        ]
    went = [e for e in (fates.new, *heirs) if e is not None]
    after = "\n".join(e.text for e in went)
    said = _explain(lost, after)
    how = f"was condensed into {', '.join(what(h) for h in heirs)}" if heirs else "was rewritten"
    return [
        finding(
            FindingCode.CONSTRAINT_WEAKENED,
            labels(o, went),
            part(o.text, lost),
            cut(after, 400) if heirs else None,
            said_reasons(said),
            case="rewritten",
            what=_what_rules(fates),
            how=how,
            lost=said,
        )
    ]


def _explain(claims: Sequence[str], after: str) -> str:
    """What words the lost rules took with them ("its prohibition ('not'); number '5xx'")."""
    said = weakening("\n".join(claims), after)
    return "; ".join(said) if said else "the rule " + repr(cut(claims[0], 50))


def changed_rules(ctx: Rewrite, fates: Fates, code: FindingCode, way: str) -> list[Finding]:
    """Rules carried stricter than before (``TIGHTER``), or changed in a way the audit
    cannot read with confidence (``UNSURE``): each rule before and after, and what
    changed."""
    rules = _changed(fates, way)
    if not rules:
        return []
    found = [f.carry.found for f in rules if f.carry.found is not None]
    at = [ctx.new.entries[i] for i in sorted({c.entry for c in found})]
    changes = [ch for f in rules for ch in f.carry.changes if ch.way == way]
    return [
        finding(
            code,
            labels(fates.old, at),
            "\n".join(dict.fromkeys(f.claim.text for f in rules)),
            "\n".join(dict.fromkeys(c.text for c in found)),
            in_order(ch.reason for ch in changes),
            case="" if way == TIGHTER else "changed",
            what=_what_rules(fates),
            changes=union(ch.text for ch in changes),
        )
    ]


def _changed(fates: Fates, way: str) -> list[Fate]:
    if way == TIGHTER:
        return [f for f in fates.of(CARRIED) if f.carry.tighter]
    return fates.of(UNREAD)


def uncertain_rules(fates: Fates) -> list[Finding]:
    """Rules carried nowhere that bind nobody by their own words (a rule only by the
    file's title), or of a pad rewritten into another language: uncertain, not lost."""
    o, out = fates.old, []
    # (a rule only by its place went, as far as the audit can tell; one in another
    # language may stand in the new version, unread)
    for way, case, reasons in ((DOUBTED, "placed", GONE), (FOREIGN, "translated", ())):
        texts = [f.claim.text for f in fates.of(way)]
        if texts:
            before = part(o.text, texts)
            code = FindingCode.RULE_UNCERTAIN
            out.append(finding(code, (o.label,), before, None, reasons, case=case, what=what(o)))
    return out


def demoted(ctx: Rewrite, fates: Fates, earlier: Sequence[Finding]) -> list[Finding]:
    """A constraint or negative fact whose rules now live only in rewritable entries (those
    derived from it, or those that carry them when nothing else was found of it)."""
    o, heirs = fates.old, fates.heirs
    holders = list(heirs) or [ctx.new.entries[i] for i in fates.carriers]
    if o.kind not in CAUTION_KINDS or not holders or not _rewritable(holders):
        return []
    if heirs or (not earlier and not any(ctx.ruled_place(h) for h in holders)):
        return [demoted_finding(o, holders)]
    return []


def demoted_finding(o: Entry, holders: Sequence[Entry]) -> Finding:
    return finding(
        FindingCode.CONSTRAINT_DEMOTED,
        (o.label, *(h.label for h in holders)),
        o.text,
        "\n".join(h.text for h in holders),
        what=what(o),
        where=", ".join(what(h) for h in holders),
    )


def _rewritable(entries: Sequence[Entry]) -> bool:
    return all(h.kind not in CAUTION_KINDS and not h.sealed for h in entries)


def left_out(ctx: Rewrite, fates: Fates) -> list[Finding]:
    """An edit that left out what the entry said (not an update of it in place), and no
    loss record describes it."""
    o, n, gone = fates.old, fates.new, fates.gone_plain
    if n is None or not gone or fates.declared or o.sealed:
        return []
    if any(ctx.described(t) for t in gone):
        return []
    return [
        finding(
            FindingCode.UNDECLARED_LOSS,
            labels(o, [n]),
            "\n".join(dict.fromkeys(gone)),
            None,
            GONE,
            case="edited",
            what=what(o),
            count=len(gone),
        )
    ]


def _went_whole(fates: Fates) -> bool:
    """The entry went, nothing derived from it, no record naming it, and it said plain
    claims (not sealed: its removal is the sealed region's finding)."""
    return fates.new is None and not fates.declared and bool(fates.plain) and not fates.old.sealed


def entry_gone(ctx: Rewrite, fates: Fates) -> list[Finding]:
    """An entry gone with most of its plain claims carried nowhere, and no loss record
    describes it."""
    if not _went_whole(fates) or fates.missing * 2 <= fates.plain:
        return []
    o = fates.old
    if ctx.described(o.text):
        return []
    return [
        finding(
            FindingCode.UNDECLARED_LOSS,
            (o.label,),
            o.text,
            None,
            GONE,
            case="gone",
            what=what(o),
            lost=fates.missing,
            claims=fates.plain,
        )
    ]


def _gone_declared(ctx: Rewrite, fates: Fates) -> bool:
    """An entry gone whose lost claims a loss record describes: a declared loss."""
    if not _went_whole(fates) or not fates.missing:
        return False
    return ctx.described(fates.old.text)
