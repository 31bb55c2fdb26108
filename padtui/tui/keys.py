"""Keys several screens share: ``?`` for the screen's help and ``q`` to quit, on every
screen; close and "why?" on the dialogs that explain something; and the footer that shows
them."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import Footer


def key(
    keys: str,
    action: str,
    description: str,
    tooltip: str,
    *,
    id: str | None = None,
    show: bool = True,
    key_display: str | None = None,
    group: Binding.Group | None = None,
) -> Binding:
    """A binding with its tooltip; its id (by which a keymap remaps it) is the action's
    name with dots for underscores (``budget_up``: ``budget.up``) unless given. Neighbours
    in a ``group`` share one label in the footer (``[ ] Budget``)."""
    return Binding(
        keys,
        action,
        description,
        show=show,
        key_display=key_display,
        id=id or action.replace("_", "."),
        tooltip=tooltip,
        group=group,
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


class KeysFooter(Footer):
    """Textual's footer, composed again only when what it shows changes.

    A screen tells its footer its bindings changed at every change of state, and Textual's
    footer then takes every key down and mounts it again, each key's styles worked out
    twice over: the inspector's footer did so seven times, with the same keys, as it
    started (about a third of its start-up, in the profile). This one recomposes only when
    the keys it would show, their descriptions, their state, how they are shown or its own
    settings differ from those it shows."""

    _shown: tuple[Any, ...] | None = None

    def _showing(self) -> tuple[Any, ...]:
        """What a compose would show now (what ``Footer.compose`` reads: the bindings shown,
        and the command palette's, found by its key)."""
        app = self.app
        active = self.screen.active_bindings
        shown = [entry for entry in active.values() if entry[1].show]
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        keys = tuple(
            (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                (binding.group.description, binding.group.compact) if binding.group else None,
                enabled,
                tooltip,
            )
            for _node, binding, enabled, tooltip in (*shown, *([palette] if palette else []))
        )
        return (keys, self.compact, self.show_command_palette, app.ENABLE_COMMAND_PALETTE)

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        shown = self._showing() if self._bindings_ready else None
        if shown is not None and shown == self._shown:
            return
        self._shown = shown
        await super().recompose()
