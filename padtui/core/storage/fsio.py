"""File I/O under the store: stamped reads, temporary writes, the swap.

Everything here works on one file in one folder and knows nothing of pads' meaning: a
read returns bytes and the stat they belong to (or :class:`Moving` if the file changed
meanwhile); a write goes to a synced temporary file beside the pad (:func:`write_temp`),
which :func:`swap` puts at the pad's name, by ``renameat2(RENAME_EXCHANGE)`` where the
kernel allows it (the old file comes back under the temporary name), else ``os.replace``.
:class:`Place` holds the pad's folder open so that every step goes through names in it.
Leases (:func:`no_writers`) tell whether another process holds a file open for writing.
How :mod:`padtui.core.storage.store` uses these for a compare-and-swap commit is described there.
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
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from padtui.core.errors import PadError, WriteFailed, open_error, too_large
from padtui.core.formats import MAX_PAD_BYTES
from padtui.core.storage.names import fit

TMP_TAG = ".padtui-"


TMP_SUFFIX = ".tmp"


READ_ATTEMPTS = 6  # a read that does not parse is retried this many times in all ...


READ_BACKOFF = 0.001  # ... after 1, 2, 4, 8, 16 ms (31 ms at most): a torn write settles


NO_SUCH_FILE = "no such file"  # (as errors.open_error says it)


USE_EXCHANGE = True  # swap with renameat2(RENAME_EXCHANGE) where the kernel allows it


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


class Moving(Exception):
    """The file changed while it was being read."""


NOT_REGULAR = "not a regular file"


_READ = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO in a file's place must not hang


# each folder of a walk: opened only to look a name up in it (O_PATH needs no read permission)
_WALK = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_real(real: str, flags: int = _READ) -> int:
    """Open the file at ``real``, an absolute path with no symlink in it (as
    ``os.path.realpath`` gives), one name at a time from the root, following no symlink:
    the file opened is the one at that path now, and OSError (``ELOOP``, ``ENOTDIR``) says
    that a part of it has become a symlink since it was resolved."""
    parts = [part for part in real.split("/") if part]
    if not real.startswith("/") or not parts:
        return os.open(real, flags | os.O_NOFOLLOW)
    fd = os.open("/", _WALK)
    try:
        for part in parts[:-1]:
            inner = os.open(part, _WALK, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(parts[-1], flags | os.O_NOFOLLOW, dir_fd=fd)
    finally:
        os.close(fd)


def open_regular(
    path: str, *, follow: bool = True, dir_fd: int | None = None
) -> tuple[int, os.stat_result]:
    """A regular file opened to read, and its stat: never waits on a FIFO (opened
    non-blocking, then refused), and never reads a device. OSError for anything else
    (``strerror`` says why: ``not a regular file`` for a FIFO, a device or a socket);
    ``follow`` False refuses a symlink at the last name (``ELOOP``)."""
    flags = _READ if follow else _READ | os.O_NOFOLLOW
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", path)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, NOT_REGULAR, path)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_lines(fd: int, limit: int, chunk: int = 1 << 20) -> Iterator[bytes | None]:
    """The lines of an open file, one at a time, without their line endings (a last one
    without its ending too); None in place of a line longer than ``limit`` bytes, which is
    skipped without being held. Memory: one chunk and one line."""
    rest = bytearray()
    too_long = False
    while True:
        data = os.read(fd, chunk)
        if not data:
            break
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                if not too_long:
                    rest += data[start:]
                    if len(rest) > limit:
                        rest.clear()
                        too_long = True
                break
            if too_long:
                yield None
            elif rest:
                rest += data[start:end]
                yield None if len(rest) > limit else bytes(rest)
            else:
                yield None if end - start > limit else data[start:end]
            rest.clear()
            too_long = False
            start = end + 1
    if too_long:
        yield None
    elif rest:
        yield bytes(rest)


def read_raw(target: str, name: str, dir_fd: int | None = None) -> tuple[bytes, os.stat_result]:
    """The file's bytes and the stat they belong to (``Moving`` if it changed meanwhile).
    With ``dir_fd``, ``target`` is a name in that folder, and a symlink there is not followed;
    without, ``target`` is a real path (``os.path.realpath``'s), opened without following a
    symlink anywhere in it (``Moving`` if a part of it became one since it was resolved)."""
    try:
        if dir_fd is not None:
            fd = os.open(target, _READ | os.O_NOFOLLOW, dir_fd=dir_fd)
        else:
            fd = open_real(target)
    except OSError as exc:
        if dir_fd is None and exc.errno in (errno.ELOOP, errno.ENOTDIR):
            with contextlib.suppress(OSError, RuntimeError, ValueError):
                if os.path.realpath(target) != target:
                    raise Moving from None
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
        raise Moving
    return data, after


def still(st: os.stat_result, target: str) -> bool:
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
    try:
        target = os.path.realpath(path)
    except (OSError, RuntimeError):  # (a link swapped in or out while it was resolved)
        return None
    try:
        data, st = read_raw(target, path)
    except Moving:
        return None
    except PadError as exc:
        if exc.problem != NO_SUCH_FILE:
            raise
        return Look(target, None, None)
    return Look(target, data, st)


def moved(read_as: str, now: str) -> str:
    return f"now leads to {now}, not to {read_as} as when it was read; nothing written"


def read_raw_settled(target: str, path: str) -> tuple[bytes, os.stat_result]:
    for attempt in range(READ_ATTEMPTS):
        if attempt:
            time.sleep(READ_BACKOFF * 2 ** (attempt - 1))
        with contextlib.suppress(Moving):
            return read_raw(target, path)
    raise PadError(path, "kept changing while being read")


@dataclass(frozen=True)
class Current:
    """The pad as it is at this moment, under the lock."""

    stamp: Stamp
    data: bytes
    st: os.stat_result


def current(target: str, name: str, dir_fd: int | None = None) -> Current | None:
    """The file's current stamp and bytes (None when it cannot be read as a whole file)."""
    try:
        data, st = read_raw(target, name, dir_fd)
    except (PadError, Moving):
        return None
    return Current(Stamp.of(st, data), data, st)


@dataclass(frozen=True)
class Place:
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
            raise WriteFailed(self.path, moved(self.target, now))
        here, held = os.stat(self.folder), os.fstat(self.fd)
        if (here.st_dev, here.st_ino) != (held.st_dev, held.st_ino):
            problem = f"its folder {self.folder} was replaced since it was read; nothing written"
            raise WriteFailed(self.path, problem)
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISLNK(os.stat(self.name, dir_fd=self.fd, follow_symlinks=False).st_mode):
                raise WriteFailed(self.path, moved(self.target, "a symbolic link"))


@contextlib.contextmanager
def hold_place(path: str, target: str) -> Iterator[Place]:
    folder, name = os.path.split(target)
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise WriteFailed(
            path, f"cannot open its folder {folder}: {exc.strerror or exc}; nothing written"
        ) from None
    try:
        place = Place(path, target, folder, name, fd)
        try:
            place.check()
        except OSError as exc:
            raise failed(path, exc, False) from None
        yield place
    finally:
        os.close(fd)


def failed(path: str, exc: OSError, swapped: bool) -> WriteFailed:
    why = exc.strerror or str(exc)
    if not swapped:
        return WriteFailed(path, f"{why}; nothing written")
    return WriteFailed(path, f"{why}, after the new version was swapped in; check the pad")


def check_mode(place: Place, st: os.stat_result) -> None:
    """A careful user makes a pad read-only to keep it as it is: padtui does not replace it."""
    mode = stat.S_IMODE(st.st_mode)
    if not mode & 0o222 or not os.access(place.name, os.W_OK, dir_fd=place.fd):
        raise WriteFailed(
            place.path,
            f"is read-only for you (mode {mode:04o}); padtui does not replace a read-only "
            "pad (make it writable first); nothing written",
        )


_RENAME_NOREPLACE = 1


def link_new(place: Place, tmp: str) -> bool:
    """Give ``tmp`` the pad's name unless something has it already (False then)."""
    fn = renameat2()
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


def temp_stem(name: str) -> str:
    return "." + fit(name, 1 + len(TMP_TAG) + 8 + len(TMP_SUFFIX)) + TMP_TAG


def write_temp(
    place: Place, data: bytes, like: os.stat_result | None
) -> tuple[str, os.stat_result]:
    """A temporary file beside the pad, synced, with the pad's mode (and owner, where
    allowed); a new pad (``like`` None) gets what any new file gets (0666 less the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    stem = temp_stem(place.name)
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


def sweep_temps(place: Place) -> None:
    """Remove temporary files that killed commits left (under the lock: none is live)."""
    prefix = temp_stem(place.name)
    with contextlib.suppress(OSError), os.scandir(place.fd) as found:
        for entry in found:
            if entry.name.startswith(prefix) and entry.name.endswith(TMP_SUFFIX):
                with contextlib.suppress(OSError):
                    os.unlink(entry.name, dir_fd=place.fd)


_AT_FDCWD = -100


_RENAME_EXCHANGE = 2


_SYSCALLS = {"x86_64": 316, "aarch64": 276, "arm64": 276}


_exchange_fn: Any = None


_no_exchange: set[int] = set()  # devices whose file system cannot exchange


def renameat2() -> Any:
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
    fn = renameat2()
    if not fn:
        raise OSError(errno.ENOSYS, "renameat2 is not available")
    at = _AT_FDCWD if dir_fd is None else dir_fd
    if fn(at, os.fsencode(a), at, os.fsencode(b), _RENAME_EXCHANGE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), a)


def swaps_by_exchange(folder: str) -> bool:
    """Whether a commit in ``folder`` swaps by exchange (else by ``os.replace``)."""
    if not USE_EXCHANGE or not renameat2():
        return False
    try:
        return os.stat(folder).st_dev not in _no_exchange
    except OSError:
        return False


def swap(place: Place, tmp: str) -> bool:
    """Put ``tmp`` at the pad's name. True: exchanged (the old file is now at ``tmp``)."""
    dev = os.fstat(place.fd).st_dev
    if USE_EXCHANGE and renameat2() and dev not in _no_exchange:
        try:
            exchange(tmp, place.name, place.fd)
            return True
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise
            _no_exchange.add(dev)
    os.replace(tmp, place.name, src_dir_fd=place.fd, dst_dir_fd=place.fd)
    return False


def rescue(place: Place, tmp: str) -> str:
    rescued = fit(place.name, 36) + f".padtui-rescued-{time.time_ns()}"
    os.rename(tmp, rescued, src_dir_fd=place.fd, dst_dir_fd=place.fd)
    fsync_dir(place.folder)
    return os.path.join(place.folder, rescued)


def same_file(st: os.stat_result, fd: int) -> bool:
    held = os.fstat(fd)
    return (st.st_ino, st.st_dev) == (held.st_ino, held.st_dev)


def open_quiet(name: str, dir_fd: int) -> int:
    """A file opened to read and to ask about its writers (a lease break must not kill us)."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
    return fd


def held_open(place: Place, name: str) -> bool:
    """Does a process hold this file open for writing (False where it cannot be told)?"""
    fd = open_quiet(name, place.fd)
    try:
        return no_writers(fd) is False
    finally:
        os.close(fd)


def no_writers(fd: int) -> bool | None:
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


def identity(name: str, path: str, dir_fd: int) -> tuple[int, str | None]:
    """A file's inode and the SHA-256 of its bytes (None while it is being written)."""
    now = current(name, path, dir_fd)
    if now is None:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_ino, None
    return now.stamp.ino, now.stamp.sha256


def fsync_dir(folder: str) -> None:
    """Make a rename or a new file in ``folder`` durable (where the platform allows it)."""
    try:
        fd = os.open(folder or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)
