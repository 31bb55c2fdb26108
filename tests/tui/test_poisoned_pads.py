"""One pad that padtui fails on (an exception no check foresaw) is that pad's error, shown on
its row or in its inspector: never a WorkerFailed that ends the inspector or the fleet. The
view recovers once the pad reads again."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from padtui.core import formats
from padtui.tui.fleet import FleetApp
from padtui.tui.inspector import FAILED
from tests.tui.conftest import (
    SAMPLES,
    SIZE,
    WAIT,
    copy_sample,
    fixed_clock,
    inspector,
    write_atomic,
)
from tests.tui.test_fleet import HEALTHY, NOTES, RETRY, Fleet

MARK = "POISON-\x1b[31m"  # what sets off the failure; its escape must not reach the screen


@pytest.fixture(autouse=True)
def poisoned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a pad that holds MARK fails as a bug in padtui would: not with a PadError."""
    decode = formats.decode

    def failing(path: str, data: bytes, fmt: str = "json") -> str:
        if b"POISON-" in data:
            raise RuntimeError(f"unforeseen failure in {MARK}\nsecond line")
        return decode(path, data, fmt)

    monkeypatch.setattr(formats, "decode", failing)


def with_note(path: Path, text: str) -> str:
    doc = json.loads(path.read_text("utf-8"))
    doc["entries"].append({"kind": "note", "id": f"n-{len(doc['entries'])}", "text": text})
    return json.dumps(doc, indent=2)


async def test_the_inspector_shows_a_pad_it_fails_on_and_recovers(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, HEALTHY)
    async with inspector(pad) as h:
        assert h.app.inspection.status == "live"
        mended = with_note(pad, "mended")
        write_atomic(pad, with_note(pad, MARK))
        await h.until(lambda: FAILED in h.status, "the failure on screen")
        assert "RuntimeError: unforeseen failure" in h.status
        assert "\x1b" not in h.status and "second line" in h.status  # cleaned, one line
        assert "showing the last good version" in h.status
        assert h.app.is_running
        write_atomic(pad, mended)
        await h.until(lambda: FAILED not in h.status, "the mended pad")
        await h.until(lambda: h.app.inspection.status == "live", "live again")
        assert any("mended" in e.text for e in h.app.inspection.current.pad_file.pad.entries)


async def test_the_inspector_opened_on_a_pad_it_fails_on_waits_for_it(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, HEALTHY)
    good = pad.read_text("utf-8")
    write_atomic(pad, with_note(pad, MARK))
    async with inspector(pad) as h:
        assert FAILED in h.status and not h.app.inspection.versions
        write_atomic(pad, good)
        await h.until(lambda: h.app.inspection.versions, "the pad, once it reads")
        assert FAILED not in h.status


async def test_a_fleet_with_a_pad_it_fails_on_shows_the_others(tmp_path: Path) -> None:
    retry = copy_sample(tmp_path, RETRY)
    folder = retry.parent
    copy_sample(tmp_path, NOTES)
    bad = folder / "agent-9.json"
    bad.write_text(with_note(SAMPLES / HEALTHY, MARK), encoding="utf-8")
    app = FleetApp(str(folder), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.fleet_ready.wait(), WAIT)
        await pilot.pause()
        f = Fleet(app, pilot, folder)
        assert f.names() == ["agent-9.json", NOTES, RETRY]
        assert f.row(RETRY)["state"] == "● live" and f.row(NOTES)["state"] == "● live"
        state = f.row("agent-9.json")["state"]
        assert state.startswith("✖") and FAILED in state and "\x1b" not in state
        # the fleet goes on: another pad's change is seen
        write_atomic(retry, with_note(retry, "a new note"))
        await f.until(lambda: f.row(RETRY)["tokens"] != "4086/4000", "the change to another pad")
        # a pad that had versions and then fails is that pad's error, shown on its row
        write_atomic(retry, with_note(SAMPLES / RETRY, MARK))
        await f.until(lambda: FAILED in f.row(RETRY)["state"], "the failure on its row")
        assert f.row(NOTES)["state"] == "● live"
        # mended, each pad reads again
        write_atomic(bad, (SAMPLES / HEALTHY).read_text("utf-8"))
        write_atomic(retry, (SAMPLES / RETRY).read_text("utf-8"))
        await f.until(lambda: f.row("agent-9.json")["state"] == "● live", "agent-9 mended")
        await f.until(lambda: f.row(RETRY)["state"] == "● live", "the retry pad mended")
        assert app.is_running
