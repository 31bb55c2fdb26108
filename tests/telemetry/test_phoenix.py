"""A real OTLP receiver: Arize Phoenix on the loopback takes the verdict of ``padtui audit``
and gives it back through its own REST API.

Phoenix is large (a server, a database, a web app), so it lives in a virtual environment of
its own, named by ``PADTUI_PHOENIX`` (its ``phoenix`` program; else ``phoenix`` on the PATH);
``.ci/run`` makes one and runs this with ``PADTUI_REQUIRE_PHOENIX=1``, so that there a missing
Phoenix fails rather than skips."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.telemetry.conftest import NEW, OLD, OTEL_VARS, export_log, sent_off, until, write_pad

STARTUP = 240.0  # seconds: Phoenix migrates its database and builds its app as it starts
ARRIVAL = 60.0  # seconds for a span sent to be listed

# ``phoenix serve``, its OTLP gRPC receiver bound to the loopback too (Phoenix binds it to every
# address, ``[::]``, whatever PHOENIX_HOST says; the HTTP one, which padtui sends to, follows it)
SERVE = """
import sys
import grpc.aio
from grpc.aio import _server

def on_loopback(add):
    return lambda self, address, *rest: add(self, address.replace("[::]", "127.0.0.1"), *rest)

_server.Server.add_insecure_port = on_loopback(_server.Server.add_insecure_port)
from phoenix.server.main import main
sys.argv = ["phoenix", "serve"]
sys.exit(main())
"""


def phoenix_python() -> str | None:
    """The Python of the environment Phoenix is installed in (beside its ``phoenix``)."""
    named = os.environ.get("PADTUI_PHOENIX") or shutil.which("phoenix")
    if not named or not os.access(named, os.X_OK):
        return None
    python = Path(named).resolve().parent / "python"
    return str(python) if os.access(python, os.X_OK) else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            body = answer.read()
            return answer.status, json.loads(body) if body[:1] in (b"{", b"[") else body
    except urllib.error.HTTPError as exc:
        return exc.code, None
    except (OSError, ValueError):
        return 0, None


def up(server: subprocess.Popen[bytes], log: Path) -> Callable[[], str | None]:
    """Why phoenix will answer no more (it exited), with what it said; else None."""

    def ended() -> str | None:
        if server.poll() is None:
            return None
        return f"phoenix exited ({server.returncode}):\n{log.read_text()[-3000:]}"

    return ended


@pytest.fixture
def phoenix(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    python = phoenix_python()
    if python is None:
        if os.environ.get("PADTUI_REQUIRE_PHOENIX") == "1":
            pytest.fail("PADTUI_REQUIRE_PHOENIX=1 but no phoenix program (PADTUI_PHOENIX)")
        pytest.skip("Arize Phoenix is not installed (see .ci/run: PADTUI_PHOENIX)")
    port, grpc = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "PHOENIX_"))}
    env.update(
        PHOENIX_HOST="127.0.0.1",
        PHOENIX_PORT=str(port),
        PHOENIX_GRPC_PORT=str(grpc),
        PHOENIX_WORKING_DIR=str(tmp_path / "phoenix"),
        PHOENIX_TELEMETRY_ENABLED="false",
    )
    log = tmp_path / "phoenix.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [python, "-c", SERVE],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    try:
        base = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            return get(f"{base}/healthz")[0] == 200

        until(healthy, "phoenix to be up", STARTUP, ended=up(server, log))
        yield base, server, log
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)


def test_phoenix_receives_the_verdict_of_an_audit(
    phoenix: tuple[str, subprocess.Popen[bytes], Path], tmp_path: Path
) -> None:
    base, server, log = phoenix
    state = tmp_path / "state"
    old = write_pad(tmp_path / "old.json", OLD)
    new = write_pad(tmp_path / "new.json", NEW)
    env = {k: v for k, v in os.environ.items() if k not in OTEL_VARS}
    env.update(
        OTEL_EXPORTER_OTLP_ENDPOINT=base,
        OTEL_EXPORTER_OTLP_TIMEOUT="10",
        XDG_STATE_HOME=str(state),
    )
    done = subprocess.run(
        [sys.executable, "-m", "padtui", "audit", str(old), str(new)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr  # corruption, as without telemetry
    assert done.stderr == ""  # (the command does not wait for the export: nothing to say)

    def ours() -> list[dict[str, Any]]:
        status, body = get(f"{base}/v1/projects/default/spans?limit=100")
        if status != 200 or not isinstance(body, dict):
            return []
        return [
            s
            for s in body.get("data", [])
            if s.get("attributes", {}).get("gen_ai.memory.store.id") == str(new)
        ]

    spans = until(ours, "the audit's span", ARRIVAL, ended=up(server, log))
    assert len(spans) == 1
    span = spans[0]
    assert span["name"] == "update_memory"
    attributes = span["attributes"]
    assert attributes["gen_ai.operation.name"] == "update_memory"
    assert attributes["padtui.source"] == "audit"
    assert attributes["padtui.verdict"] == "corruption"
    assert "CONSTRAINT_DROPPED" in attributes["padtui.findings.codes"]
    events = [e for e in span["events"] if e["name"] == "gen_ai.evaluation.result"]
    assert len(events) == 1
    result = events[0]["attributes"]
    assert result["gen_ai.evaluation.name"] == "padtui.memory_fidelity"
    assert result["gen_ai.evaluation.score.label"] == "corruption"
    assert result["gen_ai.evaluation.score.value"] == pytest.approx(1 / 3)
    assert "c-retry" in result["gen_ai.evaluation.explanation"]
    # the sender, once done, removed its spool and logged no failure
    until(lambda: sent_off(state), "the sender to finish", ARRIVAL)
    assert export_log(state) == ""
