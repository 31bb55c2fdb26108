"""A repository's memory store at each commit, against its first parent's (renames followed),
and the staged store against HEAD's (for a pre-commit hook).

One ``git log --raw`` lists what every commit of the range changed; each commit's tree is
its first parent's with those changes, kept only for the paths a store could hold (memory
files by the pattern table, and Markdown or text files one could link to), so a commit that
changed no such path costs nothing, and no tree is listed more than once per boundary of the
range. Blobs are read by one ``git cat-file --batch`` process, each once.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from padtui.core.errors import PadError
from padtui.core.history.git import _run as run_git
from padtui.core.history.git import _shallow_commits, is_shallow
from padtui.core.memory.discovery import FOLLOWED, MAX_MEMORY_BYTES, Store, discover
from padtui.core.memory.patterns import CONFIG_NAME, DEFAULT_PATTERNS, Pattern, table

_SYMLINK, _GITLINK = "120000", "160000"
_LINK = "L:"  # (a blob id so marked is a symbolic link's)
Entries = dict[str, str]  # path -> blob id, of the paths a store could hold


@dataclass(frozen=True)
class StoreChange:
    """One commit that changed the store (``commit`` None: the staged store), the store
    before and after it, and the files git saw renamed (old path -> new)."""

    commit: str | None
    parent: str | None
    subject: str
    before: Store
    after: Store
    renamed: dict[str, str]


def toplevel(where: str) -> str:
    """The root of the work tree ``where`` is in, or ``where`` itself when it is a bare
    repository (a mirror: its history is read, never a work tree); PadError outside one."""
    here = os.path.join(where, ".")
    bare = run_git(here, ["rev-parse", "--is-bare-repository"]).decode().strip() == "true"
    if bare:
        return where
    return run_git(here, ["rev-parse", "--show-toplevel"]).decode("utf-8", "replace").strip()


class Blobs:
    """Blob contents by id, read through one ``git cat-file --batch`` process, each once."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._proc: subprocess.Popen[bytes] | None = None
        self._got: dict[str, bytes | str] = {}

    def read(self, oid: str) -> bytes | str:
        hit = self._got.get(oid)
        if hit is not None:
            return hit
        if self._proc is None:
            self._proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                cwd=self.root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"},
            )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(f"{oid}\n".encode())
        self._proc.stdin.flush()
        fields = self._proc.stdout.readline().decode("ascii", "replace").split()
        if len(fields) != 3:
            got: bytes | str = "not in this clone (a shallow clone? fetch the history)"
        else:
            size = int(fields[2])
            data = self._proc.stdout.read(size + 1)[:size]
            if fields[1] != "blob":
                got = f"a {fields[1]} in git, not a file"
            elif size > MAX_MEMORY_BYTES:
                got = f"{size / 2**20:.1f} MiB: larger than a memory file"
            else:
                got = data
        self._got[oid] = got
        return got

    def prefetch(self, oids: Iterable[str]) -> None:
        """Read these blobs in one go (one process, its input and output piped whole)."""
        wanted = sorted({o for o in oids if o not in self._got})
        if not wanted:
            return
        out = run_git(os.path.join(self.root, "."), ["cat-file", "--batch"], _lines(wanted))
        pos = 0
        for oid in wanted:
            end = out.index(b"\n", pos)
            fields = out[pos:end].decode("ascii", "replace").split(" ")
            pos = end + 1
            if len(fields) != 3:
                continue  # (read one by one later, and said why then)
            size = int(fields[2])
            data = out[pos : pos + size]
            pos += size + 1
            if fields[1] == "blob" and size <= MAX_MEMORY_BYTES:
                self._got[oid] = data

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin is not None:
                self._proc.stdin.close()
            self._proc.wait()
            self._proc = None


def _lines(oids: Sequence[str]) -> bytes:
    return "".join(f"{oid}\n" for oid in oids).encode()


class CommitTree:
    """A commit's tree (the paths a store could hold) as discovery reads it; a symbolic
    link (its blob id marked ``L:``) is an alias of the file it points to."""

    def __init__(self, entries: Entries, blobs: Blobs) -> None:
        self.entries = entries
        self.blobs = blobs
        self._paths = sorted(entries)
        self._aliases: dict[str, str] | None = None

    def paths(self) -> Sequence[str]:
        return self._paths

    def read(self, path: str) -> bytes | str:
        oid = self.entries[path]
        if oid.startswith(_LINK):
            target = self.aliases().get(path)
            if target is None or target not in self.entries:
                return "a symbolic link to a file outside the tree"
            return self.read(target)
        return self.blobs.read(oid)

    def aliases(self) -> Mapping[str, str]:
        if self._aliases is None:
            self._aliases = {}
            for path, oid in self.entries.items():
                if not oid.startswith(_LINK):
                    continue
                data = self.blobs.read(oid[len(_LINK) :])
                if isinstance(data, str):
                    continue
                target = posixpath.normpath(
                    posixpath.join(posixpath.dirname(path), data.decode("utf-8", "replace"))
                )
                if not target.startswith("../"):
                    self._aliases[path] = target
        return self._aliases


def could_hold(path: str, patterns: Sequence[Pattern]) -> bool:
    """Could this path be a file of a store (memory by a pattern, or a file one could link
    to or import)?"""
    name = posixpath.basename(path)
    if name == CONFIG_NAME or name.lower().endswith(FOLLOWED):
        return True
    return any(p.matches(path) for p in patterns)


def _tree(root: str, rev: str, patterns: Sequence[Pattern]) -> Entries:
    out = run_git(os.path.join(root, "."), ["ls-tree", "-r", "-z", "--full-tree", rev])
    entries: Entries = {}
    for item in out.decode("utf-8", "replace").split("\0"):
        if not item:
            continue
        meta, _tab, path = item.partition("\t")
        mode, kind, oid = meta.split(" ")
        if kind == "blob" and mode != _GITLINK and could_hold(path, patterns):
            entries[path] = _LINK + oid if mode == _SYMLINK else oid
    return entries


def _index(root: str, patterns: Sequence[Pattern]) -> Entries:
    out = run_git(os.path.join(root, "."), ["ls-files", "-s", "-z"])
    entries: Entries = {}
    for item in out.decode("utf-8", "replace").split("\0"):
        if not item:
            continue
        meta, _tab, path = item.partition("\t")
        mode, oid, stage = meta.split(" ")
        if stage != "0":
            raise PadError(path, "unmerged (a merge conflict in the index): resolve it first")
        if mode != _GITLINK and could_hold(path, patterns):
            entries[path] = _LINK + oid if mode == _SYMLINK else oid
    return entries


@dataclass
class _Commit:
    oid: str
    parent: str | None
    subject: str
    changes: list[tuple[str, str | None, str | None]]  # (status, old path, new path), raw
    blobs: list[tuple[str | None, str | None]]  # (new blob or None, old path)


def _log(root: str, rev_range: str) -> list[_Commit]:
    out = run_git(
        os.path.join(root, "."),
        [
            "log",
            "-z",
            "--reverse",
            "--topo-order",
            "-M",
            "--diff-merges=first-parent",
            "--raw",
            "--no-abbrev",
            "--no-color",
            "--no-ext-diff",
            "--format=%H%x1f%P%x1f%s",
            "--end-of-options",
            rev_range,
            "--",
        ],
    )
    tokens = out.decode("utf-8", "replace").split("\0")
    commits: list[_Commit] = []
    i = 0
    while i < len(tokens):
        header = tokens[i].lstrip("\n")
        i += 1
        if not header:
            continue
        oid, parents, subject = [*header.split("\x1f", 2), "", ""][:3]
        c = _Commit(oid, parents.split(" ")[0] or None, subject, [], [])
        while i < len(tokens) and tokens[i].lstrip("\n").startswith(":"):
            old_mode, new_mode, _old_id, new_id, status = tokens[i].lstrip("\n:").split(" ")
            two = status[:1] in "RC"
            names = tokens[i + 1 : i + (3 if two else 2)]
            i += 3 if two else 2
            if _GITLINK in (old_mode, new_mode):
                continue
            old_path = names[0]
            new_path = names[-1]
            blob = None if set(new_id) == {"0"} else new_id
            if blob is not None and new_mode == _SYMLINK:
                blob = _LINK + blob
            c.changes.append((status[:1], old_path, new_path))
            c.blobs.append((blob, old_path))
        commits.append(c)
    return commits


def history(
    where: str, rev_range: str, extra: Sequence[Pattern] = (), replace_own: bool = False
) -> tuple[str, Iterator[StoreChange]]:
    """The repository's root, and each commit of ``rev_range`` that changed its memory
    store, oldest first, with the store before (its first parent's) and after."""
    if rev_range.startswith("-"):
        raise PadError("git", f"{rev_range!r} is not a revision range")
    root = toplevel(where)
    patterns = table(extra, replace_own)
    commits = _log(root, rev_range)
    here = os.path.join(root, ".")
    cut = _shallow_commits(here) if is_shallow(here) else set()
    return root, _walk(root, commits, patterns, extra, replace_own, cut)


def _walk(
    root: str,
    commits: list[_Commit],
    patterns: Sequence[Pattern],
    extra: Sequence[Pattern],
    replace_own: bool,
    shallow: set[str] | frozenset[str] = frozenset(),
) -> Iterator[StoreChange]:
    """Each commit's store change (the first commit of a shallow clone, whose parent is not
    here, is the base the next ones are audited against, not itself audited as added)."""
    blobs = Blobs(root)
    blobs.prefetch(
        b.removeprefix(_LINK)
        for c in commits
        for (_s, _o, path), (b, _) in zip(c.changes, c.blobs, strict=True)
        if b is not None and could_hold(path or "", patterns)
    )
    pending: dict[str, int] = {}  # commit -> how many commits still to come need its tree
    for c in commits:
        if c.parent is not None:
            pending[c.parent] = pending.get(c.parent, 0) + 1
    trees: dict[str, Entries] = {}
    stores: dict[str, Store] = {}
    empty: Entries = {}
    try:
        for c in commits:
            if c.parent is None and c.oid in shallow:
                trees[c.oid] = _tree(root, c.oid, patterns)
                blobs.prefetch(o.removeprefix(_LINK) for o in trees[c.oid].values())
                continue
            if c.parent is None:
                before = empty
            elif c.parent in trees:
                before = trees[c.parent]
            else:
                before = _tree(root, c.parent, patterns)
                blobs.prefetch(o.removeprefix(_LINK) for o in before.values())
            touched = [
                (s, o, n, b)
                for (s, o, n), (b, _) in zip(c.changes, c.blobs, strict=True)
                if could_hold(n or "", patterns) or could_hold(o or "", patterns)
            ]
            after = before
            renamed: dict[str, str] = {}
            if touched:
                after = dict(before)
                for status, old_path, new_path, blob in touched:
                    if status in "R" and old_path is not None:
                        after.pop(old_path, None)
                        renamed[old_path] = new_path or old_path
                    if status == "D" or blob is None:
                        after.pop(new_path or "", None)
                    elif new_path is not None and could_hold(new_path, patterns):
                        after[new_path] = blob
            if pending.get(c.oid):
                trees[c.oid] = after
            if c.parent is not None:
                pending[c.parent] -= 1
                if not pending[c.parent]:
                    trees.pop(c.parent, None)
                    old_store = stores.pop(c.parent, None)
                else:
                    old_store = stores.get(c.parent)
            else:
                old_store = None
            if not touched:
                if old_store is not None and pending.get(c.oid):
                    stores[c.oid] = old_store
                continue
            if old_store is None:
                old_store = _store(before, blobs, extra, replace_own)
            new_store = _store(after, blobs, extra, replace_own)
            if pending.get(c.oid):
                stores[c.oid] = new_store
            if _same(old_store, new_store):
                continue
            yield StoreChange(c.oid, c.parent, c.subject, old_store, new_store, renamed)
    finally:
        blobs.close()


def _store(entries: Entries, blobs: Blobs, extra: Sequence[Pattern], replace_own: bool) -> Store:
    return discover(CommitTree(entries, blobs), ".", extra, replace_own)


def _same(a: Store, b: Store) -> bool:
    return [(f.path, f.scope, f.text) for f in a.files] == [
        (f.path, f.scope, f.text) for f in b.files
    ]


def staged(
    where: str, extra: Sequence[Pattern] = (), replace_own: bool = False
) -> tuple[str, StoreChange | None]:
    """The staged store against HEAD's (against none before the first commit); None when
    the index holds HEAD's store."""
    root = toplevel(where)
    patterns = table(extra, replace_own)
    blobs = Blobs(root)
    try:
        try:
            head = _tree(root, "HEAD", patterns)
        except PadError:
            head = {}  # (no commit yet)
        index = _index(root, patterns)
        before = _store(head, blobs, extra, replace_own)
        after = _store(index, blobs, extra, replace_own)
    finally:
        blobs.close()
    if _same(before, after):
        return root, None
    gone = {p: o for p, o in head.items() if p not in index}
    came = {o: p for p, o in index.items() if p not in head}
    renamed = {p: came[o] for p, o in gone.items() if o in came}
    return root, StoreChange(None, "HEAD", "staged", before, after, renamed)


__all__ = ["DEFAULT_PATTERNS", "StoreChange", "history", "staged"]
