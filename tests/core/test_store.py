"""Safe writes (the README's "Safe writes and the journal"): stamped reads, compare-and-swap
commits, the lock, restore."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

import padtui
from padtui.core.compaction import sealing
from padtui.core.compaction.plan import plan
from padtui.core.errors import PadError
from padtui.core.formats import parse
from padtui.core.model import make_entry
from padtui.core.storage import fsio, store
from padtui.core.storage.journal import Journal

PAD = {
    "budget_tokens": 60,
    "x-owner": {"agent": "a1", "since": 3},
    "entries": [
        {
            "kind": "constraint",
            "text": "Never retry a write after a 5xx.",
            "id": "c1",
            "sealed": True,
        },
        {
            "kind": "plan",
            "text": "Read the ticket, then draft a fix for the flaky test.",
            "id": "p1",
        },
        {
            "kind": "note",
            "text": "A long note that rambles on about many other things, " * 6,
            "id": "n1",
            "x-seen": [1, 2],
        },
        {"kind": "negative_fact", "text": "The staging DB was tried; it failed.", "id": "nf1"},
    ],
}


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture(params=["exchange", "replace"])
def swap(request, monkeypatch):
    """Both ways a commit swaps the new file in."""
    if request.param == "exchange" and not fsio.renameat2():
        pytest.skip("renameat2 is not available here")
    monkeypatch.setattr(fsio, "USE_EXCHANGE", request.param == "exchange")
    return request.param


def write(path, data: bytes | str) -> bytes:
    data = data.encode() if isinstance(data, str) else data
    with open(path, "wb") as f:
        f.write(data)
    return data


def rename_over(path, data: bytes) -> None:
    tmp = f"{path}.agent-tmp"
    write(tmp, data)
    os.replace(tmp, path)


def make_pad(tmp_path, doc=PAD, name="pad.json", indent=2) -> str:
    path = str(tmp_path / name)
    write(path, json.dumps(doc, indent=indent))
    return path


def leftovers(tmp_path) -> list[str]:
    return [n for n in os.listdir(tmp_path) if store.TMP_TAG in n]


def journal(path) -> Journal:
    return store.journal_of(path, True)


def seals(snap, *labels):
    return sealing.externalized(snap.pad, labels, snap.path)[0]


# --- reading --------------------------------------------------------------------------------


def test_a_stamped_read_names_the_exact_bytes_and_file(tmp_path):
    path = make_pad(tmp_path)
    snap = store.read(path)
    st = os.stat(path)
    assert snap.data == Path(path).read_bytes()
    assert (snap.stamp.size, snap.stamp.mtime_ns, snap.stamp.ino, snap.stamp.dev) == (
        st.st_size,
        st.st_mtime_ns,
        st.st_ino,
        st.st_dev,
    )
    assert snap.target == os.path.realpath(path)
    assert snap.version is None  # reading journals nothing unless asked
    assert not os.path.exists(tmp_path / "state")


def test_a_read_that_catches_a_torn_write_retries_until_it_settles(tmp_path, monkeypatch):
    path = make_pad(tmp_path)
    whole = Path(path).read_bytes()
    real = fsio.read_raw
    calls = []

    def torn_twice(target, name):
        calls.append(target)
        data, st = real(target, name)
        return (data[: len(data) // 2], st) if len(calls) <= 2 else (data, st)

    monkeypatch.setattr(fsio, "read_raw", torn_twice)
    snap = store.read(path)
    assert snap.data == whole and len(calls) == 3


def test_a_file_that_stays_torn_is_unreadable_not_a_new_version(tmp_path, monkeypatch):
    path = make_pad(tmp_path)
    good = store.read(path)
    write(path, Path(path).read_bytes()[:40])
    real = fsio.read_raw
    calls = []

    def counting(target, name):
        calls.append(1)
        return real(target, name)

    monkeypatch.setattr(fsio, "read_raw", counting)
    reading = store.poll(path, good)
    assert reading.state == "unreadable"
    assert reading.snapshot is good  # the last good version stays
    assert reading.message.startswith("unreadable (mid-write?): invalid JSON")
    assert len(calls) <= store.SETTLE_LOOKS + 2  # the looks of one settle interval: torn
    with pytest.raises(PadError, match="invalid JSON"):
        store.read(path)  # the command line still names the problem


def test_poll_tells_new_from_same_and_journals_what_it_sees(tmp_path):
    path = make_pad(tmp_path)
    first = store.poll(path, None, journal=True)
    assert first.state == "new" and first.snapshot.version == 1
    assert store.poll(path, first.snapshot, journal=True).state == "same"
    rename_over(path, b"[]")
    second = store.poll(path, first.snapshot, journal=True)
    assert second.state == "new" and second.snapshot.version == 2


def test_a_missing_pad_is_a_one_line_error(tmp_path):
    with pytest.raises(PadError, match="no such file"):
        store.read(str(tmp_path / "gone.json"))


# --- committing -----------------------------------------------------------------------------


def test_a_commit_writes_the_plan_and_keeps_mode_unknown_fields_and_layout(tmp_path, swap):
    path = make_pad(tmp_path)
    os.chmod(path, 0o640)
    before = Path(path).read_text(encoding="utf-8")
    snap = store.read(path)
    snap = sealing.externalize(snap, ["nf1"])  # protected kinds go to the sealed region
    p = plan(snap.pad, budget=90)
    assert p.verdict == "compactable" and [e.label for e in p.dropped] == ["n1"]
    after = store.commit(snap, p)
    text = Path(path).read_text(encoding="utf-8")
    assert after.data == text.encode()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    doc = json.loads(text)
    assert doc["x-owner"] == PAD["x-owner"] and doc["budget_tokens"] == 60
    assert [e["id"] for e in doc["entries"]][:4] == ["c1", "p1", "nf1", doc["entries"][3]["id"]]
    assert doc["entries"][3]["kind"] == "loss_record" and doc["entries"][3]["sealed"] is True
    for unchanged in ("c1", "p1"):  # untouched entries keep their exact text
        source = next(e.source for e in snap.pad.entries if e.id == unchanged)
        assert source in before and source in text
    assert text.startswith('{\n  "budget_tokens": 60,\n  "x-owner"')
    assert leftovers(tmp_path) == []
    versions = journal(path).versions()
    assert [v.origin for v in versions] == ["seen", "externalize", "compact"]
    assert journal(path).data(1) == before.encode()


@pytest.mark.parametrize(
    "name, text",
    [
        (
            "pad.jsonl",
            '{"kind": "note", "text": "keep", "z": 1}\r\n{"kind": "plan", "text": "x"}\r\n',
        ),
        ("pad.json", '[{"kind":"note","text":"keep","z":1},{"kind":"plan","text":"x"}]'),
    ],
)
def test_the_format_survives_a_commit(tmp_path, name, text):
    path = str(tmp_path / name)
    write(path, text)
    snap = store.read(path)
    entries = [*snap.pad.entries, make_entry("note", "new", id="n2")]
    store.commit(snap, entries)
    out = Path(path).read_bytes().decode()
    assert out.startswith(text.split("}")[0] + "}")  # the untouched entry, byte for byte
    if name.endswith(".jsonl"):
        assert out.count("\r\n") == 3 and out.endswith("\r\n")
    back = parse(path, out.encode()).pad
    assert [(e.kind, e.text) for e in back.entries] == [
        ("note", "keep"),
        ("plan", "x"),
        ("note", "new"),
    ]
    assert back.entries[0].raw["z"] == 1


def test_a_symlinked_pad_is_written_through_to_its_target(tmp_path, swap):
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = make_pad(real_dir)
    link = tmp_path / "pad.json"
    link.symlink_to(target)
    snap = store.read(str(link))
    assert snap.target == target
    store.commit(snap, seals(snap, "nf1"))
    assert os.path.islink(link) and os.readlink(link) == target
    assert json.loads(Path(target).read_text())["entries"][3]["sealed"] is True
    assert os.path.exists(target + ".lock") and not os.path.exists(str(link) + ".lock")
    assert leftovers(real_dir) == [] and leftovers(tmp_path) == []


def test_a_refused_plan_is_never_written(tmp_path):
    path = make_pad(tmp_path)
    before = Path(path).read_bytes()
    snap = store.read(path)
    p = plan(snap.pad, budget=40)  # would drop an unsealed negative fact
    assert p.refused
    with pytest.raises(store.Refused):
        store.commit(snap, p)
    assert Path(path).read_bytes() == before
    assert leftovers(tmp_path) == [] and not os.path.exists(tmp_path / "state")


def test_a_plan_from_another_version_is_not_committed(tmp_path):
    path = make_pad(tmp_path)
    snap = store.read(path)
    other = store.commit(snap, seals(snap, "nf1"))
    with pytest.raises(ValueError):
        store.commit(snap, plan(other.pad, budget=90))


def test_a_commit_that_changes_nothing_writes_nothing(tmp_path):
    path = make_pad(tmp_path)
    snap = store.read(path)
    ino = os.stat(path).st_ino
    p = plan(snap.pad, budget=10_000)
    assert p.verdict == "fits"
    assert store.commit(snap, p).stamp == snap.stamp
    assert os.stat(path).st_ino == ino


def test_no_journal_means_no_journal(tmp_path):
    path = make_pad(tmp_path)
    snap = store.read(path)
    after = store.commit(snap, seals(snap, "nf1"), journal=False)
    assert after.version is None and not os.path.exists(tmp_path / "state")


def test_an_explicit_journal_path_is_used(tmp_path):
    path = make_pad(tmp_path)
    snap = store.read(path)
    jpath = str(tmp_path / "mine.jsonl")
    after = store.commit(snap, seals(snap, "nf1"), journal=jpath)
    assert after.version == 2 and Journal(jpath).data(1) == snap.data
    assert not os.path.exists(tmp_path / "state")


def test_the_replaced_version_is_journaled_and_synced_before_the_swap(tmp_path, monkeypatch, swap):
    path = make_pad(tmp_path)
    snap = store.read(path)
    trace = []
    real_append, real_swap, real_fsync = Journal.append, fsio.swap, os.fsync

    def append(self, data, fmt, origin, pad_file=None):
        trace.append(("journal", origin))
        return real_append(self, data, fmt, origin, pad_file)

    def swap_(place, tmp):
        trace.append(("swap", (tmp_path / tmp).read_bytes() == Path(path).read_bytes()))
        return real_swap(place, tmp)

    def fsync(fd):
        kind = "dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"
        trace.append(("fsync", kind))
        return real_fsync(fd)

    monkeypatch.setattr(Journal, "append", append)
    monkeypatch.setattr(fsio, "swap", swap_)
    monkeypatch.setattr(os, "fsync", fsync)
    sealing.externalize(snap, ["nf1"])
    i_old = trace.index(("journal", "seen"))
    i_swap = trace.index(("swap", False))
    assert ("fsync", "file") in trace[i_old:i_swap]  # journal line synced
    assert trace[i_swap - 1] == ("fsync", "file")  # the temporary file synced, then swapped
    assert trace[i_swap + 1] == ("fsync", "dir")  # and the rename made durable
    assert trace.index(("journal", "externalize")) > i_swap


def test_temporary_files_of_killed_commits_are_swept(tmp_path):
    path = make_pad(tmp_path)
    stale = tmp_path / f".pad.json{store.TMP_TAG}dead{store.TMP_SUFFIX}"
    unrelated = tmp_path / f".other.json{store.TMP_TAG}live{store.TMP_SUFFIX}"
    stale.write_text("half")
    unrelated.write_text("not ours to judge")
    snap = store.read(path)
    store.commit(snap, seals(snap, "nf1"))
    assert not stale.exists() and unrelated.exists()


# --- compare-and-swap -----------------------------------------------------------------------


def test_a_rename_by_the_agent_since_the_read_is_a_conflict(tmp_path, swap):
    path = make_pad(tmp_path)
    snap = store.read(path)
    theirs = json.dumps({**PAD, "entries": PAD["entries"][:2]}).encode()
    rename_over(path, theirs)
    with pytest.raises(store.Conflict, match="changed since it was read"):
        store.commit(snap, seals(snap, "nf1"))
    assert Path(path).read_bytes() == theirs
    j = journal(path)
    assert j.data(j.versions()[-1].n) == theirs  # what it found is journaled as seen


def test_a_same_size_rewrite_in_place_within_a_tick_is_caught_by_the_hash(tmp_path, swap):
    path = make_pad(tmp_path)
    snap = store.read(path)
    old = os.stat(path)
    theirs = snap.data.replace(b"Never retry", b"Always retr")
    assert len(theirs) == len(snap.data)
    with open(path, "r+b") as f:  # in place: same inode
        f.write(theirs)
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))  # the same timestamp tick
    now = os.stat(path)
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (old.st_size, old.st_mtime_ns, old.st_ino)
    with pytest.raises(store.Conflict):
        store.commit(snap, seals(snap, "nf1"))
    assert Path(path).read_bytes() == theirs


def test_a_snapshot_of_bytes_read_elsewhere_compares_content(tmp_path):
    path = make_pad(tmp_path)
    loaded = padtui.load(path)
    snap = store.snapshot_of(loaded)
    rename_over(path, loaded.data)  # same bytes, new inode: nothing of anyone's is lost
    after = store.commit(snap, seals(snap, "nf1"))
    assert after.pad.find("nf1").sealed
    stale = store.snapshot_of(loaded)
    with pytest.raises(store.Conflict):
        store.commit(stale, seals(stale, "nf1"))


def _sneak_in(monkeypatch, write_theirs):
    """Make a writer that does not take the lock write right before the swap."""
    real = fsio.swap

    def swap_(place, tmp):
        write_theirs(place.target)
        return real(place, tmp)

    monkeypatch.setattr(fsio, "swap", swap_)


def test_a_rename_between_the_last_check_and_the_swap_is_put_back(tmp_path, monkeypatch):
    if not fsio.renameat2():
        pytest.skip("renameat2 is not available here")
    path = make_pad(tmp_path)
    snap = store.read(path)
    theirs = json.dumps({"entries": [{"kind": "plan", "text": "theirs"}]}).encode()
    _sneak_in(monkeypatch, lambda target: rename_over(target, theirs))
    with pytest.raises(store.Conflict, match="put back"):
        store.commit(snap, seals(snap, "nf1"))
    assert Path(path).read_bytes() == theirs
    assert journal(path).find(theirs) is not None
    assert leftovers(tmp_path) == []


def test_a_truncating_rewrite_between_the_last_check_and_the_swap_is_put_back(
    tmp_path, monkeypatch
):
    if not fsio.renameat2():
        pytest.skip("renameat2 is not available here")
    path = make_pad(tmp_path)
    snap = store.read(path)
    theirs = b'[{"kind": "plan", "text": "rewritten in place"}]'
    opened = []

    def open_trunc(target):
        opened.append(open(target, "wb"))  # noqa: SIM115 - O_TRUNC now; the bytes come after the swap

    _sneak_in(monkeypatch, open_trunc)
    with pytest.raises(store.Conflict):
        store.commit(snap, seals(snap, "nf1"))
    opened[0].write(theirs)
    opened[0].close()
    assert Path(path).read_bytes() == theirs  # its write landed in the pad, not in a lost inode


def test_a_writer_that_writes_again_during_the_undo_keeps_its_newest(tmp_path, monkeypatch):
    if not fsio.renameat2():
        pytest.skip("renameat2 is not available here")
    path = make_pad(tmp_path)
    snap = store.read(path)
    first, second = b'[{"kind": "plan", "text": "one"}]', b'[{"kind": "plan", "text": "two"}]'
    _sneak_in(monkeypatch, lambda target: rename_over(target, first))
    real_exchange = fsio.exchange
    swaps = []

    def exchange(a, b, dir_fd=None):
        swaps.append(1)
        if len(swaps) == 2:  # the first undo: the writer saves again just before it
            rename_over(tmp_path / b, second)
        real_exchange(a, b, dir_fd)

    monkeypatch.setattr(fsio, "exchange", exchange)
    with pytest.raises(store.Conflict):
        store.commit(snap, seals(snap, "nf1"))
    assert Path(path).read_bytes() == second
    assert journal(path).find(first) is not None  # the one it wrote over is kept
    assert leftovers(tmp_path) == []


def test_without_exchange_the_residual_race_is_as_documented(tmp_path, monkeypatch):
    """os.replace right after the last check: a rename in that gap is lost. This pins the
    documented residual race (the exchange path above closes it)."""
    monkeypatch.setattr(fsio, "USE_EXCHANGE", False)
    path = make_pad(tmp_path)
    snap = store.read(path)
    theirs = b'[{"kind": "plan", "text": "lost"}]'
    _sneak_in(monkeypatch, lambda target: rename_over(target, theirs))
    after = store.commit(snap, seals(snap, "nf1"))
    assert Path(path).read_bytes() == after.data


def needs_leases(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        if fsio.no_writers(fd) is None:
            pytest.skip("this system cannot tell who holds a file open for writing")
    finally:
        os.close(fd)


def test_a_writer_holding_the_pad_open_is_waited_for_then_a_conflict(tmp_path):
    """An agent that opened the pad (without O_TRUNC) and writes later would write into the
    file a swap displaces: while one holds it open, nothing is swapped."""
    path = make_pad(tmp_path)
    snap = store.read(path)
    early = open(path, "r+b")  # noqa: SIM115 - held open across the commit
    needs_leases(path)
    with pytest.raises(store.Conflict, match="held open for writing"):
        store.commit(snap, seals(snap, "nf1"))
    early.write(b"[]" + b" " * 10)
    early.close()
    assert Path(path).read_bytes().startswith(b"[]" + b" " * 10)  # its write reached the pad
    assert leftovers(tmp_path) == []


def test_a_writer_that_closes_while_the_commit_waits_is_seen(tmp_path, monkeypatch):
    path = make_pad(tmp_path)
    snap = store.read(path)
    late = b'[{"kind": "plan", "text": "written while the commit waited"}]'
    early = [open(path, "r+b")]  # noqa: SIM115 - written and closed while the commit waits
    real_no_writers = fsio.no_writers

    def no_writers(fd):
        free = real_no_writers(fd)
        if free is None:
            pytest.skip("this system cannot tell who holds a file open for writing")
        if early and not free:
            f = early.pop()
            f.write(late)
            f.truncate()
            f.close()
        return free

    monkeypatch.setattr(fsio, "no_writers", no_writers)
    with pytest.raises(store.Conflict, match="changed since it was read"):
        store.commit(snap, seals(snap, "nf1"))
    assert Path(path).read_bytes() == late
    assert journal(path).find(late) is not None
    assert leftovers(tmp_path) == []


def test_a_writer_that_opens_the_pad_just_before_the_swap_gets_it_put_back(tmp_path, monkeypatch):
    if not fsio.renameat2():
        pytest.skip("renameat2 is not available here")
    path = make_pad(tmp_path)
    snap = store.read(path)
    opened = []
    _sneak_in(monkeypatch, lambda target: opened.append(open(target, "r+b")))  # noqa: SIM115
    needs_leases(path)
    with pytest.raises(store.Conflict, match="opened for writing by another process just"):
        store.commit(snap, seals(snap, "nf1"))
    opened[0].write(b"[]" + b" " * 10)
    opened[0].close()
    assert Path(path).read_bytes().startswith(b"[]" + b" " * 10)
    assert leftovers(tmp_path) == []


def test_a_writer_that_opens_our_version_before_it_is_put_back_finds_it_kept(tmp_path, monkeypatch):
    if not fsio.renameat2():
        pytest.skip("renameat2 is not available here")
    path = make_pad(tmp_path)
    needs_leases(path)
    snap = store.read(path)
    theirs = b'[{"kind": "plan", "text": "theirs"}]'
    _sneak_in(monkeypatch, lambda target: rename_over(target, theirs))
    real_exchange = fsio.exchange
    opened = []

    def exchange(a, b, dir_fd=None):
        if not opened:  # the swap itself
            opened.append(None)
        elif len(opened) == 1:  # the undo: a writer opens our version, now the pad, first
            opened.append(open(path, "r+b"))  # noqa: SIM115
        real_exchange(a, b, dir_fd)

    monkeypatch.setattr(fsio, "exchange", exchange)
    with pytest.raises(store.Conflict, match="kept as") as caught:
        store.commit(snap, seals(snap, "nf1"))
    kept = str(caught.value).split("kept as ")[1].split(":")[0]
    assert Path(path).read_bytes() == theirs
    opened[1].seek(0, os.SEEK_END)
    opened[1].write(b"\n")
    opened[1].close()
    assert Path(kept).read_bytes().endswith(b"\n")  # its write is kept, named in the conflict
    assert leftovers(tmp_path) == [os.path.basename(kept)]


def test_where_writers_cannot_be_told_the_residual_race_is_as_documented(tmp_path, monkeypatch):
    """Without leases (other systems, some file systems): a write through a file opened
    before the swap and written after it goes into the displaced file, and is lost."""
    monkeypatch.setattr(fsio, "no_writers", lambda fd: None)
    path = make_pad(tmp_path)
    snap = store.read(path)
    early = open(path, "r+b")  # noqa: SIM115 - held open across the commit
    after = store.commit(snap, seals(snap, "nf1"))
    early.write(b"[]" + b" " * 10)
    early.close()
    assert Path(path).read_bytes() == after.data


# --- the lock -------------------------------------------------------------------------------


def _hold_lock_in_child(path):
    """A child process that holds the pad's lock until told to let go."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            os.close(ready_r)
            os.close(go_w)
            with store.lock(path):
                os.write(ready_w, b"x")
                os.read(go_r, 1)
        finally:
            os._exit(0)
    os.close(ready_w)
    os.close(go_r)
    assert os.read(ready_r, 1) == b"x"
    os.close(ready_r)
    return pid, go_w


def test_a_commit_waits_for_the_lock_and_gives_up_clearly(tmp_path):
    path = make_pad(tmp_path)
    before = Path(path).read_bytes()
    snap = store.read(path)
    pid, release = _hold_lock_in_child(path)
    try:
        with pytest.raises(store.LockTimeout, match="locked by another process"):
            store.commit(snap, seals(snap, "nf1"), lock_timeout=0.05)
        assert Path(path).read_bytes() == before
    finally:
        os.write(release, b"x")
        os.close(release)
        os.waitpid(pid, 0)
    store.commit(snap, seals(snap, "nf1"), lock_timeout=5)  # free again
    assert os.path.exists(path + ".lock")  # the lock file stays


def test_the_lock_is_reentrant_for_an_agent_that_commits_while_holding_it(tmp_path):
    path = make_pad(tmp_path)
    with padtui.lock(path) as lock_file:
        assert lock_file == os.path.realpath(path) + ".lock"
        snap = padtui.read(path)
        after = padtui.commit(snap, seals(snap, "nf1"), lock_timeout=0.05)
    assert after.pad.find("nf1").sealed


def test_the_lock_is_on_a_separate_file_and_survives_renames_of_the_pad(tmp_path):
    path = make_pad(tmp_path)
    pid, release = _hold_lock_in_child(path)
    try:
        rename_over(path, b"[]")  # the pad's inode changes; the lock does not care
        snap = store.read(path)
        with pytest.raises(store.LockTimeout):
            store.commit(snap, [make_entry("note", "x")], lock_timeout=0.05)
    finally:
        os.write(release, b"x")
        os.close(release)
        os.waitpid(pid, 0)


# --- externalize and restore ----------------------------------------------------------------


def test_externalize_flips_sealed_and_changes_nothing_else(tmp_path):
    path = make_pad(tmp_path)
    before = Path(path).read_text(encoding="utf-8")
    snap = store.read(path)
    after = sealing.externalize(snap, ["nf1"])
    text = Path(path).read_text(encoding="utf-8")
    old = {e.label: e for e in snap.pad.entries}
    for e in after.pad.entries:
        if e.id == "nf1":
            assert e.sealed and {**e.raw, "sealed": False} == {**old["nf1"].raw, "sealed": False}
        else:
            assert e.raw == old[e.label].raw and e.source in before  # byte for byte
    assert json.loads(text)["x-owner"] == PAD["x-owner"]


@pytest.mark.parametrize(
    "label, problem",
    [("nope", "no entry 'nope'"), ("p1", "p1 is a plan entry"), ("#2", "#2 is a note entry")],
)
def test_externalizing_a_rewritable_or_unknown_entry_is_bad_input(tmp_path, label, problem):
    path = make_pad(tmp_path)
    before = Path(path).read_bytes()
    snap = store.read(path)
    with pytest.raises(PadError, match=problem):
        sealing.externalize(snap, ["nf1", label])
    assert Path(path).read_bytes() == before


def test_externalizing_what_is_sealed_already_writes_nothing(tmp_path):
    path = make_pad(tmp_path)
    snap = store.read(path)
    _entries, sealed, already = sealing.externalized(snap.pad, ["c1", "#0"], path)
    assert sealed == [] and already == ["c1"]
    assert sealing.externalize(snap, ["c1"]).stamp == snap.stamp


def test_restore_writes_a_version_back_exactly_and_journals_the_one_it_replaces(tmp_path, swap):
    path = make_pad(tmp_path)
    snap = store.read(path, journal=True)
    store.commit(snap, seals(snap, "nf1"))
    garbled = b'{"entries": [{"kind": "plan", "te'  # an agent broke the pad
    rename_over(path, garbled)
    restored = store.restore(path, 1)
    assert Path(path).read_bytes() == snap.data == restored.data
    j = journal(path)
    kept = j.find(garbled)
    assert kept is not None and not j.version(kept).parsed
    assert j.versions()[-1].origin == "restore"


def test_restore_refuses_versions_it_cannot_write(tmp_path):
    path = make_pad(tmp_path)
    j = journal(path)
    j.append(b"[{", "json", "seen")
    with pytest.raises(PadError, match="unreadable"):
        store.restore(path, 1)
    with pytest.raises(PadError, match="no version 7"):
        store.restore(path, 7)
    with pytest.raises(PadError, match="needs the journal"):
        store.restore(path, 1, journal=False)
