"""The inspector, its dialogs and the fleet in small terminals: what must stay in view."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from rich.text import Text

from padtui.tui.fleet import FleetApp
from padtui.tui.screens import FLEET_HELP, HelpScreen
from padtui.tui.widgets import cut_middle
from tests.tui.conftest import copy_sample, fixed_clock, inspector
from tests.tui.test_fleet import HEALTHY, NOTES, RETRY, fleet

SMALL = (80, 24)
SMALLEST = (60, 20)


async def test_the_commit_confirmation_shows_its_keys_at_80x24(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, NOTES)
    async with inspector(pad, size=SMALL, watch=False, use_journal=False) as h:
        await h.pilot.press("t", "c")
        await h.until(lambda: "Commit (y)" in h.screen_text(), "the commit dialog")
        screen = h.screen_text()
        assert "Commit (y)" in screen and "Cancel (n)" in screen
        assert "Commit this compaction to" in screen


async def test_the_refusal_shows_its_way_out_and_buttons_at_80x24_and_60x20(
    tmp_path: Path,
) -> None:
    pad = copy_sample(tmp_path, RETRY)
    for size in (SMALL, SMALLEST):
        async with inspector(pad, size=size, watch=False, use_journal=False) as h:
            await h.pilot.press("c")
            await h.until(lambda: "Refused" in h.screen_text(), "the refusal")
            screen = h.screen_text()
            assert "Way out: " in screen, size
            assert "Seal c-retry, n-08 (x)" in screen and "Close (esc)" in screen, size
            assert "w: why this matters" in screen, size


async def test_the_top_bar_keeps_the_pads_name_and_the_footer_help_and_quit(
    tmp_path: Path,
) -> None:
    pad = copy_sample(tmp_path, RETRY)
    for size in (SMALL, SMALLEST):
        async with inspector(pad, size=size, watch=False, use_journal=False) as h:
            lines = h.screen_text().splitlines()
            assert RETRY in lines[0], size
            assert str(pad.parent) not in lines[0]  # (the folder gave way)
            assert "? Help" in lines[-1] and "q Quit" in lines[-1], size


async def test_a_long_pad_name_is_cut_in_the_middle(tmp_path: Path) -> None:
    name = "a-pad-whose-name-goes-on-and-on-" + "x" * 60 + "-final.json"
    pad = copy_sample(tmp_path, HEALTHY, as_name=name)
    async with inspector(pad, size=SMALLEST, watch=False, use_journal=False) as h:
        top = h.screen_text().splitlines()[0]
        assert "a-pad-whose" in top and "-final.json" in top and "…" in top
    assert cut_middle(Text("abcdefghij"), 5).plain == "ab…ij"
    assert cut_middle(Text("abc"), 5).plain == "abc"


async def test_the_fleet_at_80_columns_shows_verdict_alarms_and_state(tmp_path: Path) -> None:
    for sample in (RETRY, NOTES, HEALTHY):
        copy_sample(tmp_path, sample)
    long = copy_sample(tmp_path, HEALTHY, as_name="a-rather-long-pad-name-of-an-agent.json")
    app = FleetApp(str(long.parent), clock=fixed_clock, use_journal=False)
    async with app.run_test(size=SMALL) as pilot:
        await app.fleet_ready.wait()
        await pilot.pause()
        lines = [line for line in _screen(app).splitlines() if "● live" in line]
        assert len(lines) == 4
        head = _screen(app).splitlines()[1]
        assert "worst verdict" in head and "alarms" in head and "state" in head
        for line in lines:
            assert " initial " in line and " 0 " in line and line.rstrip().endswith("● live")


async def test_the_fleets_last_change_is_the_files_time(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, HEALTHY)
    then = datetime(2026, 11, 14, 1, 2, 3, tzinfo=UTC)  # the same day as the fixed clock
    os.utime(pad, (then.timestamp(), then.timestamp()))
    older = copy_sample(tmp_path, RETRY)
    before = datetime(2026, 11, 10, 9, 8, 7, tzinfo=UTC)
    os.utime(older, (before.timestamp(), before.timestamp()))
    async with fleet(pad.parent, use_journal=False) as f:
        assert f.row(HEALTHY)["changed"] == then.astimezone().strftime("%H:%M:%S")
        assert f.row(RETRY)["changed"] == before.astimezone().strftime("%m-%d %H:%M")


async def test_question_mark_in_the_fleet_shows_the_fleets_help(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, HEALTHY)
    async with fleet(pad.parent, use_journal=False) as f:
        await f.pilot.press("question_mark")
        await f.until(lambda: isinstance(f.app.screen, HelpScreen), "the help")
        assert isinstance(f.app.screen, HelpScreen) and f.app.screen.text == FLEET_HELP
        assert "up / down" in f.screen_text()
        await f.pilot.press("escape")
        await f.until(lambda: f.app.showing_fleet, "the fleet again")
        await f.pilot.press("enter")  # in the inspector, ? is the inspector's help
        await f.until(lambda: not f.app.showing_fleet, "the pad open")
        await f.pilot.press("question_mark")
        await f.until(lambda: isinstance(f.app.screen, HelpScreen), "the help")
        assert f.app.screen.text != FLEET_HELP


def _screen(app: FleetApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())
