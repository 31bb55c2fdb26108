"""A FIFO in the pad's place: every command refuses it in one line, none waits on it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from padtui.core.storage import store

SAMPLE = Path(__file__).resolve().parents[2] / "sample_pads" / "healthy.json"


@pytest.mark.parametrize(
    "command",
    [["check"], ["externalize", "c-1"], ["history", "--restore", "1"], ["compact", "--write"]],
)
def test_a_fifo_named_like_a_pad_is_refused_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    pad = tmp_path / "pad.json"
    pad.write_bytes(SAMPLE.read_bytes())
    store.read(str(pad), journal=True)  # a version in the journal (for --restore)
    pad.unlink()
    os.mkfifo(pad)  # no writer: an open without O_NONBLOCK would never return
    res = subprocess.run(
        [sys.executable, "-m", "padtui", command[0], str(pad), *command[1:]],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert res.returncode == 2, res.stderr
    assert res.stderr.strip().endswith("not a regular file"), res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_simulate_refuses_a_fifo_in_its_pads_place(tmp_path: Path) -> None:
    pad = tmp_path / "pad.json"
    os.mkfifo(pad)
    argv = ["simulate", str(pad), "--scenario", "healthy", "--reset", "--writes", "inplace"]
    res = subprocess.run(
        [sys.executable, "-m", "padtui", *argv, "--interval", "0"],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,  # (a hang, not a speed: the in-place write would wait for a reader)
    )
    assert res.returncode == 2, res.stderr
    assert "not a regular file" in res.stderr and len(res.stderr.strip().splitlines()) == 1
