"""Watching a live pad file, as an async iterator of readings (the README's "The
inspector").

Agents often save by writing a temporary file and renaming it over the pad, and a watch on the
file itself goes silent after the first such save. So the pad's *folder* is watched (not
recursively), events are filtered to the pad's paths, and the file is re-read on any of them.

Every reading is taken by the settle rule (``store.settling``): a file still being written
is never taken for a version, even a JSON Lines or Markdown prefix that would parse.

The watch follows the pad wherever its name leads: the folders watched are those of the pad's
name, of every symbolic link it leads through and of the real file, each with its parent (where
the folder itself is deleted, re-created or renamed), or, for a folder that does not exist, its
nearest existing ancestor. They are worked out again on every event, and the watch is armed
anew when they change (a symlink swapped to another folder, a folder gone or back), before the
file is read.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
from collections.abc import AsyncIterator, Callable, Generator
from dataclasses import dataclass
from typing import Any

from padtui.core.errors import PadError
from padtui.core.formats import PadFile
from padtui.core.storage import store
from padtui.core.storage.store import Snapshot
from padtui.core.vocabulary import WatchState

MAX_HOPS = 40  # symbolic links followed from the pad's name (the kernel's own limit)
ARM_ATTEMPTS = 8  # a folder may vanish between being found and being watched: look again


@dataclass(frozen=True)
class Reading:
    """One look at the file: a parsed version, an unreadable moment, or a missing file."""

    state: str  # a WatchState (version, unreadable, deleted)
    snapshot: Snapshot | None = None
    detail: str = ""

    @property
    def pad_file(self) -> PadFile | None:
        return self.snapshot.file if self.snapshot is not None else None


def read_once(
    path: str,
    previous: PadFile | None = None,
    fmt: str | None = None,
    quiet: float | None = None,
    ahead: Callable[[PadFile], object] | None = None,
) -> Reading:
    """Read the pad with its version stamp once it has settled (``store.settling``).

    ``previous`` (the version on screen) lets a large pad that changed little be read
    cheaply: only its changed entries are parsed. ``fmt`` reads it as that format. ``quiet``
    is the settle interval in seconds (``store.SETTLE_QUIET`` unless given). ``ahead``: see
    ``store.settling``."""
    quiet = store.SETTLE_QUIET if quiet is None else quiet
    try:
        return Reading(
            WatchState.VERSION,
            store.read(path, previous=previous, fmt=fmt, quiet=quiet, ahead=ahead),
        )
    except PadError as exc:
        return _not_read(path, exc)


async def read_settled(
    path: str,
    previous: PadFile | None = None,
    fmt: str | None = None,
    ahead: Callable[[PadFile], object] | None = None,
) -> Reading:
    """:func:`read_once` in a worker thread (the thread pauses between its looks)."""
    return await asyncio.to_thread(read_once, path, previous, fmt, None, ahead)


async def read_settled_pausing_here(
    path: str,
    previous: PadFile | None = None,
    fmt: str | None = None,
    looks: int | None = None,
) -> Reading:
    """:func:`read_once`, its looks at the file made in a worker thread and its pauses
    between them in the event loop: a pad that takes long to settle holds up no thread
    (many pads read at once). ``looks``: looks a settle interval (``store.SETTLE_LOOKS``
    unless given)."""
    looks = store.SETTLE_LOOKS if looks is None else looks
    quiet, limit = store.SETTLE_QUIET, store.SETTLE_LIMIT
    steps = store.settling(path, previous, fmt, quiet=quiet, limit=limit, looks=looks)
    try:
        while True:
            pause, snap = await asyncio.to_thread(_advance, steps)
            if snap is not None:
                return Reading(WatchState.VERSION, snap)
            await asyncio.sleep(pause)
    except PadError as exc:
        return _not_read(path, exc)


def _advance(steps: Generator[float, None, Snapshot]) -> tuple[float, Snapshot | None]:
    """The next step of a settling read: a pause to make, or the snapshot."""
    try:
        return next(steps), None
    except StopIteration as done:
        return 0.0, done.value


def _not_read(path: str, exc: PadError) -> Reading:
    if exc.problem == store.NO_SUCH_FILE or not os.path.lexists(path):
        return Reading(WatchState.DELETED, detail="the pad file is gone")
    return Reading(WatchState.UNREADABLE, detail=f"{store.UNREADABLE}: {exc.line()}")


def pad_paths(path: str) -> tuple[str, ...]:
    """The pad's name, every symbolic link it leads through, and its real file."""
    hops = [os.path.abspath(path)]
    for _ in range(MAX_HOPS):
        try:
            link = os.readlink(hops[-1])
        except OSError:
            break
        hop = os.path.normpath(os.path.join(os.path.dirname(hops[-1]), link))
        if hop in hops:
            break
        hops.append(hop)
    real = os.path.realpath(path)
    return tuple(hops) if real in hops else (*hops, real)


def _existing_folder(folder: str) -> str:
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return folder


def watched_places(path: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The folders to watch, and the paths whose events concern the pad (see the module)."""
    paths = pad_paths(path)
    folders: set[str] = set()
    for p in paths:
        folder = _existing_folder(os.path.dirname(p))
        folders.update((folder, os.path.dirname(folder)))
    return frozenset(folders), paths


def concerns(changed: str, paths: tuple[str, ...]) -> bool:
    """Is an event at ``changed`` about one of the pad's paths, or a folder on its way?"""
    prefix = changed.rstrip(os.sep) + os.sep
    return any(p == changed or p.startswith(prefix) for p in paths)


def watch_fault(exc: BaseException) -> bool:
    """Did the folder watch fail on what is in the folder, not on padtui? (The watch library
    gives up on a file name that is not UTF-8, and any agent can make one: the watch is armed
    anew and the pad looked at, never left dead.)"""
    from watchfiles._rust_notify import WatchfilesRustInternalError

    faults = exc.exceptions if isinstance(exc, BaseExceptionGroup) else (exc,)
    return all(isinstance(e, WatchfilesRustInternalError) for e in faults)


def load_watch() -> None:
    """Import what a folder watch needs (about 30 ms: the watch library and its event
    loop's backend, which it imports on its first use), so that a thread can do it before
    the watch starts on the screen's thread."""
    import watchfiles  # noqa: F401

    with contextlib.suppress(ImportError):  # (the backend is anyio's to name)
        importlib.import_module("anyio._backends._asyncio")


async def watch_pad(
    path: str,
    stop: asyncio.Event | None = None,
    step_ms: int = 2,
    debounce_ms: int = 50,
    previous: Callable[[], PadFile | None] | None = None,
    fmt: str | None = None,
    ahead: Callable[[PadFile], object] | None = None,
) -> AsyncIterator[Reading]:
    """Yield the current reading, then a new one after every change to the pad's paths.

    The folder watch is armed before the first reading is taken (and armed anew before the
    reading that follows a change of the folders watched), so a write that lands between the
    two is not missed: once the first reading is out, every later write is seen.
    ``previous`` says which version is on screen: each read is made against it. ``fmt``
    reads the pad as that format, whatever its name. ``ahead`` is given each read's first
    parse while the settle rule waits (``store.settling``).
    """

    def before() -> PadFile | None:
        return previous() if previous is not None else None

    from watchfiles import awatch

    folders, paths = watched_places(path)

    def concerns_pad(_change: object, changed: str) -> bool:
        return concerns(changed, paths)

    async def arm() -> tuple[Any, asyncio.Future[Any]]:
        nonlocal folders, paths
        for attempt in range(ARM_ATTEMPTS):
            if attempt:
                folders, paths = watched_places(path)
            changes = awatch(
                *sorted(folders),
                watch_filter=concerns_pad,
                recursive=False,
                step=step_ms,
                debounce=debounce_ms,
                stop_event=stop,
            )
            # awatch sets up its watch in the first step of its first iteration, before it
            # waits for anything: start that iteration and let it take that step.
            pending = asyncio.ensure_future(anext(changes))
            await asyncio.sleep(0)
            if not (pending.done() and isinstance(pending.exception(), FileNotFoundError)):
                return changes, pending
            await changes.aclose()  # a folder went away meanwhile
        return changes, pending

    changes, pending = await arm()
    try:
        yield await read_settled(path, before(), fmt, ahead)
        while True:
            faulted = False
            try:
                await pending
            except StopAsyncIteration:
                return
            except Exception as exc:
                if not watch_fault(exc):
                    raise
                faulted = True
                # (a writer that repeats the fault costs at most a look per debounce)
                await asyncio.sleep(debounce_ms / 1000)
            now, paths = watched_places(path)
            if faulted or now != folders:
                folders = now
                await changes.aclose()
                changes, pending = await arm()
            else:
                pending = asyncio.ensure_future(anext(changes))
            yield await read_settled(path, before(), fmt, ahead)
    finally:
        pending.cancel()
        await asyncio.gather(pending, return_exceptions=True)
        await changes.aclose()
