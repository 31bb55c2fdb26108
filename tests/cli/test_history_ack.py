"""``history --ack N``: an alarm the user has seen stops failing ``history``; a restore of the
version before a corruption undoes it; an older padtui's journal reader passes over the new
``ack`` line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from padtui.core.history.versions import history, outstanding
from padtui.core.storage import store
from padtui.core.storage.journal import Journal
from tests.cli.test_commands import run

SAMPLES = Path(__file__).resolve().parents[2] / "sample_pads" / "transitions"


def corrupted(tmp_path: Path, name: str = "pad.json") -> Path:
    """A pad journaled as version 1, then corrupted (version 2, journaled by ``history``)."""
    pad = tmp_path / name
    shutil.copyfile(SAMPLES / "retry-5xx-before.json", pad)
    store.read(str(pad), journal=True)
    shutil.copyfile(SAMPLES / "retry-5xx-after-condense.json", pad)
    return pad


def test_history_fails_until_the_corruption_is_acknowledged(tmp_path, capsys) -> None:
    pad = corrupted(tmp_path)
    code, out, _err = run(capsys, "history", str(pad))
    assert code == 1 and "outstanding corruption: version 2" in out
    code, out, err = run(capsys, "history", str(pad), "--ack", "2")
    assert code == 0 and err == ""
    assert "acknowledged: version 2" in out and "outstanding" not in out
    code, out, _err = run(capsys, "history", str(pad), "--json")
    report = json.loads(out)
    assert code == 0 and report["acknowledged"] == [2] and report["outstanding"] == []
    assert report["versions"][1]["verdict"] == "corruption"  # still said, no longer failing
    # acknowledging it again changes nothing; the journal took one line for it
    assert run(capsys, "history", str(pad), "--ack", "2")[0] == 0
    journal = Journal.for_pad(str(pad))
    acks = [ln for ln in Path(journal.path).read_bytes().splitlines() if b'"t":"ack"' in ln]
    assert len(acks) == 1 and acks[0].startswith(b'{"t":"ack","n":2,')


def test_a_new_corruption_after_an_acknowledged_one_fails_again(tmp_path, capsys) -> None:
    pad = corrupted(tmp_path)
    assert run(capsys, "history", str(pad), "--ack", "2")[0] == 0
    shutil.copyfile(SAMPLES / "retry-5xx-before.json", pad)  # the agent puts c-retry back ...
    assert run(capsys, "history", str(pad))[0] == 0
    shutil.copyfile(SAMPLES / "retry-5xx-after-condense.json", pad)  # ... and loses it again
    code, out, _err = run(capsys, "history", str(pad))
    assert code == 1 and "outstanding corruption: version 4" in out


def test_ack_refuses_a_version_that_raised_no_alarm(tmp_path, capsys) -> None:
    pad = corrupted(tmp_path)
    for n, why in (("1", "raised no alarm (first)"), ("9", "is not in the journal")):
        code, out, err = run(capsys, "history", str(pad), "--ack", n)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and f"version {n} {why}" in err
    assert run(capsys, "history", str(pad), "--ack", "2", "--restore", "1")[0] == 2
    assert Journal.for_pad(str(pad)).acknowledged() == set()


def test_a_restore_of_the_version_before_undoes_the_corruption(tmp_path, capsys) -> None:
    pad = corrupted(tmp_path)
    assert run(capsys, "history", str(pad))[0] == 1
    assert run(capsys, "history", str(pad), "--restore", "1")[0] == 0
    code, out, _err = run(capsys, "history", str(pad), "--json")
    report = json.loads(out)
    assert code == 0 and report["outstanding"] == [] and report["acknowledged"] == []
    assert [(v["n"], v["origin"]) for v in report["versions"]] == [
        (1, "seen"),
        (2, "seen"),
        (3, "restore"),
    ]


def test_a_restore_of_an_older_version_is_the_users_own_doing(tmp_path, capsys) -> None:
    """Restoring version 1 over a pad that grew a constraint since drops that constraint: the
    audit says corruption, but the user wrote it; it is not an alarm."""
    pad = tmp_path / "pad.json"
    shutil.copyfile(SAMPLES / "retry-5xx-before.json", pad)
    store.read(str(pad), journal=True)
    doc = json.loads(pad.read_text("utf-8"))
    doc.append({"kind": "constraint", "id": "c-new", "text": "Never deploy on Fridays."})
    pad.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert run(capsys, "history", str(pad), "--restore", "1")[0] == 0
    journal = Journal.for_pad(str(pad))
    rows = history(journal)
    assert [r.verdict for r in rows] == ["first", "growth", "corruption"]
    assert outstanding(rows, journal.acknowledged()) == []
    assert run(capsys, "history", str(pad))[0] == 0


def test_an_ack_line_is_a_sound_journal_line(tmp_path) -> None:
    pad = corrupted(tmp_path)
    store.read(str(pad), journal=True)
    journal = Journal.for_pad(str(pad))
    journal.acknowledge(2)
    fresh = Journal.for_pad(str(pad))  # another process reads it from the start
    assert fresh.acknowledged() == {2} and fresh.damage() == [] and len(fresh.versions()) == 2
    line = Path(journal.path).read_bytes().splitlines()[-1]
    flipped = line.replace(b'"n":2', b'"n":3')  # a flipped byte: its CRC no longer matches
    Path(journal.path).write_bytes(Path(journal.path).read_bytes().replace(line, flipped))
    damaged = Journal.for_pad(str(pad))
    assert damaged.acknowledged() == set() and len(damaged.damage()) == 1
    assert len(damaged.versions()) == 2  # the versions are untouched


def test_after_a_restore_history_names_it_and_shows_no_placeholder(tmp_path, capsys) -> None:
    spaced = corrupted(tmp_path, "my pad.json")
    code, out, _err = run(capsys, "history", str(spaced))
    assert code == 1 and "PATH" not in out and "--restore N" not in out
    quoted = f"padtui history '{spaced}'"
    assert f"`{quoted} --ack 2` acknowledges it" in out
    assert f"`{quoted} --restore 1` writes back version 1" in out
    assert run(capsys, "history", str(spaced), "--restore", "1")[0] == 0
    code, out, _err = run(capsys, "history", str(spaced))
    restore_row = out.splitlines()[4]
    assert code == 0 and restore_row.split()[:4][0] == "3" and "restore" in restore_row
    assert "restore of version 1" in restore_row and "CONSTRAINT" not in restore_row
    assert "outstanding" not in out and "--restore" not in out  # (nothing left to suggest)


def test_a_copy_by_hand_of_the_version_before_ends_the_alarm(tmp_path, capsys) -> None:
    pad = corrupted(tmp_path)
    assert run(capsys, "history", str(pad))[0] == 1
    shutil.copyfile(SAMPLES / "retry-5xx-before.json", pad)  # the original, copied back
    code, out, _err = run(capsys, "history", str(pad), "--json")
    report = json.loads(out)
    assert code == 0 and report["outstanding"] == [] and report["acknowledged"] == []
    assert [(v["n"], v["origin"], v["verdict"]) for v in report["versions"]] == [
        (1, "seen", "first"),
        (2, "seen", "corruption"),
        (3, "seen", "growth"),
    ]


def test_a_copy_by_hand_of_another_version_leaves_the_alarm(tmp_path, capsys) -> None:
    """Only the version the corruption was audited against undoes it: a file with other
    bytes (the same pad, saved with another indent) is a new version like any other."""
    pad = corrupted(tmp_path)
    assert run(capsys, "history", str(pad))[0] == 1
    doc = json.loads((SAMPLES / "retry-5xx-before.json").read_text("utf-8"))
    pad.write_text(json.dumps(doc, indent=4), encoding="utf-8")
    code, out, _err = run(capsys, "history", str(pad))
    assert code == 1 and "outstanding corruption: version 2" in out
