"""Claude Code's memory files, found from a working folder as Claude Code finds them, and
small safe file writes in padtui's state folder."""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from padtui.core.errors import PadError
from padtui.core.formats import read_bytes
from padtui.core.guard import RuleInForce, file_rules
from padtui.core.journal import state_dir

MAX_MEMORY_BYTES = 1 << 20  # a memory file larger than this is not one a person wrote
MANAGED_ENV = "PADTUI_CLAUDE_MANAGED"  # the managed policy file's path, for tests and odd installs
MAX_IMPORT_HOPS = 5  # Claude Code follows @imports this deep, no deeper
MEMORY_LINES = 200  # of the auto-memory MEMORY.md, Claude Code loads this many lines

_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[^\n]*$|\Z)", re.M | re.S)
_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")


@dataclass(frozen=True)
class Source:
    """A memory file Claude Code loads: where it is, how a rule from it is cited, how many
    of its lines are loaded (None: all), and whether its ``@imports`` are followed."""

    path: str
    name: str
    lines: int | None = None
    imports: bool = True


def managed_path() -> str:
    """The managed policy CLAUDE.md an organisation deploys (``PADTUI_CLAUDE_MANAGED`` names
    another)."""
    given = os.environ.get(MANAGED_ENV)
    if given:
        return given
    if sys.platform == "darwin":
        return "/Library/Application Support/ClaudeCode/CLAUDE.md"
    return "/etc/claude-code/CLAUDE.md"


def _in_folder(folder: str) -> list[str]:
    out = [os.path.join(folder, n) for n in ("CLAUDE.md", "CLAUDE.local.md")]
    out.append(os.path.join(folder, ".claude", "CLAUDE.md"))
    rules = os.path.join(glob.escape(folder), ".claude", "rules")
    out += sorted(glob.glob(os.path.join(rules, "**", "*.md"), recursive=True))
    return out


def _below(path: str, folder: str) -> bool:
    return path != folder and path.startswith(folder.rstrip(os.sep) + os.sep)


def _nested(cwd: str, reads: Iterable[str]) -> list[str]:
    """The CLAUDE.md files of the folders below ``cwd`` that hold a file the session read:
    Claude Code loads those when it reads there, not at the start."""
    folders: list[str] = []
    for read in reads:
        here = os.path.dirname(os.path.normpath(os.path.join(cwd, read)))
        chain = []
        while _below(here, cwd):
            chain.append(here)
            here = os.path.dirname(here)
        folders += [f for f in reversed(chain) if f not in folders]
    return [os.path.join(f, n) for f in folders for n in ("CLAUDE.md", "CLAUDE.local.md")]


def memory_sources(
    cwd: str, transcript_path: str | None = None, reads: Sequence[str] = ()
) -> list[Source]:
    """The memory files in force for a session, as Claude Code loads them: the managed
    policy, the user's own (``~/.claude``), those of every folder from the root down to
    ``cwd``, those of the folders below ``cwd`` the session read a file in (``reads``), the
    first lines of the project's auto-memory ``MEMORY.md`` (next to the transcript) and the
    topic files beside it the session read. Only files that exist."""
    cwd = os.path.abspath(cwd)
    home = os.path.expanduser("~")
    found = [managed_path(), os.path.join(home, ".claude", "CLAUDE.md")]
    found += sorted(
        glob.glob(os.path.join(glob.escape(home), ".claude", "rules", "**", "*.md"), recursive=True)
    )
    folders: list[str] = []
    here = cwd
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
    found += _nested(cwd, reads)
    sources = [Source(p, display_name(p, cwd)) for p in found]
    if transcript_path:
        memory = os.path.join(os.path.dirname(os.path.abspath(transcript_path)), "memory")
        index = os.path.join(memory, "MEMORY.md")
        sources.append(Source(index, display_name(index, cwd), MEMORY_LINES, imports=False))
        for read in reads:
            path = os.path.normpath(os.path.join(cwd, read))
            if _below(path, memory) and path.endswith(".md") and path != index:
                sources.append(Source(path, display_name(path, cwd), imports=False))
    seen: set[str] = set()
    out: list[Source] = []
    for s in sources:
        real = os.path.realpath(s.path)
        if real not in seen and os.path.isfile(s.path):
            seen.add(real)
            out.append(s)
    return out


def display_name(path: str, cwd: str) -> str:
    rel = os.path.relpath(path, cwd)
    if not rel.startswith(".." + os.sep) and rel != "..":
        return rel
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path.startswith(home + os.sep) else path


def imports_of(text: str) -> list[str]:
    """The ``@path`` imports of a memory file, in order: not inside a code block or a code
    span (where ``@`` is code), a trailing full stop or bracket not part of the path."""
    plain = _SPAN.sub(" ", _FENCE.sub(" ", text))
    out = []
    for m in _IMPORT.finditer(plain):
        token = m.group(1).replace("\\ ", " ").rstrip(".,;:!?)]}'\"")
        if token and token not in out:
            out.append(token)
    return out


def _resolve(token: str, importer: str) -> str:
    if token.startswith("~/"):
        return os.path.join(os.path.expanduser("~"), token[2:])
    return os.path.normpath(os.path.join(os.path.dirname(importer), token))


def _read(path: str, lines: int | None) -> str:
    text = read_bytes(path, MAX_MEMORY_BYTES).decode("utf-8", errors="replace")
    if lines is not None:
        text = "".join(text.splitlines(keepends=True)[:lines])
    return text


def read_memory(
    cwd: str, transcript_path: str | None, notes: list[str], reads: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """``(name, text)`` of each memory file, and of each file it imports (up to Claude
    Code's five hops, each file once); a file that cannot be read, or an import that names a
    missing file, is named in ``notes``."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    sources = memory_sources(cwd, transcript_path, reads)
    seen.update(os.path.realpath(s.path) for s in sources)
    for source in sources:
        try:
            text = _read(source.path, source.lines)
        except (OSError, PadError) as exc:
            notes.append(f"{source.name}: not read ({exc})")
            continue
        out.append((source.name, text))
        if source.imports:
            out += _imported(source.path, source.name, text, cwd, seen, notes, 1)
    return out


def _imported(
    importer: str, name: str, text: str, cwd: str, seen: set[str], notes: list[str], hop: int
) -> list[tuple[str, str]]:
    if hop > MAX_IMPORT_HOPS:
        return []
    out: list[tuple[str, str]] = []
    for token in imports_of(text):
        path = _resolve(token, importer)
        if not os.path.isfile(path):
            if ("/" in token or "." in token) and not os.path.exists(path):
                notes.append(f"{name}: imports {token}, which does not exist")
            continue  # (a bare "@name" that is no file is a mention, not an import)
        real = os.path.realpath(path)
        if real in seen:
            continue  # (already loaded, or a cycle)
        seen.add(real)
        cited = f"{display_name(path, cwd)}, imported by {name.split(', imported by ')[0]}"
        try:
            body = _read(path, None)
        except (OSError, PadError) as exc:
            notes.append(f"{cited}: not read ({exc})")
            continue
        out.append((cited, body))
        out += _imported(path, cited, body, cwd, seen, notes, hop + 1)
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
