"""padtui's words, each a ``StrEnum``: a member is equal to its string (and is written as it
in JSON), so commands, files and tests that say ``"corruption"`` keep meaning the member.

Verdicts of an audit and severities of its findings (the finding codes, each with its
severity, are the audit's table: ``core/audit/findings.py``), the codes of a refused
compaction plan, the plan's own verdict, compaction policies, the origins of journaled
versions, and what a look at a live pad found. What each means is in the README ("What the
audit reports", "Safe writes and the journal") and beside the code that decides it.
"""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """An audit's verdict on one transition ``old -> new`` (``audit.verdict``)."""

    UNCHANGED = "unchanged"
    GROWTH = "growth"
    COMPACTION = "compaction"
    UNDECLARED_LOSS = "undeclared_loss"
    CORRUPTION = "corruption"


class Severity(StrEnum):
    """How much an audit finding weighs: a critical one makes the verdict corruption."""

    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"


class Scope(StrEnum):
    """When an agent loads a memory file of a store (``memory.patterns``): at the start of
    every session, only while it works on some paths, or only when it decides to read it."""

    ALWAYS = "always"
    PATHS = "paths"
    ON_DEMAND = "on_demand"


class Reason(StrEnum):
    """What part of a rule's force a finding is about (``Finding.reasons``)."""

    POLARITY = "polarity"
    MODAL = "modal"
    CONDITION = "condition"
    NUMBER = "number"
    NAME = "name"
    GONE = "gone"


class RefusalCode(StrEnum):
    """Why a compaction plan is refused (``compaction.plan``)."""

    SEALED_OVER_BUDGET = "SEALED_OVER_BUDGET"
    NO_LOSS_RECORD = "NO_LOSS_RECORD"
    PROTECTED_KIND_WOULD_DROP = "PROTECTED_KIND_WOULD_DROP"
    RULE_WOULD_DROP = "RULE_WOULD_DROP"
    RECORD_WOULD_NOT_FIT = "RECORD_WOULD_NOT_FIT"


class Fit(StrEnum):
    """A compaction plan's verdict: the pad fits its budget, a pass would make it fit, or
    the pass is refused."""

    FITS = "fits"
    COMPACTABLE = "compactable"
    REFUSED = "refused"


class Policy(StrEnum):
    """How a compaction chooses what to drop: ``strict`` (declares every loss) or ``seed``
    (the seed document's reference policy)."""

    STRICT = "strict"
    SEED = "seed"


class Origin(StrEnum):
    """Who made a journaled version: ``seen`` (found on disk, written by someone else) or
    the padtui write that made it."""

    SEEN = "seen"
    COMPACT = "compact"
    EXTERNALIZE = "externalize"
    RESTORE = "restore"
    WRITE = "write"


class Found(StrEnum):
    """What a look at a live pad found (``store.poll``, a :class:`store.Polled`)."""

    NEW = "new"
    SAME = "same"
    UNREADABLE = "unreadable"


class WatchState(StrEnum):
    """What a watcher reports of a pad (``watcher.Reading``)."""

    VERSION = "version"
    UNREADABLE = "unreadable"
    DELETED = "deleted"


class Status(StrEnum):
    """An inspection's pad as last looked at (``inspection.Inspection.status``)."""

    WAITING = "waiting"
    LIVE = "live"
    UNREADABLE = "unreadable"
    DELETED = "deleted"
