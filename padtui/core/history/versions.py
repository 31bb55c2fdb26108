"""A pad's history: every journaled version, its tokens, and the audit verdict of each
transition into it; and which corruptions the user has not yet dealt with.

Read by ``padtui history`` and the MCP server. The journal only stores and rebuilds
versions; judging them is here, so the journal never imports the audit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from padtui.core.audit.rewrite import Audit, audit
from padtui.core.counting.tokens import counter_for
from padtui.core.errors import PadError
from padtui.core.formats import PadFile
from padtui.core.model import Pad
from padtui.core.rules.finder import RuleMap
from padtui.core.storage.journal import OWN_ORIGINS, Journal, Version
from padtui.core.vocabulary import Origin, Verdict


@dataclass(frozen=True, kw_only=True)
class HistoryRow:
    """One journaled version with its tokens and the audit of the transition into it."""

    version: Version
    pad: Pad | None = None  # None: the version did not parse
    tokens: int | None = None
    previous: int | None = None  # the readable version this one is audited against
    audit: Audit | None = None
    damage: str | None = None  # why the version cannot be rebuilt (the journal is damaged)

    @property
    def verdict(self) -> str:
        if self.damage is not None:
            return "damaged"
        if self.pad is None:
            return "unreadable"
        if self.audit is None:
            return "first"
        return self.audit.verdict

    def as_json(self) -> dict[str, Any]:
        out = self.version.as_json()
        out["tokens"] = self.tokens
        out["verdict"] = self.verdict
        out["against"] = self.previous
        if self.damage is not None:
            out["damage"] = self.damage
        out["findings"] = (
            [
                {"code": f.code, "severity": f.severity, "entries": list(f.entries)}
                for f in self.audit.findings
            ]
            if self.audit is not None
            else []
        )
        return out


def outstanding(rows: list[HistoryRow], acknowledged: set[int]) -> list[HistoryRow]:
    """The corruptions the user has not dealt with.

    A corruption is dealt with when the user acknowledged it, or undid it: a later version
    has the very bytes of the version the corruption was audited against, whoever wrote it
    (``history --restore``, or the file copied back by hand). A version padtui wrote is the
    user's own action: its verdict is never outstanding (a restore of an older version drops
    what came after it)."""
    sha = {r.version.n: r.version.sha256 for r in rows}
    out = []
    for i, r in enumerate(rows):
        v = r.version
        if r.verdict != Verdict.CORRUPTION or v.origin in OWN_ORIGINS or v.n in acknowledged:
            continue
        before = sha.get(r.previous) if r.previous is not None else None
        if any(later.version.sha256 == before for later in rows[i + 1 :]):
            continue
        out.append(r)
    return out


def restored(rows: list[HistoryRow]) -> dict[int, int]:
    """For each version padtui wrote back (a restore), the earliest version whose bytes it
    has, when the journal holds one."""
    first: dict[str, int] = {}
    found = {}
    for r in rows:
        v = r.version
        if v.origin == Origin.RESTORE and first.get(v.sha256, v.n) < v.n:
            found[v.n] = first[v.sha256]
        first.setdefault(v.sha256, v.n)
    return found


def history(
    journal: Journal,
    encoding: str | None = None,
    on_version: Callable[[], object] | None = None,
    rule_map: RuleMap | None = None,
) -> list[HistoryRow]:
    """Every version of the journal, its tokens, and the audit verdict of each transition.

    Each version is read against the one before (its unchanged entries are that version's
    own, which the audit passes over at a glance); ``on_version`` is called after each."""
    rows: list[HistoryRow] = []
    prev: tuple[int, PadFile] | None = None
    for v in journal.versions():
        if not v.parsed:
            rows.append(HistoryRow(version=v))
        else:
            try:
                pad_file = journal.pad_file(v.n, prev[1] if prev is not None else None)
            except PadError as exc:  # lost to damage, or bytes crafted to match their hash
                rows.append(HistoryRow(version=v, damage=exc.problem))
                if on_version is not None:
                    on_version()
                continue
            pad = pad_file.pad
            counter = counter_for(encoding or pad.encoding)
            tokens = sum(counter.count_many(e.text for e in pad.entries))
            result = audit(prev[1].pad, pad, counter, rule_map) if prev is not None else None
            previous = prev[0] if prev else None
            rows.append(
                HistoryRow(version=v, pad=pad, tokens=tokens, previous=previous, audit=result)
            )
            prev = (v.n, pad_file)
        if on_version is not None:
            on_version()
    return rows
