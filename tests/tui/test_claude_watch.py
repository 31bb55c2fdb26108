"""``padtui claude watch``: a Claude Code session's compactions in the inspector, driven
headless on transcripts in Claude Code's record shapes (tests/claude/sessions.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from textual.notifications import Notification, Notify
from textual.pilot import Pilot

from padtui.claude import projects
from padtui.claude.hooks import audit_transcript
from padtui.tui.claude_watch import ClaudeWatchApp
from padtui.tui.screens import AlarmsScreen, HistoryScreen
from padtui.tui.widgets import EntryPane
from tests.claude.sessions import DROPPED, FAITHFUL, RULE_MIGRATIONS, RULE_TESTS, Session
from tests.tui.conftest import WAIT, fixed_clock, plain

SIZE = (140, 40)


@dataclass
class Watch:
    app: ClaudeWatchApp
    pilot: Pilot[int]
    notes: list[Notification] = field(default_factory=list)

    async def until(self, condition: Callable[[], object], what: str) -> None:
        deadline = time.monotonic() + WAIT
        while not condition():
            if time.monotonic() > deadline:
                pytest.fail(f"timed out waiting for {what}")
            await self.pilot.pause(0.005)

    def narration(self) -> str:
        return plain(self.app.inspector.query_one("#narration").content)  # type: ignore[attr-defined]

    def screen_text(self) -> str:
        return "\n".join(s.text for s in self.app.screen._compositor.render_strips())


@asynccontextmanager
async def watching(s: Session, live: bool = True) -> AsyncIterator[Watch]:
    folder = str(s.transcript.parent)
    found = projects.sessions(folder)
    app = ClaudeWatchApp(folder, found[0], len(found), clock=fixed_clock, watch=live)
    notes: list[Notification] = []

    def hook(message: object) -> None:
        if isinstance(message, Notify):
            notes.append(message.notification)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await asyncio.wait_for(app.loaded.wait(), WAIT)
        if live:
            await asyncio.wait_for(app.armed.wait(), WAIT)
        await pilot.pause()
        yield Watch(app, pilot, notes)


@pytest.fixture
def session(tmp_path: Path) -> Session:
    s = Session(tmp_path)
    s.conversation()
    return s


async def test_each_compaction_is_the_rules_before_and_the_summary_after(
    session: Session,
) -> None:
    session.compact(FAITHFUL)
    session.user("now the refund endpoint, same way")
    session.compact(DROPPED)
    async with watching(session, live=False) as w:
        insp = w.app.inspection
        assert [v.number for v in insp.versions] == [1, 2, 3, 4]
        assert [v.origin for v in insp.versions] == [
            "before compaction 1",
            "after compaction 1",
            "before compaction 2",
            "after compaction 2",
        ]
        # the rules in force, one entry a rule, each saying where it came from
        rules = insp.versions[0].pad_file.pad.entries
        assert [e.derived_from[0].startswith("your message") for e in rules] == [True, True]
        assert any(RULE_TESTS in e.text for e in rules)
        assert [v.verdict for v in insp.versions] == [
            "initial",
            "compaction",
            "initial",
            "corruption",
        ]
        # the same judgement as `padtui claude audit`
        audited = audit_transcript(str(session.transcript))
        assert [v.verdict for v in insp.versions[1::2]] == [c["verdict"] for c in audited]
        # the faithful summary raised nothing; the one that dropped a rule is the one alarm
        assert [a.version.number for a in insp.alarms] == [4]
        finding = insp.alarms[0].audit.critical[0]
        assert finding.code == "CONSTRAINT_DROPPED"
        assert "migration files" in (finding.before or "")
        assert "rules lost, 1 dropped" in w.narration()
        assert f"session {session.transcript.name} " in w.narration()  # (whole, not 8 chars)
        # the alarms found on opening: one notice for all of them
        said = [n.message for n in w.notes if n.title == "CORRUPTION"]
        assert said == [
            "1 compaction(s) of this session lost rules: compaction 2. Press a for the findings."
        ]
        assert "⚠ 1 alarm" in plain(w.app.inspector.query_one("#topbar").render())
        assert "corruption" in plain(w.app.inspector.query_one("#status").content)  # type: ignore[attr-defined]
        assert "the summary of compaction 2" in w.narration()
        assert "1 dropped" in w.narration()
        # a step back: the rules in force before it, the one it lost marked, with its source
        await w.pilot.press("comma")
        assert insp.current.number == 3
        assert "the 2 rules in force before compaction 2" in w.narration()
        await w.until(lambda: "✖ CONSTRAINT_DROPPED" in w.screen_text(), "the lost rule marked")
        pane = w.app.inspector.query_one("#rewritable", EntryPane)
        rows = [plain(pane.get_option_at_index(i).prompt) for i in range(pane.option_count)]
        assert "← your message, transcript line 1" in rows[0]
        assert "CONSTRAINT_DROPPED" in rows[0] and "CONSTRAINT_DROPPED" not in rows[1]
        await w.pilot.press("full_stop")
        assert insp.current.number == 4

        await w.pilot.press("a")
        await w.until(lambda: isinstance(w.app.screen, AlarmsScreen), "the alarms")
        await w.until(lambda: "version 4" in w.screen_text(), "the alarm of version 4")
        assert "CONSTRAINT_DROPPED" in w.screen_text()
        await w.pilot.press("escape")
        await w.pilot.press("h")
        await w.until(lambda: isinstance(w.app.screen, HistoryScreen), "the history")
        await w.until(lambda: "after compaction 2" in w.screen_text(), "the history's rows")
        assert "before compaction 1" in w.screen_text()


async def test_a_compaction_appended_while_watching_raises_the_alarm(session: Session) -> None:
    session.compact(FAITHFUL)
    async with watching(session) as w:
        insp = w.app.inspection
        assert [v.verdict for v in insp.versions] == ["initial", "compaction"]
        assert insp.alarms == []
        assert "every rule carried" in w.narration()
        topbar = plain(w.app.inspector.query_one("#topbar").content)  # type: ignore[attr-defined]
        assert "● live" in topbar and "not watching" not in topbar  # (it follows the file)
        before = session.transcript.read_bytes()
        session.user("and the refund endpoint")
        session.compact(DROPPED)
        await w.until(lambda: insp.alarms, "the alarm of the new compaction")
        assert session.transcript.read_bytes().startswith(before)  # (only appended to)
        assert insp.alarms[0].version.number == 4
        assert insp.alarms[0].version.origin == "after compaction 2"
        await w.until(lambda: [n for n in w.notes if n.title == "CORRUPTION"], "the notice")
        dropped = insp.alarms[0].audit.critical[0]
        assert RULE_MIGRATIONS.split(",")[0] in (dropped.before or "")


async def test_a_session_with_no_compaction_waits_for_one(session: Session) -> None:
    async with watching(session) as w:
        assert w.app.inspection.versions == []
        assert "no compaction yet" in w.narration()
        session.compact(FAITHFUL)
        await w.until(lambda: len(w.app.inspection.versions) == 2, "the first compaction")
        assert w.app.inspection.alarms == []


async def test_nothing_is_written(session: Session, tmp_path: Path) -> None:
    session.compact(DROPPED)
    data = session.transcript.read_bytes()
    folder = sorted(p.name for p in session.transcript.parent.iterdir())
    async with watching(session) as w:
        await w.pilot.press("a")
        await w.pilot.press("k")  # acknowledged here only: there is no journal
        await w.pilot.press("c")
        await w.pilot.pause()
    assert session.transcript.read_bytes() == data
    assert sorted(p.name for p in session.transcript.parent.iterdir()) == folder
    assert not session.state.exists() or not any(session.state.rglob("*.jsonl"))


async def test_a_new_session_of_the_project_is_announced_not_switched_to(
    session: Session,
) -> None:
    session.compact(FAITHFUL)
    async with watching(session) as w:
        other = session.transcript.with_name("7c0ffee0-new-session.jsonl")
        other.write_text('{"type":"user","message":{"role":"user","content":"hi"}}\n')
        await w.until(lambda: [n for n in w.notes if n.title == "new session"], "the notice")
        said = next(n for n in w.notes if n.title == "new session")
        assert "7c0ffee0-new-session" in said.message
        assert w.app.session.path == str(session.transcript)
        # (the notice goes out as the change is seen; the narration follows once the watch
        # has read this session's transcript again, in a thread)
        await w.until(lambda: "not the newest" in w.narration(), "the narration to say so")
        session.user("one more thing")  # (its own transcript: still followed)
        session.compact(DROPPED)
        await w.until(lambda: w.app.inspection.alarms, "the alarm of this session")
