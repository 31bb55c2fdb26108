"""The memory store under a root: the files the pattern table takes, and the files they
import, link to or tell the agent to read, each with its scope and why it is in.

A root is a :class:`Tree`: the files under a folder on disk (:class:`FolderTree`), or a git
commit's tree (``memory.git``). A file reached twice keeps the widest scope it was reached
with, and every reason.
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from padtui.core.errors import PadError
from padtui.core.formats import read_bytes
from padtui.core.memory import front
from padtui.core.memory.patterns import (
    CONFIG_NAME,
    Pattern,
    first_match,
    from_config,
    is_nested,
    table,
)
from padtui.core.memory.references import references, resolve
from padtui.core.vocabulary import Scope

MAX_MEMORY_BYTES = 1 << 20  # a memory file larger than this is not one a person wrote
MAX_HOPS = 5  # imports and links followed this deep, no deeper
MAX_FILES = 2000  # memory files in one store
MAX_WALK = 200_000  # files looked at under a root
# folders no agent's memory lives in, and that a walk of a project would drown in
SKIPPED = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".hg"}
)
_WIDTH = {Scope.ALWAYS: 2, Scope.PATHS: 1, Scope.ON_DEMAND: 0}
# what a followed file may be: a text the agent reads as memory, not code or data
FOLLOWED = (".md", ".mdc", ".txt", ".markdown")


def wider(a: Scope, b: Scope) -> bool:
    return _WIDTH[a] > _WIDTH[b]


class Tree(Protocol):
    """The files under a root: their paths (relative, ``/`` between folders), a way to
    read one (its bytes, or a one-line reason it cannot be read), and the paths that are
    symbolic links to another file of the tree (link -> target)."""

    def paths(self) -> Sequence[str]: ...

    def read(self, path: str) -> bytes | str: ...

    def aliases(self) -> Mapping[str, str]: ...


@dataclass(frozen=True)
class MemoryFile:
    """One file of a store: its path under the root, the agent whose file it is, when it is
    loaded, why it is in, its text, and how many of its lines load at that scope (None:
    all; the rest load on demand)."""

    path: str
    agent: str
    scope: Scope
    why: tuple[str, ...]
    text: str
    lines: int | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "agent": self.agent,
            "scope": self.scope,
            "why": list(self.why),
            "lines": self.lines,
        }


@dataclass(frozen=True)
class Store:
    """The memory files found under a root, and what could not be read."""

    root: str
    files: tuple[MemoryFile, ...]
    notes: tuple[str, ...] = ()
    by_path: Mapping[str, MemoryFile] = field(default_factory=dict, compare=False, repr=False)
    # what is worked out once per store (its pad, for the audit)
    cache: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    def get(self, path: str) -> MemoryFile | None:
        return self.by_path.get(path)

    def as_json(self) -> dict[str, object]:
        return {
            "root": self.root,
            "files": [f.as_json() for f in self.files],
            "notes": list(self.notes),
        }


class FolderTree:
    """The files under a folder on disk (the folders in ``SKIPPED`` left out, symbolic
    links to folders not followed)."""

    def __init__(self, root: str) -> None:
        if not os.path.isdir(root):
            if os.path.exists(root):
                raise PadError(root, "not a folder: a memory store is a folder")
            raise PadError(root, "no such folder")
        self.root = root
        self._paths: list[str] | None = None
        self._aliases: dict[str, str] = {}

    def paths(self) -> Sequence[str]:
        if self._paths is None:
            self._paths = self._walk()
        return self._paths

    def aliases(self) -> Mapping[str, str]:
        self.paths()
        return self._aliases

    def _walk(self) -> list[str]:
        out: list[str] = []
        todo = [""]
        while todo and len(out) < MAX_WALK:
            rel = todo.pop()
            try:
                with os.scandir(os.path.join(self.root, rel)) as it:
                    found = sorted(it, key=lambda d: d.name)
            except OSError:
                continue
            for d in found:
                path = f"{rel}/{d.name}" if rel else d.name
                try:
                    if d.is_dir(follow_symlinks=False):
                        if d.name not in SKIPPED:
                            todo.append(path)
                    elif d.is_file():
                        out.append(path)
                        if d.is_symlink():
                            self._alias(path)
                except OSError:
                    continue
        return sorted(out)

    def _alias(self, path: str) -> None:
        """A symbolic link to another file under the root is that file, loaded by two
        names (``CLAUDE.md -> AGENTS.md``); one to a file elsewhere is read as a file."""
        base = os.path.realpath(self.root)
        target = os.path.realpath(os.path.join(self.root, path))
        rel = os.path.relpath(target, base)
        if not rel.startswith(".." + os.sep) and rel != path:
            self._aliases[path] = rel.replace(os.sep, "/")

    def read(self, path: str) -> bytes | str:
        try:
            return read_bytes(os.path.join(self.root, path), MAX_MEMORY_BYTES)
        except PadError as exc:
            return exc.problem

    def is_file(self, path: str) -> bool:
        try:
            return stat.S_ISREG(os.stat(os.path.join(self.root, path)).st_mode)
        except OSError:
            return False


def config_patterns(tree: Tree) -> tuple[tuple[Pattern, ...], bool]:
    """The patterns of the root's ``.padtui.toml`` (none when it has none)."""
    if CONFIG_NAME not in set(tree.paths()):
        return (), False
    data = tree.read(CONFIG_NAME)
    if isinstance(data, str):
        raise PadError(CONFIG_NAME, data)
    return from_config(CONFIG_NAME, data)


def discover(
    tree: Tree,
    root: str = ".",
    extra: Iterable[Pattern] = (),
    replace_own: bool = False,
    *,
    patterns: Sequence[Pattern] | None = None,
) -> Store:
    """The store under ``tree``: the files the patterns take (``extra`` first, then the
    root's ``.padtui.toml``, then padtui's own unless replaced), then what they bring in.
    ``patterns``: the whole table to use instead (already worked out)."""
    if patterns is None:
        mine, replaced = config_patterns(tree)
        patterns = table((*extra, *mine), replace_own or replaced)
    paths = tree.paths()
    present = set(paths)
    aliases = tree.aliases()
    found: dict[str, _Found] = {}
    notes: list[str] = []
    linked: list[tuple[str, str, Pattern]] = []
    for path in paths:
        p = first_match(patterns, path, present)
        if p is None:
            continue
        target = aliases.get(path)
        if target is not None and target in present:
            linked.append((path, target, p))
            continue
        found[path] = _Found(path, p.agent, p.scope, [p.why], p, None)
    for path, target, p in linked:
        why = f"loaded as {path} (a symbolic link to it): {p.why}"
        got = found.get(target)
        if got is None:
            found[target] = _Found(target, p.agent, p.scope, [why], p, None)
        else:
            got.why.append(why)
            if _width(p, target) > _width(got.pattern, target):
                got.scope, got.pattern = p.scope, p  # (loaded at the link's scope)
    return _follow(tree, root, found, present, notes, aliases)


def _width(p: Pattern | None, path: str) -> int:
    """How widely a pattern loads a file it takes (front matter read as widest)."""
    if p is None:
        return -1
    if p.scope is None:
        return _WIDTH[Scope.ALWAYS] - is_nested(p, path)
    return _WIDTH[Scope.PATHS] if is_nested(p, path) else _WIDTH[p.scope]


@dataclass
class _Found:
    path: str
    agent: str
    scope: Scope | None
    why: list[str]
    pattern: Pattern | None
    lines: int | None
    text: str | None = None
    hops: int = 0


def _follow(
    tree: Tree,
    root: str,
    found: dict[str, _Found],
    present: set[str],
    notes: list[str],
    aliases: Mapping[str, str],
) -> Store:
    todo = list(found)
    while todo:
        path = todo.pop(0)
        f = found[path]
        if f.text is None:
            f.text = _text(tree, path, notes)
            if f.text is None:
                continue
            if f.scope is None and f.pattern is not None and f.pattern.front:
                f.scope, why = front.scope_of(f.pattern.front, f.text)
                f.why[0] = f"{f.why[0]} ({why})"
            elif f.scope is None:
                f.scope = Scope.ALWAYS
            if f.pattern is not None and is_nested(f.pattern, path) and f.scope == Scope.ALWAYS:
                f.scope = Scope.PATHS
                f.why[0] = f"{f.why[0]}, for work in {posixpath.dirname(path)}/"
            if f.pattern is not None:
                f.lines = f.pattern.lines
        if f.hops >= MAX_HOPS:
            continue
        assert f.scope is not None
        for ref in references(f.text):
            target = _target(ref.target, path, present)
            target = aliases.get(target, target) if target is not None else None
            if target is None or target == path or not target.lower().endswith(FOLLOWED):
                continue
            scope = f.scope if ref.how == "import" else Scope.ON_DEMAND
            how = {"import": "imported by", "link": "linked from", "named": "named in"}[ref.how]
            why = f"{how} {path}"
            got = found.get(target)
            if got is None:
                if len(found) >= MAX_FILES:
                    cap = f"more than {MAX_FILES} memory files: the rest were not read"
                    notes += [] if cap in notes else [cap]
                    continue
                found[target] = _Found(target, f.agent, scope, [why], None, None, hops=f.hops + 1)
                todo.append(target)
            elif got.scope is not None and wider(scope, got.scope):
                got.scope = scope
                got.why.append(why)
                todo.append(target)  # (its own imports now load wider too)
            elif why not in got.why and len(got.why) < 4:
                got.why.append(why)
    files = tuple(
        MemoryFile(f.path, f.agent, f.scope or Scope.ALWAYS, tuple(f.why), f.text, f.lines)
        for f in sorted(found.values(), key=lambda f: f.path)
        if f.text is not None
    )
    return Store(root, files, tuple(notes), {f.path: f for f in files})


def _target(written: str, importer: str, present: set[str]) -> str | None:
    """The file a reference names: relative to the importing file's folder, else to the
    root; None when neither is a file of the tree."""
    for base in (importer, ""):
        path = resolve(written, base)
        if path is not None and path in present:
            return path
    return None


def _text(tree: Tree, path: str, notes: list[str]) -> str | None:
    data = tree.read(path)
    if isinstance(data, str):
        notes.append(f"{path}: not read ({data})")
        return None
    if b"\0" in data:
        notes.append(f"{path}: not read (binary file)")
        return None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        notes.append(f"{path}: not read (not valid UTF-8 at byte {exc.start})")
        return None


def folder_store(root: str, extra: Iterable[Pattern] = (), replace_own: bool = False) -> Store:
    """The store under a folder on disk."""
    return discover(FolderTree(root), root, extra, replace_own)
