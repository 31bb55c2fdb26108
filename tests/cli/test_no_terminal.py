"""The screens outside a terminal: `padtui PATH`, `padtui DIR`, `padtui demo` and time travel
exit 2 at once with one line naming what to run instead (they used to draw escape codes into
the pipe and wait for keys). `padtui` alone keeps printing the trial of the sample pad."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).parents[2] / "sample_pads"
HANG = 20.0  # seconds: a bound that only a hang reaches (it exits in well under a second)


def padtui(*argv: str, stdin: int | None = subprocess.DEVNULL, home: Path) -> tuple[int, str, str]:
    env = {**os.environ, "XDG_STATE_HOME": str(home / "state"), "TMPDIR": str(home)}
    res = subprocess.run(
        [sys.executable, "-m", "padtui", *argv],
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=HANG,
        env=env,
        check=False,
    )
    return res.returncode, res.stdout, res.stderr


@pytest.mark.parametrize(
    ("argv", "instead"),
    [
        ([str(SAMPLES / "healthy.json")], f"`padtui check {SAMPLES / 'healthy.json'}`"),
        (["watch", str(SAMPLES / "healthy.json")], f"`padtui check {SAMPLES / 'healthy.json'}`"),
        ([str(SAMPLES)], f"`padtui check {SAMPLES / 'compactable-notes.jsonl'}`"),
        (["demo"], "`padtui simulate demo-pad.json --scenario retry-5xx`"),
    ],
    ids=["PATH", "watch PATH", "DIR", "demo"],
)
def test_a_screen_without_a_terminal_exits_2_naming_what_to_run(
    argv: list[str], instead: str, tmp_path: Path
) -> None:
    code, out, err = padtui(*argv, home=tmp_path)
    assert code == 2
    assert out == ""  # not one escape code
    assert err.count("\n") == 1 and err.startswith("padtui: error: ")
    assert "needs a terminal" in err and instead in err
    assert not list(tmp_path.glob("padtui-demo-*"))  # the demo made no folder


def test_time_travel_without_a_terminal_exits_2(tmp_path: Path) -> None:
    pad = tmp_path / "pad.json"
    pad.write_bytes((SAMPLES / "healthy.json").read_bytes())
    journal = tmp_path / "journal.jsonl"
    code, _out, _err = padtui("history", str(pad), "--journal", str(journal), home=tmp_path)
    assert code == 0  # (the version on disk is journaled)
    code, out, err = padtui("replay", str(journal), home=tmp_path)
    assert code == 2 and out == ""
    assert "needs a terminal" in err and "PATH" not in err
    assert f"`padtui history {pad} --journal {journal}`" in err
    code, out, err = padtui("history", str(pad), "--journal", str(journal), "--open", home=tmp_path)
    assert code == 2 and out == "" and "needs a terminal" in err


def test_a_terminal_on_input_alone_is_not_enough(tmp_path: Path) -> None:
    """Standard input a terminal, standard output a pipe (`padtui PATH | less`): exit 2."""
    main, other = pty.openpty()
    try:
        code, out, err = padtui(str(SAMPLES / "healthy.json"), stdin=other, home=tmp_path)
    finally:
        os.close(main)
        os.close(other)
    assert code == 2 and out == "" and "needs a terminal" in err


def test_bad_input_is_still_reported_first(tmp_path: Path) -> None:
    code, out, err = padtui(str(tmp_path / "missing.json"), home=tmp_path)
    assert code == 2 and out == ""
    assert "missing.json" in err and "needs a terminal" not in err


def test_padtui_alone_still_prints_the_trial_of_the_sample_pad(tmp_path: Path) -> None:
    code, out, err = padtui(home=tmp_path)
    assert code == 0 and err == ""
    assert "retry-5xx-under-pressure.json" in out and "not a terminal" in out
