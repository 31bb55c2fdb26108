"""The keys every screen of padtui starts its footer with: ``?`` for its help, ``q`` to quit."""

from __future__ import annotations

from textual.binding import Binding


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
