"""An unreachable collector costs at most the exporter's timeout and one line on standard
error; the output and the exit code are those of a run without telemetry."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from padtui import telemetry
from tests.telemetry.conftest import NEW, OLD, OTEL_VARS, write_pad


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(args: list[str], **env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    clean = {k: v for k, v in os.environ.items() if k not in OTEL_VARS}
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "padtui", *args],
        capture_output=True,
        text=True,
        env={**clean, **env},
        timeout=120,
        check=False,
    )
    return done, time.monotonic() - start


def test_a_closed_port_changes_nothing_but_one_line_within_the_timeout(tmp_path: Path) -> None:
    old = write_pad(tmp_path / "old.json", OLD)
    new = write_pad(tmp_path / "new.json", NEW)
    args = ["audit", str(old), str(new)]
    plain, plain_took = run(args, XDG_STATE_HOME=str(tmp_path / "state"))
    timeout = 2.0
    sent, took = run(
        args,
        XDG_STATE_HOME=str(tmp_path / "state"),
        OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{closed_port()}",
        OTEL_EXPORTER_OTLP_TIMEOUT=str(timeout),
    )
    assert plain.returncode == sent.returncode == 1
    assert sent.stdout == plain.stdout
    assert plain.stderr == ""
    lines = sent.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "padtui: telemetry not sent to http://127.0.0.1:"
    )
    assert "Traceback" not in sent.stderr
    # the timeout, and the import of the SDK (a second at most, even on a busy machine)
    assert took - plain_took < timeout + 1.5


def test_a_hook_with_a_closed_port_says_what_it_says_and_exits_0(tmp_path: Path) -> None:
    from tests.claude.sessions import DROPPED, Session

    session = Session(tmp_path)
    session.conversation()
    session.compact(DROPPED)
    event = session.event("PostCompact", trigger="auto", compact_summary=DROPPED)
    env = {k: v for k, v in session.env().items() if k not in OTEL_VARS}
    env["PADTUI_CLAUDE_MANAGED"] = str(tmp_path / "managed" / "CLAUDE.md")
    args = [sys.executable, "-m", "padtui", "claude", "post-compact"]

    def hook(**more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args,
            input=json.dumps(event),
            capture_output=True,
            text=True,
            env={**env, **more},
            cwd=session.project,
            timeout=120,
            check=False,
        )

    plain = hook()
    sent = hook(
        OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{closed_port()}",
        OTEL_EXPORTER_OTLP_TIMEOUT="1",
    )
    assert plain.returncode == sent.returncode == 0
    assert json.loads(sent.stdout) == json.loads(plain.stdout)  # the same notice
    extra = [line for line in sent.stderr.splitlines() if line not in plain.stderr.splitlines()]
    assert len(extra) == 1 and extra[0].startswith("padtui: telemetry not"), sent.stderr
    assert "Traceback" not in sent.stderr


class Stuck:
    """An exporter whose collector never answers (until the test lets it go)."""

    def __init__(self) -> None:
        self.free = threading.Event()

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        self.free.wait(60)
        return SpanExportResult.FAILURE

    def shutdown(self) -> None:
        self.free.set()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def test_the_exit_waits_no_longer_than_the_timeout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("opentelemetry.sdk")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "0.5")
    stuck = Stuck()
    telemetry.use(stuck)
    try:
        telemetry.report_verdict("pad.json", "corruption", source="test", score=0.0)
        start = time.monotonic()
        telemetry.finish()
        took = time.monotonic() - start
    finally:
        stuck.free.set()
        telemetry.stop()
    assert took < 0.5 + 0.2 + 0.5
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "telemetry not all sent within 0.5 s" in err[0]


def test_an_endpoint_without_the_extra_is_one_line_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    telemetry.stop()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)
    try:
        telemetry.report_verdict("pad.json", "corruption", source="test")
        assert not telemetry.enabled()
        telemetry.finish()
    finally:
        telemetry.stop()
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "padtui: OTEL_EXPORTER_OTLP_ENDPOINT is set but the otel extra is not installed "
        "(pip install 'padtui[otel]'): nothing exported"
    ]
