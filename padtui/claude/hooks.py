"""The hooks: PreCompact takes the rules in force, PostCompact judges the summary,
SessionStart (after a compaction) gives the model back every rule the summary lost.

A hook never breaks the user's session: the caller (cli.py) turns any error into exit 0 and
one line on standard error. What a hook prints is a :class:`Said`: text for standard output
(JSON where Claude Code reads JSON) and notes for standard error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from padtui import telemetry
from padtui.claude import files, memory
from padtui.core.agents import transcript
from padtui.core.agents.guard import Judgement, RuleInForce, conversation_rules, judgement

MAX_BLOCK_RULES = 30  # a /compact instruction longer than this is not one to paste


class HookInputError(Exception):
    """The hook's standard input is not the JSON Claude Code sends."""


@dataclass
class Said:
    out: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Event:
    """What Claude Code sends a hook on its standard input (``raw``: all of it)."""

    session_id: str
    transcript_path: str
    cwd: str
    raw: dict[str, Any]

    def get(self, name: str) -> str:
        value = self.raw.get(name)
        return value if isinstance(value, str) else ""


def read_event(data: bytes) -> Event:
    try:
        obj = json.loads(data)
    except ValueError as exc:
        raise HookInputError(f"standard input is not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise HookInputError("standard input is not a JSON object")
    fields = {}
    for name in ("session_id", "transcript_path", "cwd"):
        value = obj.get(name)
        if not isinstance(value, str) or not value:
            raise HookInputError(f"hook input has no {name}")
        fields[name] = value
    return Event(fields["session_id"], fields["transcript_path"], fields["cwd"], obj)


# --- the rules in force ---------------------------------------------------------------------


_UNREAD = transcript.Transcript((), 0)


def _read_transcript(path: str, notes: list[str]) -> transcript.Transcript:
    """The transcript, line by line (a bad line is skipped and counted, the rest used); an
    empty one, and a note, when it cannot be read (not a regular file: never waited on)."""
    try:
        return transcript.load(path)
    except OSError as exc:
        notes.append(f"{path}: transcript not read ({exc.strerror or exc})")
        return _UNREAD


def _this_compaction(t: transcript.Transcript, summary: str | None) -> int | None:
    """The line of the compaction just made when the transcript already holds it (what
    comes from there on is left out), else None. ``summary``: that compaction's summary."""
    found = t.compactions()
    if summary is not None and found and _same_summary(found[-1].summary, summary):
        return found[-1].line
    return None


def _same_summary(written: str, told: str) -> bool:
    """Whether the summary in the transcript is the one the hook was told of (Claude Code
    writes it after a line of its own)."""
    a, b = written.strip(), told.strip()
    return bool(a and b) and (b in a or a in b)


def rules_in_force(
    event: Event, notes: list[str], summary: str | None = None
) -> tuple[list[RuleInForce], int]:
    """The rules of the memory files and of the user's messages (those since the last
    compaction, and earlier ones the compactions since carried), and how many compactions
    came before."""
    t = _read_transcript(event.transcript_path, notes)
    end = _this_compaction(t, summary)
    files_read = memory.read_memory(event.cwd, event.transcript_path, notes, _reads(t, end))
    rules = memory.memory_rules(files_read, notes)
    rules += conversation_rules(t, end)
    before = len([c for c in t.compactions() if end is None or c.line < end])
    return rules, before


def _reads(t: transcript.Transcript, end: int | None) -> list[str]:
    """The files read since the last compaction before line ``end``: a CLAUDE.md below the
    working folder, or an auto-memory topic file, is in force once the agent read there (a
    compaction leaves it out of what is loaded again)."""
    done = [c for c in t.compactions() if end is None or c.line < end]
    start = (done[-1].summary_line or done[-1].line) if done else 0
    return t.files_read(start, end)


def _from_memory(rule: RuleInForce) -> bool:
    return not rule.source.startswith("your message")


# --- state between the hooks of one compaction ----------------------------------------------


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _load(event: Event) -> dict[str, Any]:
    return files.load_json(files.session_state_path(event.session_id)) or {}


def _save(event: Event, state: dict[str, Any]) -> None:
    state["session_id"] = event.session_id
    data = json.dumps(state, indent=1).encode("ascii")
    files.write_atomic(files.session_state_path(event.session_id), data, 0o600)


# --- the hooks ---------------------------------------------------------------------------------


def pre_compact(event: Event, block: bool = True) -> Said:
    said = Said()
    rules, before = rules_in_force(event, said.notes)
    state = _load(event)
    snapshot = state.get("before")
    blocked = (
        isinstance(snapshot, dict)
        and snapshot.get("compactions") == before
        and snapshot.get("blocked") is True
    )
    trigger = event.get("trigger")
    state["before"] = {
        "at": _now(),
        "compactions": before,
        "trigger": trigger,
        "cwd": event.cwd,
        "transcript": event.transcript_path,
        "rules": [r.as_json() for r in rules],
        "blocked": blocked,
    }
    own = [r for r in rules if not _from_memory(r)]
    asked = event.get("custom_instructions")
    if block and trigger == "manual" and own and not blocked and not _all_asked(own, asked):
        state["before"]["blocked"] = True
        said.out = json.dumps({"decision": "block", "reason": _block_reason(own)})
    _save(event, state)
    return said


def _all_asked(rules: list[RuleInForce], asked: str) -> bool:
    said = _plain(asked)
    return all(_plain(r.text) in said for r in rules[:MAX_BLOCK_RULES])


def _plain(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .;!")


def _block_reason(rules: list[RuleInForce]) -> str:
    quoted = "; ".join(json.dumps(r.text, ensure_ascii=False) for r in rules[:MAX_BLOCK_RULES])
    more = (
        f" ({len(rules) - MAX_BLOCK_RULES} more not listed)" if len(rules) > MAX_BLOCK_RULES else ""
    )
    return (
        f"padtui: this conversation holds {len(rules)} rule(s) you set, and summaries often lose "
        f"them{more}. Compact with this instead (it asks the summary to keep them word for "
        f"word; run /compact alone to compact without it):\n"
        f"/compact Keep each of these rules of the user verbatim, in full: {quoted}"
    )


def post_compact(event: Event) -> Said:
    said = Said()
    summary = event.get("compact_summary")
    if not summary.strip():
        said.notes.append("the hook input has no compact_summary: nothing to judge")
        return said
    verdict, before = _judge(event, summary, said.notes)
    state = _load(event)
    record = {
        "at": _now(),
        "compaction": before + 1,
        "trigger": event.get("trigger"),
        **verdict.as_json(),
    }
    state["last"] = {**record, "delivered": False}
    history = state.get("verdicts")
    state["verdicts"] = [*(history if isinstance(history, list) else []), record][-50:]
    _save(event, state)
    said.out = json.dumps({"systemMessage": notice(verdict)})
    return said


def _judge(event: Event, summary: str, notes: list[str]) -> tuple[Judgement, int]:
    state = _load(event)
    unread: list[str] = []
    t = _read_transcript(event.transcript_path, unread)
    end = _this_compaction(t, summary)
    before = len([c for c in t.compactions() if end is None or c.line < end])
    snapshot = state.get("before")
    rules: list[RuleInForce]
    if (
        isinstance(snapshot, dict)
        and snapshot.get("compactions") == before
        and isinstance(snapshot.get("rules"), list)
    ):
        found = (RuleInForce.from_json(r) for r in snapshot["rules"])
        rules = [r for r in found if r is not None]
    elif unread:  # (said once: the transcript, not the snapshot, is what is missing)
        notes += unread
        rules, before = rules_in_force(event, [], summary)
    else:
        notes.append("no PreCompact snapshot for this compaction: the rules were gathered now")
        rules, before = rules_in_force(event, notes, summary)
    # what Claude Code loads again after a compaction: not what it loaded on demand
    memory_now = memory.read_memory(event.cwd, event.transcript_path, [])
    verdict = judgement(rules, summary, memory_now).verdict
    telemetry.compaction_judged(event.session_id, event.transcript_path, verdict, before + 1)
    return verdict, before


def notice(v: Judgement) -> str:
    n = len(v.carried) + len(v.lost)
    if not v.lost:
        return f"padtui: the compaction kept all {n} rule(s) in force."
    parts = []
    if v.dropped:
        parts.append(f"{len(v.dropped)} dropped")
    if v.weakened:
        parts.append(f"{len(v.weakened)} weakened")
    return (
        f"padtui: the compaction's summary lost {len(v.lost)} of {n} rule(s) "
        f"({', '.join(parts)}); they are given back to the model now."
    )


def session_start(event: Event) -> Said:
    said = Said()
    if event.get("source") != "compact":
        return said
    state = _load(event)
    last = state.get("last")
    verdict = Judgement.from_json(last) if isinstance(last, dict) else None
    if verdict is None or not isinstance(last, dict) or last.get("delivered") is True:
        # no PostCompact verdict (an older Claude Code, or the hook not installed): judge the
        # transcript's last compaction now
        verdict = _judge_last(event, said.notes)
        if verdict is None:
            return said
    else:
        last["delivered"] = True
        _save(event, state)
    said.out = repair_text(verdict)
    return said


def _judge_last(event: Event, notes: list[str]) -> Judgement | None:
    t = _read_transcript(event.transcript_path, notes)
    found = t.compactions()
    if not found or not found[-1].summary.strip():
        if t is not _UNREAD:  # (one not read has said so already)
            notes.append("no compaction found in the transcript")
        return None
    verdict, _before = _judge(event, found[-1].summary, notes)
    return verdict


def repair_text(v: Judgement) -> str:
    """For the model: each rule the summary lost, verbatim, with where it came from."""
    if not v.lost:
        return ""
    lines = [
        "The summary of the conversation above lost rules that are still in force. "
        "Keep following each of them exactly as written:",
    ]
    for r in v.dropped:
        lines.append(f"- {r.text}  (from {r.source})")
    for r, after in v.weakened:
        said = " ".join(after.split())
        lines.append(f"- {r.text}  (from {r.source}; the summary weakened it to: {said})")
    return "\n".join(lines)


# --- after the fact -------------------------------------------------------------------------


def audit_transcript(path: str) -> list[dict[str, Any]]:
    """The verdict of every compaction in a transcript file, on the rules the user set in
    the conversation it condensed (memory files are read again after a compaction)."""
    from padtui.claude.compactions import judged

    try:
        reader = transcript.Reader(path)
        reader.read(to_end=True)
    except OSError as exc:
        raise OSError(exc.strerror or str(exc)) from None
    return [j.as_json() for j in judged(reader.transcript)]
