"""The look of the inspector, pinned as SVG snapshots (pytest-textual-snapshot).

Deterministic by construction: a fixed terminal size, no folder watch, no journal, a fixed
clock for the times the screens show (versions seen, loss records stamped), and a pad path
relative to the working folder (the top bar shows it). Regenerate after a deliberate change
with ``pytest tests/tui/test_snapshots.py --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from padtui.core.live.watcher import read_once
from padtui.tui.app import PadApp, make_app
from tests.tui.conftest import SAMPLES, fixed_clock

SIZE = (140, 40)
SnapCompare = Callable[..., bool]


@pytest.fixture
def pads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder holding copies of the sample pads (opened by relative path)."""
    folder = tmp_path / "pads"
    shutil.copytree(SAMPLES, folder)
    monkeypatch.chdir(folder)
    return folder


def app_on(name: str) -> PadApp:
    return make_app(name, watch=False, use_journal=False, clock=fixed_clock)


async def first_version(pilot: Pilot[Any]) -> None:
    assert isinstance(pilot.app, PadApp)
    await pilot.app.ready.wait()
    await pilot.pause()


def test_main_screen(pads: Path, snap_compare: SnapCompare) -> None:
    """Sealed and rewritable panes, the rewritable one scrolled to the unsealed constraint
    c-retry, flagged as a hazard; the gauge over budget by 86 tokens."""
    app = app_on("retry-5xx-under-pressure.json")
    assert snap_compare(app, press=["end", "up"], terminal_size=SIZE, run_before=first_version)


def test_open_trial(pads: Path, snap_compare: SnapCompare) -> None:
    """A compactable pad, trial stepped back once: two drops struck through, the pending
    loss record in the sealed pane, the gauge's 'after' line, 'step 2/3 drops', the rule
    at risk counted in the status line."""
    app = app_on("compactable-notes.jsonl")
    assert snap_compare(app, press=["t", "p"], terminal_size=SIZE, run_before=first_version)


def test_refusal_dialog(pads: Path, snap_compare: SnapCompare) -> None:
    """c on a pad whose pass would drop constraint c-retry: the code, what it means, the way
    out and the Externalize c-retry button."""
    app = app_on("retry-5xx-under-pressure.json")
    assert snap_compare(app, press=["c"], terminal_size=SIZE, run_before=first_version)


def test_history_screen(pads: Path, snap_compare: SnapCompare) -> None:
    """Two versions: the seed's incident, c-retry condensed into a plan that lost its
    prohibition. Sparklines of tokens and caution share, the corruption verdict, its
    findings and the entry diff."""
    pad = pads / "pad.json"
    shutil.copyfile(pads / "transitions" / "retry-5xx-before.json", pad)
    app = app_on("pad.json")

    async def rewritten(pilot: Pilot[Any]) -> None:
        await first_version(pilot)
        shutil.copyfile(pads / "transitions" / "retry-5xx-after-condense.json", pad)
        app.take(read_once("pad.json"))  # what the folder watch would hand it
        assert app.inspection.current.verdict == "corruption"
        await pilot.pause()  # (the alarm's notice arrives as a message)
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, press=["h"], terminal_size=SIZE, run_before=rewritten)
