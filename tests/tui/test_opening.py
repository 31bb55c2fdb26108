"""Opening a pad: the screen is drawn, says what it reads and answers keys while the pad is
read, counted and audited (seconds for a pad of a million tokens), then shows it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from padtui.tui import inspector as inspector_module
from padtui.tui.app import make_app
from padtui.tui.screens import HelpScreen
from padtui.tui.widgets import EntryPane, StatusLine
from tests.tui.conftest import SIZE, WAIT, copy_sample, plain

PAD = "retry-5xx-under-pressure.json"


async def test_the_screen_says_it_reads_the_pad_and_answers_keys_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pad = copy_sample(tmp_path, PAD, "pad.json")
    held = asyncio.Event()
    read = inspector_module.read_settled

    async def held_read(*args: Any, **kwargs: Any) -> Any:
        await held.wait()
        return await read(*args, **kwargs)

    monkeypatch.setattr(inspector_module, "read_settled", held_read)
    app = make_app(str(pad), watching=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        status = plain(app.screen.query_one("#status", StatusLine).content)
        assert status.startswith("reading pad.json (0.0 MiB)")
        assert not app.ready.is_set()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        held.set()
        await asyncio.wait_for(app.ready.wait(), WAIT)
        assert app.inspection.current.number == 1
        sealed = app.screen.query_one("#sealed", EntryPane)
        assert "c-billing" in [row.entry.label for row in sealed.rows]


async def test_a_pad_naming_an_encoding_not_here_says_so_on_opening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its first version is counted in the encoding it names: one that is not here is the
    pad's error on the status line, not a crash of the screen once it is drawn."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "no-tiktoken-cache"))
    pad = tmp_path / "pad.json"
    entries = [{"kind": "note", "text": "hello world"}]
    pad.write_text(json.dumps({"encoding": "p50k_base", "entries": entries}))
    app = make_app(str(pad), watching=False)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), WAIT)
        await pilot.pause()
        assert app.inspection.versions == []
        status = plain(app.screen.query_one("#status", StatusLine).content)
        assert "'p50k_base' is not bundled" in status
