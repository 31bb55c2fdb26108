"""Watching a live pad file (SPEC section 8), as an async iterator of readings.

Agents often save by writing a temporary file and renaming it over the pad, and a watch on the
file itself goes silent after the first such save. So the pad's *folder* is watched (not
recursively), events are filtered to the pad's name, and the file is re-read on any of them.
A reading that fails to parse is retried briefly before it is reported as unreadable: a torn
write is never taken for a new version.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from padtui.core import store
from padtui.core.errors import PadError
from padtui.core.formats import PadFile
from padtui.core.store import Snapshot


@dataclass(frozen=True)
class Reading:
    """One look at the file: a parsed version, an unreadable moment, or a missing file."""

    state: str  # "version", "unreadable" or "deleted"
    snapshot: Snapshot | None = None
    detail: str = ""

    @property
    def pad_file(self) -> PadFile | None:
        return self.snapshot.file if self.snapshot is not None else None


def read_once(path: str, previous: PadFile | None = None, fmt: str | None = None) -> Reading:
    """Read the pad with its version stamp; torn reads are retried for a few ms first.

    ``previous`` (the version on screen) lets a large pad that changed little be read
    cheaply: only its changed entries are parsed. ``fmt`` reads it as that format."""
    try:
        return Reading("version", store.read(path, previous=previous, fmt=fmt))
    except PadError as exc:
        if not os.path.lexists(path):
            return Reading("deleted", detail="the pad file is gone")
        return Reading("unreadable", detail=f"{store.UNREADABLE}: {exc.line()}")


async def read_settled(
    path: str, previous: PadFile | None = None, fmt: str | None = None
) -> Reading:
    return await asyncio.to_thread(read_once, path, previous, fmt)


def watched_places(path: str) -> tuple[set[str], set[str]]:
    """The folders to watch and the names to filter on: the pad's, and its target's."""
    places = {os.path.abspath(path), os.path.realpath(path)}
    return {os.path.dirname(p) for p in places}, {os.path.basename(p) for p in places}


async def watch_pad(
    path: str,
    stop: asyncio.Event | None = None,
    step_ms: int = 5,
    debounce_ms: int = 50,
    previous: Callable[[], PadFile | None] | None = None,
    fmt: str | None = None,
) -> AsyncIterator[Reading]:
    """Yield the current reading, then a new one after every change to the pad's path.

    The folder watch is armed before the first reading is taken, so a write that lands
    between the two is not missed: once the first reading is out, every later write is seen.
    ``previous`` says which version is on screen: each read is made against it. ``fmt``
    reads the pad as that format, whatever its name.
    """

    def before() -> PadFile | None:
        return previous() if previous is not None else None

    from watchfiles import awatch

    folders, names = watched_places(path)

    def concerns_pad(_change: object, changed: str) -> bool:
        return os.path.basename(changed) in names

    changes = awatch(
        *sorted(folders),
        watch_filter=concerns_pad,
        recursive=False,
        step=step_ms,
        debounce=debounce_ms,
        stop_event=stop,
    )
    # awatch sets up its watch in the first step of its first iteration, before it waits for
    # anything: start that iteration and let it take that step, then read.
    pending: asyncio.Future[object] = asyncio.ensure_future(anext(changes))
    try:
        await asyncio.sleep(0)
        yield await read_settled(path, before(), fmt)
        while True:
            try:
                await pending
            except StopAsyncIteration:
                return
            yield await read_settled(path, before(), fmt)
            pending = asyncio.ensure_future(anext(changes))
    finally:
        pending.cancel()
        await asyncio.gather(pending, return_exceptions=True)
        await changes.aclose()
