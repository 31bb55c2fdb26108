"""Errors the core raises on purpose; each renders as one line for a person."""

from __future__ import annotations

from typing import Any


class PadError(Exception):
    """Bad input: a pad (or journal) that cannot be read as the README's "The pad file" describes.

    ``where`` names the place inside the file (``line 3``, ``entry 2``, ``byte 17``),
    so the message reads ``FILE: WHERE: PROBLEM``.
    """

    def __init__(self, path: str, problem: str, where: str | None = None) -> None:
        self.path = path
        self.where = where
        self.problem = problem
        super().__init__(self.line())

    def line(self) -> str:
        place = f"{self.where}: " if self.where else ""
        return f"{self.path}: {place}{self.problem}"


def json_type(value: Any) -> str:
    """How an error names what it found instead: ``got a string``, ``got null``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def shown(value: Any, width: int = 40) -> str:
    """A value of the file as an error shows it: its repr, cut to ``width`` characters (a
    number of 4,000 digits, say, is cut, and never converted in full)."""
    if type(value) is int and not -(10**width) < value < 10**width:
        return f"a number of more than {width} digits"
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


class EncodingUnavailable(Exception):
    """A tiktoken encoding that is neither bundled nor in tiktoken's cache."""


class UnrecoverableCompactionError(RuntimeError):
    """Raised when a self-edit would destroy a constraint or its loss record."""


def open_error(path: str, exc: OSError) -> PadError:
    """The one line for a pad file that could not be opened or read."""
    if isinstance(exc, FileNotFoundError):
        return PadError(path, "no such file")
    if isinstance(exc, IsADirectoryError):
        return PadError(path, "is a directory, not a pad file")
    if isinstance(exc, PermissionError):
        return PadError(path, "permission denied")
    return PadError(path, exc.strerror or str(exc))


def too_large(path: str, size: int, limit: int) -> PadError:
    """The one line for a pad file past the size padtui reads."""
    return PadError(
        path, f"file is {size / 2**20:.1f} MiB; padtui reads pads up to {limit / 2**20:.0f} MiB"
    )


# --- commits that did not happen (raised by the store, the lock and the file I/O) ---------


class CommitError(Exception):
    """A commit that did not happen; nothing was written. One line: ``FILE: PROBLEM``."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(self.line())

    def line(self) -> str:
        return f"{self.path}: {self.problem}"


class Conflict(CommitError):
    """Compare-and-swap miss: the pad is not the version the commit was planned from."""


class Refused(CommitError):
    """A refused plan is never written."""


class LockTimeout(CommitError):
    """Another process held the pad's lock for too long."""


class WriteFailed(CommitError):
    """A commit the system or the pad's place would not allow: an I/O error (a full disk), a
    read-only pad, a pad whose path now leads to another file than the one read."""
