"""The core and the headless commands never import Textual (each checked in a fresh
interpreter), so scripts, CI and agents that use them start fast and need no terminal."""

from __future__ import annotations

import ast
import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import padtui.core

CORE = sorted(m.name for m in pkgutil.walk_packages(padtui.core.__path__, "padtui.core."))
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
    assert {
        "padtui.core.compaction.plan",
        "padtui.core.formats",
        "padtui.core.counting.tokens",
    } <= set(CORE)


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


# --- the layers, read from the source (every import, those inside functions and for type
# checking too) -------------------------------------------------------------------------

PACKAGE = Path(padtui.core.__file__).parents[1]  # .../padtui
FRONT_ENDS = (
    "padtui.tui",
    "padtui.cli",
    "padtui.mcp_server",
    "padtui.report",
    "padtui.gate",
    "padtui.progress",
    "padtui.claude",
    "padtui.telemetry",
    "padtui.__main__",
)
# what a format may build on: the records, the errors, the text helpers (never the audit,
# compaction, the store or the journal, which build on the formats)
BELOW_FORMATS = (
    "padtui.core.formats",
    "padtui.core.model",
    "padtui.core.errors",
    "padtui.core.text",
    "padtui.core.sequences.ends",
)


def imports_of(path: Path) -> set[str]:
    """Every module a source file imports: ``from a.b import c`` is ``a.b`` and ``a.b.c``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def sources(folder: str) -> list[Path]:
    found = sorted((PACKAGE / folder).rglob("*.py"))
    assert found
    return found


def test_the_core_never_imports_a_front_end() -> None:
    wrong = {
        f"{path.relative_to(PACKAGE)}: {module}"
        for path in sources("core")
        for module in imports_of(path)
        if within(module, FRONT_ENDS) or module == "textual" or module.startswith("textual.")
    }
    assert not wrong


def test_the_formats_build_only_on_the_records_below_them() -> None:
    wrong = {
        f"{path.relative_to(PACKAGE)}: {module}"
        for path in sources("core/formats")
        for module in imports_of(path)
        if within(module, ("padtui",))
        and module not in ("padtui", "padtui.core")
        and not within(module, BELOW_FORMATS)
    }
    assert not wrong


def test_the_layer_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    """The probe itself works: a lazy import for type checking or in a function is seen."""
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from padtui.core.compaction.plan import Plan\n"
        "def f():\n    from padtui.cli import main\n"
    )
    assert {"padtui.core.compaction.plan.Plan", "padtui.cli.main"} <= imports_of(module)


# storage: the file I/O, the lock, the commit (the store) and the journal build on the
# formats and the records; the compaction, the audit and what seals entries build on them
STORAGE = ("fsio", "lock", "store", "journal", "names")
ABOVE_STORAGE = (
    "padtui.core.compaction.plan",
    "padtui.core.compaction.sealing",
    "padtui.core.audit.rewrite",
    "padtui.core.live.inspection",
    "padtui.core.history.versions",
)


def test_the_journal_stores_versions_and_judges_none() -> None:
    """The audit of a pad's versions is the history's (core/history/), not the journal's."""
    judging = (
        "padtui.core.audit.rewrite",
        "padtui.core.counting.tokens",
        "padtui.core.rules.finder",
    )
    wrong = {
        m for m in imports_of(PACKAGE / "core" / "storage" / "journal.py") if within(m, judging)
    }
    assert not wrong


@pytest.mark.parametrize("module", STORAGE)
def test_storage_never_imports_what_builds_on_it(module: str) -> None:
    wrong = {
        m
        for m in imports_of(PACKAGE / "core" / "storage" / f"{module}.py")
        if within(m, ABOVE_STORAGE)
    }
    assert not wrong


def test_the_core_holds_no_agent_of_its_own() -> None:
    """The scripted demo agent writes its pad like any client; it is no part of the core."""
    scripted = {m for m in CORE if "scenario" in m or "demo" in m or m.endswith("_agent")}
    assert not scripted
    assert not {m for m in imports_of(PACKAGE / "demo_agent.py") if within(m, ("padtui.core",))}


# --- importing changes nothing in the process: an app that embeds padtui keeps its collector
# and its switch interval (the TUI sets them as it starts, and puts them back as it ends)

PROCESS_STATE = """
import gc, signal, sys
def state():
    handlers = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
    return (gc.isenabled(), gc.get_freeze_count(), gc.get_threshold(), sys.getswitchinterval(),
            sys.getrecursionlimit(), handlers)
before = state()
import importlib, pkgutil, padtui
for found in pkgutil.walk_packages(padtui.__path__, "padtui."):
    if found.name != "padtui.__main__":  # (that one runs the command line)
        importlib.import_module(found.name)
"""


def process_state_kept(then: str = "") -> bool:
    code = PROCESS_STATE + then + "print(state() == before)\n"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1] == "True"


def test_importing_padtui_changes_nothing_in_the_process() -> None:
    assert process_state_kept()


@pytest.mark.parametrize(
    "change", ["gc.freeze()\n", "sys.setswitchinterval(0.001)\n", "gc.disable()\n"]
)
def test_the_process_check_would_see_a_change(change: str) -> None:
    assert not process_state_kept(change)


# the layers of ARCHITECTURE.md, lowest first: a module imports its own layer or lower ones
LAYERS = (
    ("model", "vocabulary", "errors", "text", "sequences"),
    ("formats",),
    ("storage",),
    ("rules",),
    ("counting",),  # (the cache keeps tokens, claims, rules per text)
    ("audit",),
    ("compaction",),
    ("history", "live", "agents"),
    ("memory",),
)


def layer_of(module: str) -> int | None:
    """The layer of a core module (or a name in it), None for what is not core."""
    parts = module.split(".")
    if parts[:2] != ["padtui", "core"] or len(parts) < 3:
        return None
    return next((i for i, names in enumerate(LAYERS) if parts[2] in names), None)


def test_every_core_module_has_a_layer() -> None:
    assert {m.split(".")[2] for m in CORE} == {name for names in LAYERS for name in names}


def test_imports_go_down_the_layers() -> None:
    wrong = set()
    for path in sources("core"):
        rel = path.relative_to(PACKAGE).with_suffix("")
        own = layer_of(".".join(("padtui", *rel.parts)))
        for module in imports_of(path):
            other = layer_of(module)
            if own is not None and other is not None and other > own:
                wrong.add(f"{rel}: {module}")
    assert not wrong


# --- OpenTelemetry: imported only to export, and only with an endpoint set (SPEC §11) ---------

OTEL_REPORT = """
import json, sys
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "opentelemetry")))
"""


def otel_modules_after(code: str, tmp_path: Path, **env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", code + OTEL_REPORT],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**clean, "XDG_STATE_HOME": str(tmp_path / "state"), **env},
    )
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


AUDIT = """
import contextlib, io, pathlib
from padtui.cli import main
old, new = pathlib.Path({old!r}), pathlib.Path({new!r})
old.write_text('[{{"kind": "constraint", "text": "never X", "id": "c"}}]', encoding="utf-8")
new.write_text('[{{"kind": "note", "text": "do X"}}]', encoding="utf-8")
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    assert main(["audit", str(old), str(new)]) == 1
    assert main(["check", str(old), "--budget", "1"]) == 1
"""


def test_importing_padtui_never_imports_the_opentelemetry_sdk(tmp_path: Path) -> None:
    """(The MCP SDK imports OpenTelemetry's API for its own tracing, which stays off: padtui
    never sets the global tracer provider.)"""
    walk = PROCESS_STATE.replace("before = state()", "")
    loaded = otel_modules_after(walk, tmp_path)
    assert not [m for m in loaded if m.startswith(("opentelemetry.sdk", "opentelemetry.exporter"))]


def test_commands_without_an_endpoint_never_import_opentelemetry(tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.sdk")  # (installed, and still not imported)
    code = AUDIT.format(old=str(tmp_path / "old.json"), new=str(tmp_path / "new.json"))
    assert otel_modules_after(code, tmp_path) == []


def test_commands_with_an_endpoint_leave_the_sdk_to_their_sender(tmp_path: Path) -> None:
    """``check`` and ``audit`` hand their verdicts to a sender process: theirs never imports
    the SDK (a closed port: the sender says so in one line, which the command tells)."""
    pytest.importorskip("opentelemetry.sdk")
    code = AUDIT.format(old=str(tmp_path / "old.json"), new=str(tmp_path / "new.json"))
    code += "from padtui import telemetry; telemetry.stop()\n"
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_EXPORTER_OTLP_TIMEOUT": "1"}
    assert otel_modules_after(code, tmp_path, **env) == []


def test_the_otel_check_would_see_an_import_in_process(tmp_path: Path) -> None:
    """The probe itself works: a verdict exported in process imports the SDK."""
    pytest.importorskip("opentelemetry.sdk")
    code = (
        "from padtui import telemetry\n"
        "telemetry.report_verdict('pad.json', 'growth', source='probe')\n"
        "assert telemetry.enabled()\n"
        "telemetry.on_problem(lambda line: None)\n"  # (a closed port: nothing to say here)
    )
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_EXPORTER_OTLP_TIMEOUT": "1"}
    assert "opentelemetry.sdk.trace" in otel_modules_after(code, tmp_path, **env)


def test_the_core_is_a_few_rooms_by_concern() -> None:
    """A newcomer finds their room: at most 16 modules at the core's top level, each package
    saying in its docstring what it holds."""
    top = list(pkgutil.iter_modules(padtui.core.__path__))
    assert len(top) <= 16
    for found in top:
        if found.ispkg:
            assert importlib.import_module(f"padtui.core.{found.name}").__doc__
