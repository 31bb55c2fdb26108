"""What a command ends with: its exit code and what to show, printed by ``render.show``.

Exit codes everywhere: 0 fine, 1 refused or corruption found, 2 bad input or usage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

OK, FOUND, BAD = 0, 1, 2


class UsageError(Exception):
    """Bad arguments: exit 2 with a one-line message."""


@dataclass(frozen=True)
class Outcome:
    """A command's result. ``text`` goes to standard output as it is (cleaned), ``json`` as
    one JSON object, ``error`` as one line on standard error; any of them may be absent (a
    screen shows its own, a command that streams has printed as it went)."""

    code: int
    text: str | None = None
    json: dict[str, Any] | None = None
    error: str | None = None
