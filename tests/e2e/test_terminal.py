"""``padtui PATH`` in a real terminal (tmux): the installed console script, driven with
send-keys and read with capture-pane, while the test rewrites the pad like an agent would."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

SAMPLES = Path(__file__).resolve().parents[2] / "sample_pads"
PADTUI = Path(sys.executable).parent / "padtui"
WIDTH, HEIGHT = 160, 45
DEADLINE = 20.0  # seconds for anything to show up on screen


class Terminal:
    """One tmux session on a private server (its own socket, no user config)."""

    def __init__(self, tmp_path: Path) -> None:
        self.socket = f"padtui-e2e-{uuid.uuid4().hex[:10]}"
        self.tmp_path = tmp_path

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", os.devnull, *args],
            capture_output=True,
            text=True,
            check=check,
            timeout=30,
        )

    def start(self, pad: Path, size: tuple[int, int] = (WIDTH, HEIGHT)) -> None:
        env = {"XDG_STATE_HOME": str(self.tmp_path / "state"), "TERM": "xterm-256color"}
        command = " ".join(
            # COLUMNS and LINES (set under pytest) would override the terminal's own size
            ["env", "-u", "COLUMNS", "-u", "LINES"]
            + [f"{k}={shlex.quote(v)}" for k, v in env.items()]
            + [shlex.quote(str(PADTUI)), shlex.quote(str(pad))]
        )
        width, height = size
        self.tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), command)

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "t", *keys)

    def screen(self) -> str:
        done = self.tmux("capture-pane", "-t", "t", "-p", check=False)
        return done.stdout

    def wait_for(self, *checks: str | Callable[[str], bool]) -> str:
        """The screen, once every check holds on it (a text it shows, or a test of it): a
        frame caught half drawn is just read again."""
        tests = [(lambda s, c=c: c in s) if isinstance(c, str) else c for c in checks]
        deadline = time.monotonic() + DEADLINE
        while True:
            screen = self.screen()
            if all(test(screen) for test in tests):
                return screen
            if time.monotonic() > deadline:
                pytest.fail(f"never saw {checks!r} on screen; it showed:\n{screen}")
            time.sleep(0.05)

    def running(self) -> bool:
        return self.tmux("has-session", "-t", "t", check=False).returncode == 0

    def quit(self) -> None:
        self.send("q")
        deadline = time.monotonic() + DEADLINE
        while self.running():
            assert time.monotonic() < deadline, f"q did not quit; the screen:\n{self.screen()}"
            time.sleep(0.05)

    def close(self) -> None:
        self.tmux("kill-server", check=False)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    if not PADTUI.exists():
        pytest.skip(f"the padtui console script is not installed beside {sys.executable}")
    term = Terminal(tmp_path)
    try:
        yield term
    finally:
        term.close()


def pad_copy(tmp_path: Path, sample: str, name: str) -> Path:
    folder = tmp_path / "pads"
    folder.mkdir(exist_ok=True)
    path = folder / name
    shutil.copyfile(SAMPLES / sample, path)
    return path


def first_line_has(*parts: str) -> Callable[[str], bool]:
    return lambda screen: bool(screen) and all(p in screen.splitlines()[0] for p in parts)


def test_rewrites_show_up_live_and_a_corrupting_one_raises_the_alarm(
    terminal: Terminal, tmp_path: Path
) -> None:
    pad = pad_copy(tmp_path, "transitions/retry-5xx-before.json", "pad.json")
    terminal.start(pad)
    terminal.wait_for(first_line_has("● live", "v1", "pad.json"))

    # an in-place save: a note added
    entries = json.loads(pad.read_text("utf-8"))
    entries.append({"kind": "note", "id": "n-5", "text": "Batch 1190 confirmed by hand."})
    with open(pad, "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=2)
    terminal.wait_for(first_line_has("v2"), "growth", "note  n-5")

    # an atomic save (temporary file renamed over the pad): the seed's corrupting condense
    tmp = pad.with_name(".pad.json.tmp")
    shutil.copyfile(SAMPLES / "transitions" / "retry-5xx-after-condense.json", tmp)
    os.replace(tmp, pad)
    terminal.wait_for(first_line_has("v3", "⚠ 1 alarm"), "corruption", "CORRUPTION")

    terminal.send("a")
    terminal.wait_for("Alarms (1)", "CONSTRAINT_WEAKENED", "c-retry")
    terminal.send("Escape")
    terminal.wait_for(lambda s: "Alarms (1)" not in s)
    terminal.quit()
    assert list((tmp_path / "state" / "padtui").iterdir())  # the journal, where it was told


def test_trial_commit_and_confirm_write_the_file(terminal: Terminal, tmp_path: Path) -> None:
    pad = pad_copy(tmp_path, "compactable-notes.jsonl", "notes.jsonl")
    before = [json.loads(line) for line in pad.read_text("utf-8").splitlines()]
    terminal.start(pad)
    terminal.wait_for(first_line_has("● live", "v1"))

    terminal.send("t")
    terminal.wait_for("step 3/3 drops", "− dropped by the trial", "+ pending loss record")
    terminal.send("c")
    terminal.wait_for("Commit this compaction to", "- note #75", "+ sealed loss_record")
    terminal.send("y")
    screen = terminal.wait_for(first_line_has("v2"), "(v2, padtui)")  # its own write
    assert "alarm" not in screen.splitlines()[0]

    after = [json.loads(line) for line in pad.read_text("utf-8").splitlines()]
    assert after[:-1] == [e for i, e in enumerate(before) if i not in (74, 75, 76)]
    assert after[-1]["kind"] == "loss_record" and after[-1]["sealed"] is True
    assert "h-1" in after[-1]["text"]
    terminal.quit()


def test_at_80x24_trial_steps_and_the_commit_dialog_shows_its_keys(
    terminal: Terminal, tmp_path: Path
) -> None:
    pad = pad_copy(tmp_path, "compactable-notes.jsonl", "notes.jsonl")
    before = pad.read_bytes()
    terminal.start(pad, size=(80, 24))
    terminal.wait_for(first_line_has("● live", "notes.jsonl"), "? Help", "q Quit")

    terminal.send("t")
    terminal.wait_for("step 3/3 drops")
    terminal.send("p")
    terminal.wait_for("step 2/3 drops")
    terminal.send("n")
    terminal.wait_for("step 3/3 drops")

    terminal.send("c")
    terminal.wait_for("Commit this compaction to", "Commit (y)", "Cancel (n)")
    terminal.send("n")
    terminal.wait_for(lambda s: "Commit (y)" not in s)
    assert pad.read_bytes() == before  # cancelled: nothing written

    terminal.send("c")
    terminal.wait_for("Commit (y)", "Cancel (n)")
    terminal.send("y")
    terminal.wait_for(first_line_has("v2", "notes.jsonl"))
    assert pad.read_bytes() != before
    terminal.quit()


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
def test_a_refusal_shows_its_way_out_and_buttons_in_a_small_terminal(
    terminal: Terminal, tmp_path: Path, size: tuple[int, int]
) -> None:
    """Under strict policy a pass over this pad would drop constraint c-retry: refused."""
    pad = pad_copy(tmp_path, "retry-5xx-under-pressure.json", "retry.json")
    before = pad.read_bytes()
    terminal.start(pad, size=size)
    terminal.wait_for(first_line_has("● live", "retry.json"))

    terminal.send("c")
    terminal.wait_for(
        "Refused: PROTECTED_KIND_WOULD_DROP",
        "Way out: ",
        "Seal c-retry, n-08 (x)",
        "Close (esc)",
        "w: why this matters",
    )
    terminal.send("Escape")
    terminal.wait_for(lambda s: "Close (esc)" not in s)
    assert pad.read_bytes() == before
    terminal.quit()
