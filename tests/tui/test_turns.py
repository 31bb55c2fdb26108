"""The screen's thread draws first (padtui/tui/turns.py): a worker's task waits to start while
a frame is being drawn, never for long, and the fleet's audits and the inspector's
examinations of new versions are such tasks."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual._compositor import Compositor

from padtui.tui import turns
from tests.tui.conftest import WAIT, copy_sample, inspector, write_atomic
from tests.tui.test_fleet import RETRY, doc_of, fleet


class Gate(threading.Event):
    """The gate of ``turns``, telling when a task waits at it (and in which thread)."""

    def __init__(self) -> None:
        super().__init__()
        self.set()
        self.waiting = threading.Event()
        self.threads: list[str] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.threads.append(threading.current_thread().name)
        self.waiting.set()
        return super().wait(timeout)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Gate:
    watched = Gate()
    monkeypatch.setattr(turns, "_idle", watched)
    return watched


def test_a_task_waits_to_start_until_the_frame_is_drawn(
    gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "WAIT", 60.0)
    ran = threading.Event()
    task = turns.after_frame(ran.set)
    with turns.drawing():
        worker = threading.Thread(target=task)
        worker.start()
        assert gate.waiting.wait(WAIT), "the task did not wait for the frame"
        assert not ran.is_set()  # (held at the gate while the frame is drawn)
    assert ran.wait(WAIT), "the task did not start once the frame was drawn"
    worker.join(WAIT)


def test_a_screen_that_never_stops_drawing_holds_a_task_up_briefly(
    gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "WAIT", 0.01)
    ran = threading.Event()
    with turns.drawing():
        worker = threading.Thread(target=turns.after_frame(ran.set))
        worker.start()
        assert ran.wait(WAIT), "a task waited on a frame without end"
    worker.join(WAIT)


def test_with_no_frame_being_drawn_a_task_runs_at_once_with_its_arguments(gate: Gate) -> None:
    def task(a: int, *, b: int) -> int:
        return a * 10 + b

    assert turns.after_frame(task)(4, b=2) == 42
    assert gate.threads == [threading.current_thread().name]  # it looked, and went on


def test_the_gate_opens_once_the_outermost_frame_is_done_even_on_an_error(gate: Gate) -> None:
    with pytest.raises(RuntimeError), turns.drawing():
        with turns.drawing():
            pass
        assert not gate.is_set()  # (still drawing: the outer frame)
        raise RuntimeError("a frame that failed")
    assert gate.is_set()


def held_while_drawing(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether tasks were held, at each frame the compositor renders from now on."""
    seen: list[bool] = []
    render = Compositor.render_update

    def watched(compositor: Compositor, *args: Any, **kwargs: Any) -> Any:
        seen.append(not turns._idle.is_set())
        return render(compositor, *args, **kwargs)

    monkeypatch.setattr(Compositor, "render_update", watched)
    return seen


async def test_the_fleet_audits_a_new_version_after_the_frame_being_drawn(
    tmp_path: Path, gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    pad = copy_sample(tmp_path, RETRY)
    async with fleet(pad.parent) as f:
        held = held_while_drawing(monkeypatch)
        del gate.threads[:]
        doc = doc_of(pad)
        doc["entries"].append({"kind": "note", "text": "A new note.", "id": "n-new"})
        write_atomic(pad, json.dumps(doc, indent=2))
        await f.until(
            lambda: f.app.pads[RETRY].inspection.current.pad.entries[-1].id == "n-new",
            "the new version",
        )
        await f.until(lambda: held, "a frame")
        assert all(held)  # every frame drawn held the tasks back
        assert gate.threads, "the fleet's audit did not wait for a frame being drawn"
        assert threading.current_thread().name not in gate.threads  # (a worker thread's)
    assert gate.is_set()


async def test_the_inspector_examines_a_new_version_after_the_frame_being_drawn(
    tmp_path: Path, gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    pad = copy_sample(tmp_path, RETRY)
    async with inspector(pad) as h:
        held = held_while_drawing(monkeypatch)
        del gate.threads[:]
        doc = doc_of(pad)
        doc["entries"].append({"kind": "note", "text": "A new note.", "id": "n-new"})
        write_atomic(pad, json.dumps(doc, indent=2))
        await h.until(lambda: "n-new" in h.labels("rewritable"), "the new version on screen")
        assert held and all(held)
        assert gate.threads, "the inspector's examination did not wait for a frame"
        assert threading.current_thread().name not in gate.threads
    assert gate.is_set()
