"""padtui claude install/uninstall: merged with the hooks already there, never clobbering the
file, and uninstall gives back the very bytes it found."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

# a settings file as a person keeps it: other hooks, other settings, four-space indent
SETTINGS = """{
    "permissions": {
        "allow": ["Bash(make lint)"]
    },
    "hooks": {
        "PreCompact": [
            {
                "matcher": "auto",
                "hooks": [{"type": "command", "command": "notify-send compacting"}]
            }
        ],
        "PostToolUse": [
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "make fmt"}]}
        ]
    }
}
"""


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HOME=str(tmp / "home"), XDG_STATE_HOME=str(tmp / "state"))
    return subprocess.run(
        [sys.executable, "-m", "padtui", "claude", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp,
        timeout=60,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    return tmp_path / "proj"


def _ours(doc: dict, event: str) -> list[str]:
    return [
        h["command"]
        for g in doc["hooks"].get(event, [])
        for h in g["hooks"]
        if "padtui claude" in h["command"]
    ]


def test_install_merges_and_uninstall_restores_byte_for_byte(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.write_text(SETTINGS)
    path.chmod(0o640)
    result = _run(project.parent, "install", "--project", str(project))
    assert result.returncode == 0, result.stderr
    doc = json.loads(path.read_text())
    assert doc["permissions"] == {"allow": ["Bash(make lint)"]}
    assert doc["hooks"]["PreCompact"][0]["hooks"][0]["command"] == "notify-send compacting"
    assert doc["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == "make fmt"
    assert _ours(doc, "PreCompact")[0].endswith("padtui claude pre-compact")
    assert _ours(doc, "PostCompact")[0].endswith("padtui claude post-compact")
    assert doc["hooks"]["SessionStart"][0]["matcher"] == "compact"
    assert '\n    "hooks"' in path.read_text()  # the file's own indent kept
    assert path.stat().st_mode & 0o777 == 0o640
    again = _run(project.parent, "install", "--project", str(project))
    assert "already there" in again.stdout
    assert len(_ours(json.loads(path.read_text()), "PreCompact")) == 1
    result = _run(project.parent, "uninstall", "--project", str(project))
    assert result.returncode == 0, result.stderr
    assert path.read_text() == SETTINGS


@pytest.mark.parametrize(
    "original",
    [
        SETTINGS.replace("    ", "\t").replace("\n", "\r\n").encode(),
        b'{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}',
        '{"theme": "d\u00e9faut \u65e5\u672c"}\n'.encode(),
    ],
    ids=["tabs-crlf", "one-line", "unicode"],
)
def test_uninstall_restores_any_layout_byte_for_byte(project: Path, original: bytes) -> None:
    path = project / ".claude" / "settings.json"
    path.write_bytes(original)
    assert _run(project.parent, "install", "--project", str(project)).returncode == 0
    assert len(_ours(json.loads(path.read_bytes()), "PostCompact")) == 1
    assert _run(project.parent, "uninstall", "--project", str(project)).returncode == 0
    assert path.read_bytes() == original


def test_uninstall_after_the_user_edited_the_file_removes_only_ours(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.write_text(SETTINGS)
    _run(project.parent, "install", "--project", str(project))
    doc = json.loads(path.read_text())
    doc["model"] = "opus"
    path.write_text(json.dumps(doc, indent=2))
    assert _run(project.parent, "uninstall", "--project", str(project)).returncode == 0
    after = json.loads(path.read_text())
    assert after["model"] == "opus"
    assert after["hooks"]["PreCompact"] == json.loads(SETTINGS)["hooks"]["PreCompact"]
    assert "PostCompact" not in after["hooks"] and "SessionStart" not in after["hooks"]


def test_install_into_no_file_and_uninstall_leaves_no_file(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    assert _run(project.parent, "install", "--project", str(project)).returncode == 0
    assert len(_ours(json.loads(path.read_text()), "SessionStart")) == 1
    assert _run(project.parent, "uninstall", "--project", str(project)).returncode == 0
    assert not path.exists()


def test_dry_run_prints_the_diff_and_writes_nothing(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.write_text(SETTINGS)
    result = _run(project.parent, "install", "--project", str(project), "--dry-run")
    assert result.returncode == 0
    assert "+" in result.stdout and "padtui claude post-compact" in result.stdout
    assert path.read_text() == SETTINGS


def test_settings_that_do_not_parse_are_never_overwritten(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.write_text('{"hooks": {,}')
    result = _run(project.parent, "install", "--project", str(project))
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1 and "settings.json" in result.stderr
    assert path.read_text() == '{"hooks": {,}'


def test_user_settings(project: Path) -> None:
    result = _run(project.parent, "install", "--user")
    assert result.returncode == 0, result.stderr
    path = project.parent / "home" / ".claude" / "settings.json"
    assert len(_ours(json.loads(path.read_text()), "PreCompact")) == 1


def _commands(path: Path) -> list[str]:
    doc = json.loads(path.read_text())
    return [h["command"] for groups in doc["hooks"].values() for g in groups for h in g["hooks"]]


def test_the_committed_settings_name_no_path_of_this_machine(project: Path) -> None:
    """A team commits .claude/settings.json: its hooks must run on a teammate's machine,
    where this machine's virtual environment is not."""
    result = _run(project.parent, "install", "--project", str(project))
    assert result.returncode == 0, result.stderr
    text = (project / ".claude" / "settings.json").read_text()
    for here in {sys.executable, sys.prefix, os.path.realpath(sys.executable), str(project)}:
        assert here not in text
    commands = _commands(project / ".claude" / "settings.json")
    assert len(commands) == 3
    for cmd in commands:
        assert not any(word.startswith(("/", "~")) for word in shlex.split(cmd)), cmd
    assert not (project / ".claude" / "settings.local.json").exists()


def test_the_portable_command_runs_padtui_from_path_or_python3(project: Path) -> None:
    """The committed command runs ``padtui`` from PATH, else ``python3 -m padtui``."""
    assert _run(project.parent, "install", "--project", str(project)).returncode == 0
    session_start = next(
        c for c in _commands(project / ".claude" / "settings.json") if "session" in c
    )
    shims = project.parent / "shims"
    shims.mkdir()
    for name in ("padtui", "python3"):
        shim = shims / name
        log = project.parent / f"{name}.ran"
        real = f'"{sys.executable}" -m padtui' if name == "padtui" else f'"{sys.executable}"'
        shim.write_text(f'#!/bin/sh\necho "$@" > "{log}"\nexec {real} "$@"\n')
        shim.chmod(0o755)
    hook_input = json.dumps({"hook_event_name": "SessionStart", "source": "compact"})
    for hidden, used in (((), "padtui"), (("padtui",), "python3")):
        for name in hidden:
            (shims / name).unlink()
        env = dict(os.environ, PATH=f"{shims}:/usr/bin:/bin", HOME=str(project.parent / "home"))
        env["XDG_STATE_HOME"] = str(project.parent / "state")
        ran = subprocess.run(
            ["sh", "-c", session_start],
            input=hook_input,
            env=env,
            text=True,
            capture_output=True,
            timeout=60,
            cwd=project,
        )
        assert ran.returncode == 0, ran.stderr
        assert "claude session-start" in (project.parent / f"{used}.ran").read_text()


def test_local_settings_name_this_interpreter_and_are_separate(project: Path) -> None:
    result = _run(project.parent, "install", "--local", str(project))
    assert result.returncode == 0, result.stderr
    local = project / ".claude" / "settings.local.json"
    assert "settings.local.json" in result.stdout
    assert all(c.startswith(shlex.quote(sys.executable)) for c in _commands(local))
    assert not (project / ".claude" / "settings.json").exists()
    assert _run(project.parent, "uninstall", "--local", str(project)).returncode == 0
    assert not local.exists()


def test_install_again_makes_an_old_absolute_command_portable(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    old = f"{sys.executable} -m padtui claude post-compact"
    path.write_text(
        json.dumps(
            {
                "hooks": {
                    "PostCompact": [
                        {"matcher": "manual|auto", "hooks": [{"type": "command", "command": old}]}
                    ]
                }
            }
        )
    )
    assert _run(project.parent, "install", "--project", str(project)).returncode == 0
    commands = _commands(path)
    assert len(commands) == 3 and old not in commands
    assert sys.executable not in path.read_text()


def test_a_symlinked_settings_file_is_written_through_and_the_link_kept(project: Path) -> None:
    """Settings kept in a dotfiles folder and linked in: install and uninstall write the
    file the link leads to; the link stays a link."""
    dotfiles = project.parent / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "settings.json"
    real.write_text(SETTINGS)
    link = project / ".claude" / "settings.json"
    link.symlink_to(real)
    result = _run(project.parent, "install", "--project", str(project))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert len(_ours(json.loads(real.read_text()), "PreCompact")) == 1
    result = _run(project.parent, "uninstall", "--project", str(project))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and real.read_text() == SETTINGS


@pytest.mark.parametrize("content", ["fifo", "deep"])
def test_settings_that_are_no_json_file_are_one_line_and_left(project: Path, content: str) -> None:
    path = project / ".claude" / "settings.json"
    if content == "fifo":
        os.mkfifo(path)
    else:
        path.write_text("[" * 100_000 + "]" * 100_000)
    result = _run(project.parent, "install", "--project", str(project))  # (60 s: no wait)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1 and "settings.json" in result.stderr
    assert "left as it is" in result.stderr
