"""The SDK's in-memory exporter behind padtui's telemetry, pads to audit, and a wait on what
another process does."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from padtui import telemetry

memory = pytest.importorskip(
    "opentelemetry.sdk.trace.export.in_memory_span_exporter",
    reason="needs the otel extra (pip install 'padtui[otel]')",
)

OTEL_VARS = (*telemetry.ENDPOINTS, *telemetry.TIMEOUTS, "OTEL_SDK_DISABLED")

BILLING = "Never call the billing API from a test run."
RETRY = "Do not retry a write after a 5xx; the write may have landed."
OLD = [
    {"kind": "constraint", "text": BILLING, "id": "c-billing"},
    {"kind": "constraint", "text": RETRY, "id": "c-retry"},
    {"kind": "note", "text": "The export job runs nightly at 02:00 UTC.", "id": "n-export"},
]
NEW = [e for e in OLD if e["id"] != "c-retry"]  # a rule gone, declared nowhere


Spans = Callable[[], list[Any]]


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[Spans]:
    """Every verdict exported from now on, read back as the SDK's finished spans."""
    for name in OTEL_VARS:
        monkeypatch.delenv(name, raising=False)
    exporter = memory.InMemorySpanExporter()
    telemetry.use(exporter)

    def finished() -> list[Any]:
        telemetry.flush()
        return list(exporter.get_finished_spans())

    yield finished
    telemetry.stop()


def write_pad(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(entries, indent=1) + "\n", encoding="utf-8")
    return path


def evaluation(span: Any) -> dict[str, Any]:
    """The attributes of the span's one ``gen_ai.evaluation.result`` event."""
    found = [e for e in span.events if e.name == "gen_ai.evaluation.result"]
    assert len(found) == 1, span.events
    return dict(found[0].attributes)


T = TypeVar("T")


def until(
    condition: Callable[[], T],
    what: str,
    timeout: float,
    *,
    ended: Callable[[], str | None] = lambda: None,
) -> T:
    """What ``condition()`` gives once it holds (asked every 50 ms: the other process sends
    no signal to wait on); the test fails after ``timeout`` seconds, or at once when
    ``ended()`` says why it never will (a server that exited)."""
    deadline = time.monotonic() + timeout
    while True:
        got = condition()
        if got:
            return got
        why = ended()
        if why is not None:
            pytest.fail(f"{why} before {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.05)


def sent_off(state: Path) -> bool:
    """Whether every sender started under ``state`` (an ``XDG_STATE_HOME``) is done: its spool
    removed."""
    return not list((state / "padtui" / "telemetry").glob("*.jsonl"))


def export_log(state: Path) -> str:
    log = state / "padtui" / "telemetry" / telemetry.LOG
    return log.read_text(encoding="utf-8") if log.exists() else ""
