"""Safe writes (SPEC section 6): stamped reads, compare-and-swap commits, the lock.

padtui writes a pad that a live agent is also writing, so a commit

* is made against a :class:`Snapshot`: the exact bytes a plan was made from, stamped with
  (size, mtime_ns, inode, device, SHA-256 of the bytes). ``stat`` alone misses an agent that
  rewrites the file in place with the same size within one timestamp tick; the hash does not;
* takes an advisory lock (``flock``) on a separate, persistent ``<pad>.lock`` file, never on
  the pad itself (a lock on the pad's inode would die with the first rename over it).
  :func:`lock` exposes it, so a cooperating agent can hold it across its own read-modify-write;
* re-reads the pad under the lock and refuses (:class:`Conflict`) unless it is still exactly
  the snapshot's bytes; journals that version (fsync) before anything replaces it;
* writes the new bytes to a temporary file in the pad's folder, with the pad's mode (and
  owner, where allowed), flushes and fsyncs it, checks the pad once more, swaps it in, and
  fsyncs the folder. A killed commit leaves the old file or the new one, never a mix.

Where it writes. Every step runs through the pad's folder held open (``dir_fd``) and names
in it, never following a symlink; the pad's path must still lead to the real file that was
read, checked under the lock and again right before the swap (:class:`WriteFailed` if not).
A read-only pad is not replaced, and an I/O error (a full disk) is a WriteFailed with
nothing written. The lock file is opened without following a symlink, 0600.

The swap. On Linux the new file is swapped in with ``renameat2(RENAME_EXCHANGE)``: the old
file is not destroyed but comes back under the temporary name, so padtui can check that what
it displaced is exactly the version it planned from. If an agent that does not take the lock
slipped a write in between (a rename over the pad, or an open with ``O_TRUNC``), padtui swaps
that version back (and journals it) and reports a conflict: nothing that reached the pad is
lost unseen. Where the exchange is not available (other systems, file systems without it) the swap
is ``os.replace`` right after the last check.

Writers holding the pad open. An agent that opened the pad before the swap and writes
through that open file after it (``r+`` then write, or ``O_APPEND``) would write into the
displaced file. On Linux a read lease cannot be taken on a file any process holds open for
writing, which tells padtui whether such a writer exists: before the swap it waits (up to
``HELD_WAIT``) for writers to close the pad, then reads it once more; after the swap it asks
again of the displaced file (a writer that opened it in the instant between) and swaps it
back if one holds it. Our version, out again, is kept beside the pad if someone opened it
meanwhile. What remains: where leases are not available (another user's pad without
``CAP_LEASE``, file systems without leases, other systems) such a write is lost, as is,
without the exchange, any write between the last check and the replace. An agent that writes
its pad under ``padtui.lock(path)`` is never raced.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import hashlib
import os
import secrets
import signal
import stat
import sys
import threading
import time
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from padtui.core.compaction import Plan
from padtui.core.errors import PadError, open_error, too_large
from padtui.core.formats import (
    MAX_PAD_BYTES,
    PadFile,
    Settings,
    check_writable,
    format_of,
    named,
    parse,
    render,
    to_bytes,
)
from padtui.core.journal import Journal, fsync_dir
from padtui.core.model import PROTECTED_KINDS, Entry, Pad
from padtui.core.names import fit

LOCK_SUFFIX = ".lock"
TMP_TAG = ".padtui-"
TMP_SUFFIX = ".tmp"
DEFAULT_LOCK_TIMEOUT = 10.0
READ_ATTEMPTS = 6  # a read that does not parse is retried this many times in all ...
READ_BACKOFF = 0.001  # ... after 1, 2, 4, 8, 16 ms (31 ms at most): a torn write settles
UNREADABLE = "unreadable (mid-write?)"
NO_SUCH_FILE = "no such file"  # (as errors.open_error says it)
# The settle rule of live reads (``read(quiet=...)``, see ``settling``): a version is
# taken only once every look at the file over SETTLE_QUIET seconds (SETTLE_LOOKS looks an
# interval) found the same real file with the same size, mtime_ns, inode, device and bytes,
# and the file is still so once parsed. A file that keeps changing for SETTLE_LIMIT seconds is
# reported as still being written.
SETTLE_QUIET = 0.02
SETTLE_LOOKS = 4
SETTLE_LIMIT = 2.0
STILL_WRITING = "still being written"
MAX_UNDO = 16

USE_EXCHANGE = True  # swap with renameat2(RENAME_EXCHANGE) where the kernel allows it


class CommitError(Exception):
    """A commit that did not happen; nothing was written. One line: ``FILE: PROBLEM``."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(self.line())

    def line(self) -> str:
        return f"{self.path}: {self.problem}"


class Conflict(CommitError):
    """Compare-and-swap miss: the pad is not the version the commit was planned from."""


class Refused(CommitError):
    """A refused plan is never written."""


class LockTimeout(CommitError):
    """Another process held the pad's lock for too long."""


class WriteFailed(CommitError):
    """A commit the system or the pad's place would not allow: an I/O error (a full disk), a
    read-only pad, a pad whose path now leads to another file than the one read."""


@dataclass(frozen=True)
class Stamp:
    """What identifies one version of a pad file on disk."""

    size: int
    mtime_ns: int
    ino: int
    dev: int
    sha256: str

    @classmethod
    def of(cls, st: os.stat_result, data: bytes) -> Stamp:
        """The stamp of bytes read from a file with this stat."""
        return cls(
            st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, hashlib.sha256(data).hexdigest()
        )

    @classmethod
    def of_bytes(cls, data: bytes) -> Stamp:
        """A stamp of content only (stat unknown: -1), for bytes that were read elsewhere."""
        return cls(len(data), -1, -1, -1, hashlib.sha256(data).hexdigest())

    def matches(self, now: Stamp) -> bool:
        """Is a file whose stamp is ``now`` still this version? (Unknown parts match.)"""
        return (
            self.size == now.size
            and self.sha256 == now.sha256
            and self.mtime_ns in (-1, now.mtime_ns)
            and self.ino in (-1, now.ino)
            and self.dev in (-1, now.dev)
        )


@dataclass(frozen=True)
class Snapshot:
    """A pad as read, with the stamp a commit compares against.

    ``path`` is the name it was read by; ``target`` the real file behind it (a symlinked pad
    is written through to its target, and the link is kept).
    """

    path: str
    target: str
    file: PadFile
    stamp: Stamp
    version: int | None = field(default=None, compare=False)  # its number in the journal
    created: bool = field(default=False, compare=False)  # written anew (a restore of a lost pad)

    @property
    def pad(self) -> Pad:
        return self.file.pad

    @property
    def data(self) -> bytes:
        return self.file.data

    @property
    def format(self) -> str:
        return self.file.layout.format


@dataclass(frozen=True)
class Reading:
    """What a look at a live pad found: a new version, the same one, or a torn file."""

    state: str  # "new", "same" or "unreadable"
    snapshot: Snapshot | None  # the newest good version (the new one, else the last)
    problem: str | None = None

    @property
    def message(self) -> str:
        if self.state == "unreadable":
            return f"{UNREADABLE}: {self.problem}"
        return self.state


# --- reading -------------------------------------------------------------------------------


class _Moving(Exception):
    """The file changed while it was being read."""


def _read_raw(target: str, name: str, dir_fd: int | None = None) -> tuple[bytes, os.stat_result]:
    """The file's bytes and the stat they belong to (``_Moving`` if it changed meanwhile).
    With ``dir_fd``, ``target`` is a name in that folder, and a symlink there is not followed."""
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO in its place must not hang
    if dir_fd is not None:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(target, flags, dir_fd=dir_fd)
    except OSError as exc:
        raise open_error(name, exc) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise PadError(name, "is a directory, not a pad file")
        if not stat.S_ISREG(st.st_mode):
            raise PadError(name, "not a regular file")
        if st.st_size > MAX_PAD_BYTES:
            raise too_large(name, st.st_size, MAX_PAD_BYTES)
        chunks = []
        total = 0
        while total <= MAX_PAD_BYTES:
            chunk = os.read(fd, max(st.st_size - total, 0) + 65536)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        after = os.fstat(fd)
    except OSError as exc:
        raise PadError(name, exc.strerror or str(exc)) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    moved = (st.st_size, st.st_mtime_ns) != (after.st_size, after.st_mtime_ns)
    if moved or len(data) != after.st_size:
        raise _Moving
    return data, after


def _still(st: os.stat_result, target: str) -> bool:
    """Is ``target`` still the file ``st`` describes (not renamed over, not rewritten)?"""
    try:
        now = os.stat(target)
    except OSError:
        return False
    return (now.st_ino, now.st_dev, now.st_size, now.st_mtime_ns) == (
        st.st_ino,
        st.st_dev,
        st.st_size,
        st.st_mtime_ns,
    )


def read(
    path: str,
    *,
    journal: JournalArg = False,
    attempts: int = READ_ATTEMPTS,
    previous: PadFile | None = None,
    fmt: str | None = None,
    quiet: float = 0.0,
    limit: float | None = None,
) -> Snapshot:
    """Read a pad with its version stamp, for a commit to compare against.

    A read that does not parse, or that catches the file changing or vanishing under it, is
    retried a few times over a few milliseconds (an agent's save may be half done); if it
    still fails, the last PadError is raised. With ``journal`` the version is journaled as
    seen (``True``: the pad's default journal; a path or a :class:`Journal`: that one).
    ``previous``, the version read before, makes reading a large pad that changed little
    cheap (see ``formats.parse``). ``fmt`` reads it as that format, whatever its name.

    ``quiet`` (seconds; live reads pass ``SETTLE_QUIET``) reads by the settle rule instead:
    see :func:`read_settled`.
    """
    format_of(path, fmt)  # (an unknown one: PadError now; the format is passed on as chosen,
    # as a --format, which a read-only format's name is not)
    if quiet > 0:
        snap = read_settled(path, quiet, SETTLE_LIMIT if limit is None else limit, previous, fmt)
        n = record(snap, journal)
        return snap if n is None else replace(snap, version=n)
    last: PadError | None = None
    for attempt in range(max(attempts, 1)):
        if attempt:
            time.sleep(READ_BACKOFF * 2 ** (attempt - 1))
        target = os.path.realpath(path)
        try:
            data, st = _read_raw(target, path)
        except _Moving:
            last = PadError(path, "kept changing while being read")
            continue
        except PadError as exc:
            if exc.problem != NO_SUCH_FILE:
                raise
            last = exc  # gone for a moment: an agent that deletes, then writes anew
            continue
        try:
            pad_file = parse(path, data, fmt, previous)
        except PadError as exc:
            last = exc  # perhaps half written
            continue
        if not _still(st, target):
            last = PadError(path, "was replaced while being read")
            continue
        snap = Snapshot(path, target, pad_file, Stamp.of(st, data))
        n = record(snap, journal)
        return snap if n is None else replace(snap, version=n)
    assert last is not None
    raise last


@dataclass(frozen=True)
class Look:
    """The pad at one moment: the real file behind its name, and that file's bytes and stat
    (both None: there was no file)."""

    target: str
    data: bytes | None
    st: os.stat_result | None

    def same_as(self, other: Look) -> bool:
        """The same real file, with the same size, mtime_ns, inode, device and bytes (or
        missing both times)."""
        if self.target != other.target or (self.st is None) != (other.st is None):
            return False
        if self.st is None or other.st is None:
            return True
        key = (self.st.st_size, self.st.st_mtime_ns, self.st.st_ino, self.st.st_dev)
        now = (other.st.st_size, other.st.st_mtime_ns, other.st.st_ino, other.st.st_dev)
        return key == now and self.data == other.data


def look(path: str) -> Look | None:
    """A look at the pad's file; None if it changed while being read. PadError for what is
    no pad file at all (a directory, a FIFO, a device, a file too large, no permission)."""
    target = os.path.realpath(path)
    try:
        data, st = _read_raw(target, path)
    except _Moving:
        return None
    except PadError as exc:
        if exc.problem != NO_SUCH_FILE:
            raise
        return Look(target, None, None)
    return Look(target, data, st)


def read_settled(
    path: str,
    quiet: float = SETTLE_QUIET,
    limit: float = SETTLE_LIMIT,
    previous: PadFile | None = None,
    fmt: str | None = None,
) -> Snapshot:
    """Read the pad once it has settled (:func:`settling`), pausing in this thread."""
    steps = settling(path, quiet, limit, previous, fmt)
    while True:
        try:
            pause = next(steps)
        except StopIteration as done:
            snap: Snapshot = done.value
            return snap
        time.sleep(pause)


def settling(
    path: str,
    quiet: float = SETTLE_QUIET,
    limit: float = SETTLE_LIMIT,
    previous: PadFile | None = None,
    fmt: str | None = None,
    looks: int = SETTLE_LOOKS,
) -> Generator[float, None, Snapshot]:
    """The read a live watcher takes, step by step: yields each pause (seconds) to make
    before the next look, and returns the pad once it has settled. (So a caller can pause
    without holding a thread: an event loop looks in a thread and pauses in the loop.)

    The settle rule: the file is looked at every ``quiet / looks`` seconds, and taken
    once every look over ``quiet`` seconds found the same real file with the same size,
    mtime_ns, inode, device and bytes, and a re-stat after parsing still finds it so. An
    agent's save in progress (``O_TRUNC`` then writes, an ``r+`` rewrite, a delete then a new
    file) changes the file between two looks, so a torn file is never parsed into a version,
    even a JSON Lines or Markdown prefix that would parse. So a version that stays on disk
    for ``quiet`` plus one look's interval is taken (once the read has begun); one replaced
    sooner is passed over. The limit of the rule: a writer that stops mid-save for longer
    than ``quiet`` shows a settled torn file.

    Settled, a file that does not parse raises its PadError, a missing one ``no such file``;
    one that kept changing for ``limit`` seconds raises ``still being written``.
    """
    fmt = format_of(path, fmt)
    step = quiet / max(looks, 1)
    deadline = time.monotonic() + limit
    seen = look(path)
    since = time.monotonic()  # when ``seen`` was last found changed
    while True:
        yield step
        started = time.monotonic()
        now = look(path)
        if seen is None or now is None or not seen.same_as(now):
            seen, since = now, time.monotonic()
        elif started - since >= quiet:
            if now.data is None or now.st is None:
                raise PadError(path, NO_SUCH_FILE)
            pad_file = parse(path, now.data, fmt, previous)
            if _still(now.st, now.target):
                return Snapshot(path, now.target, pad_file, Stamp.of(now.st, now.data))
            seen, since = look(path), time.monotonic()
        if time.monotonic() >= deadline:
            raise PadError(path, f"{STILL_WRITING} (it kept changing for {limit:g} s)")


def snapshot_of(pad_file: PadFile) -> Snapshot:
    """A snapshot of a pad read elsewhere (``formats.load``, a watcher): its stamp is its
    content only, so a commit against it compares bytes (size and SHA-256), not stat."""
    return Snapshot(
        pad_file.path,
        os.path.realpath(pad_file.path),
        pad_file,
        Stamp.of_bytes(pad_file.data),
    )


def poll(
    path: str,
    last: Snapshot | None = None,
    *,
    journal: JournalArg = False,
    fmt: str | None = None,
    quiet: float = SETTLE_QUIET,
) -> Reading:
    """A look at a live pad, once it has settled (:func:`read_settled`): ``new`` (a version
    other than ``last``), ``same``, or ``unreadable`` (torn, gone or still being written;
    never taken for a new version, and ``snapshot`` stays the last good one)."""
    try:
        snap = read(path, fmt=fmt, quiet=quiet)
    except PadError as exc:
        return Reading("unreadable", last, exc.problem)
    if last is not None and snap.stamp.sha256 == last.stamp.sha256:
        return Reading("same", snap)
    n = record(snap, journal)
    return Reading("new", snap if n is None else replace(snap, version=n))


JournalArg = Journal | str | bool


def journal_of(path: str, journal: JournalArg) -> Journal | None:
    """The journal to use: ``True`` the pad's default one, ``False`` none, a path or a
    :class:`Journal` that one."""
    if isinstance(journal, Journal):
        return journal
    if journal is False:
        return None
    j = Journal.for_pad(path, journal if isinstance(journal, str) else None)
    with _registry:  # one Journal object per journal file and pad: it reads incrementally
        return _journals.setdefault(f"{j.path}\0{j.pad}", j)


def record(version: Snapshot | PadFile, journal: JournalArg = True) -> int | None:
    """Journal a version seen (a watcher's reading); returns its number in the journal."""
    pad_file = version.file if isinstance(version, Snapshot) else version
    j = journal_of(pad_file.path, journal)
    if j is None:
        return None
    return j.append(pad_file.data, pad_file.layout.format, "seen", pad_file)


_journals: dict[str, Journal] = {}


# --- the lock ------------------------------------------------------------------------------


@dataclass
class _Held:
    rlock: threading.RLock
    fd: int = -1
    depth: int = 0


_held: dict[str, _Held] = {}
_registry = threading.Lock()


def lock_path_for(path: str) -> str:
    """``<pad>.lock`` beside the pad's real file (so every name of the pad shares it; a name
    too long for that is cut and hashed)."""
    folder, name = os.path.split(os.path.realpath(path))
    return os.path.join(folder, fit(name, len(LOCK_SUFFIX)) + LOCK_SUFFIX)


@contextlib.contextmanager
def lock(path: str, timeout: float | None = None) -> Iterator[str]:
    """Hold the pad's advisory lock (``flock`` on ``<pad>.lock``); yields the lock file's path.

    Commits take the same lock, so an agent that does its read-modify-write inside
    ``with padtui.lock(path):`` is never raced by a padtui commit. Re-entrant within a
    process (a commit made while holding it does not deadlock). ``timeout`` in seconds (None:
    wait as long as it takes) raises :class:`LockTimeout`. The lock file is never removed:
    removing it would let two processes lock two different files.
    """
    lock_file = lock_path_for(path)
    with _registry:
        held = _held.setdefault(lock_file, _Held(threading.RLock()))
    deadline = None if timeout is None else time.monotonic() + timeout
    if not held.rlock.acquire(timeout=-1 if timeout is None else max(timeout, 0)):
        raise LockTimeout(path, f"locked by another thread for over {timeout:g} s")
    try:
        if held.depth == 0:
            held.fd = _flock(lock_file, path, deadline, timeout)
        held.depth += 1
        try:
            yield lock_file
        finally:
            held.depth -= 1
            if held.depth == 0:
                fd, held.fd = held.fd, -1
                with contextlib.suppress(OSError):
                    fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
    finally:
        held.rlock.release()


def _open_lock(lock_file: str) -> int:
    """The lock file, created 0600 if need be; never through a symlink, never a non-file."""
    flags = os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
    try:
        try:
            fd = os.open(lock_file, flags | os.O_RDWR | os.O_CREAT, 0o600)
        except PermissionError as denied:  # another user's lock file: flock needs only to read
            try:
                fd = os.open(lock_file, flags | os.O_RDONLY)
            except FileNotFoundError:
                raise denied from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            problem = "is a symbolic link; padtui does not follow one to its lock (remove it)"
        else:
            problem = f"cannot open the lock file: {exc.strerror or exc}"
        raise PadError(lock_file, problem) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise PadError(lock_file, "is not a regular file; padtui will not lock it (remove it)")
        if st.st_mode & 0o177 and st.st_uid == os.geteuid() and st.st_nlink == 1:
            with contextlib.suppress(OSError):
                os.fchmod(fd, 0o600)  # one an older padtui left open to all
    except BaseException:
        os.close(fd)
        raise
    return fd


def _flock(lock_file: str, path: str, deadline: float | None, timeout: float | None) -> int:
    fd = _open_lock(lock_file)
    try:
        if deadline is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return fd
        pause = 0.0005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LockTimeout(
                        path,
                        f"locked by another process ({lock_file}) for over {timeout:g} s; "
                        "nothing written",
                    ) from None
                time.sleep(min(pause, left))
                pause = min(pause * 2, 0.02)
    except BaseException:
        os.close(fd)
        raise


# --- committing ----------------------------------------------------------------------------


def commit(
    snapshot: Snapshot,
    change: Plan | Sequence[Entry],
    *,
    journal: JournalArg = True,
    lock_timeout: float | None = DEFAULT_LOCK_TIMEOUT,
    origin: str | None = None,
) -> Snapshot:
    """Write a plan's result (or a list of entries) over the version ``snapshot`` read.

    Raises :class:`Refused` for a refused plan, :class:`Conflict` when the pad is no longer
    exactly the snapshot's version (trial again), :class:`LockTimeout`; nothing is written
    then. Returns the snapshot of the version written (``snapshot`` itself when the change
    changes nothing). Both versions are journaled, the replaced one before the swap. A pad
    padtui does not write back (a Letta ``.af`` file, a memory tool's export) is a PadError.
    """
    check_writable(snapshot.path, snapshot.format, snapshot.file.layout)
    if isinstance(change, Plan):
        if change.refused:
            raise Refused(snapshot.path, f"refused: {change.code}: {change.message}")
        if change.source is not snapshot.pad and not _same_pad(change.source, snapshot.pad):
            raise ValueError("the plan was not made from this snapshot's pad")
        entries: Sequence[Entry] = change.result()
        origin = origin or "compact"
    else:
        entries = list(change)
        origin = origin or "write"
    try:
        new = to_bytes(render(snapshot.file.layout, entries))
    except ValueError as exc:  # a change the format cannot hold safely: refuse, write nothing
        raise CommitError(snapshot.path, f"{exc}; nothing written") from None
    new_file = _read_back(snapshot, new, entries)
    return _commit(
        snapshot, new, new_file, journal_of(snapshot.path, journal), lock_timeout, origin
    )


def _same_pad(a: Pad, b: Pad) -> bool:
    return a == b and all(
        x.raw == y.raw and x.source == y.source for x, y in zip(a.entries, b.entries, strict=True)
    )


def _read_back(snapshot: Snapshot, new: bytes, entries: Sequence[Entry]) -> PadFile:
    """The rendered bytes, parsed: they must read back as exactly the entries meant."""
    try:
        back = parse(snapshot.path, new, snapshot.format)
    except PadError as exc:
        raise RuntimeError(f"padtui bug: the new pad would not read back: {exc}") from None
    fmt = named(snapshot.format)
    same = fmt is not None and fmt.same_entries(back.pad.entries, entries)
    same = same and Settings.of(back.pad) == Settings.of(snapshot.pad)
    if not same:
        raise RuntimeError("padtui bug: the new pad would not read back as planned")
    return back


def externalized(
    pad: Pad, labels: Iterable[str], path: str
) -> tuple[list[Entry], list[str], list[str]]:
    """The entries with ``sealed`` flipped on for the named unsealed protected entries.

    Returns (entries, labels sealed by this, labels that were sealed already). An unknown
    label, or an entry that is not a constraint, negative fact or loss record, is bad input
    (PadError): plans, notes and hypotheses are rewritable by nature.
    """
    chosen: dict[int, Entry] = {}
    already: list[str] = []
    for label in labels:
        found = pad.named(label)
        if not found:
            raise PadError(path, f"no entry {label!r} (name entries by id, or by position #N)")
        if len(found) > 1:
            at = ", ".join(f"#{e.index}" for e in found)
            raise PadError(
                path, f"{len(found)} entries have the id {label!r} ({at}): name one by position"
            )
        e = found[0]
        if e.kind not in PROTECTED_KINDS:
            raise PadError(
                path,
                f"{label} is a {e.kind} entry; only constraints, negative facts and loss "
                "records are externalized into the sealed region",
            )
        if not e.sealed:
            chosen[e.index] = e
        elif e.label not in already:
            already.append(e.label)
    entries = [e.sealed_copy() if e.index in chosen else e for e in pad.entries]
    return entries, [chosen[i].label for i in sorted(chosen)], already


def externalize(
    snapshot: Snapshot,
    labels: Iterable[str],
    *,
    journal: JournalArg = True,
    lock_timeout: float | None = DEFAULT_LOCK_TIMEOUT,
) -> Snapshot:
    """Seal unsealed constraints / negative facts / loss records, by a safe commit;
    nothing else changes (see :func:`externalized` for what is bad input)."""
    check_writable(snapshot.path, snapshot.format, snapshot.file.layout)
    entries, _sealed, _already = externalized(snapshot.pad, labels, snapshot.path)
    return commit(
        snapshot, entries, journal=journal, lock_timeout=lock_timeout, origin="externalize"
    )


def restore(
    path: str,
    n: int,
    *,
    journal: JournalArg = True,
    lock_timeout: float | None = DEFAULT_LOCK_TIMEOUT,
    fmt: str | None = None,
) -> Snapshot:
    """Write journaled version ``n`` back over the pad, byte for byte, by a safe commit.

    The version it replaces is journaled first, even one that does not parse (so a pad an
    agent garbled can be restored, and the garbled bytes are kept too). A pad that no longer
    exists is written anew (``created`` on the result): exclusively, in its folder, never
    through a symlink. The journal must be this pad's own (checked before anything in it is
    used), and the pad is written only where its path led when the journal was opened.
    ``fmt`` reads the pad as that format, whatever its name.
    """
    fmt = format_of(path, fmt)
    check_writable(path, fmt)
    j = journal_of(path, journal)
    if j is None:
        raise PadError(path, "restoring a version needs the journal")
    target = os.path.realpath(path)
    if j.pad is not None and j.pad != target:
        raise WriteFailed(path, _moved(j.pad, target))
    j.check_owner()
    version = j.version(n)
    if version.format != fmt:
        raise PadError(path, f"version {n} is a {version.format} pad; this file is {fmt}")
    new_file = j.pad_file(n)  # PadError for a version kept because it did not parse
    new_file = parse(path, new_file.data, fmt)
    check_writable(path, fmt, new_file.layout)
    try:
        current = read(path, fmt=fmt)
    except PadError as exc:
        if exc.problem == NO_SUCH_FILE:
            return _create(path, target, new_file, j, lock_timeout)
        raw, st = _read_raw_settled(target, path)
        return _commit_raw(path, target, raw, Stamp.of(st, raw), fmt, new_file, j, lock_timeout)
    if current.target != target:
        raise WriteFailed(path, _moved(target, current.target))
    return _commit(current, new_file.data, new_file, j, lock_timeout, "restore")


def _moved(read_as: str, now: str) -> str:
    return f"now leads to {now}, not to {read_as} as when it was read; nothing written"


def _read_raw_settled(target: str, path: str) -> tuple[bytes, os.stat_result]:
    for attempt in range(READ_ATTEMPTS):
        if attempt:
            time.sleep(READ_BACKOFF * 2 ** (attempt - 1))
        with contextlib.suppress(_Moving):
            return _read_raw(target, path)
    raise PadError(path, "kept changing while being read")


@dataclass(frozen=True)
class _Now:
    """The pad as it is at this moment, under the lock."""

    stamp: Stamp
    data: bytes
    st: os.stat_result


def _now(target: str, name: str, dir_fd: int | None = None) -> _Now | None:
    """The file's current stamp and bytes (None when it cannot be read as a whole file)."""
    try:
        data, st = _read_raw(target, name, dir_fd)
    except (PadError, _Moving):
        return None
    return _Now(Stamp.of(st, data), data, st)


@dataclass(frozen=True)
class _Place:
    """The pad's folder, held open while a commit writes in it, and the pad's name there.

    Every file operation of a commit goes through ``fd``: a folder renamed, or swapped for a
    symlink, after the check cannot send the write elsewhere. :meth:`check` refuses when the
    pad's path no longer leads to the file that was read (run under the lock, and again
    right before the swap).
    """

    path: str  # as the user named it
    target: str  # its real path when it was read
    folder: str
    name: str
    fd: int

    def check(self) -> None:
        now = os.path.realpath(self.path)
        if now != self.target:
            raise WriteFailed(self.path, _moved(self.target, now))
        here, held = os.stat(self.folder), os.fstat(self.fd)
        if (here.st_dev, here.st_ino) != (held.st_dev, held.st_ino):
            problem = f"its folder {self.folder} was replaced since it was read; nothing written"
            raise WriteFailed(self.path, problem)
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISLNK(os.stat(self.name, dir_fd=self.fd, follow_symlinks=False).st_mode):
                raise WriteFailed(self.path, _moved(self.target, "a symbolic link"))


@contextlib.contextmanager
def _place(path: str, target: str) -> Iterator[_Place]:
    folder, name = os.path.split(target)
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise WriteFailed(
            path, f"cannot open its folder {folder}: {exc.strerror or exc}; nothing written"
        ) from None
    try:
        place = _Place(path, target, folder, name, fd)
        try:
            place.check()
        except OSError as exc:
            raise _failed(path, exc, False) from None
        yield place
    finally:
        os.close(fd)


def _failed(path: str, exc: OSError, swapped: bool) -> WriteFailed:
    why = exc.strerror or str(exc)
    if not swapped:
        return WriteFailed(path, f"{why}; nothing written")
    return WriteFailed(path, f"{why}, after the new version was swapped in; check the pad")


def _check_mode(place: _Place, st: os.stat_result) -> None:
    """A careful user makes a pad read-only to keep it as it is: padtui does not replace it."""
    mode = stat.S_IMODE(st.st_mode)
    if not mode & 0o222 or not os.access(place.name, os.W_OK, dir_fd=place.fd):
        raise WriteFailed(
            place.path,
            f"is read-only for you (mode {mode:04o}); padtui does not replace a read-only "
            "pad (make it writable first); nothing written",
        )


def _commit(
    base: Snapshot,
    new: bytes,
    new_file: PadFile,
    j: Journal | None,
    lock_timeout: float | None,
    origin: str,
) -> Snapshot:
    if new == base.data:  # nothing to change: nothing is written
        n = None if j is None else j.append(base.data, base.format, "seen", base.file)
        return base if n is None else replace(base, version=n)
    return _commit_raw(
        base.path,
        base.target,
        base.data,
        base.stamp,
        base.format,
        new_file,
        j,
        lock_timeout,
        origin,
        base.file,
    )


def _commit_raw(
    path: str,
    target: str,
    data: bytes,
    stamp: Stamp,
    fmt: str,
    new_file: PadFile,
    j: Journal | None,
    lock_timeout: float | None,
    origin: str = "restore",
    old_file: PadFile | None = None,
) -> Snapshot:
    """Compare-and-swap ``new_file`` over the version (``data``, ``stamp``) of ``path``."""
    new = new_file.data
    now_at = os.path.realpath(path)
    if now_at != target:
        raise WriteFailed(path, _moved(target, now_at))
    with lock(target, timeout=lock_timeout), _place(path, target) as place:
        swapped = False
        try:
            _sweep_temps(place)
            now = _now(place.name, path, place.fd)
            if now is None or not stamp.matches(now.stamp):
                raise _conflict(path, fmt, j, now)
            _check_mode(place, now.st)
            if j is not None:  # the version about to be replaced, durably, before anything else
                j.append(data, fmt, "seen", old_file)
            tmp, st = _write_temp(place, new, now.st)
            try:
                place.check()
                pad_fd = _last_look(place, stamp, fmt, j)
                try:
                    exchanged = _swap(place, tmp)
                    swapped = True
                    if exchanged:
                        _check_displaced(place, tmp, pad_fd, fmt, stamp, (st, new), j)
                finally:
                    os.close(pad_fd)
                fsync_dir(place.folder)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=place.fd)
        except OSError as exc:
            raise _failed(path, exc, swapped) from None
        after = Snapshot(path, target, replace(new_file, path=path), Stamp.of(st, new))
        return _journal_written(after, j, fmt, origin)


def _journal_written(after: Snapshot, j: Journal | None, fmt: str, origin: str) -> Snapshot:
    if j is None:
        return after
    try:
        return replace(after, version=j.append(after.data, fmt, origin, after.file))
    except PadError as exc:  # the pad holds it; say so rather than "nothing written"
        raise PadError(exc.path, f"the pad was written, but not journaled: {exc.problem}") from None


def _create(
    path: str, target: str, new_file: PadFile, j: Journal, lock_timeout: float | None
) -> Snapshot:
    """Write a pad that no longer exists anew: exclusively, in its existing folder, never
    through a symlink left in its place."""
    if os.path.islink(path):
        raise WriteFailed(
            path,
            f"is a symbolic link to a missing file ({target}); padtui does not create a pad "
            "through a link; nothing written",
        )
    new = new_file.data
    with lock(target, timeout=lock_timeout), _place(path, target) as place:
        created = False
        try:
            _sweep_temps(place)
            tmp, st = _write_temp(place, new, None)
            try:
                place.check()
                created = _link_new(place, tmp)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=place.fd)
            fsync_dir(place.folder)
        except OSError as exc:
            raise _failed(path, exc, created) from None
        if not created:
            raise Conflict(path, "was created meanwhile by another writer; nothing written")
        after = Snapshot(
            path, target, replace(new_file, path=path), Stamp.of(st, new), created=True
        )
        return _journal_written(after, j, new_file.layout.format, "restore")


_RENAME_NOREPLACE = 1


def _link_new(place: _Place, tmp: str) -> bool:
    """Give ``tmp`` the pad's name unless something has it already (False then)."""
    fn = _renameat2()
    if fn:
        if fn(place.fd, os.fsencode(tmp), place.fd, os.fsencode(place.name), _RENAME_NOREPLACE):
            code = ctypes.get_errno()
            if code == errno.EEXIST:
                return False
            if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise OSError(code, os.strerror(code), place.name)
        else:
            return True
    try:
        os.link(tmp, place.name, src_dir_fd=place.fd, dst_dir_fd=place.fd, follow_symlinks=False)
    except FileExistsError:
        return False
    return True


def _conflict(path: str, fmt: str, j: Journal | None, now: _Now | None) -> Conflict:
    if j is not None and now is not None:
        _journal_seen(j, now.data, path, fmt)
    return Conflict(
        path, "changed since it was read (the agent wrote meanwhile); nothing written: trial again"
    )


def _journal_seen(j: Journal, data: bytes, path: str, fmt: str) -> None:
    """Journal a version found on disk, if it is one (a torn file is not)."""
    try:
        pad_file = parse(path, data, fmt)
    except PadError:
        return
    j.append(data, fmt, "seen", pad_file)


def _temp_stem(name: str) -> str:
    return "." + fit(name, 1 + len(TMP_TAG) + 8 + len(TMP_SUFFIX)) + TMP_TAG


def _write_temp(
    place: _Place, data: bytes, like: os.stat_result | None
) -> tuple[str, os.stat_result]:
    """A temporary file beside the pad, synced, with the pad's mode (and owner, where
    allowed); a new pad (``like`` None) gets what any new file gets (0666 less the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    stem = _temp_stem(place.name)
    while True:
        tmp = f"{stem}{secrets.token_hex(4)}{TMP_SUFFIX}"
        try:
            fd = os.open(tmp, flags, 0o600 if like else 0o666, dir_fd=place.fd)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise WriteFailed(
                place.path, f"cannot write beside the pad: {exc.strerror or exc}; nothing written"
            ) from None
    try:
        if like is not None:
            os.fchmod(fd, stat.S_IMODE(like.st_mode))
            st = os.fstat(fd)
            if (st.st_uid, st.st_gid) != (like.st_uid, like.st_gid):
                with contextlib.suppress(PermissionError):
                    os.fchown(fd, like.st_uid, like.st_gid)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        return tmp, os.fstat(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=place.fd)
        raise
    finally:
        os.close(fd)


def _sweep_temps(place: _Place) -> None:
    """Remove temporary files that killed commits left (under the lock: none is live)."""
    prefix = _temp_stem(place.name)
    with contextlib.suppress(OSError), os.scandir(place.fd) as found:
        for entry in found:
            if entry.name.startswith(prefix) and entry.name.endswith(TMP_SUFFIX):
                with contextlib.suppress(OSError):
                    os.unlink(entry.name, dir_fd=place.fd)


# --- the swap ------------------------------------------------------------------------------

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_SYSCALLS = {"x86_64": 316, "aarch64": 276, "arm64": 276}
_exchange_fn: Any = None
_no_exchange: set[int] = set()  # devices whose file system cannot exchange

HELD_WAIT = 0.1  # seconds a commit waits for writers that hold the pad open to close it


def _renameat2() -> Any:
    """``renameat2`` from libc (or by syscall number), else False."""
    global _exchange_fn
    if _exchange_fn is not None:
        return _exchange_fn
    _exchange_fn = False
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    fn = getattr(libc, "renameat2", None)
    if fn is not None:
        fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        fn.restype = ctypes.c_int
        _exchange_fn = fn
        return fn
    number = _SYSCALLS.get(os.uname().machine)
    if number is None:
        return False
    syscall = libc.syscall
    syscall.restype = ctypes.c_long

    def via_syscall(a: int, b: bytes, c: int, d: bytes, flags: int) -> int:
        args = (ctypes.c_int(a), ctypes.c_char_p(b), ctypes.c_int(c), ctypes.c_char_p(d))
        return int(syscall(ctypes.c_long(number), *args, ctypes.c_uint(flags)))

    _exchange_fn = via_syscall
    return via_syscall


def exchange(a: str, b: str, dir_fd: int | None = None) -> None:
    """Atomically swap two paths (``renameat2(RENAME_EXCHANGE)``); OSError if it cannot.
    With ``dir_fd``, both are names in that folder."""
    fn = _renameat2()
    if not fn:
        raise OSError(errno.ENOSYS, "renameat2 is not available")
    at = _AT_FDCWD if dir_fd is None else dir_fd
    if fn(at, os.fsencode(a), at, os.fsencode(b), _RENAME_EXCHANGE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), a)


def swaps_by_exchange(folder: str) -> bool:
    """Whether a commit in ``folder`` swaps by exchange (else by ``os.replace``)."""
    if not USE_EXCHANGE or not _renameat2():
        return False
    try:
        return os.stat(folder).st_dev not in _no_exchange
    except OSError:
        return False


def _swap(place: _Place, tmp: str) -> bool:
    """Put ``tmp`` at the pad's name. True: exchanged (the old file is now at ``tmp``)."""
    dev = os.fstat(place.fd).st_dev
    if USE_EXCHANGE and _renameat2() and dev not in _no_exchange:
        try:
            exchange(tmp, place.name, place.fd)
            return True
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise
            _no_exchange.add(dev)
    os.replace(tmp, place.name, src_dir_fd=place.fd, dst_dir_fd=place.fd)
    return False


def _check_displaced(
    place: _Place,
    tmp: str,
    pad_fd: int,
    fmt: str,
    stamp: Stamp,
    new: tuple[os.stat_result, bytes],
    j: Journal | None,
) -> None:
    """After an exchange, the file that came out (``pad_fd`` holds it) must be the version
    planned from, with no writer holding it open (one that opened it in the instant before
    the swap would write into it, no longer the pad).

    Otherwise it is swapped back (following a writer that saves again meanwhile), journaled,
    and the commit is a Conflict. Our version, out again, is removed, unless a writer opened
    it while it was the pad: then it is kept beside the pad, and the Conflict names it.
    """
    path = place.path
    free = _no_writers(pad_fd)  # before the read: a writer that closed since has written
    got = _now(tmp, path, place.fd)
    same = got is not None and stamp.matches(got.stamp) and _same_file(got.st, pad_fd)
    if same and free is not False:
        return
    # Each exchange puts the file we hold at the pad and brings out what is there. When what
    # comes out is what we last put there, unchanged (same inode, same bytes), the pad holds
    # the newest version someone else wrote; what we hold is ours, or a version its writer
    # has since written over. Anything else that comes out is newer: it goes back in.
    mine: tuple[int, str | None] = (new[0].st_ino, hashlib.sha256(new[1]).hexdigest())
    placed = mine
    held = _identity(tmp, path, place.fd)
    for _ in range(MAX_UNDO):
        exchange(tmp, place.name, place.fd)
        out = _identity(tmp, path, place.fd)
        if out == placed:
            break
        placed, held = held, out
    else:
        rescued = _rescue(place, tmp)
        raise Conflict(
            path,
            "another writer kept replacing the pad during the commit; nothing of ours "
            f"written, a displaced version was kept as {rescued}",
        )
    fsync_dir(place.folder)
    if j is not None and got is not None and not same:
        _journal_seen(j, got.data, path, fmt)
    kept = ""
    if _held_open(place, tmp):  # opened while it was the pad: a write may still come
        kept = f"; what was opened meanwhile is kept as {_rescue(place, tmp)}"
    elif placed != mine:  # a version its own writer wrote over, about to be removed
        leftover = _now(tmp, path, place.fd)
        if leftover is not None and j is not None:
            j.append(leftover.data, fmt, "seen")
        elif leftover is not None:
            kept = f"; a version written over meanwhile is kept as {_rescue(place, tmp)}"
    if same:
        raise Conflict(
            path,
            "was opened for writing by another process just before the swap (a writer that "
            f"does not take the lock); put back, nothing of ours written{kept}: trial again",
        )
    raise Conflict(
        path,
        "changed during the commit (a writer that does not take the lock); its version was "
        f"put back and nothing of ours written{kept}: trial again",
    )


def _rescue(place: _Place, tmp: str) -> str:
    rescued = fit(place.name, 36) + f".padtui-rescued-{time.time_ns()}"
    os.rename(tmp, rescued, src_dir_fd=place.fd, dst_dir_fd=place.fd)
    fsync_dir(place.folder)
    return os.path.join(place.folder, rescued)


def _same_file(st: os.stat_result, fd: int) -> bool:
    held = os.fstat(fd)
    return (st.st_ino, st.st_dev) == (held.st_ino, held.st_dev)


def _open_quiet(name: str, dir_fd: int) -> int:
    """A file opened to read and to ask about its writers (a lease break must not kill us)."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
    return fd


def _held_open(place: _Place, name: str) -> bool:
    """Does a process hold this file open for writing (False where it cannot be told)?"""
    fd = _open_quiet(name, place.fd)
    try:
        return _no_writers(fd) is False
    finally:
        os.close(fd)


def _last_look(place: _Place, stamp: Stamp, fmt: str, j: Journal | None) -> int:
    """The pad right before the swap: still the version planned from, and held open for
    writing by no process (where the system can tell: Linux leases). A writer that holds it
    open (it opened it before the swap, and would write into the file the swap displaces) is
    waited for up to HELD_WAIT, then the pad is read once more. Returns a descriptor of the
    pad, for the check after the swap."""
    try:
        fd = _open_quiet(place.name, place.fd)
    except OSError:
        raise _conflict(place.path, fmt, j, None) from None
    try:
        start = time.monotonic()
        pause = 0.0002
        while True:
            free = _no_writers(fd)
            last = _now(place.name, place.path, place.fd)
            if last is None or not stamp.matches(last.stamp) or not _same_file(last.st, fd):
                raise _conflict(place.path, fmt, j, last)
            if free is not False:
                return fd
            if time.monotonic() - start >= HELD_WAIT:
                raise Conflict(
                    place.path,
                    "is held open for writing by another process (a writer that does not take "
                    "the lock); nothing written: trial again",
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.005)
    except BaseException:
        os.close(fd)
        raise


def _no_writers(fd: int) -> bool | None:
    """Does no process hold this file open for writing? (None: this system cannot tell.)"""
    setlease = getattr(fcntl, "F_SETLEASE", None)
    if setlease is None:
        return None
    try:
        fcntl.fcntl(fd, setlease, fcntl.F_RDLCK)
    except BlockingIOError:
        return False
    except OSError:
        return None
    fcntl.fcntl(fd, setlease, fcntl.F_UNLCK)
    return True


def _identity(name: str, path: str, dir_fd: int) -> tuple[int, str | None]:
    """A file's inode and the SHA-256 of its bytes (None while it is being written)."""
    now = _now(name, path, dir_fd)
    if now is None:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_ino, None
    return now.stamp.ino, now.stamp.sha256
