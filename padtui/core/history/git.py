"""The versions of a pad kept in git: each change to it, the blob before and the blob after.

git runs as a child process with an argument list (never a shell), in the pad's own folder,
with literal pathspecs (a name such as ``*.md`` is a name, not a pattern) and ``--`` before
the path. Blobs are named by their object ids and read in one ``git cat-file --batch``.
Anything git refuses (not a repository, a revision that does not exist) is a PadError: one
line, exit 2.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, replace

from padtui.core.errors import PadError

# what a change does to the pad, by git's raw status letter
_STATUS = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "added",
    "T": "modified",
}
_SYMLINK, _GITLINK = "120000", "160000"


@dataclass(frozen=True, kw_only=True)
class Change:
    """One change to a pad: a commit that changed it (against its first parent), or what is
    staged (against HEAD). ``before``/``after`` are blob ids, None where there is no version
    (added, deleted); ``not_a_file`` says why a side is no pad (a symbolic link, a
    submodule), else None."""

    path: str
    name: str  # the pad's name in the repository at this change (a rename changes it)
    old_name: str | None = None  # its name before a rename
    commit: str | None = None  # None: the staged version
    parent: str | None = None
    subject: str | None = None
    change: str  # added | modified | deleted | renamed | unchanged | unknown (shallow)
    before: str | None = None
    after: str | None = None
    not_a_file: str | None = None
    shallow: bool = False  # the first commit of a shallow clone: the version before is not here


SHALLOW = "the history is shallow: the version before is not in this clone (git fetch --deepen)"


def is_range(arg: str) -> bool:
    """A revision range names ``..`` (``A..B``, ``A...B``, ``A..``, ``..B``): git's names never
    contain it, and a path that does (``../CLAUDE.md``) has ``..`` as a whole segment."""
    if ".." not in arg:
        return False
    return ".." not in arg.replace(os.sep, "/").split("/")


def _run(path: str, args: list[str], stdin: bytes | None = None) -> bytes:
    where = os.path.dirname(path) or "."
    if not os.path.isdir(where):
        raise PadError(path, f"no such folder {where!r}, so no repository to read it from")
    env = {**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        done = subprocess.run(
            ["git", "--literal-pathspecs", "-c", "core.quotepath=off", *args],
            cwd=where,
            input=stdin,
            capture_output=True,
            env=env,
            check=False,
        )
    except FileNotFoundError:
        raise PadError(
            "git", "not found: --git runs the git command, and none is on PATH"
        ) from None
    except OSError as exc:
        raise PadError("git", exc.strerror or str(exc)) from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        line = message[0] if message else f"exited with status {done.returncode}"
        line = line.removeprefix("fatal: ").removeprefix("error: ")
        if "not a git repository" in line:
            raise PadError(path, f"not in a git repository ({os.path.abspath(where)})")
        raise PadError("git", line)
    return done.stdout


def _in_repository(path: str) -> None:
    """PadError unless the pad's folder is in a git work tree (outside one, ``git diff``
    would compare files, not versions)."""
    if _text(_run(path, ["rev-parse", "--is-inside-work-tree"])).strip() != "true":
        where = os.path.abspath(os.path.dirname(path) or ".")
        raise PadError(path, f"not in a git work tree ({where})")


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _raw_fields(meta: str) -> tuple[str, str, str, str, str]:
    """``:OLDMODE NEWMODE OLDID NEWID STATUS`` of ``git --raw`` output."""
    old_mode, new_mode, old_id, new_id, status = meta.lstrip("\n:").split(" ")
    return old_mode, new_mode, old_id, new_id, status[:1]


def _blob(mode: str, oid: str) -> str | None:
    return None if set(oid) == {"0"} or mode == "000000" else oid


def _not_a_file(*modes: str) -> str | None:
    if _SYMLINK in modes:
        return "a symbolic link in git, not a pad: audit the file it points to"
    if _GITLINK in modes:
        return "a submodule in git, not a pad"
    return None


def _change(
    path: str, meta: str, names: list[str], head: tuple[str | None, str | None, str | None]
) -> Change:
    old_mode, new_mode, old_id, new_id, status = _raw_fields(meta)
    if status == "U":
        raise PadError(path, "unmerged (a merge conflict in the index): resolve it first")
    commit, parent, subject = head
    return Change(
        path=path,
        name=names[-1],
        old_name=names[0] if len(names) > 1 else None,
        commit=commit,
        parent=parent,
        subject=subject,
        change=_STATUS.get(status, "modified"),
        before=_blob(old_mode, old_id),
        after=_blob(new_mode, new_id),
        not_a_file=_not_a_file(old_mode, new_mode),
    )


def _parse_raw(
    path: str, tokens: list[str], head: tuple[str | None, str | None, str | None], i: int
) -> tuple[list[Change], int]:
    """The raw lines at ``tokens[i:]`` (NUL-separated: meta, then one name, or two for a
    rename or copy), up to the next commit's header."""
    out = []
    while i < len(tokens) and tokens[i].lstrip("\n").startswith(":"):
        meta = tokens[i]
        count = 2 if _raw_fields(meta)[4] in "RC" else 1
        out.append(_change(path, meta, tokens[i + 1 : i + 1 + count], head))
        i += 1 + count
    return out, i


def changes(path: str, rev_range: str) -> tuple[list[Change], str | None]:
    """Each commit in ``rev_range`` that changed the pad, oldest first, against its first
    parent (a merge: what it brought in over its first parent), following renames; and a
    note when the clone is shallow and the range's base is not in it (the commits the clone
    has, up to the range's tip, are audited instead). The first commit of a shallow clone is
    marked ``shallow``: its parent is not here."""
    if rev_range.startswith("-"):
        raise PadError("git", f"{rev_range!r} is not a revision range")
    _in_repository(path)
    note = None
    try:
        found = _log(path, rev_range)
    except PadError:
        if not is_shallow(path):
            raise
        base, _dots, tip = rev_range.partition("..")
        tip = tip.lstrip(".") or "HEAD"
        found = _log(path, tip)
        base = base or "the range's base"
        note = f"the history is shallow: {base} is not in this clone; audited its commits to {tip}"
    if any(c.parent is None and c.commit for c in found) and is_shallow(path):
        cut = _shallow_commits(path)
        found = [
            replace(c, shallow=True, change="unknown", before=None) if c.commit in cut else c
            for c in found
        ]
    return found, note


def is_shallow(path: str) -> bool:
    return _text(_run(path, ["rev-parse", "--is-shallow-repository"])).strip() == "true"


def _shallow_commits(path: str) -> set[str]:
    """The commits where a shallow clone's history is cut (their parents are not here)."""
    where = _text(_run(path, ["rev-parse", "--git-path", "shallow"])).strip()
    try:
        with open(os.path.join(os.path.dirname(path) or ".", where), encoding="ascii") as f:
            return {line.strip() for line in f if line.strip()}
    except (OSError, ValueError):
        return set()


def _log(path: str, rev_range: str) -> list[Change]:
    out = _run(
        path,
        [
            "log",
            "-z",
            "--follow",
            "--diff-merges=first-parent",
            "--raw",
            "--no-abbrev",
            "--no-color",
            "--no-ext-diff",
            "--format=%H%x1f%P%x1f%s",
            "--end-of-options",
            rev_range,
            "--",
            os.path.basename(path),
        ],
    )
    tokens = _text(out).split("\0")
    found: list[Change] = []
    i = 0
    while i < len(tokens):
        header = tokens[i].lstrip("\n")
        i += 1
        if not header:
            continue
        commit, parents, subject = [*header.split("\x1f", 2), "", ""][:3]
        parent = parents.split(" ")[0] or None
        got, i = _parse_raw(path, tokens, (commit, parent, subject), i)
        found += got[:1]  # (one path: one line; a merge's first-parent diff is its only one)
    found.reverse()
    return found


def staged(path: str) -> Change:
    """What is staged for the pad, against HEAD (against nothing before the first commit);
    ``change`` is ``unchanged`` when the index holds what HEAD does, ``renamed`` (against
    the old name's version) when the pad was moved (``git mv``) from another name."""
    name = os.path.basename(path)
    _in_repository(path)
    out = _run(path, ["diff", "--cached", "-z", "--raw", "--no-abbrev", "--no-renames", "--", name])
    tokens = _text(out).split("\0")
    got, _ = _parse_raw(path, tokens, (None, None, None), 0)
    if got and got[0].change == "added":
        return _staged_rename(path) or got[0]
    if got:
        return got[0]
    if not _run(path, ["ls-files", "-z", "--", name]):
        raise PadError(path, "not tracked by git: nothing staged and not in HEAD (`git add` it)")
    return Change(path=path, name=name, change="unchanged")


def _staged_rename(path: str) -> Change | None:
    """The staged rename that made the pad, if one did (found over the whole index: the old
    name is anywhere in the repository)."""
    prefix = _text(_run(path, ["rev-parse", "--show-prefix"])).strip()
    target = prefix + os.path.basename(path)
    renames = ["diff", "--cached", "-z", "--raw", "--no-abbrev", "-M", "--diff-filter=R"]
    out = _run(path, [*renames, "--no-relative"])
    tokens = _text(out).split("\0")
    i = 0
    while i + 2 < len(tokens):
        if tokens[i + 2] == target:
            return _change(path, tokens[i], tokens[i + 1 : i + 3], (None, None, None))
        i += 3
    return None


def tracked(path: str) -> bool:
    """Whether the pad is in the index (in CI, the commit checked out)."""
    return bool(_run(path, ["ls-files", "-z", "--", os.path.basename(path)]))


def blobs(path: str, ids: Iterable[str], limit: int) -> dict[str, bytes | str]:
    """Each blob's bytes by id, read in one ``git cat-file --batch``; a blob over ``limit``
    bytes, or missing (a shallow clone), is a one-line problem instead: each one's size is
    asked first (``--batch-check``), and one over the limit is never read."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    asked = "".join(f"{oid}\n" for oid in wanted).encode()
    got: dict[str, bytes | str] = {}
    readable: list[str] = []
    for oid, line in zip(
        wanted, _text(_run(path, ["cat-file", "--batch-check"], asked)).split("\n"), strict=False
    ):
        fields = line.split(" ")
        if len(fields) != 3 or not fields[2].isdigit():
            got[oid] = "not in this clone (a shallow clone? fetch the history)"
        elif fields[1] != "blob":
            got[oid] = f"a {fields[1]} in git, not a file"
        elif int(fields[2]) > limit:
            size = int(fields[2])
            got[oid] = f"{size / 2**20:.1f} MiB; padtui reads pads up to {limit / 2**20:.0f} MiB"
        else:
            readable.append(oid)
    if not readable:
        return got
    out = _run(path, ["cat-file", "--batch"], "".join(f"{oid}\n" for oid in readable).encode())
    pos = 0
    for oid in readable:
        end = out.index(b"\n", pos)
        fields = _text(out[pos:end]).split(" ")
        pos = end + 1
        if len(fields) != 3:
            got[oid] = "not in this clone (a shallow clone? fetch the history)"
            continue
        size = int(fields[2])
        data = out[pos : pos + size]
        pos += size + 1
        got[oid] = (
            data
            if size <= limit
            else f"{size / 2**20:.1f} MiB; padtui reads pads up to {limit / 2**20:.0f} MiB"
        )
    return got
