"""Replay: time travel through the versions a journal recorded, in the inspector."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.binding import Binding, BindingType
from textual.widgets import Static

from padtui.core import store
from padtui.core.errors import PadError
from padtui.core.inspection import Version
from padtui.core.journal import Journal
from padtui.core.text import clean
from padtui.tui.app import PadApp
from padtui.tui.widgets import EntryPane


class ReplayApp(PadApp):
    """PadApp over a journal: no watching, no writing; step through the versions."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *PadApp.BINDINGS,
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
        super().__init__(journal.pad or journal.path, watch=False, use_journal=False)
        self.journal = journal
        self.recorded: list[Version] = []
        self.cursor = 0
        self.skipped = 0  # versions kept whole because they did not parse

    @on(events.Mount)
    async def start_replay(self, event: events.Mount) -> None:
        event.prevent_default()  # not PadApp.on_mount: the live pad on disk is not replayed
        await self.mount(Static(id="narration"), before="#panes")
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
                store.snapshot_of(pad_file), now=seen, origin=v.origin, number=v.n
            )
        self.recorded = list(self.inspection.versions)
        self.cursor = len(self.recorded) - 1
        self.inspection.status = "replay"
        if self.recorded:
            self.show()
        else:  # every version lost to damage (the command line refuses such a journal first)
            self.query_one("#narration", Static).update(
                Text(" replay: no version of this journal can be read ", style="bold black on red")
            )
        self.query_one("#rewritable", EntryPane).focus()
        self.ready.set()

    def show(self) -> None:
        self.inspection.versions = self.recorded[: self.cursor + 1]
        self.inspection.end_trial()
        self.refresh_view()
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
        self.query_one("#narration", Static).update(line)

    def action_older(self) -> None:
        if self.cursor > 0:
            self.cursor -= 1
            self.show()

    def action_newer(self) -> None:
        if self.cursor < len(self.recorded) - 1:
            self.cursor += 1
            self.show()

    def action_commit(self) -> None:
        self.notify("Replay is read-only: open the pad itself to commit.", severity="warning")

    def action_externalize(self) -> None:
        self.action_commit()
