"""Where commits and restores write: only the pad's own file as read, never through a link
swapped in, a lock file that cannot be aimed, names that fit, a lost pad written anew."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from padtui.core.compaction import sealing
from padtui.core.errors import PadError
from padtui.core.storage import fsio, store
from padtui.core.storage.journal import Journal, journal_path_for
from padtui.core.storage.names import NAME_MAX, fit

PAD = {
    "entries": [
        {"kind": "constraint", "text": "Never retry a write after a 5xx.", "id": "c1"},
        {"kind": "plan", "text": "Draft a fix for the flaky test.", "id": "p1"},
        {"kind": "negative_fact", "text": "The staging DB was tried; it failed.", "id": "nf1"},
    ]
}
KEYS = b"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOwner owner@host\n"


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def make_pad(folder: Path, name: str = "pad.json") -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(PAD, indent=2) + "\n")
    return str(path)


def seals(snap, *labels):
    return sealing.externalized(snap.pad, labels, snap.path)[0]


def leftovers(folder: Path) -> list[str]:
    return [n for n in os.listdir(folder) if store.TMP_TAG in n]


def stand_in(tmp_path: Path) -> Path:
    """A stand-in for ~/.ssh/authorized_keys."""
    keys = tmp_path / "ssh" / "authorized_keys"
    keys.parent.mkdir()
    keys.write_bytes(KEYS)
    return keys


def journaled_twice(path: str) -> Journal:
    """A pad with versions 1 (as made) and 2 (nf1 sealed) in its journal."""
    snap = store.read(path, journal=True)
    store.commit(snap, seals(snap, "nf1"))
    return store.journal_of(path, True)  # type: ignore[return-value]


# --- restore never writes where the pad's path did not lead -------------------------------


def test_a_symlink_swapped_in_after_the_journal_was_opened_is_refused(tmp_path):
    path = make_pad(tmp_path / "proj")
    j = journaled_twice(path)
    keys = stand_in(tmp_path)
    os.unlink(path)
    os.symlink(keys, path)
    with pytest.raises(store.WriteFailed, match=r"now leads to .*authorized_keys"):
        store.restore(path, 1, journal=j)
    assert keys.read_bytes() == KEYS


def test_a_journal_of_another_pad_is_refused_before_it_is_used(tmp_path):
    path = make_pad(tmp_path / "proj")
    j = journaled_twice(path)
    keys = stand_in(tmp_path)
    os.unlink(path)
    os.symlink(keys, path)  # the link is there before the restore opens the journal
    with pytest.raises(PadError, match="belongs to another pad"):
        store.restore(path, 1, journal=j.path)
    assert keys.read_bytes() == KEYS


def test_a_symlink_swapped_in_between_the_read_and_the_swap_is_refused(tmp_path, monkeypatch):
    path = make_pad(tmp_path / "proj")
    before = Path(path).read_bytes()
    keys = stand_in(tmp_path)
    snap = store.read(path)
    real_write_temp = fsio.write_temp

    def write_temp(place, data, like):
        out = real_write_temp(place, data, like)
        os.rename(path, path + ".moved")  # the pad's name now leads elsewhere
        os.symlink(keys, path)
        return out

    monkeypatch.setattr(fsio, "write_temp", write_temp)
    with pytest.raises(store.WriteFailed, match="now leads to"):
        store.commit(snap, seals(snap, "nf1"))
    assert keys.read_bytes() == KEYS
    assert Path(path + ".moved").read_bytes() == before
    assert leftovers(tmp_path / "proj") == []


def test_a_folder_swapped_for_a_link_between_the_read_and_the_swap_is_refused(
    tmp_path, monkeypatch
):
    path = make_pad(tmp_path / "proj")
    other = tmp_path / "other"
    make_pad(other)
    theirs = (other / "pad.json").read_bytes()
    snap = store.read(path)
    real_write_temp = fsio.write_temp

    def write_temp(place, data, like):
        out = real_write_temp(place, data, like)
        os.rename(tmp_path / "proj", tmp_path / "proj-moved")
        os.symlink(other, tmp_path / "proj")
        return out

    monkeypatch.setattr(fsio, "write_temp", write_temp)
    with pytest.raises(store.WriteFailed, match="now leads to"):
        store.commit(snap, seals(snap, "nf1"))
    assert (other / "pad.json").read_bytes() == theirs
    assert leftovers(other) == []


# --- a pad that was deleted is written anew ------------------------------------------------


def test_a_deleted_pad_is_restored_anew(tmp_path):
    path = make_pad(tmp_path)
    j = journaled_twice(path)
    wanted = j.data(1)
    os.unlink(path)
    after = store.restore(path, 1)
    assert after.created and Path(path).read_bytes() == wanted
    assert j.versions()[-1].origin == "restore"
    assert leftovers(tmp_path) == []
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~umask  # as any new file


def test_a_pad_that_appears_during_the_restore_is_not_overwritten(tmp_path, monkeypatch):
    path = make_pad(tmp_path)
    journaled_twice(path)
    os.unlink(path)
    real_write_temp = fsio.write_temp

    def write_temp(place, data, like):
        out = real_write_temp(place, data, like)
        Path(path).write_bytes(b"[]")  # an agent writes its pad anew meanwhile
        return out

    monkeypatch.setattr(fsio, "write_temp", write_temp)
    with pytest.raises(store.Conflict, match="created meanwhile"):
        store.restore(path, 1)
    assert Path(path).read_bytes() == b"[]"
    assert leftovers(tmp_path) == []


def test_a_dangling_symlink_in_the_pads_place_is_not_followed(tmp_path):
    path = make_pad(tmp_path / "proj")
    j = journaled_twice(path)
    os.unlink(path)
    target = tmp_path / "ssh" / "authorized_keys"
    target.parent.mkdir()
    os.symlink(target, path)
    with pytest.raises((store.WriteFailed, PadError)):
        store.restore(path, 1, journal=j)
    with pytest.raises((store.WriteFailed, PadError)):
        store.restore(path, 1, journal=j.path)
    assert not target.exists()


# --- the lock file -------------------------------------------------------------------------


def test_a_planted_lock_symlink_is_refused_and_its_target_never_created(tmp_path):
    path = make_pad(tmp_path)
    before = Path(path).read_bytes()
    victim = tmp_path / "nologin"
    os.symlink(victim, path + ".lock")
    snap = store.read(path)
    with pytest.raises(PadError, match="is a symbolic link"):
        store.commit(snap, seals(snap, "nf1"))
    assert not victim.exists() and Path(path).read_bytes() == before


def test_a_lock_that_is_not_a_file_is_refused(tmp_path):
    path = make_pad(tmp_path)
    os.mkfifo(path + ".lock")
    snap = store.read(path)
    with pytest.raises(PadError, match="not a regular file"):
        store.commit(snap, seals(snap, "nf1"))


def test_the_lock_file_is_0600_whatever_the_umask(tmp_path):
    path = make_pad(tmp_path)
    old = os.umask(0)
    try:
        with store.lock(path) as lock_file:
            assert stat.S_IMODE(os.stat(lock_file).st_mode) == 0o600
        os.chmod(lock_file, 0o666)  # as an older padtui left it
        with store.lock(path):
            assert stat.S_IMODE(os.stat(lock_file).st_mode) == 0o600
    finally:
        os.umask(old)


# --- names that fit ------------------------------------------------------------------------


def test_fit_keeps_short_names_and_cuts_long_ones_with_a_hash():
    assert fit("pad.json", 5) == "pad.json"
    long_a, long_b = "é" * 125 + "a.json", "é" * 125 + "b.json"
    a, b = fit(long_a, 23), fit(long_b, 23)
    assert a != b and a.startswith("é" * 100)
    assert len(os.fsencode(a)) + 23 <= NAME_MAX and len(os.fsencode(b)) + 23 <= NAME_MAX


def test_a_pad_with_a_250_byte_name_is_committed_journaled_and_restored(tmp_path):
    name = "n" * 245 + ".json"
    path = make_pad(tmp_path, name)
    j = journaled_twice(path)
    assert [v.n for v in j.versions()] == [1, 2]
    assert os.path.basename(j.path) == os.path.basename(journal_path_for(path))
    after = store.restore(path, 1)
    assert after.data == j.data(1) == Path(path).read_bytes()
    names = os.listdir(tmp_path) + os.listdir(os.path.dirname(j.path))
    assert all(len(os.fsencode(n)) <= NAME_MAX for n in names)
    assert os.path.exists(store.lock_path_for(path)) and leftovers(tmp_path) == []
    os.unlink(path)
    assert store.restore(path, 2).created
