"""What a new user meets at 80x24 and 120x40, in a real terminal (tmux): the footer's most used
keys and the help that lists the rest, a corruption's notice that covers neither the gauge,
the verdict line nor a dialog and goes once the alarms are seen, and a history whose rows take
the arrows at once."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_terminal import SAMPLES, Terminal, first_line_has, pad_copy, terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

__all__ = ["terminal"]  # (the fixture, used by name)

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
# the keys the footer shows first, in this order, at 80 columns and more
FIRST_KEYS = ("? Help", "q Quit", "a Alarms", "t Trial", "h History", "c Commit")


def corrupted(terminal: Terminal, tmp_path: Path, size: tuple[int, int]) -> str:
    """A pad opened in the inspector, then rewritten by the seed's corrupting condense."""
    pad = pad_copy(tmp_path, "transitions/retry-5xx-before.json", "pad.json")
    terminal.start(pad, size=size)
    terminal.wait_for(first_line_has("● live", "v1", "pad.json"))
    tmp = pad.with_name(".pad.json.tmp")
    shutil.copyfile(SAMPLES / "transitions" / "retry-5xx-after-condense.json", tmp)
    os.replace(tmp, pad)
    return terminal.wait_for(first_line_has("v2", "⚠ 1 alarm"), "CORRUPTION")


def footer(screen: str) -> str:
    return screen.rstrip("\n").splitlines()[-1]


@pytest.mark.parametrize("size", SIZES)
def test_the_footer_shows_the_most_used_keys_and_help_lists_every_one(
    terminal: Terminal, tmp_path: Path, size: tuple[int, int]
) -> None:
    pad = pad_copy(tmp_path, "compactable-notes.jsonl", "notes.jsonl")
    terminal.start(pad, size=size)
    screen = terminal.wait_for(first_line_has("● live", "notes.jsonl"), "? Help")
    keys = footer(screen)
    places = [keys.find(k) for k in FIRST_KEYS]
    assert -1 not in places and places == sorted(places), keys
    assert "^p palette" in keys
    if size[0] >= 120:
        assert "s Policy" in keys  # (at 120 columns the budget and policy keys too)
    terminal.send("t")  # in a trial, its steps come first
    keys = footer(terminal.wait_for("step 3/3 drops"))
    assert keys.find("n p Step") < keys.find("a Alarms"), keys
    terminal.send("Escape")
    terminal.send("?")
    terminal.wait_for("padtui watches a pad")
    terminal.send("End")  # (at 80x24 the help scrolls)
    terminal.wait_for("[ / ]", "switch policy")  # the keys the footer has no room for
    terminal.send("Escape")
    terminal.wait_for(lambda s: "switch policy" not in s)
    terminal.quit()


@pytest.mark.parametrize("size", SIZES)
def test_a_corruption_s_notice_covers_no_gauge_verdict_or_dialog_and_goes_once_seen(
    terminal: Terminal, tmp_path: Path, size: tuple[int, int]
) -> None:
    screen = corrupted(terminal, tmp_path, size)
    lines = screen.splitlines()
    notice = max(i for i, line in enumerate(lines) if "CORRUPTION" in line)
    gauge = next(i for i, line in enumerate(lines) if "tok (sealed" in line)
    verdict = next(i for i, line in enumerate(lines) if "last rewrite (v2" in line)
    assert notice < gauge < verdict, screen
    for i in range(gauge, len(lines)):  # nothing of the notice's box below the panes
        assert "▌" not in lines[i], screen
    terminal.send("a")  # the alarms seen: the notice goes, and never sat on the dialog
    screen = terminal.wait_for("Alarms (1)", "CONSTRAINT_WEAKENED")
    assert "CORRUPTION" not in screen
    terminal.send("Escape")
    screen = terminal.wait_for(lambda s: "Alarms (1)" not in s)
    assert "CORRUPTION" not in screen and "⚠ 1 alarm" in screen.splitlines()[0]
    terminal.quit()


@pytest.mark.parametrize("size", SIZES)
def test_history_rows_take_the_arrows_at_once(
    terminal: Terminal, tmp_path: Path, size: tuple[int, int]
) -> None:
    corrupted(terminal, tmp_path, size)
    terminal.send("h")
    terminal.wait_for("version 2, seen")
    terminal.send("Down")  # no Tab first
    terminal.wait_for("version 1, seen", lambda s: "version 2, seen" not in s)
    terminal.send("Up")
    terminal.wait_for("version 2, seen")
    terminal.quit()
