"""Claude Code transcripts: the user's messages and the compactions in them (the README's
"Guard Claude Code's compactions").

A transcript is JSON Lines, one record a line. A damaged line (a torn write, a record of a
newer version, a line too long or nested too deep, not JSON, not UTF-8) is skipped and
counted, never fatal: the transcript is the user's session, not padtui's. Only a regular
file is read (a FIFO or a device in its place is an OSError), line by line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from padtui.core.storage import fsio

# what Claude Code itself puts in a user record (slash commands, their output, reminders)
_NOT_TYPED = (
    "<command-",
    "<local-command-",
    "Caveat:",
    "<system-reminder>",
    "[Request interrupted",
    "Implement the following plan:",  # (a plan the agent wrote, accepted by the user)
)


@dataclass(frozen=True)
class Message:
    """A message the user typed: its text, and where it sits in the transcript."""

    text: str
    line: int  # 1-based line of its record
    uuid: str | None
    timestamp: str | None


@dataclass(frozen=True)
class Compaction:
    """A compaction: its ``compact_boundary`` record and the summary written after it."""

    line: int  # 1-based line of the boundary
    trigger: str | None
    pre_tokens: int | None
    summary: str  # "" when the summary record is missing
    summary_line: int | None


@dataclass(frozen=True)
class Transcript:
    records: tuple[tuple[int, dict[str, Any]], ...]  # (1-based line, record)
    skipped: int  # lines that were not a JSON object

    def compactions(self) -> list[Compaction]:
        return compactions(self.records)

    def messages(self, start: int = 0, end: int | None = None) -> list[Message]:
        """The user's messages on lines ``start < line < end``."""
        return user_messages(
            r for r in self.records if start < r[0] and (end is None or r[0] < end)
        )

    def files_read(self, start: int = 0, end: int | None = None) -> list[str]:
        """The files the agent read or wrote on lines ``start < line < end`` (the
        ``file_path`` of its tool calls), in order, each once."""
        out: list[str] = []
        for line, r in self.records:
            if line <= start or (end is not None and line >= end) or r.get("type") != "assistant":
                continue
            content = _message(r).get("content")
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict) or block.get("type") != "tool_use":
                    continue
                given = block.get("input")
                for key in _PATH_KEYS:
                    path = given.get(key) if isinstance(given, dict) else None
                    if isinstance(path, str) and path and path not in out:
                        out.append(path)
        return out


_PATH_KEYS = ("file_path", "notebook_path")  # (Read, Edit, Write, NotebookEdit)


MAX_LINE = 32 << 20  # bytes in one record: a longer line is skipped unread


def parse(data: bytes) -> Transcript:
    return parse_lines(data.split(b"\n"))


def parse_lines(lines: Iterable[bytes | None]) -> Transcript:
    """The records of a transcript's lines (None: a line too long to read, skipped)."""
    records: list[tuple[int, dict[str, Any]]] = []
    skipped = 0
    for n, raw in enumerate(lines, 1):
        if raw is None or len(raw) > MAX_LINE:
            skipped += 1
            continue
        if not raw.strip():
            continue
        obj = _record(raw)
        if obj is None:
            skipped += 1
        else:
            records.append((n, obj))
    return Transcript(tuple(records), skipped)


def load(path: str) -> Transcript:
    """The transcript at ``path``, read line by line; OSError when it cannot be read (not a
    regular file: ``strerror`` says so)."""
    fd, _st = fsio.open_regular(path)
    try:
        return parse_lines(fsio.read_lines(fd, MAX_LINE))
    finally:
        os.close(fd)


def _record(raw: bytes) -> dict[str, Any] | None:
    """A line's record: None for a line that is not a JSON object (not JSON, not UTF-8,
    nested deeper than the parser goes)."""
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


CHUNK = 1 << 20  # bytes read at a time: a transcript of any size is read in this much memory
# a record that matters to a compaction (the user's messages, boundaries, summaries) holds
# one of these as a JSON string, quotes and all (in a string's text a quote is escaped)
_WANTED = (b'"user"', b'"queue-operation"', b'"compact_boundary"')
_OTHER: dict[str, Any] = {}  # (shared) any other record: only its line is kept


class Reader:
    """A transcript read as it grows: each read takes only the lines added since the last,
    complete lines only (one being written is left for the next read), and keeps only the
    records a compaction's judgement reads (any other is its line number, for
    :func:`compactions` counts records); a file replaced or cut short is read again from
    the start. Memory: the records kept, and one chunk."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._file: tuple[int, int] | None = None  # (device, inode) read
        self._reset()

    def _reset(self) -> None:
        self.offset = 0  # bytes read, up to the end of the last complete line
        self.lines = 0
        self.records: list[tuple[int, dict[str, Any]]] = []
        self.skipped = 0
        self._in_long = False  # the last read ended inside a line too long to keep

    @property
    def transcript(self) -> Transcript:
        return Transcript(tuple(self.records), self.skipped)

    def read(
        self, progress: Callable[[int, int], None] | None = None, to_end: bool = False
    ) -> bool:
        """Read what was added; True if a line was. ``progress(done, size)`` after each
        chunk; ``to_end``: a last line with no line ending is taken too (a file read once,
        not followed). OSError when the file cannot be read."""
        fd, st = fsio.open_regular(self.path)
        with open(fd, "rb") as f:
            if self._file != (st.st_dev, st.st_ino) or st.st_size < self.offset:
                self._reset()
                self._file = (st.st_dev, st.st_ino)
            f.seek(self.offset)
            before = self.lines
            rest = b""
            while True:
                chunk = f.read(CHUNK)
                if not chunk:
                    break
                if self._in_long:  # (the rest of a line too long to keep: skipped)
                    nl = chunk.find(b"\n")
                    self.offset += len(chunk) if nl < 0 else nl + 1
                    if nl < 0:
                        continue
                    self.lines += 1
                    self.skipped += 1
                    self._in_long = False
                    chunk = chunk[nl + 1 :]
                data = rest + chunk
                end = data.rfind(b"\n") + 1
                self._take(data[:end])
                self.offset += end
                rest = data[end:]
                if len(rest) > MAX_LINE:
                    self.offset += len(rest)
                    rest, self._in_long = b"", True
                if progress is not None:
                    progress(self.offset, max(st.st_size, self.offset))
            if to_end and self._in_long:
                self.lines += 1
                self.skipped += 1
                self._in_long = False
            elif to_end and rest.strip():
                self._take(rest + b"\n")
                self.offset += len(rest)
        return self.lines != before

    def _take(self, data: bytes) -> None:
        if not data:
            return
        for raw in data.split(b"\n")[:-1]:
            self.lines += 1
            raw = raw.strip()
            if not raw:
                continue
            if not any(w in raw for w in _WANTED):
                # (not parsed: an object by its braces, a torn line skipped as parse skips it)
                if raw.startswith(b"{") and raw.endswith(b"}"):
                    self.records.append((self.lines, _OTHER))
                else:
                    self.skipped += 1
                continue
            obj = _record(raw) if len(raw) <= MAX_LINE else None
            if obj is not None:
                self.records.append((self.lines, obj if _wanted(obj) else _OTHER))
            else:
                self.skipped += 1


def _wanted(record: dict[str, Any]) -> bool:
    return is_boundary(record) or is_summary(record) or typed_text(record) is not None


def content_text(content: Any) -> str:
    """A message's text: a string, or the ``text`` blocks of a list (tool calls, tool
    results and images are not what anyone typed)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
        return "\n\n".join(parts)
    return ""


def _message(record: dict[str, Any]) -> dict[str, Any]:
    m = record.get("message")
    return m if isinstance(m, dict) else {}


def is_summary(record: dict[str, Any]) -> bool:
    return record.get("type") == "user" and record.get("isCompactSummary") is True


def is_boundary(record: dict[str, Any]) -> bool:
    return record.get("type") == "system" and record.get("subtype") == "compact_boundary"


def typed_text(record: dict[str, Any]) -> str | None:
    """The text the user typed in this record, or None when the record is not that."""
    if record.get("type") == "queue-operation":
        # a message typed while the agent was busy exists only as its enqueue
        text = record.get("content")
        if record.get("operation") != "enqueue" or not isinstance(text, str):
            return None
        return text if text.strip() else None
    if record.get("type") != "user" or is_summary(record) or record.get("isMeta") is True:
        return None
    if record.get("isSidechain") is True or record.get("toolUseResult") is not None:
        return None
    text = content_text(_message(record).get("content")).strip()
    if not text or text.startswith(_NOT_TYPED):
        return None
    return text


def user_messages(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Message]:
    out: list[Message] = []
    seen: set[str] = set()
    for line, r in records:
        text = typed_text(r)
        if text is None:
            continue
        if r.get("type") == "queue-operation":
            seen.add(text)
        elif text in seen:  # the queued message, delivered later as a user record
            continue
        uuid, ts = r.get("uuid"), r.get("timestamp")
        out.append(
            Message(
                text,
                line,
                uuid if isinstance(uuid, str) else None,
                ts if isinstance(ts, str) else None,
            )
        )
    return out


def compactions(records: Sequence[tuple[int, dict[str, Any]]]) -> list[Compaction]:
    """Every compaction, in order: a boundary and the first summary record after it."""
    out: list[Compaction] = []
    for i, (line, r) in enumerate(records):
        if not is_boundary(r):
            continue
        meta = r.get("compactMetadata")
        meta = meta if isinstance(meta, dict) else {}
        trigger = meta.get("trigger")
        tokens = meta.get("preTokens")
        summary, summary_line = "", None
        for later_line, later in records[i + 1 : i + 6]:
            if is_boundary(later):
                break
            if is_summary(later):
                summary = content_text(_message(later).get("content"))
                summary_line = later_line
                break
        out.append(
            Compaction(
                line,
                trigger if isinstance(trigger, str) else None,
                tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None,
                summary,
                summary_line,
            )
        )
    return out
