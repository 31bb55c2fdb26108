"""``padtui claude watch`` pinned as SVG snapshots at 80x24 and 120x40: a session whose
second compaction dropped a rule, the summary on screen, then the rules in force before it.
Regenerate after a deliberate change with ``--snapshot-update`` and look at the SVGs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from padtui.claude import projects
from padtui.tui.claude_watch import ClaudeWatchApp
from tests.claude.sessions import DROPPED, FAITHFUL, Session
from tests.tui.conftest import WAIT, fixed_clock

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
SnapCompare = Callable[..., bool]


def _app(tmp_path: Path) -> ClaudeWatchApp:
    s = Session(tmp_path)
    s.conversation()
    s.compact(FAITHFUL)
    s.user("now the refund endpoint, same way")
    s.compact(DROPPED)
    folder = str(s.transcript.parent)
    app = ClaudeWatchApp(folder, projects.sessions(folder)[0], clock=fixed_clock, watch=False)
    app.inspection.path = s.transcript.name  # (the top bar's name, not the temporary path)
    return app


async def _loaded(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, ClaudeWatchApp)
    await asyncio.wait_for(app.loaded.wait(), WAIT)
    # as the live app shows it once its folder watch is armed
    app.inspector.watch_armed.set()
    app.inspection.status = "live"
    app.inspector.refresh_view()
    app.clear_notifications()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_the_summary_that_dropped_a_rule(
    tmp_path: Path, snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=_loaded)


@pytest.mark.parametrize("size", SIZES)
def test_the_rules_in_force_before_it(
    tmp_path: Path, snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    app = _app(tmp_path)
    assert snap_compare(app, press=["comma"], terminal_size=size, run_before=_loaded)
