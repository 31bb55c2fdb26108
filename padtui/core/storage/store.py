"""Safe writes: stamped reads and compare-and-swap commits under the pad's lock (the
README's "Safe writes and the journal"; the file I/O is in ``fsio``, the lock in ``lock``).

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
import hashlib
import os
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

from padtui.core.errors import (
    CommitError,
    Conflict,
    LockTimeout,
    PadError,
    Refused,
    WriteFailed,
)
from padtui.core.formats import (
    PadFile,
    Settings,
    check_writable,
    format_of,
    named,
    parse,
    render,
    to_bytes,
)
from padtui.core.model import Entry, Pad
from padtui.core.storage import fsio
from padtui.core.storage.fsio import (
    NO_SUCH_FILE,
    READ_ATTEMPTS,
    READ_BACKOFF,
    TMP_SUFFIX,
    TMP_TAG,
    Stamp,
    fsync_dir,
)
from padtui.core.storage.journal import Journal
from padtui.core.storage.lock import lock, lock_path_for
from padtui.core.vocabulary import Found, Origin

# read, written and raised below the store, and part of its API
__all__ = [
    "NO_SUCH_FILE",
    "TMP_SUFFIX",
    "TMP_TAG",
    "CommitError",
    "Conflict",
    "LockTimeout",
    "Refused",
    "Stamp",
    "WriteFailed",
    "lock",
    "lock_path_for",
]

DEFAULT_LOCK_TIMEOUT = 10.0
UNREADABLE = "unreadable (mid-write?)"
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


@runtime_checkable
class PlannedChange(Protocol):
    """A compaction plan as a commit takes it (``compaction.Plan``; the store does not
    import the compaction, which builds on it)."""

    @property
    def refused(self) -> bool: ...
    @property
    def code(self) -> str | None: ...
    @property
    def message(self) -> str: ...
    @property
    def source(self) -> Pad: ...
    def result(self) -> Sequence[Entry]: ...


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
class Polled:
    """What a look at a live pad found: a new version, the same one, or a torn file."""

    state: Found
    snapshot: Snapshot | None  # the newest good version (the new one, else the last)
    problem: str | None = None

    @property
    def message(self) -> str:
        if self.state == Found.UNREADABLE:
            return f"{UNREADABLE}: {self.problem}"
        return self.state


# --- reading -------------------------------------------------------------------------------


def read(
    path: str,
    *,
    journal: JournalArg = False,
    attempts: int = READ_ATTEMPTS,
    previous: PadFile | None = None,
    fmt: str | None = None,
    quiet: float = 0.0,
    limit: float | None = None,
    ahead: Callable[[PadFile], object] | None = None,
) -> Snapshot:
    """Read a pad with its version stamp, for a commit to compare against.

    A read that does not parse, or that catches the file changing or vanishing under it, is
    retried a few times over a few milliseconds (an agent's save may be half done); if it
    still fails, the last PadError is raised. With ``journal`` the version is journaled as
    seen (``True``: the pad's default journal; a path or a :class:`Journal`: that one).
    ``previous``, the version read before, makes reading a large pad that changed little
    cheap (see ``formats.parse``). ``fmt`` reads it as that format, whatever its name.

    ``quiet`` (seconds; live reads pass ``SETTLE_QUIET``) reads by the settle rule instead:
    see :func:`settling` (and its ``ahead``).
    """
    format_of(path, fmt)  # (an unknown one: PadError now; the format is passed on as chosen,
    # as a --format, which a read-only format's name is not)
    if quiet > 0:
        snap = _settled(
            settling(
                path,
                previous,
                fmt,
                quiet=quiet,
                limit=SETTLE_LIMIT if limit is None else limit,
                ahead=ahead,
            )
        )
        n = record(snap, journal)
        return snap if n is None else replace(snap, version=n)
    last: PadError | None = None
    for attempt in range(max(attempts, 1)):
        if attempt:
            time.sleep(READ_BACKOFF * 2 ** (attempt - 1))
        try:
            target = os.path.realpath(path)
            data, st = fsio.read_raw(target, path)
        except (fsio.Moving, OSError, RuntimeError):  # (OSError: a link swapped mid-resolve)
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
        if not fsio.still(st, target):
            last = PadError(path, "was replaced while being read")
            continue
        snap = Snapshot(path, target, pad_file, Stamp.of(st, data))
        n = record(snap, journal)
        return snap if n is None else replace(snap, version=n)
    assert last is not None
    raise last


def _settled(steps: Generator[float, None, Snapshot]) -> Snapshot:
    """The reading :func:`settling` ends with, pausing in this thread as it asks."""
    while True:
        try:
            pause = next(steps)
        except StopIteration as done:
            snap: Snapshot = done.value
            return snap
        time.sleep(pause)


def settling(
    path: str,
    previous: PadFile | None = None,
    fmt: str | None = None,
    *,
    quiet: float = SETTLE_QUIET,
    limit: float = SETTLE_LIMIT,
    looks: int = SETTLE_LOOKS,
    ahead: Callable[[PadFile], object] | None = None,
) -> Generator[float, None, Snapshot]:
    """The read a live watcher takes, step by step: yields each pause (seconds) to make
    before the next look, and returns the pad once it has settled. (So a caller can pause
    without holding a thread: an event loop looks in a thread and pauses in the loop.)

    The settle rule: the file is looked at every ``quiet / looks`` seconds (the last look
    when ``quiet`` has passed since it was last found changed, not a whole step later), and
    taken once every look over ``quiet`` seconds found the same real file with the same size,
    mtime_ns, inode, device and bytes, and a re-stat after parsing still finds it so. An
    agent's save in progress (``O_TRUNC`` then writes, an ``r+`` rewrite, a delete then a new
    file) changes the file between two looks, so a torn file is never parsed into a version,
    even a JSON Lines or Markdown prefix that would parse. So a version that stays on disk
    for ``quiet`` plus one look's interval is taken (once the read has begun); one replaced
    sooner is passed over. The limit of the rule: a writer that stops mid-save for longer
    than ``quiet`` shows a settled torn file.

    Settled, a file that does not parse raises its PadError, a missing one ``no such file``;
    one that kept changing for ``limit`` seconds raises ``still being written``.

    ``ahead`` is given the first look's parse while the rule waits (work on a version that
    may yet settle: it must not take it for one).
    """
    fmt = format_of(path, fmt)
    step = quiet / max(looks, 1)
    deadline = time.monotonic() + limit
    seen = fsio.look(path)
    since = time.monotonic()  # when ``seen`` was last found changed
    # the first bytes seen are parsed while the rule waits (a file that settles is most
    # often as first seen): the parse is then no part of the wait; never taken unsettled
    parsed: tuple[bytes, PadFile | PadError] | None = None
    if seen is not None and seen.data is not None:
        parsed = (seen.data, _parse_ahead(path, seen.data, fmt, previous))
        if ahead is not None and not isinstance(parsed[1], PadError) and parsed[1] is not previous:
            ahead(parsed[1])  # (the version given, read again, is no new work)
        yield max(step - (time.monotonic() - since), 0.0)  # (the next look on time)
    else:
        yield step
    while True:
        started = time.monotonic()
        now = fsio.look(path)
        if seen is None or now is None or not seen.same_as(now):
            seen, since = now, time.monotonic()
        elif started - since >= quiet:
            if now.data is None or now.st is None:
                raise PadError(path, NO_SUCH_FILE)
            if parsed is None or parsed[0] != now.data:
                parsed = (now.data, _parse_ahead(path, now.data, fmt, previous))
            if isinstance(parsed[1], PadError):
                raise parsed[1]
            pad_file = parsed[1]
            if fsio.still(now.st, now.target):
                return Snapshot(path, now.target, pad_file, Stamp.of(now.st, now.data))
            seen, since = fsio.look(path), time.monotonic()
        left = time.monotonic()
        if left >= deadline:
            raise PadError(path, f"{STILL_WRITING} (it kept changing for {limit:g} s)")
        # (the look that ends the quiet interval is made when it ends, not at the next step:
        # a change anywhere in it changes what that look finds)
        yield min(step, max(since + quiet - left, 0.0))


def _parse_ahead(path: str, data: bytes, fmt: str, previous: PadFile | None) -> PadFile | PadError:
    """The parse of bytes, or its error (raised only if they settle so): ``previous`` for
    the bytes it was read from (not parsed again)."""
    if previous is not None and _same(previous, path, fmt, data):
        return previous
    try:
        return parse(path, data, fmt, previous)
    except PadError as exc:
        return exc


def _same(previous: PadFile, path: str, fmt: str, data: bytes) -> bool:
    """Is ``data``, read by ``path`` as ``fmt``, the very version ``previous``?"""
    return previous.path == path and previous.layout.format == fmt and previous.data == data


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
) -> Polled:
    """A look at a live pad, once it has settled (:func:`settling`): ``new`` (a version
    other than ``last``), ``same``, or ``unreadable`` (torn, gone or still being written;
    never taken for a new version, and ``snapshot`` stays the last good one)."""
    try:
        snap = read(path, fmt=fmt, quiet=quiet)
    except PadError as exc:
        return Polled(Found.UNREADABLE, last, exc.problem)
    if last is not None and snap.stamp.sha256 == last.stamp.sha256:
        return Polled(Found.SAME, snap)
    n = record(snap, journal)
    return Polled(Found.NEW, snap if n is None else replace(snap, version=n))


JournalArg = Journal | str | bool


class OpenJournals:
    """The journals a process has open: one :class:`Journal` object per journal file and
    pad, so every reader of a pad (a watcher, a commit, the history) reads its journal
    incrementally from where the last one stopped."""

    def __init__(self) -> None:
        self._open: dict[str, Journal] = {}
        self._guard = threading.Lock()

    def get(self, path: str, journal_path: str | None = None) -> Journal:
        j = Journal.for_pad(path, journal_path)
        with self._guard:
            return self._open.setdefault(f"{j.path}\0{j.pad}", j)

    def forget(self) -> None:
        """Drop them all: the next use reads each journal file afresh."""
        with self._guard:
            self._open.clear()


JOURNALS = OpenJournals()  # the process's: what ``journal_of`` hands out


def journal_of(path: str, journal: JournalArg) -> Journal | None:
    """The journal to use: ``True`` the pad's default one, ``False`` none, a path or a
    :class:`Journal` that one (from :data:`JOURNALS`)."""
    if isinstance(journal, Journal):
        return journal
    if journal is False:
        return None
    return JOURNALS.get(path, journal if isinstance(journal, str) else None)


def record(version: Snapshot | PadFile, journal: JournalArg = True) -> int | None:
    """Journal a version seen (a watcher's reading); returns its number in the journal."""
    pad_file = version.file if isinstance(version, Snapshot) else version
    j = journal_of(pad_file.path, journal)
    if j is None:
        return None
    return j.append(pad_file.data, pad_file.layout.format, Origin.SEEN, pad_file)


# --- the lock ------------------------------------------------------------------------------


# --- committing ----------------------------------------------------------------------------


def commit(
    snapshot: Snapshot,
    change: PlannedChange | Sequence[Entry],
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
    if isinstance(change, PlannedChange):
        if change.refused:
            raise Refused(snapshot.path, f"refused: {change.code}: {change.message}")
        if change.source is not snapshot.pad and not _same_pad(change.source, snapshot.pad):
            raise ValueError("the plan was not made from this snapshot's pad")
        entries: Sequence[Entry] = change.result()
        origin = origin or Origin.COMPACT
    else:
        entries = list(change)
        origin = origin or Origin.WRITE
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
        raise WriteFailed(path, fsio.moved(j.pad, target))
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
        raw, st = fsio.read_raw_settled(target, path)
        return _commit_raw(path, target, raw, Stamp.of(st, raw), fmt, new_file, j, lock_timeout)
    if current.target != target:
        raise WriteFailed(path, fsio.moved(target, current.target))
    return _commit(current, new_file.data, new_file, j, lock_timeout, Origin.RESTORE)


def _commit(
    base: Snapshot,
    new: bytes,
    new_file: PadFile,
    j: Journal | None,
    lock_timeout: float | None,
    origin: str,
) -> Snapshot:
    if new == base.data:  # nothing to change: nothing is written
        n = None if j is None else j.append(base.data, base.format, Origin.SEEN, base.file)
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
    origin: str = Origin.RESTORE,
    old_file: PadFile | None = None,
) -> Snapshot:
    """Compare-and-swap ``new_file`` over the version (``data``, ``stamp``) of ``path``."""
    new = new_file.data
    now_at = os.path.realpath(path)
    if now_at != target:
        raise WriteFailed(path, fsio.moved(target, now_at))
    with lock(target, timeout=lock_timeout), fsio.hold_place(path, target) as place:
        swapped = False
        try:
            fsio.sweep_temps(place)
            now = fsio.current(place.name, path, place.fd)
            if now is None or not stamp.matches(now.stamp):
                raise _conflict(path, fmt, j, now)
            fsio.check_mode(place, now.st)
            if j is not None:  # the version about to be replaced, durably, before anything else
                j.append(data, fmt, Origin.SEEN, old_file)
            tmp, st = fsio.write_temp(place, new, now.st)
            try:
                place.check()
                pad_fd = _last_look(place, stamp, fmt, j)
                try:
                    exchanged = fsio.swap(place, tmp)
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
            raise fsio.failed(path, exc, swapped) from None
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
    with lock(target, timeout=lock_timeout), fsio.hold_place(path, target) as place:
        created = False
        try:
            fsio.sweep_temps(place)
            tmp, st = fsio.write_temp(place, new, None)
            try:
                place.check()
                created = fsio.link_new(place, tmp)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=place.fd)
            fsync_dir(place.folder)
        except OSError as exc:
            raise fsio.failed(path, exc, created) from None
        if not created:
            raise Conflict(path, "was created meanwhile by another writer; nothing written")
        after = Snapshot(
            path, target, replace(new_file, path=path), Stamp.of(st, new), created=True
        )
        return _journal_written(after, j, new_file.layout.format, Origin.RESTORE)


def _conflict(path: str, fmt: str, j: Journal | None, now: fsio.Current | None) -> Conflict:
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
    j.append(data, fmt, Origin.SEEN, pad_file)


# --- the swap ------------------------------------------------------------------------------


HELD_WAIT = 0.1  # seconds a commit waits for writers that hold the pad open to close it


def _check_displaced(
    place: fsio.Place,
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
    free = fsio.no_writers(pad_fd)  # before the read: a writer that closed since has written
    got = fsio.current(tmp, path, place.fd)
    same = got is not None and stamp.matches(got.stamp) and fsio.same_file(got.st, pad_fd)
    if same and free is not False:
        return
    # Each exchange puts the file we hold at the pad and brings out what is there. When what
    # comes out is what we last put there, unchanged (same inode, same bytes), the pad holds
    # the newest version someone else wrote; what we hold is ours, or a version its writer
    # has since written over. Anything else that comes out is newer: it goes back in.
    mine: tuple[int, str | None] = (new[0].st_ino, hashlib.sha256(new[1]).hexdigest())
    placed = mine
    held = fsio.identity(tmp, path, place.fd)
    for _ in range(MAX_UNDO):
        fsio.exchange(tmp, place.name, place.fd)
        out = fsio.identity(tmp, path, place.fd)
        if out == placed:
            break
        placed, held = held, out
    else:
        rescued = fsio.rescue(place, tmp)
        raise Conflict(
            path,
            "another writer kept replacing the pad during the commit; nothing of ours "
            f"written, a displaced version was kept as {rescued}",
        )
    fsync_dir(place.folder)
    if j is not None and got is not None and not same:
        _journal_seen(j, got.data, path, fmt)
    kept = ""
    if fsio.held_open(place, tmp):  # opened while it was the pad: a write may still come
        kept = f"; what was opened meanwhile is kept as {fsio.rescue(place, tmp)}"
    elif placed != mine:  # a version its own writer wrote over, about to be removed
        leftover = fsio.current(tmp, path, place.fd)
        if leftover is not None and j is not None:
            j.append(leftover.data, fmt, Origin.SEEN)
        elif leftover is not None:
            kept = f"; a version written over meanwhile is kept as {fsio.rescue(place, tmp)}"
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


def _last_look(place: fsio.Place, stamp: Stamp, fmt: str, j: Journal | None) -> int:
    """The pad right before the swap: still the version planned from, and held open for
    writing by no process (where the system can tell: Linux leases). A writer that holds it
    open (it opened it before the swap, and would write into the file the swap displaces) is
    waited for up to HELD_WAIT, then the pad is read once more. Returns a descriptor of the
    pad, for the check after the swap."""
    try:
        fd = fsio.open_quiet(place.name, place.fd)
    except OSError:
        raise _conflict(place.path, fmt, j, None) from None
    try:
        start = time.monotonic()
        pause = 0.0002
        while True:
            free = fsio.no_writers(fd)
            last = fsio.current(place.name, place.path, place.fd)
            if last is None or not stamp.matches(last.stamp) or not fsio.same_file(last.st, fd):
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
