"""Transcripts a hook cannot trust: one bad line costs that line, never the guard; a FIFO
or a device in the transcript's place is one line on standard error, never waited on."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from padtui.core.agents import transcript
from tests.claude.sessions import DROPPED, RULE_MIGRATIONS, RULE_TESTS, Session

BAD_LINES = {
    "too deep": b"[" * 200_000 + b"]" * 200_000,
    "deep object": b'{"type": "user", "a": ' + b'{"a":' * 100_000 + b"1" + b"}" * 100_001,
    "not JSON": b"{torn",
    "not UTF-8": b'{"type": "user", "message": {"content": "\xff\xfe"}}',
    "too long": b'{"type": "user", "x": "' + b"a" * (transcript.MAX_LINE + 10) + b'"}',
}


@pytest.fixture
def session(tmp_path: Path) -> Session:
    s = Session(tmp_path)
    s.conversation()
    return s


def _spoil(s: Session, line: bytes) -> None:
    """The bad line among the first records, the rest of the transcript as it was."""
    lines = s.transcript.read_bytes().split(b"\n")
    s.transcript.write_bytes(b"\n".join([lines[0], line, *lines[1:]]))


@pytest.mark.parametrize("bad", list(BAD_LINES), ids=list(BAD_LINES))
def test_a_bad_line_is_skipped_and_the_rest_used(session: Session, bad: str) -> None:
    _spoil(session, BAD_LINES[bad])
    t = transcript.load(str(session.transcript))
    assert t.skipped == 1 and len(t.messages()) == 2
    pre = session.run("claude", "pre-compact", stdin=session.event("PreCompact", trigger="auto"))
    assert pre.returncode == 0 and pre.stderr == "", pre.stderr
    saved = [json.loads(p.read_text()) for p in (session.state / "padtui" / "claude").iterdir()]
    rules = [r["text"] for r in saved[0]["before"]["rules"]]
    assert any(RULE_MIGRATIONS in r for r in rules) and any(RULE_TESTS in r for r in rules)
    # and after a compaction that lost a rule, SessionStart gives it back
    session.compact(DROPPED)
    _spoil(session, BAD_LINES[bad])
    event = session.event("SessionStart", source="compact")
    start = session.run("claude", "session-start", stdin=event)
    assert start.returncode == 0, start.stderr
    assert RULE_MIGRATIONS in start.stdout


def test_the_reader_skips_a_bad_line_and_counts_it(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    good = json.dumps({"type": "user", "message": {"content": "never push to main"}}).encode()
    path.write_bytes(b"\n".join([*BAD_LINES.values(), good, b""]))
    reader = transcript.Reader(str(path))
    reader.read(to_end=True)
    assert reader.transcript.skipped == len(BAD_LINES)
    assert [m.text for m in reader.transcript.messages()] == ["never push to main"]
    assert [m.line for m in reader.transcript.messages()] == [len(BAD_LINES) + 1]


@pytest.mark.parametrize("hook", ["pre-compact", "post-compact", "session-start"])
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_a_device_is_one_line_never_waited_on(
    session: Session, hook: str, kind: str
) -> None:
    if kind == "fifo":
        place = session.root / "transcript.jsonl"
        os.mkfifo(place)
    else:
        place = Path("/dev/zero")
    event = session.event("Hook", trigger="auto", compact_summary=DROPPED, source="compact")
    event["transcript_path"] = str(place)
    result = session.run("claude", hook, stdin=event)  # (times out in 60 s if it waits)
    assert result.returncode == 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "not a regular file" in lines[0], result.stderr
    assert str(place) in lines[0]


def test_audit_of_a_fifo_is_one_line_exit_2(session: Session) -> None:
    place = session.root / "transcript.jsonl"
    os.mkfifo(place)
    result = session.run("claude", "audit", str(place))
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1 and "not a regular file" in result.stderr
