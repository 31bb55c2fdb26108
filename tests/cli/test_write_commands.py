"""The write commands: ``compact --write``, ``externalize``, ``history [--restore N]``."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from padtui.cli import main
from padtui.core.compaction import plan as compaction
from padtui.core.storage import store
from padtui.core.storage.journal import Journal, journal_path_for

PAD = {
    "budget_tokens": 90,
    "x-owner": "agent-7",
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
        },
        {"kind": "negative_fact", "text": "The staging DB was tried; it failed.", "id": "nf1"},
    ],
}


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def _journals(tmp_path) -> list[Path]:
    """The journals in the state folder (which also holds the count cache's key)."""
    return list((tmp_path / "state").rglob("*.jsonl"))


def make_pad(tmp_path, sealed_nf1=True, name="pad.json") -> str:
    doc = json.loads(json.dumps(PAD))
    if sealed_nf1:
        doc["entries"][3]["sealed"] = True
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return str(path)


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str, path: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"padtui: error: {path}")
    assert "Traceback" not in err
    return lines[0]


# --- compact --write ----------------------------------------------------------------------


def test_compact_write_commits_the_plan(tmp_path, capsys):
    path = make_pad(tmp_path)
    os.chmod(path, 0o600)
    before = Path(path).read_bytes()
    code, out, err = run(capsys, "compact", path, "--write")
    assert code == 0 and err == ""
    assert "written:" in out and "journal: version 2" in out
    doc = json.loads(Path(path).read_text())
    assert [e.get("id") for e in doc["entries"][:3]] == ["c1", "p1", "nf1"]
    assert doc["entries"][3]["kind"] == "loss_record" and doc["entries"][3]["sealed"] is True
    assert doc["x-owner"] == "agent-7"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    j = Journal(journal_path_for(path), path)
    assert [v.origin for v in j.versions()] == ["seen", "compact"]
    assert j.data(1) == before


def test_compact_write_json_prints_one_object(tmp_path, capsys):
    path = make_pad(tmp_path)
    code, out, _ = run(capsys, "compact", path, "--write", "--json")
    report = json.loads(out)  # one object, nothing else
    assert code == 0 and report["written"] is True and report["dropped"] == ["n1"]
    assert report["journal"] == {"path": journal_path_for(path), "version": 2}


def test_a_refused_plan_is_not_written(tmp_path, capsys):
    path = make_pad(tmp_path, sealed_nf1=False)
    before = Path(path).read_bytes()
    code, out, _ = run(capsys, "compact", path, "--write", "--budget", "30")
    assert code == 1 and "PROTECTED_KIND_WOULD_DROP" in out and "nothing written" in out
    assert Path(path).read_bytes() == before
    code, out, _ = run(capsys, "compact", path, "--write", "--budget", "30", "--json")
    assert code == 1 and json.loads(out)["written"] is False
    assert Path(path).read_bytes() == before
    assert not _journals(tmp_path)


def test_a_pad_that_fits_is_not_rewritten(tmp_path, capsys):
    path = make_pad(tmp_path)
    ino = os.stat(path).st_ino
    code, out, _ = run(capsys, "compact", path, "--write", "--budget", "4000")
    assert code == 0 and "nothing written" in out
    assert os.stat(path).st_ino == ino


def _agent_writes_during_the_plan(monkeypatch, path, theirs: bytes):
    real = compaction.plan

    def plan_then_agent_writes(*args, **kwargs):
        result = real(*args, **kwargs)
        tmp = path + ".agent"
        Path(tmp).write_bytes(theirs)
        os.replace(tmp, path)
        return result

    monkeypatch.setattr(compaction, "plan", plan_then_agent_writes)


@pytest.mark.parametrize("as_json", [False, True])
def test_a_compare_and_swap_miss_is_a_clear_refusal(tmp_path, capsys, monkeypatch, as_json):
    path = make_pad(tmp_path)
    theirs = b'{"entries": [{"kind": "plan", "text": "the agent wrote this meanwhile"}]}'
    _agent_writes_during_the_plan(monkeypatch, path, theirs)
    argv = ["compact", path, "--write"] + (["--json"] if as_json else [])
    code, out, err = run(capsys, *argv)
    assert code == 1
    line = one_error_line(err, path)
    assert "changed since it was read" in line and "trial again" in line
    assert Path(path).read_bytes() == theirs
    if as_json:
        report = json.loads(out)
        assert report["written"] is False and "changed since it was read" in report["error"]
    j = Journal(journal_path_for(path), path)
    assert j.find(theirs) is not None  # the version it found is journaled as seen


def test_no_journal_and_an_explicit_journal(tmp_path, capsys):
    path = make_pad(tmp_path)
    code, out, _ = run(capsys, "compact", path, "--write", "--no-journal")
    assert code == 0 and "no journal" in out
    assert not _journals(tmp_path)
    path2 = make_pad(tmp_path, name="other.json")
    jpath = str(tmp_path / "mine.jsonl")
    code, out, _ = run(capsys, "compact", path2, "--write", "--journal", jpath)
    assert code == 0 and jpath in out
    assert len(Journal(jpath).versions()) == 2 and not _journals(tmp_path)
    code, _, err = run(capsys, "compact", path2, "--journal", jpath, "--no-journal")
    assert code == 2 and "not allowed with" in err


def test_a_symlinked_pad_is_written_through(tmp_path, capsys):
    real = tmp_path / "real"
    real.mkdir()
    target = make_pad(real)
    link = tmp_path / "pad.json"
    link.symlink_to(target)
    code, _, _ = run(capsys, "compact", str(link), "--write")
    assert code == 0 and link.is_symlink()
    assert json.loads(Path(target).read_text())["entries"][-1]["kind"] == "loss_record"


# --- externalize --------------------------------------------------------------------------


def test_externalize_seals_and_changes_nothing_else(tmp_path, capsys):
    path = make_pad(tmp_path, sealed_nf1=False)
    before = json.loads(Path(path).read_text())
    code, out, err = run(capsys, "externalize", path, "nf1")
    assert code == 0 and err == "" and "sealed nf1" in out
    after = json.loads(Path(path).read_text())
    before["entries"][3]["sealed"] = True
    assert after == before
    code, out, _ = run(capsys, "compact", path, "--write")
    assert code == 0  # now the pass can go ahead


def test_externalize_json_and_already_sealed(tmp_path, capsys):
    path = make_pad(tmp_path, sealed_nf1=False)
    code, out, _ = run(capsys, "externalize", path, "nf1", "c1", "--json")
    report = json.loads(out)
    assert code == 0 and report["sealed"] == ["nf1"] and report["already_sealed"] == ["c1"]
    assert report["written"] is True and report["journal"]["version"] == 2
    data = Path(path).read_bytes()
    code, out, _ = run(capsys, "externalize", path, "#3")
    assert code == 0 and "already sealed" in out and "nothing written" in out
    assert Path(path).read_bytes() == data


@pytest.mark.parametrize(
    "label, problem", [("p1", "p1 is a plan entry"), ("ghost", "no entry 'ghost'")]
)
def test_externalizing_a_plan_entry_or_an_unknown_id_is_bad_input(tmp_path, capsys, label, problem):
    path = make_pad(tmp_path, sealed_nf1=False)
    before = Path(path).read_bytes()
    code, out, err = run(capsys, "externalize", path, "nf1", label)
    assert code == 2 and out == ""
    assert problem in one_error_line(err, path)
    assert Path(path).read_bytes() == before


# --- history ------------------------------------------------------------------------------


def _rewrite(path, doc) -> bytes:
    data = json.dumps(doc, indent=2).encode()
    Path(path + ".tmp").write_bytes(data)
    os.replace(path + ".tmp", path)
    return data


def test_history_lists_versions_with_tokens_and_verdicts(tmp_path, capsys):
    path = make_pad(tmp_path, sealed_nf1=False)
    run(capsys, "externalize", path, "nf1")
    run(capsys, "compact", path, "--write")
    code, out, _ = run(capsys, "history", path)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith(f"history of {path}")
    rows = [line.split() for line in lines[2:]]
    assert [r[0] for r in rows] == ["1", "2", "3"]
    assert [r[3] for r in rows] == ["seen", "externalize", "compact"]
    assert rows[0][-1] == "first" and rows[2][6].startswith("compaction")
    assert lines[-1].endswith("<- on disk")
    code, out, _ = run(capsys, "history", path, "--json")
    report = json.loads(out)
    assert report["on_disk"] == 3 and report["journal"] == journal_path_for(path)
    assert [v["verdict"] for v in report["versions"]] == ["first", "growth", "compaction"]
    assert all(isinstance(v["tokens"], int) for v in report["versions"])


def test_history_finds_corruption_and_restore_writes_the_version_back(tmp_path, capsys):
    path = make_pad(tmp_path)
    code, _, _ = run(capsys, "history", path)  # the version on disk is journaled as seen
    assert code == 0
    good = Path(path).read_bytes()
    bad = json.loads(good)
    bad["entries"] = [e for e in bad["entries"] if e["id"] != "c1"]  # a sealed entry gone
    _rewrite(path, bad)
    code, out, _ = run(capsys, "history", path)
    assert code == 1 and "corruption: " in out and "SEALED_REMOVED" in out
    code, out, _ = run(capsys, "history", path, "--restore", "1")
    assert code == 0 and "restored version 1" in out
    assert Path(path).read_bytes() == good
    j = Journal(journal_path_for(path), path)
    assert [v.origin for v in j.versions()] == ["seen", "seen", "restore"]
    code, out, _ = run(capsys, "history", path, "--restore", "1", "--json")
    assert code == 0 and json.loads(out)["written"] is False  # it is on disk already


def test_restore_mends_a_garbled_pad(tmp_path, capsys):
    path = make_pad(tmp_path)
    good = Path(path).read_bytes()
    run(capsys, "history", path)
    Path(path).write_bytes(b'{"entries": [{"kind": "pl')
    code, out, _ = run(capsys, "history", path)
    assert code == 0 and "now: the file is unreadable" in out
    code, _, _ = run(capsys, "history", path, "--restore", "1")
    assert code == 0 and Path(path).read_bytes() == good
    j = Journal(journal_path_for(path), path)
    assert j.find(b'{"entries": [{"kind": "pl') is not None  # the garbled bytes are kept too


@pytest.mark.parametrize(
    "argv, problem",
    [
        (["--restore", "9"], "no version 9 in the journal"),
        (["--restore", "0"], "versions are numbered from 1"),
        (["--no-journal"], "history reads the journal"),
    ],
)
def test_history_bad_input(tmp_path, capsys, argv, problem):
    path = make_pad(tmp_path)
    run(capsys, "history", path)
    before = Path(path).read_bytes()
    code, _, err = run(capsys, "history", path, *argv)
    assert code == 2 and problem in err and "Traceback" not in err
    assert Path(path).read_bytes() == before


def test_history_of_a_missing_pad_without_a_journal_is_bad_input(tmp_path, capsys):
    missing = str(tmp_path / "nope.json")
    code, _, err = run(capsys, "history", missing)
    assert code == 2 and "no such file" in one_error_line(err, missing)


def test_history_with_an_explicit_journal(tmp_path, capsys):
    path = make_pad(tmp_path)
    jpath = str(tmp_path / "j.jsonl")
    code, out, _ = run(capsys, "history", path, "--journal", jpath, "--json")
    assert code == 0 and json.loads(out)["journal"] == jpath
    assert not _journals(tmp_path)


def test_lock_file_and_temporary_files_after_the_commands(tmp_path, capsys):
    path = make_pad(tmp_path, sealed_nf1=False)
    run(capsys, "externalize", path, "nf1")
    run(capsys, "compact", path, "--write")
    names = sorted(os.listdir(tmp_path))
    assert names == ["pad.json", "pad.json.lock", "state"]
    assert store.lock_path_for(path) == str(tmp_path / "pad.json.lock")
