"""Replay: time travel through the versions a journal recorded, in the inspector's screen."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Static

from padtui.core.errors import PadError
from padtui.core.live.inspection import Inspection, SeenVersion
from padtui.core.storage import store
from padtui.core.storage.journal import Journal
from padtui.core.text import clean
from padtui.tui.app import PadtuiApp
from padtui.tui.inspector import InspectorScreen

READ_ONLY = "replay: open the pad itself to commit"


def recorded_screen(inspection: Inspection, read_only: str) -> InspectorScreen:
    """The inspector's screen over versions the app takes in itself: no journal, no pad
    read or watched by the screen, nothing written, a narration line."""
    return InspectorScreen(
        inspection,
        journal=False,
        opening=False,
        watching=False,
        read_only=read_only,
        narration=True,
    )


class Stepping:
    """The , and . keys of an app that shows recorded versions one at a time: ``show``
    draws the one at ``cursor``."""

    recorded: list[SeenVersion]
    cursor: int

    def show(self) -> None:
        raise NotImplementedError

    def action_older(self) -> None:
        if self.cursor > 0:
            self.cursor -= 1
            self.show()

    def action_newer(self) -> None:
        if self.cursor < len(self.recorded) - 1:
            self.cursor += 1
            self.show()


class ReplayApp(Stepping, PadtuiApp):
    """The inspector's screen over a journal: no watching, no writing; step through the
    versions with , and . (the screen's own keys trial and step compactions of each)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "comma",
            "older",
            "Older",
            id="replay.older",
            key_display=",",
            tooltip="Show the version before",
        ),
        Binding(
            "full_stop",
            "newer",
            "Newer",
            id="replay.newer",
            key_display=".",
            tooltip="Show the version after",
        ),
    ]

    def __init__(self, journal: Journal) -> None:
        super().__init__()
        self.journal = journal
        self.inspection = Inspection(journal.pad or journal.path)
        self.inspector = recorded_screen(self.inspection, READ_ONLY)
        self.ready = self.inspector.ready
        self.recorded: list[SeenVersion] = []
        self.cursor = 0
        self.skipped = 0  # versions lost to damage, or that did not parse
        for v in self.journal.versions():
            try:
                pad_file = self.journal.pad_file(v.n)
            except PadError:
                self.skipped += 1
                continue
            try:
                seen = datetime.fromisoformat(v.at.replace("Z", "+00:00"))
            except ValueError:  # (a journal written by hand: its nanoseconds say the same)
                seen = datetime.fromtimestamp(v.time_ns / 1e9, UTC)
            self.inspection.observe(
                store.snapshot_of(pad_file),
                now=seen,
                origin=v.origin,
                number=v.n,
                journal=self.journal,  # (an older version's bytes stay there)
            )
        self.recorded = list(self.inspection.versions)
        self.cursor = len(self.recorded) - 1
        self.inspection.status = "replay"

    def get_default_screen(self) -> InspectorScreen:
        return self.inspector

    def on_mount(self) -> None:
        self.call_after_refresh(self.show)  # (once the inspector's screen is composed)

    def show(self) -> None:
        narration = self.inspector.query_one("#narration", Static)
        if not self.recorded:  # every version lost to damage (the CLI refuses such a journal)
            narration.update(
                Text(" replay: no version of this journal can be read ", style="bold black on red")
            )
            return
        self.inspection.versions = self.recorded[: self.cursor + 1]
        self.inspection.end_trial()
        self.inspector.refresh_view()
        v = self.recorded[self.cursor]
        line = Text(
            f" replay v{v.number} ({self.cursor + 1} of {len(self.recorded)}) ",
            style="bold black on cyan",
        )
        line.append(
            f"  {v.seen_at:%Y-%m-%d %H:%M:%S} · {clean(v.origin)} · {v.verdict}"
            "  · , older · . newer · t trial · h history (read-only: nothing is written)"
        )
        if self.skipped:
            line.append(f"  ({self.skipped} unreadable versions not shown)", style="dim")
        narration.update(line)
