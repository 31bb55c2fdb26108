"""The version journal: every version seen or written, content-addressed (the README's
"Safe writes and the journal").

One journal per pad, a JSON Lines file in the user's state folder
(``$XDG_STATE_HOME/padtui/``, else ``~/.local/state/padtui/``), named from the pad's real
path, or wherever ``--journal PATH`` says. Three kinds of line::

    {"t":"padtui-journal","v":1,"pad":"/real/path/pad.json"}          first line
    {"t":"b","h":"<hash>","s":"<text>"}                                a blob, stored once
    {"t":"v","n":7,"at":"...","ns":...,"origin":"seen","sha":"<sha256 of the bytes>",
     "size":812,"fmt":"json","set":{"budget_tokens":4000},
     "glue":[["L","[\\n  ",1],["L",",\\n  ",11],["L","\\n]\\n",1]],
     "base":6,"keep":[3,8],"mid":["<hash>"]}                            a version
    {"t":"ack","n":7,"at":"...","ns":...}                              an alarm acknowledged

A version is the exact text of the file cut at its entries: the text between entries (the
*glue*, run-length coded, long pieces stored as blobs) and each entry's own source text,
stored once as a blob by hash (the first 20 hex digits of its SHA-256). Its entry list is
either spelled out (``list``) or, when shorter, coded against an earlier version as a common
prefix and suffix kept (``keep``) and what changed in between (``mid``); a full list is written
at least every ``CHECKPOINT`` versions. So an unchanged entry costs nothing twice, and a
version that changes one entry costs one blob and one short line. Rebuilding a version joins
glue and blobs and checks the SHA-256 of the whole file, so a version comes back byte for byte.
A version that did not parse (a torn read kept on purpose) is stored whole, as one blob.
An ``ack`` line says the user has seen the alarm of version ``n`` (a padtui that predates it
passes it over as a line of a later padtui, not as damage).

Each line ends with its own CRC-32 (``,"c":"<8 hex digits>"}``, of the line as it would be
without it). A damaged line (a flipped byte, a line cut or crafted: bad JSON, a bad CRC, a
value of the wrong type or out of range) costs what it holds and only that: the version on
it, the versions coded against it as a base or built from its blob; every other version
comes back, and appends go on (see :meth:`Journal.damage` and :meth:`Journal.lost`). Lines
without a CRC (from an earlier padtui) are read as they are, until the first line with one.

Appends hold an exclusive ``flock`` on the journal file (it is never replaced, only appended
to), re-read what other processes appended since, cut off a torn last line left by a crashed
writer, write the new lines in one ``write`` and ``fsync``. Reading tolerates a torn last line.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import fcntl
import hashlib
import json
import os
import re
import threading
import time
import zlib
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain
from typing import Any

from padtui.core.errors import PadError
from padtui.core.formats import MAX_BUDGET, PadFile, named, parse
from padtui.core.sequences.ends import common_ends, common_text_ends
from padtui.core.storage.fsio import fsync_dir
from padtui.core.storage.names import fit
from padtui.core.vocabulary import Origin

FORMAT_VERSION = 1
HEADER = "padtui-journal"
HASH_CHARS = 20  # 80 bits of SHA-256 per blob; each rebuilt version is checked in full
CHECKPOINT = 64  # a full entry list at least every this many versions
INLINE_GLUE = 64  # glue longer than this is stored as a blob

ORIGINS = tuple(Origin)
OWN_ORIGINS = tuple(o for o in Origin if o != Origin.SEEN)  # padtui's own writes
MAX_NUMBER = 2**53  # version numbers, sizes and counts beyond this are crafted, not written
TAIL = 256  # bytes of the last line read, looked at again before reading on
_CRC = re.compile(rb',"c":"([0-9a-f]{8})"\}$')
_CRC_CHARS = len(',"c":"00000000"}')
_VERSION_NUMBER = re.compile(rb'"t":"v","n":(\d{1,15})\b')  # (in a line too damaged to read)
_HASH = re.compile(f"[0-9a-f]{{{HASH_CHARS}}}")
_SHA256 = re.compile(r"[0-9a-f]{64}")


class _Damaged(ValueError):
    """A journal line that cannot be trusted; its message says why."""


class _Orphan(ValueError):
    """A sound version line that cannot be used: what it was built on is lost."""


def state_dir() -> str:
    """``$XDG_STATE_HOME/padtui`` (when set to an absolute path), else ``~/.local/state/padtui``."""
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "padtui")


def journal_path_for(pad_path: str) -> str:
    """The default journal of a pad: named from its real path (so every name of it agrees;
    a name too long for one is cut and hashed)."""
    real = os.path.realpath(pad_path)
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:16]
    tail = f".{digest}.jsonl"
    return os.path.join(state_dir(), fit(os.path.basename(real), len(tail)) + tail)


def blob_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:HASH_CHARS]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, kw_only=True)
class Version:
    """One journaled version of a pad (its bytes come back from :meth:`Journal.data`)."""

    n: int  # 1, 2, 3, ... in the order journaled
    at: str  # UTC time, ISO 8601
    time_ns: int
    origin: str  # "seen" (read from disk) or the write that made it: compact, externalize, ...
    sha256: str  # of the file's exact bytes
    size: int
    format: str
    parsed: bool  # False: kept whole because it did not parse
    budget_tokens: int | None
    encoding: str | None
    entries: tuple[str, ...]  # blob hashes of the entries' source texts, file order
    glue: tuple[tuple[str, str, int], ...] = ()
    raw: str | None = None  # blob hash of the whole file, for a version that did not parse

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, "time": self.at}
        out.update((key, getattr(self, key)) for key in ("origin", "sha256", "size", "format"))
        out.update(readable=self.parsed, entries=len(self.entries))
        return out


class Journal:
    """The append-only, content-addressed journal of one pad."""

    def __init__(self, path: str, pad: str | None = None) -> None:
        self.path = os.path.abspath(path)
        self.pad = os.path.realpath(pad) if pad is not None else None
        self._mutex = threading.RLock()  # one process's threads share this object's state
        self._reset()

    @classmethod
    def for_pad(cls, pad_path: str, journal_path: str | None = None) -> Journal:
        """The journal of ``pad_path``: ``journal_path``, else the default one."""
        return cls(journal_path or journal_path_for(pad_path), pad_path)

    def _reset(self) -> None:
        self._offset = 0
        self._tail = b""  # the last bytes read: unchanged unless the file was edited in place
        self._line = 0
        self._header: str | None = None
        self._blobs: dict[str, bytes] = {}
        self._versions: list[Version] = []
        self._depth: dict[int, int] = {}  # n -> versions since the last full list
        self._ino: tuple[int, int] | None = None
        self._hash_of: dict[str, str] = {}  # source text -> its blob's hash (a memo)
        self._last_cut: _Cut | None = None  # the last version cut (the next is cut from it)
        self._by_n: dict[int, Version] = {}
        self._line_of: dict[int, bytes] = {}  # n -> the line it was read from
        self._checked = False  # a line with a CRC was read: every later one must have one
        self._damage: list[tuple[int, str]] = []  # (line number, what is wrong with it)
        self._lost: dict[int, str] = {}  # n -> why version n cannot come back
        self._acks: set[int] = set()  # versions whose alarm the user acknowledged

    # --- reading ---------------------------------------------------------------------------

    def versions(self) -> list[Version]:
        """Every version journaled so far (re-reads what others appended)."""
        self.refresh()
        return list(self._versions)

    def version(self, n: int) -> Version:
        self.refresh()
        v = self._by_n.get(n)
        if v is not None:
            return v
        raise self._missing(n)

    def _missing(self, n: int) -> PadError:
        if n in self._lost:
            return self._lost_error(n, self._lost[n])
        last = max(self._by_n) if self._by_n else 0
        span = f"1..{last}" if last else "none yet"
        return PadError(self.path, f"no version {n} in the journal (versions: {span})")

    def damage(self) -> list[tuple[int, str]]:
        """The damaged lines of the journal read so far: (line number, what is wrong)."""
        self.refresh()
        return list(self._damage)

    def lost(self) -> dict[int, str]:
        """The versions known to be lost to damage (their number, why), as far as the
        lines say; a version whose own line is beyond reading may not be named here."""
        self.refresh()
        return dict(self._lost)

    def acknowledged(self) -> set[int]:
        """The versions whose alarm the user acknowledged (``ack`` lines)."""
        self.refresh()
        return set(self._acks)

    def _lost_error(self, n: int, why: str) -> PadError:
        return PadError(
            self.path,
            f"version {n} is lost: {why} (the journal is damaged there; "
            "`padtui history` lists the versions that remain)",
        )

    def latest(self) -> Version | None:
        self.refresh()
        return self._versions[-1] if self._versions else None

    def data(self, n: int) -> bytes:
        """The exact bytes of version ``n``, checked against its SHA-256."""
        v = self.version(n)
        if v.raw is not None:
            out = self._blob(v.raw, n)
        else:
            glue = [
                g for kind, value, count in v.glue for g in [self._glue(kind, value, n)] * count
            ]
            if len(glue) != len(v.entries) + 1:
                raise self._lost_error(n, "its glue does not fit its entries")
            parts = [glue[0]]
            for h, g in zip(v.entries, glue[1:], strict=True):
                parts += [self._blob(h, n), g]
            out = b"".join(parts)
        if sha256(out) != v.sha256:
            raise self._lost_error(n, "its bytes, rebuilt, do not match their SHA-256")
        return out

    @property
    def owner(self) -> str | None:
        """The pad this journal belongs to: the one it was opened for, else the one its
        header names (once read), else None."""
        return self.pad or self._header

    def pad_file(self, n: int, previous: PadFile | None = None) -> PadFile:
        """Version ``n`` parsed (PadError for a version that was kept because it did not);
        ``previous``, an earlier version, is read against as the live view does (faster)."""
        v = self.version(n)
        if not v.parsed:
            raise PadError(
                self.path, "was unreadable when journaled (mid-write?), not a pad", f"version {n}"
            )
        name = self.pad or self._header or self.path
        return parse(name, self.data(n), v.format, previous)

    def find(self, data: bytes) -> int | None:
        """The newest version with exactly these bytes."""
        self.refresh()
        digest = sha256(data)
        for v in reversed(self._versions):
            if v.sha256 == digest:
                return v.n
        return None

    def _blob(self, h: str, n: int) -> bytes:
        try:
            return self._blobs[h]
        except KeyError:
            raise self._lost_error(n, f"the blob {h} it is built from is missing") from None

    def _glue(self, kind: str, value: str, n: int) -> bytes:
        return value.encode("utf-8") if kind == "L" else self._blob(value, n)

    def refresh(self) -> None:
        """Read what was appended since the last look (a torn last line is left for later)."""
        with self._mutex:
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                self._reset()
                return
            except OSError as exc:
                raise PadError(self.path, f"cannot read the journal: {exc.strerror}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_SH)
                self._scan(fd, repair=False)
            finally:
                os.close(fd)

    def _scan(self, fd: int, repair: bool) -> None:
        st = os.fstat(fd)
        if (
            self._ino != (st.st_dev, st.st_ino)
            or st.st_size < self._offset
            or os.pread(fd, len(self._tail), self._offset - len(self._tail)) != self._tail
        ):
            self._reset()  # a different, truncated or rewritten file: start over
            self._ino = (st.st_dev, st.st_ino)
        if st.st_size == self._offset:
            return
        chunks = []
        pos = self._offset
        while pos < st.st_size:
            chunk = os.pread(fd, st.st_size - pos, pos)
            if not chunk:
                break
            chunks.append(chunk)
            pos += len(chunk)
        data = b"".join(chunks)
        end = data.rfind(b"\n") + 1
        for line in data[:end].split(b"\n")[:-1]:
            self._line += 1
            self._apply(line)
        self._offset += end
        if end:
            self._tail = data[max(end - TAIL, 0) : end]
        if repair and end < len(data):
            os.ftruncate(fd, self._offset)  # a torn last line: what a crashed append left

    def _apply(self, line: bytes) -> None:
        where = f"line {self._line}"
        try:
            rec = self._record(line)
            kind = rec.get("t")
            if kind == "b":
                h = rec.get("h")
                if not isinstance(h, str) or not _HASH.fullmatch(h):
                    raise _Damaged("a blob without its hash")
                self._blobs.setdefault(h, _blob_bytes(rec))
            elif kind == "v":
                self._add(self._decode(rec), line)
            elif kind == "ack":
                self._acks.add(_number(rec.get("n"), 1))
            elif kind == HEADER:
                v = rec.get("v")
                if type(v) is int and v != FORMAT_VERSION:
                    raise PadError(self.path, f"journal format {v} is not supported", where)
                if v != FORMAT_VERSION:
                    raise _Damaged("a header without its format")
                pad = rec.get("pad")
                self._header = pad if isinstance(pad, str) else None
            elif not isinstance(kind, str):
                raise _Damaged("a line of no known kind")
            # other kinds: from a later padtui, skipped
        except PadError:
            raise
        except _Damaged as exc:
            self._damaged(line, str(exc))
        except _Orphan:
            pass  # (its loss is noted: see _decode)
        except (
            ValueError,  # bad JSON, bad UTF-8, a number past Python's digit limit, nan
            KeyError,
            TypeError,
            IndexError,
            AttributeError,
            OverflowError,  # 1e999 where a whole number belongs
            RecursionError,  # nesting past Python's limit
            binascii.Error,
        ):
            self._damaged(line, "not a journal line")

    def _record(self, line: bytes) -> dict[str, Any]:
        """The record on a line, its CRC checked (ValueError for a line that fails)."""
        m = _CRC.search(line, len(line) - _CRC_CHARS) if len(line) > _CRC_CHARS else None
        if m is not None:
            body = line[:-_CRC_CHARS] + b"}"
            if int(m[1], 16) != zlib.crc32(body):
                raise _Damaged("its CRC does not match")
            self._checked = True
        elif self._checked:
            raise _Damaged("its CRC is missing")
        rec = json.loads(line)
        if not isinstance(rec, dict):
            raise _Damaged("not a journal record")
        return rec

    def _damaged(self, line: bytes, problem: str) -> None:
        """Pass over a line that cannot be trusted: what it costs is named, nothing more."""
        self._damage.append((self._line, problem))
        m = _VERSION_NUMBER.search(line)
        if m is not None:
            n = int(m[1])
            if n not in self._by_n:
                self._lost.setdefault(n, f"its line ({self._line}) is damaged: {problem}")

    def _add(self, v: Version, line: bytes) -> None:
        earlier = self._line_of.get(v.n)
        if earlier is not None:
            if earlier != line:
                raise _Damaged(f"a second version {v.n}")
            return  # the same line twice: nothing new
        self._versions.append(v)
        self._by_n[v.n] = v
        self._line_of[v.n] = line
        self._lost.pop(v.n, None)

    def _decode(self, rec: dict[str, Any]) -> Version:
        n = _number(rec["n"], 1)
        try:
            return self._decode_version(n, rec)
        except _Damaged as exc:
            if n not in self._by_n:
                self._lost[n] = f"its line ({self._line}) is damaged: {exc}"
            raise
        except _Orphan as exc:
            if n not in self._by_n:
                self._lost[n] = str(exc)
            raise

    def _decode_version(self, n: int, rec: dict[str, Any]) -> Version:
        settings = rec.get("set") or {}
        if not isinstance(settings, dict):
            raise _Damaged("its settings are not an object")
        budget = settings.get("budget_tokens")
        if budget is not None and _number(budget, 0) > MAX_BUDGET:
            raise _Damaged("its budget is out of range")
        encoding = settings.get("encoding")
        if encoding is not None and not isinstance(encoding, str):
            raise _Damaged("its encoding is not a string")
        raw = rec.get("raw")
        entries: tuple[str, ...] = ()
        glue: tuple[tuple[str, str, int], ...] = ()
        if raw is None:
            if "list" in rec:
                entries = _strings(rec["list"])
                self._depth[n] = 0
            else:
                base_n = _number(rec["base"], 1)
                base = self._by_n.get(base_n)
                if base is None or not base.parsed:
                    raise _Orphan(f"it is coded against version {base_n}, which is lost")
                keep_tail = rec["keep"]
                if not isinstance(keep_tail, list) or len(keep_tail) != 2:
                    raise _Damaged("its delta is not [keep, tail]")
                keep, tail = (_number(x, 0) for x in keep_tail)
                if keep + tail > len(base.entries):
                    raise _Damaged("its delta does not fit its base")
                mid = _strings(rec["mid"])
                rest = base.entries[len(base.entries) - tail :] if tail else ()
                entries = base.entries[:keep] + mid + rest
                self._depth[n] = self._depth.get(base.n, 0) + 1
            glue = _glue_runs(rec["glue"], len(entries) + 1)
        elif not isinstance(raw, str):
            raise _Damaged("its blob is not a hash")
        at = rec["at"]
        if not isinstance(at, str) or len(at) > 40:
            raise _Damaged("its time is not a time")
        try:
            datetime.fromisoformat(at.replace("Z", "+00:00"))
        except ValueError:
            raise _Damaged("its time is not a time") from None
        sha = rec["sha"]
        if not isinstance(sha, str) or not _SHA256.fullmatch(sha):
            raise _Damaged("its SHA-256 is not one")
        origin, fmt = rec["origin"], rec["fmt"]
        if not isinstance(origin, str) or not isinstance(fmt, str):
            raise _Damaged("its origin or format is not a string")
        return Version(
            n=n,
            at=at,
            time_ns=_number(rec["ns"], 0, 2**63),
            origin=origin,
            sha256=sha,
            size=_number(rec["size"], 0),
            format=fmt,
            parsed=raw is None,
            budget_tokens=budget,
            encoding=encoding,
            entries=entries,
            glue=glue,
            raw=raw,
        )

    # --- writing ---------------------------------------------------------------------------

    def append(
        self,
        data: bytes,
        fmt: str,
        origin: str,
        pad_file: PadFile | None = None,
        *,
        since: int | None = None,
    ) -> int:
        """Journal one version (durably: fsync before return); returns its number.

        The same bytes as the newest version are not journaled twice. ``pad_file`` is the
        version parsed, when the caller has it; otherwise it is parsed here, and a version
        that does not parse is kept whole. ``since``: the number of the version these bytes
        were seen after; if another writer (a restore from the command line) has journaled
        them after it meanwhile, the first such version's number is returned and nothing is
        written (journaled again, they would follow what came after them).
        """
        if pad_file is None:
            try:
                pad_file = parse(self.pad or self.path, data, fmt)
            except PadError:
                pad_file = None
        with self._mutex, self._locked() as fd:
            self._scan(fd, repair=True)
            digest = sha256(data)
            if self._versions and self._versions[-1].sha256 == digest:
                return self._versions[-1].n
            if since is not None:
                after = [v.n for v in self._versions if v.n > since and v.sha256 == digest]
                if after:
                    return after[0]
            records = self._encode(data, digest, fmt, origin, pad_file)
            if self._offset == 0:
                records.insert(0, {"t": HEADER, "v": FORMAT_VERSION, "pad": self.pad})
            payload = b"".join(_line(r) for r in records)
            _write_all(fd, payload)
            os.fsync(fd)
            self._scan(fd, repair=False)
            n = int(records[-1]["n"])
            if n not in self._by_n:  # (never so: the line was written as it is read)
                raise PadError(self.path, f"version {n} was written but does not read back")
            return n

    def acknowledge(self, n: int) -> None:
        """Record (durably) that the user has seen the alarm of version ``n``; PadError for a
        version that is not in the journal."""
        with self._mutex, self._locked() as fd:
            self._scan(fd, repair=True)
            if n not in self._by_n:
                raise self._missing(n)
            if n in self._acks:
                return
            ns = time.time_ns()
            at = datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="milliseconds")
            rec = {"t": "ack", "n": n, "at": at.replace("+00:00", "Z"), "ns": ns}
            _write_all(fd, _line(rec))
            os.fsync(fd)
            self._scan(fd, repair=False)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[int]:
        folder = os.path.dirname(self.path)
        try:
            created = not os.path.exists(self.path)
            if created:
                os.makedirs(folder, mode=0o700, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise PadError(
                self.path,
                f"cannot write the journal: {exc.strerror or exc} "
                "(choose another with --journal PATH, or --no-journal)",
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._check_owner(fd)
            yield fd
            if created:
                fsync_dir(folder)
        except OSError as exc:
            raise PadError(self.path, f"cannot write the journal: {exc.strerror or exc}") from None
        finally:
            os.close(fd)

    def _check_owner(self, fd: int) -> None:
        self._scan(fd, repair=True)
        self._owned()

    def check_owner(self) -> None:
        """PadError unless this journal is the pad's own (or has no pad named yet): run it
        before anything read from the journal is written anywhere."""
        self.refresh()
        self._owned()

    def _owned(self) -> None:
        if self._header is not None and self.pad is not None and self._header != self.pad:
            raise PadError(self.path, f"this journal belongs to another pad ({self._header})")

    def _encode(
        self, data: bytes, digest: str, fmt: str, origin: str, pad_file: PadFile | None
    ) -> list[dict[str, Any]]:
        ns = time.time_ns()
        now = datetime.fromtimestamp(ns / 1e9, UTC)
        n = max(self._by_n, default=0) + 1
        while n in self._lost:  # a damaged version's number is not given again
            n += 1
        rec: dict[str, Any] = {
            "t": "v",
            "n": n,
            "at": now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "ns": ns,
            "origin": origin,
            "sha": digest,
            "size": len(data),
            "fmt": fmt,
        }
        blobs: list[dict[str, Any]] = []
        new: set[str] = set()

        def store(piece: bytes) -> str:
            h = blob_hash(piece)
            if h not in self._blobs and h not in new:
                new.add(h)
                blobs.append(_blob_record(h, piece))
            return h

        known = self._hash_of  # the blob of a source string seen before (most of a version)

        def store_text(piece: str) -> str:
            h = known.get(piece)
            if h is None or h not in self._blobs:
                h = known[piece] = store(piece.encode("utf-8"))
            return h

        cut = _cut_text(pad_file, data, self._last_cut) if pad_file is not None else None
        if cut is None:
            rec["raw"] = store(data)
            return [*blobs, rec]
        self._last_cut = cut
        glue, sources = cut.glue, cut.sources
        pad = pad_file.pad if pad_file is not None else None
        settings: dict[str, Any] = {}
        if pad is not None and pad.budget_tokens is not None:
            settings["budget_tokens"] = pad.budget_tokens
        if pad is not None and pad.encoding is not None:
            settings["encoding"] = pad.encoding
        if settings:
            rec["set"] = settings
        runs: list[list[Any]] = []
        for text in glue:
            item = ["L", text] if len(text) <= INLINE_GLUE else ["B", store_text(text)]
            if runs and runs[-1][:2] == item:
                runs[-1][2] += 1
            else:
                runs.append([*item, 1])
        rec["glue"] = runs
        hashes = [store_text(s) for s in sources]
        rec.update(self._delta(hashes))
        return [*blobs, rec]

    def _delta(self, hashes: list[str]) -> dict[str, Any]:
        base = next((v for v in reversed(self._versions) if v.parsed), None)
        if base is None or self._depth.get(base.n, 0) + 1 >= CHECKPOINT:
            return {"list": hashes}
        old = base.entries
        most = min(len(old), len(hashes))
        keep = 0
        while keep < most and old[keep] == hashes[keep]:
            keep += 1
        tail = 0
        while tail < most - keep and old[-1 - tail] == hashes[-1 - tail]:
            tail += 1
        mid = hashes[keep : len(hashes) - tail]
        if len(mid) + 4 >= len(hashes):
            return {"list": hashes}
        return {"base": base.n, "keep": [keep, tail], "mid": mid}


def _cut(pad_file: PadFile, data: bytes) -> tuple[list[bytes], list[bytes]] | None:
    """The file's bytes cut at its entries' sources: glue pieces and entry pieces.

    ``glue[0] + src[0] + glue[1] + ... + glue[-1]`` is exactly ``data``; None when the
    entries' sources cannot be found in order (then the version is stored whole).
    """
    cut = _cut_text(pad_file, data)
    if cut is None:
        return None
    return [g.encode("utf-8") for g in cut.glue], [s.encode("utf-8") for s in cut.sources]


@dataclass(frozen=True)
class _Cut:
    """A version's text cut at its entries' sources (see ``_cut``), with where each source
    ends in it: the next version's cut takes over what the two texts share."""

    text: str
    glue: list[str]
    sources: list[str]
    ends: list[int]


def _cut_text(pad_file: PadFile, data: bytes, last: _Cut | None = None) -> _Cut | None:
    """``_cut``, in text: the entries' sources are the pad's own strings (which the versions
    seen live share when an entry did not change, so that their blobs are known at once).

    ``last``: the cut of an earlier version. The sources found in the text the two share at
    its start, and those after a point where the two walks are in step in the text they
    share at its end (the same sources left, the same text left), are where they were:
    only the sources between are looked for (a live pad's new version costs what changed).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    fmt = named(pad_file.layout.format)
    sources = [e.source or "" for e in pad_file.pad.entries]  # (one empty: not cut)
    if fmt is None or not all(sources):
        return None
    n = len(sources)
    glue: list[str] = []
    ends: list[int] = []  # where each source ends in the text
    pos = i = 0
    tail_from, shift, t = len(text) + 1, 0, 0
    if last is not None:
        same_start, same_end = common_text_ends(last.text, text)
        a, t = common_ends(last.sources, sources)  # (the very strings, at the two ends)
        i = bisect_right(last.ends, same_start, 0, a)  # (found in the shared start)
        glue, ends = last.glue[:i], last.ends[:i]
        pos = ends[-1] if ends else 0
        tail_from, shift = len(text) - same_end, len(text) - len(last.text)
    find, starts, glue_run = text.find, text.startswith, fmt.glue.match
    rest = False
    while i < n:
        if pos >= tail_from and n - i <= t:  # the same sources left: in step with last?
            assert last is not None
            j = i - n + len(last.sources)
            if (last.ends[j - 1] if j else 0) == pos - shift:
                glue += last.glue[j:]
                ends += [e + shift for e in last.ends[j:]]
                rest = True
                break
        source = sources[i]
        # an entry's source comes right after what its format puts between entries (white
        # space and punctuation in a JSON pad): look there first, then search
        m = glue_run(text, pos)
        at = m.end() if m is not None and starts(source, m.end()) else find(source, pos)
        if at < 0:
            return None
        glue.append(text[pos:at])
        pos = at + len(source)
        ends.append(pos)
        i += 1
    if not rest:
        glue.append(text[pos:])
    if "".join(chain.from_iterable(zip(glue[:-1], sources, strict=True))) + glue[-1] != text:
        return None
    return _Cut(text, glue, sources, ends)


def _line(rec: dict[str, Any]) -> bytes:
    """A record as a journal line: its JSON, with the CRC-32 of that JSON as its last member.
    (The header's path is written as ASCII: a file name's undecodable bytes, lone surrogates
    here, are then ``\\udcXX`` escapes that read back as they were, not a failed write.)"""
    ascii_ = rec.get("t") == HEADER
    body = json.dumps(rec, ensure_ascii=ascii_, separators=(",", ":")).encode("utf-8")
    return body[:-1] + b',"c":"%08x"}\n' % zlib.crc32(body)


def _number(value: Any, least: int, most: int = MAX_NUMBER) -> int:
    """A whole number of a journal line, in range (else _Damaged)."""
    if type(value) is not int or not least <= value <= most:
        raise _Damaged("a number out of range")
    return value


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(h, str) for h in value):
        raise _Damaged("a list of hashes that is not one")
    return tuple(value)


def _glue_runs(value: Any, pieces: int) -> tuple[tuple[str, str, int], ...]:
    """The glue runs of a version: ``[kind, text or hash, count]``, as many pieces in all as
    the version has places between and around its entries (checked before any is expanded:
    a count of 10^12 is damage, not a request for memory)."""
    if not isinstance(value, list):
        raise _Damaged("its glue is not a list")
    runs: list[tuple[str, str, int]] = []
    total = 0
    for run in value:
        if not isinstance(run, list) or len(run) != 3:
            raise _Damaged("its glue is not [kind, text, count] runs")
        kind, text, count = run
        if kind not in ("L", "B") or not isinstance(text, str):
            raise _Damaged("its glue is not [kind, text, count] runs")
        total += _number(count, 1)
        if total > pieces:
            raise _Damaged("its glue does not fit its entries")
        runs.append((kind, text, count))
    if total != pieces:
        raise _Damaged("its glue does not fit its entries")
    return tuple(runs)


def _blob_record(h: str, piece: bytes) -> dict[str, Any]:
    try:
        return {"t": "b", "h": h, "s": piece.decode("utf-8")}
    except UnicodeDecodeError:
        return {"t": "b", "h": h, "b64": base64.b64encode(piece).decode("ascii")}


def _blob_bytes(rec: dict[str, Any]) -> bytes:
    text = rec.get("s")
    if isinstance(text, str):
        return text.encode("utf-8")  # (UnicodeEncodeError, a ValueError: a lone surrogate)
    b64 = rec.get("b64")
    if text is not None or not isinstance(b64, str):
        raise _Damaged("a blob without its text")
    return base64.b64decode(b64, validate=True)


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]
