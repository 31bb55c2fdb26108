"""A harness for driving the inspector headless (``App.run_test``) on copies of sample pads."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.notifications import Notification, Notify
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from padtui.tui.app import PadApp, make_app
from padtui.tui.inspector import InspectorScreen
from padtui.tui.widgets import EntryPane

SAMPLES = Path(__file__).resolve().parents[2] / "sample_pads"
SIZE = (160, 45)
FIXED_NOW = datetime(2026, 11, 14, 3, 30, 0, tzinfo=UTC)
WAIT = 10.0  # seconds: the bound on any wait for the watcher (a hung test fails, not hangs)


def fixed_clock() -> datetime:
    return FIXED_NOW


@pytest.fixture(autouse=True)
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Journals go under the test's folder, never into the real home."""
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state


def copy_sample(tmp_path: Path, name: str, as_name: str | None = None) -> Path:
    """A copy of a sample pad alone in its own folder (the folder the inspector watches)."""
    folder = tmp_path / "pads"
    folder.mkdir(exist_ok=True)
    dest = folder / (as_name or Path(name).name)
    shutil.copyfile(SAMPLES / name, dest)
    return dest


def write_atomic(path: Path, data: str | bytes) -> None:
    """Save as agents often do: a temporary file renamed over the pad."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.agent-tmp")
    tmp.write_bytes(raw)
    os.replace(tmp, path)


def write_in_place(path: Path, data: str | bytes) -> None:
    """Save by rewriting the pad's own inode (open with O_TRUNC, then write)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with open(path, "wb") as f:
        f.write(raw)


def plain(content: Any) -> str:
    """The text of a widget's content or of a pane's row, unstyled."""
    return content.plain if isinstance(content, Text) else str(content)


@dataclass
class Harness:
    app: PadApp
    pilot: Pilot[int]
    notes: list[Notification] = field(default_factory=list)
    seen: list[InspectorScreen.Seen] = field(default_factory=list)  # readings handed to the view

    @property
    def view(self) -> Screen[Any]:
        """The inspector's screen (under any dialog open over it), else the screen on top."""
        screen = getattr(self.app, "inspector", None)
        return screen if isinstance(screen, Screen) else self.app.screen

    @property
    def topbar(self) -> str:
        return plain(self.view.query_one("#topbar", Static).content)

    @property
    def status(self) -> str:
        return plain(self.view.query_one("#status", Static).content)

    @property
    def gauge(self) -> str:
        return plain(self.view.query_one("#gauge").render())

    def pane(self, which: str) -> EntryPane:
        return self.view.query_one(f"#{which}", EntryPane)

    def rows(self, which: str) -> list[str]:
        """The rows of a pane as shown (each: the head line, the text, a blank line)."""
        pane = self.pane(which)
        return [plain(pane.get_option_at_index(i).prompt) for i in range(pane.option_count)]

    def row(self, which: str, label: str) -> str:
        """The row of the entry named ``label`` (its head line names it after the kind)."""
        found = [r for r in self.rows(which) if f"  {label}  " in r.split("\n", 1)[0]]
        assert len(found) == 1, f"{label} in {which}: {found}"
        return found[0]

    def labels(self, which: str) -> list[str]:
        pane = self.pane(which)
        return [r.entry.label for r in pane.rows]

    def screen_text(self) -> str:
        """Every cell of the active screen as rendered (Textual's compositor, pinned version)."""
        return "\n".join(strip.text for strip in self.app.screen._compositor.render_strips())

    def dialog_text(self) -> str:
        """The plain text of every Static on the active screen."""
        return "\n".join(plain(s.content) for s in self.app.screen.query(Static))

    def noted(self, fragment: str) -> list[Notification]:
        return [n for n in self.notes if fragment in n.message or fragment in n.title]

    async def until(
        self, condition: Callable[[], object], what: str, timeout: float = WAIT
    ) -> None:
        """Let the app run until ``condition()`` holds; fail after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
            await self.pilot.pause(0.005)

    async def settle(self) -> None:
        """Let the commit workers finish and their results reach the screen (the watch worker
        runs as long as the app does: it is not waited on)."""
        writes = [w for w in self.app.workers if w.group == "write"]
        if writes:  # (an empty list would wait for every worker)
            await asyncio.wait_for(self.app.workers.wait_for_complete(writes), WAIT)
        await self.pilot.pause()


@asynccontextmanager
async def inspector(
    path: Path | str,
    *,
    size: tuple[int, int] = SIZE,
    toasts: bool = False,
    **options: Any,
) -> AsyncIterator[Harness]:
    """The inspector on ``path`` under ``run_test``, its first version on screen (and, when
    it watches, its folder watch armed, so that every write the test makes is seen).

    Notices are collected in ``Harness.notes`` either way; ``toasts`` also shows them."""
    options.setdefault("clock", fixed_clock)
    app = make_app(str(path), **options)
    notes: list[Notification] = []
    seen: list[InspectorScreen.Seen] = []

    def hook(message: object) -> None:
        if isinstance(message, Notify):
            notes.append(message.notification)
        elif isinstance(message, InspectorScreen.Seen):
            seen.append(message)

    async with app.run_test(size=size, message_hook=hook, notifications=toasts) as pilot:
        await asyncio.wait_for(app.ready.wait(), WAIT)
        if app.watching:
            await asyncio.wait_for(app.watch_armed.wait(), WAIT)
        await pilot.pause()
        yield Harness(app, pilot, notes, seen)
