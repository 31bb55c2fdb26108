"""The core and the headless commands never import Textual (each checked in a fresh
interpreter), so scripts, CI and agents that use them start fast and need no terminal."""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import padtui.core

CORE = sorted(f"padtui.core.{m.name}" for m in pkgutil.iter_modules(padtui.core.__path__))
HEADLESS = ["padtui.core", *CORE, "padtui", "padtui.cli", "padtui.report"]

REPORT = """
import json, sys
print(json.dumps(sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))))
"""


def textual_modules_after(code: str, state: Path | None = None) -> list[str]:
    env = dict(os.environ)
    if state is not None:  # whatever the commands keep goes here, not in the user's folders
        env["XDG_STATE_HOME"] = str(state)
    done = subprocess.run(
        [sys.executable, "-c", code + REPORT],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_the_core_has_modules_to_check() -> None:
    assert {"padtui.core.compaction", "padtui.core.formats", "padtui.core.tokens"} <= set(CORE)


@pytest.mark.parametrize("module", HEADLESS)
def test_importing_does_not_load_textual(module: str) -> None:
    assert textual_modules_after(f"import importlib; importlib.import_module({module!r})\n") == []


def test_headless_commands_do_not_load_textual(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    new = tmp_path / "new.json"
    old.write_text('[{"kind": "constraint", "text": "never X", "id": "c"}]', encoding="utf-8")
    new.write_text('[{"kind": "note", "text": "do X"}]', encoding="utf-8")
    code = f"""
import contextlib, io
from padtui.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    assert main(["check", {str(old)!r}, "--budget", "1", "--json"]) == 1
    assert main(["compact", {str(old)!r}]) == 0
    assert main(["audit", {str(old)!r}, {str(new)!r}, "--json"]) == 1
"""
    assert textual_modules_after(code, tmp_path / "state") == []


def test_the_check_would_see_textual() -> None:
    """The probe itself works: a module that does import Textual is caught."""
    assert "textual" in textual_modules_after("import textual.app\n")
