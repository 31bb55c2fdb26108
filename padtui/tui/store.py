"""``padtui store DIR``: an agent's memory of many files on one screen, watched.

The files of the store as rows (when each loads, its tokens and rules, what last happened to
it), one gauge for what the agent loads at the start of a session against the whole store,
and the store's alarms: each version seen is audited against the one before as one memory
(``core/memory/audit.py``), so a consolidation that deletes topic files with their rules is
an alarm naming the files, and a rule moved to another file is not. Every file under the
root is watched (added, deleted, renamed, rewritten); a change re-reads only the files that
changed. Every version goes to the store's journal.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Header, ProgressBar, Static
from textual.worker import get_current_worker

from padtui.core.counting.tokens import TokenCounter, counter_for
from padtui.core.memory.discovery import SKIPPED
from padtui.core.memory.live import LiveStore, Version, journal_path
from padtui.core.memory.patterns import Pattern
from padtui.core.rules.finder import entry_rules
from padtui.core.text import clean, one_line
from padtui.core.vocabulary import Scope, Severity, Verdict
from padtui.tui.app import PadtuiApp
from padtui.tui.keys import KeysFooter, key

_WHEN = {Scope.ALWAYS: "always", Scope.PATHS: "paths", Scope.ON_DEMAND: "on demand"}
_STYLE = {Verdict.CORRUPTION: "bold red", Verdict.UNDECLARED_LOSS: "bold yellow"}


class StoreScreen(Screen[None]):
    """The store's files, its gauge and its alarms."""

    BINDINGS: ClassVar[list[BindingType]] = [
        key("r", "rescan", "Rescan", "Read the store again now", id="store.rescan"),
    ]

    def __init__(self, live: LiveStore, counter: TokenCounter) -> None:
        super().__init__()
        self.live = live
        self.counter = counter
        self.tokens: dict[tuple[str, str], int] = {}  # (path, text) -> tokens
        self.alarms: list[Text] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="store-title")
        yield ProgressBar(total=1, show_eta=False, id="store-gauge")
        yield DataTable(id="store-files", cursor_type="row", zebra_stripes=True)
        yield Static(Text("no change seen yet", style="dim"), id="store-alarms")
        yield KeysFooter()

    def on_mount(self) -> None:
        table = self.query_one("#store-files", DataTable)
        for name in ("loaded", "file", "tokens", "rules", "last change"):
            table.add_column(name, key=name)

    def action_rescan(self) -> None:
        app = self.app
        if isinstance(app, StoreApp):
            app.rescan()

    def show(self, v: Version) -> None:
        store = v.store
        changes = {c.path: c for c in v.audit.files} if v.audit is not None else {}
        counts = {f.path: self._tokens(f.path, f.text) for f in store.files}
        start = sum(counts[f.path] for f in store.files if f.scope == Scope.ALWAYS)
        total = sum(counts.values())
        title = Text(f" {clean(one_line(self.live.root, 80))} ", style="bold black on cyan")
        title.append(
            f"  version {v.number}: {len(store.files)} memory file(s); "
            f"{start} of {total} tokens loaded at start"
        )
        if v.audit is not None:
            title.append(f"  last change: {v.audit.verdict}", style=_STYLE.get(v.audit.verdict))
        self.query_one("#store-title", Static).update(title)
        self.query_one("#store-gauge", ProgressBar).update(total=max(total, 1), progress=start)
        table = self.query_one("#store-files", DataTable)
        table.clear()
        for f in store.files:
            c = changes.get(f.path)
            what = c.change if c is not None else ""
            if c is not None and c.was:
                what = f"renamed from {c.was}"
            rules = self._rules(f.path, f.text)
            table.add_row(
                Text(_WHEN[f.scope]),
                Text(clean(one_line(f.path, 70))),
                Text(str(counts[f.path]), justify="right"),
                Text(str(rules), justify="right"),
                Text(clean(one_line(what, 40))),
            )
        for c in changes.values():
            if c.change == "deleted":
                table.add_row(
                    Text("gone", style="red"),
                    Text(clean(one_line(c.path, 70)), style="strike"),
                    Text(""),
                    Text(""),
                    Text("deleted", style="red"),
                )
        if v.audit is not None and v.audit.verdict != Verdict.UNCHANGED:
            self.alarms.insert(0, _alarm(v))
            self.query_one("#store-alarms", Static).update(Text("\n").join(self.alarms[:20]))

    def _tokens(self, path: str, text: str) -> int:
        key_ = (path, text)
        if key_ not in self.tokens:
            self.tokens[key_] = self.counter.count(text)
        return self.tokens[key_]

    def _rules(self, path: str, text: str) -> int:
        from padtui.core.formats import markdown

        try:
            pad, _layout = markdown.parse(path, text)
        except Exception:  # (a file that is no pad: its rules are not counted here)
            return 0
        return sum(len(entry_rules(e)) for e in pad.entries)


def _alarm(v: Version) -> Text:
    assert v.audit is not None
    a = v.audit
    line = Text(f"v{v.number} {v.at:%H:%M:%S} ", style="dim")
    line.append(str(a.verdict), style=_STYLE.get(a.verdict, "bold"))
    for f in a.findings:
        if f.severity == Severity.INFO and f.code != "RULE_MOVED":
            continue
        style = {"critical": "red", "warning": "yellow"}.get(f.severity, "cyan")
        line.append(f"\n  {f.code} ", style=style)
        line.append(clean(one_line(f.finding.message, 150)))
    return line


class StoreApp(PadtuiApp):
    """``padtui store DIR``: the store's screen, and the watch of its folder."""

    def __init__(
        self,
        root: str,
        *,
        extra: Sequence[Pattern] = (),
        replace_own: bool = False,
        use_journal: bool = True,
        watch: bool = True,
        counter: TokenCounter | None = None,
        demo: float | None = None,
    ) -> None:
        super().__init__()
        self.demo = demo  # seconds between the scripted consolidation's steps (None: none)
        journal = journal_path(root) if use_journal else None
        self.live = LiveStore(root, extra, replace_own, journal)
        self.screen_ = StoreScreen(self.live, counter or counter_for(None))
        self.watching = watch
        self.shown = 0  # versions on screen
        self.armed = asyncio.Event()  # the first version is read, every change from now seen
        self._looking = asyncio.Lock()

    def get_default_screen(self) -> StoreScreen:
        return self.screen_

    def on_mount(self) -> None:
        self.call_after_refresh(self.follow)

    def rescan(self) -> None:
        self.run_worker(self._look(), group="store-look")

    async def _look(self) -> None:
        """Read the store again (off the screen's thread) and show a new version."""
        async with self._looking:
            try:
                v = await asyncio.to_thread(self.live.look)
            except Exception as exc:  # (a store that cannot be read now: said, view stays)
                self.notify(f"{self.live.root}: {exc}", title="store not read", severity="error")
                return
            if v is None:
                return
            self.screen_.show(v)
            self.shown = v.number
            if v.audit is not None and v.audit.verdict == Verdict.CORRUPTION:
                self.bell()
                self.notify(
                    f"version {v.number}: rules of the memory were lost",
                    title="CORRUPTION",
                    severity="error",
                    timeout=15,
                )

    def _consolidate(self) -> None:
        """(worker thread) The scripted consolidation pass of ``padtui store --demo``."""
        from padtui import store_demo

        assert self.demo is not None
        worker = get_current_worker()
        store_demo.run(
            self.live.root,
            self.demo,
            lambda line: self.call_from_thread(self.notify, line, title="the agent"),
            lambda: worker.is_cancelled,
        )

    @work(exclusive=True, group="store-watch")
    async def follow(self) -> None:
        from watchfiles import awatch

        root = os.path.abspath(self.live.root)
        stop = asyncio.Event()

        def concerns(_change: object, changed: str) -> bool:
            parts = os.path.relpath(changed, root).split(os.sep)
            return not any(p in SKIPPED for p in parts)

        changes: Any = None
        pending: asyncio.Future[Any] | None = None
        if self.watching:  # armed before the first read: no write after it is missed
            changes = awatch(
                root,
                watch_filter=concerns,
                recursive=True,
                step=5,
                debounce=50,
                stop_event=stop,
            )
            pending = asyncio.ensure_future(anext(changes))
            await asyncio.sleep(0)
        try:
            await self._look()
            self.armed.set()
            if self.demo is not None:
                self.run_worker(self._consolidate, thread=True, group="store-demo")
            while pending is not None:
                try:
                    await pending
                except StopAsyncIteration:
                    return
                pending = asyncio.ensure_future(anext(changes))
                await self._look()
        finally:
            stop.set()
            if pending is not None:
                pending.cancel()
                await asyncio.gather(pending, return_exceptions=True)
            if changes is not None:
                await changes.aclose()
