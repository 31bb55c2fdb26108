"""A count cache padtui did not write: forged, a FIFO, a symlink out of the cache folder, a
folder that cannot be written. It may cost time, never a hang, a line of output, a verdict
or a refusal."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import subprocess
import sys
from array import array
from pathlib import Path

import pytest

from padtui.core.counting import countcache
from tests.cli.test_commands import SAMPLES

PAD = SAMPLES / "retry-5xx-under-pressure.json"  # over its own budget
MAGIC = b"padtui-counts\n"


@pytest.fixture
def pad(tmp_path: Path) -> Path:
    return Path(shutil.copy(PAD, tmp_path / "pad.json"))


def _check(tmp_path: Path, pad: Path, *more: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    return subprocess.run(
        [sys.executable, "-m", "padtui", "check", str(pad), "--json", *more],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,  # (a cache file read that waits on a FIFO fails here)
    )


def _report(done: subprocess.CompletedProcess[str]) -> dict[str, object]:
    report: dict[str, object] = json.loads(done.stdout)
    report.pop("loss_record", None)  # (its stamp changes between runs)
    return report


def _cache_file(tmp_path: Path, pad: Path) -> Path:
    return tmp_path / "cache" / "padtui" / countcache.file_name(str(pad), "cl100k_base")


def test_a_forged_cache_never_changes_the_verdict(tmp_path: Path, pad: Path) -> None:
    """Every count forged to 1, the file's unkeyed checksum made again: a pad over its
    budget would then fit."""
    honest = _check(tmp_path, pad, "--no-cache")
    assert _report(honest)["verdict"] == "refused"  # (over budget: forged counts would fit)
    assert _report(_check(tmp_path, pad)) == _report(honest)  # (the cache written)
    cached = _cache_file(tmp_path, pad)
    body = cached.read_bytes()[:-32]
    end = body.index(b"\n", len(MAGIC))
    n = json.loads(body[len(MAGIC) : end])["n"]
    at = end + 1 + n * 16
    ones = array("I", [1] * n).tobytes()
    forged = body[:at] + ones + body[at + 4 * n :]
    cached.write_bytes(forged + hashlib.blake2b(forged, digest_size=32).digest())
    again = _check(tmp_path, pad)
    assert again.returncode == honest.returncode and again.stderr == ""
    assert _report(again) == _report(honest)


def test_the_key_is_private_and_outside_the_cache_folder(tmp_path: Path, pad: Path) -> None:
    _check(tmp_path, pad)
    key = tmp_path / "state" / "padtui" / countcache.KEY_FILE
    assert key.stat().st_mode & 0o777 == 0o600 and key.stat().st_size == 32
    assert not list((tmp_path / "cache").rglob(countcache.KEY_FILE))
    # a key others may read is not trusted: no cache is read or written, the counts are right
    key.chmod(0o644)
    shutil.rmtree(tmp_path / "cache")
    done = _check(tmp_path, pad)
    assert done.stderr == "" and _report(done) == _report(_check(tmp_path, pad, "--no-cache"))
    assert not _cache_file(tmp_path, pad).exists()


def test_a_fifo_in_place_of_the_cache_file_is_passed_over(tmp_path: Path, pad: Path) -> None:
    honest = _check(tmp_path, pad, "--no-cache")
    cached = _cache_file(tmp_path, pad)
    cached.parent.mkdir(parents=True)
    os.mkfifo(cached)
    done = _check(tmp_path, pad)
    assert done.stderr == "" and _report(done) == _report(honest)


def test_a_symlink_out_of_the_cache_folder_is_not_followed(tmp_path: Path, pad: Path) -> None:
    honest = _check(tmp_path, pad, "--no-cache")
    elsewhere = tmp_path / "elsewhere"
    _check(tmp_path, pad)
    cached = _cache_file(tmp_path, pad)
    cached.rename(elsewhere)  # a good file, but not in the cache folder
    cached.symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    (tmp_path / "cache" / "padtui").chmod(0o700)
    done = _check(tmp_path, pad)
    assert done.stderr == "" and _report(done) == _report(honest)
    assert elsewhere.read_bytes() == before  # (never written through)


def test_a_cache_folder_that_cannot_be_written_costs_no_line(tmp_path: Path, pad: Path) -> None:
    honest = _check(tmp_path, pad, "--no-cache")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "padtui").write_text("not a folder")
    done = _check(tmp_path, pad)
    assert done.returncode == honest.returncode and done.stderr == ""
    assert _report(done) == _report(honest)


def test_a_full_disk_under_the_cache_costs_no_line(
    tmp_path: Path, pad: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from padtui.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["check", str(pad), "--json", "--no-cache"]) == 1
    honest = json.loads(capsys.readouterr().out)

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(countcache, "_write_all", full)
    assert main(["check", str(pad), "--json"]) == 1
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out)["verdict"] == honest["verdict"]
    assert json.loads(out)["tokens"] == honest["tokens"]
    assert not [p for p in (tmp_path / "cache" / "padtui").iterdir() if p.suffix == ".tmp"]
