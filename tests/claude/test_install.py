"""padtui claude install/uninstall: merged with the hooks already there, never clobbering the
file, and uninstall gives back the very bytes it found."""

from __future__ import annotations

import json
import os
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
