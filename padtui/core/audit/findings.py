"""The table of findings: each finding code is one row, the code with its severity, the
section of the concept that explains it, and the templates of its message.

A new finding code is a row here and the check that returns it. ``FindingCode`` is a
``StrEnum``: a member is equal to its string (``"SEALED_REMOVED"``), and is written as it in
JSON. A code's message has a case for each way the check words it (``SEALED_EDITED``: its
text rewritten, or its kind changed); a code whose message names a rule's text is cut to
its row's ``width``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum, auto
from typing import Any

from padtui.core.audit.wording import cut
from padtui.core.vocabulary import Reason, Severity

CRITICAL = Severity.CRITICAL
WARNING = Severity.WARNING
INFO = Severity.INFO

# the sections of the concept (the seed document's): what a finding is an instance of
DISTINCTION = "distinction"  # compaction or corruption: was what went declared?
BOUNDARY = "boundary"  # compact, refuse and externalize, or halt and surface
TELL = "tell"  # fewer claims, not fewer tokens per claim
MITIGATION = "mitigation"  # the sealed region, and the loss records it keeps


@dataclass(frozen=True)
class Row:
    """A finding code's row: its severity, its concept section, its message templates by
    case (``""``: the only one), and the width its message is cut to (``None``: whole)."""

    severity: Severity
    section: str
    messages: Mapping[str, str]
    width: int | None = None


class FindingCode(StrEnum):
    """What an audit finding is about, each with its row."""

    row: Row

    @staticmethod
    def _generate_next_value_(name: str, start: int, count: int, last: list[str]) -> str:
        return name  # (a code is its name: "SEALED_REMOVED")

    def __new__(cls, value: str, row: Row) -> FindingCode:
        member = str.__new__(cls, value)
        member._value_ = value
        member.row = row
        return member

    def message(self, case: str = "", **fields: object) -> str:
        """The message of this code's ``case``, its fields filled in."""
        text = self.row.messages[case].format(**fields)
        return text if self.row.width is None else cut(text, self.row.width)

    # a sealed entry gone
    SEALED_REMOVED = (
        auto(),
        Row(CRITICAL, MITIGATION, {"": "sealed {what} is gone from the append-only region"}),
    )
    # a sealed entry's text rewritten, or its kind changed
    SEALED_EDITED = (
        auto(),
        Row(
            CRITICAL,
            MITIGATION,
            {
                "text": "sealed {what} was rewritten in the append-only region",
                "kind": "sealed {what} was changed into a {kind}",
            },
        ),
    )
    # a sealed entry moved out of the sealed region
    SEALED_UNSEALED = (
        auto(),
        Row(CRITICAL, MITIGATION, {"": "sealed {what} was moved out of the sealed region"}),
    )
    # a loss record gone, and folded into no other
    LOSS_RECORD_EVICTED = (
        auto(),
        Row(
            CRITICAL,
            MITIGATION,
            {"": "loss record {label} was evicted: the record of an earlier loss is lost"},
        ),
    )
    # a rule gone with its entry, carried nowhere, declared by nothing
    CONSTRAINT_DROPPED = (
        auto(),
        Row(
            CRITICAL,
            DISTINCTION,
            {"": "{what} is gone: carried nowhere, and no loss record names it"},
            160,
        ),
    )
    # a rule carried with less force, or its entry rewritten without it
    CONSTRAINT_WEAKENED = (
        auto(),
        Row(
            CRITICAL,
            DISTINCTION,
            {
                "found": "{what} lost {lost}{now}",  # found where it went, weaker
                "rewritten": "{what} {how} and lost {lost}",  # its entry rewritten without it
            },
            160,
        ),
    )
    # a constraint or negative fact now only in entries a pass may rewrite
    CONSTRAINT_DEMOTED = (
        auto(),
        Row(
            WARNING,
            BOUNDARY,
            {
                "": "{what} now lives only inside rewritable {where}, where the next budget "
                "pass can drop it"
            },
        ),
    )
    # plain claims an edit left out, or an entry gone with most of them
    UNDECLARED_LOSS = (
        auto(),
        Row(
            WARNING,
            DISTINCTION,
            {
                "edited": "{what} was rewritten without {count} of its claims, carried "
                "nowhere, and no loss record names them",
                "gone": "{what} is gone ({lost} of {claims} claims carried nowhere), and no "
                "derived_from or loss record names it",
            },
            160,
        ),
    )
    # fewer claims, some carried nowhere and undeclared
    CLAIMS_REDUCED = (
        auto(),
        Row(
            WARNING,
            TELL,
            {
                "": "claims fell from {was} to {now}, {lost} of them carried nowhere and "
                "undeclared (tokens per claim {per_was} -> {per_now}): claim reduction, "
                "where constraints die, not compression"
            },
        ),
    )
    # the pad shrank and its share of rules fell
    CAUTION_FALLING = (
        auto(),
        Row(
            WARNING,
            TELL,
            {
                "": "the pad shrank ({was} -> {now} tokens) and the share of its tokens "
                "that state rules fell ({shares}): the agent grows more decisive as its "
                "memory degrades"
            },
        ),
    )
    # a rule of a store carried into another file
    RULE_MOVED = (
        auto(),
        Row(INFO, DISTINCTION, {"": "{what} moved from {was} to {now}"}, 200),
    )
    # a rule of a store now loaded less often
    RULE_SCOPE_NARROWED = (
        auto(),
        Row(WARNING, BOUNDARY, {"": "{what}{where} {verb} now loaded {when} (was {was})"}, 200),
    )
    # a rule carried stricter than before
    RULE_TIGHTENED = (
        auto(),
        Row(WARNING, DISTINCTION, {"": "{what} was made stricter: {changes}"}, 160),
    )
    # a rule changed in a way the audit cannot read, or carried nowhere it can see
    RULE_UNCERTAIN = (
        auto(),
        Row(
            WARNING,
            DISTINCTION,
            {
                "changed": "{what} changed in a way the audit cannot read: {changes}",
                "placed": "{what} is carried nowhere: a rule only by the heading it sat under "
                "(its own words bind nobody), and no loss record names it",
                "translated": "{what}: the pad was rewritten in another language, and the "
                "audit cannot match this rule word for word: read it in the new version",
            },
            160,
        ),
    )


# each code's severity (the code's row says it; kept as a mapping for the CLI and tests)
SEVERITY: Mapping[FindingCode, Severity] = {code: code.row.severity for code in FindingCode}


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
        return self.code.row.severity

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


def finding(
    code: FindingCode,
    entries: tuple[str, ...],
    before: str | None = None,
    after: str | None = None,
    reasons: tuple[Reason, ...] = (),
    *,
    case: str = "",
    **fields: object,
) -> Finding:
    """A finding of ``code``, its message the row's ``case`` with ``fields`` filled in."""
    return Finding(code, entries, code.message(case, **fields), before, after, reasons)
