"""The apps: what every face of padtui shares (:class:`PadtuiApp`), and the inspector on
one pad (:class:`PadApp`), which shows it through :class:`~padtui.tui.inspector.InspectorScreen`."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar, TypedDict, Unpack

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen

from padtui import telemetry
from padtui.core.counting.countcache import PadCounters
from padtui.core.live.inspection import Inspection
from padtui.core.live.watcher import Reading
from padtui.core.rules.finder import RuleMap
from padtui.core.storage import store
from padtui.core.text import clean
from padtui.tui.inspector import InspectorScreen, resume_collection
from padtui.tui.keys import help_and_quit
from padtui.tui.screens import HelpScreen
from padtui.tui.terminal import CLEANED

# seconds: how often a thread holding the interpreter is asked to let go of it (Python's
# default is 5 ms). Workers read and audit pads in Python, and the screen's thread gets the
# interpreter back only when asked; a key, a timer or a frame takes a few such turns.
SWITCH_INTERVAL = 0.001


class PadtuiApp(App[int]):
    """What every face of padtui shares: its styles, its title, notices never parsed as
    markup, every line cleaned on its way to the terminal, the keys of the screen on top
    offered in the command palette, and a screen's thread that gets its turn quickly beside
    the workers (``SWITCH_INTERVAL``, for as long as the app runs)."""

    CSS_PATH = "app.tcss"
    TITLE = "padtui"
    ENABLE_COMMAND_PALETTE = True
    # on every screen (a screen's own ? and q, listed first in its footer, come before these)
    BINDINGS: ClassVar[list[BindingType]] = [
        *help_and_quit("app", "Keys and what the panes mean", quit_action="quit")
    ]

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

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    _switch_interval: float | None = None  # the process's own, while the app runs

    @on(events.Mount)
    def _turns_quick(self) -> None:
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        telemetry.on_problem(
            lambda line: self.call_from_thread(self.notify, line, severity="warning")
        )

    def on_unmount(self) -> None:
        telemetry.on_problem(None)  # (a problem after this: one line on standard error)
        resume_collection()  # (see inspector.hold_collection)
        gc.unfreeze()  # (see inspector.settle_memory)
        if self._switch_interval is not None:
            sys.setswitchinterval(self._switch_interval)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's, then every key of the screen that answers now, those the footer has
        no room for or does not show too, each with its key."""
        yield from super().get_system_commands(screen)
        offered = set()
        for namespace, binding, enabled, tooltip in screen.active_bindings.values():
            if not enabled or not binding.description or binding.action in ("quit", "app.quit"):
                continue
            if binding.action in offered or binding.action.startswith(("cursor", "scroll")):
                continue  # (escape, bound twice; the moves of a list)
            offered.add(binding.action)
            yield SystemCommand(
                binding.description,
                f"{self.get_key_display(binding)}: {tooltip or binding.description}",
                lambda a=binding.action, n=namespace: self.run_action(a, n),
            )


class Settings(TypedDict, total=False):
    """What a pad is watched with, in the single-pad app and the fleet alike (the command
    line's options): each left out has the default the command line gives it."""

    budget: int | None  # None: the pad's own budget_tokens, else 4000
    policy: str  # strict (the default) or seed
    encoding: str | None  # None: the pad's own, else cl100k_base
    use_journal: bool  # journal every version seen (the default)
    rule_map: RuleMap | None  # where rules are; None: padtui's own headings
    count_cache: bool  # count with the pad's count cache, written back as the app ends


def inspection_of(path: str, settings: Settings, **more: Any) -> Inspection:
    """The inspection of the pad at ``path`` under ``settings`` (``more``: for the
    :class:`Inspection` itself)."""
    return Inspection(
        path,
        policy=settings.get("policy", "strict"),
        budget_override=settings.get("budget"),
        encoding=settings.get("encoding"),
        rule_map=settings.get("rule_map"),
        counters=PadCounters(path) if settings.get("count_cache", True) else None,
        **more,
    )


class PadApp(PadtuiApp):
    """Watch one pad file, trial and step compactions, commit them safely."""

    def __init__(
        self,
        path: str,
        *,
        journal: str | None = None,
        watch: bool = True,
        clock: Callable[[], datetime] | None = None,
        fmt: str | None = None,
        narration: bool = False,
        **settings: Unpack[Settings],
    ) -> None:
        """``journal``: the journal's path (else the pad's own); ``watch``: follow the pad's
        writes; ``clock``: a fixed one makes the screen reproducible (snapshot tests);
        ``fmt``: read the pad as this format; ``narration``: a line for the app to narrate
        in (the demo)."""
        super().__init__()
        inspection = inspection_of(path, settings)
        if clock is not None:
            inspection.clock = clock
        arg: store.JournalArg = False
        if settings.get("use_journal", True):
            arg = journal if journal is not None else True
        self.inspector = InspectorScreen(
            inspection, pad_format=fmt, journal=arg, watching=watch, narration=narration
        )

    def get_default_screen(self) -> InspectorScreen:
        return self.inspector

    @property
    def inspection(self) -> Inspection:
        return self.inspector.inspection

    @property
    def ready(self) -> asyncio.Event:
        """Set once the first reading of the pad is on screen."""
        return self.inspector.ready

    @property
    def watch_armed(self) -> asyncio.Event:
        """Set once every write to the pad is seen."""
        return self.inspector.watch_armed

    @property
    def watching(self) -> bool:
        return self.inspector.watching

    def take(self, reading: Reading) -> None:
        self.inspector.take(reading)

    def on_unmount(self) -> None:
        keep_counts(self.inspection)


def keep_counts(inspection: Inspection) -> None:
    """Write back the counts the pad's count cache learnt (a failure is passed over: they
    are counted again next time)."""
    if inspection.counters is not None:
        inspection.counters.save()


def make_app(path: str, **options: Any) -> PadApp:
    """The inspector on ``path`` (tests and the command line both build it here)."""
    return PadApp(path, **options)
