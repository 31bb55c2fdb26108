"""The demo: the inspector on a temporary pad that a scripted agent rewrites as you watch."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.binding import Binding, BindingType
from textual.widgets import Static

from padtui.core.inspection import Inspection
from padtui.core.scenarios import Scenario, ScriptedAgent, StepResult
from padtui.core.text import clean
from padtui.core.watcher import read_settled
from padtui.tui.app import PadApp


class DemoApp(PadApp):
    """PadApp plus the scripted agent: pause, step and restart it from the keyboard."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *PadApp.BINDINGS,
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
        super().__init__(path, **options)
        self.scenario = scenario
        self.interval = interval
        self.agent = ScriptedAgent(path, scenario)
        self.paused = False
        self.wake = asyncio.Event()
        self.last_step: StepResult | None = None

    @on(events.Mount)
    async def start_demo(self, event: events.Mount) -> None:
        event.prevent_default()  # PadApp.on_mount runs once, here, not again after this
        await self.mount(Static(id="narration"), before="#panes")
        super().on_mount()
        self.narrate()
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
        self.query_one("#narration", Static).update(line)

    def action_agent_pause(self) -> None:
        self.paused = not self.paused
        self.notify("agent paused" if self.paused else "agent resumed")
        self.narrate()

    def action_agent_step(self) -> None:
        if self.agent.done:
            self.notify("The scenario is over: r restarts it.")
        self.wake.set()

    async def action_agent_restart(self) -> None:
        """Start over: a fresh inspection, so the jump back is not taken for a rewrite."""
        insp = self.inspection
        self.inspection = Inspection(
            insp.path,
            policy=insp.policy,
            budget_override=insp.budget_override,
            encoding=insp.encoding,
        )
        self.inspection.clock = insp.clock
        self.agent.start()
        self.last_step = None
        self.take(await read_settled(insp.path))
        self.narrate()
        self.play()
