"""The live inspector: a Textual app over :class:`padtui.core.inspection.Inspection`."""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import partial
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Footer, Static

from padtui.core import letta, store
from padtui.core.compaction import Plan, RuleAtRisk, unsealed_rules
from padtui.core.errors import PadError
from padtui.core.formats import PadFile, format_for_name, read_only_reason
from padtui.core.inspection import OWN, Alarm, Inspection, Observed, digest, journal_origin
from padtui.core.model import Pad
from padtui.core.rules import RuleMap
from padtui.core.store import Snapshot
from padtui.core.text import clean, one_line
from padtui.core.watcher import Reading, read_settled, watch_pad
from padtui.tui.concept import ConceptScreen
from padtui.tui.screens import (
    AlarmsScreen,
    BudgetScreen,
    CommitScreen,
    HelpScreen,
    HistoryScreen,
    RefusalScreen,
    RulesScreen,
    WayOut,
    way_out,
)
from padtui.tui.terminal import CLEANED
from padtui.tui.widgets import NEAR_LIMIT, BudgetGauge, EntryPane, Row, StatusLine, TopBar

VERDICT_STYLES = {
    "corruption": "bold white on red",
    "undeclared_loss": "bold black on yellow",
    "compaction": "bold green",
    "growth": "cyan",
    "unchanged": "dim",
    "initial": "dim",
}


# a trial of a pad of up to this many entries finds its rules at risk at once (a few tenths
# of a second at most); a larger one in a thread, the screen showing them when found
RULES_AT_ONCE = 2000
# the line under the gauge names the rules at risk of every new version: found at once on the
# screen's thread only for a pad this small (a few ms), else in a thread, off the watch path
STANDING_AT_ONCE = 200
# after padtui itself fails on a pad's content, the pad is read again this often (seconds)
# until it reads: the view shows the failure meanwhile, and recovers once the pad is mended
RETRY_AFTER_FAILURE = 1.0
# the newest journaled versions the inspector takes in when it opens a pad (its history then
# starts there), fewer when they hold more than RECENT_BYTES (about 40 ms a 100 KB version):
# the version on disk is audited against the last of them
RECENT_VERSIONS = 16
RECENT_BYTES = 500_000

PAD_ACTIONS = frozenset(
    {
        "trial",
        "step_next",
        "step_prev",
        "leave_trial",
        "commit",
        "externalize",
        "budget_down",
        "budget_up",
        "budget_set",
        "switch_policy",
        "rules",
    }
)


# actions that write the pad: not offered on a pad padtui only reads (a Letta agent file)
WRITE_ACTIONS = frozenset({"commit", "externalize"})

FAILED = "padtui failed to read it"


def failure(path: str, exc: BaseException) -> str:
    """padtui's own failure on one pad (an exception no check foresaw), as the one line a
    view shows in place of the pad: never a crash of the view, nor of the fleet."""
    what = one_line(f"{type(exc).__name__}: {exc}", 160)
    return f"{store.UNREADABLE}: {path}: {FAILED} ({what})"


class PadApp(App[int]):
    """Watch one pad file, trial and step compactions, commit them safely."""

    CSS_PATH = "app.tcss"
    TITLE = "padtui"
    ENABLE_COMMAND_PALETTE = True

    BINDINGS: ClassVar[list[BindingType]] = [
        # help and quit first: the footer shows as many keys as the terminal is wide
        Binding(
            "question_mark",
            "help",
            "Help",
            id="help",
            key_display="?",
            tooltip="Keys and what the panes mean",
        ),
        Binding("q", "quit", "Quit", id="quit", tooltip="Quit padtui"),
        Binding(
            "t", "trial", "Trial", id="trial", tooltip="Trial a compaction of the current version"
        ),
        Binding(
            "n", "step_next", "Next drop", id="step.next", tooltip="Step the trial one drop forward"
        ),
        Binding(
            "p", "step_prev", "Prev drop", id="step.prev", tooltip="Step the trial one drop back"
        ),
        Binding(
            "escape",
            "leave_trial",
            "Leave trial",
            id="trial.leave",
            show=False,
            tooltip="Leave the trial; nothing is written",
        ),
        Binding(
            "c", "commit", "Commit", id="commit", tooltip="Commit the trial (shows the diff first)"
        ),
        Binding(
            "x",
            "externalize",
            "Externalize",
            id="externalize",
            tooltip="Seal the selected constraint, negative fact or loss record",
        ),
        Binding(
            "left_square_bracket",
            "budget_down",
            "Budget −",
            id="budget.down",
            key_display="[",
            tooltip="Budget down 10 %",
        ),
        Binding(
            "right_square_bracket",
            "budget_up",
            "Budget +",
            id="budget.up",
            key_display="]",
            tooltip="Budget up 10 %",
        ),
        Binding("b", "budget_set", "Budget", id="budget.set", tooltip="Type a budget"),
        Binding("s", "switch_policy", "Policy", id="policy", tooltip="Switch policy strict / seed"),
        Binding(
            "u",
            "rules",
            "Rules at risk",
            id="rules",
            show=False,
            tooltip="Every unsealed rule a pass may drop, those the trial drops first",
        ),
        Binding(
            "h",
            "history",
            "History",
            id="history",
            tooltip="Versions seen, with the verdict of each rewrite",
        ),
        Binding(
            "a",
            "alarms",
            "Alarms",
            id="alarms",
            tooltip="Corruption and undeclared loss seen so far",
        ),
        Binding(
            "i",
            "concept",
            "Why?",
            id="concept",
            tooltip="Compaction or corruption: the concept, with this pad as the example",
        ),
    ]

    def __init__(
        self,
        path: str,
        *,
        budget: int | None = None,
        policy: str = "strict",
        encoding: str | None = None,
        journal: str | None = None,
        use_journal: bool = True,
        watch: bool = True,
        clock: Callable[[], datetime] | None = None,
        fmt: str | None = None,
        rule_map: RuleMap | None = None,
    ) -> None:
        super().__init__()
        self.inspection = Inspection(
            path, policy=policy, budget_override=budget, encoding=encoding, rule_map=rule_map
        )
        self.pad_format = fmt  # --format: read the pad as this format, whatever its name
        if clock is not None:  # a fixed clock makes the screen reproducible (snapshot tests)
            self.inspection.clock = clock
        self.journal_path = journal
        self.use_journal = use_journal
        self.watching = watch
        self.ready = asyncio.Event()  # the first reading is on screen
        self.watch_armed = asyncio.Event()  # from now on, every write to the pad is seen
        self._rules_found: Plan | None = None  # the trial whose rules at risk are known
        self._rules_sought: Plan | None = None  # the trial a worker finds them for
        # the unsealed rules of the version on screen (by its digest), and the version a
        # worker finds them for
        self._at_risk: tuple[str, tuple[RuleAtRisk, ...]] | None = None
        self._at_risk_sought: str | None = None
        self._limits: tuple[str, list[letta.BlockLimit]] | None = None  # (by version digest)
        self._to_change = False  # a new version came: the rewritable pane moves to its change

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then ``Cleaned``: every line any screen draws, cleaned."""
        return [*super().get_line_filters(), CLEANED]

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A notice. Notices echo pad text (ids, kinds, the path, error lines), so their
        message is never parsed as markup (Textual's default), whoever sends it."""
        super().notify(
            clean(message), title=clean(title), severity=severity, timeout=timeout, markup=False
        )

    # --- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield TopBar(id="topbar")
        with Horizontal(id="panes"):
            yield EntryPane("sealed", id="sealed")
            yield EntryPane("rewritable", id="rewritable")
        yield BudgetGauge(id="gauge")
        yield Static(id="standing")  # what stays true of the pad: halted, rules at risk
        yield StatusLine(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self._say_reading()
        self.call_after_refresh(self._first_reading)  # once that is on screen

    async def _first_reading(self) -> None:
        try:
            problem = await asyncio.to_thread(self.open_journal, self.inspection, RECENT_VERSIONS)
            if problem is not None:
                self.notify(f"journal not read: {problem}", severity="warning")
            reading = await read_settled(self.inspection.path, fmt=self.pad_format)
        except Exception as exc:  # (see failure)
            reading = Reading("unreadable", detail=failure(self.inspection.path, exc))
        self.take(reading)
        self._announce_outstanding()
        self.ready.set()
        self.query_one("#rewritable", EntryPane).focus()
        if self.watching:
            self.watch_pad()

    def open_journal(
        self, insp: Inspection, recent: int, most_bytes: int | None = RECENT_BYTES
    ) -> str | None:
        """(a worker thread) Take in the newest journaled versions of the pad and the alarms
        acknowledged there; returns why the journal could not be read, if it could not."""
        if not self.use_journal:
            return None
        try:
            journal = store.journal_of(insp.path, self._journal_arg())
            if journal is not None and os.path.exists(journal.path):
                journal.check_owner()  # (--journal naming another pad's: not taken in)
                insp.open_journal(journal, recent, most_bytes)
        except (OSError, PadError) as exc:
            return str(exc)
        return None

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

    @work(exclusive=True, group="watch")
    async def watch_pad(self) -> None:
        """Follow the pad; where padtui fails on it, show that and follow it anew."""
        first = True
        while True:
            try:
                await self._follow(first)
                return
            except Exception as exc:  # the watch ends with it: shown, then watched anew
                self.take(Reading("unreadable", detail=failure(self.inspection.path, exc)))
            # (each new watch reads the pad first: no write made meanwhile is missed)
            self.watch_armed.set()
            await asyncio.sleep(RETRY_AFTER_FAILURE)
            first = False  # the new watch's first reading is one to take in

    async def _follow(self, first: bool) -> None:
        async for reading in watch_pad(
            self.inspection.path, previous=self._on_screen, fmt=self.pad_format
        ):
            if not self.is_running:  # a settled read can outlast the screen on the way out
                return
            if first:  # the initial reading was taken on mount
                first = False
                self.watch_armed.set()  # (the top bar says "live" from now on)
                if reading.state == "version" and reading.pad_file is not None:
                    self.take(reading)
                else:
                    self.refresh_view()
                continue
            self.take(reading)

    def _on_screen(self) -> PadFile | None:
        """The version on screen: a new one is read against it (only its changes parsed)."""
        insp = self.inspection
        return insp.current.pad_file if insp.versions else None

    # --- readings ------------------------------------------------------------------------

    def take(self, reading: Reading) -> None:
        """Show a new reading of the file (errors keep the last good version on screen)."""
        try:
            self._take(reading)
        except Exception as exc:  # (see failure)
            self.inspection.unreadable(failure(self.inspection.path, exc))
            self.refresh_view()

    def _take(self, reading: Reading) -> None:
        insp = self.inspection
        if reading.state == "deleted":
            insp.deleted()
        elif reading.state == "unreadable":
            insp.unreadable(reading.detail)
            if not insp.versions:
                self.refresh_view()
                return
        elif reading.snapshot is not None:
            number, origin = None, None
            if not insp.versions or insp.current.digest != digest(reading.snapshot.data):
                number, origin = self._journal(reading)
            observed = insp.observe(reading.snapshot, origin=origin, number=number)
            if observed is not None:
                self._to_change = len(insp.versions) > 1  # (the pane goes to what changed)
                self._announce(observed)
                self.call_after_refresh(self._settle_memory)
        self.refresh_view()

    @staticmethod
    def _settle_memory() -> None:
        """Once a new version is on screen, set what is in memory aside from the cyclic
        garbage collector. Every version stays for the session (history, audits), and a
        full collection over the versions of a large pad takes 100-200 ms: a write landing
        meanwhile would wait it out. Young garbage is collected first."""
        gc.collect(1)
        gc.freeze()

    def on_unmount(self) -> None:
        gc.unfreeze()  # the app is done with them: collectable again (tests run many apps)

    def _journal(self, reading: Reading) -> tuple[int | None, str | None]:
        """Journal a new version first: its number, and who made it if padtui did (a restore
        or a commit, from here or from the command line)."""
        if not self.use_journal or reading.snapshot is None:
            return None, None
        try:
            journal = store.journal_of(reading.snapshot.path, self._journal_arg())
            n = store.record(reading.snapshot, journal or False)
            made_by = journal.version(n).origin if journal is not None and n is not None else ""
        except (OSError, PadError) as exc:
            self.notify(f"journal not written: {exc}", severity="warning")
            return None, None
        origin = journal_origin(made_by)
        return n, origin if origin in OWN else None

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
            self.bell()
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
        if not self.watching:
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
        pad = insp.current.pad_file.pad
        costs = insp.counter.count_many(e.text for e in pad.entries)
        dropped = {e.index for e in insp.previewed_drops}
        focus = insp.previewed_drops[-1].index if insp.previewed_drops else None
        flagged = self._flagged()
        limits = {b.id: b for b in self._letta_limits() or ()}
        rules: dict[int, int] = {}  # in a trial: each entry's rules at risk
        for r in self._rules(insp.trial) or () if insp.trial is not None else ():
            rules[r.entry.index] = rules.get(r.entry.index, 0) + 1
        sealed_rows: list[Row] = []
        rewritable_rows: list[Row] = []
        for e, cost in zip(pad.entries, costs, strict=True):
            row = Row(
                e,
                cost,
                hazard=e.protected and not e.sealed,
                dropped=e.index in dropped,
                focus=e.index == focus,
                finding=flagged.get(e.id) if e.id is not None else None,
                rules=rules.get(e.index, 0),
                limit=_chars(limits.get(e.label)),
            )
            (sealed_rows if e.sealed else rewritable_rows).append(row)
        trial = insp.trial
        sealed_tokens = insp.current.sealed_tokens
        if trial is not None and trial.loss_record is not None and insp.step:
            sealed_rows.append(Row(trial.loss_record, trial.record_tokens, pending=True))
            sealed_tokens += trial.record_tokens  # (the pending record is counted too)
        to_change, self._to_change = self._to_change, False
        self.query_one("#sealed", EntryPane).show(
            sealed_rows, f"{len(sealed_rows)} entries · {sealed_tokens} tok"
        )
        rewritable_tokens = insp.current.tokens - insp.current.sealed_tokens
        self.query_one("#rewritable", EntryPane).show(
            rewritable_rows, f"{len(rewritable_rows)} entries · {rewritable_tokens} tok", to_change
        )

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
        gauge.refresh(layout=True)

    def _draw_standing(self) -> None:
        """The states that hold as long as the pad stays so, not a notice that fades: the
        halt (the sealed region alone over the budget), and the rules a pass may drop."""
        insp = self.inspection
        line = Text()
        if insp.halted:
            v = insp.current
            line.append(" HALT ", style="bold white on red")
            line.append(
                f" the sealed region alone ({v.sealed_tokens} tok) is over the budget "
                f"({insp.budget}): no compaction can help; a person consolidates it, or the "
                "budget goes up (] or b)",
                style="bold red",
            )
        rules = self._standing_rules()
        if rules:
            gone = {e.index for e in insp.previewed_drops}
            names: dict[str, bool] = {}
            # the protected kinds first (an unsealed constraint is the one to seal), then
            # the others, each in file order
            for r in sorted(rules, key=lambda r: not r.entry.protected):
                names[r.entry.label] = names.get(r.entry.label, False) or r.entry.index in gone
            risk = Text()
            risk.append("⚠ at risk: ", style="bold yellow")
            room = max(20, (self.size.width or 80) - 60)
            for shown, (name, dropped) in enumerate(names.items()):
                word = ("✗ " if dropped else "") + one_line(name, 40)
                if shown and risk.cell_len + len(word) > room:
                    risk.append(f", … +{len(names) - shown} more", style="yellow")
                    break
                risk.append(", " if shown else "")
                risk.append(word, style="bold red" if dropped else "yellow")
            risk.append(
                f"  ({len(rules)} unsealed rule{'s' if len(rules) > 1 else ''} a pass may "
                "drop · u lists them)",
                style="dim",
            )
            line.append("\n" if line else "")
            line.append_text(risk)
        standing = self.query_one("#standing", Static)
        standing.update(line)
        standing.display = bool(line)

    def _standing_rules(self) -> tuple[RuleAtRisk, ...] | None:
        """The unsealed rules of the version on screen (the trial's, in a trial), or None
        while a thread still looks for them in a large pad."""
        insp = self.inspection
        if insp.trial is not None:
            return self._rules(insp.trial)
        v = insp.current
        if self._at_risk is not None and self._at_risk[0] == v.digest:
            return self._at_risk[1]
        pad = v.pad_file.pad
        if len(pad.entries) <= STANDING_AT_ONCE:
            self._at_risk = (v.digest, unsealed_rules(pad, insp.rule_map))
            return self._at_risk[1]
        if self._at_risk_sought != v.digest:
            self._at_risk_sought = v.digest
            self.find_unsealed_rules(v.digest, pad, insp.rule_map)
        return None

    @work(exclusive=True, group="at-risk", thread=True)
    def find_unsealed_rules(self, digest: str, pad: Pad, rule_map: RuleMap | None) -> None:
        try:
            rules = unsealed_rules(pad, rule_map)
        except Exception as exc:  # (see failure)
            self._failed_in_thread(exc, "rules at risk not found")
            return
        self.call_from_thread(self._at_risk_ready, digest, rules)

    def _failed_in_thread(self, exc: Exception, title: str, timeout: float | None = None) -> None:
        """(worker thread) padtui's own failure at some work on the pad, as an error notice."""
        self.call_from_thread(
            self.notify,
            failure(self.inspection.path, exc),
            title=title,
            severity="error",
            timeout=timeout,
        )

    def _at_risk_ready(self, digest: str, rules: tuple[RuleAtRisk, ...]) -> None:
        self._at_risk = (digest, rules)
        if self.inspection.versions and self.inspection.current.digest == digest:
            self.refresh_view()

    def _draw_status(self) -> None:
        insp = self.inspection
        status = self.query_one("#status", StatusLine)
        trial = insp.trial
        line = Text()
        if trial is not None:
            line.append_text(self._trial_line(trial))
        else:
            v = insp.current
            line.append(f" {v.verdict} ", style=VERDICT_STYLES.get(v.verdict, ""))
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
        status.update(line)

    def _trial_line(self, trial: Plan) -> Text:
        insp = self.inspection
        line = Text()
        if trial.refused:
            line.append(f" refused {trial.code} ", style="bold white on red")
            line.append(f"  {clean(trial.message)}")
            if trial.way_out:
                way = way_out(trial, insp.path, self.pad_format)
                line.append(f"  way out: {one_line(way)}", style="bold")
            if self.read_only is None:
                line.append("  (c explains)", style="dim")
            line.append_text(self._rules_line(trial))
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
        line.append_text(self._rules_line(trial))
        over = trial.over_dropping_line()
        if over is not None:
            line.append("\n" + one_line(over), style="yellow")
        return line

    def _rules(self, trial: Plan) -> tuple[RuleAtRisk, ...] | None:
        """The trial's rules at risk, or None while a thread still looks for them."""
        if len(trial.source.entries) <= RULES_AT_ONCE or self._rules_found is trial:
            return trial.rules_at_risk
        if self._rules_sought is not trial:
            self._rules_sought = trial
            self.find_rules(trial)
        return None

    @work(exclusive=True, group="rules", thread=True)
    def find_rules(self, trial: Plan) -> None:
        try:
            trial.rules_at_risk  # noqa: B018 (found once, kept by the plan)
        except Exception as exc:  # (see failure)
            self._failed_in_thread(exc, "rules at risk not found")
            return
        self.call_from_thread(self._rules_ready, trial)

    def _rules_ready(self, trial: Plan) -> None:
        self._rules_found = trial
        if self.inspection.trial is trial:
            self.refresh_view()

    def _rules_line(self, trial: Plan) -> Text:
        """The rules at risk, and how many of them the preview drops."""
        rules = self._rules(trial)
        line = Text()
        if rules is None:
            return line.append("\n⚑ looking for the rules at risk…", style="dim")
        if not rules:
            return line
        gone = {e.index for e in self.inspection.previewed_drops}
        dropped = sum(r.entry.index in gone for r in rules)
        line.append("\n")
        line.append(
            f"⚑ {len(rules)} rule{'s' if len(rules) > 1 else ''} at risk (unsealed)",
            style="yellow",
        )
        if dropped:
            line.append(f" · {dropped} dropped by this pass", style="bold red")
        line.append("  u lists them", style="dim")
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

    def action_step_prev(self) -> None:
        if self.inspection.trial is None:
            self.notify("Press t to trial a compaction first.")
        elif self.inspection.step_back():
            self.refresh_view()

    def action_leave_trial(self) -> None:
        if self.inspection.trial is not None:
            self.inspection.end_trial()
            self.refresh_view()

    def action_commit(self) -> None:
        insp = self.inspection
        if not self._need_version():
            return
        trial = insp.trial or insp.start_trial()
        self.refresh_view()
        if trial.refused:
            self.push_screen(
                RefusalScreen(trial, insp.path, self.pad_format),
                partial(self._after_refusal, trial),
            )
        elif not trial.dropped:
            self.notify("The pad fits its budget: nothing to commit.")
        else:
            self.push_screen(CommitScreen(trial, insp.path), partial(self._after_confirm, trial))

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
        trial = insp.trial or insp.start_trial()
        self.refresh_view()
        self.push_screen(RulesScreen(trial, {e.index for e in insp.previewed_drops}))

    def action_externalize(self) -> None:
        if not self._need_version():
            return
        pane = self.focused if isinstance(self.focused, EntryPane) else None
        row = pane.selected_row if pane is not None else None
        if row is None or row.pending:
            self.notify("Select an entry in a pane first.")
            return
        e = row.entry
        if e.sealed:
            self.notify(f"{clean(e.label)} is already sealed.")
        elif not e.protected:
            self.notify(
                f"{clean(e.label)} is a {clean(e.kind)}: only constraints, negative "
                "facts and loss records are externalized.",
                severity="warning",
            )
        else:
            snapshot = self.inspection.current.snapshot
            self.write_externalize(snapshot, [snapshot.pad.name_of(e)])

    @work(exclusive=True, group="write", thread=True)
    def write_commit(self, snapshot: Snapshot, trial: Plan) -> None:
        self._write(
            lambda: store.commit(snapshot, trial, journal=self._journal_arg()),
            f"committed: dropped {len(trial.dropped)}, "
            f"{trial.tokens_total} → {trial.tokens_after} tok",
        )

    @work(exclusive=True, group="write", thread=True)
    def write_externalize(self, snapshot: Snapshot, labels: list[str]) -> None:
        self._write(
            lambda: store.externalize(snapshot, labels, journal=self._journal_arg()),
            "externalized " + ", ".join(labels),
        )

    def _write(self, commit: Callable[[], Snapshot], what: str) -> None:
        """Run a safe commit (in a worker thread); every failure lands here, as a notice."""
        try:
            written = commit()
        except (store.CommitError, PadError) as exc:
            self.call_from_thread(
                self.notify,
                clean(exc.line()),
                title="nothing written",
                severity="error",
                timeout=10,
            )
            return
        except OSError as exc:  # a full disk, a folder gone read-only: not a crash
            self.call_from_thread(
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
        self.call_from_thread(self._written, written, what)

    def _journal_arg(self) -> store.JournalArg:
        if not self.use_journal:
            return False
        return self.journal_path if self.journal_path is not None else True

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
            self.push_screen(BudgetScreen(self.inspection.budget), self._budget_typed)

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
            self.push_screen(HistoryScreen(self.inspection.versions))

    def action_alarms(self) -> None:
        self.push_screen(
            AlarmsScreen(self.inspection.alarms, self.inspection.outstanding), self._acknowledge
        )

    def _acknowledge(self, numbers: set[int] | None) -> None:
        """The alarms the user acknowledged on the alarms screen: recorded in the journal
        (so that ``padtui history`` and the next session know), then off the top bar."""
        if not numbers:
            return
        insp = self.inspection
        try:
            journal = store.journal_of(insp.path, self._journal_arg())
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
        self.push_screen(ConceptScreen(self.inspection))

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Actions on the pad act only from the pad's own screen, not behind a dialog or the
        history (where the same keys would change the pad unseen); those that write it, not
        at all on a pad padtui only reads (they are not in the footer)."""
        if action in WRITE_ACTIONS and self.read_only is not None:
            return False
        return not (action in PAD_ACTIONS and len(self.screen_stack) > 1)

    @property
    def read_only(self) -> str | None:
        """Why padtui does not write this pad back (a Letta agent file, a memory export), or
        None: it does."""
        insp = self.inspection
        if insp.versions:
            layout = insp.current.pad_file.layout
            return read_only_reason(layout.format) or layout.read_only
        return read_only_reason(self.pad_format or format_for_name(insp.path) or "")

    def _letta_limits(self) -> list[letta.BlockLimit] | None:
        """A Letta agent file's blocks: characters against each one's limit (else None)."""
        insp = self.inspection
        if not insp.versions or insp.current.pad_file.layout.format != "af":
            return None
        v = insp.current
        key = v.digest
        if self._limits is None or self._limits[0] != key:
            pad = v.pad_file.pad
            costs = insp.counter.count_many(e.text for e in pad.entries)
            found = letta.limits(pad, dict(zip((e.index for e in pad.entries), costs, strict=True)))
            self._limits = (key, found)
        return self._limits[1]

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for binding in self.BINDINGS:
            if (
                isinstance(binding, Binding)
                and binding.action != "quit"
                and not (binding.action in WRITE_ACTIONS and self.read_only is not None)
            ):
                yield SystemCommand(
                    binding.description,
                    binding.tooltip,
                    lambda a=binding.action: self.run_action(a),
                )


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


def make_app(path: str, **options: Any) -> PadApp:
    """The inspector on ``path`` (tests and the command line both build it here)."""
    return PadApp(path, **options)
