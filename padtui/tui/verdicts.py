"""How each verdict looks, in one place, in the theme's own colours (its error, warning,
success and primary), so that the inspector, the fleet, the history and the alarms agree
with each other and with whatever theme the app runs in."""

from __future__ import annotations

from collections.abc import Mapping

from rich.style import Style
from textual.color import Color

# verdict -> (the theme variable it is drawn in, drawn as a badge: text on that colour)
VERDICT_COLOURS: dict[str, tuple[str | None, bool]] = {
    "corruption": ("error", True),
    "undeclared_loss": ("warning", True),
    "halt": ("error", True),  # (the fleet's row: the sealed region alone is over budget)
    "compaction": ("success", False),
    "growth": ("primary", False),
    "unchanged": (None, False),
    "initial": (None, False),
}


def verdict_style(theme: Mapping[str, str], verdict: str, *, badge: bool = True) -> Style:
    """The style of ``verdict`` under the theme whose variables are ``theme`` (an app's
    ``theme_variables``). ``badge``: the grave ones as text on their colour (a status line,
    a fleet row); else every one as coloured text (a list of versions)."""
    name, filled = VERDICT_COLOURS.get(verdict, (None, False))
    colour = theme.get(name) if name is not None else None
    if colour is None:
        return Style(dim=True)
    if filled and badge:
        back = Color.parse(colour)
        return Style(bold=True, bgcolor=back.rich_color, color=back.get_contrast_text().rich_color)
    return Style(bold=filled or badge, color=Color.parse(colour).rich_color)
