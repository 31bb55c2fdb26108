"""The apps: what every face of padtui shares (:class:`PadtuiApp`), and the inspector on
one pad (:class:`PadApp`), which shows it through :class:`~padtui.tui.inspector.InspectorScreen`."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen

from padtui.core import store
from padtui.core.countcache import PadCounters
from padtui.core.inspection import Inspection
from padtui.core.rules import RuleMap
from padtui.core.text import clean
from padtui.core.watcher import Reading
from padtui.tui.inspector import InspectorScreen
from padtui.tui.keys import help_and_quit
from padtui.tui.screens import HelpScreen
from padtui.tui.terminal import CLEANED


class PadtuiApp(App[int]):
    """What every face of padtui shares: its styles, its title, notices never parsed as
    markup, every line cleaned on its way to the terminal, and the keys of the screen on
    top offered in the command palette."""

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

    def on_unmount(self) -> None:
        gc.unfreeze()  # (see inspector.settle_memory)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for namespace, binding, enabled, tooltip in screen.active_bindings.values():
            if enabled and binding.show and binding.action not in ("quit", "app.quit"):
                yield SystemCommand(
                    binding.description,
                    tooltip or binding.description,
                    lambda a=binding.action, n=namespace: self.run_action(a, n),
                )


class PadApp(PadtuiApp):
    """Watch one pad file, trial and step compactions, commit them safely."""

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
        narration: bool = False,
        count_cache: bool = True,
    ) -> None:
        """``count_cache``: count with the pad's count cache (padtui/core/countcache.py),
        written back as the app ends (else count every text afresh, and keep nothing)."""
        super().__init__()
        inspection = Inspection(
            path,
            policy=policy,
            budget_override=budget,
            encoding=encoding,
            rule_map=rule_map,
            counters=PadCounters(path) if count_cache else None,
        )
        if clock is not None:  # a fixed clock makes the screen reproducible (snapshot tests)
            inspection.clock = clock
        arg: store.JournalArg = False
        if use_journal:
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
