"""A first word that is neither a command nor a path is a mistyped command: one line that
says so and names the nearest command, exit 2. A word that exists, or reads as a file's name,
is still a pad (``padtui PATH``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from padtui.cli import COMMANDS
from padtui.cli.parser import is_path
from tests.cli.test_commands import run

SAMPLE = Path(__file__).resolve().parents[2] / "sample_pads" / "compactable-notes.jsonl"


@pytest.mark.parametrize(
    ("argv", "nearest"),
    [
        (("chek", "pad.json"), "check"),
        (("histroy", "pad.json"), "history"),
        (("wach",), "watch"),
        (("clade", "install"), "claude"),
    ],
)
def test_a_typo_names_the_nearest_command(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: tuple[str, ...],
    nearest: str,
) -> None:
    monkeypatch.chdir(tmp_path)  # (no file of that name here)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"padtui: error: unknown command '{argv[0]}' — did you mean {nearest}?")


def test_a_word_near_no_command_lists_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "frobnicate")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "unknown command 'frobnicate'" in err and "unsupported format" not in err
    assert all(name in err for name in COMMANDS)


def test_a_path_is_still_a_pad(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An existing file named like a command, a name with a dot or a separator: paths."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chek").write_bytes(SAMPLE.read_bytes())
    assert is_path("chek") and is_path("pad.json") and is_path("notes/") and is_path("./x")
    assert not is_path("chek2") and not is_path("frobnicate")
    code, _out, err = run(capsys, "chek")  # (read as a pad: its name says no format)
    assert code == 2 and err.startswith("padtui: error: chek: ") and "unknown command" not in err
    code, _out, err = run(capsys, "missing.json")
    assert code == 2 and "unknown command" not in err
