"""The verdict of a rewrite, computed from its findings and what the checks returned of
its losses and its size: corruption, undeclared loss, compaction or growth."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from padtui.core.audit.findings import CRITICAL, Finding, FindingCode
from padtui.core.vocabulary import Reason, Verdict


@dataclass(frozen=True)
class Shape:
    """What the verdict reads beside the findings: did entries go while the pad did not
    grow, did it shrink, was some loss declared."""

    removed: bool
    shrank: bool
    declared: bool


def verdict(findings: Sequence[Finding], shape: Shape) -> Verdict:
    if any(f.severity == CRITICAL for f in findings):
        return Verdict.CORRUPTION
    if any(_undeclared(f) for f in findings):
        return Verdict.UNDECLARED_LOSS
    # a version that grew and lost nothing grew, whatever entries it joined or rewrote
    if shape.removed or shape.declared or shape.shrank:
        return Verdict.COMPACTION
    return Verdict.GROWTH


def _undeclared(f: Finding) -> bool:
    return f.code == FindingCode.UNDECLARED_LOSS or (
        f.code == FindingCode.RULE_UNCERTAIN and Reason.GONE in f.reasons
    )
