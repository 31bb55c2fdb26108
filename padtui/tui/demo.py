"""The demo: the inspector on a temporary pad that a scripted agent rewrites as you watch."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType
from textual.widgets import Static

from padtui.core.live.inspection import Inspection
from padtui.core.live.watcher import read_settled
from padtui.core.text import clean
from padtui.demo_agent import Scenario, ScriptedAgent, StepResult
from padtui.tui.app import PadApp, PadtuiApp

HANGUP_GRACE = 3.0  # seconds the app has to end after SIGTERM or SIGHUP (ended_by_signals)


class DemoApp(PadApp):
    """The inspector on the scripted agent's pad, its screen narrated, and the agent's own
    keys: pause, step and restart it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "space",
            "agent_pause",
            "Pause agent",
            id="agent.pause",
            tooltip="Pause or resume the scripted agent",
        ),
        Binding(
            "full_stop",
            "agent_step",
            "Agent step",
            id="agent.step",
            key_display=".",
            tooltip="Let the scripted agent take its next step now",
        ),
        Binding(
            "r",
            "agent_restart",
            "Restart",
            id="agent.restart",
            tooltip="Start the scenario over from its first version",
        ),
    ]

    def __init__(
        self, path: str, scenario: Scenario, interval: float = 6.0, **options: Any
    ) -> None:
        super().__init__(path, narration=True, **options)
        self.scenario = scenario
        self.interval = interval
        self.agent = ScriptedAgent(path, scenario)
        self.paused = False
        self.wake = asyncio.Event()
        self.last_step: StepResult | None = None
        insp = self.inspection
        self._start = (insp.policy, insp.budget_override)  # what r goes back to
        self._journal = self.inspector.journal  # the first run's
        self.runs = 1

    def on_mount(self) -> None:  # (and then PadApp's: Textual runs each class's handler)
        self.call_after_refresh(self.narrate)
        self.play()

    @work(exclusive=True, group="agent")
    async def play(self) -> None:
        """The scripted agent's pace: one step per interval, unless paused or hurried."""
        while not self.agent.done:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), timeout=self.interval)
            hurried = self.wake.is_set()
            self.wake.clear()
            if self.paused and not hurried:
                continue
            self.last_step = await asyncio.to_thread(self.agent.step)
            self.narrate()
        self.narrate()

    def narrate(self) -> None:
        s = self.scenario
        line = Text()
        line.append(f" demo: {clean(s.title)} ", style="bold black on #87afff")
        total = len(s.steps)
        step = self.last_step
        if step is None:
            line.append(
                f"  the agent starts in {self.interval:.0f} s: watch both panes · "
                "space pause · . step · r restart · i why"
            )
        else:
            line.append(f"  step {step.number + 1}/{total}: ", style="bold")
            line.append(clean(step.say))
        if step is not None and step.refusal is not None:
            line.append(
                f"\n  the agent halts and surfaces: {step.refusal.code}. Press i to read why.",
                style="bold red",
            )
        elif self.agent.done:
            line.append(
                "\n  the scenario is over: press r to play it again, h for the history of verdicts",
                style="dim",
            )
        elif self.paused:
            line.append("  (paused)", style="bold yellow")
        self.inspector.query_one("#narration", Static).update(line)

    def action_agent_pause(self) -> None:
        self.paused = not self.paused
        self.notify("agent paused" if self.paused else "agent resumed")
        self.narrate()

    def action_agent_step(self) -> None:
        if self.agent.done:
            self.notify("The scenario is over: r restarts it.")
        self.wake.set()

    async def action_agent_restart(self) -> None:
        """Start over, as new: a fresh inspection (so the jump back is not taken for a
        rewrite) under the policy and budget the demo started with, and, when the demo keeps
        its journal in a file of its own, a new one, so that versions count from 1 again."""
        insp = self.inspection
        policy, budget = self._start
        fresh = Inspection(
            insp.path,
            policy=policy,
            budget_override=budget,
            encoding=insp.encoding,
            rule_map=insp.rule_map,
            counters=insp.counters,
        )
        fresh.clock = insp.clock
        self.inspector.inspection = fresh
        if isinstance(self._journal, str):
            self.runs += 1
            root, ext = os.path.splitext(self._journal)
            self.inspector.journal = f"{root}-{self.runs}{ext}"
        self.agent.start()
        self.last_step = None
        self.take(await read_settled(insp.path))
        self.narrate()
        self.play()


@contextlib.contextmanager
def ended_by_signals(app: PadtuiApp, cleanup: Callable[[], None]) -> Iterator[None]:
    """While in it, SIGTERM and SIGHUP (a ``kill``, a closed terminal) end ``app`` as ``q``
    would, and the caller's own cleanup (the demo's temporary folder) runs on the way out;
    before the app runs or after it ends, they end the process by ``SystemExit``.

    After a hang-up the terminal is gone: writes to it fail, and Textual's writer thread
    dies on the first one, after which the app's shutdown waits on it for ever. So the
    standard streams are pointed at ``/dev/null`` first, and should the app still not have
    ended ``HANGUP_GRACE`` seconds later, ``cleanup`` runs and the process exits."""

    def end(signum: int, _frame: FrameType | None) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (not inside the app's event loop)
            raise SystemExit(128 + signum) from None
        if signum == signal.SIGHUP:
            _streams_to_devnull()
        loop.call_soon_threadsafe(app.exit, 128 + signum)
        timer = threading.Timer(HANGUP_GRACE, _cleanup_and_exit, (cleanup, 128 + signum))
        timer.daemon = True
        timer.start()

    previous = {s: signal.signal(s, end) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _streams_to_devnull() -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            os.dup2(null, fd)
    os.close(null)


def _cleanup_and_exit(cleanup: Callable[[], None], code: int) -> None:
    try:
        cleanup()
    finally:
        os._exit(code)
