"""A damaged or crafted journal through the commands: ``history``, ``history --restore N``,
``compact --write`` and ``replay`` give the versions that remain, one line for what is lost,
and never a traceback."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from padtui.core.storage import store
from padtui.core.storage.journal import Journal, journal_path_for
from padtui.tui.replay import ReplayApp
from tests.cli.test_write_commands import make_pad, one_error_line, run


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def _crc(rec: dict) -> bytes:
    body = json.dumps(rec, separators=(",", ":")).encode()
    return body[:-1] + b',"c":"%08x"}' % zlib.crc32(body)


def journaled(tmp_path, capsys, count: int = 4) -> tuple[str, list[bytes]]:
    """A pad seen in ``count`` versions (a note grows each time)."""
    path = make_pad(tmp_path)
    seen = []
    for k in range(count):
        doc = json.loads(Path(path).read_text())
        doc["entries"][2]["text"] += f" more {k}."
        Path(path).write_text(json.dumps(doc, indent=2) + "\n")
        assert run(capsys, "history", path)[0] in (0, 1)
        seen.append(Path(path).read_bytes())
    return path, seen


def damage(journal: str, lines: list[bytes]) -> None:
    """Rewrite the journal in place (as a disk or a person would, under a new process: the
    journals this process has open are forgotten)."""
    Path(journal).write_bytes(b"\n".join(lines))
    store.JOURNALS.forget()


def version_line(journal: str, n: int) -> int:
    lines = Path(journal).read_bytes().split(b"\n")
    return next(i for i, line in enumerate(lines) if line.startswith(b'{"t":"v","n":%d,' % n))


CRAFTED = [
    b'{"t":"v","n":1e999,"at":"x"}',
    b"[" * 100_000 + b"]" * 100_000,
    _crc(
        {
            "t": "v",
            "n": 90,
            "at": "2026-01-01T00:00:00Z",
            "ns": 1,
            "origin": "seen",
            "sha": "0" * 64,
            "size": 2,
            "fmt": "json",
            "glue": [["L", "x", 10**12]],
            "list": [],
        }
    ),
    _crc(
        {
            "t": "v",
            "n": 91,
            "at": "not a time",
            "ns": 1,
            "origin": "seen",
            "sha": "0" * 64,
            "size": 2,
            "fmt": "json",
            "raw": "0" * 20,
        }
    ),
    _crc({"t": "v", "n": [1], "at": {}, "glue": "no"}),
]


def test_history_and_restore_on_a_journal_damaged_in_the_middle(tmp_path, capsys):
    path, seen = journaled(tmp_path, capsys)
    journal = journal_path_for(path)
    lines = Path(journal).read_bytes().split(b"\n")
    at = version_line(journal, 3)
    lines[at] = lines[at].replace(b'"origin":"seen"', b'"origin":"seeN"')  # one byte
    lines[at:at] = CRAFTED
    damage(journal, lines)

    code, out, err = run(capsys, "history", path)
    assert code in (0, 1) and err == ""
    assert "damaged journal: lines" in out and "versions lost: 3" in out
    shown = [line.split()[0] for line in out.splitlines()[2:] if line.split()[0].isdigit()]
    assert {"1", "2"} <= set(shown) and "3" not in shown

    code, _out, err = run(capsys, "history", path, "--restore", "3")
    line = one_error_line(err, journal)
    assert code == 2 and "version 3 is lost: its line" in line

    code, out, err = run(capsys, "history", path, "--restore", "1")
    assert code == 0 and Path(path).read_bytes() == seen[0]

    code, _out, err = run(capsys, "history", path, "--json")
    report = json.loads(_out)
    assert 3 in report["lost_versions"] and report["damaged_lines"]


def test_compact_write_is_not_blocked_by_a_damaged_middle_line(tmp_path, capsys):
    path, _seen = journaled(tmp_path, capsys, 3)
    journal = journal_path_for(path)
    lines = Path(journal).read_bytes().split(b"\n")
    lines[version_line(journal, 2)] = b'{"t":"v","n":2,"at":"now", garbage'
    damage(journal, lines)
    code, out, err = run(capsys, "compact", path, "--write")
    assert code == 0 and err == "" and "written:" in out
    j = Journal(journal, path)
    assert j.data(j.versions()[-1].n) == Path(path).read_bytes()
    assert j.versions()[-1].n > 3  # the lost version's number is not given again


async def test_replay_of_a_crafted_journal_shows_the_versions_that_remain(tmp_path, capsys):
    path, seen = journaled(tmp_path, capsys, 3)
    journal = journal_path_for(path)
    with open(journal, "ab") as f:
        f.write(b"\n".join(CRAFTED) + b"\n")
    replay = ReplayApp(Journal(journal, path))
    async with replay.run_test(size=(120, 40)) as pilot:
        await replay.ready.wait()
        await pilot.pause()
        assert len(replay.recorded) == 3
        assert replay.recorded[-1].pad_file.data == seen[-1]


async def test_replay_of_a_journal_whose_every_version_is_lost_says_so(tmp_path, capsys):
    path, _seen = journaled(tmp_path, capsys, 2)
    journal = journal_path_for(path)
    lines = Path(journal).read_bytes().split(b"\n")
    for n in (1, 2):
        lines[version_line(journal, n)] = b'{"t":"v","n":%d,"at":"not a time"}' % n
    damage(journal, lines)
    code, _out, err = run(capsys, "replay", journal)
    assert code == 2 and "holds no version" in one_error_line(err, journal)
    replay = ReplayApp(Journal(journal, path))  # the app itself, should it be handed one
    async with replay.run_test(size=(80, 24)) as pilot:
        await replay.ready.wait()
        for key in ("comma", "full_stop", "h", "escape"):
            await pilot.press(key)
        await pilot.pause()
        assert replay.recorded == [] and replay.is_running
