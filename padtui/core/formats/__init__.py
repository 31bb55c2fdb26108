"""Reading and writing pad files: the front door (:func:`load`, :func:`parse`,
:func:`render`) and the registry of formats behind it.

Each format is one module of this package (``json_pad``, ``json_lines``, ``markdown``,
``letta``) holding a :class:`~padtui.core.formats.base.Format`, registered by one line
below; ``known`` names each (the module is imported when a pad of it is first read: see
``registry.Deferred``); the shared JSON scanner is ``jsonscan``. A pad is read together
with its *layout*: the exact text around and between its entries. Writing back reuses the
source text of every entry that did not change, so a commit changes nothing but what it
means to change (unknown fields, key order, indentation, line endings).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

from padtui.core.errors import PadError, open_error, too_large
from padtui.core.formats import base, known
from padtui.core.formats.base import MAX_BUDGET, Layout, PadFile, Settings
from padtui.core.formats.jsonscan import WS
from padtui.core.formats.memories import MEMORY_READ_ONLY
from padtui.core.formats.registry import (
    chosen,
    for_name,
    named,
    names_text,
    register,
    registered,
    suffixes,
    unregister,
)
from padtui.core.model import Entry, Pad

__all__ = [
    "MAX_BUDGET",
    "MAX_PAD_BYTES",
    "MAX_PAD_LINES",
    "MEMORY_READ_ONLY",
    "Layout",
    "PadError",
    "PadFile",
    "Settings",
    "check_writable",
    "chosen",
    "decode",
    "format_for_name",
    "format_of",
    "load",
    "load_pad",
    "named",
    "names_text",
    "pad_from_bytes",
    "parse",
    "read_bytes",
    "read_only_reason",
    "register",
    "registered",
    "render",
    "suffixes",
    "to_bytes",
    "unregister",
]

register(known.MARKDOWN)  # (the order --format lists them in)
register(known.JSON)
register(known.JSONL)
register(known.LETTA)

MAX_PAD_BYTES = 64 * 1024 * 1024
# lines (and, in a JSON pad, objects) a pad may hold: past it, the cost of reading it whole is
# refused up front (10 million entries of a few bytes fit in MAX_PAD_BYTES)
MAX_PAD_LINES = 1_000_000


def format_for_name(name: str) -> str | None:
    """The format a file's name says, or None."""
    return for_name(name)


def format_of(path: str, fmt: str | None = None) -> str:
    """The format of the pad at ``path``: ``fmt`` when one is chosen (``--format``), else
    the one its name says. PadError for a name that says none, or an unknown ``fmt``."""
    if fmt is not None:
        if fmt not in chosen():
            raise PadError(
                path, f"unknown format {fmt!r}; --format is one of {', '.join(chosen())}"
            )
        return fmt
    found = format_for_name(path)
    if found is None:
        ext = os.path.splitext(os.path.basename(path))[1]
        raise PadError(
            path,
            f"unsupported format {ext or '(no extension)'!r}; padtui reads {names_text()} "
            f"(--format {'|'.join(chosen())} reads any name as that format)",
        )
    return found


def read_only_reason(fmt: str) -> str | None:
    """Why padtui does not write a pad of this format back (None: it does, or no such
    format)."""
    found = named(fmt)
    return found.read_only if found is not None else None


def check_writable(
    path: str, fmt: str | None = None, layout: Layout | None = None, *, seals: bool = False
) -> None:
    """PadError, in one line, for a pad padtui does not write back: a format it only reads
    (``.af``), or (``layout``) a file read in a shape it only reads (a memory export); with
    ``seals``, a write that seals entries or adds a loss record, for a format that keeps no
    sealed mark or no id."""
    name = fmt or format_of(path)
    problem = read_only_reason(name)
    if problem is None and layout is not None:
        problem = layout.read_only
    found = named(name)
    if problem is None and seals and found is not None and not (found.sealing and found.ids):
        problem = (
            f"a {name} pad cannot mark an entry sealed and name it: padtui does not seal "
            "entries or add loss records in one"
        )
    if problem is not None:
        raise PadError(path, problem)


def read_bytes(path: str, limit: int | None = None) -> bytes:
    """The file's bytes, or a PadError that says in one line why not."""
    if limit is None:
        limit = MAX_PAD_BYTES  # looked up at call time, so a caller may lower it
    try:
        # O_NONBLOCK: a FIFO named like a pad must not block the reader forever
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError
            if not stat.S_ISREG(st.st_mode):
                raise PadError(path, "not a regular file")
            size = st.st_size
            if size > limit:
                raise too_large(path, size, limit)
            data = f.read(limit + 1)
    except OSError as exc:
        raise open_error(path, exc) from None
    if len(data) > limit:
        raise PadError(path, f"file grew past {limit / 2**20:.0f} MiB while being read")
    return data


def load(path: str, fmt: str | None = None) -> PadFile:
    """Read and parse a pad file (``fmt``: read it as that format, whatever its name). Bad
    input raises PadError, never anything else."""
    if os.path.isdir(path):
        raise PadError(path, "is a directory, not a pad file")
    fmt = format_of(path, fmt)
    data = read_bytes(path)
    return parse(path, data, fmt)


def load_pad(path: str, fmt: str | None = None) -> Pad:
    """A pad to read and not write back (``check``, ``audit``): the same pad and the same
    errors as ``load(path, fmt).pad``, read the shortest way its format has (a JSON pad by
    ``json.loads`` alone, without finding where each entry lies in the text)."""
    if os.path.isdir(path):
        raise PadError(path, "is a directory, not a pad file")
    fmt = format_of(path, fmt)
    return pad_from_bytes(path, read_bytes(path), fmt)


def pad_from_bytes(path: str, data: bytes, fmt: str) -> Pad:
    """``load_pad`` of bytes read elsewhere (a file opened once, and checked as opened)."""
    text = decode(path, data, fmt)
    return _format(path, fmt).read_pad(path, text)


def parse(
    path: str, data: bytes, fmt: str | None = None, previous: PadFile | None = None
) -> PadFile:
    """Parse a pad's bytes. ``previous``, an earlier version of the same pad, lets a format
    read only what changed (a JSON pad that is mostly that version); the result is the same
    as without it."""
    fmt = fmt or format_of(path)
    text = decode(path, data, fmt)
    pad, layout = _format(path, fmt).read(path, text, previous)
    return PadFile(path, pad, layout, data)


def _format(path: str, fmt: str) -> base.Format:
    found = named(fmt)
    if found is None:
        raise PadError(path, f"unknown pad format {fmt!r}")
    return found


def decode(path: str, data: bytes, fmt: str = "json") -> str:
    """A pad's bytes as text: PadError for a binary file, bad UTF-8, or nothing but white
    space (each format says what it needs instead)."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise PadError(path, "binary file (NUL byte)", f"byte {nul}")
    lines = data.count(b"\n") + 1
    if lines > MAX_PAD_LINES:
        raise PadError(
            path, f"holds {lines:,} lines; padtui reads pads of up to {MAX_PAD_LINES:,} lines"
        )
    if fmt != "md" and data.count(b"{") > MAX_PAD_LINES:
        raise PadError(
            path,
            f"holds more than {MAX_PAD_LINES:,} JSON objects; padtui reads pads of up to "
            f"{MAX_PAD_LINES:,}",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PadError(path, "not valid UTF-8", f"line {line}, byte {exc.start}") from None
    if not text.strip(WS + base.BOM):
        raise PadError(path, (named(fmt) or base.Format).empty)
    return text


def render(layout: Layout, entries: Sequence[Entry]) -> str:
    """The file's new text: untouched entries keep their source, changed ones are written
    anew. ValueError for a pad padtui does not write back (``.af``, a memory export), or
    entries its format cannot hold as they are (see each format's ``write``)."""
    fmt = named(layout.format)
    if fmt is None:
        raise ValueError(f"unknown pad format {layout.format!r}")
    problem = fmt.read_only or layout.read_only
    if problem is not None:
        raise ValueError(problem)
    return fmt.write(layout, entries)


def to_bytes(text: str) -> bytes:
    return text.encode("utf-8")
