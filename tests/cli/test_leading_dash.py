"""A pad whose name starts with ``-``: every command takes it after ``--`` (or as ``./-``),
git is asked about it after ``--``, and every command padtui suggests names it so that it is
never read as an option."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from padtui.cli import main
from tests.cli.test_commands import SAMPLES


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_command_takes_a_pad_named_like_an_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLES / "retry-5xx-under-pressure.json", tmp_path / "-rf.json")
    code, out, err = _run(capsys, "check", "--", "-rf.json")
    assert code == 1 and err == ""
    way_out = next(line for line in out.splitlines() if line.startswith("way out:"))
    suggested = way_out[way_out.index("padtui ") :]
    words = shlex.split(suggested)
    assert words[:2] == ["padtui", "externalize"] and not words[2].startswith("-")
    assert os.path.samefile(words[2], tmp_path / "-rf.json")
    # the suggestion runs as it reads
    code, out, err = _run(capsys, *words[1:])
    assert code == 0 and err == "", err
    code, out, err = _run(capsys, "compact", "--write", "--", "-rf.json")
    assert code == 0 and err == "", err
    code, out, err = _run(capsys, "history", "--", "-rf.json")
    assert code == 0 and "-rf.json" in out
    code, out, err = _run(capsys, "audit", "--", "-rf.json", "./-rf.json")
    assert code == 0 and err == ""


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_audit_git_takes_a_pad_named_like_an_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Dana Example")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "dana@example.com")

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    pad = tmp_path / "-p.md"
    pad.write_text("# Memory\n\n- Never push to main.\n- Note one.\n")
    git("add", "--", pad.name)
    git("commit", "-q", "-m", "first")
    pad.write_text("# Memory\n\n- Note one.\n")
    git("commit", "-q", "-am", "second")
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "audit", "--git", "HEAD~1..HEAD", "--", "-p.md")
    assert err == "" and "second" in out and "corruption" in out, out
    assert code == 1
