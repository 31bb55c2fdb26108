"""Dialogs and screens of the inspector: commit, refusal, budget, alarms, history, help."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, OptionList, Sparkline, Static
from textual.widgets.option_list import Option

from padtui.core.agents import letta
from padtui.core.audit.findings import Finding
from padtui.core.compaction.plan import Plan, RuleAtRisk
from padtui.core.live.inspection import Alarm, SeenVersion
from padtui.core.text import clean, one_line
from padtui.tui.keys import KeysFooter, close_and_why
from padtui.tui.verdicts import verdict_style
from padtui.tui.widgets import PagedList

REFUSALS = {
    "SEALED_OVER_BUDGET": (
        "The sealed region alone costs more than the budget. Compaction never touches sealed "
        "entries (constraints, negative facts, loss records), so no pass can bring this pad "
        "within budget: this is the point to halt and surface, not to drop something."
    ),
    "PROTECTED_KIND_WOULD_DROP": (
        "This pass would drop an unsealed constraint, negative fact or loss record. Those "
        "cannot be rebuilt from the plan: the plan says what to do, not what is forbidden or "
        "what already failed. Move them into the sealed region first (externalize), then "
        "compact the rest."
    ),
    "RULE_WOULD_DROP": (
        "This pass would drop entries that hold rules: under a heading that names rules "
        "(## Rules, ## Lessons, ## User Preferences ...), or saying never, always, must, do "
        "not, only ... in their own words. Strict keeps every rule wherever it lives. Seal "
        "them where they stand (x: in a Markdown memory file a <!-- sealed --> marker at the "
        "end of the entry, which the agent still reads under its heading), then compact the "
        "rest; if the rules alone are over the budget, the budget must go up."
    ),
    "RECORD_WOULD_NOT_FIT": (
        "The pass cannot afford the record of its own loss: the sealed region plus the loss "
        "record this pass must append is over budget. A rewrite that consumes the budget "
        "needed to record its own loss is not a compaction but amnesia disguised as "
        "housekeeping: halt and surface."
    ),
    "NO_LOSS_RECORD": (
        "Under the seed policy a pass may drop a constraint or negative fact only if a sealed "
        "loss record exists to make the loss declarable. None does: externalize first."
    ),
}


_EXTERNALIZE_COMMAND = re.compile(r": padtui externalize PATH .*\Z", re.S)
_BUDGET_COMMAND = re.compile(r": padtui check PATH --budget (\d+)(?: --policy seed)?")


def way_out(plan: Plan, path: str, fmt: str | None = None, *, dialog: bool = False) -> str:
    """The way out of a refusal in the inspector's own keys, where the command line names a
    command (a Letta agent file's too): in the refusal dialog (``dialog``), x seals the
    entries and b trials at the budget named; on the main screen, c opens that dialog, and
    b types a budget."""
    agent_file = letta.is_agent_file(path, fmt)
    text = (letta.way_out(plan, "PATH") if agent_file else plan.way_out) or ""
    if _EXTERNALIZE_COMMAND.search(text):
        names = sealed_names(plan)
        keys = "x seals" if dialog else "c, then x, seals"
        text = _EXTERNALIZE_COMMAND.sub(lambda _m: f": {keys} {names}", text)
    keys = "b trials at it" if dialog else "b types it, ] raises the budget 10 %"
    return _BUDGET_COMMAND.sub(lambda _m: f": {keys}", text)


KEEPS = ("PROTECTED_KIND_WOULD_DROP", "RULE_WOULD_DROP")
_NAMES_SHOWN = 3  # entries a way out names, before it counts them


def to_seal(plan: Plan) -> list[str]:
    """The entries a refusal's way out seals, by the names that pick each alone: what strict
    keeps (``Plan.to_seal``), or under the seed policy the protected entries it drops."""
    pad = plan.source
    if plan.code in KEEPS:
        return [pad.name_of(e) for e in plan.to_seal]
    if plan.code == "NO_LOSS_RECORD":
        return [pad.name_of(e) for e in plan.dropped if e.protected and not e.sealed]
    return []


def sealed_names(plan: Plan) -> str:
    """Those entries in a few words: their names, or past a few, how many."""
    names = to_seal(plan)
    if len(names) > _NAMES_SHOWN:
        return f"{len(names)} entries"
    return ", ".join(names)


def rule_line(r: RuleAtRisk, dropped: bool | None = None) -> Text:
    """A rule at risk on one line: ✗ when the pass drops it, its entry, kind, heading, text."""
    gone = r.dropped if dropped is None else dropped
    line = Text()
    line.append("✗ " if gone else "  ", style="bold red")
    line.append(f"{one_line(r.entry.label, 24)}  ", style="bold")
    line.append(f"{r.kind:<13} ", style="yellow" if gone else "dim")
    if r.where:
        line.append(f"{one_line(r.where, 32)}: ", style="cyan")
    line.append(one_line(r.text, 200))
    return line


def _finding_text(f: Finding) -> Text:
    text = Text()
    style = "bold red" if f.severity == "critical" else "bold yellow"
    text.append(f"{f.severity.upper():<9}", style=style)
    text.append(f"{f.code}", style="bold")
    if f.entries:
        text.append("  " + ", ".join(clean(e) for e in f.entries), style="cyan")
    text.append("\n  " + clean(f.message))
    if f.entries and f.before is not None:
        text.append("\n  before: ", style="dim")
        text.append(one_line(f.before, 300))
    if f.entries and f.after is not None:
        text.append("\n  after:  ", style="dim")
        text.append(one_line(f.after, 300))
    return text


class CommitScreen(ModalScreen[bool]):
    """Confirm a commit: the diff it would write."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Commit", id="commit.confirm", tooltip="Write the plan"),
        Binding("escape,n", "cancel", "Cancel", id="commit.cancel", tooltip="Write nothing"),
    ]

    def __init__(self, plan: Plan, path: str) -> None:
        super().__init__()
        self.plan = plan
        self.path = path

    def compose(self) -> ComposeResult:
        p = self.plan
        diff = Text()
        for e in p.dropped:
            diff.append(
                f"- {clean(e.kind)} {clean(e.label)} ({p.costs[e.index]} tok): ", style="red"
            )
            diff.append(one_line(e.text, 200) + "\n", style="red")
        if p.loss_record is not None:
            diff.append(
                f"+ sealed loss_record {clean(p.loss_record.label)} ({p.record_tokens} tok): ",
                style="green",
            )
            diff.append(one_line(p.loss_record.text, 400) + "\n", style="green")
        lost = [r for r in p.rules_at_risk if r.dropped]
        if lost:
            diff.append(f"\nRules this commit drops ({len(lost)}):\n", style="bold red")
            for r in lost:
                diff.append_text(rule_line(r))
                diff.append("\n")
        with Vertical(id="dialog"):
            with Horizontal(classes="buttons actions"):
                yield Button("Commit (y)", variant="primary", id="confirm", compact=True)
                yield Button("Cancel (n)", id="cancel", compact=True)
            with VerticalScroll(classes="body"):
                yield Static(Text(f"Commit this compaction to {clean(self.path)}?", style="bold"))
                yield Static(
                    Text(
                        f"{p.tokens_total} → {p.tokens_after} tokens of {p.budget}; "
                        f"claims {p.claims_before} → {p.claims_after}"
                        + (
                            f"; drops {len(lost)} of {len(p.rules_at_risk)} rules at risk"
                            if lost
                            else ""
                        )
                    )
                )
                yield Static(diff, id="diff")

    @on(Button.Pressed, "#confirm")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)


@dataclass(frozen=True)
class WayOut:
    """What the person chose in a refusal: seal these entries, or try this budget."""

    externalize: tuple[str, ...] = ()
    budget: int | None = None


class RulesScreen(ModalScreen[None]):
    """Every rule in an unsealed entry (a pass may drop it), those the trial drops first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,u", "close", "Close", id="rules.close", tooltip="Back to the pad"),
    ]

    def __init__(self, rules: Sequence[RuleAtRisk], dropped: set[int]) -> None:
        super().__init__()
        self.rules = rules
        self.dropped = dropped  # the entries the preview drops (the stepper may be part way)

    def compose(self) -> ComposeResult:
        rules = self.rules
        gone = [r for r in rules if r.entry.index in self.dropped]
        head = Text(f"Rules at risk ({len(rules)})", style="bold")
        if rules:
            head.append(
                f" · in unsealed entries, a pass may drop them; this one drops {len(gone)} (✗)"
                " · esc: back"
            )
        else:
            head.append(" · none found in unsealed entries · esc: back")
        order = sorted(rules, key=lambda r: r.entry.index not in self.dropped)
        with Vertical(id="dialog", classes="wide"):
            yield Static(head)
            yield PagedList(
                *(Option(rule_line(r, r.entry.index in self.dropped)) for r in order),
                id="rules",
            )

    def action_close(self) -> None:
        self.dismiss(None)


class RefusalScreen(ModalScreen[WayOut | None]):
    """A refused plan: the code, what it means, and the way out (the command a shell would
    run, and what the inspector does for it: externalize, or a budget that goes through)."""

    # under 80 columns its buttons (up to three, one naming pad entries) stand one above the other
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-wide")]  # noqa: RUF012 (as Screen declares it)

    BINDINGS: ClassVar[list[BindingType]] = [
        *close_and_why("refusal", "What this refusal means"),
        Binding(
            "x",
            "externalize",
            "Externalize",
            id="refusal.externalize",
            tooltip="Seal the protected entries the pass would drop",
        ),
        Binding(
            "b",
            "budget",
            "Budget",
            id="refusal.budget",
            tooltip="Trial again at a budget where a pass goes through",
        ),
    ]

    def __init__(self, plan: Plan, path: str = "PATH", fmt: str | None = None) -> None:
        super().__init__()
        self.plan = plan
        self.path = path
        self.fmt = fmt  # --format, when the pad is read as a format its name does not say

    @property
    def protected(self) -> list[str]:
        return to_seal(self.plan)

    def compose(self) -> ComposeResult:
        p = self.plan
        code = p.code or ""
        with Vertical(id="dialog", classes="refusal"):
            yield Static(Text(f"Refused: {code}", style="bold red"))
            with Vertical(classes="actions"):  # (docked: in view however small the terminal)
                if p.way_out:
                    way = way_out(p, self.path, self.fmt, dialog=True)
                    yield Static(Text("Way out: " + one_line(way), style="bold"), id="way-out")
                with Horizontal(classes="buttons"):
                    if self.protected:
                        yield Button(  # ids are pad text: a Text, never parsed as markup
                            Text(f"Seal {clean(sealed_names(p))} (x)"),
                            variant="warning",
                            id="externalize",
                            compact=True,
                        )
                    if p.fits_at is not None and code not in KEEPS:
                        yield Button(f"Trial at budget {p.fits_at} (b)", id="budget", compact=True)
                    yield Button("Close (esc)", id="close", compact=True)
                yield Static(Text("w: why this matters", style="dim"), classes="keys")
            with VerticalScroll(classes="body"):
                yield Static(Text(clean(p.message)))
                lost = [r for r in p.rules_at_risk if r.dropped] if code in KEEPS else []
                if lost:  # every rule the pass would drop, one a line (the body scrolls)
                    rules = Text(f"Rules this pass would drop ({len(lost)}):\n", style="bold")
                    rules.append_text(Text("\n").join(rule_line(r) for r in lost))
                    yield Static(rules, id="refused-rules")
                yield Static(Text(REFUSALS.get(code, "")), classes="explain")

    def action_why(self) -> None:
        from padtui.tui.concept import ConceptScreen, section_for

        inspection = getattr(self.app, "inspection", None)
        if inspection is not None:
            self.app.push_screen(ConceptScreen(inspection, section_for(self.plan.code)))

    @on(Button.Pressed, "#externalize")
    def action_externalize(self) -> None:
        if self.protected:
            self.dismiss(WayOut(externalize=tuple(self.protected)))

    @on(Button.Pressed, "#budget")
    def action_budget(self) -> None:
        if self.plan.fits_at is not None and self.plan.code not in KEEPS:
            self.dismiss(WayOut(budget=self.plan.fits_at))

    @on(Button.Pressed, "#close")
    def action_close(self) -> None:
        self.dismiss(None)


class BudgetScreen(ModalScreen[int | None]):
    """Type a budget."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="budget.cancel", tooltip="Keep the budget")
    ]

    def __init__(self, current: int) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Token budget:")
            yield Input(str(self.current), type="integer", id="budget-input")
            yield Static("", id="budget-error")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        try:
            value = int(event.value)
        except ValueError:
            value = -1
        if value < 0:
            self.query_one("#budget-error", Static).update("a whole number >= 0, please")
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class AlarmsScreen(ModalScreen[set[int] | None]):
    """Every corruption and undeclared loss seen, with findings and before/after text;
    dismissed with the versions whose alarm the user acknowledged (``k``), if any."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *close_and_why("alarms", "What the latest alarm means", close_keys="escape,a"),
        Binding(
            "k",
            "acknowledge",
            "Acknowledge",
            id="alarms.acknowledge",
            tooltip="I have seen these alarms: recorded in the journal, off the top bar",
        ),
    ]

    def action_why(self) -> None:
        from padtui.tui.concept import ConceptScreen, section_for

        inspection = getattr(self.app, "inspection", None)
        if inspection is None:
            return
        latest = self.alarms[-1].audit.findings if self.alarms else ()
        code = next((f.code for f in latest if f.severity == "critical"), None)
        self.app.push_screen(ConceptScreen(inspection, section_for(code)))

    def __init__(self, alarms: Sequence[Alarm], outstanding: Sequence[Alarm] | None = None) -> None:
        super().__init__()
        self.alarms = alarms
        self.outstanding = list(alarms if outstanding is None else outstanding)

    def compose(self) -> ComposeResult:
        body = Text()
        if not self.alarms:
            body.append("No alarms: every rewrite seen so far was growth or a declared compaction.")
        waiting = {a.version.number for a in self.outstanding}
        for alarm in reversed(self.alarms):
            v = alarm.version
            style = "bold red" if alarm.critical else "bold yellow"
            done = "" if v.number in waiting else " (dealt with: acknowledged or restored)"
            if done:
                style = "dim"
            body.append(
                f"version {v.number} at {v.seen_at:%H:%M:%S}: {alarm.audit.verdict}{done}\n",
                style=style,
            )
            for f in alarm.audit.findings:
                body.append_text(_finding_text(f))
                body.append("\n")
            body.append("\n")
        ack = f" · k: acknowledge {len(waiting)}" if waiting else ""
        with Vertical(id="dialog", classes="wide"):
            yield Static(
                Text(
                    f"Alarms ({len(self.alarms)}) · w: why this matters{ack} · esc: back",
                    style="bold",
                )
            )
            with VerticalScroll():
                yield Static(body)

    def action_acknowledge(self) -> None:
        self.dismiss({a.version.number for a in self.outstanding} or None)

    def action_close(self) -> None:
        self.dismiss(None)


class HistoryScreen(Screen[None]):
    """Every version seen, with the verdict of each rewrite; select one for its findings."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,h", "close", "Back", id="history.close", tooltip="Back to the pad"),
        Binding(
            "o", "older", "Older", id="history.older", tooltip="Older versions, from the journal"
        ),
        # (the list has the focus; should anything else take it, the arrows still move it)
        Binding(
            "up", "move(-1)", "Newer version", show=False, id="history.up", tooltip="Up the list"
        ),
        Binding(
            "down",
            "move(1)",
            "Older version",
            show=False,
            id="history.down",
            tooltip="Down the list",
        ),
    ]
    AUTO_FOCUS = "#versions"

    def __init__(
        self,
        versions: Sequence[SeenVersion],
        older: Callable[[list[SeenVersion]], list[SeenVersion]] | None = None,
    ) -> None:
        """``older``: given the versions listed, the journal's versions before them (the
        oldest listed last, audited against them), or None where there is no journal."""
        super().__init__()
        self.versions = list(versions)
        self.older = older
        self.at_start = older is None or not versions or versions[0].number <= 1

    def compose(self) -> ComposeResult:
        tokens = [float(v.tokens) for v in self.versions]
        caution = [v.caution_share for v in self.versions]
        yield Static(self._range(), id="history-range")
        with Horizontal(id="sparks"):
            with Vertical():
                yield Static("tokens per version")
                yield Sparkline(tokens, id="tokens-spark")
            with Vertical():
                yield Static("caution share (constraint + negative-fact tokens / all)")
                yield Sparkline(caution, id="caution-spark")
        with Horizontal(id="history-body"):
            yield PagedList(
                *[Option(self._row(v)) for v in reversed(self.versions)],
                id="versions",
                markup=False,
            )
            with VerticalScroll(id="findings"):
                yield Static(id="detail")
        yield KeysFooter()

    def _range(self) -> Text:
        """Which versions the list holds, and whether older ones are in the journal."""
        if not self.versions:
            return Text("")
        first, last = self.versions[0].number, self.versions[-1].number
        line = Text(f" v{first}–v{last} ", style="bold")
        if self.older is None:
            line.append(" seen here (no journal: nothing older is kept)", style="dim")
        elif self.at_start:
            line.append(" from the pad's first version journaled", style="dim")
        else:
            line.append(f" · v1–v{first - 1} are in the journal: o shows older", style="dim")
        return line

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "older":
            return not self.at_start
        return True

    def action_older(self) -> None:
        self.query_one("#history-range", Static).update(
            Text(" reading older versions from the journal…", style="dim")
        )
        self.find_older()

    @work(exclusive=True, group="older", thread=True)
    def find_older(self) -> None:
        assert self.older is not None
        try:
            found = self.older(self.versions)
        except Exception as exc:  # (padtui's own failure: a notice, never a crash)
            self.app.call_from_thread(
                self.notify, f"older versions not read: {exc}", severity="error"
            )
            found = []
        self.app.call_from_thread(self._older_found, found)

    def _older_found(self, found: list[SeenVersion]) -> None:
        """The older versions before the listed ones; the oldest listed, audited anew."""
        if not found or found[-1].number != self.versions[0].number:
            self.at_start = True
        else:
            self.versions[:1] = found
            self.at_start = found[0].number <= 1
            shown = self.query_one("#versions", OptionList)
            at = shown.highlighted
            shown.clear_options()
            shown.add_options(Option(self._row(v)) for v in reversed(self.versions))
            shown.highlighted = at
            self.query_one("#tokens-spark", Sparkline).data = [
                float(v.tokens) for v in self.versions
            ]
            self.query_one("#caution-spark", Sparkline).data = [
                v.caution_share for v in self.versions
            ]
        self.query_one("#history-range", Static).update(self._range())
        self.refresh_bindings()

    def _row(self, v: SeenVersion) -> Text:
        # a restore is the user's own doing: not judged by its audit against the version it
        # replaced (that audit is in its detail)
        verdict = "restored" if v.origin == "restore" else v.verdict
        style = verdict_style(self.app.theme_variables, verdict, badge=False)
        row = Text(
            f"#{v.number:<4} {v.seen_at:%H:%M:%S}  {v.tokens:>6} tok  {v.claims:>4} claims  "
        )
        row.append(f"{verdict:<16}", style=style)
        row.append(f" {one_line(v.origin, 20)}", style="dim")
        return row

    def action_move(self, step: int) -> None:
        versions = self.query_one("#versions", OptionList)
        versions.focus()
        if step < 0:
            versions.action_cursor_up()
        else:
            versions.action_cursor_down()

    def on_mount(self) -> None:
        versions = self.query_one("#versions", OptionList)
        versions.focus()
        if self.versions:
            versions.highlighted = 0
            self._detail(self.versions[-1])

    @on(OptionList.OptionHighlighted, "#versions")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._detail(self.versions[len(self.versions) - 1 - event.option_index])

    def _before(self, v: SeenVersion) -> SeenVersion | None:
        """The version ``v`` was audited against: the one before it in the list (version
        numbers are the journal's, not places in the list)."""
        at = next((i for i, w in enumerate(self.versions) if w is v), 0)
        return self.versions[at - 1] if at > 0 else None

    def _detail(self, v: SeenVersion) -> None:
        text = Text(
            f"version {v.number}, seen {v.seen_at:%Y-%m-%d %H:%M:%S}, from {one_line(v.origin, 40)}"
            f": {v.verdict}\n\n",
            style="bold",
        )
        if v.audit is not None:
            for f in v.audit.findings:
                text.append_text(_finding_text(f))
                text.append("\n")
            text.append("\n")
            text.append_text(self._diff(v))
        self.query_one("#detail", Static).update(text)

    def _diff(self, v: SeenVersion) -> Text:
        previous = self._before(v)
        before = previous.pad if previous is not None else None
        after = v.pad
        text = Text("entries\n", style="bold")
        if before is None or v.audit is None:
            return text
        matched_new = {n for n, _ in v.audit.matches.values()}
        for o in before.entries:
            hit = v.audit.matches.get(o.index)
            if hit is None:
                text.append(
                    f"- {clean(o.kind)} {clean(o.label)}: {one_line(o.text, 200)}\n", style="red"
                )
            elif after.entries[hit[0]].text != o.text:
                n = after.entries[hit[0]]
                text.append(
                    f"~ {clean(o.kind)} {clean(o.label)}: {one_line(o.text, 200)}\n", style="yellow"
                )
                text.append(f"  → {one_line(n.text, 200)}\n", style="yellow")
        for n in after.entries:
            if n.index not in matched_new:
                text.append(
                    f"+ {clean(n.kind)} {clean(n.label)}: {one_line(n.text, 200)}\n", style="green"
                )
        return text

    def action_close(self) -> None:
        self.dismiss(None)


# paragraphs on one line each: the screen wraps them to its width
HELP = """\
padtui watches a pad: the scratchpad a self-editing agent rewrites under a token budget.

Left, the SEALED region: constraints, negative facts and loss records, append-only. Right, the \
REWRITABLE region: plan, notes, hypotheses. A protected kind in the rewritable region is \
marked ⚠: the next budget pass may drop it. Under the gauge, for as long as it holds: HALT \
when the sealed region alone is over the budget (no pass can help), and "at risk": the \
unsealed entries that hold rules a pass may drop. A Letta agent file (.af) is read-only: \
each block shows its characters against its limit.

Every version the file goes through is audited against the one before: a declared compaction \
(every loss named by derived_from or a loss record), or corruption (a constraint dropped or \
weakened, a sealed entry touched, a loss record evicted). Corruption rings the bell.

Keys
  ?        this help
  q        quit
  t        trial a compaction (drops struck through, the loss record shown as pending, \
⚑ on entries that hold rules a pass may drop)
  n / p    step the trial one drop forward / back
  u        rules at risk: every unsealed rule, those the trial drops first
  escape   leave the trial; with none open, back to the fleet (a pad opened from it)
  c        commit the trial (a confirmation shows the diff and the rules it drops; a refusal \
explains the way out: x externalizes, b trials at a budget that goes through)
  x        externalize the selected entry (seal a constraint, negative fact or loss record)
  [ / ]    budget down / up 10 %
  b        type a budget
  s        switch policy strict / seed
  h        history of versions (numbered as the journal and `padtui history` number them)
  a        alarms (k there acknowledges them, in the journal: history then exits 0)
  i        why: the concept, with this pad as the example (w in a refusal or alarms)
  tab      switch pane
  ctrl+p   command palette

In the demo (padtui, or padtui demo) a scripted agent rewrites the pad:
  space    pause / resume the agent
  .        the agent's next step now
  r        restart the scenario (its first version, policy and budget again)

In time travel (padtui replay, padtui history --open, padtui claude watch):
  , / .    the version before / after

The footer shows as many of these as the terminal is wide, the most used first; the \
command palette (ctrl+p) lists every one that answers now, with its key.
"""

FLEET_HELP = """\
The fleet: every pad in the folder, one row each, live. Each rewrite of each pad is audited \
as the inspector audits it; a corruption rings the bell.

Columns: the pad, a gauge of its tokens against its budget, tokens/budget, last change (the \
time of the file), the worst verdict of any rewrite seen, the number of alarms, and its state \
(live, mid-write, deleted, or why it cannot be read). The name and the state share the width \
the other columns leave: a name is whole when there is room, else cut in the middle; the \
chosen pad's state, whole, is on the line below the table. In a narrow terminal the gauge and \
the last change give way first; the worst verdict, the alarms and the state always show.

Keys
  ?                 this help
  q                 quit
  up / down         the pad above / below
  page up / down    a page up / down
  home / end        the first / last pad
  enter             open the pad in the inspector (its own keys: ? there)
  escape            in the inspector: back to the fleet
  ctrl+p            command palette
"""


class HelpScreen(ModalScreen[None]):
    """Keys and what the screen means (the inspector's, or the text given: the fleet's)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,question_mark,q", "close", "Close", id="help.close", tooltip="Back to the pad"
        )
    ]

    def __init__(self, text: str = HELP) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="wide"):
            yield Static(Text("esc: back", style="dim"), classes="keys actions")
            with VerticalScroll(classes="body"):
                yield Static(Text(self.text), id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)
