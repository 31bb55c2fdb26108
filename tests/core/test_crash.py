"""A commit killed with SIGKILL at a random moment leaves the old file or the new one.

A forked child commits in a loop (each version a deterministic function of the one before);
the test kills it after a random short delay, then checks that the pad is exactly one
version of that sequence, byte for byte, that the journal holds the version before it, and
that the next commit goes through (the lock died with the child; its temporary file is swept).
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

import pytest

from padtui.core.formats import PadFile, parse, render, to_bytes
from padtui.core.model import Entry, make_entry
from padtui.core.storage import fsio, store
from padtui.core.storage.journal import Journal

KILLS = 120  # (of 200 kills, 22-35 landed inside a commit: about one in six)


def step(pf: PadFile) -> list[Entry]:
    """The next version: rewrite one entry (its size varying), now and then add or drop one."""
    entries = list(pf.pad.entries)
    k = int(entries[0].text)
    entries[0] = make_entry("note", str(k + 1), id="counter")
    i = 1 + k % (len(entries) - 1)
    size = 200 + (k * 7919) % 3000
    entries[i] = make_entry("plan", f"revision {k + 1}: " + "x" * size, id=entries[i].id)
    if k % 5 == 0:
        entries.append(make_entry("note", f"added at {k}", id=f"a{k}"))
    elif k % 7 == 0 and len(entries) > 12:
        entries.pop()
    return entries


def next_bytes(data: bytes, name: str) -> bytes:
    pf = parse(name, data)
    return to_bytes(render(pf.layout, step(pf)))


def commit_forever(path: str, journal: str, ready: int) -> None:  # pragma: no cover - child
    os.write(ready, b"x")
    while True:
        snap = store.read(path)
        store.commit(snap, step(snap.file), journal=journal)


@pytest.mark.parametrize("swap", ["exchange", "replace"])
def test_a_killed_commit_leaves_the_old_bytes_or_the_new(tmp_path, monkeypatch, swap):
    if swap == "exchange" and not fsio.renameat2():
        pytest.skip("renameat2 is not available here")
    monkeypatch.setattr(fsio, "USE_EXCHANGE", swap == "exchange")
    path = str(tmp_path / "pad.json")
    jpath = str(tmp_path / "journal.jsonl")
    doc = {
        "budget_tokens": 4000,
        "x-agent": "crash-test",
        "entries": [{"kind": "note", "text": "0", "id": "counter"}]
        + [{"kind": "plan", "text": f"entry {i}", "id": f"e{i}"} for i in range(12)],
    }
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
    os.chmod(path, 0o640)
    sequence = [Path(path).read_bytes()]
    position = {sequence[0]: 0}

    def index_of(data: bytes) -> int:
        while data not in position and len(sequence) < 100_000:
            sequence.append(next_bytes(sequence[-1], path))
            position[sequence[-1]] = len(sequence) - 1
        assert data in position, "the pad is not a whole version"
        return position[data]

    started = time.perf_counter()
    store.commit(store.read(path), step(parse(path, sequence[0])), journal=jpath)
    commit_time = time.perf_counter() - started
    journal = Journal(jpath, path)
    rng = random.Random(20261114)
    killed_mid_commit = 0
    progress = []
    for _ in range(KILLS):
        ready_r, ready_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                os.close(ready_r)
                commit_forever(path, jpath, ready_w)
            finally:
                os._exit(3)
        os.close(ready_w)
        assert os.read(ready_r, 1) == b"x"
        os.close(ready_r)
        before = Path(path).read_bytes()
        time.sleep(rng.uniform(0, 3 * commit_time))  # the random moment of the kill
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL

        data = Path(path).read_bytes()
        k = index_of(data)  # exactly one whole version, never a mix
        assert k >= index_of(before)
        if any(store.TMP_TAG in n for n in os.listdir(tmp_path)):
            killed_mid_commit += 1  # it died between creating its temp file and the end
        progress.append(k - index_of(before))
        assert journal.find(sequence[k - 1]) is not None, "the replaced version is journaled"
        assert os.stat(path).st_mode & 0o777 == 0o640

        # the next commit goes through: the lock died with the child, its temp file is swept
        after = store.commit(store.read(path), step(parse(path, data)), journal=jpath)
        assert index_of(after.data) == k + 1
        assert [n for n in os.listdir(tmp_path) if store.TMP_TAG in n] == []

    versions = journal.versions()
    for v in versions[:: max(len(versions) // 50, 1)]:
        assert journal.data(v.n) in position  # every journaled version rebuilds exactly
    assert killed_mid_commit > 0, "no kill landed inside a commit: the test proved nothing"
    assert progress.count(0) > 0 and max(progress) > 0  # kills before and after some commits
