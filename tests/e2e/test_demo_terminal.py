"""`padtui` with no arguments, in a real terminal: the demo plays and the alarm shows."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

DEADLINE = 60.0


class Terminal:
    """A tmux session on a private socket, read with capture-pane."""

    def __init__(self, command: str, width: int = 160, height: int = 45) -> None:
        self.socket = f"padtui-test-{uuid.uuid4().hex[:8]}"
        self.tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), command)

    def tmux(self, *args: str) -> str:
        res = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False
        )
        return res.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-t", "t", "-p")

    def wait_for(self, text: str) -> str:
        end = time.monotonic() + DEADLINE
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            assert time.monotonic() < end, f"{text!r} never appeared; the screen:\n{screen}"
            time.sleep(0.1)

    def wait_gone(self, text: str) -> None:
        end = time.monotonic() + DEADLINE
        while text in self.screen():
            assert time.monotonic() < end, f"{text!r} stayed on screen"
            time.sleep(0.1)

    def close(self) -> None:
        self.tmux("kill-server")


def test_padtui_alone_plays_the_demo_and_shows_the_corruption_alarm(tmp_path):
    padtui = Path(sys.executable).parent / "padtui"
    command = (
        # COLUMNS/LINES set under pytest would make the app draw at 80x24 inside the pane
        "env -u COLUMNS -u LINES PADTUI_DEMO_INTERVAL=0.4 "
        f"XDG_STATE_HOME={shlex.quote(str(tmp_path))} "
        f"TMPDIR={shlex.quote(str(tmp_path))} {shlex.quote(str(padtui))}"
    )
    term = Terminal(command)
    try:
        term.wait_for("demo: Retry after a 5xx")
        screen = term.wait_for("CORRUPTION")
        assert "CONSTRAINT_WEAKENED" in screen
        assert "alarm" in screen.splitlines()[0]
        term.tmux("send-keys", "-t", "t", "a")
        screen = term.wait_for("Alarms (1)")
        assert "c-retry" in screen
        term.tmux("send-keys", "-t", "t", "Escape")
        term.wait_gone("Alarms (1)")  # a key sent right after Escape would read as alt+key
        term.tmux("send-keys", "-t", "t", "q")
        end = time.monotonic() + DEADLINE
        while list(tmp_path.glob("padtui-demo-*")):  # the temporary folder is cleaned up
            assert time.monotonic() < end, "the demo's temporary folder was left behind"
            time.sleep(0.1)
    finally:
        term.close()


def _demo_folders(tmp_path: Path) -> list[Path]:
    return list(tmp_path.glob("padtui-demo-*"))


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "the terminal closed"])
def test_a_killed_demo_removes_its_temporary_folder(tmp_path: Path, how: str) -> None:
    padtui = Path(sys.executable).parent / "padtui"
    command = (
        "exec env -u COLUMNS -u LINES "
        f"XDG_STATE_HOME={shlex.quote(str(tmp_path))} "
        f"TMPDIR={shlex.quote(str(tmp_path))} {shlex.quote(str(padtui))} demo"
    )
    term = Terminal(command)
    try:
        term.wait_for("demo: Retry after a 5xx")
        assert len(_demo_folders(tmp_path)) == 1
        pid = int(term.tmux("display-message", "-p", "-t", "t", "#{pane_pid}"))
        if how == "the terminal closed":
            term.close()  # (tmux hangs the terminal up: SIGHUP)
        else:
            os.kill(pid, getattr(signal, how))
        end = time.monotonic() + DEADLINE
        while _demo_folders(tmp_path):
            assert time.monotonic() < end, f"the demo's temporary folder outlived {how}"
            time.sleep(0.05)
        while _alive(pid):
            assert time.monotonic() < end, f"the demo did not end on {how}"
            time.sleep(0.05)
    finally:
        term.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
