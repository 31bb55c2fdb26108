"""The inspector and the fleet open with the journal: a corruption written while padtui was
closed is flagged in the first frame, versions are numbered as the journal numbers them, and
alarms can be acknowledged (the acknowledgement is journaled, and ``history`` knows it)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, Static

from padtui.cli import main
from padtui.core.storage import store
from padtui.core.storage.journal import Journal
from padtui.tui.app import make_app
from padtui.tui.inspector import RECENT_VERSIONS
from padtui.tui.screens import AlarmsScreen, HistoryScreen
from padtui.tui.widgets import EntryPane
from tests.tui import conftest
from tests.tui.conftest import SAMPLES, copy_sample, inspector, write_atomic
from tests.tui.test_fleet import fleet

BEFORE = "transitions/retry-5xx-before.json"
CONDENSED = SAMPLES / "transitions" / "retry-5xx-after-condense.json"


def history_code(pad: Path, *more: str) -> int:
    return main(["history", str(pad), "--json", *more])


def journal_of(pad: Path) -> store.Journal:
    journal = store.journal_of(str(pad), True)
    assert journal is not None
    return journal


def corrupted_while_closed(tmp_path: Path, journaled: bool) -> Path:
    """A pad journaled once (as padtui saw it), then corrupted while padtui was closed; with
    ``journaled``, something (``padtui history``, a hook) journaled the corruption too."""
    pad = copy_sample(tmp_path, BEFORE, "pad.json")
    store.read(str(pad), journal=True)
    write_atomic(pad, CONDENSED.read_bytes())
    if journaled:
        store.read(str(pad), journal=True)
    return pad


@pytest.mark.parametrize("journaled", [False, True], ids=["on-disk-only", "journaled"])
async def test_the_inspector_flags_a_corruption_written_while_it_was_closed(
    tmp_path: Path, journaled: bool
) -> None:
    pad = corrupted_while_closed(tmp_path, journaled)
    async with inspector(pad) as h:  # (the first reading settled; nothing written since)
        insp = h.app.inspection
        assert insp.current.number == 2 and insp.current.verdict == "corruption"
        assert [a.version.number for a in insp.outstanding] == [2]
        assert "⚠ 1 alarm" in h.topbar and "v2" in h.topbar
        assert h.noted("version 2: CONSTRAINT_WEAKENED")
        await h.pilot.press("h")  # the history lists the journal's versions, as it numbers them
        assert isinstance(h.app.screen, HistoryScreen)
        assert [v.number for v in h.app.screen.versions] == [1, 2]
    assert [v.n for v in journal_of(pad).versions()] == [1, 2]


@pytest.mark.parametrize("journaled", [False, True], ids=["on-disk-only", "journaled"])
async def test_the_fleet_flags_a_corruption_written_while_it_was_closed(
    tmp_path: Path, journaled: bool
) -> None:
    pad = corrupted_while_closed(tmp_path, journaled)
    async with fleet(pad.parent) as f:  # (its first look at the folder on screen)
        row = f.row("pad.json")
        assert row["alarms"] == "1" and row["worst"].strip() == "corruption"
        assert f.app.pads["pad.json"].inspection.current.number == 2
        # and it says so, as it does of an alarm it sees happen
        said = [n.message for n in f.notes if n.title == "CORRUPTION"]
        assert said == ["pad.json v2: CONSTRAINT_WEAKENED. Enter opens it."]


async def test_numbers_agree_between_inspector_history_and_restore(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, BEFORE, "pad.json")
    grown = [*json.loads(pad.read_text("utf-8")), {"kind": "note", "id": "n-new", "text": "A."}]
    async with inspector(pad) as h:
        write_atomic(pad, json.dumps(grown, indent=2))
        await h.until(lambda: h.app.inspection.current.verdict == "growth", "the growth")
        shown = h.app.inspection.current.number
        assert f"v{shown}" in h.topbar
        write_atomic(pad, CONDENSED.read_bytes())
        await h.until(lambda: h.noted("CORRUPTION"), "the corruption's notice")
        toast = h.noted("CORRUPTION")[0].message
        assert toast.startswith(f"version {shown + 1}:")
        seen = {v.number: v.snapshot.data for v in h.app.inspection.versions}
    journal = journal_of(pad)
    assert {v.n: journal.data(v.n) for v in journal.versions()} == seen
    assert history_code(pad) == 1  # the corruption is outstanding
    assert main(["history", str(pad), "--restore", str(shown)]) == 0
    assert pad.read_bytes() == seen[shown]
    assert history_code(pad) == 0  # the restore of the version before undid it
    async with inspector(pad) as h:  # a new session goes on with the journal's numbers
        insp = h.app.inspection
        assert insp.current.number == shown + 2 and insp.current.origin == "restore"
        assert insp.outstanding == [] and "⚠" not in h.topbar
        assert [v.number for v in insp.versions] == [1, shown, shown + 1, shown + 2]


async def test_k_acknowledges_the_alarms_in_the_journal(tmp_path: Path) -> None:
    pad = corrupted_while_closed(tmp_path, journaled=False)
    assert history_code(pad) == 1
    async with inspector(pad) as h:
        await h.pilot.press("a")
        assert isinstance(h.app.screen, AlarmsScreen)
        assert "k: acknowledge 1" in h.dialog_text()
        await h.pilot.press("k")
        await h.until(lambda: not h.app.inspection.outstanding, "the acknowledgement")
        assert not isinstance(h.app.screen, AlarmsScreen)
        assert "⚠" not in h.topbar
        assert journal_of(pad).acknowledged() == {2}
        assert len(h.app.inspection.alarms) == 1  # still listed, as acknowledged
        await h.pilot.press("a")
        assert "version 2" in h.dialog_text() and "acknowledged" in h.dialog_text()
    assert history_code(pad) == 0
    async with inspector(pad) as h:  # the next session knows it
        assert h.app.inspection.outstanding == [] and "⚠" not in h.topbar


async def test_a_corrupted_entry_stays_marked_until_the_alarm_is_acknowledged(
    tmp_path: Path,
) -> None:
    pad = corrupted_while_closed(tmp_path, journaled=False)
    async with inspector(pad) as h:
        assert "✖ CONSTRAINT_WEAKENED" in h.row("rewritable", "p-3")
        doc = json.loads(pad.read_text("utf-8"))
        doc.append({"kind": "note", "id": "n-9", "text": "Page 12 exported."})
        write_atomic(pad, json.dumps(doc, indent=2))  # an honest write after it
        await h.until(lambda: h.app.inspection.current.number == 3, "the next version")
        assert h.app.inspection.current.verdict == "growth"
        assert "✖ CONSTRAINT_WEAKENED" in h.row("rewritable", "p-3")  # still marked
        await h.pilot.press("a")
        await h.pilot.press("k")
        await h.until(lambda: not h.app.inspection.outstanding, "the acknowledgement")
        await h.until(lambda: "✖" not in h.row("rewritable", "p-3"), "the mark gone")


async def test_the_history_of_a_fleet_pad_past_the_versions_kept_opens(tmp_path: Path) -> None:
    """Regression: the history screen took version numbers for places in its list, and a pad
    followed by the fleet keeps only its newest versions (IndexError, the app gone)."""
    pad = copy_sample(tmp_path, BEFORE, "pad.json")
    async with fleet(pad.parent, keep_versions=3) as f:
        insp = f.app.pads["pad.json"].inspection
        doc = json.loads(pad.read_text("utf-8"))
        for n in range(5):
            doc.append({"kind": "note", "id": f"n-{n}", "text": f"Note {n}."})
            write_atomic(pad, json.dumps(doc, indent=2))
            await f.until(lambda n=n: insp.current.number == n + 2, f"version {n + 2}")
        assert insp.released > 0
        await f.select("pad.json")
        await f.pilot.press("enter", "h")
        await f.until(lambda: isinstance(f.app.screen, HistoryScreen), "the history")
        screen = f.app.screen
        assert [v.number for v in screen.versions] == [4, 5, 6]

        def detail() -> str:
            return str(screen.query_one("#detail", Static).content)

        assert "version 6" in detail() and "+ note n-4" in detail()
        screen.query_one("#versions", OptionList).highlighted = 1  # version 5, against 4
        await f.until(lambda: "version 5" in detail(), "version 5's detail")
        assert "+ note n-3" in detail() and "n-4" not in detail()
        assert f.app.is_running


async def test_o_in_the_history_reads_the_older_versions_from_the_journal(
    tmp_path: Path,
) -> None:
    """The inspector takes in the newest journaled versions on opening; the history says what
    it lists, and o reads the rest from the journal, each audited against the one before."""
    pad = copy_sample(tmp_path, BEFORE, "pad.json")
    doc = json.loads(pad.read_text("utf-8"))
    store.read(str(pad), journal=True)
    for n in range(RECENT_VERSIONS + 3):  # more versions than the inspector takes in
        doc.append({"kind": "note", "id": f"n-{n}", "text": f"Note {n}."})
        write_atomic(pad, json.dumps(doc, indent=2))
        store.read(str(pad), journal=True)
    last = RECENT_VERSIONS + 4
    async with inspector(pad) as h:
        await h.pilot.press("h")
        assert isinstance(h.app.screen, HistoryScreen)
        screen = h.app.screen
        first = last - RECENT_VERSIONS + 1
        assert [v.number for v in screen.versions] == list(range(first, last + 1))
        assert screen.versions[0].verdict == "initial"  # (nothing to audit it against yet)

        def said() -> str:
            return str(screen.query_one("#history-range", Static).content)

        assert f"v{first}–v{last}" in said() and f"v1–v{first - 1} are in the journal" in said()
        await h.pilot.press("o")
        await h.until(lambda: screen.versions[0].number == 1, "the older versions")
        assert [v.number for v in screen.versions] == list(range(1, last + 1))
        assert [v.verdict for v in screen.versions[1:]] == ["growth"] * (last - 1)
        assert "from the pad's first version" in said()
        assert screen.query_one("#versions", OptionList).option_count == last
        assert not screen.check_action("older", ())  # (nothing older: o is off the footer)


async def test_the_first_version_is_on_screen_before_the_journal_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pad = copy_sample(tmp_path, BEFORE, "pad.json")
    store.read(str(pad), journal=True)  # v1
    journal_of(pad).append(b"{not a pad", "json", "seen")  # v2: journaled, not parsed
    grown = [*json.loads(pad.read_text("utf-8")), {"kind": "note", "id": "n-new", "text": "A."}]
    write_atomic(pad, json.dumps(grown, indent=2))  # on disk, not journaled: v3 once it is
    appending, release = threading.Event(), threading.Event()
    append = Journal.append

    def slow_append(self: Journal, *args: Any, **kwargs: Any) -> int:
        appending.set()
        assert release.wait(conftest.WAIT)
        return append(self, *args, **kwargs)

    monkeypatch.setattr(Journal, "append", slow_append)
    app = make_app(str(pad), clock=conftest.fixed_clock)
    async with app.run_test(size=conftest.SIZE) as pilot:
        pane = app.screen.query_one("#rewritable", EntryPane)

        async def until(condition: Callable[[], object], what: str) -> None:
            deadline = time.monotonic() + conftest.WAIT
            while not condition():
                assert time.monotonic() < deadline, f"timed out waiting for {what}"
                await pilot.pause(0.005)

        await until(lambda: appending.is_set() and pane.option_count, "the pad on screen")
        await pilot.pause()
        drawn = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "n-new" in drawn  # (the frame: the screen is not held up by the append)
        assert not app.ready.is_set()  # (the append still waits)
        assert [v.n for v in journal_of(pad).versions()] == [1, 2]
        release.set()
        await until(app.ready.is_set, "the journal's append")
        await pilot.pause()
        # numbered as the journal numbers it (not the v2 that follows v1 on screen)
        assert [v.number for v in app.inspection.versions] == [1, 3]
        topbar = app.screen.query_one("#topbar", Static).content
        assert "v3" in str(topbar)
    assert [v.n for v in journal_of(pad).versions()] == [1, 2, 3]


async def test_a_new_version_is_on_screen_before_the_journal_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pad = copy_sample(tmp_path, BEFORE, "pad.json")
    append = Journal.append
    appending, release = threading.Event(), threading.Event()
    held = threading.Event()  # (from the second append on: the first version's goes through)

    def slow_append(self: Journal, *args: Any, **kwargs: Any) -> int:
        if held.is_set():
            appending.set()
            assert release.wait(conftest.WAIT)
        return append(self, *args, **kwargs)

    monkeypatch.setattr(Journal, "append", slow_append)
    grown = [*json.loads(pad.read_text("utf-8")), {"kind": "note", "id": "n-new", "text": "A."}]
    async with inspector(pad) as h:
        assert [v.n for v in journal_of(pad).versions()] == [1]
        journal_of(pad).append(b"{not a pad", "json", "seen")  # v2: journaled, not parsed
        held.set()
        write_atomic(pad, json.dumps(grown, indent=2))  # v3 once journaled
        await h.until(lambda: appending.is_set(), "the append")
        await h.until(lambda: "n-new" in h.screen_text(), "the new version on screen")
        assert h.app.inspection.current.verdict == "growth"
        assert [v.n for v in journal_of(pad).versions()] == [1, 2]  # (the append still waits)
        release.set()
        await h.until(lambda: h.app.inspection.current.number == 3, "the journal's number")
        await h.until(lambda: "v3" in h.topbar, "the number on screen")
        assert h.app.inspection.current.journal is not None
    assert [v.n for v in journal_of(pad).versions()] == [1, 2, 3]


async def test_a_restore_made_while_the_inspector_watches_is_no_alarm(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, BEFORE, "pad.json")
    async with inspector(pad) as h:
        first = h.app.inspection.current.number
        write_atomic(pad, CONDENSED.read_bytes())
        await h.until(lambda: h.noted("CORRUPTION"), "the corruption's notice")
        assert len(h.app.inspection.outstanding) == 1
        assert main(["history", str(pad), "--restore", str(first)]) == 0
        await h.until(lambda: h.app.inspection.current.origin == "restore", "the restore")
        await h.until(lambda: not h.app.inspection.outstanding, "the alarm undone")
        assert [a.version.number for a in h.app.inspection.alarms] == [first + 1]
        await h.until(lambda: "⚠" not in h.topbar, "the top bar without the alarm")
        await h.pilot.press("h")  # the restore's row: the user's own doing, not a verdict
        rows = h.app.screen.query_one("#versions", OptionList)
        await h.until(lambda: rows.option_count == 3, "the history's rows")
        top = str(rows.get_option_at_index(0).prompt)
        assert top.startswith(f"#{first + 2} ") and "restored" in top and "corruption" not in top
    journal = journal_of(pad)
    assert journal.version(first + 2).origin == "restore"


async def test_older_versions_leave_their_bytes_to_the_journal_and_show_as_they_were(
    tmp_path: Path,
) -> None:
    pad = copy_sample(tmp_path, BEFORE, "pad.json")
    written = [pad.read_bytes()]
    async with inspector(pad) as h:
        insp = h.app.inspection
        doc = json.loads(pad.read_text("utf-8"))
        for n in range(3):
            doc.append({"kind": "note", "id": f"n-{n}", "text": f"Note {n}."})
            written.append(json.dumps(doc, indent=2).encode("utf-8"))
            write_atomic(pad, written[-1])
            await h.until(lambda n=n: insp.current.number == n + 2, f"version {n + 2}")
        assert [v.holds_bytes for v in insp.versions] == [False, False, False, True]
        assert [v.snapshot.data for v in insp.versions] == written  # (from the journal)
        await h.pilot.press("h")
        screen = h.app.screen
        assert isinstance(screen, HistoryScreen)

        def detail() -> str:
            return str(screen.query_one("#detail", Static).content)

        screen.query_one("#versions", OptionList).highlighted = 2  # version 2, against 1
        await h.until(lambda: "version 2" in detail(), "version 2's detail")
        assert "+ note n-0" in detail() and "n-1" not in detail()


async def test_the_file_copied_back_by_hand_while_the_inspector_watches_ends_the_alarm(
    tmp_path: Path,
) -> None:
    pad = copy_sample(tmp_path, BEFORE, "pad.json")
    async with inspector(pad) as h:
        write_atomic(pad, CONDENSED.read_bytes())
        await h.until(lambda: h.noted("CORRUPTION"), "the corruption's notice")
        assert len(h.app.inspection.outstanding) == 1
        write_atomic(pad, (SAMPLES / BEFORE).read_bytes())  # the original, copied back by hand
        await h.until(lambda: h.app.inspection.current.origin == "agent", "the copy")
        await h.until(lambda: not h.app.inspection.outstanding, "the alarm undone")
        await h.until(lambda: "⚠" not in h.topbar, "the top bar without the alarm")
