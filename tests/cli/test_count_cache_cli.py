"""check, compact and audit keep each pad's counts in $XDG_CACHE_HOME/padtui/ (one private
file per pad), give the same answers with it as without, turn it off with --no-cache, and
never fail for it; a headless command run as a program ends with all its output."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from padtui.core.counting import countcache
from tests.cli.test_commands import SAMPLES, run

PAD = SAMPLES / "retry-5xx-under-pressure.json"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "padtui"


@pytest.fixture
def pad(tmp_path: Path) -> str:
    return str(shutil.copy(PAD, tmp_path / "pad.json"))


def _same_but_the_time(out: str) -> str:
    """The report without the loss record's stamp (its time changes between runs)."""
    report = json.loads(out)
    if report.get("loss_record"):
        report["loss_record"].pop("id", None)
        report["loss_record"].pop("text", None)
    return json.dumps(report)


@pytest.mark.parametrize("command", ["check", "compact"])
def test_a_plan_keeps_its_counts_in_one_private_file_and_gives_the_same_report(
    capsys: pytest.CaptureFixture[str], cache: Path, pad: str, command: str
) -> None:
    code, uncached, err = run(capsys, command, pad, "--json", "--no-cache")
    assert not cache.exists()
    for _ in ("counted, then kept", "read back"):
        again = run(capsys, command, pad, "--json")
        assert again[0] == code and again[2] == err == ""
        assert _same_but_the_time(again[1]) == _same_but_the_time(uncached)
        files = os.listdir(cache)
        assert len(files) == 1 and files[0].startswith("pad.json-") and files[0].endswith(".counts")
        assert (cache / files[0]).stat().st_mode & 0o777 == 0o600


def test_audit_keeps_the_new_pads_counts(
    capsys: pytest.CaptureFixture[str], cache: Path, tmp_path: Path
) -> None:
    old = str(SAMPLES / "transitions" / sorted(os.listdir(SAMPLES / "transitions"))[0])
    new = str(shutil.copy(PAD, tmp_path / "new.json"))
    fresh = run(capsys, "audit", old, new, "--json", "--no-cache")
    assert not cache.exists()
    assert run(capsys, "audit", old, new, "--json") == fresh
    assert [f.split("-")[0] for f in os.listdir(cache)] == ["new.json"]
    assert run(capsys, "audit", old, new, "--json") == fresh


def test_a_damaged_cache_file_is_passed_over_in_silence(
    capsys: pytest.CaptureFixture[str], cache: Path, pad: str
) -> None:
    first = run(capsys, "check", pad)
    (name,) = os.listdir(cache)
    data = bytearray((cache / name).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (cache / name).write_bytes(bytes(data))
    assert run(capsys, "check", pad) == first


def test_a_cache_that_cannot_be_written_fails_no_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pad: str
) -> None:
    """A cache folder that cannot be made (a file in its place), a full disk: the command
    answers as ever, and says nothing of it."""
    expected = run(capsys, "check", pad, "--no-cache")
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert run(capsys, "check", pad) == expected

    def full(path: str, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(countcache, "_replace", full)
    assert run(capsys, "check", pad) == expected
    assert run(capsys, "audit", pad, pad) == run(capsys, "audit", pad, pad, "--no-cache")


def test_a_headless_command_run_as_a_program_ends_with_all_its_output(tmp_path: Path) -> None:
    """The program ends without the interpreter's teardown: its output is flushed first,
    whole, and its exit code is the command's (1: refused)."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    refused = str(SAMPLES / "sealed-over-budget.json")
    for argv in (["check", refused, "--json"], ["compact", refused, "--json"]):
        proc = subprocess.run(
            [sys.executable, "-m", "padtui", *argv], capture_output=True, text=True, env=env
        )
        assert proc.returncode == 1 and proc.stderr == ""
        assert json.loads(proc.stdout)["verdict"] == "refused"
    proc = subprocess.run(
        [sys.executable, "-m", "padtui", "check", str(tmp_path / "missing.json")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
