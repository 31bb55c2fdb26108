"""The screen's thread draws first: a task for a worker thread waits to start while a frame
is being drawn.

The fleet's readers audit each new version of a pad in a worker thread, and the inspector
examines each of its own there: Python work that shares the interpreter's lock with the
screen's thread, in turns of the switch interval (``app.SWITCH_INTERVAL``). A frame drawn
while they work took about twice its CPU time (``bench/bench_fleet.py``: 20 ms at the median
for 9 of CPU), and a key waited for it. A task wrapped by ``after_frame`` waits, in its worker
thread, for the frame being drawn to be done before it starts (tasks already running go on),
at most ``WAIT`` seconds: a screen that draws without a pause holds up no work for longer.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from functools import wraps
from typing import ParamSpec, TypeVar

from textual.screen import Screen

WAIT = 0.05  # seconds a task waits at most for a frame to be drawn

_P = ParamSpec("_P")
_T = TypeVar("_T")

_idle = threading.Event()  # set while no frame is being drawn
_idle.set()
_depth = 0  # frames being drawn (one at a time: the screen's thread draws them)


@contextlib.contextmanager
def drawing() -> Iterator[None]:
    """A frame being drawn: tasks wrapped by ``after_frame`` wait to start meanwhile."""
    global _depth
    _depth += 1
    _idle.clear()
    try:
        yield
    finally:
        _depth -= 1
        if not _depth:
            _idle.set()


def after_frame(task: Callable[_P, _T]) -> Callable[_P, _T]:
    """``task``, made to wait before it starts for the frame being drawn, if one is (for a
    worker thread: ``asyncio.to_thread(after_frame(task), ...)``)."""

    @wraps(task)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        _idle.wait(WAIT)
        return task(*args, **kwargs)

    return run


class DrawsFirst(Screen[None]):
    """A screen whose frames hold back the tasks wrapped by ``after_frame`` while they are
    drawn."""

    def _compositor_refresh(self) -> None:
        with drawing():
            super()._compositor_refresh()
