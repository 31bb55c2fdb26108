"""Claude Code's memory files, found from a working folder as Claude Code finds them, and
small safe file writes in padtui's state folder."""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import tempfile
from typing import Any

from padtui.core.errors import PadError
from padtui.core.formats import read_bytes
from padtui.core.guard import RuleInForce, file_rules
from padtui.core.journal import state_dir

MAX_MEMORY_BYTES = 1 << 20  # a memory file larger than this is not one a person wrote


def _in_folder(folder: str) -> list[str]:
    out = [os.path.join(folder, n) for n in ("CLAUDE.md", "CLAUDE.local.md")]
    out.append(os.path.join(folder, ".claude", "CLAUDE.md"))
    rules = os.path.join(glob.escape(folder), ".claude", "rules")
    out += sorted(glob.glob(os.path.join(rules, "**", "*.md"), recursive=True))
    return out


def memory_paths(cwd: str, transcript_path: str | None = None) -> list[str]:
    """The memory files in force for a session: the user's own (``~/.claude``), those of
    every folder from the root down to ``cwd``, and the project's auto-memory ``MEMORY.md``
    (next to the transcript). Only files that exist."""
    home = os.path.expanduser("~")
    found = [os.path.join(home, ".claude", "CLAUDE.md")]
    found += sorted(
        glob.glob(os.path.join(glob.escape(home), ".claude", "rules", "**", "*.md"), recursive=True)
    )
    folders: list[str] = []
    here = os.path.abspath(cwd)
    while True:
        folders.append(here)
        up = os.path.dirname(here)
        if up == here:
            break
        here = up
    for folder in reversed(folders):
        if folder == home:
            found += [os.path.join(folder, n) for n in ("CLAUDE.md", "CLAUDE.local.md")]
            continue  # (its .claude/ is the user's own, read above)
        found += _in_folder(folder)
    if transcript_path:
        found.append(
            os.path.join(os.path.dirname(os.path.abspath(transcript_path)), "memory", "MEMORY.md")
        )
    seen: set[str] = set()
    out: list[str] = []
    for p in found:
        real = os.path.realpath(p)
        if real not in seen and os.path.isfile(p):
            seen.add(real)
            out.append(p)
    return out


def display_name(path: str, cwd: str) -> str:
    rel = os.path.relpath(path, cwd)
    if not rel.startswith(".." + os.sep) and rel != "..":
        return rel
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path.startswith(home + os.sep) else path


def read_memory(cwd: str, transcript_path: str | None, notes: list[str]) -> list[tuple[str, str]]:
    """``(name, text)`` of each memory file; one that cannot be read is named in ``notes``."""
    out: list[tuple[str, str]] = []
    for path in memory_paths(cwd, transcript_path):
        name = display_name(path, cwd)
        try:
            data = read_bytes(path, MAX_MEMORY_BYTES)
            out.append((name, data.decode("utf-8", errors="replace")))
        except (OSError, PadError) as exc:
            notes.append(f"{name}: not read ({exc})")
    return out


def memory_rules(memory: list[tuple[str, str]], notes: list[str]) -> list[RuleInForce]:
    out: list[RuleInForce] = []
    for name, text in memory:
        try:
            out += file_rules(name, text)
        except PadError as exc:
            notes.append(exc.line())
    return out


def session_state_path(session_id: str) -> str:
    """Where a session's snapshot and verdicts live: named by a hash (session ids are
    untrusted text)."""
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return os.path.join(state_dir(), "claude", f"{digest}.json")


def load_json(path: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as f:
            obj = json.loads(f.read())
    except (OSError, ValueError):
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
