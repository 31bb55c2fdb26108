"""Claude Code's memory files, found as Claude Code loads them (the README's
"Guard Claude Code's compactions").

At the start of a session: the managed policy file, the user's ``~/.claude/CLAUDE.md`` and
``~/.claude/rules/``, every folder's ``CLAUDE.md``, ``CLAUDE.local.md``, ``.claude/CLAUDE.md``
and ``.claude/rules/`` from the root down to the working folder, the files these import with
``@path``, and the first 200 lines of the project's auto-memory ``MEMORY.md``. On demand, once
the agent reads a file there: the ``CLAUDE.md`` of a folder below the working folder, a rules
file whose ``paths:`` front matter matches the file, an auto-memory topic file. What is loaded
on demand counts as in force once the transcript shows the read, and is not loaded again after
a compaction.
"""

from __future__ import annotations

import glob
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from padtui.core.agents.guard import RuleInForce, file_rules
from padtui.core.errors import PadError
from padtui.core.formats import read_bytes
from padtui.core.memory.front import split_list
from padtui.core.memory.patterns import glob_re
from padtui.core.storage import fsio

MAX_MEMORY_BYTES = 1 << 20  # a memory file larger than this is not one a person wrote
MANAGED_ENV = "PADTUI_CLAUDE_MANAGED"  # the managed policy file's path, for tests and odd installs
MAX_IMPORT_HOPS = 5  # Claude Code follows @imports this deep, no deeper
MAX_FILES = 200  # memory files and imports read for one hook: a hook has no time for more
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


def _rules_files(folder: str, reads: Sequence[str], base: str | None = None) -> list[str]:
    """The ``.claude/rules/`` files of a folder that are loaded: those without ``paths:``
    front matter, and those whose patterns (relative to ``base``, else ``folder``) match a
    file read."""
    where = os.path.join(glob.escape(folder), ".claude", "rules", "**", "*.md")
    out = []
    for path in sorted(glob.glob(where, recursive=True)):
        patterns = scope_of(path)
        if patterns is None or any(_matches(patterns, base or folder, r) for r in reads):
            out.append(path)
    return out


def _in_folder(folder: str, reads: Sequence[str]) -> list[str]:
    out = [os.path.join(folder, n) for n in ("CLAUDE.md", "CLAUDE.local.md")]
    out.append(os.path.join(folder, ".claude", "CLAUDE.md"))
    return out + _rules_files(folder, reads)


_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*$", re.M | re.S)
_PATHS = re.compile(r"^paths[ \t]*:[ \t]*(.*)$", re.M)
_ITEM = re.compile(r"^[ \t]+-[ \t]*(.+?)[ \t]*$", re.M)


def scope_of(path: str) -> list[str] | None:
    """The ``paths:`` glob patterns of a rules file's front matter (None: it has none, so it
    is loaded at the start)."""
    try:
        fd, _st = fsio.open_regular(path)  # (a FIFO in its place is never waited on)
        with open(fd, "rb") as f:
            head = f.read(8192).decode("utf-8", "replace")
    except OSError:
        return None
    front = _FRONT.match(head)
    key = _PATHS.search(front.group(1)) if front else None
    if front is None or key is None:
        return None
    inline = key.group(1).strip()
    if inline:
        items = [inline.strip("[]")] if inline.startswith("[") else [inline]
        items = [p for i in items for p in split_list(i)]
    else:
        rest = front.group(1)[key.end() :]
        block = re.match(r"(?:[ \t]*\r?\n|[ \t]+-[^\n]*\n?)*", rest)
        items = _ITEM.findall(block.group() if block else "")
    patterns = [i.strip().strip("'\"") for i in items]
    return [p for p in patterns if p] or None


def _matches(patterns: Sequence[str], folder: str, read: str) -> bool:
    path = os.path.normpath(os.path.join(folder, read))
    if not _below(path, folder):
        return False
    rel = os.path.relpath(path, folder).replace(os.sep, "/")
    return any(glob_re(p).match(rel) for p in patterns)


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
    found += _rules_files(home, reads, cwd)
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
        found += _in_folder(folder, reads)
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
        if len(seen) >= MAX_FILES:
            cap = f"more than {MAX_FILES} memory files and imports: the rest were not read"
            notes += [] if cap in notes else [cap]
            return out
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
