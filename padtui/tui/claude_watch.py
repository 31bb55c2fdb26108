"""``padtui claude watch``: a Claude Code session's compactions in the inspector's screen.

Each compaction is two versions: the rules in force before it (one entry a rule, with
where it came from), then its summary, audited against them as any rewrite is, so a summary
that drops or weakens a rule is a corruption alarm. Nothing is written: not the transcript,
not a journal. The transcript is followed as Claude Code appends to it; a new compaction
raises its alarm as it lands.
"""

from __future__ import annotations

import asyncio
import glob
import os
import time
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import work
from textual.widgets import Static

from padtui.claude.compactions import Judged, examined, judged, pad_files
from padtui.claude.projects import SessionFile
from padtui.core.agents.transcript import Reader
from padtui.core.live.inspection import Inspection, SeenVersion
from padtui.core.live.watcher import Reading
from padtui.core.text import clean, one_line
from padtui.tui.app import PadtuiApp
from padtui.tui.inspector import InspectorScreen, Prepared, failure
from padtui.tui.replay import ReplayApp, Stepping, recorded_screen

READ_ONLY = "a Claude Code transcript: padtui only reads it"
PROGRESS_EVERY = 0.25  # seconds between two progress lines while reading or judging


class ClaudeWatchApp(Stepping, PadtuiApp):
    """One session's compactions, followed live, read-only; , and . step through the
    versions (a new compaction brings the newest back on screen)."""

    BINDINGS = ReplayApp.BINDINGS

    def __init__(
        self,
        folder: str,
        session: SessionFile,
        sessions: int = 1,
        *,
        clock: Callable[[], Any] | None = None,
        watch: bool = True,
    ) -> None:
        super().__init__()
        self.folder = folder
        self.session = session
        self.sessions = sessions  # transcripts in the folder
        self.live = watch
        self.inspection = Inspection(session.path)
        if clock is not None:  # (a fixed clock: reproducible screens)
            self.inspection.clock = clock
        self.inspector = recorded_screen(self.inspection, READ_ONLY)
        self.reader = Reader(session.path)
        self.compactions: list[Judged] = []  # every one taken, judged or not
        self.recorded: list[SeenVersion] = []  # every version taken in
        self.cursor = -1  # the one on screen
        self.loaded = asyncio.Event()  # the transcript as it was at the start is on screen
        self.armed = asyncio.Event()  # from now on, every write to it is seen
        self.known: set[str] = set()  # the transcripts in the folder (new ones are announced)
        self.newer = 0  # sessions started since
        self.problem = ""  # the transcript could not be read (the last versions stay)
        self._said = 0.0

    def get_default_screen(self) -> InspectorScreen:
        return self.inspector

    def on_mount(self) -> None:
        self.inspection.status_detail = "no compaction in this session yet"
        self.call_after_refresh(self.follow)

    # --- reading, off the screen's thread -------------------------------------------------

    def _progress(self, what: str) -> None:
        """(worker thread) A line of progress, at most every PROGRESS_EVERY seconds."""
        now = time.monotonic()
        if now - self._said >= PROGRESS_EVERY:
            self._said = now
            self.call_from_thread(self.narrate, what)

    def catch_up(self) -> list[Prepared]:
        """(worker thread) Read what was added to the transcript, judge each compaction now
        whole, and make its two versions."""
        size = self.session.size

        def read(done: int, total: int) -> None:
            self._progress(f"reading the transcript: {done / 2**20:.1f} of {total / 2**20:.1f} MiB")

        try:
            if not self.reader.read(read if size > 2**20 else None):
                return []
            self.problem = ""
        except OSError as exc:
            self.problem = f"{self.session.path}: {exc.strerror or exc}"
            return []
        out: list[Prepared] = []
        t = self.reader.transcript
        total = len(t.compactions())
        # (the newest version taken in: the one on screen may be older, stepped back to)
        previous = self.recorded[-1].digest if self.recorded else None
        counter = self.inspection.counter
        number = len(self.recorded)
        try:
            for j in judged(t, len(self.compactions), whole_only=True):
                self._progress(f"judging the compactions: {j.number} of {total} done")
                self.compactions.append(j)
                if j.judgement is None:
                    continue
                before, after = pad_files(self.session.path, j, READ_ONLY)
                for pad_file, of, origin in ((before, None, "before"), (after, j, "after")):
                    e = examined(pad_file, counter, previous, of)
                    previous = e.digest
                    number += 1
                    out.append(
                        Prepared(
                            reading=Reading("version", e.snapshot),
                            examined=e,
                            number=number,
                            origin=f"{origin} compaction {j.number}",
                            seen_at=j.at,
                        )
                    )
        except Exception as exc:  # (shown; the compactions judged so far are taken in)
            self.problem = failure(self.session.path, exc)
        return out

    # --- following ----------------------------------------------------------------------

    @work(exclusive=True, group="claude-watch")
    async def follow(self) -> None:
        from watchfiles import awatch

        path = os.path.abspath(self.session.path)
        folder = os.path.dirname(path)
        stop = asyncio.Event()

        def concerns(_change: object, changed: str) -> bool:
            return changed.endswith(".jsonl")

        changes = awatch(
            folder, watch_filter=concerns, recursive=False, step=5, debounce=50, stop_event=stop
        )
        pending: asyncio.Future[Any] | None = None
        if self.live:  # armed before the first read: no write after it is missed
            pending = asyncio.ensure_future(anext(changes))
            await asyncio.sleep(0)
            self.known = {
                os.path.abspath(p) for p in glob.glob(os.path.join(glob.escape(folder), "*.jsonl"))
            }
        try:
            self.narrate("reading the transcript…")
            await self._take(await asyncio.to_thread(self.catch_up), opening=True)
            self.loaded.set()
            if pending is None:
                return
            self.inspector.watch_armed.set()
            self.armed.set()
            self.inspection.status = "live"
            self.inspector.refresh_view()  # (the top bar says "live" from now on)
            self._say()
            while True:
                try:
                    changed = await pending
                except StopAsyncIteration:
                    return
                pending = asyncio.ensure_future(anext(changes))
                self._newer({os.path.abspath(p) for _c, p in changed} - self.known - {path})
                await self._take(await asyncio.to_thread(self.catch_up))
        except Exception as exc:  # (a failure is shown, never a crash of the view)
            self.notify(failure(self.session.path, exc), title="watch stopped", severity="error")
        finally:
            stop.set()
            if pending is not None:
                pending.cancel()
                await asyncio.gather(pending, return_exceptions=True)
            await changes.aclose()

    async def _take(self, prepared: list[Prepared], opening: bool = False) -> None:
        """Take new versions in: each alarm raised as it lands, or, for those found on
        opening, all of them in one notice."""
        insp = self.inspection
        if prepared:
            insp.versions = list(self.recorded)  # (the newest, if stepped back)
            for p in prepared:
                if opening and p.examined is not None:
                    insp.take_in(p.examined, now=p.seen_at, origin=p.origin, number=p.number)
                else:
                    self.inspector.take_prepared(p)
            self.recorded = list(insp.versions)
            self.cursor = len(self.recorded) - 1
            self.inspector.refresh_view()
        if opening and insp.alarms:
            lost = ", ".join(a.version.origin.rsplit(" ", 1)[1] for a in insp.alarms)
            self.bell()
            self.notify(
                f"{len(insp.alarms)} compaction(s) of this session lost rules: compaction "
                f"{lost}. Press a for the findings.",
                title="CORRUPTION",
                severity="error",
                timeout=30,
            )
        self._say()

    def show(self) -> None:
        self.inspection.versions = self.recorded[: self.cursor + 1]
        self.inspection.end_trial()
        self.inspector.refresh_view()
        self._say()

    def _newer(self, paths: set[str]) -> None:
        """A session started in the project since: said once (this one stays on screen)."""
        for p in sorted(paths):
            sid = os.path.basename(p)[: -len(".jsonl")]
            if os.path.isfile(p):
                self.known.add(p)
                self.newer += 1
                self.sessions += 1
                self.notify(
                    f"a new session of this project: {sid} (this one stays on screen; "
                    "`padtui claude watch` opens the newest)",
                    title="new session",
                )

    # --- the narration line ---------------------------------------------------------------

    def narrate(self, text: str) -> None:
        self.inspector.query_one("#narration", Static).update(
            Text(clean(f" {text} "), style="bold black on cyan")
        )

    def _say(self) -> None:
        # (the whole file name: sessions' ids share no prefix one could cut them to)
        name = clean(os.path.basename(self.session.path))
        line = Text(f" session {name} ", style="bold black on cyan")
        if self.sessions > 1:
            line.append(f" (newest of {self.sessions})" if not self.newer else " (not the newest)")
        if not self.recorded:
            line.append("  no compaction yet", style="bold")
        else:
            v = self.recorded[self.cursor]
            j = self.compactions[_compaction_of(self.compactions, v.origin)]
            assert j.judgement is not None
            c, verdict = j.compaction, j.judgement.verdict
            where = f"line {c.line}" + (f", {c.trigger}" if c.trigger else "")
            line.append(f"  v{v.number} of {len(self.recorded)}: ")
            if v.origin.startswith("before"):
                n = len(verdict.carried) + len(verdict.lost)
                line.append(f"the {n} rule{'s' if n != 1 else ''} in force before compaction ")
                line.append(f"{j.number} ({where})")
            else:
                line.append(f"the summary of compaction {j.number} ({where}): ")
                if verdict.lost:
                    parts = [f"{len(verdict.dropped)} dropped"] if verdict.dropped else []
                    parts += [f"{len(verdict.weakened)} weakened"] if verdict.weakened else []
                    line.append(f"rules lost, {' and '.join(parts)}", style="bold red")
                else:
                    line.append("every rule carried", style="green")
            line.append("  · , older · . newer", style="dim")
        unjudged = sum(j.judgement is None for j in self.compactions)
        if unjudged:
            line.append(f"  ({unjudged} compaction(s) with no summary)", style="yellow")
        if self.problem:
            line.append("\n" + one_line(self.problem), style="bold yellow")
        self.inspector.query_one("#narration", Static).update(line)


def _compaction_of(compactions: list[Judged], origin: str) -> int:
    """Where in the list is the compaction a version's origin names ("after compaction 3")."""
    number = int(origin.rsplit(" ", 1)[1])
    return next(i for i, j in enumerate(compactions) if j.number == number)
