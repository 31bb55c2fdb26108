"""The checks of the whole pad: fewer claims, with some carried nowhere and undeclared
(claim reduction, not compression), and a shrinking pad whose share of rules falls."""

from __future__ import annotations

from padtui.core.audit.context import Rewrite
from padtui.core.audit.findings import Finding, FindingCode, finding
from padtui.core.audit.totals import Totals, rule_share

CAUTION_DROP = 0.05  # a fall of the rules' share by 5 points or more


def claims_reduced(before: Totals, after: Totals, lost: int) -> list[Finding]:
    """Fewer claims than before, ``lost`` of them carried nowhere and undeclared."""
    if after.claims >= before.claims or not lost:
        return []
    return [
        finding(
            FindingCode.CLAIMS_REDUCED,
            (),
            str(before.claims),
            str(after.claims),
            was=before.claims,
            now=after.claims,
            lost=lost,
            per_was=before.per_claim,
            per_now=after.per_claim,
        )
    ]


def caution_falling(ctx: Rewrite, before: Totals, after: Totals) -> list[Finding]:
    """The pad shrank and the share of its tokens that state rules fell."""
    if after.tokens >= before.tokens:
        return []
    was = rule_share(ctx.old, before.costs, ctx.old_map)
    now = rule_share(ctx.new, after.costs, ctx.new_map)
    if was - now < CAUTION_DROP:
        return []
    return [
        finding(
            FindingCode.CAUTION_FALLING,
            (),
            f"{was:.3f}",
            f"{now:.3f}",
            was=before.tokens,
            now=after.tokens,
            shares=_pct(was, now),
        )
    ]


def _pct(a: float, b: float) -> str:
    for digits in (0, 1, 2):
        x, y = f"{a:.{digits}%}", f"{b:.{digits}%}"
        if x != y:
            break
    return f"{x} -> {y}"
