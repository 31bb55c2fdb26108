"""Progress of headless work that takes more than a second: one line on standard error.

Only on a terminal (a pipe or a CI log gets nothing), only after the work has taken a second
(short work shows nothing), and the line is wiped when the work ends, so that what the
command prints afterwards starts on a clean line.
"""

from __future__ import annotations

import sys
import threading
from types import TracebackType
from typing import TextIO

from padtui.core.text import one_line

DELAY = 1.0  # seconds of work before the line appears
EVERY = 0.1  # seconds between redraws


class Progress:
    """``with Progress("reading history", total=n) as p: ... p.advance()``."""

    def __init__(
        self,
        what: str,
        total: int | None = None,
        *,
        stream: TextIO | None = None,
        delay: float = DELAY,
    ) -> None:
        self.what = one_line(what, 60)  # names come from the user's files: one clean line
        self.total = total
        self.done = 0
        self.drawn = 0  # times the line was drawn
        self._stream = stream if stream is not None else sys.stderr
        self._delay = delay
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def advance(self, n: int = 1) -> None:
        self.done += n

    def line(self) -> str:
        count = f" {self.done}/{self.total}" if self.total is not None else ""
        return f"{self.what}{count}…"

    def __enter__(self) -> Progress:
        if _is_terminal(self._stream):
            self._thread = threading.Thread(target=self._run, name="padtui-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.drawn:
            self._write("\r\x1b[K")

    def _run(self) -> None:
        if self._stop.wait(self._delay):
            return
        while not self._stop.is_set():
            self._write(f"\r\x1b[K{self.line()}")
            self.drawn += 1
            self._stop.wait(EVERY)

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: progress is not worth failing
            self._stop.set()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
