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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from padtui.core.audit.claims import Losses, entry_claims
from padtui.core.audit.context import Rewrite
from padtui.core.audit.findings import CRITICAL, Finding, FindingCode
from padtui.core.audit.matching import match_ends
from padtui.core.audit.pad import caution_falling, claims_reduced
from padtui.core.audit.sealed import loss_records, sealed_region
from padtui.core.audit.totals import Totals, totals
from padtui.core.audit.unchanged import same_content, same_words
from padtui.core.audit.verdict import Shape, verdict
from padtui.core.counting.tokens import TokenCounter, counter_for
from padtui.core.model import Pad
from padtui.core.rules.finder import RuleMap
from padtui.core.vocabulary import Verdict


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
    if same_content(old, new, matches, ends) or same_words(old, new, ends):
        return _audit(Verdict.UNCHANGED, (), matches, before, after)
    base = rule_map or RuleMap.default()
    fewer = after.claims < before.claims  # (claims lost matter only if claims fell)
    ctx = Rewrite(old, new, matches, base.for_pad(old), base.for_pad(new), ends, count_lost=fewer)
    findings: list[Finding] = []
    losses = Losses()
    for o, n in ctx.pairs():
        findings += sealed_region(o, n)
        findings += loss_records(ctx, o, n)
        found, lost = entry_claims(ctx, o, n)
        findings += found
        losses += lost
    findings += claims_reduced(before, after, losses.claims)
    findings += caution_falling(ctx, before, after)
    shape = Shape(
        removed=len(matches) < len(old.entries) and after.tokens <= before.tokens,
        shrank=after.tokens < before.tokens,
        declared=losses.declared,
    )
    return _audit(verdict(findings, shape), tuple(findings), matches, before, after)


def _audit(
    verdict: Verdict,
    findings: tuple[Finding, ...],
    matches: dict[int, tuple[int, str]],
    before: Totals,
    after: Totals,
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
