"""Every compaction of a transcript judged (``padtui claude audit``, ``padtui claude watch``),
and each shown as a pair of pad versions: the rules in force before, the summary after.

Only the rules of the user's messages are judged: Claude Code loads the memory files
(CLAUDE.md, .claude/rules/, MEMORY.md) again after a compaction, so no summary loses theirs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime

from padtui.core.agents.guard import SummaryAudit, conversation_rules, judgement
from padtui.core.agents.transcript import Compaction, Transcript
from padtui.core.audit.totals import totals
from padtui.core.counting.tokens import TokenCounter
from padtui.core.formats import Layout, PadFile
from padtui.core.formats import markdown as md
from padtui.core.live.inspection import Examined, digest
from padtui.core.storage.store import snapshot_of
from padtui.core.vocabulary import Verdict

NO_SUMMARY = "no summary record after the boundary"
SUMMARY_WITHIN = 5  # records after its boundary where a compaction's summary is looked for


@dataclass(frozen=True)
class Judged:
    """One compaction of a transcript, and its judgement (None: it has no summary)."""

    number: int  # its place among the transcript's compactions, from 1
    compaction: Compaction
    at: datetime | None  # when it was made (its boundary's timestamp)
    judgement: SummaryAudit | None

    def as_json(self) -> dict[str, object]:
        c = self.compaction
        item: dict[str, object] = {
            "compaction": self.number,
            "line": c.line,
            "trigger": c.trigger,
            "pre_tokens": c.pre_tokens,
        }
        if self.judgement is None:
            item.update(verdict="unknown", note=NO_SUMMARY)
        else:
            item.update(self.judgement.verdict.as_json())
        return item


def settled(t: Transcript, c: Compaction) -> bool:
    """Is the compaction whole: its summary written, or so many records after its boundary
    that none will be?"""
    if c.summary_line is not None:
        return True
    return sum(line > c.line for line, _ in t.records[-SUMMARY_WITHIN:]) >= SUMMARY_WITHIN


def judged(t: Transcript, after: int = 0, whole_only: bool = False) -> Iterator[Judged]:
    """The compactions after the first ``after``, in order, each judged on the rules the
    user set in the conversation it condensed; with ``whole_only``, up to the first one not
    whole yet (a transcript being written)."""
    stamps: dict[int, str] = {}
    for n, c in enumerate(t.compactions(), 1):
        if n <= after:
            continue
        if whole_only and not settled(t, c):
            return
        if not stamps:
            stamps = _boundary_stamps(t)
        result = None
        if c.summary.strip():
            result = judgement(conversation_rules(t, c.line), c.summary)
        yield Judged(n, c, _when(stamps.get(c.line)), result)


def _boundary_stamps(t: Transcript) -> dict[int, str]:
    out = {}
    for line, r in t.records:
        ts = r.get("timestamp")
        if r.get("subtype") == "compact_boundary" and isinstance(ts, str):
            out[line] = ts
    return out


def _when(stamp: str | None) -> datetime | None:
    if stamp is None:
        return None
    try:
        at = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo is not None else None


# --- as pad versions ----------------------------------------------------------------------


def rules_text(j: Judged) -> str:
    """The rules in force before a compaction, as text (what the version's bytes are)."""
    assert j.judgement is not None
    lines = [f"# Rules in force before compaction {j.number} (line {j.compaction.line})\n"]
    for e in j.judgement.before.entries:
        lines.append(f"- {e.text}  ({', '.join(e.derived_from)})\n")
    return "".join(lines)


def pad_files(path: str, j: Judged, read_only: str) -> tuple[PadFile, PadFile]:
    """A judged compaction as two versions of a pad read from ``path``: the rules in force
    before it (one entry a rule, naming where it came from), and its summary."""
    assert j.judgement is not None
    rules = rules_text(j).encode("utf-8")
    before = PadFile(
        path, j.judgement.before, Layout(format="markdown", read_only=read_only), rules
    )
    summary = j.compaction.summary
    layout = replace(md.parse(path, summary)[1], read_only=read_only)
    after = PadFile(path, j.judgement.after, layout, summary.encode("utf-8"))
    return before, after


def examined(
    pad_file: PadFile, counter: TokenCounter, previous: str | None, j: Judged | None = None
) -> Examined:
    """A version ready for :meth:`Inspection.take_in`: the rules before a compaction (no
    audit: they are no rewrite of the summary before them), or (``j``) its summary, audited
    against them, with the compaction's verdict (every rule carried: a compaction)."""
    counted = totals(pad_file.pad, counter)
    audit = None
    if j is not None and j.judgement is not None:
        audit = replace(j.judgement.audit, verdict=Verdict(j.judgement.verdict.verdict))
    return Examined(
        snapshot=snapshot_of(pad_file),
        digest=digest(pad_file.data),
        after=previous,
        tokens=counted.tokens,
        sealed_tokens=counted.sealed,
        claims=counted.claims,
        caution=counted.caution,
        audit=audit,
    )
