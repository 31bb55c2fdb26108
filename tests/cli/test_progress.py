"""Headless work that takes more than a second shows its progress on a terminal, and only
there: one line on standard error, wiped when the work is done."""

from __future__ import annotations

import io
import threading

from padtui.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def wait_for(condition: threading.Event, what: str) -> None:
    assert condition.wait(10), f"timed out waiting for {what}"


class Watched(Terminal):
    """A terminal that says when a line has been drawn on it."""

    def __init__(self) -> None:
        super().__init__()
        self.drawn = threading.Event()

    def write(self, text: str) -> int:
        n = super().write(text)
        if "…" in text:
            self.drawn.set()
        return n


def test_long_work_on_a_terminal_shows_what_and_how_far_then_wipes_the_line() -> None:
    stream = Watched()
    with Progress("reading the history of pad\x1b[2J.json", total=3, stream=stream, delay=0) as p:
        p.advance(2)
        wait_for(stream.drawn, "the progress line")
    out = stream.getvalue()
    assert "reading the history of pad[2J.json" in out  # the escape character is gone
    assert "\x1b[2J" not in out
    assert "/3…" in out
    assert out.endswith("\r\x1b[K")  # wiped: what the command prints next starts clean


def test_nothing_is_drawn_off_a_terminal_or_for_short_work() -> None:
    pipe = io.StringIO()  # a pipe or a CI log
    with Progress("checking pad.json", stream=pipe, delay=0) as p:
        assert p._thread is None  # nothing that could draw later was started
    assert pipe.getvalue() == "" and p.drawn == 0
    terminal = Terminal()
    with Progress("checking pad.json", stream=terminal):  # done well within the second
        pass
    assert terminal.getvalue() == ""
