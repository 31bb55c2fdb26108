"""An unreachable collector never changes a command's output or exit code: ``check`` and
``audit`` do not wait for their export, whose failure is logged and told by the next command
that exports; elsewhere it costs at most the exporter's timeout and one line on standard
error."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from padtui import telemetry
from tests.telemetry.conftest import NEW, OLD, OTEL_VARS, export_log, sent_off, until, write_pad


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


def test_a_closed_port_changes_nothing_and_its_failure_is_logged_then_told(
    tmp_path: Path,
) -> None:
    old = write_pad(tmp_path / "old.json", OLD)
    new = write_pad(tmp_path / "new.json", NEW)
    args = ["audit", str(old), str(new)]
    state = tmp_path / "state"
    plain, _ = run(args, XDG_STATE_HOME=str(state))
    endpoint = f"http://127.0.0.1:{closed_port()}"
    exporting = {
        "XDG_STATE_HOME": str(state),
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        "OTEL_EXPORTER_OTLP_TIMEOUT": "2",
    }
    sent, _ = run(args, **exporting)
    assert plain.returncode == sent.returncode == 1
    assert sent.stdout == plain.stdout
    assert plain.stderr == sent.stderr == ""  # (the command does not wait for the export)
    # the sender logs the failure in one line, within the exporter's timeout
    logged = until(lambda: sent_off(state) and export_log(state), "the failure logged", 60)
    lines = logged.splitlines()
    assert len(lines) == 1, logged
    assert f"padtui: telemetry not sent to {endpoint}: Connection refused" in lines[0]
    # the next command that exports tells it, once, in one line
    again, _ = run(args, **exporting)
    assert again.returncode == 1 and again.stdout == plain.stdout
    told = again.stderr.splitlines()
    assert len(told) == 1 and told[0].startswith("padtui: an export before this one failed at ")
    assert f"telemetry not sent to {endpoint}: Connection refused" in told[0]
    assert str(state / "padtui" / "telemetry" / "export.log") in told[0]
    assert "Traceback" not in sent.stderr + again.stderr + export_log(state)


def test_the_command_does_not_wait_for_the_collector(tmp_path: Path) -> None:
    """A collector that has not answered yet: the command exits all the same (it used to wait
    up to the exporter's timeout), and its sender delivers once the collector answers."""
    old = write_pad(tmp_path / "old.json", OLD)
    new = write_pad(tmp_path / "new.json", NEW)
    state = tmp_path / "state"
    with socket.socket() as collector:
        collector.bind(("127.0.0.1", 0))
        collector.listen()
        port = collector.getsockname()[1]
        done, took = run(
            ["audit", str(old), str(new)],
            XDG_STATE_HOME=str(state),
            OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{port}",
            OTEL_EXPORTER_OTLP_TIMEOUT="60",
        )
        assert done.returncode == 1 and done.stderr == ""
        assert took < 30  # (far below the timeout, however busy the machine)
        collector.settimeout(60)
        connection, _ = collector.accept()  # (the sender, after the command has exited)
        with connection:
            body = answer_ok(connection)
    assert b"update_memory" in body and str(new).encode() in body
    until(lambda: sent_off(state), "the sender to finish", 60)
    assert export_log(state) == ""


def answer_ok(connection: socket.socket) -> bytes:
    """Read one OTLP/HTTP request and answer it 200; its body."""
    connection.settimeout(60)
    received = b""
    while b"\r\n\r\n" not in received:
        received += connection.recv(65536)
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += connection.recv(65536)
    connection.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\n"
        b"Content-Length: 0\r\nConnection: close\r\n\r\n"
    )
    return body


def test_a_sender_that_cannot_start_is_one_line_and_no_spool_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    telemetry.stop()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))

    def detached() -> None:
        telemetry.prepare()
        telemetry.report_verdict("pad.json", "corruption", source="test", score=0.0)

    assert said_at_exit(detached, capsys) == [
        "padtui: telemetry not sent: the sender did not start (No such file or directory)"
    ]
    assert sent_off(tmp_path / "state")


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


def said_at_exit(report: Callable[[], None], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """What telemetry says on standard error at exit after ``report`` (reset after)."""
    try:
        report()
        telemetry.finish()
    finally:
        telemetry.stop()
    return capsys.readouterr().err.splitlines()


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

    def in_process() -> None:
        telemetry.report_verdict("pad.json", "corruption", source="test")
        assert not telemetry.enabled()

    assert said_at_exit(in_process, capsys) == [
        "padtui: OTEL_EXPORTER_OTLP_ENDPOINT is set but the otel extra is not installed "
        "(pip install 'padtui[otel]'): nothing exported"
    ]
