"""The fleet view (``padtui DIR``): every pad in a folder, one row each, live.

Developers who run agents run many. This watches a folder (not recursively) and keeps one
:class:`~padtui.core.live.inspection.Inspection` per pad file in it (``.json``, ``.jsonl``,
``.md``; hidden files are passed over: agents write their temporary files so), so that every
pad's successive versions are audited as the inspector audits them. Each row shows the pad's
name, a small gauge, tokens against the budget, the time of its last change, the worst verdict
seen and the number of alarms, and whether it is readable right now. ``enter`` opens the pad
in the inspector, ``escape`` comes back.

Opening a pad pushes the inspector's own screen (:class:`~padtui.tui.inspector.InspectorScreen`)
on that pad's inspection, so everything the inspector does (trial, commit, history, alarms)
works on a pad opened from the fleet; ``escape`` dismisses it.

Reading and auditing happen off the screen's thread: the folder watch merges bursts of events
(a batch per quiet moment), and each pad a batch names gets its own reader, which reads it by
the settle rule (``store.settling``: its looks at the file in a worker thread, the pauses
between them in the event loop) and audits it in a worker thread; a pad changed while its
reader is at work is read again once it is done. So a pad that is slow to read (a huge file, a
file that never stops changing) holds up no other, and what cannot be a pad (a FIFO, a device)
is refused at once. The table is updated with what the readers found every ``SHOW_MS`` at
most. The pad open in the inspector is read and examined there too, but handed to the
inspector's screen to take in, as its own watch would. Each pad keeps its newest versions in memory
(``KEEP_VERSIONS``); its journal keeps them all.
"""

from __future__ import annotations

import asyncio
import bisect
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any, ClassVar, Unpack

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from padtui import telemetry
from padtui.core.formats import format_for_name, suffixes
from padtui.core.live.inspection import (
    OWN,
    Alarm,
    Inspection,
    Observed,
    utc_now,
)
from padtui.core.live.watcher import Reading, read_settled_pausing_here, watch_fault
from padtui.core.storage import store
from padtui.core.text import clean, one_line
from padtui.tui.app import PadtuiApp, Settings, inspection_of, keep_counts
from padtui.tui.inspector import (
    FAILED,
    InspectorScreen,
    Prepared,
    failure,
    open_journal,
    prepare,
    settle_memory,
    take,
)
from padtui.tui.keys import KeysFooter, help_and_quit
from padtui.tui.screens import FLEET_HELP, HelpScreen
from padtui.tui.turns import DrawsFirst, after_frame
from padtui.tui.verdicts import verdict_style
from padtui.tui.widgets import cut_middle, gauge_text

KEEP_VERSIONS = 16  # versions of each pad kept in memory (its journal keeps them all)
# the newest journaled versions of each pad taken in when the fleet first reads it (enough to
# audit the version on disk against the last one journaled, and the rewrite into that one)
FLEET_RECENT = 2
GAUGE_WIDTH = 12
STEP_MS = 20  # the folder watch: a batch once no event came for this long ...
DEBOUNCE_MS = 200  # ... or this long after its first event, whichever comes first
SHOW_MS = 100  # the table takes in what the pads' readers found at most this often
# looks at a pad a settle interval (store.settling): fewer than the inspector's, as a fleet of
# a hundred pads a second would otherwise keep the screen's event loop busy with them
SETTLE_LOOKS = 2
FIRST_LOOK_CHUNK = 25  # pads read before their rows are shown, when the fleet starts
# how bad a verdict is: the worst one seen stays on a pad's row
SEVERITY = {
    "initial": 0,
    "unchanged": 0,
    "growth": 1,
    "compaction": 2,
    "undeclared_loss": 3,
    "corruption": 4,
}
NAME_WIDTH = 80  # the pad column grows with the names, up to this
STATE_WIDTH = 100  # and the state column with what the pads' states say
COLUMN_GAP = 2
# the pad's name and its state share what the other columns leave: the name whole when there
# is room, the state at least this much of its own (a broken pad's reason is whole on the
# status line when its row is chosen), the name cut in the middle when they do not fit
STATE_AT_LEAST = 14
# when the two have less than this (or than they want, if less), the other columns give way,
# in turn (column, the width it shrinks to, 0 for gone). The worst verdict and the alarms
# never give way.
SHARED_AT_LEAST = 30
GIVE_WAY = (
    ("gauge", 0),
    ("changed", 0),
    ("gap", 1),
    ("tokens", 0),
)
COLUMNS = (
    ("pad", "pad", None),
    ("gauge", "gauge", GAUGE_WIDTH),
    ("tokens", "tokens/budget", 15),
    ("changed", "last change", 11),
    ("worst", "worst verdict", 17),
    ("alarms", "alarms", 6),
    ("state", "state", None),
)


LIVE = "● live"


def share(room: int, name: int, state: int) -> tuple[int, int]:
    """``room`` cells for the pad's name and its state, which want ``name`` and ``state``:
    the name first, whole if the state keeps ``STATE_AT_LEAST`` (or less, all it needs);
    the state the rest."""
    first = max(1, min(name, room - min(state, STATE_AT_LEAST)))
    return first, max(1, room - first)


def is_pad_name(name: str) -> bool:
    """A file name the fleet shows: a name that says a pad's format (``formats.suffixes``),
    and not hidden, but for the memory files whose own name starts with a dot
    (``.cursorrules``): agents keep their temporary saves in hidden files."""
    if format_for_name(name) is None:
        return False
    return not name.startswith(".") or name.lower() in suffixes()


@dataclass(eq=False)
class FleetPad:
    """One pad of the fleet: its inspection, and what its row shows."""

    name: str
    path: str
    inspection: Inspection
    lock: threading.Lock = field(default_factory=threading.Lock)  # whoever audits it holds it
    is_open: bool = False  # in the inspector (which then takes its readings in)
    worst: str = "initial"  # the worst verdict of any rewrite seen
    looked_at: int = 0  # versions already counted into ``worst``
    journal_error: str | None = None
    opened: bool = False  # its journal was taken in (the first time it was read)

    def update_worst(self) -> str:
        insp = self.inspection
        fresh = insp.released + len(insp.versions) - self.looked_at
        for v in insp.versions[-fresh:] if fresh > 0 else ():
            if v.origin in OWN:  # (a restore of an older version is the user's own doing)
                continue
            if SEVERITY.get(v.verdict, 0) > SEVERITY.get(self.worst, 0):
                self.worst = v.verdict
        self.looked_at = insp.released + len(insp.versions)
        return self.worst

    def cells(self, theme: Mapping[str, str]) -> list[Text]:
        """The row: name, gauge, tokens/budget, last change, worst verdict, alarms, state
        (the verdict in the colours of ``theme``, the app's theme variables)."""
        insp = self.inspection
        worst = self.update_worst()
        name = Text(clean(self.name), style="bold", no_wrap=True, overflow="ellipsis")
        if insp.versions:
            v = insp.current
            budget = insp.budget
            gauge = gauge_text(v.sealed_tokens, v.tokens - v.sealed_tokens, budget, GAUGE_WIDTH)
            tokens = Text(f"{v.tokens}/{budget}", style="bold red" if v.tokens > budget else "")
            changed = Text(self.changed_at(v.seen_at, v.stamp.mtime_ns))
        else:
            gauge = Text("·" * GAUGE_WIDTH, style="dim")
            tokens = Text("–", style="dim")
            changed = Text("–", style="dim")
        if insp.halted and SEVERITY.get(worst, 0) < SEVERITY["undeclared_loss"]:
            # what stands now says more than the compaction that led to it
            verdict = Text(" halt ", style=verdict_style(theme, "halt"))
        else:
            verdict = Text(f" {worst} ", style=verdict_style(theme, worst))
        alarms = len(insp.outstanding)
        count = Text(str(alarms), style="bold white on red" if alarms else "dim")
        return [name, gauge, tokens, changed, verdict, count, self.state()]

    def changed_at(self, seen_at: datetime, mtime_ns: int) -> str:
        """The time of the file's last change (its mtime; when padtui read it, for a version
        whose file time is not known), with the date when that is not today."""
        at = seen_at if mtime_ns < 0 else datetime.fromtimestamp(mtime_ns / 1e9, UTC)
        local = at.astimezone()
        today = self.inspection.clock().astimezone().date()
        return local.strftime("%H:%M:%S" if local.date() == today else "%m-%d %H:%M")

    def problem(self) -> str | None:
        """Why padtui cannot read the pad, in full (None: it can, or it is being read, or
        it is mid-write and its last good version stands)."""
        insp = self.inspection
        if insp.versions and not (insp.status == "unreadable" and FAILED in insp.status_detail):
            return None
        if not insp.versions and insp.status == "waiting":
            return None
        problem = insp.status_detail.removeprefix(f"{store.UNREADABLE}: ")
        return one_line(problem.removeprefix(f"{self.path}: "), 400) or None

    def state(self) -> Text:
        insp = self.inspection
        if not insp.versions:
            if insp.status == "waiting":
                return Text("… reading", style="dim")
            problem = insp.status_detail.removeprefix(f"{store.UNREADABLE}: ")
            problem = problem.removeprefix(f"{self.path}: ")  # the row names the pad
            return Text("✖ " + one_line(problem, 80), style="bold red")
        if insp.status == "unreadable" and FAILED in insp.status_detail:
            problem = insp.status_detail.removeprefix(f"{store.UNREADABLE}: {self.path}: ")
            return Text("✖ " + one_line(problem, 80), style="bold red")
        if insp.status == "unreadable":
            return Text("◌ mid-write?", style="yellow")
        if insp.status == "deleted":
            return Text("✕ deleted", style="red")
        if insp.halted:
            return Text("● live · HALT: sealed over budget", style="bold red")
        return Text(LIVE, style="green")


class FleetTable(ScrollView, can_focus=True):
    """The rows of the fleet, on Textual's line API: one cached strip per row.

    A fleet of live pads changes a hundred rows a second; a table that redraws every cell
    whenever one changes (``DataTable`` does) spends the screen's time redrawing. Here a
    changed row is rendered once, into one strip, and a frame only copies strips (the
    cursor's row gets its highlight on top).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False, id="fleet.up", tooltip="The pad above"),
        Binding("down", "cursor(1)", "Down", show=False, id="fleet.down", tooltip="The pad below"),
        Binding(
            "pageup", "page(-1)", "Page up", show=False, id="fleet.page_up", tooltip="A page up"
        ),
        Binding(
            "pagedown",
            "page(1)",
            "Page down",
            show=False,
            id="fleet.page_down",
            tooltip="A page down",
        ),
        Binding(
            "home,ctrl+home", "edge(0)", "First", show=False, id="fleet.first", tooltip="First pad"
        ),
        Binding("end,ctrl+end", "edge(1)", "Last", show=False, id="fleet.last", tooltip="Last pad"),
        Binding("enter", "open", "Open", id="fleet.open", tooltip="Open the pad in the inspector"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"fleet-table--cursor"}
    DEFAULT_CSS = """
    FleetTable { height: 1fr; }
    FleetTable > .fleet-table--cursor {
        background: $block-cursor-blurred-background;
    }
    FleetTable:focus > .fleet-table--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: $block-cursor-text-style;
    }
    """

    class Opened(Message):
        """``enter`` on a row: open its pad."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    class Fitted(Message):
        """The table's width changed: the columns are fitted anew (the header with them)."""

    cursor: reactive[int] = reactive(0, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.names: list[str] = []  # the rows, top to bottom (by name)
        self.cells: dict[str, list[Text]] = {}
        self._strips: dict[str, Strip] = {}  # each row rendered (without the cursor)
        self.name_width = 12
        self.state_width = len("state")
        self._state_widths: dict[str, int] = {}  # each row's state, in cells
        self._moved = False  # has a person moved the cursor (a key, a click)?

    def widths(self) -> tuple[list[int], int]:
        """Each column's width, and the gap between columns, at the table's width: the pad
        and its state share the room the others leave (see ``SHARED_AT_LEAST``)."""
        wanted = {key: width or 0 for key, _label, width in COLUMNS}
        gap = COLUMN_GAP
        room = self.scrollable_content_region.width or self.size.width or 10**6

        def left() -> int:
            shown = [k for k, w in wanted.items() if w or k in ("pad", "state")]
            return room - sum(wanted.values()) - gap * (len(shown) - 1)

        enough = min(self.name_width + self.state_width, SHARED_AT_LEAST)
        for key, width in GIVE_WAY:
            if left() >= enough:
                break
            if key == "gap":
                gap = min(gap, width)
            else:
                wanted[key] = min(wanted[key], width)
        wanted["pad"], wanted["state"] = share(max(left(), 2), self.name_width, self.state_width)
        return [wanted[key] for key, _label, _width in COLUMNS], gap

    # --- rows ----------------------------------------------------------------------------

    def set_row(self, name: str, cells: list[Text]) -> None:
        """Add the row, or change it (only its own strip is rendered again)."""
        if name not in self.cells:
            # (the cursor stays on the pad a person put it on; until then, on the top row)
            keep = self.highlighted if self._moved else None
            bisect.insort(self.names, name)
            width = min(max(len(name), self.name_width), NAME_WIDTH)
            if width != self.name_width:  # (every row lines up again)
                self.name_width = width
                self._strips.clear()
            if keep is not None:
                self.cursor = self.names.index(keep)
            self._resize()
            self.cells[name] = cells
            self._fit_state(name, cells)
            self.refresh()  # (the rows below moved down)
            return
        if self.cells[name] == cells:
            return  # (a version that shows the same: nothing to draw)
        self.cells[name] = cells
        if self._fit_state(name, cells):
            self.refresh()
            return
        self._strips.pop(name, None)
        index = bisect.bisect_left(self.names, name)
        top = self.scroll_offset.y
        if top <= index < top + self.size.height:
            self.refresh_line(index)  # (only that line; one off screen is drawn when seen)

    def _fit_state(self, name: str, cells: list[Text]) -> bool:
        """Note the width of the row's state; True if the state column's width changed
        (every row is then drawn again)."""
        self._state_widths[name] = cells[-1].cell_len
        width = min(max(len("state"), *self._state_widths.values()), STATE_WIDTH)
        if width == self.state_width:
            return False
        self.state_width = width
        self._strips.clear()
        self.post_message(self.Fitted())
        return True

    def row(self, name: str) -> list[str]:
        """The row's cells as plain text."""
        return [c.plain for c in self.cells[name]]

    def line_text(self, cells: Sequence[Text]) -> Text:
        """One row (or the header): its cells in their columns."""
        line = Text(no_wrap=True, end="")
        widths, gap = self.widths()
        for column, width, cell in zip(COLUMNS, widths, cells, strict=True):
            if not width:
                continue  # (given way to the others)
            # (a name's start and its end both say which pad it is)
            fitted = (cut_middle(cell, width) if column[0] == "pad" else cell).copy()
            fitted.truncate(width, overflow="ellipsis", pad=True)
            line.append_text(fitted)
            line.append(" " * gap)
        return line

    @property
    def row_count(self) -> int:
        return len(self.names)

    @property
    def highlighted(self) -> str | None:
        return self.names[self.cursor] if 0 <= self.cursor < len(self.names) else None

    # --- drawing -------------------------------------------------------------------------

    def _resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.names))

    def on_resize(self) -> None:
        self._strips.clear()
        self._resize()
        self.post_message(self.Fitted())

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.size.width
        if not 0 <= index < len(self.names):
            return Strip.blank(width, self.rich_style)
        name = self.names[index]
        strip = self._strips.get(name)
        if strip is None:
            segments = list(self.line_text(self.cells[name]).render(self.app.console))
            strip = Strip(segments).crop_extend(0, width, self.rich_style)
            self._strips[name] = strip
        if index == self.cursor:
            strip = strip.apply_style(self.get_component_rich_style("fleet-table--cursor"))
        return strip

    class Moved(Message):
        """The cursor moved to another pad."""

    def watch_cursor(self, old: int, new: int) -> None:
        self.post_message(self.Moved())
        top = self.scroll_offset.y
        height = self.scrollable_content_region.height or 1
        if new < top:
            self.scroll_to(y=new, animate=False, immediate=True)
        elif new >= top + height:
            self.scroll_to(y=new - height + 1, animate=False, immediate=True)
        self.refresh()

    # --- keys and the mouse ----------------------------------------------------------------

    def _move_to(self, index: int) -> None:
        if self.names:
            self._moved = True
            self.cursor = max(0, min(index, len(self.names) - 1))

    def action_cursor(self, step: int) -> None:
        self._move_to(self.cursor + step)

    def action_page(self, pages: int) -> None:
        self._move_to(self.cursor + pages * max(1, self.scrollable_content_region.height - 1))

    def action_edge(self, last: int) -> None:
        self._move_to(len(self.names) - 1 if last else 0)

    def action_open(self) -> None:
        name = self.highlighted
        if name is not None:
            self.post_message(self.Opened(name))

    def on_click(self, event: events.Click) -> None:
        self._move_to(self.scroll_offset.y + event.y)
        if event.chain > 1:  # a double click opens the pad
            self.action_open()


class FleetScreen(DrawsFirst):
    """The table of pads; ``enter`` pushes the inspector's screen on the pad of its row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *help_and_quit("fleet", "What the fleet's columns mean, and its keys")
    ]

    DEFAULT_CSS = """
    FleetScreen #fleet-top { height: 1; padding: 0 1; background: $panel; }
    FleetScreen #fleet-head { height: 1; padding: 0 1; }
    FleetScreen #fleet-table { height: 1fr; padding: 0 1; }
    FleetScreen #fleet-status { height: auto; padding: 0 1; background: $boost; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="fleet-top")
        yield Static(id="fleet-head")
        yield FleetTable(id="fleet-table")
        yield Static(id="fleet-status")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.draw_header()
        self.table.focus()

    def on_screen_resume(self) -> None:
        self.table.focus()  # back from the inspector: the keys move the rows

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(FLEET_HELP))

    def draw_header(self) -> None:
        cells = [Text(label, style="bold") for _key, label, _width in COLUMNS]
        self.query_one("#fleet-head", Static).update(self.table.line_text(cells))

    @property
    def table(self) -> FleetTable:
        return self.query_one("#fleet-table", FleetTable)

    def on_fleet_table_fitted(self, event: FleetTable.Fitted) -> None:
        event.stop()
        self.draw_header()

    def on_fleet_table_moved(self, event: FleetTable.Moved) -> None:
        event.stop()
        self.fleet._draw_fleet_bars()

    def on_fleet_table_opened(self, event: FleetTable.Opened) -> None:
        event.stop()
        self.fleet.open_pad(event.name)

    @property
    def fleet(self) -> FleetApp:
        app = self.app
        assert isinstance(app, FleetApp)
        return app


class FleetApp(PadtuiApp):
    """Every pad of a folder, live; ``enter`` opens one in the inspector, ``escape`` returns."""

    TITLE = "padtui fleet"

    def __init__(
        self,
        folder: str,
        *,
        keep_versions: int = KEEP_VERSIONS,
        clock: Callable[[], datetime] = utc_now,
        **settings: Unpack[Settings],
    ) -> None:
        """``keep_versions``: the versions each pad keeps; ``clock``: a fixed one makes the
        screen reproducible (snapshot tests)."""
        super().__init__()
        self.folder = folder
        self.place = clean(os.path.abspath(folder))  # the folder, as the top bar names it
        self.settings = settings
        self.use_journal = settings.get("use_journal", True)
        self._keep = keep_versions
        self._clock = clock
        self.pads: dict[str, FleetPad] = {}
        self.open: FleetPad | None = None
        self.inspector: InspectorScreen | None = None  # the open pad's
        self.ready = asyncio.Event()  # the first look at the folder is on screen
        self.fleet_ready = self.ready
        self.looking: tuple[int, int] | None = None  # the first look: (pads read, of all)
        self.batches = 0  # batches of changes taken in (benchmarks and tests watch this)
        self._stop = asyncio.Event()
        self._readers: dict[str, asyncio.Task[None]] = {}  # each pad being read: its reader
        self._read_again: set[str] = set()  # pads changed while their reader was at work
        self._found: list[tuple[FleetPad, Reading, Observed | None, Prepared | None]] = []
        self._show_due = False
        self._readers_group: asyncio.TaskGroup | None = None
        self._fleet_screen = FleetScreen()

    # --- the fleet ---------------------------------------------------------------------------

    async def on_mount(self) -> None:  # (after PadtuiApp's: see SWITCH_INTERVAL)
        self.watch_folder()

    def on_unmount(self) -> None:
        self._stop.set()
        for pad in self.pads.values():
            keep_counts(pad.inspection)

    def get_default_screen(self) -> FleetScreen:
        return self.fleet_screen

    @property
    def fleet_screen(self) -> FleetScreen:
        return self._fleet_screen

    @property
    def inspection(self) -> Inspection:
        """The inspection of the pad open in the inspector."""
        if self.inspector is None:
            raise LookupError("no pad is open")
        return self.inspector.inspection

    @property
    def showing_fleet(self) -> bool:
        return isinstance(self.screen, FleetScreen)

    @property
    def highlighted(self) -> str | None:
        return self.fleet_screen.table.highlighted

    @work(exclusive=True, group="fleet")
    async def watch_folder(self) -> None:
        """The folder watch: arm it, take a first look at every pad, then follow changes."""
        from watchfiles import awatch

        folder = self.folder

        def concerns_pads(_change: object, changed: str) -> bool:
            return os.path.dirname(changed) == os.path.abspath(folder) and is_pad_name(
                os.path.basename(changed)
            )

        def arm() -> tuple[Any, asyncio.Future[Any]]:
            changes = awatch(
                os.path.abspath(folder),
                watch_filter=concerns_pads,
                recursive=False,
                step=STEP_MS,
                debounce=DEBOUNCE_MS,
                stop_event=self._stop,
            )
            return changes, asyncio.ensure_future(anext(changes))

        # the watch is armed in the first step of its first iteration: let it take that step,
        # then look, so that no write between the look and the watch is missed
        changes, pending = arm()
        try:
            # the pads' readers run in this group: one that fails fails the watch, as before
            async with asyncio.TaskGroup() as readers:
                self._readers_group = readers
                await asyncio.sleep(0)
                names = await asyncio.to_thread(self._pad_names)
                first = readers.create_task(self._first_look(names))  # changes followed meanwhile
                while True:
                    try:
                        batch = await pending
                    except StopAsyncIteration:
                        break
                    except Exception as exc:
                        if not watch_fault(exc):
                            raise
                        # the batch is lost: armed anew, every pad is looked at again
                        await changes.aclose()
                        await asyncio.sleep(DEBOUNCE_MS / 1000)
                        changes, pending = arm()
                        await asyncio.sleep(0)
                        names = await asyncio.to_thread(self._pad_names)
                        self._take_in({*names, *self.pads})
                        self.batches += 1
                        continue
                    pending = asyncio.ensure_future(anext(changes))
                    self._take_in({os.path.basename(path) for _change, path in batch})
                    self.batches += 1
                for task in [first, *self._readers.values()]:
                    task.cancel()
        finally:
            pending.cancel()
            await asyncio.gather(pending, return_exceptions=True)
            await changes.aclose()

    async def _first_look(self, names: list[str]) -> None:
        """Every pad of the folder read, a few at a time: a large folder takes seconds, so its
        rows appear as they are read and the top bar counts them."""
        for start in range(0, len(names), FIRST_LOOK_CHUNK):
            self.looking = (start, len(names))
            self._draw_fleet_bars()
            await asyncio.wait(self._take_in(names[start : start + FIRST_LOOK_CHUNK]))
            self._show_found()
        self.looking = None
        self._draw_fleet_bars()
        self.ready.set()

    def _pad_names(self) -> list[str]:
        try:
            names = os.listdir(self.folder)
        except OSError as exc:
            self.call_from_thread(
                self.notify, clean(f"{self.folder}: {exc.strerror}"), severity="error"
            )
            return []
        return sorted(n for n in names if is_pad_name(n))

    def _take_in(self, names: Iterable[str]) -> list[asyncio.Task[None]]:
        """Have the pads named read and audited, each by its own reader; returns the readers.

        A pad whose reader is at work is read again once it is done."""
        readers = []
        for name in sorted(set(names)):
            reader = self._readers.get(name)
            if reader is None:
                assert self._readers_group is not None  # (the folder watch is running)
                pad = self.pads.get(name) or self._new_pad(name)
                reader = self._readers_group.create_task(self._reader(pad))
                self._readers[name] = reader
            else:
                self._read_again.add(name)
            readers.append(reader)
        return readers

    async def _reader(self, pad: FleetPad) -> None:
        try:
            while True:
                self._read_again.discard(pad.name)
                found = await self._read(pad)
                self._found.extend(found)
                if not self._show_due:
                    self._show_due = True
                    asyncio.get_running_loop().call_later(SHOW_MS / 1000, self._show_found)
                if pad.name not in self._read_again:
                    return
        finally:
            self._readers.pop(pad.name, None)

    def _show_found(self) -> None:
        """What the readers found since the last time, on screen."""
        self._show_due = False
        found, self._found = self._found, []
        if found and self.is_running:
            self._show(found)

    def _new_pad(self, name: str) -> FleetPad:
        path = os.path.join(self.folder, name)
        return FleetPad(name, path, self.inspection_for(path))

    def inspection_for(self, path: str) -> Inspection:
        """The inspection of a pad of the folder, with the settings the fleet was opened
        with."""
        return inspection_of(path, self.settings, keep_versions=self._keep, clock=self._clock)

    async def _read(
        self, pad: FleetPad
    ) -> list[tuple[FleetPad, Reading, Observed | None, Prepared | None]]:
        """A reading of the pad once settled, journaled and audited against the one before
        (in a worker thread). The pad open in the inspector is journaled and examined but
        not taken in: the inspector's screen takes it in."""
        if os.path.isdir(pad.path):
            return []
        insp = pad.inspection
        prepared = None
        try:
            previous = insp.current.pad_file if insp.versions else None
            reading = await read_settled_pausing_here(pad.path, previous, looks=SETTLE_LOOKS)
            # (its audit waits for a frame being drawn: see tui/turns.py)
            observed, prepared = await asyncio.to_thread(
                after_frame(self._take_reading), pad, reading
            )
        except Exception as exc:  # this pad's failure is its row's, not the fleet's
            reading = Reading("unreadable", detail=failure(pad.path, exc))
            with pad.lock:
                insp.unreadable(reading.detail)
            observed = None
        return [(pad, reading, observed, prepared)]

    def _take_reading(
        self, pad: FleetPad, reading: Reading
    ) -> tuple[Observed | None, Prepared | None]:
        with pad.lock:
            if pad.is_open:
                return None, prepare(pad.inspection, reading, self.use_journal)
            return self._observe(pad, reading), None

    def _observe(self, pad: FleetPad, reading: Reading) -> Observed | None:
        insp = pad.inspection
        if reading.snapshot is not None and not pad.opened:  # (its first version read)
            pad.opened = True
            pad.journal_error = open_journal(
                insp, self.use_journal, min(FLEET_RECENT, insp.keep_versions or FLEET_RECENT)
            )
        prepared = prepare(insp, reading, self.use_journal)
        if prepared.examined is not None and self.use_journal:
            pad.journal_error = prepared.journal_error  # (the last append's, failed or not)
        observed = take(insp, prepared)
        if observed is not None:
            telemetry.version_taken(insp, observed.version, source="fleet")
        return observed

    def _show(
        self, results: Sequence[tuple[FleetPad, Reading, Observed | None, Prepared | None]]
    ) -> None:
        """(screen thread) Rows for what a batch found; alarms announced."""
        screen = self.fleet_screen
        table = screen.table
        width = table.name_width
        theme = self.theme_variables
        for pad, reading, observed, prepared in results:
            if prepared is not None and pad.is_open and self.inspector is not None:
                self.inspector.post_message(InspectorScreen.Seen(prepared))
            elif pad.name not in self.pads:
                if not pad.inspection.versions and reading.state == "deleted":
                    continue  # a file that came and went before it was seen
                self.pads[pad.name] = pad
                # the alarms its journal held, written while padtui was closed
                opened_with = pad.inspection.outstanding
                if opened_with and (observed is None or observed.alarm is None):
                    self._announce_fleet(pad, opened_with[-1], len(opened_with))
            if observed is not None and observed.alarm is not None:
                self._announce_fleet(pad, observed.alarm)
            table.set_row(pad.name, pad.cells(theme))
        if table.name_width != width:
            screen.draw_header()
        self._draw_fleet_bars()
        # what the pads hold stays for the session: set it aside from the cyclic garbage
        # collector, whose full passes over a fleet's versions would freeze the screen
        self.call_after_refresh(settle_memory)

    def _announce_fleet(self, pad: FleetPad, alarm: Alarm, outstanding: int = 1) -> None:
        codes = ", ".join(sorted({f.code for f in alarm.audit.critical})) or "UNDECLARED_LOSS"
        more = f" ({outstanding} alarms not acknowledged)" if outstanding > 1 else ""
        if alarm.critical:
            self.bell()
            self.notify(
                clean(f"{pad.name} v{alarm.version.number}: {codes}{more}. Enter opens it."),
                title="CORRUPTION",
                severity="error",
                timeout=15,
            )

    def _draw_fleet_bars(self) -> None:
        screen = self.fleet_screen
        pads = list(self.pads.values())
        outstanding = [a for p in pads for a in p.inspection.outstanding]
        alarms = len(outstanding)
        # (of the alarms not acknowledged nor undone: a pad corrupted once, whose alarm was
        # acknowledged, keeps its worst verdict on its row but counts no more here)
        corrupt = sum(1 for a in outstanding if a.critical)
        top = Text("padtui fleet ", style="bold")
        top.append(f"{len(pads)} pads", style="bold cyan")
        if alarms:
            top.append(f"  ⚠ {alarms} alarm{'s' if alarms != 1 else ''}", style="bold red")
            if corrupt:
                top.append(f" ({corrupt} corruption{'s' if corrupt != 1 else ''})", style="red")
        if self.looking is not None:
            done, total = self.looking
            top.append(f"  reading the folder: {done} of {total} pads…", style="yellow")
        top.append(f"  {self.place}", style="dim")
        self._update_if_new(screen.query_one("#fleet-top", Static), top)
        status = Text(
            "enter: open the pad · escape in the inspector: back here · q: quit", style="dim"
        )
        name = screen.table.highlighted
        chosen = self.pads.get(name) if name is not None else None
        if chosen is not None:  # its state, whole (its row may cut it), unless plain live
            problem = chosen.problem()
            state = Text(problem, style="red") if problem is not None else chosen.state()
            if problem is not None or state.plain != LIVE:
                status.append(f"\n{clean(chosen.name)}: ", style="bold")
                status.append_text(state)
        journal_errors = [p for p in pads if p.journal_error]
        if journal_errors:
            status.append(
                f"\njournal not written for {len(journal_errors)} pads: "
                + one_line(journal_errors[0].journal_error or "", 80),
                style="yellow",
            )
        self._update_if_new(screen.query_one("#fleet-status", Static), status)

    @staticmethod
    def _update_if_new(widget: Static, content: Text) -> None:
        """A bar is updated only when what it says changed (an update lays the screen out
        again, which a fleet busy with a hundred saves a second cannot afford each time)."""
        if widget.content != content:
            widget.update(content)

    # --- opening a pad and coming back -------------------------------------------------------

    def open_pad(self, name: str) -> None:
        pad = self.pads.get(name)
        if pad is None or not self.showing_fleet:
            return
        with pad.lock:  # (the worker may be auditing it this very moment)
            pad.is_open = True
        self.open = pad
        self.inspector = InspectorScreen(
            pad.inspection,
            journal=self.use_journal,
            opening=False,
            watching=False,
            back=True,
            lock=pad.lock,
        )
        self.inspector.watch_armed.set()  # (the fleet's watch sees every write to it)
        self.push_screen(self.inspector, lambda _closed: self._back_from_pad(pad))

    def _back_from_pad(self, pad: FleetPad) -> None:
        """Back from the pad's inspector: the fleet's readers take its readings in again."""
        with pad.lock:
            pad.is_open = False
        self.open = self.inspector = None
        self.run_worker(
            partial(keep_counts, pad.inspection), thread=True, description="keep the counts"
        )
        if pad.name in self.fleet_screen.table.cells:
            self.fleet_screen.table.set_row(pad.name, pad.cells(self.theme_variables))
        self._draw_fleet_bars()
