"""Without the mcp package, the core and the other commands work as before, and
``padtui mcp`` says in one line what to install (each checked in a fresh interpreter)."""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import padtui.core

from .conftest import make_pad

CORE = sorted(f"padtui.core.{m.name}" for m in pkgutil.iter_modules(padtui.core.__path__))

BLOCK_MCP = "import sys\nsys.modules['mcp'] = None  # as if the extra were not installed\n"


def run(code: str, state: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "XDG_STATE_HOME": str(state)},
    )


def test_the_core_and_the_commands_need_no_mcp(tmp_path: Path) -> None:
    pad = make_pad(tmp_path)
    code = (
        BLOCK_MCP
        + f"""
import contextlib, importlib, io, json
for name in {[*CORE, "padtui.cli", "padtui.report"]!r}:
    importlib.import_module(name)
from padtui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["check", {str(pad)!r}, "--json"]) == 0
    assert main(["compact", {str(pad)!r}, "--write"]) == 0
loaded = [m for m, mod in sys.modules.items() if mod is not None]
print(json.dumps(sorted(m for m in loaded if m.split(".")[0] in ("mcp", "pydantic"))))
"""
    )
    done = run(code, tmp_path / "state")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_padtui_mcp_without_the_extra_says_what_to_install(tmp_path: Path) -> None:
    pad = make_pad(tmp_path)
    code = (
        BLOCK_MCP + f"from padtui.cli import main\nraise SystemExit(main(['mcp', {str(pad)!r}]))\n"
    )
    done = run(code, tmp_path / "state")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "padtui: error: padtui mcp needs the mcp extra: pip install 'padtui[mcp]'\n"
    )
