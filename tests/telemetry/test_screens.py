"""The inspector and the fleet export each version they take in (the first as ``initial``,
each later one with its audit's verdict)."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from padtui.tui.fleet import FleetApp
from tests.telemetry.conftest import NEW, OLD, Spans, evaluation, write_pad
from tests.tui.conftest import SIZE, WAIT, Harness, fixed_clock, inspector, write_atomic


def _verdicts(spans: Spans, source: str) -> list[tuple[int, str, float | None]]:
    return [
        (
            s.attributes["padtui.version"],
            evaluation(s)["gen_ai.evaluation.score.label"],
            evaluation(s).get("gen_ai.evaluation.score.value"),
        )
        for s in spans()
        if s.attributes["padtui.source"] == source
    ]


async def test_the_inspector_exports_each_version_it_takes_in(
    spans: Spans, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from padtui.core.rules import finder as rules

    counted_on: list[str] = []  # (the rules lost are counted off the screen's thread)
    find_rules = rules.find_rules

    def counting(*args: Any, **kwargs: Any) -> Any:
        counted_on.append(threading.current_thread().name)
        return find_rules(*args, **kwargs)

    monkeypatch.setattr(rules, "find_rules", counting)
    pad = write_pad(tmp_path / "pad.json", OLD)
    async with inspector(pad) as h:
        write_atomic(pad, json.dumps(NEW))
        await h.until(lambda: len(h.app.inspection.versions) == 2, "the rewrite taken in")
        await h.until(lambda: len(spans()) == 2, "both versions exported")
    first, second = spans()
    assert (
        first.attributes["gen_ai.memory.store.id"]
        == second.attributes["gen_ai.memory.store.id"]
        == str(pad)
    )
    assert _verdicts(spans, "inspector") == [(1, "initial", None), (2, "corruption", 1 / 3)]
    assert second.attributes["padtui.origin"] == "agent"
    assert counted_on == ["padtui-verdicts"]


async def test_the_fleet_exports_each_version_it_takes_in(spans: Spans, tmp_path: Path) -> None:
    folder = tmp_path / "pads"
    folder.mkdir()
    pad = write_pad(folder / "pad.json", OLD)
    app = FleetApp(str(folder), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.fleet_ready.wait(), WAIT)
        write_atomic(pad, json.dumps(NEW))
        watch = Harness(app, pilot)  # type: ignore[arg-type]  # (its wait, on the fleet)
        await watch.until(lambda: len(_verdicts(spans, "fleet")) == 2, "both versions exported")
    assert _verdicts(spans, "fleet") == [(1, "initial", None), (2, "corruption", 1 / 3)]


class Refusing:
    """A collector that refuses every batch."""

    def export(self, spans: object) -> object:
        from opentelemetry.sdk.trace.export import SpanExportResult

        return SpanExportResult.FAILURE

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


async def test_a_collector_that_refuses_is_one_notice_on_the_screen(
    spans: Spans, tmp_path: Path
) -> None:
    from padtui import telemetry

    telemetry.use(Refusing())  # (in place of the fixture's exporter)
    pad = write_pad(tmp_path / "pad.json", OLD)
    async with inspector(pad) as h:
        write_atomic(pad, json.dumps(NEW))
        await h.until(lambda: len(h.app.inspection.versions) == 2, "the rewrite taken in")
        await asyncio.to_thread(telemetry.flush)  # (the batch leaves, from another thread)
        await h.until(lambda: h.noted("telemetry not sent"), "the notice")
        write_atomic(pad, json.dumps(OLD))
        await h.until(lambda: len(h.app.inspection.versions) == 3, "the next version")
        await asyncio.to_thread(telemetry.flush)
        await h.pilot.pause()
    assert len(h.noted("telemetry not sent")) == 1  # once, not once a batch
