"""Every refusal's way out is one command that works pasted into a shell from any folder:
run here by ``sh -c`` from another folder than the pad's, on memory files kept by people (a
path with a space and a quote, a name that starts with ``-``). After it, the compaction goes
through, or says the budget at which it does, and at that budget ``compact --write`` writes a
version that keeps every rule and that ``audit`` does not call corruption."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.memory_files import MEMORY_FILES

BIN = str(Path(sys.executable).parent)  # where this environment's padtui is
KEEPS = ("PROTECTED_KIND_WOULD_DROP", "RULE_WOULD_DROP")
# (names a person would give them, in a folder whose name a shell would split and unquote)
CASES = [
    ("CLAUDE.md", "-CLAUDE.md"),
    ("AGENTS.md", "AGENTS.md"),
    ("GEMINI.md", "GEMINI.md"),
    (".cursorrules", ".cursorrules"),
    ("progress.md", "progress.md"),
]


def env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": BIN + os.pathsep + os.environ.get("PATH", ""),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }


def padtui(tmp_path: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [os.path.join(BIN, "padtui"), *argv],
        cwd=cwd,
        env=env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )


def report(tmp_path: Path, cwd: Path, *argv: str) -> dict[str, Any]:
    done = padtui(tmp_path, cwd, *argv, "--json")
    assert done.returncode in (0, 1), done.stderr
    got: dict[str, Any] = json.loads(done.stdout)
    return got


def pasted(tmp_path: Path, way_out: str) -> subprocess.CompletedProcess[str]:
    """The way out's command, as a person pastes it, from a folder elsewhere."""
    command = way_out[way_out.index("padtui ") :]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    return subprocess.run(
        ["sh", "-c", command],
        cwd=elsewhere,
        env=env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )


def rules(tmp_path: Path, path: Path) -> set[str]:
    got = report(tmp_path, path.parent, "check", "./" + path.name, "--budget", "1000000")
    return {r["text"] for r in got["rules_at_risk"]}


@pytest.mark.parametrize(("memory", "name"), CASES)
def test_every_way_out_pasted_from_elsewhere_works(tmp_path: Path, memory: str, name: str) -> None:
    folder = tmp_path / "my memory's files"
    folder.mkdir()
    path = folder / name
    path.write_text(MEMORY_FILES[memory], encoding="utf-8")
    total = report(tmp_path, folder, "check", "./" + name)["tokens"]["total"]
    budget = total * 6 // 10
    # run from the pad's folder with a relative path, as people do
    first = report(tmp_path, folder, "check", "./" + name, "--budget", str(budget))
    assert first["code"] in KEEPS, first["message"]
    all_rules = rules(tmp_path, path)
    done = pasted(tmp_path, first["way_out"])
    assert done.returncode == 0, done.stderr
    assert "sealed" in done.stdout
    # the same check now goes through, or names the budget at which it does
    again = report(tmp_path, folder, "check", "./" + name, "--budget", str(budget))
    assert again["code"] not in KEEPS
    if again["verdict"] == "refused":
        assert again["code"] in ("SEALED_OVER_BUDGET", "RECORD_WOULD_NOT_FIT")
        assert again["fits_at"] is not None and again["fits_at"] > budget
        assert f"--budget {again['fits_at']}" in again["way_out"]
        done = pasted(tmp_path, again["way_out"])  # (padtui check PATH --budget N)
        assert done.returncode == 0, done.stdout + done.stderr
        budget = again["fits_at"]
    old = tmp_path / ("old" + Path(name).suffix if Path(name).suffix else "old.md")
    old.write_bytes(path.read_bytes())
    fmt = [] if path.suffix else ["--format", "md"]
    written = padtui(tmp_path, folder, "compact", "./" + name, "--budget", str(budget), "--write")
    assert written.returncode == 0, written.stdout + written.stderr
    after = rules(tmp_path, path) | {
        r["text"]
        for r in report(tmp_path, folder, "check", "./" + name, "--budget", "0")["rules_at_risk"]
    }
    assert all_rules <= after | sealed_rules(path)
    new = tmp_path / ("new" + old.suffix)
    new.write_bytes(path.read_bytes())
    verdict = report(tmp_path, tmp_path, "audit", *fmt, str(old), str(new))["verdict"]
    assert verdict != "corruption"


def sealed_rules(path: Path) -> set[str]:
    """The rules of the sealed entries (which ``rules_at_risk`` leaves out)."""
    from padtui.core import formats
    from padtui.core.rules.finder import find_rules

    pad = formats.load(str(path)).pad
    return {r.text for r in find_rules(pad) if pad.entries[r.entry].sealed}
