"""The demo (scripted agent in the inspector), the concept screen and replay, driven headless."""

from __future__ import annotations

import asyncio
import time

from textual.widgets import Static

from padtui.core.storage import store
from padtui.demo_agent import load_scenario
from padtui.tui.concept import ConceptScreen
from padtui.tui.demo import DemoApp
from padtui.tui.replay import ReplayApp
from padtui.tui.screens import RefusalScreen

SIZE = (160, 45)
DEADLINE = 20.0


async def until(pilot, condition, what: str) -> None:
    """Wait on a condition, pumping the app, with a deadline (a hang fails, not hangs)."""
    end = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await pilot.pause(0.05)


def narration(app) -> str:
    return str(app.query_one("#narration", Static).render())


def demo_app(tmp_path, scenario="retry-5xx", interval=3600.0) -> DemoApp:
    """A demo whose agent only moves when told to (the . key), so the test sets the pace."""
    path = str(tmp_path / "pad.json")
    app = DemoApp(path, load_scenario(scenario), interval, journal=str(tmp_path / "journal.jsonl"))
    app.agent.start()
    return app


async def test_stepping_the_agent_through_retry_5xx_raises_the_corruption_alarm(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.inspection.versions, "the first version")
        assert "demo: Retry after a 5xx" in narration(app)
        for n in (1, 2, 3):
            await pilot.press("full_stop")
            await until(pilot, lambda n=n: len(app.inspection.versions) > n, f"version {n}")
        verdicts = [v.verdict for v in app.inspection.versions]
        assert verdicts == ["initial", "growth", "growth", "corruption"]
        assert app.inspection.alarms and app.inspection.alarms[-1].critical
        assert "step 3/4" in narration(app)
        assert "alarm" in str(app.query_one("#topbar", Static).render())


async def test_pause_holds_the_agent_and_restart_starts_over(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        # the agent is let go once the pad is watched: at this pace, started with the app, it
        # could end its scenario before a slow start had read the pad, and no step be seen
        await asyncio.wait_for(app.watch_armed.wait(), DEADLINE)
        app.interval = 0.05
        await pilot.press("full_stop")
        await until(pilot, lambda: len(app.inspection.versions) >= 2, "the agent's first step")
        await pilot.press("space")
        assert app.paused
        await asyncio.sleep(0.2)  # several intervals pass: a paused agent takes no step
        await pilot.pause()
        held = app.agent.position
        await asyncio.sleep(0.2)
        await pilot.pause()
        assert app.agent.position == held
        await pilot.press("r")
        await until(
            pilot,
            lambda: app.agent.position == 0 and len(app.inspection.versions) == 1,
            "the restart",
        )
        assert app.inspection.alarms == []  # starting over is not taken for a rewrite


async def test_restart_starts_as_new_policy_and_version_numbers_included(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.watch_armed.wait(), DEADLINE)
        await until(pilot, lambda: app.inspection.current.number == 1, "version 1")
        app.interval = 0.05
        await pilot.press("full_stop")
        await until(pilot, lambda: app.inspection.current.number >= 2, "the agent's first step")
        await pilot.press("space", "s")  # paused, and the policy switched
        assert app.inspection.policy == "seed"
        await pilot.press("r")
        await until(
            pilot,
            lambda: app.agent.position == 0 and len(app.inspection.versions) == 1,
            "the restart",
        )
        await until(pilot, lambda: app.inspection.current.journal is not None, "journaled")
        assert app.inspection.policy == "strict"
        assert app.inspection.current.number == 1
        top = app.inspector.query_one("#topbar", Static)
        await until(pilot, lambda: "v1 " in str(top.render()), "v1 on the top bar")


async def test_sealed_overflow_demo_ends_with_the_agent_halting(tmp_path):
    app = demo_app(tmp_path, scenario="sealed-overflow", interval=0.01)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.agent.done, "the end of the scenario")
        await pilot.pause()
        assert app.agent.halted is not None
        assert "halts and surfaces: SEALED_OVER_BUDGET" in narration(app)


async def test_a_refusal_links_to_the_paragraph_that_explains_it(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.inspection.versions, "the first version")
        app.inspection.set_budget(100)  # the sealed region alone is 141 tokens: refused
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, RefusalScreen), "the refusal")
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, ConceptScreen), "the concept screen")
        current = app.screen.query_one(".current", Static)
        assert current.id == "concept-boundary"
        assert "Halt and surface" in str(current.render())
        await pilot.press("escape")
        await pilot.press("escape")
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, ConceptScreen), "i opens the concept")
        live = str(app.screen.query_one("#live-example", Static).render())
        assert "tokens per claim" in live


async def test_replay_steps_through_the_journal_read_only(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.inspection.versions, "the first version")
        for n in (1, 2, 3):
            await pilot.press("full_stop")
            await until(pilot, lambda n=n: len(app.inspection.versions) > n, f"version {n}")
        live = [v.number for v in app.inspection.versions]
    journal = store.journal_of(app.inspection.path, str(tmp_path / "journal.jsonl"))
    assert journal is not None and len(journal.versions()) >= 4
    pad_before = (tmp_path / "pad.json").read_bytes()
    replay = ReplayApp(journal)
    async with replay.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: replay.recorded, "the journal's versions")
        # one numbering: the live inspector's, the replay's and the journal's agree
        assert [v.number for v in replay.recorded] == [v.n for v in journal.versions()] == live
        last = len(replay.recorded) - 1
        assert replay.cursor == last
        assert replay.inspection.current.verdict == "corruption"
        await pilot.press("comma")
        assert replay.cursor == last - 1
        assert replay.inspection.current.verdict == "growth"
        shown = replay.recorded[last - 1].number  # the journal's own number for it
        assert f"replay v{shown} ({last} of {last + 1})" in narration(replay)
        await pilot.press("full_stop")
        assert replay.cursor == last
        await pilot.press("t", "c")
        await pilot.pause()
        assert (tmp_path / "pad.json").read_bytes() == pad_before  # nothing written


async def test_replay_shows_the_journal_not_the_pad_as_it_is_now(tmp_path):
    """The pad may have moved on (or be gone) since: replay shows only what was recorded."""
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.inspection.versions, "the first version")
        await pilot.press("full_stop")
        await until(pilot, lambda: len(app.inspection.versions) > 1, "a second version")
    journal = store.journal_of(app.inspection.path, str(tmp_path / "journal.jsonl"))
    assert journal is not None
    recorded = len(journal.versions())
    pad = tmp_path / "pad.json"
    pad.write_text('{"entries": [{"kind": "note", "id": "later", "text": "written since"}]}')
    replay = ReplayApp(journal)
    async with replay.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: replay.ready.is_set(), "the replay to start")
        await pilot.pause()
        assert len(replay.inspection.versions) == len(replay.recorded) == recorded
        ids = [e.id for e in replay.inspection.current.pad_file.pad.entries]
        assert "later" not in ids
        assert replay.inspection.status == "replay"
    pad.unlink()
    replay = ReplayApp(journal)
    async with replay.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: replay.ready.is_set(), "the replay of a deleted pad")
        await pilot.pause()
        assert len(replay.inspection.versions) == recorded
        assert replay.inspection.status == "replay"
