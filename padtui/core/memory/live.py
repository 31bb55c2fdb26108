"""A store on disk followed as it changes: each look re-reads only the files whose size,
modification time or inode changed (a change to one file re-examines that file), audits the
new version against the one before, and keeps every version in the store's journal.

The journal is JSON Lines in the user's state folder (``stores/`` beside the pads'
journals), one line a version: when, the verdict, and each file's path, scope and text,
a text written once and named by its hash in later versions.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from padtui.core.memory.audit import StoreAudit, audit_stores
from padtui.core.memory.discovery import FolderTree, Store, discover
from padtui.core.memory.patterns import Pattern
from padtui.core.storage.journal import state_dir
from padtui.core.vocabulary import Scope


class CachedTree(FolderTree):
    """A folder whose files are re-read only when their size, modification time or inode
    changed since the last look."""

    def __init__(self, root: str) -> None:
        super().__init__(root)
        self._kept: dict[str, tuple[tuple[int, int, int], bytes | str]] = {}
        self.reread: list[str] = []  # the files read again at the last look

    def fresh(self) -> None:
        """Look again: the file list is walked anew at the next ``paths()``."""
        self._paths = None
        self._aliases = {}
        self.reread = []

    def read(self, path: str) -> bytes | str:
        try:
            st = os.stat(os.path.join(self.root, path))
        except OSError:
            return super().read(path)
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
        hit = self._kept.get(path)
        if hit is not None and hit[0] == stamp and stat.S_ISREG(st.st_mode):
            return hit[1]
        got = super().read(path)
        self._kept[path] = (stamp, got)
        self.reread.append(path)
        return got


@dataclass
class Version:
    """A version of the store seen: its number, when, the store, and the audit of the
    change from the version before (None for the first)."""

    number: int
    at: datetime
    store: Store
    audit: StoreAudit | None = None


@dataclass
class LiveStore:
    """The versions of a store seen so far, and its journal (None: not kept)."""

    root: str
    extra: Sequence[Pattern] = ()
    replace_own: bool = False
    journal: str | None = None
    versions: list[Version] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.tree = CachedTree(self.root)
        self._written: set[str] = set()

    def look(self, now: datetime | None = None) -> Version | None:
        """Read the store again; a new version (audited against the last) when it changed,
        else None."""
        self.tree.fresh()
        store = discover(self.tree, self.root, self.extra, self.replace_own)
        last = self.versions[-1] if self.versions else None
        if last is not None and _same(last.store, store):
            return None
        result = audit_stores(last.store, store) if last is not None else None
        v = Version(len(self.versions) + 1, now or datetime.now(UTC), store, result)
        self.versions.append(v)
        if self.journal is not None:
            self._append(v)
        return v

    def _append(self, v: Version) -> None:
        assert self.journal is not None
        files = []
        for f in v.store.files:
            digest = hashlib.sha256(f.text.encode()).hexdigest()[:32]
            entry: dict[str, Any] = {"path": f.path, "scope": f.scope, "text_sha": digest}
            if digest not in self._written:
                entry["text"] = f.text
                self._written.add(digest)
            files.append(entry)
        line = {
            "version": v.number,
            "at": v.at.isoformat(timespec="seconds"),
            "verdict": v.audit.verdict if v.audit is not None else None,
            "files": files,
        }
        os.makedirs(os.path.dirname(self.journal), exist_ok=True)
        with open(self.journal, "a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")


def journal_path(root: str) -> str:
    """Where a store's versions are kept: named by the root's real path."""
    real = os.path.realpath(root)
    name = os.path.basename(real.rstrip(os.sep)) or "root"
    digest = hashlib.sha256(real.encode()).hexdigest()[:12]
    return os.path.join(state_dir(), "stores", f"{name}-{digest}.jsonl")


def start_tokens(store: Store, counts: Mapping[str, int]) -> tuple[int, int]:
    """The tokens of what the agent loads at start, and of the whole store (``counts``:
    each file's tokens)."""
    start = sum(counts.get(f.path, 0) for f in store.files if f.scope == Scope.ALWAYS)
    return start, sum(counts.get(f.path, 0) for f in store.files)


def _same(a: Store, b: Store) -> bool:
    return [(f.path, f.scope, f.text) for f in a.files] == [
        (f.path, f.scope, f.text) for f in b.files
    ]
