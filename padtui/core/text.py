"""Pad text is untrusted: what may reach a terminal of it."""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, and C1 controls: none of them may reach a terminal.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """The text with every control character but newline and tab removed."""
    return _CONTROLS.sub("", text)


def one_line(text: str, width: int | None = None) -> str:
    """Clean text folded onto one line (newlines shown as ``⏎``), cut to ``width``."""
    flat = " ⏎ ".join(part.strip() for part in clean(text).splitlines() if part.strip())
    flat = flat.replace("\t", " ")
    if width is not None and len(flat) > width:
        flat = flat[: max(width - 1, 0)] + "…"
    return flat
