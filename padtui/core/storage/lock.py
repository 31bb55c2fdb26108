"""The pad's advisory lock: ``flock`` on a separate, persistent ``<pad>.lock`` file, never
on the pad itself (a lock on the pad's inode would die with the first rename over it).

Commits take it; an agent that does its own read-modify-write under ``padtui.lock(path)``
is never raced by a padtui commit. Re-entrant within a process.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from padtui.core.errors import LockTimeout, PadError
from padtui.core.storage.names import fit

LOCK_SUFFIX = ".lock"


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
