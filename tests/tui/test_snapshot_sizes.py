"""Every screen, pinned as SVG snapshots at 80x24 and 120x40 (pytest-textual-snapshot).

Deterministic as test_snapshots.py is: no folder watch where a screen need not watch, no
journal, a fixed clock, pads opened by a path relative to the working folder, fixed file
times (the fleet shows them) in UTC. Regenerate after a deliberate change with
``pytest tests/tui/test_snapshot_sizes.py --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from padtui.core.live.watcher import read_once
from padtui.core.storage import store
from padtui.demo_agent import load_scenario
from padtui.tui.app import PadApp
from padtui.tui.demo import DemoApp
from padtui.tui.fleet import FleetApp
from padtui.tui.replay import ReplayApp
from tests.tui.conftest import FIXED_NOW, WAIT, fixed_clock
from tests.tui.test_snapshots import app_on, first_version, pads

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
SnapCompare = Callable[..., bool]
FILE_TIME = datetime(2026, 11, 14, 2, 15, 0, tzinfo=UTC).timestamp()

__all__ = ["pads"]  # (the fixture, used by name)


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC (the fleet shows file times in local time)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def quiet(pilot: Pilot[Any]) -> None:
    """No notice on screen (each has its own timeout)."""
    pilot.app.clear_notifications()
    await pilot.pause()


async def rewritten(pilot: Pilot[Any]) -> None:
    """The pad's first version, then the seed's corrupting condense (an alarm)."""
    app = pilot.app
    assert isinstance(app, PadApp)
    await first_version(pilot)
    shutil.copyfile(Path("transitions") / "retry-5xx-after-condense.json", "pad.json")
    app.take(read_once("pad.json"))
    assert app.inspection.current.verdict == "corruption"
    await pilot.pause()
    await quiet(pilot)


def corrupted_pad(pads: Path) -> PadApp:
    shutil.copyfile(pads / "transitions" / "retry-5xx-before.json", pads / "pad.json")
    return app_on("pad.json")


@pytest.mark.parametrize("size", SIZES)
def test_inspector(pads: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    app = app_on("retry-5xx-under-pressure.json")
    assert snap_compare(app, terminal_size=size, run_before=first_version)


@pytest.mark.parametrize("size", SIZES)
def test_trial(pads: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    app = app_on("compactable-notes.jsonl")
    assert snap_compare(app, press=["t", "p"], terminal_size=size, run_before=first_version)


@pytest.mark.parametrize("size", SIZES)
def test_commit_confirmation(pads: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The diff scrolls; Commit (y) and Cancel (n) stay in view."""
    app = app_on("compactable-notes.jsonl")
    assert snap_compare(app, press=["t", "c"], terminal_size=size, run_before=first_version)


@pytest.mark.parametrize("size", SIZES)
def test_refusal(pads: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The explanation scrolls; the way out and the buttons stay in view."""
    app = app_on("retry-5xx-under-pressure.json")
    assert snap_compare(app, press=["c"], terminal_size=size, run_before=first_version)


@pytest.mark.parametrize("size", SIZES)
def test_history(pads: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    app = corrupted_pad(pads)
    assert snap_compare(app, press=["h"], terminal_size=size, run_before=rewritten)


@pytest.mark.parametrize("size", SIZES)
def test_alarms(pads: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    app = corrupted_pad(pads)
    assert snap_compare(app, press=["a"], terminal_size=size, run_before=rewritten)


@pytest.mark.parametrize("size", SIZES)
def test_concept(pads: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    app = app_on("retry-5xx-under-pressure.json")
    assert snap_compare(app, press=["i"], terminal_size=size, run_before=first_version)


@pytest.mark.parametrize("size", SIZES)
def test_help(pads: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    app = app_on("retry-5xx-under-pressure.json")
    assert snap_compare(app, press=["question_mark"], terminal_size=size, run_before=first_version)


def fleet_app(pads: Path) -> FleetApp:
    for name in os.listdir(pads):
        os.utime(pads / name, (FILE_TIME, FILE_TIME))
    app = FleetApp(".", clock=fixed_clock, use_journal=False)
    app.place = "pads"  # (the folder's name, not the test's own temporary path)
    return app


async def fleet_read(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, FleetApp)
    await asyncio.wait_for(app.fleet_ready.wait(), WAIT)
    await pilot.press("home")  # (the cursor stays on the pad read first, whichever it was)
    await quiet(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_fleet(pads: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    assert snap_compare(fleet_app(pads), terminal_size=size, run_before=fleet_read)


def test_fleet_with_long_names(pads: Path, snap_compare: SnapCompare) -> None:
    """At 120 columns, names longer than the pad column's share are cut in the middle, so
    two names that differ at the end stay told apart; a broken pad's reason is whole on the
    status line once its row is chosen."""
    names = (
        "CLAUDE.summary-2026-11-30-first-week-good.md",
        "CLAUDE.summary-2026-11-30-first-week-bad.md",
    )
    for name in names:
        shutil.copyfile(pads / "markdown-notes.md", pads / name)
    (pads / "broken-agent-memory.json").write_text("{\n,,}")
    app = fleet_app(pads)

    async def on_broken(pilot: Pilot[Any]) -> None:
        await fleet_read(pilot)
        await pilot.press("down", "down")  # (CLAUDE.…bad, CLAUDE.…good, then the broken one)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 40), run_before=on_broken)


@pytest.mark.parametrize("size", SIZES)
def test_fleet_help(pads: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    app = fleet_app(pads)
    assert snap_compare(app, press=["question_mark"], terminal_size=size, run_before=fleet_read)


@pytest.mark.parametrize("size", SIZES)
def test_replay(
    pads: Path, snap_compare: SnapCompare, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A journal of two versions (recorded at fixed times), replayed at the newer one."""
    journal = str(pads / "journal.jsonl")
    times = iter(int(FIXED_NOW.timestamp() * 1e9) + n * 60 * 10**9 for n in itertools.count())
    with monkeypatch.context() as patch:
        patch.setattr("padtui.core.storage.journal.time.time_ns", lambda: next(times))
        for version in ("retry-5xx-before.json", "retry-5xx-after-condense.json"):
            shutil.copyfile(pads / "transitions" / version, "pad.json")
            snapshot = read_once("pad.json").snapshot
            assert snapshot is not None
            store.record(snapshot, journal)
    j = store.journal_of("pad.json", journal)
    assert j is not None
    app = ReplayApp(j)
    app.inspection.path = "pad.json"  # (the top bar's name, not the temporary path)

    async def replayed(pilot: Pilot[Any]) -> None:
        await asyncio.wait_for(app.ready.wait(), WAIT)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=replayed)


@pytest.mark.parametrize("size", SIZES)
def test_demo(pads: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The demo before the agent's first step (it would take it in an hour)."""
    app = DemoApp("demo.json", load_scenario("retry-5xx"), 3600.0, clock=fixed_clock)
    app.use_journal = False
    app.agent.start()

    async def armed(pilot: Pilot[Any]) -> None:
        await asyncio.wait_for(app.ready.wait(), WAIT)
        await asyncio.wait_for(app.watch_armed.wait(), WAIT)
        await pilot.pause()
        await quiet(pilot)

    assert snap_compare(app, terminal_size=size, run_before=armed)
