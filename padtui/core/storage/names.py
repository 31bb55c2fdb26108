"""File names padtui derives from a pad's name (lock, temporary files, journal) that must
still fit in one directory entry (255 bytes on the usual file systems)."""

from __future__ import annotations

import hashlib
import os

NAME_MAX = 255
HASH_CHARS = 16


def fit(name: str, room: int) -> str:
    """``name``, or, when it and ``room`` more bytes would not fit in a file name, its
    readable start cut to fit, ``~`` and a hash of the whole name (distinct names stay
    distinct)."""
    raw = os.fsencode(name)
    if len(raw) + room <= NAME_MAX:
        return name
    digest = hashlib.sha256(raw).hexdigest()[:HASH_CHARS]
    cut = raw[: max(NAME_MAX - room - HASH_CHARS - 1, 0)]
    return f"{_whole_characters(cut)}~{digest}"


def _whole_characters(cut: bytes) -> str:
    """The cut start of a name, never ending inside a UTF-8 character."""
    for drop in range(4):
        try:
            return cut[: len(cut) - drop].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return os.fsdecode(cut)  # not UTF-8 at all: its bytes as they are
