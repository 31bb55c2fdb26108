"""Every key binding can be remapped by its id and says what it does (its tooltip)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode

import padtui.tui


def classes_with_bindings() -> list[type[DOMNode]]:
    found = []
    for info in pkgutil.iter_modules(padtui.tui.__path__):
        module = importlib.import_module(f"padtui.tui.{info.name}")
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            mine = issubclass(cls, DOMNode) and cls.__module__ == module.__name__
            if mine and "BINDINGS" in vars(cls):
                found.append(cls)
    return found


def test_every_binding_has_an_id_and_a_tooltip() -> None:
    classes = classes_with_bindings()
    assert {c.__name__ for c in classes} >= {
        "InspectorScreen",
        "FleetScreen",
        "DemoApp",
        "ReplayApp",
    }
    for cls in classes:
        ids = []
        for b in cls.BINDINGS:
            assert isinstance(b, Binding), f"{cls.__name__}: {b!r} is not a Binding"
            assert b.id, f"{cls.__name__}: the binding for {b.key!r} has no id"
            assert b.tooltip, f"{cls.__name__}: the binding for {b.key!r} has no tooltip"
            ids.append(b.id)
        assert len(ids) == len(set(ids)), f"{cls.__name__}: two bindings share an id"


def test_the_pads_keys_live_on_the_inspector_screen_alone() -> None:
    """The fleet, replay and the demo show a pad through the inspector's screen and add
    only keys of their own: no second list of the pad's actions to drift apart."""
    from padtui.tui.fleet import FleetScreen
    from padtui.tui.inspector import InspectorScreen

    pad_actions = {b.action for b in InspectorScreen.BINDINGS if isinstance(b, Binding)}
    pad_actions -= {"help", "app.quit"}
    faces = [c for c in classes_with_bindings() if issubclass(c, App) or c is FleetScreen]
    assert {c.__name__ for c in faces} >= {"FleetScreen", "DemoApp", "ReplayApp"}
    for cls in faces:
        for b in cls.BINDINGS:
            assert isinstance(b, Binding)
            assert b.action not in pad_actions, f"{cls.__name__} binds {b.action} again"


def test_the_help_lists_every_key_of_a_pad_s_screen() -> None:
    """The footer has room for the most used keys only: ``?`` lists them all (the pad's
    screen, the app's, the demo's and time travel's)."""
    import re

    from padtui.tui.app import PadtuiApp
    from padtui.tui.demo import DemoApp
    from padtui.tui.inspector import InspectorScreen
    from padtui.tui.replay import ReplayApp
    from padtui.tui.screens import HELP

    listed: set[str] = set()
    for line in HELP.split("Keys\n", 1)[1].splitlines():
        found = re.match(r"  (\S.*?)\s{2,}", line)
        if found:
            listed |= {k for k in re.split(r" / | ", found.group(1)) if k}
    for cls in (InspectorScreen, PadtuiApp, DemoApp, ReplayApp):
        for b in cls.BINDINGS:
            assert isinstance(b, Binding)
            for k in b.key.split(","):
                shown = b.key_display or {"question_mark": "?", "full_stop": "."}.get(k, k)
                assert shown in listed, f"{cls.__name__}: {shown!r} ({b.action}) not in the help"
