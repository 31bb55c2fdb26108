"""The inspector: one pad's screen, with its keys (trial, step, commit, externalize, budget,
policy, history, alarms), over a :class:`~padtui.core.live.inspection.Inspection`.

Every face of padtui that shows a pad shows it through this screen: the inspector app
pushes it on the pad it watches, the fleet on the pad opened from its table, replay on a
journal's versions and the demo on its scripted agent's pad; each adds its own keys at the
app level and, where it narrates, writes the screen's narration line.

A new reading is examined (parsed against the version on screen, counted, audited) in a
worker thread; the screen gets it as a :class:`InspectorScreen.Seen` message and only takes
it in, raises its alarm and draws. The inspector's own watch journals it after that (the
journal's fsync is no part of the wait for the screen), and the journal's number follows as
:class:`InspectorScreen.Appended`; who made it (padtui's own restore: never an alarm) is
read from the journal before it is shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from operator import attrgetter
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import CommandPalette
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from padtui import telemetry
from padtui.core.agents import letta
from padtui.core.audit.totals import totals
from padtui.core.compaction import sealing
from padtui.core.compaction.plan import Plan, RuleAtRisk
from padtui.core.errors import EncodingUnavailable, PadError
from padtui.core.formats import PadFile, format_for_name, named, read_only_reason
from padtui.core.live.at_risk import AtRisk
from padtui.core.live.inspection import (
    Alarm,
    Examined,
    Inspection,
    Journaled,
    Observed,
    SeenVersion,
    digest,
    journal_seen,
    journaled_already,
)
from padtui.core.live.watcher import Reading, load_watch, read_settled, watch_pad
from padtui.core.model import Entry, Pad
from padtui.core.rules.finder import RuleMap, RuleMemo
from padtui.core.sequences.ends import common_ends
from padtui.core.storage import store
from padtui.core.storage.journal import Journal
from padtui.core.storage.store import Snapshot
from padtui.core.text import clean, one_line
from padtui.tui.concept import ConceptScreen
from padtui.tui.keys import KeysFooter, help_and_quit, key
from padtui.tui.screens import (
    AlarmsScreen,
    BudgetScreen,
    CommitScreen,
    HelpScreen,
    HistoryScreen,
    RefusalScreen,
    RulesScreen,
    WayOut,
    to_seal,
    way_out,
)
from padtui.tui.turns import DrawsFirst, after_frame
from padtui.tui.verdicts import verdict_style
from padtui.tui.widgets import (
    NEAR_LIMIT,
    BudgetGauge,
    EntryPane,
    Row,
    StatusLine,
    TopBar,
    redraw,
    set_text,
)

# the line under the gauge names the unsealed rules a pass may drop: found at once on the
# screen's thread when this few entries are new since the version before (a few ms: a pad
# this small, or a rewrite of a few entries), else in a thread, off the watch path
RULES_AT_ONCE = 200
# a pad of more entries shows the first this many of each region, and the others a frame
# later (building a row and its option for each of 20,000 entries takes a few hundred ms)
FIRST_ROWS = 300
WHOLE_AFTER = 0.04  # seconds: the others then (a frame comes every 1/60 s while changes wait)
# after padtui itself fails on a pad's content, the pad is read again this often (seconds)
# until it reads: the view shows the failure meanwhile, and recovers once the pad is mended
RETRY_AFTER_FAILURE = 1.0
# a version is journaled once the frame that shows it is drawn: the journal's thread, working
# beside that frame, took the GIL from it (at 200k tokens the frame took 30 ms, not 16). A
# screen that draws no frame this long (covered, on its way out) holds up no journal.
DRAWN_WAIT = 0.25
JOURNAL_WAIT = 10.0  # seconds a closing screen waits for an append under way (an fsync)
# the newest journaled versions the inspector takes in when it opens a pad (its history then
# starts there), fewer when they hold more than RECENT_BYTES (about 40 ms a 100 KB version):
# the version on disk is audited against the last of them
RECENT_VERSIONS = 16
RECENT_BYTES = 500_000
HISTORY_STEP = 16  # versions the history reads from the journal each time o is pressed

# actions that write the pad: not offered on a pad padtui only reads (a Letta agent file)
WRITE_ACTIONS = frozenset({"commit", "externalize"})
# actions on the pad: not offered while a dialog or the history covers the screen (its
# footer, dimmed under them, lists only what still answers there)
PAD_ACTIONS = WRITE_ACTIONS | {
    "trial",
    "trial_first",
    "step_next",
    "step_prev",
    "leave_trial",
    "back",
    "budget_down",
    "budget_up",
    "budget_set",
    "switch_policy",
    "rules",
}

FAILED = "padtui failed to read it"

# keys that share one label in the footer
STEP = Binding.Group("Step")
BUDGET_STEP = Binding.Group("Budget ±")


def failure(path: str, exc: BaseException) -> str:
    """padtui's own failure on one pad (an exception no check foresaw), as the one line a
    view shows in place of the pad: never a crash of the view, nor of the fleet."""
    what = one_line(f"{type(exc).__name__}: {exc}", 160)
    return f"{store.UNREADABLE}: {path}: {FAILED} ({what})"


def settle_memory() -> None:
    """Once a new version is on screen, set what is in memory aside from the cyclic
    garbage collector. Every version stays for the session (history, audits), and a full
    collection over the versions of a large pad takes 100-200 ms: a write landing meanwhile
    would wait it out. Young garbage is collected first. (The app unfreezes it all as it
    ends: tests run many apps in one process.)"""
    gc.collect(1)
    gc.freeze()


_held = False  # the cyclic garbage collector is held off until a frame is drawn


def hold_collection() -> None:
    """Hold the cyclic garbage collector off while a new version is taken in and its frame
    drawn: the frame's strips are many small objects, and the collections they would start
    cost it about 2 ms at 200k tokens. ``resume_collection`` once the frame is drawn (and as
    the screen or the app goes); a collector already off is left as it is."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def resume_collection() -> None:
    """The collector on again, if ``hold_collection`` held it off."""
    global _held
    if _held:
        _held = False
        gc.enable()


def open_journal(
    insp: Inspection, journal: store.JournalArg, recent: int, most_bytes: int | None = RECENT_BYTES
) -> str | None:
    """(a worker thread) Take in the newest journaled versions of the pad and the alarms
    acknowledged there; returns why the journal could not be read, if it could not."""
    if journal is False:
        return None
    try:
        j = store.journal_of(insp.path, journal)
        if j is not None and os.path.exists(j.path):
            j.check_owner()  # (--journal naming another pad's: not taken in)
            insp.open_journal(j, recent, most_bytes)
    except (OSError, PadError) as exc:
        return str(exc)
    return None


@dataclass(frozen=True, kw_only=True)
class Prepared:
    """A reading of a pad examined (and journaled, unless it is to be later) off the
    screen's thread, to be taken in."""

    reading: Reading
    examined: Examined | None = None  # a version not on screen yet
    number: int | None = None  # its number in the journal
    origin: str | None = None  # who made it, when padtui did
    journal: Journal | None = None  # the journal that holds it
    seen_at: datetime | None = None  # when it was made, when the reading knows (else now)
    journal_error: str | None = None
    failed: str | None = None  # padtui's own failure on it (see failure)


def prepare(
    insp: Inspection, reading: Reading, journal: store.JournalArg, *, later: bool = False
) -> Prepared:
    """(a worker thread) Examine a new version against the version taken in last, and
    journal it; padtui's own failure is the pad's state, never the view's crash.
    ``later``: the version is journaled once it is on screen (``InspectorScreen._journal``); here,
    only what the journal already says of it is found (a restore: padtui's own)."""
    snapshot = reading.snapshot
    if reading.state != "version" or snapshot is None:
        return Prepared(reading=reading)
    try:
        examined = insp.examine(snapshot)  # (None: the version taken in last, read again)
        journaled, problem = Journaled(None, None, None), None
        if examined is not None and journal is not False:
            try:
                if later:
                    journaled = journaled_already(snapshot, examined.digest, journal)
                else:
                    journaled = journal_seen(snapshot, journal)
            except (OSError, PadError) as exc:
                if not later:  # (else the append says so)
                    problem = str(exc)
    except EncodingUnavailable as exc:  # the file names an encoding not here
        return Prepared(reading=reading, failed=str(exc))
    except Exception as exc:  # (see failure)
        return Prepared(reading=reading, failed=failure(insp.path, exc))
    return Prepared(
        reading=reading,
        examined=examined,
        number=journaled.number,
        origin=journaled.origin,
        journal=journaled.journal,
        journal_error=problem,
    )


def take(insp: Inspection, prepared: Prepared) -> Observed | None:
    """Take a prepared reading in (the cheap half, where the inspection is shown): a new
    version, or the file's state (unreadable, deleted) with the last good version kept."""
    reading = prepared.reading
    if prepared.failed is not None:
        insp.unreadable(prepared.failed)
    elif reading.state == "deleted":
        insp.deleted()
    elif reading.state == "unreadable":
        insp.unreadable(reading.detail)
    elif prepared.examined is None:
        insp.status, insp.status_detail = "live", ""  # (the version on screen, read again)
    else:
        return insp.take_in(
            prepared.examined,
            now=prepared.seen_at,
            origin=prepared.origin,
            number=prepared.number,
            journal=prepared.journal,
        )
    return None


class InspectorScreen(DrawsFirst):
    """One pad: its sealed and rewritable regions, the budget gauge, what stands, the
    status, and the keys to trial, step and commit a compaction safely."""

    # The footer shows as many keys as the terminal is wide, in this order: help and quit
    # first (? lists every key, and so does the command palette), a trial's steps while one
    # is open, then the keys most used. Neighbours in a group share one label.
    BINDINGS: ClassVar[list[BindingType]] = [
        *help_and_quit("", "Keys and what the panes mean"),
        key("n", "step_next", "Next drop", "Step the trial one drop forward", group=STEP),
        key("p", "step_prev", "Prev drop", "Step the trial one drop back", group=STEP),
        # (n and p with no trial open: a word on what to press first)
        key("n,p", "trial_first", "", "Say that a trial comes first", show=False),
        key(
            "escape",
            "leave_trial",
            "Leave trial",
            "Leave the trial; nothing is written",
            id="trial.leave",
            show=False,
        ),
        key("escape", "back", "Back", "Back to where the pad was opened from (the fleet)"),
        key("a", "alarms", "Alarms", "Corruption and undeclared loss seen so far"),
        key("t", "trial", "Trial", "Trial a compaction of the current version"),
        key("h", "history", "History", "Versions seen, with the verdict of each rewrite"),
        key("c", "commit", "Commit", "Commit the trial (shows the diff first)"),
        key("i", "concept", "Why?", "Compaction or corruption, with this pad as the example"),
        key(
            "x",
            "externalize",
            "Seal",
            "Seal this rule, constraint, negative fact or loss record where it stands (in a "
            "refused trial: what it would drop)",
        ),
        key(
            "left_square_bracket",
            "budget_down",
            "Budget −",
            "Budget down 10 %",
            key_display="[",
            group=BUDGET_STEP,
        ),
        key(
            "right_square_bracket",
            "budget_up",
            "Budget +",
            "Budget up 10 %",
            key_display="]",
            group=BUDGET_STEP,
        ),
        key("b", "budget_set", "Budget", "Type a budget"),
        key("s", "switch_policy", "Policy", "Switch policy strict / seed", id="policy"),
        key("u", "rules", "Rules at risk", "Rules a pass may drop, the trial's first", show=False),
    ]

    class Seen(Message):
        """A reading of the pad, examined in a worker thread (this screen's
        own watch, or the fleet's reader of the pad): the screen takes it in."""

        def __init__(self, prepared: Prepared) -> None:
            super().__init__()
            self.prepared = prepared

    class Appended(Message):
        """A version on screen journaled (after the :class:`Seen` that brought it): its
        number in the journal, and who made it (None: it could not be journaled)."""

        def __init__(self, key: str, journaled: Journaled | None) -> None:
            super().__init__()
            self.key = key
            self.journaled = journaled

    def __init__(
        self,
        inspection: Inspection,
        *,
        pad_format: str | None = None,
        journal: store.JournalArg = True,
        opening: bool = True,
        watching: bool = True,
        back: bool = False,
        read_only: str | None = None,
        narration: bool = False,
        lock: threading.Lock | None = None,
    ) -> None:
        """``opening``: take in the pad's journal and read the pad first (else the
        inspection is shown as it is); ``watching``: then follow the pad's writes here
        (else whoever pushed the screen sends them, as :class:`Seen`); ``back``: escape
        with no trial open dismisses the screen; ``read_only``: why nothing is written
        from here, whatever the pad; ``narration``: a line above the panes for the app
        to narrate in; ``lock``: held while a version is taken in (a reader in another
        thread examines the same inspection)."""
        super().__init__()
        self.inspection = inspection
        self.pad_format = pad_format  # --format: read the pad as this format, whatever its name
        self.journal = journal
        self.opening = opening
        self.watching = watching
        self.back = back
        self.read_only_reason = read_only
        self.narration = narration
        self.pad_lock = lock
        self.ready = asyncio.Event()  # the first reading is on screen
        self.watch_armed = asyncio.Event()  # from now on, every write to the pad is seen
        # the unsealed rules of the version on screen (by its digest), and the version a
        # worker finds them for
        self._at_risk: tuple[str, tuple[RuleAtRisk, ...]] | None = None
        self._at_risk_sought: str | None = None
        self._at_risk_ahead: Pad | None = None  # the first version's, sought once it is drawn
        self._rules = AtRisk()  # (looks again only at the entries a new version changed)
        self._limits: tuple[str, list[letta.BlockLimit]] | None = None  # (by version digest)
        self._to_change = False  # a new version came: the rewritable pane moves to its change
        self._keys: tuple[bool, str | None] | None = None  # what the footer was drawn for
        self._plain_rows: dict[int, Row] = {}  # the rows with no mark, by entry identity
        self._drawn_whole = False  # the panes have shown every row once (see FIRST_ROWS)
        # the entries and rows of the last draw with no marks (then only what a new version
        # changed is drawn anew: see _rows_after)
        self._last_plain: tuple[tuple[Entry, ...], list[Row], list[Row]] | None = None
        # a version on screen that waits for its frame to be journaled, and the append under
        # way (set when done): the screen does not go before either is journaled
        self._unjournaled: Examined | None = None
        self._journaling: threading.Event | None = None

    # --- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield TopBar(id="topbar")
        if self.narration:
            yield Static(id="narration")
        with Horizontal(id="panes"):
            yield EntryPane("sealed", id="sealed")
            yield EntryPane("rewritable", id="rewritable")
        yield BudgetGauge(id="gauge")
        yield Static(id="standing")  # what stays true of the pad: halted, rules at risk
        yield StatusLine(id="status")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#rewritable", EntryPane).focus()
        if not self.opening:
            self.refresh_view()
            self.ready.set()
            return
        self._say_reading()
        # (read at once, not after that first frame: the read's first 20 ms or more is the
        # settle rule's wait, and the frame is drawn meanwhile)
        self._first_reading()

    @work(group="first-reading", description="read the pad")
    async def _first_reading(self) -> None:
        """(a worker: the screen goes on drawing and answering keys while a large pad is
        read, and draws it as soon as it is taken in)"""
        insp = self.inspection
        # (the watch's imports made meanwhile, not on this thread as it starts)
        loading = asyncio.ensure_future(asyncio.to_thread(load_watch)) if self.watching else None
        file: PadFile | None = None
        try:
            problem = await asyncio.to_thread(open_journal, insp, self.journal, RECENT_VERSIONS)
            if problem is not None:
                self.notify(f"journal not read: {problem}", severity="warning")
            reading = await read_settled(insp.path, fmt=self.pad_format)
            file = reading.snapshot.file if reading.snapshot is not None else None
            if file is not None and sum(not e.sealed for e in file.pad.entries) > RULES_AT_ONCE:
                # (sought once the first version is drawn, see find_unsealed_rules; fewer
                # are found at once as it is drawn)
                self._at_risk_ahead = file.pad
            # on screen first; the journal's append (an fsync, a large pad's blobs) follows
            prepared = await asyncio.to_thread(prepare, insp, reading, False)
        except Exception as exc:  # (see failure)
            prepared = Prepared(reading=Reading("unreadable", detail=failure(insp.path, exc)))
        self.take_prepared(prepared)
        ahead = self._at_risk_ahead
        if ahead is not None and file is not None and prepared.examined is not None:
            self.call_after_refresh(
                self.find_unsealed_rules, file.data, ahead, insp.rule_map, self._rule_memo
            )
        if loading is not None:
            with contextlib.suppress(Exception):  # (else the watch imports them itself)
                await loading
        if prepared.examined is not None and self.journal is not False:
            self._journal_first(prepared.examined)  # (a worker: the screen draws meanwhile)
        else:
            self._opened()

    def _opened(self) -> None:
        self._announce_outstanding()
        self.ready.set()
        if self.watching:
            self.follow_pad()

    @work(group="first-journal", description="journal the first version")
    async def _journal_first(self, examined: Examined) -> None:
        """Journal the first version, on screen already, and give it the journal's number
        (the one ``padtui history`` and ``history --restore`` know it by). The watch starts
        after it: the versions it sees are journaled after this one."""
        try:
            await self._journal_first_version(examined)
        finally:
            self._opened()

    async def _journal_first_version(self, examined: Examined) -> None:
        self._number(*await self._journal_drawn(examined))

    async def _journal_drawn(self, examined: Examined) -> tuple[str, Journaled | None]:
        """Journal a version on screen once the frame that shows it is drawn (DRAWN_WAIT at
        most; if the screen goes meanwhile, it is journaled as it goes: see on_unmount)."""
        self._unjournaled = examined
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wait_for_refresh(), DRAWN_WAIT)
        return await self._journal(examined)

    def on_unmount(self) -> None:
        """Every version taken in is journaled before the screen goes: an append under way
        is waited for, and one that waits for its frame is journaled now (on this thread)."""
        resume_collection()
        if self._journaling is not None:
            self._journaling.wait(JOURNAL_WAIT)
        pending, self._unjournaled = self._unjournaled, None
        if pending is not None and self.journal is not False:
            with contextlib.suppress(Exception):  # (no screen left to say it on)
                self._append(pending)()

    def _append(self, examined: Examined) -> Callable[[], Journaled]:
        """The journal's append of a version on screen, as a call to make (``_journaling``
        is set once it is made)."""
        since = self.inspection.journaled_before(examined.digest)
        finished = self._journaling = threading.Event()
        snapshot, journal = examined.snapshot, self.journal
        if self._unjournaled is examined:
            self._unjournaled = None

        def append() -> Journaled:
            try:
                return journal_seen(snapshot, journal, since)
            finally:
                finished.set()

        return append

    async def _journal(self, examined: Examined) -> tuple[str, Journaled | None]:
        """Journal a version that is on screen (in a worker thread); None if it could not
        be (said in a notification)."""
        if self.journal is False:
            return examined.digest, None
        try:
            journaled = await asyncio.to_thread(self._append(examined))
        except (OSError, PadError) as exc:
            self.notify(f"journal not written: {exc}", severity="warning")
            return examined.digest, None
        except Exception as exc:  # (see failure)
            self.notify(failure(self.inspection.path, exc), title="journal", severity="error")
            return examined.digest, None
        return examined.digest, journaled

    def _number(self, key: str, journaled: Journaled | None) -> None:
        """Give the version ``key`` (on screen) the journal's number, and who made it."""
        if journaled is None or journaled.number is None:
            return
        lock = self.pad_lock if self.pad_lock is not None else contextlib.nullcontext()
        with lock:
            shown = self.inspection.journaled(
                key, journaled.number, journaled.origin, journaled.journal
            )
        if shown:
            self.refresh_view()

    def on_inspector_screen_appended(self, message: InspectorScreen.Appended) -> None:
        message.stop()
        self._number(message.key, message.journaled)

    def _announce_outstanding(self) -> None:
        """The alarms found on opening (written while padtui was closed), announced once."""
        alarms = self.inspection.outstanding
        if alarms:
            self._announce_alarm(alarms[-1], len(alarms))

    def _say_reading(self) -> None:
        """Say "reading PAD" on screen before the first reading is taken in: a pad of a
        million tokens takes seconds to count, audit and lay out."""
        self.refresh_view()
        try:
            size = f" ({os.path.getsize(self.inspection.path) / 2**20:.1f} MiB)"
        except OSError:
            size = ""
        name = os.path.basename(self.inspection.path)
        self.query_one("#status", StatusLine).update(
            Text(clean(f"reading {name}{size}…"), style="dim")
        )

    # --- the watch: reading → journal → audit in a worker, taken in here ------------------

    @work(exclusive=True, group="watch")
    async def follow_pad(self) -> None:
        """Follow the pad; where padtui fails on it, show that and follow it anew."""
        first = True
        path = self.inspection.path
        while True:
            try:
                await self._follow(first)
                return
            except Exception as exc:  # the watch ends with it: shown, then watched anew
                self.post_message(
                    self.Seen(Prepared(reading=Reading("unreadable", detail=failure(path, exc))))
                )
            # (each new watch reads the pad first: no write made meanwhile is missed)
            self.watch_armed.set()
            await asyncio.sleep(RETRY_AFTER_FAILURE)
            first = False  # the new watch's first reading is one to take in

    async def _follow(self, first: bool) -> None:
        insp = self.inspection
        watched = watch_pad(
            insp.path, previous=self._on_screen, fmt=self.pad_format, ahead=insp.look_ahead
        )
        async for reading in watched:
            if not self.is_attached:  # a settled read can outlast the screen on the way out
                return
            if first:  # the initial reading was taken on mount
                first = False
                self.watch_armed.set()  # (the top bar says "live" from now on)
                if reading.state != "version" or reading.pad_file is None:
                    self.refresh_view()
                    continue
            prepared = await asyncio.to_thread(
                after_frame(partial(prepare, insp, reading, self.journal, later=True))
            )
            self.post_message(self.Seen(prepared))
            if (
                prepared.examined is not None
                and prepared.number is None
                and self.journal is not False
            ):
                # journaled once on screen (see DRAWN_WAIT): the journal's work and fsync
                # are no part of the wait for it (and the next reading waits for it: the
                # journal keeps the versions' order)
                self.post_message(self.Appended(*await self._journal_drawn(prepared.examined)))

    def _on_screen(self) -> PadFile | None:
        """The version on screen: a new one is read against it (only its changes parsed)."""
        insp = self.inspection
        return insp.current.pad_file if insp.versions else None

    def on_screen_suspend(self) -> None:
        self.refresh_bindings()  # (covered: see check_action)

    def on_screen_resume(self) -> None:
        self.refresh_bindings()

    def on_inspector_screen_seen(self, message: InspectorScreen.Seen) -> None:
        message.stop()
        self.take_prepared(message.prepared)

    # --- readings ------------------------------------------------------------------------

    def take(self, reading: Reading) -> None:
        """Take a reading in on the screen's thread (a commit's own read-back, a test)."""
        self.take_prepared(prepare(self.inspection, reading, self.journal))

    def take_prepared(self, prepared: Prepared) -> None:
        """Show a new reading of the file (errors keep the last good version on screen)."""
        lock = self.pad_lock if self.pad_lock is not None else contextlib.nullcontext()
        with lock:
            try:
                self._take(prepared)
            except Exception as exc:  # (see failure)
                self.inspection.unreadable(failure(self.inspection.path, exc))
        self.refresh_view()

    def _take(self, prepared: Prepared) -> None:
        insp = self.inspection
        if prepared.journal_error is not None:
            self.notify(f"journal not written: {prepared.journal_error}", severity="warning")
        observed = take(insp, prepared)
        if observed is not None:
            telemetry.version_taken(insp, observed.version, source="inspector")
            self._to_change = len(insp.versions) > 1  # (the pane goes to what changed)
            self._announce(observed)
            hold_collection()
            self._settle_memory_once_drawn()

    @work(group="settle-memory", exclusive=True, description="set the version in memory aside")
    async def _settle_memory_once_drawn(self) -> None:
        """Once the frame showing a new version is drawn (DRAWN_WAIT at most), the garbage
        collector resumes and the version is set aside from it (``settle_memory``): neither
        is part of the wait for the frame. (``call_after_refresh`` from the screen's own
        handler runs before the frame: its widgets are not yet marked for it.)"""
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wait_for_refresh(), DRAWN_WAIT)
        finally:
            resume_collection()
        settle_memory()

    def _announce(self, observed: Observed) -> None:
        if observed.trial_invalidated:
            self.notify(
                "The pad changed: the trial was made on the old version and is "
                "closed. Press t to trial again.",
                title="trial closed",
            )
        if observed.alarm is not None:
            self._announce_alarm(observed.alarm)

    def _announce_alarm(self, alarm: Alarm, outstanding: int = 1) -> None:
        more = f" ({outstanding} alarms not acknowledged)" if outstanding > 1 else ""
        codes = (
            ", ".join(sorted({f.code for f in alarm.audit.findings if f.severity == "critical"}))
            or "UNDECLARED_LOSS"
        )
        if alarm.critical:
            self.app.bell()
            self.notify(
                f"version {alarm.version.number}: {codes}{more}. Press a for the findings.",
                title="CORRUPTION",
                severity="error",
                timeout=30,
            )
        else:
            self.notify(
                f"version {alarm.version.number}: rewritable content lost without a "
                f"declaration{more}. Press a for the findings.",
                title="undeclared loss",
                severity="warning",
                timeout=10,
            )

    # --- drawing -------------------------------------------------------------------------

    def refresh_view(self) -> None:
        insp = self.inspection
        keys = (insp.trial is not None, self.read_only)
        if keys != self._keys:  # (what escape does, what is written: the footer follows)
            self._keys = keys
            self.refresh_bindings()
        self._draw_topbar()
        if not insp.versions:
            self.query_one("#status", StatusLine).update(
                Text(clean(insp.status_detail or "waiting for the pad"), style="bold red")
            )
            return
        self._draw_panes()
        self._draw_gauge()
        self._draw_standing()
        self._draw_status()

    def _draw_topbar(self) -> None:
        insp = self.inspection
        state = {
            "live": ("● live", "green"),
            "unreadable": ("◌ mid-write?", "yellow"),
            "deleted": ("✕ deleted", "red"),
            "waiting": ("… reading", "dim"),
        }
        label, style = state.get(insp.status, (insp.status, ""))
        if not self.watching and not self.watch_armed.is_set():  # (nor anyone else: fleet)
            label, style = "■ not watching", "dim"
        elif insp.status == "live" and not self.watch_armed.is_set():
            label, style = state["waiting"]  # not live until a write would be seen
        parts = [(Text("padtui ", style="bold"), 0), (Text(label, style=style), 0)]
        alarms = len(insp.outstanding)
        if alarms:
            parts.append((Text(f"  ⚠ {alarms} alarm{'s' if alarms > 1 else ''}", "bold red"), 0))
        if self.read_only is not None:
            parts.append((Text("  read-only", style="bold yellow"), 0))
        if insp.versions:  # (left out from the right as the terminal narrows)
            limits = self._letta_limits()
            budget = f" · budget {insp.budget}"
            if limits is not None:  # (Letta budgets each block in characters)
                budget = (
                    f" · limits {sum(b.limit or 0 for b in limits)} chars"
                    f" · trial budget {insp.budget} tok"
                )
            parts += [
                (Text(f"  · v{insp.current.number}"), 1),
                (Text(budget), 2),
                (Text(f" · policy {insp.policy}"), 3),
                (Text(f" · {insp.counter.encoding}"), 4),
            ]
        folder, name = os.path.split(clean(insp.path))
        parts.append((Text(f"  {name}", style="bold cyan"), -1))  # (always shown)
        parts.append((Text(f"  {folder}", style="dim"), 5))
        self.query_one("#topbar", TopBar).show(parts)

    def _draw_panes(self) -> None:
        insp = self.inspection
        pad = insp.current.pad
        costs = totals(pad, insp.counter).costs  # (counted as the version was examined)
        dropped = {e.index for e in insp.previewed_drops}
        focus = insp.previewed_drops[-1].index if insp.previewed_drops else None
        flagged = self._flagged()
        limits = {b.id: b for b in self._letta_limits() or ()}
        rules: dict[int, int] = {}  # each unsealed entry's rules (strict keeps them)
        for r in self._unsealed_rules() or ():
            rules[r.entry.index] = rules.get(r.entry.index, 0) + 1
        first = not self._drawn_whole and len(pad.entries) > 2 * FIRST_ROWS
        marked = bool(dropped or rules or focus is not None or flagged or limits)
        last, self._last_plain = self._last_plain, None
        if not marked and not first and last is not None:
            sealed_after, rewritable_after = _rows_after(last, pad.entries, costs)
            self._last_plain = (pad.entries, sealed_after, rewritable_after)
            self._show_rows(sealed_after, rewritable_after)
            return
        sealed_rows: list[Row] = []
        rewritable_rows: list[Row] = []
        # an entry with no mark but its hazard keeps its row (the same object) while it is
        # the same entry object: a new version builds the rows of the entries it changed
        plain, self._plain_rows = self._plain_rows, {}
        for e, cost in zip(pad.entries, costs, strict=True):
            if first and len(sealed_rows) >= FIRST_ROWS and len(rewritable_rows) >= FIRST_ROWS:
                break
            if not (
                e.index in dropped
                or e.index in rules
                or e.index == focus
                or (flagged and e.id in flagged)
                or (limits and e.label in limits)
            ):
                row = plain.get(id(e))
                if row is None or row.entry is not e:
                    row = Row.plain(e, cost)
                self._plain_rows[id(e)] = row
            else:
                row = Row(
                    e,
                    cost,
                    hazard=e.protected and not e.sealed,
                    dropped=e.index in dropped,
                    focus=e.index == focus,
                    finding=flagged.get(e.id) if e.id is not None else None,
                    rules=rules.get(e.index, 0),
                    keeps=insp.policy == "strict",
                    limit=_chars(limits.get(e.label)),
                )
            (sealed_rows if e.sealed else rewritable_rows).append(row)
        if not marked and not first:
            self._last_plain = (pad.entries, sealed_rows, rewritable_rows)
        counts = None
        if first:  # the first rows now, all of them once they are on screen
            sealed_count = sum(1 for e in pad.entries if e.sealed)
            counts = (sealed_count, len(pad.entries) - sealed_count)
            self.set_timer(WHOLE_AFTER, self._draw_whole)  # (after the next frame, most often)
        self._show_rows(sealed_rows, rewritable_rows, counts)

    def _show_rows(
        self,
        sealed_rows: list[Row],
        rewritable_rows: list[Row],
        counts: tuple[int, int] | None = None,
    ) -> None:
        """The rows into the panes (``counts``: the regions' entries, when not all shown)."""
        insp = self.inspection
        trial = insp.trial
        sealed_tokens = insp.current.sealed_tokens
        if trial is not None and trial.loss_record is not None and insp.step:
            sealed_rows = [*sealed_rows, Row(trial.loss_record, trial.record_tokens, pending=True)]
            sealed_tokens += trial.record_tokens  # (the pending record is counted too)
        to_change, self._to_change = self._to_change, False
        sealed_count, rewritable_count = counts or (len(sealed_rows), len(rewritable_rows))
        self.query_one("#sealed", EntryPane).show(
            sealed_rows, f"{sealed_count} entries · {sealed_tokens} tok"
        )
        rewritable_tokens = insp.current.tokens - insp.current.sealed_tokens
        self.query_one("#rewritable", EntryPane).show(
            rewritable_rows, f"{rewritable_count} entries · {rewritable_tokens} tok", to_change
        )

    def _draw_whole(self) -> None:
        if not self._drawn_whole:
            self._drawn_whole = True
            # (the pad in memory set aside first: the rows of all its entries, made at once,
            # would otherwise start a full collection over it, most of the time this takes)
            settle_memory()
            if self.inspection.versions:
                self._draw_panes()

    def _flagged(self) -> dict[str, str]:
        """Ids named by a critical finding of the last rewrite, or of an alarm not yet dealt
        with (acknowledged, or undone by a restore), with the finding's code: the mark stays
        on the entry until then, not only until the next write."""
        insp = self.inspection
        audits = [insp.current.audit] + [a.audit for a in reversed(insp.outstanding)]
        flagged: dict[str, str] = {}
        for result in audits:
            for f in result.findings if result is not None else ():
                if f.severity == "critical":
                    for label in f.entries:
                        flagged.setdefault(label, f.code)
        return flagged

    def _draw_gauge(self) -> None:
        insp = self.inspection
        gauge = self.query_one("#gauge", BudgetGauge)
        gauge.budget = insp.budget
        gauge.sealed = insp.current.sealed_tokens
        gauge.rewritable = insp.current.tokens - insp.current.sealed_tokens
        trial = insp.trial
        if trial is None or trial.refused:
            gauge.after = None
        else:
            record = trial.record_tokens if insp.step else 0
            sealed_after = insp.current.sealed_tokens + record
            gauge.after = (sealed_after, insp.preview_tokens - sealed_after)
        gauge.chars = _chars_gauge(self._letta_limits())
        redraw(gauge)

    def _draw_standing(self) -> None:
        """The states that hold as long as the pad stays so, not a notice that fades: the
        halt (the sealed region alone over the budget), and the rules a pass may drop."""
        insp = self.inspection
        line = Text()
        if insp.halted:
            v = insp.current
            line.append(" HALT ", style="bold white on red")
            up = insp.stepped_budget(up=True)
            way = f"] sets {up[0]}, b types one" if up is not None else "b types one"
            line.append(
                f" the sealed region alone ({v.sealed_tokens} tok) is over the budget "
                f"({insp.budget}): no compaction can help; a person consolidates it, or the "
                f"budget goes up past {v.sealed_tokens} ({way})",
                style="bold red",
            )
        rules = self._unsealed_rules()
        gone = {e.index for e in insp.previewed_drops}
        if rules is None:
            line.append("\n" if line else "")
            line.append("⚑ looking for the rules at risk…", style="dim")
        elif rules:
            names: dict[str, bool] = {}
            # the protected kinds first (an unsealed constraint is the one to seal), then
            # the others, each in file order
            for r in sorted(rules, key=lambda r: not r.entry.protected):
                names[r.entry.label] = names.get(r.entry.label, False) or r.entry.index in gone
            dropped_now = sum(r.entry.index in gone for r in rules)
            n = len(rules)
            width = self.size.width or 80
            keeps = insp.policy == "strict"  # (strict refuses a pass that drops one)
            # what follows the names: the longest form that leaves them some room
            tails = [
                (
                    f"  {dropped_now} {'would drop' if keeps else 'dropped by this pass'}"
                    if dropped_now
                    else "",
                    f"  ({n} unsealed rule{'s' if n > 1 else ''} "
                    f"{'strict keeps · x seals one' if keeps else 'a pass may drop'} · u lists "
                    "them)",
                ),
                (
                    f"  {dropped_now} dropped" if dropped_now else "",
                    f"  ({n} rule{'s' if n > 1 else ''} · u lists them)",
                ),
            ]
            fits = [t for t in tails if width - 13 - len(t[0] + t[1]) >= 24]
            red, dim = fits[0] if fits else tails[-1]
            room = max(12, width - 13 - len(red + dim))
            risk = Text(no_wrap=True, overflow="ellipsis")
            risk.append(
                "⚑ protected: " if keeps else "⚠ at risk: ",
                style="bold cyan" if keeps else "bold yellow",
            )
            start = risk.cell_len
            for shown, (name, dropped) in enumerate(names.items()):
                word = ("✗ " if dropped else "") + one_line(name, 40)
                more = f", … +{len(names) - shown} more"
                if shown and risk.cell_len - start + len(word) + 2 + len(more) > room:
                    risk.append(more, style="yellow")
                    break
                risk.append(", " if shown else "")
                risk.append(word, style="bold red" if dropped else "yellow")
            risk.append(red, style="bold red")
            risk.append(dim, style="dim")
            line.append("\n" if line else "")
            line.append_text(risk)
        standing = self.query_one("#standing", Static)
        if bool(line) != standing.display:
            standing.display = bool(line)  # (a layout: the panes take its room or give it)
            standing.update(line)
        elif line:
            set_text(standing, line)

    def _unsealed_rules(self) -> tuple[RuleAtRisk, ...] | None:
        """The unsealed rules of the version on screen (a pass may drop them; a trial's
        are the same, its drops marked by the preview), or None while a thread still looks
        for them in many new entries. One cache, by the version's digest; the rules of each
        entry are kept by the entry (``AtRisk``)."""
        insp = self.inspection
        v = insp.current
        if self._at_risk is not None and self._at_risk[0] == v.digest:
            return self._at_risk[1]
        pad = v.pad
        found = self._rules.at_once(pad, insp.rule_map, RULES_AT_ONCE)
        if found is not None:
            self._at_risk = (v.digest, found)
            return found
        if self._at_risk_ahead is v.pad:  # (sought once the first version is drawn)
            self._at_risk_sought = v.digest
        if self._at_risk_sought != v.digest:
            self._at_risk_sought = v.digest
            self.find_unsealed_rules(v.digest, pad, insp.rule_map, self._rule_memo)
        return None

    @property
    def _rule_memo(self) -> RuleMemo | None:
        """The rules found in texts before, kept between runs in the count cache."""
        store = self.inspection.counter.store
        return store.rules if store is not None else None

    # (a description: else Textual makes one of its arguments' repr, a whole pad's)
    @work(exclusive=True, group="at-risk", thread=True, description="rules at risk")
    def find_unsealed_rules(
        self, version: str | bytes, pad: Pad, rule_map: RuleMap | None, memo: RuleMemo | None
    ) -> None:
        """The unsealed rules of ``pad``, the version whose digest (or bytes) is ``version``.
        A large pad's first version's are sought once it is drawn: sought while it is
        examined, they shared the interpreter with the count's own work in Python (the
        claims, the count cache's keys) and with the encoder's load, and put off the first
        draw by as long as they took."""
        try:
            rules = self._rules.of(pad, rule_map, memo)
            key = version if isinstance(version, str) else digest(version)
        except Exception as exc:  # (see failure)
            self._failed_in_thread(exc, "rules at risk not found")
            return
        self.app.call_from_thread(self._at_risk_ready, key, rules)

    def _at_risk_ready(self, digest: str, rules: tuple[RuleAtRisk, ...]) -> None:
        insp = self.inspection
        current = insp.current.digest if insp.versions else None
        if digest != current and self._at_risk is not None and self._at_risk[0] == current:
            return  # (a search for a version gone by, ended after the current one's)
        self._at_risk = (digest, rules)
        if digest == current:
            self.refresh_view()

    def _failed_in_thread(self, exc: Exception, title: str, timeout: float | None = None) -> None:
        """(worker thread) padtui's own failure at some work on the pad, as an error notice."""
        self.app.call_from_thread(
            self.notify,
            failure(self.inspection.path, exc),
            title=title,
            severity="error",
            timeout=timeout,
        )

    def _draw_status(self) -> None:
        insp = self.inspection
        status = self.query_one("#status", StatusLine)
        trial = insp.trial
        line = Text()
        if trial is not None:
            line.append_text(self._trial_line(trial))
        else:
            v = insp.current
            line.append(f" {v.verdict} ", style=verdict_style(self.app.theme_variables, v.verdict))
            critical = sorted(
                {f.code for f in v.audit.findings if f.severity == "critical"}
                if v.audit is not None
                else set()
            )
            if critical:
                line.append("  " + ", ".join(critical), style="bold red")
                line.append(" · a: findings · i: why", style="dim")
            line.append(
                f"  last rewrite (v{v.number}, {one_line(v.origin, 20)}) · {v.tokens} tok · "
                f"{v.claims} claims · press t to trial a compaction"
            )
        if insp.status in ("unreadable", "deleted"):
            line.append("\n")
            line.append(
                clean(insp.status_detail) + " — showing the last good version", style="bold yellow"
            )
        set_text(status, line)

    def _trial_line(self, trial: Plan) -> Text:
        insp = self.inspection
        line = Text()
        if trial.refused:
            # one short line, whatever the pass would drop: the list is in the refusal dialog
            # (c) and under u, where it scrolls
            line.append(f" refused {trial.code} ", style="bold white on red")
            if trial.code in KEEPS:
                line.append(f"  {refusal_summary(trial, self.read_only is None)}")
                line.append("  (c explains · u lists the rules)", style="dim")
                return line
            line.append(f"  {clean(trial.message)}")
            if trial.way_out:
                way = way_out(trial, insp.path, self.pad_format)
                line.append(f"  way out: {one_line(way)}", style="bold")
            if self.read_only is None:
                line.append("  (c explains)", style="dim")
            return line
        line.append(f" {trial.verdict} ", style="bold black on green")
        line.append(
            f"  {trial.policy} · step {insp.step}/{len(trial.dropped)} drops · "
            f"{trial.tokens_total} → {insp.preview_tokens} tok · claims "
            f"{trial.claims_before} → {insp.preview_claims}"
        )
        if trial.dropped and self.read_only is not None:
            line.append("  n/p step · esc leave · read-only: nothing is written", style="dim")
        elif trial.dropped:
            line.append("  n/p step · c commit · esc leave", style="dim")
        over = trial.over_dropping_line()
        if over is not None:
            line.append("\n" + one_line(over), style="yellow")
        return line

    # --- actions -------------------------------------------------------------------------

    def _need_version(self) -> bool:
        if not self.inspection.versions:
            self.notify("No version of the pad has been read yet.", severity="warning")
            return False
        return True

    def action_trial(self) -> None:
        if self._need_version():
            self.inspection.start_trial()
            self.refresh_view()

    def action_step_next(self) -> None:
        if self.inspection.trial is None:
            self.notify("Press t to trial a compaction first.")
        elif self.inspection.step_forward():
            self.refresh_view()

    def action_trial_first(self) -> None:
        self.notify("Press t to trial a compaction first.")

    def action_step_prev(self) -> None:
        if self.inspection.trial is None:
            self.notify("Press t to trial a compaction first.")
        elif self.inspection.step_back():
            self.refresh_view()

    def action_commit(self) -> None:
        insp = self.inspection
        if not self._need_version():
            return
        trial = insp.trial or insp.start_trial()
        self.refresh_view()
        if trial.refused:
            self.app.push_screen(
                RefusalScreen(trial, insp.path, self.pad_format),
                partial(self._after_refusal, trial),
            )
        elif not trial.dropped:
            self.notify("The pad fits its budget: nothing to commit.")
        else:
            self.app.push_screen(
                CommitScreen(trial, insp.path), partial(self._after_confirm, trial)
            )

    def _still_open(self, trial: Plan) -> bool:
        """Is ``trial`` still the open trial (no new version came while a dialog was up)?"""
        if self.inspection.trial is trial:
            return True
        self.notify(
            "The pad changed while the dialog was open. Press t to trial again.",
            title="nothing written",
            severity="warning",
        )
        return False

    def _after_confirm(self, trial: Plan, confirmed: bool | None) -> None:
        if confirmed and self._still_open(trial):
            snapshot = self.inspection.current.snapshot  # the version the trial was made from
            self.inspection.end_trial()  # reading our own write back must not "close" it
            self.refresh_view()
            self.write_commit(snapshot, trial)

    def _after_refusal(self, trial: Plan, choice: WayOut | None) -> None:
        if choice is None or not self._still_open(trial):
            return
        if choice.externalize:
            self.write_externalize(self.inspection.current.snapshot, list(choice.externalize))
        elif choice.budget is not None:
            self.inspection.set_budget(choice.budget)  # (the trial is made again at it)
            self.notify(f"budget {choice.budget}: the trial again")
            self.refresh_view()

    def action_rules(self) -> None:
        insp = self.inspection
        if not self._need_version():
            return
        rules = self._unsealed_rules()
        if rules is None:
            self.notify("Still looking for the rules at risk: a moment.")
            return
        if insp.trial is None:
            insp.start_trial()
        self.refresh_view()
        self.app.push_screen(RulesScreen(rules, {e.index for e in insp.previewed_drops}))

    def action_externalize(self) -> None:
        if not self._need_version():
            return
        trial = self.inspection.trial
        if trial is not None and trial.code in KEEPS and self.read_only is None:
            # a trial refused for what strict keeps: x is its way out, whatever is selected
            snapshot = self.inspection.current.snapshot
            self.write_externalize(snapshot, to_seal(trial))
            return
        pane = self.focused if isinstance(self.focused, EntryPane) else None
        row = pane.selected_row if pane is not None else None
        if row is None or row.pending:
            self.notify("Select an entry in a pane first.")
            return
        e = row.entry
        holds = {r.entry.index for r in self._unsealed_rules() or ()}
        if e.sealed:
            self.notify(f"{clean(e.label)} is already sealed.")
        elif not e.protected and e.index not in holds:
            self.notify(
                f"{clean(e.label)} is a {clean(e.kind)} that holds no rule: only rules, "
                "constraints, negative facts and loss records are sealed.",
                severity="warning",
            )
        else:
            snapshot = self.inspection.current.snapshot
            self.write_externalize(snapshot, [snapshot.pad.name_of(e)])

    @work(exclusive=True, group="write", thread=True, description="commit")
    def write_commit(self, snapshot: Snapshot, trial: Plan) -> None:
        self._write(
            lambda: store.commit(snapshot, trial, journal=self.journal),
            f"committed: dropped {len(trial.dropped)}, "
            f"{trial.tokens_total} → {trial.tokens_after} tok",
        )

    @work(exclusive=True, group="write", thread=True, description="externalize")
    def write_externalize(self, snapshot: Snapshot, labels: list[str]) -> None:
        rule_map = self.inspection.rule_map
        what = ", ".join(labels) if len(labels) <= 3 else f"{len(labels)} entries"
        self._write(
            lambda: sealing.externalize(snapshot, labels, journal=self.journal, rule_map=rule_map),
            "sealed " + what,
        )

    def _write(self, commit: Callable[[], Snapshot], what: str) -> None:
        """Run a safe commit (in a worker thread); every failure lands here, as a notice."""
        try:
            written = commit()
        except (store.CommitError, PadError) as exc:
            self.app.call_from_thread(
                self.notify,
                clean(exc.line()),
                title="nothing written",
                severity="error",
                timeout=10,
            )
            return
        except OSError as exc:  # a full disk, a folder gone read-only: not a crash
            self.app.call_from_thread(
                self.notify,
                clean(f"{self.inspection.path}: {exc.strerror or exc}"),
                title="write failed",
                severity="error",
                timeout=10,
            )
            return
        except Exception as exc:  # (see failure): the pad is left as it was
            self._failed_in_thread(exc, "nothing written", timeout=10)
            return
        self.app.call_from_thread(self._written, written, what)

    def _written(self, written: Snapshot, what: str) -> None:
        self.inspection.note_own_write(written.data)
        self.inspection.end_trial()
        self.notify(clean(what), title="written")
        self.take(Reading("version", written))

    def action_budget_down(self) -> None:
        if self._need_version():
            self.inspection.scale_budget(up=False)
            self.refresh_view()

    def action_budget_up(self) -> None:
        if self._need_version():
            self.inspection.scale_budget(up=True)
            self.refresh_view()

    def action_budget_set(self) -> None:
        if self._need_version():
            self.app.push_screen(BudgetScreen(self.inspection.budget), self._budget_typed)

    def _budget_typed(self, value: int | None) -> None:
        if value is not None:
            self.inspection.set_budget(value)
            self.refresh_view()

    def action_switch_policy(self) -> None:
        if self._need_version():
            policy = self.inspection.switch_policy()
            self.notify(f"policy: {policy}")
            self.refresh_view()

    def action_history(self) -> None:
        if self._need_version():
            self.app.push_screen(HistoryScreen(self.inspection.versions, self._older()))

    def _older(self) -> Callable[[list[SeenVersion]], list[SeenVersion]] | None:
        """How the history reads versions older than those taken in (from the journal)."""
        if self.journal is False:
            return None
        insp, journal = self.inspection, self.journal

        def older(listed: list[SeenVersion]) -> list[SeenVersion]:
            j = store.journal_of(insp.path, journal)
            if j is None or not os.path.exists(j.path):
                return []
            return insp.earlier(j, HISTORY_STEP, oldest=listed[0].number) if listed else []

        return older

    def action_alarms(self) -> None:
        self.app.clear_notifications()  # (the alarms are seen: their notices have done)
        self.app.push_screen(
            AlarmsScreen(self.inspection.alarms, self.inspection.outstanding), self._acknowledge
        )

    def _acknowledge(self, numbers: set[int] | None) -> None:
        """The alarms the user acknowledged on the alarms screen: recorded in the journal
        (so that ``padtui history`` and the next session know), then off the top bar."""
        if not numbers:
            return
        insp = self.inspection
        try:
            journal = store.journal_of(insp.path, self.journal)
            if journal is not None:
                for n in sorted(numbers):
                    journal.acknowledge(n)
        except (OSError, PadError) as exc:
            self.notify(f"acknowledged here only; journal not written: {exc}", severity="warning")
        insp.acknowledge(numbers)
        listed = ", ".join(f"v{n}" for n in sorted(numbers))
        self.notify(f"acknowledged: {listed}", title="alarms")
        self.refresh_view()

    def action_concept(self) -> None:
        self.app.push_screen(ConceptScreen(self.inspection))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_leave_trial(self) -> None:
        if self.inspection.trial is not None:
            self.inspection.end_trial()
            self.refresh_view()
        elif self.back:
            self.dismiss(None)

    def action_back(self) -> None:
        self.action_leave_trial()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """What the footer offers and the keys do: those that write the pad, nothing on a
        pad padtui only reads; those on the pad, nothing while the screen is covered; and
        escape says "Back" only where there is somewhere to go back to, and then only once
        no trial is open (it leaves the trial first)."""
        if action in WRITE_ACTIONS and self.read_only is not None:
            return False
        if action in PAD_ACTIONS and self.is_attached and self.app.screen is not self:
            # (the command palette lists and runs them, on this screen)
            return isinstance(self.app.screen, CommandPalette)
        if action in ("step_next", "step_prev"):  # (a trial's own keys: only in one)
            return self.inspection.trial is not None
        if action == "trial_first":
            return self.inspection.trial is None
        if action == "back":
            return self.back and self.inspection.trial is None
        if action == "leave_trial":
            return self.inspection.trial is not None or not self.back
        return True

    @property
    def read_only(self) -> str | None:
        """Why padtui does not write this pad back (a Letta agent file, a memory export), or
        None: it does."""
        insp = self.inspection
        if self.read_only_reason is not None:
            return self.read_only_reason
        if insp.versions:
            layout = insp.current.layout
            return read_only_reason(layout.format) or layout.read_only
        return read_only_reason(self.pad_format or format_for_name(insp.path) or "")

    def _letta_limits(self) -> list[letta.BlockLimit] | None:
        """A Letta agent file's blocks: characters against each one's limit (else None)."""
        insp = self.inspection
        if not insp.versions:
            return None
        fmt = named(insp.current.layout.format)
        if fmt is None or fmt.token_budget:  # (only a pad budgeted in characters has them)
            return None
        v = insp.current
        key = v.digest
        if self._limits is None or self._limits[0] != key:
            pad = v.pad
            costs = insp.counter.count_many(e.text for e in pad.entries)
            found = letta.limits(pad, dict(zip((e.index for e in pad.entries), costs, strict=True)))
            self._limits = (key, found)
        return self._limits[1]


KEEPS = ("PROTECTED_KIND_WOULD_DROP", "RULE_WOULD_DROP")


def refusal_summary(trial: Plan, writable: bool = True) -> str:
    """A refused trial in a few words: for what strict keeps, how many rules (or protected
    entries) would drop and the key that seals them (``refused: 12 rules would drop · x
    seals them``); else its message, cut short."""
    if trial.code not in KEEPS:
        return one_line(trial.message, 120)
    lost = sum(r.dropped for r in trial.rules_at_risk)
    protected = sum(e.protected and not e.sealed for e in trial.dropped)
    if trial.code == "RULE_WOULD_DROP" or not protected:
        what = f"{lost} rule{'s' if lost != 1 else ''}"
    else:
        what = f"{protected} protected entr{'ies' if protected != 1 else 'y'}"
    keys = f" · x seals {'it' if len(trial.to_seal) == 1 else 'them'}" if writable else ""
    return f"refused: {what} would drop{keys}"


def _rows_after(
    last: tuple[tuple[Entry, ...], list[Row], list[Row]],
    entries: tuple[Entry, ...],
    costs: Sequence[int],
) -> tuple[list[Row], list[Row]]:
    """The rows (sealed, rewritable; none marked) of a pad's new version, from those of the
    version drawn last: the entries it shares with it at its start and at its end are the
    very objects (``inspection.shared``), so their rows are too; the others are made."""
    before, sealed, rewritable = last
    a, t = common_ends(before, entries)
    end = len(entries) - t
    sa = sum(map(_SEALED, entries[:a]))
    st = sum(map(_SEALED, entries[end:]))
    mid_sealed: list[Row] = []
    mid_rewritable: list[Row] = []
    for e, cost in zip(entries[a:end], costs[a:end], strict=True):
        row = Row.plain(e, cost)
        (mid_sealed if e.sealed else mid_rewritable).append(row)
    return (
        [*sealed[:sa], *mid_sealed, *sealed[len(sealed) - st :]],
        [*rewritable[: a - sa], *mid_rewritable, *rewritable[len(rewritable) - (t - st) :]],
    )


_SEALED = attrgetter("sealed")


def _chars(block: letta.BlockLimit | None) -> tuple[int, int] | None:
    if block is None or block.limit is None:
        return None
    return block.chars, block.limit


def _chars_gauge(blocks: list[letta.BlockLimit] | None) -> tuple[int, int, int, str] | None:
    """The gauge of a Letta agent file: characters against the blocks' limits summed."""
    if not blocks or all(b.limit is None for b in blocks):
        return None
    sealed = sum(b.chars for b in blocks if b.sealed)
    rewritable = sum(b.chars for b in blocks if not b.sealed)
    over = sum(b.over for b in blocks)
    near = sum(
        not b.over and b.limit is not None and b.chars >= NEAR_LIMIT * b.limit for b in blocks
    )
    said = [f"{over} over its limit" if over else "", f"{near} near it" if near else ""]
    blocks_said = " · ".join(x for x in said if x)
    return (
        sealed,
        rewritable,
        sum(b.limit or 0 for b in blocks),
        (f" · blocks: {blocks_said}" if blocks_said else ""),
    )
