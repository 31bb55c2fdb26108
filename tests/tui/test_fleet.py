"""The fleet view (``padtui DIR``), driven with Pilot: pads appear, change, raise alarms, and
open in the inspector (and ``escape`` comes back), while the folder is watched live."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from textual.notifications import Notification, Notify
from textual.pilot import Pilot
from textual.widgets import Static

from padtui.cli import main, screens
from padtui.core import formats
from padtui.tui.fleet import COLUMNS, FleetApp, FleetScreen, FleetTable, is_pad_name
from tests.tui.conftest import (
    SAMPLES,
    SIZE,
    WAIT,
    copy_sample,
    fixed_clock,
    plain,
    write_atomic,
    write_in_place,
)

RETRY = "retry-5xx-under-pressure.json"  # sealed c-billing, nf-bulk and a loss record
HEALTHY = "healthy.json"
NOTES = "compactable-notes.jsonl"
HEADS = [key for key, _label, _width in COLUMNS]


@dataclass
class Fleet:
    app: FleetApp
    pilot: Pilot[int]
    folder: Path
    notes: list[Notification] = field(default_factory=list)

    @property
    def table(self) -> FleetTable:
        return self.app.fleet_screen.table

    def names(self) -> list[str]:
        """The pads in the table, top to bottom."""
        return list(self.table.names)

    def row(self, name: str) -> dict[str, str]:
        return dict(zip(HEADS, self.table.row(name), strict=True))

    def has_row(self, name: str) -> bool:
        return name in self.table.cells

    def screen_text(self) -> str:
        """Every cell of the active screen as rendered (Textual's compositor)."""
        return "\n".join(strip.text for strip in self.app.screen._compositor.render_strips())

    async def until(self, condition: Callable[[], object], what: str) -> None:
        """Let the app run until ``condition()`` holds; fail after WAIT seconds."""
        deadline = time.monotonic() + WAIT
        while not condition():
            if time.monotonic() > deadline:
                pytest.fail(f"timed out after {WAIT:g} s waiting for {what}")
            await self.pilot.pause(0.01)

    async def select(self, name: str) -> None:
        """Move the table's cursor onto the pad's row (with the keys a person would press)."""
        await self.pilot.press("ctrl+home")
        for _ in range(self.table.row_count):
            if self.app.highlighted == name:
                return
            await self.pilot.press("down")
        assert self.app.highlighted == name


@asynccontextmanager
async def fleet(folder: Path, **options: Any) -> AsyncIterator[Fleet]:
    """The fleet view on ``folder`` under ``run_test``, its first look at the folder shown."""
    app = FleetApp(str(folder), clock=fixed_clock, **options)
    notes: list[Notification] = []

    def hook(message: object) -> None:
        if isinstance(message, Notify):
            notes.append(message.notification)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await asyncio.wait_for(app.fleet_ready.wait(), WAIT)
        await pilot.pause()
        yield Fleet(app, pilot, folder, notes)


def doc_of(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return doc


# --- pads appear -------------------------------------------------------------------------------


async def test_every_pad_of_the_folder_gets_a_row_and_new_ones_appear(tmp_path: Path) -> None:
    retry = copy_sample(tmp_path, RETRY)
    folder = retry.parent
    copy_sample(tmp_path, NOTES)
    (folder / "README.txt").write_text("not a pad", encoding="utf-8")
    (folder / ".draft.json").write_text("[]", encoding="utf-8")  # hidden: passed over
    async with fleet(folder) as f:
        assert f.names() == [NOTES, RETRY]
        row = f.row(RETRY)
        assert row["tokens"] == "4086/4000"  # over its budget
        assert row["worst"].strip() == "initial"
        assert row["alarms"] == "0"
        assert row["state"] == "● live"
        assert "█" in row["gauge"] and len(row["gauge"]) == 12
        assert "2 pads" in plain(f.app.fleet_screen.query_one("#fleet-top", Static).content)
        screen = f.screen_text()  # what a person sees: the header and a line per pad
        assert "tokens/budget" in screen and "worst verdict" in screen
        line = next(x for x in screen.splitlines() if RETRY in x)
        assert "4086/4000" in line and "initial" in line and "● live" in line
        # a pad file that appears in the folder shows up as a row, in name order
        write_atomic(folder / "agent-7.json", (SAMPLES / HEALTHY).read_bytes())
        await f.until(lambda: f.has_row("agent-7.json"), "the new pad's row")
        assert f.names() == ["agent-7.json", NOTES, RETRY]
        assert f.row("agent-7.json")["tokens"] == "315/4000"
        # a bad pad is a row too, saying what is wrong with it
        (folder / "broken.json").write_text('{"entries": [', encoding="utf-8")
        await f.until(lambda: f.has_row("broken.json"), "the broken pad's row")
        assert f.row("broken.json")["state"].startswith("✖ ")
        assert "invalid JSON" in f.row("broken.json")["state"]


async def test_a_large_folder_shows_its_rows_as_they_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a folder of many pads takes seconds: the rows come in a few at a time and the
    top bar counts the pads read, until all of them are."""
    monkeypatch.setattr("padtui.tui.fleet.FIRST_LOOK_CHUNK", 2)
    for n in range(5):
        write_atomic(tmp_path / f"agent-{n}.json", (SAMPLES / HEALTHY).read_bytes())
    seen: list[tuple[str, int]] = []  # (the top bar, rows on screen) at each redraw
    draw = FleetApp._draw_fleet_bars

    def recording(app: FleetApp) -> None:
        draw(app)
        top = plain(app.fleet_screen.query_one("#fleet-top", Static).content)
        seen.append((top, app.fleet_screen.table.row_count))

    monkeypatch.setattr(FleetApp, "_draw_fleet_bars", recording)
    async with fleet(tmp_path) as f:
        assert f.names() == [f"agent-{n}.json" for n in range(5)]
        assert "reading" not in plain(f.app.fleet_screen.query_one("#fleet-top", Static).content)
    counts = [
        (int(top.split("reading the folder: ")[1].split(" of ")[0]), rows)
        for top, rows in seen
        if "reading the folder" in top
    ]
    assert sorted(set(n for n, _ in counts)) == [0, 2, 4]  # counted as they are read
    assert all(rows >= n for n, rows in counts)  # and the rows read so far are on screen
    assert any(0 < rows < 5 for _, rows in counts)  # before the last of them is read


# --- pads change ------------------------------------------------------------------------------


async def test_a_rewrite_updates_its_row(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, HEALTHY)
    async with fleet(pad.parent) as f:
        assert f.row(HEALTHY)["tokens"] == "315/4000"
        doc = doc_of(pad)
        doc["entries"].append({"kind": "note", "id": "n-new", "text": "A new note. " * 20})
        write_in_place(pad, json.dumps(doc, indent=2))
        await f.until(lambda: f.row(HEALTHY)["tokens"] != "315/4000", "the new token count")
        insp = f.app.pads[HEALTHY].inspection
        assert f.row(HEALTHY)["tokens"] == f"{insp.current.tokens}/4000"
        assert insp.current.tokens > 315
        assert f.row(HEALTHY)["worst"].strip() == "growth"
        assert f.row(HEALTHY)["alarms"] == "0"


async def test_a_corrupting_rewrite_raises_an_alarm_on_its_row(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, RETRY)
    copy_sample(tmp_path, HEALTHY)
    async with fleet(pad.parent) as f:
        doc = doc_of(pad)
        doc["entries"] = [e for e in doc["entries"] if e.get("id") != "c-billing"]
        write_atomic(pad, json.dumps(doc, indent=2))  # a sealed constraint removed
        await f.until(lambda: f.row(RETRY)["alarms"] == "1", "the alarm")
        assert f.row(RETRY)["worst"].strip() == "corruption"
        assert f.row(HEALTHY)["alarms"] == "0"  # the others are untouched
        top = plain(f.app.fleet_screen.query_one("#fleet-top", Static).content)
        assert "1 alarm" in top
        # the worst verdict stays, even once the pad grows honestly again
        doc["entries"].append({"kind": "note", "id": "n-x", "text": "Batch 9 resent."})
        write_atomic(pad, json.dumps(doc, indent=2))
        await f.until(lambda: f.app.pads[RETRY].inspection.current.verdict == "growth", "growth")
        await f.pilot.pause()
        assert f.row(RETRY)["worst"].strip() == "corruption"
        assert f.row(RETRY)["alarms"] == "1"


async def test_a_deleted_pad_stays_marked_and_comes_back(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, HEALTHY)
    async with fleet(pad.parent) as f:
        data = pad.read_bytes()
        pad.unlink()
        await f.until(lambda: f.row(HEALTHY)["state"] == "✕ deleted", "the deleted mark")
        pad.write_bytes(data)
        await f.until(lambda: f.row(HEALTHY)["state"] == "● live", "the pad back")


# --- opening a pad ----------------------------------------------------------------------------


async def test_enter_opens_the_pad_in_the_inspector_and_escape_returns(tmp_path: Path) -> None:
    retry = copy_sample(tmp_path, RETRY)
    copy_sample(tmp_path, HEALTHY)
    async with fleet(retry.parent) as f:
        app = f.app
        assert isinstance(app.screen, FleetScreen)
        await f.select(RETRY)
        await f.pilot.press("t")  # the inspector's keys do nothing on the fleet
        assert isinstance(app.screen, FleetScreen)
        assert all(p.inspection.trial is None for p in app.pads.values())
        await f.pilot.press("enter")
        await f.until(lambda: not isinstance(app.screen, FleetScreen), "the inspector")
        # the inspector, on that pad: its path, its regions, its versions
        assert app.inspection is app.pads[RETRY].inspection
        topbar = plain(app.screen.query_one("#topbar", Static).content)
        assert RETRY in topbar and "● live" in topbar
        sealed = app.screen.query_one("#sealed")
        assert [r.entry.label for r in sealed.rows][:2] == ["c-billing", "nf-bulk"]
        # its keys work there: a trial, and escape leaves the trial first ...
        await f.pilot.press("t")
        assert app.inspection.trial is not None
        await f.pilot.press("escape")
        assert app.inspection.trial is None and not isinstance(app.screen, FleetScreen)
        # ... a write to the open pad is taken in by the inspector, live
        before = app.inspection.current.number
        doc = doc_of(retry)
        doc["entries"] = [e for e in doc["entries"] if e.get("id") != "c-billing"]
        write_atomic(retry, json.dumps(doc, indent=2))
        await f.until(lambda: app.inspection.current.number == before + 1, "the new version")
        assert len(app.inspection.alarms) == 1
        # ... and escape goes back to the fleet, whose row has followed
        await f.pilot.press("escape")
        await f.until(lambda: isinstance(app.screen, FleetScreen), "the fleet")
        assert f.row(RETRY)["alarms"] == "1"
        assert f.row(RETRY)["worst"].strip() == "corruption"
        # another pad opens the same way
        await f.select(HEALTHY)
        await f.pilot.press("enter")
        await f.until(lambda: app.inspection is app.pads[HEALTHY].inspection, "the other pad")
        assert HEALTHY in plain(app.screen.query_one("#topbar", Static).content)
        await f.pilot.press("escape")
        await f.until(lambda: isinstance(app.screen, FleetScreen), "the fleet again")


async def test_a_pad_closed_again_is_followed_by_the_fleet(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, HEALTHY)
    async with fleet(pad.parent) as f:
        await f.select(HEALTHY)
        await f.pilot.press("enter")
        await f.until(lambda: not isinstance(f.app.screen, FleetScreen), "the inspector")
        await f.pilot.press("escape")
        await f.until(lambda: isinstance(f.app.screen, FleetScreen), "the fleet")
        doc = doc_of(pad)
        doc["entries"].append({"kind": "note", "id": "n-late", "text": "Written after."})
        write_atomic(pad, json.dumps(doc, indent=2))
        insp = f.app.pads[HEALTHY].inspection
        await f.until(lambda: insp.current.number == 2, "the version after closing")
        await f.until(lambda: f.row(HEALTHY)["worst"].strip() == "growth", "the row")


# --- a busy folder ----------------------------------------------------------------------------


async def test_bursts_of_writes_across_many_pads_are_merged(tmp_path: Path) -> None:
    folder = tmp_path / "pads"
    folder.mkdir()
    base = doc_of(SAMPLES / HEALTHY)
    for i in range(30):
        (folder / f"agent-{i:02}.json").write_text(json.dumps(base), encoding="utf-8")
    async with fleet(folder) as f:
        assert len(f.names()) == 30
        batches = f.app.batches
        for round_ in range(3):
            for i in range(30):
                doc = json.loads(json.dumps(base))
                doc["entries"].append({"kind": "note", "text": f"round {round_} of {i}"})
                write_atomic(folder / f"agent-{i:02}.json", json.dumps(doc))
        pads = f.app.pads.values()
        await f.until(
            lambda: all(
                p.inspection.current.pad_file.pad.entries[-1].text.startswith("round 2")
                for p in pads
            ),
            "every pad's last version",
        )
        assert f.app.batches - batches < 90  # merged: far fewer batches than writes
        # the screen answered keys all along
        await f.pilot.press("ctrl+home", "down")
        assert f.app.highlighted == "agent-01.json"


def test_padtui_dir_opens_the_fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``padtui DIR`` runs the fleet view (here: its app is built and run, no terminal)."""
    ran: list[FleetApp] = []

    def fake_run(self: FleetApp, *args: Any, **kwargs: Any) -> None:
        ran.append(self)

    monkeypatch.setattr(FleetApp, "run", fake_run)
    monkeypatch.setattr(screens, "_terminal", lambda: True)
    folder = copy_sample(tmp_path, HEALTHY).parent
    assert main([str(folder), "--budget", "500", "--no-journal"]) == 0
    assert len(ran) == 1 and ran[0].folder == str(folder)
    assert ran[0].inspection_for("pad.json").budget_override == 500 and not ran[0].use_journal
    assert main([str(folder), "--journal", str(tmp_path / "j.jsonl")]) == 2  # one per pad


def test_the_fleet_shows_every_name_padtui_reads_and_no_hidden_save() -> None:
    for ending in formats.suffixes():  # the one table of names: the fleet agrees
        assert is_pad_name("agent" + ending) and is_pad_name("AGENT" + ending.upper())
    for name in (".cursorrules", ".clinerules", ".windsurfrules"):  # memory files, not saves
        assert is_pad_name(name)
    for name in (".pad.json", ".notes.md", "pad.json.tmp", "notes.txt", ".pad.json.padtui-x.tmp"):
        assert not is_pad_name(name)


async def test_the_cursor_starts_on_the_top_row_and_stays_on_the_pad_a_person_chose(
    tmp_path: Path,
) -> None:
    """However the first look orders its reads, the cursor is on the top row when the table
    is shown (enter opens what is highlighted); once a person moves it, it stays on that
    pad as rows are added above it."""
    for i in range(12):
        write_atomic(tmp_path / f"agent-{i:02}.json", json.dumps({"entries": []}))
    async with fleet(tmp_path) as f:
        assert f.names()[0] == "agent-00.json"
        assert f.app.highlighted == "agent-00.json"
        await f.pilot.press("down", "down")
        assert f.app.highlighted == "agent-02.json"
        write_atomic(tmp_path / "a-first.json", json.dumps({"entries": []}))
        await f.until(lambda: f.has_row("a-first.json"), "the new pad's row")
        assert f.names()[0] == "a-first.json"
        assert f.app.highlighted == "agent-02.json"


async def test_the_top_bar_counts_only_the_alarms_not_acknowledged(tmp_path: Path) -> None:
    """Two pads corrupted, one alarm acknowledged: the top bar says one alarm, one
    corruption (not "1 alarm (2 corrupted)"), though both rows keep their worst verdict."""
    first = copy_sample(tmp_path, RETRY)
    second = copy_sample(tmp_path, RETRY, as_name="second.json")
    async with fleet(first.parent) as f:
        for pad in (first, second):
            doc = doc_of(pad)
            doc["entries"] = [e for e in doc["entries"] if e.get("id") != "c-billing"]
            write_atomic(pad, json.dumps(doc, indent=2))

        def top() -> str:
            return plain(f.app.fleet_screen.query_one("#fleet-top", Static).content)

        await f.until(lambda: "2 alarms (2 corruptions)" in top(), "both alarms")
        await f.select("second.json")
        await f.pilot.press("enter")
        await f.until(lambda: not f.app.showing_fleet, "the pad open")
        await f.pilot.press("a")
        await f.until(lambda: "acknowledge" in f.screen_text(), "the alarms")
        await f.pilot.press("k")
        await f.until(lambda: not f.app.pads["second.json"].inspection.outstanding, "acked")
        await f.pilot.press("escape")
        await f.until(lambda: f.app.showing_fleet, "the fleet again")
        await f.until(lambda: "1 alarm (1 corruption)" in top(), "one alarm left")
        assert f.row("second.json")["worst"].strip() == "corruption"
        assert f.row("second.json")["alarms"] == "0"
