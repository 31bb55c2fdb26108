"""Small safe file writes in padtui's state folder."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from typing import Any

from padtui.core.storage import fsio
from padtui.core.storage.journal import state_dir


def session_state_path(session_id: str) -> str:
    """Where a session's snapshot and verdicts live: named by a hash (session ids are
    untrusted text)."""
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return os.path.join(state_dir(), "claude", f"{digest}.json")


MAX_STATE_BYTES = 16 << 20  # a session's state is a few kB: a larger file is not padtui's


def load_json(path: str) -> dict[str, Any] | None:
    try:
        fd, _st = fsio.open_regular(path)
        with open(fd, "rb") as f:
            obj = json.loads(f.read(MAX_STATE_BYTES + 1))
    except (OSError, ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def write_atomic(path: str, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` whole or not at all: a temporary file beside it, then a
    rename (the file's mode kept, else ``mode``)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    try:
        keep = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        keep = mode if mode is not None else 0o644 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".padtui-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, keep)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old
