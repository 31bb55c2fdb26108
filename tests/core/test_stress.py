"""A hostile writer against repeated commits: nothing it wrote is lost, nothing is torn.

Three processes share one pad. A *writer* saves versions ``W1..Wn`` as fast as it likes,
each either by an atomic rename or by rewriting the file in place (``O_TRUNC``), with random
sizes and often the very same size as the version before (same inode, same size, same
timestamp tick: what only the content hash tells apart). The *committer* (this process)
reads, makes a version ``Cj`` that records which version it was made from, and commits it,
over and over. A *reader* reads the raw file in a loop. The writer makes at least 300
versions, and goes on until the committer has had its fight (ten commits acknowledged, five
refused, five of its commits written over by the writer): on a loaded machine 300 versions
can pass while the committer gets few turns.

How we know, from outside padtui:

* Before each save, the writer learns what it is about to replace: for a rename, it swaps
  its file in with ``renameat2(RENAME_EXCHANGE)`` and reads what came out (exact); for an
  in-place rewrite, it reads the file just before opening it. If that is a commit, following
  the commits' "made from" links must lead back to the writer's own previous version: a
  commit that replaced anything it did not plan from breaks the chain.
* The last version on disk leads back, the same way, to the writer's last version.
* Everything the reader saw is a whole version somebody wrote, or what a read overlapping one
  of the writer's own in-place rewrites can see: the start of the version that was there,
  then the writer's bytes at the same offsets (its own torn write, not padtui's).

Run twice: with a writer that takes ``padtui.lock`` around each save (cooperating: every
check above is exact), and with one that does not (its renames and truncating rewrites are
still caught by the exchange-and-check; see ``padtui.core.storage.store`` for the residual race).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import select
import time
from pathlib import Path

import pytest

from padtui.core.errors import PadError
from padtui.core.formats import render, to_bytes
from padtui.core.model import make_entry
from padtui.core.storage import fsio, store
from padtui.core.storage.journal import Journal

WRITES = 300  # the writer's least; it goes on until the committer has had a real fight
MOST_WRITES = 20 * WRITES
MAX_ATTEMPTS = 3000  # the committer's bound
DEADLINE = 120.0  # seconds: a bound, not a wait


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def writer_version(i: int, size: int) -> bytes:
    """Writer version ``Wi``, padded to ``size`` bytes when it can be (no trailing newline,
    so that no prefix of it is valid JSON)."""
    head = {"budget_tokens": 4000, "entries": [{"kind": "note", "id": "who", "text": f"W{i}"}]}
    fill = {"kind": "note", "id": "fill", "text": ""}
    doc = {**head, "entries": [*head["entries"], fill]}
    base = len(json.dumps(doc))
    fill["text"] = "x" * max(size - base, 1)
    return json.dumps(doc).encode()


def token(data: bytes) -> tuple[str, str | None]:
    """(who wrote this version, the version it was made from: None for the writer's)."""
    entries = json.loads(data)["entries"]
    made_from = next((e["text"] for e in entries if e.get("id") == "from"), None)
    return entries[0]["text"], made_from


def _common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def torn_by_in_place(data: bytes, versions: list[bytes], in_place: list[bytes]) -> bool:
    """Could a raw read overlapping one of the writer's in-place rewrites give ``data``?

    Such a read sees the start of whatever version was there (``A``), and from some offset
    on the bytes the writer was writing in place at the same offsets (``V``), or nothing more
    once the file was truncated: ``data == A[:k] + V[k:m]``. A torn *commit* could not be
    explained so, since padtui never writes the pad in place.
    """
    for a in versions:
        k = _common_prefix(data, a)
        if k == len(data) and k < len(a):
            return True  # the start of A, cut off by the writer's truncation
        if any(v[k : len(data)] == data[k:] for v in in_place):
            return True
    return False


def read_whole(path: str) -> bytes:
    """Read the pad, waiting (bounded) until it is whole: only our own writes tear it."""
    for _ in range(10_000):
        data = Path(path).read_bytes()
        try:
            json.loads(data)
            return data
        except ValueError:
            continue
    raise AssertionError("the pad stayed torn")


def run_writer(
    path: str, log: str, cooperate: bool, seed: int, enough: int
) -> None:  # pragma: no cover
    rng = random.Random(seed)
    tmp = path + ".writer-tmp"
    out = []
    size = len(Path(path).read_bytes())
    for i in range(1, MOST_WRITES + 1):
        # on a loaded machine the committer may get few turns in WRITES versions: the writer
        # goes on until the committer says the fight has been fought
        if i > WRITES and select.select([enough], [], [], 0)[0]:
            break
        if rng.random() < 0.4:  # else the same size as the version before
            size = rng.randint(90, 9000)
        data = writer_version(i, size)
        in_place = rng.random() < 0.5
        lock = store.lock(path) if cooperate else _nothing()
        with lock:
            if in_place:
                saw = read_whole(path)
                before = os.stat(path)
                with open(path, "wb") as f:  # O_TRUNC, then one write
                    f.write(data)
                    f.flush()
                    same = os.fstat(f.fileno())
                    if same.st_ino == before.st_ino and same.st_size == before.st_size:
                        # like `cp -p`, or a file system with coarse timestamps: the same
                        # size, inode and mtime; only the bytes tell the versions apart
                        os.utime(f.fileno(), ns=(before.st_atime_ns, before.st_mtime_ns))
            else:
                Path(tmp).write_bytes(data)
                if fsio.renameat2():
                    fsio.exchange(tmp, path)
                    saw = Path(tmp).read_bytes()
                    os.unlink(tmp)
                else:
                    saw = read_whole(path)
                    os.replace(tmp, path)
        out.append({"i": i, "sha": sha(data), "len": len(data), "in_place": in_place})
        out[-1]["saw"] = saw.decode()
        size = len(data)
        pause = rng.random()
        if pause < 0.6:
            time.sleep(rng.uniform(0, 0.0005))
        elif pause < 0.9:
            time.sleep(rng.uniform(0.002, 0.01))
    Path(log).write_text(json.dumps(out))


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def run_reader(path: str, log: str, stop: int) -> None:  # pragma: no cover
    seen: dict[str, str] = {}
    snapshots: set[str] = set()
    straddled = 0
    for n in range(2_000_000):
        if n % 64 == 0 and select.select([stop], [], [], 0)[0]:
            break
        if n % 8 == 0:
            with contextlib.suppress(PadError):
                snapshots.add(store.read(path).stamp.sha256)
            continue
        data, same = read_plain(path)
        if not same:
            straddled += 1  # the writer rewrote the file in place while we read it
            continue
        seen.setdefault(sha(data), data.decode("utf-8", "replace"))
    Path(log).write_text(
        json.dumps({"seen": seen, "snapshots": sorted(snapshots), "straddled": straddled})
    )


def read_plain(path: str) -> tuple[bytes, bool]:
    """The file's bytes, and whether its inode stood still while they were read.

    A read that straddles an in-place rewrite can splice the old bytes and the new ones;
    that is the writer's doing, so such reads are set aside (by inode, size and ctime: ctime
    cannot be set back, and this kernel stamps each change apart).
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        before = os.fstat(fd)
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        after = os.fstat(fd)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    key = ("st_ino", "st_size", "st_ctime_ns")
    same = all(getattr(before, k) == getattr(after, k) for k in key) and len(data) == after.st_size
    return data, same


def fork(fn, *args) -> int:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        code = 1
        try:
            fn(*args)
            code = 0
        finally:
            os._exit(code)
    return pid


@pytest.mark.parametrize("cooperate", [True, False], ids=["locking-writer", "non-locking-writer"])
def test_a_hostile_writer_never_loses_a_version_to_a_commit(tmp_path, monkeypatch, cooperate):
    if not cooperate and not fsio.renameat2():
        pytest.skip("without renameat2, a writer that ignores the lock can be raced")
    path = str(tmp_path / "pad.json")
    jpath = str(tmp_path / "journal.jsonl")
    Path(path).write_bytes(writer_version(0, 400))
    wlog, rlog = str(tmp_path / "writer.json"), str(tmp_path / "reader.json")
    stop_r, stop_w = os.pipe()
    enough_r, enough_w = os.pipe()
    reader = fork(run_reader, path, rlog, stop_r)
    writer = fork(run_writer, path, wlog, cooperate, 7 if cooperate else 11, enough_r)

    only_hash = []  # refusals where size, mtime, inode and device all matched
    real_matches = store.Stamp.matches

    def matches(self, now):
        same = real_matches(self, now)
        if not same and (self.size, self.mtime_ns, self.ino) == (now.size, now.mtime_ns, now.ino):
            only_hash.append(now.sha256)
        return same

    monkeypatch.setattr(store.Stamp, "matches", matches)
    commits: dict[str, dict] = {}  # Cj -> what it was made from, and whether acknowledged
    conflicts = 0
    fought = False  # whether the writer has been told it may stop
    replaced = 0  # acknowledged commits the writer has written over, as far as seen here
    acked_so_far = 0
    just_acked = False
    status = -1
    deadline = time.monotonic() + DEADLINE
    rng = random.Random(3)
    try:
        for j in range(MAX_ATTEMPTS):
            done, status = os.waitpid(writer, os.WNOHANG)
            if done:
                writer = 0
                break
            assert time.monotonic() < deadline, "the run took too long"
            try:
                snap = store.read(path)
            except PadError:  # the writer's in-place write, still under way after the retries
                continue
            made_from = snap.pad.entries[0].text
            if just_acked and made_from.startswith("W"):
                replaced += 1  # (only the writer wrote since the commit)
            just_acked = False
            entries = [
                make_entry("note", f"C{j}", id="who"),
                make_entry("note", made_from, id="from"),
                *snap.pad.entries[1:][-1:],
            ]
            # a commit that loses the race is swapped out again, but it was a whole file on
            # disk for a moment: a reader may see it, so its bytes count as a whole version
            rendered = to_bytes(render(snap.file.layout, entries))
            commits[f"C{j}"] = {"from": made_from, "acked": False, "rendered": rendered}
            try:
                after = store.commit(snap, entries, journal=jpath, lock_timeout=30)
            except store.Conflict:
                conflicts += 1
                continue
            commits[f"C{j}"]["acked"] = True
            commits[f"C{j}"]["sha"] = after.stamp.sha256
            commits[f"C{j}"]["data"] = after.data
            just_acked = True
            acked_so_far += 1
            if not fought and conflicts >= 5 and acked_so_far >= 10 and replaced >= 5:
                fought = True
                os.write(enough_w, b"x")
            if rng.random() < 0.3:
                time.sleep(rng.uniform(0.001, 0.004))
    finally:
        if writer:
            if not fought:
                os.write(enough_w, b"x")
            _, status = os.waitpid(writer, 0)
        os.write(stop_w, b"x")
        _, rstatus = os.waitpid(reader, 0)
        for fd in (stop_r, stop_w, enough_r, enough_w):
            os.close(fd)
    assert os.WIFEXITED(rstatus) and os.WEXITSTATUS(rstatus) == 0
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "the writer failed"

    writes = json.loads(Path(wlog).read_text())
    assert WRITES <= len(writes) <= MOST_WRITES

    def origin(who: str) -> str:
        """Follow 'made from' links back to the writer version a commit chain grew from."""
        hops = 0
        while who.startswith("C"):
            assert commits[who]["acked"], f"{who} was never acknowledged yet was replaced"
            who = commits[who]["from"]
            hops += 1
            assert hops < 10_000
        return who

    acked_seen = transient = 0
    for w in writes:
        who, _made_from = token(w["saw"].encode())
        if who.startswith("C") and not commits[who]["acked"]:
            transient += 1  # a commit caught in its own put-back: never acknowledged
            continue
        if who.startswith("C"):
            acked_seen += 1
        assert origin(who) == f"W{w['i'] - 1}", (
            f"W{w['i']} replaced {who}, which does not descend from W{w['i'] - 1}: "
            "a commit replaced a version it did not plan from"
        )
    final = read_whole(path)
    assert origin(token(final)[0]) == f"W{len(writes)}"

    # what the reader saw: whole versions, or a version the writer was writing in place
    whole = {sha(writer_version(0, 400)): writer_version(0, 400)}
    whole.update({w["sha"]: writer_version(w["i"], w["len"]) for w in writes})
    whole.update({c["sha"]: c["data"] for c in commits.values() if "data" in c})
    whole.update({sha(c["rendered"]): c["rendered"] for c in commits.values()})
    journal = Journal(jpath, path)
    for v in journal.versions():
        whole[v.sha256] = journal.data(v.n)  # every journaled version rebuilds exactly
    assert all(sha(data) == digest for digest, data in whole.items())
    in_place = [writer_version(w["i"], w["len"]) for w in writes if w["in_place"]]
    seen = json.loads(Path(rlog).read_text())
    for digest, text in seen["seen"].items():
        if digest not in whole:
            data = text.encode()
            assert in_place and torn_by_in_place(data, list(whole.values()), in_place), (
                f"a reader saw bytes that are no whole version: {text[:120]!r}"
            )
    for digest in seen["snapshots"]:
        assert digest in whole, "padtui's read returned bytes that are no whole version"

    acked = sum(c["acked"] for c in commits.values())
    # the run was a real fight, not two processes taking turns
    assert acked >= 5 and conflicts >= 5, (acked, conflicts)
    assert acked_seen >= 3, "the writer never replaced a commit: no interleaving was tested"
    assert len(seen["seen"]) > 50
    assert only_hash, "no same-size, same-mtime rewrite was caught: the hash went untested"
    if cooperate:
        assert transient == 0
