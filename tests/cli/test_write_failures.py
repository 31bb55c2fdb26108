"""Writes that cannot be made (a full disk, a read-only pad, a pad whose path was re-aimed)
are one line and exit 2, with the pad as it was; a lost pad can be restored."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from padtui.core.storage import fsio, store
from padtui.core.storage.journal import Journal, journal_path_for
from tests.cli.test_write_commands import one_error_line, run

PAD = {
    "budget_tokens": 90,
    "entries": [
        {
            "kind": "constraint",
            "text": "Never retry a write after a 5xx.",
            "id": "c1",
            "sealed": True,
        },
        {"kind": "plan", "text": "Read the ticket, then draft a fix.", "id": "p1"},
        {"kind": "note", "text": "A long note that rambles on about things, " * 6, "id": "n1"},
        {"kind": "negative_fact", "text": "The staging DB was tried; it failed.", "id": "nf1"},
    ],
}
SEALED_NF1 = {
    **PAD,
    "entries": [
        {**e, "sealed": True} if e["id"] == "nf1" else e
        for e in PAD["entries"]  # type: ignore[attr-defined]
    ],
}


def make_pad(folder: Path, name: str = "pad.json", doc=PAD) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return str(path)


def leftovers(folder: Path) -> list[str]:
    return [n for n in os.listdir(folder) if store.TMP_TAG in n]


def _fd_name(fd: int) -> str:
    return os.readlink(f"/proc/self/fd/{fd}")


def _fail_on(monkeypatch, where: str) -> None:
    """A full disk (or a failing device) at one point of a commit."""
    real_write, real_fsync, real_exchange = os.write, os.fsync, fsio.exchange
    enospc = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def write(fd, data):
        name = _fd_name(fd)
        if where == "temp write" and store.TMP_TAG in name:
            real_write(fd, bytes(data)[: len(data) // 2])  # part of it, then the disk is full
            raise enospc
        if where == "journal" and name.endswith(".jsonl"):
            raise enospc
        return real_write(fd, data)

    def fsync(fd):
        if where == "temp fsync" and store.TMP_TAG in _fd_name(fd):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_fsync(fd)

    def exchange(a, b, dir_fd=None):
        if where == "swap":
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_exchange(a, b, dir_fd)

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(fsio, "exchange", exchange)
    monkeypatch.setattr(fsio, "USE_EXCHANGE", True)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
@pytest.mark.parametrize("where", ["temp write", "temp fsync", "journal", "swap"])
@pytest.mark.parametrize("command", [["compact", "--write"], ["externalize", "nf1"]])
def test_a_full_disk_during_a_commit_is_one_line_and_loses_nothing(
    tmp_path, capsys, monkeypatch, where, command
):
    if where == "swap" and not fsio.renameat2():
        pytest.skip("renameat2 is not available here")
    path = make_pad(tmp_path, doc=SEALED_NF1 if command[0] == "compact" else PAD)
    before = Path(path).read_bytes()
    _fail_on(monkeypatch, where)
    code, _, err = run(capsys, command[0], path, *command[1:])
    line = one_error_line(err, path if where != "journal" else journal_path_for(path))
    assert code == 2
    assert ("No space left on device" in line) or ("Input/output error" in line)
    assert Path(path).read_bytes() == before
    assert leftovers(tmp_path) == []


def test_a_read_only_pad_is_not_replaced(tmp_path, capsys):
    path = make_pad(tmp_path, doc=SEALED_NF1)
    before = Path(path).read_bytes()
    os.chmod(path, 0o444)
    code, _, err = run(capsys, "compact", path, "--write")
    assert code == 2 and "read-only for you (mode 0444)" in one_error_line(err, path)
    assert Path(path).read_bytes() == before and leftovers(tmp_path) == []
    os.chmod(path, 0o644)
    code, _, _ = run(capsys, "compact", path, "--write")
    assert code == 0 and Path(path).read_bytes() != before


def test_restore_through_a_symlink_to_another_file_is_refused(tmp_path, capsys):
    proj = tmp_path / "proj"
    path = make_pad(proj)
    jpath = str(tmp_path / "j.jsonl")
    assert run(capsys, "history", path, "--journal", jpath)[0] == 0
    keys = tmp_path / "ssh" / "authorized_keys"
    keys.parent.mkdir()
    keys.write_text("ssh-ed25519 AAAA owner@host\n")
    os.unlink(path)
    os.symlink(keys, path)
    code, _, err = run(capsys, "history", path, "--restore", "1", "--journal", jpath)
    assert code == 2 and "belongs to another pad" in one_error_line(err, jpath)
    assert keys.read_text() == "ssh-ed25519 AAAA owner@host\n"


def test_a_deleted_pad_is_restored_anew(tmp_path, capsys):
    path = make_pad(tmp_path)
    before = Path(path).read_bytes()
    run(capsys, "history", path)
    os.unlink(path)
    code, out, _ = run(capsys, "history", path, "--restore", "1")
    assert code == 0 and "did not exist; written anew as version 1" in out
    assert Path(path).read_bytes() == before
    os.unlink(path)
    code, out, _ = run(capsys, "history", path, "--restore", "1", "--json")
    report = json.loads(out)
    assert code == 0 and report["created"] is True and report["written"] is True


def test_a_pad_with_a_250_byte_name_is_committed_and_restored(tmp_path, capsys):
    path = make_pad(tmp_path, "p" * 245 + ".json", SEALED_NF1)
    before = Path(path).read_bytes()
    code, _, err = run(capsys, "compact", path, "--write")
    assert code == 0, err
    code, out, err = run(capsys, "history", path, "--restore", "1")
    assert code == 0 and "restored version 1" in out, err
    assert Path(path).read_bytes() == before
    assert [v.origin for v in Journal(journal_path_for(path), path).versions()] == [
        "seen",
        "compact",
        "restore",
    ]
