"""No control character of a pad, a file name or a journal reaches the terminal from any
screen: the inspector and its dialogs, the concept screen, notices, replay, the fleet. What
is checked is what the terminal is sent: every screen composed, as Textual's driver writes
it, less the escape sequences Textual itself writes for colour and cursor."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.filter import LineFilter
from textual.widgets import Static

from padtui.cli import main
from padtui.core.storage.journal import Journal
from padtui.core.text import clean
from padtui.tui.concept import ConceptScreen
from padtui.tui.fleet import FleetApp
from padtui.tui.replay import ReplayApp
from padtui.tui.screens import (
    AlarmsScreen,
    CommitScreen,
    HelpScreen,
    HistoryScreen,
    RefusalScreen,
    RulesScreen,
)
from padtui.tui.terminal import CLEANED
from tests.hostile import HOSTILE, IN_NAME, forbidden, hostile_pad
from tests.tui.conftest import SIZE, WAIT, Harness, fixed_clock, inspector

# what Textual writes around the text: SGR colours and styles, cursor moves and modes
TEXTUALS_OWN = re.compile(r"\x1b\[[0-9;:]*[mJK]|\x1b\[\?[0-9;]*[hl]")
MOVE = re.compile(r"\x1b\[\d+;\d+H")  # (a line of the screen starts with one)


def sent(app: App[int]) -> str:
    """What the terminal would be sent for the whole screen (modal dialogs over the screens
    under them), less Textual's own escape sequences."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    assert update is not None
    return MOVE.sub("\n", TEXTUALS_OWN.sub("", update.render_segments(app.console)))


def assert_clean(app: App[int], where: str) -> str:
    text = sent(app)
    assert forbidden(text) == [], f"{where}: {forbidden(text)}"
    return text


async def opened(h: Harness, key: str, screen: type) -> None:
    await h.pilot.press(key)
    await h.until(lambda: isinstance(h.app.screen, screen), f"{key} opens {screen.__name__}")
    await h.pilot.pause()


async def test_the_filter_is_what_keeps_controls_off_the_terminal() -> None:
    """Textual itself sends ESC, C1 and bidi controls in a widget's text to the terminal:
    the inspector's line filter is what removes them, on every screen."""

    class Bare(App[int]):
        def compose(self) -> ComposeResult:
            yield Static(Text("a" + HOSTILE + "b"))

    class Filtered(Bare):
        def get_line_filters(self) -> Sequence[LineFilter]:
            return [*super().get_line_filters(), CLEANED]

    for app, dirty in ((Bare(), True), (Filtered(), False)):
        async with app.run_test(size=(200, 5)) as pilot:
            await pilot.pause()
            text = sent(app)
            assert bool(forbidden(text)) is dirty
            if not dirty:  # (the text is there, its controls are not)
                assert "a]0;pwned]52;c;" in text and "evil x" in text


async def test_every_inspector_screen_sends_no_control(tmp_path: Path) -> None:
    pad = hostile_pad(tmp_path / "pads")
    async with inspector(pad, watch=False, toasts=True) as h:
        screen = assert_clean(h.app, "the inspector")
        assert "]0;pwned" in screen  # hostile text is shown, without its controls
        await h.pilot.press("t")  # the trial: its drops, the way out on the status line
        await h.pilot.pause()
        assert "refused PROTECTED_KIND_WOULD_DROP" in assert_clean(h.app, "the trial")
        await opened(h, "u", RulesScreen)
        assert_clean(h.app, "the rules at risk")
        await h.pilot.press("escape")
        await opened(h, "c", RefusalScreen)  # the way out, the externalize button
        assert "Way out:" in assert_clean(h.app, "the refusal")
        await opened(h, "w", ConceptScreen)  # the unsealed protected entries, by label
        assert "unsealed protected entries" in assert_clean(h.app, "the concept, from w")
        await h.pilot.press("escape", "escape", "escape")
        await opened(h, "i", ConceptScreen)
        assert_clean(h.app, "the concept, from i")
        await h.pilot.press("escape")
        await opened(h, "h", HistoryScreen)
        assert_clean(h.app, "the history")
        await h.pilot.press("escape")
        await opened(h, "a", AlarmsScreen)
        assert_clean(h.app, "the alarms")
        await h.pilot.press("escape")
        await opened(h, "question_mark", HelpScreen)
        await h.pilot.press("escape")
        # notices that name entries: x on a note, on a sealed entry
        rewritable = h.pane("rewritable")
        for _ in range(rewritable.option_count):
            if clean(rewritable.selected_row.entry.kind).startswith("note"):
                break
            await h.pilot.press("down")
        await h.pilot.press("x")
        await h.pilot.press("tab", "x")
        await h.until(lambda: len(h.notes) >= 2, "the notices")
        await h.pilot.pause()
        assert any("already sealed" in n.message for n in h.notes)
        assert " is a " in assert_clean(h.app, "the notices")  # (the toasts, on screen)


async def test_the_commit_dialog_names_a_hostile_path_without_controls(tmp_path: Path) -> None:
    entries = [
        {"kind": "constraint", "id": "c" + HOSTILE, "sealed": True, "text": "Never X."},
        *({"kind": "note", "id": f"n{i}" + HOSTILE, "text": "note " * 40} for i in range(4)),
    ]
    pad = tmp_path / "pads" / ("pad" + IN_NAME + ".json")
    pad.parent.mkdir()
    pad.write_text(json.dumps({"budget_tokens": 120, "entries": entries}), encoding="utf-8")
    async with inspector(pad, watch=False) as h:
        await h.pilot.press("t")
        await opened(h, "c", CommitScreen)
        text = assert_clean(h.app, "the commit dialog")
        assert "Commit this compaction to" in text and "pad]0;pwned" in text


def replay_journal(tmp_path: Path) -> Path:
    """A journal of a hostile pad and a corrupting rewrite of it, its ``origin`` then
    rewritten as hostile text (an ``at`` that is not a time makes its line damage)."""
    pad = hostile_pad(tmp_path / "pads")
    journal = tmp_path / ("journal" + IN_NAME + ".jsonl")
    j = ["--journal", str(journal)]
    assert main(["history", str(pad), *j]) == 0
    doc = json.loads(pad.read_text(encoding="utf-8"))
    del doc["entries"][0]  # the sealed hostile constraint: corruption
    doc["entries"][2]["text"] = "rewritten " + HOSTILE
    pad.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["history", str(pad), *j]) == 1
    records = [json.loads(line) for line in journal.read_bytes().split(b"\n") if line]
    for rec in records:
        if rec.get("t") == "v":
            rec["origin"] = "seen" + HOSTILE
    journal.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    return journal


async def test_replay_of_a_hostile_journal_sends_no_control(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = Journal(str(replay_journal(tmp_path)))
    capsys.readouterr()
    app = ReplayApp(journal)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), WAIT)
        await pilot.pause()
        assert len(app.recorded) == 2
        assert "seen]0;pwned" in assert_clean(app, "the replay's status line")
        for key, screen in (("h", HistoryScreen), ("a", AlarmsScreen)):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, screen)
            assert "]0;pwned" in assert_clean(app, f"replay, {screen.__name__}")
            await pilot.press("escape")
        await pilot.press("comma")
        await pilot.pause()
        assert_clean(app, "the replay, a version back")


async def test_a_journal_of_another_pad_is_a_notice_without_controls(tmp_path: Path) -> None:
    pad = hostile_pad(tmp_path / "pads")
    journal = tmp_path / "j.jsonl"
    header = {"t": "padtui-journal", "v": 1, "pad": "/elsewhere/" + HOSTILE}
    journal.write_text(json.dumps(header) + "\n", encoding="utf-8")
    async with inspector(pad, watch=False, toasts=True, journal=str(journal)) as h:
        await h.until(lambda: h.noted("belongs to another pad"), "the notice")
        await h.pilot.pause()
        shown = assert_clean(h.app, "the journal's notice")
        # the notice's lines break where the test's folder name happens to end (a longer
        # one under other users or parallel workers): its first words, then its toast
        assert "journal not read:" in shown
        toasts = [str(t.render()) for t in h.app.screen.query("Toast")]
        assert [t for t in toasts if "belongs to another pad" in t], toasts


async def test_the_fleet_sends_no_control(tmp_path: Path) -> None:
    folder = tmp_path / "fleet"
    # (names a file system decodes: the folder watch fails on a name that is not UTF-8, a
    # fault of its own, apart from what reaches the terminal)
    name = IN_NAME.replace("\udc9b", "")
    hostile_pad(folder, "pad" + name + ".json")
    (folder / ("broken" + name + ".json")).write_text('{"entries": [', encoding="utf-8")
    app = FleetApp(str(folder), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.fleet_ready.wait(), WAIT)
        await pilot.pause()
        text = assert_clean(app, "the fleet")
        assert "pad]0;pwned" in text and "broken]0;pwned" in text
        await pilot.press("ctrl+home", "enter")  # the pad opened in the inspector
        await pilot.pause()
        assert_clean(app, "a pad of the fleet")


async def test_x_seals_the_entry_selected_when_its_id_repeats(tmp_path: Path) -> None:
    entries = [
        {"kind": "constraint", "id": "dup", "sealed": True, "text": "Never push on Fridays."},
        {"kind": "note", "id": "n", "text": "A note."},
        {"kind": "constraint", "id": "dup", "text": "Never force-push to main."},
    ]
    pad = tmp_path / "pads" / "pad.json"
    pad.parent.mkdir()
    pad.write_text(json.dumps({"entries": entries}), encoding="utf-8")
    async with inspector(pad, watch=False) as h:
        rewritable = h.pane("rewritable")
        for _ in range(rewritable.option_count):
            if rewritable.selected_row.entry.index == 2:
                break
            await h.pilot.press("down")
        await h.pilot.press("x")
        await h.settle()
        await h.until(lambda: h.app.inspection.current.number == 2, "the externalize")
    doc = json.loads(pad.read_text(encoding="utf-8"))
    assert [e.get("sealed", False) for e in doc["entries"]] == [True, False, True]


async def test_the_refusal_externalizes_the_entry_whose_id_repeats(tmp_path: Path) -> None:
    entries = [
        {"kind": "constraint", "id": "dup", "sealed": True, "text": "Never push on Fridays."},
        {"kind": "constraint", "id": "dup", "text": "Never force-push to main."},
        {"kind": "note", "id": "n", "text": "A note. " * 30},
    ]
    pad = tmp_path / "pads" / "pad.json"
    pad.parent.mkdir()
    pad.write_text(json.dumps({"budget_tokens": 8, "entries": entries}), encoding="utf-8")
    async with inspector(pad, watch=False) as h:
        await h.pilot.press("t")
        await opened(h, "c", RefusalScreen)
        assert "x seals #1" in h.dialog_text()  # the one of the two ids it means
        await h.pilot.press("x")
        await h.settle()
        await h.until(lambda: h.app.inspection.current.number == 2, "the externalize")
    doc = json.loads(pad.read_text(encoding="utf-8"))
    assert [e.get("sealed", False) for e in doc["entries"]] == [True, True, False]
