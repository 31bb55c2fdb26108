"""Every numeric argument is checked the same way: a value that is not a number, or one out
of range, is one line naming the option and what it should be, exit 2, before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from padtui.cli import main


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "PAD", "--budget", "1.5"], "argument --budget: not a whole number: '1.5'"),
        (
            ["check", "PAD", "--budget", "-1"],
            "argument --budget: must be >= 0 and at most 1000000000000, got -1",
        ),
        (
            ["check", "PAD", "--budget", "9" * 400],
            "argument --budget: must be >= 0 and at most 1000000000000, "
            "got a number of more than 40 digits",
        ),
        (["watch", "PAD", "--budget", "x"], "argument --budget: not a whole number: 'x'"),
        (
            ["simulate", "PAD", "--scenario", "retry-5xx", "--interval", "soon"],
            "argument --interval: not a number of seconds: 'soon'",
        ),
        (
            ["demo", "--interval", "3601"],
            "argument --interval: must be between 0 and 3600, got 3601.0",
        ),
        (["history", "PAD", "--ack", "v2"], "argument --ack: not a version number: 'v2'"),
        (
            ["history", "PAD", "--restore", "0"],
            "argument --restore: versions are numbered from 1, got 0",
        ),
    ],
)
def test_a_bad_number_is_one_line_exit_2(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pad = tmp_path / "pad.json"  # never read: the arguments are refused first
    code = main([str(pad) if a == "PAD" else a for a in args])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == f"padtui: error: {message} (see `padtui {args[0]} --help`)\n"
    assert not pad.exists()


def test_a_bad_demo_interval_in_the_environment_falls_back_to_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from padtui.cli.parser import build_parser

    monkeypatch.setenv("PADTUI_DEMO_INTERVAL", "fast")
    assert build_parser().parse_args(["demo"]).interval == 6.0
    monkeypatch.setenv("PADTUI_DEMO_INTERVAL", "0.5")
    assert build_parser().parse_args(["demo"]).interval == 0.5
