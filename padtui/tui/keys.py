"""Keys several screens share: ``?`` for the screen's help and ``q`` to quit, on every
screen; close and "why?" on the dialogs that explain something."""

from __future__ import annotations

from textual.binding import Binding


def key(
    keys: str,
    action: str,
    description: str,
    tooltip: str,
    *,
    id: str | None = None,
    show: bool = True,
    key_display: str | None = None,
) -> Binding:
    """A binding with its tooltip; its id (by which a keymap remaps it) is the action's
    name with dots for underscores (``budget_up``: ``budget.up``) unless given."""
    return Binding(
        keys,
        action,
        description,
        show=show,
        key_display=key_display,
        id=id or action.replace("_", "."),
        tooltip=tooltip,
    )


def help_and_quit(scope: str, help_tooltip: str, quit_action: str = "app.quit") -> list[Binding]:
    """``?`` (the screen's own ``help`` action) and ``q``, with ids under ``scope`` (``""``:
    the ids ``help`` and ``quit``), so that a keymap can remap each screen's."""
    prefix = f"{scope}." if scope else ""
    return [
        Binding(
            "question_mark",
            "help",
            "Help",
            id=f"{prefix}help",
            key_display="?",
            tooltip=help_tooltip,
        ),
        Binding("q", quit_action, "Quit", id=f"{prefix}quit", tooltip="Quit padtui"),
    ]


def close_and_why(scope: str, why_tooltip: str, close_keys: str = "escape") -> list[Binding]:
    """A dialog's way back to the pad (its ``close`` action) and ``w`` for what the thing it
    shows means (its ``why`` action), with ids under ``scope``."""
    return [
        Binding(close_keys, "close", "Close", id=f"{scope}.close", tooltip="Back to the pad"),
        Binding("w", "why", "Why?", id=f"{scope}.why", tooltip=why_tooltip),
    ]
