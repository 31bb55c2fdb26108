"""No control character of a pad, a file name or a journal reaches the terminal from any
command, on stdout or stderr, in text or ``--json``; the commands padtui suggests are safe
to paste and do what they say; usage errors are one line."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from padtui.core import formats
from tests.cli.test_commands import run
from tests.hostile import HOSTILE, IN_NAME, SHELL_IDS, forbidden, hostile_entries, hostile_pad

BIN = Path(sys.executable).parent  # the environment's own `padtui` script is beside it


def assert_clean(out: str, err: str) -> None:
    assert forbidden(out) == [], out
    assert forbidden(err) == [], err


def rewrite(path: Path, data: bytes) -> None:
    """A file replaced by a new one (an edit in place would leave this process's cached
    reading of the journal at an offset inside a line)."""
    tmp = path.with_name(path.name + ".new")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def hostile_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """A hostile pad with a journal of two versions, then the journal's ``origin`` fields
    rewritten as hostile text (a journal is a file anyone can edit). (A hostile ``at`` is not
    a time: its line is damage, passed over; see the test below.)"""
    pad = hostile_pad(tmp_path / "pads")
    journal = tmp_path / ("journal" + IN_NAME + ".jsonl")
    code, _, err = run(capsys, "externalize", str(pad), "#8", "--journal", str(journal))
    assert code == 0, err
    lines = [json.loads(line) for line in journal.read_bytes().split(b"\n") if line]
    for rec in lines:
        if rec.get("t") == "v":
            rec["origin"] = "seen" + HOSTILE
    rewrite(journal, b"".join(json.dumps(r).encode() + b"\n" for r in lines))
    return pad, journal


def test_every_command_shows_hostile_text_without_its_controls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pad, journal = hostile_journal(tmp_path, capsys)
    new = hostile_pad(tmp_path / "new", "new" + IN_NAME + ".json")
    doc = json.loads(new.read_text(encoding="utf-8"))
    del doc["entries"][0]  # a sealed entry removed: corruption, with findings naming it
    doc["entries"][2]["text"] = "rewritten " + HOSTILE
    new.write_text(json.dumps(doc), encoding="utf-8")
    j = ("--journal", str(journal))
    commands: list[tuple[str, ...]] = [
        ("check", str(pad)),
        ("compact", str(pad)),
        ("compact", str(pad), "--write", *j),  # refused
        ("externalize", str(pad), "dup"),  # two entries have the id: an error naming them
        ("externalize", str(pad), "#4", *j),  # sealed: the line names it
        ("externalize", str(pad), "#4", *j),  # already sealed
        ("externalize", str(pad), "no" + HOSTILE),  # no such entry
        ("externalize", str(pad), "#2"),  # not a protected kind
        ("audit", str(pad), str(new)),
        ("history", str(pad), *j),
        ("history", str(pad), "--restore", "1", *j),
        ("check", str(tmp_path / ("missing" + IN_NAME + ".json"))),
        ("simulate", str(tmp_path / ("pad" + IN_NAME)), "--scenario", "retry-5xx"),
        ("check", str(pad), "--budget", HOSTILE),  # a usage error quoting the argument
    ]
    seen = set()
    for argv in commands:
        for extra in ((), ("--json",)):
            if argv[0] == "simulate" and extra:
                continue
            code, out, err = run(capsys, *argv, *extra)
            assert_clean(out, err)
            assert "Traceback" not in err
            seen.add(code)
            if extra and out:
                got = json.loads(out)  # the JSON value keeps the text exactly
                if "path" in got:
                    assert got["path"] == str(pad)
    assert seen == {0, 1, 2}

    # what the journal said is shown, cleaned
    code, out, _ = run(capsys, "history", str(pad), *j)
    assert "seen]0;pwn…" in out
    got = json.loads(run(capsys, "history", str(pad), *j, "--json")[1])
    assert {v["origin"] for v in got["versions"]} >= {"seen" + HOSTILE}


def test_a_journal_time_holding_controls_is_damage_shown_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pad, journal = hostile_journal(tmp_path, capsys)
    lines = [json.loads(line) for line in journal.read_bytes().split(b"\n") if line]
    for rec in lines:
        if rec.get("t") == "v":
            rec["at"] = "2026-01-01T00:00:00" + HOSTILE
    rewrite(journal, b"".join(json.dumps(r).encode() + b"\n" for r in lines))
    for extra in ((), ("--json",)):
        code, out, err = run(capsys, "history", str(pad), "--journal", str(journal), *extra)
        assert_clean(out, err)
        assert "Traceback" not in err and code in (0, 1)
    _, out, _ = run(capsys, "history", str(pad), "--journal", str(journal))
    assert "passed over as unreadable" in out


def test_a_journal_of_another_pad_names_its_pad_without_controls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pad, journal = hostile_journal(tmp_path, capsys)
    lines = journal.read_bytes().split(b"\n")
    header = json.loads(lines[0])
    header["pad"] = "/elsewhere/" + HOSTILE
    rewrite(journal, b"\n".join([json.dumps(header).encode(), *lines[1:]]))
    for extra in ([], ["--json"]):  # (a process of its own: a fresh reading of the journal)
        done = padtui(tmp_path, "externalize", str(pad), "#5", "--journal", str(journal), *extra)
        assert done.returncode == 2
        out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
        assert "belongs to another pad (/elsewhere/]0;pwned" in err
        assert err.count("\n") == 1
        assert_clean(out, err)


def padtui(
    tmp_path: Path, *argv: str, locale: str = "C.UTF-8"
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "LC_ALL": locale, "XDG_STATE_HOME": str(tmp_path / "state")}
    return subprocess.run(
        [str(BIN / "padtui"), *argv], capture_output=True, env=env, timeout=60, check=False
    )


@pytest.mark.parametrize("as_json", [False, True])
def test_the_bytes_written_to_a_terminal_hold_no_control(tmp_path: Path, as_json: bool) -> None:
    """The real process, its output as bytes: under the C locale Python writes a lone
    surrogate (an undecodable byte of a file name) back as that raw byte, 0x9B among them."""
    pad = hostile_pad(tmp_path)
    done = padtui(tmp_path, "check", str(pad), *(["--json"] if as_json else []), locale="C")
    assert done.returncode == 1
    for stream in (done.stdout, done.stderr):
        text = stream.decode("utf-8")  # strict: no raw byte that is not UTF-8
        assert forbidden(text) == []
    if as_json:
        assert json.loads(done.stdout)["path"] == str(pad)


# --- the way out, pasted ---------------------------------------------------------------------


def suggested(way_out: str) -> str:
    """The command a way out suggests: it ends the line, from "padtui" on."""
    return way_out[way_out.index("padtui externalize ") :]


def sealed_ids(path: Path) -> list[int]:
    pad = formats.load(str(path)).pad
    return [e.index for e in pad.entries if e.sealed]


def paste(command: str, cwd: Path, shell: str = "sh") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["XDG_STATE_HOME"] = str(cwd.parent / "state")
    return subprocess.run(
        [shell, "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("name", "shell"),
    [
        ("pad.json", "sh"),
        ("my pad's.json", "sh"),
        ("pad" + IN_NAME + ".json", "bash"),  # $'...': bash, zsh, ksh (dash reads no $'')
    ],
    ids=["plain", "quote-in-name", "controls-in-name"],
)
def test_the_way_out_pasted_into_a_shell_externalizes_what_it_names_and_runs_nothing_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, shell: str
) -> None:
    pad = hostile_pad(tmp_path / "pads", name)
    before = formats.load(str(pad)).pad
    protected = [e.index for e in before.entries if e.protected]
    out = run(capsys, "check", str(pad))[1]
    (line,) = [x for x in out.splitlines() if x.startswith("way out: ")]
    out = run(capsys, "check", str(pad), "--json")[1]
    way_out = json.loads(out)["way_out"]
    # the line a person reads is the command the JSON gives: nothing of it was cleaned away
    assert suggested(line) == suggested(way_out)
    command = suggested(way_out)

    # as a shell splits it: padtui, the command, the pad, one word per entry it names
    argv = shlex.split(command) if shell == "sh" else None
    if argv is not None:
        assert argv[:3] == ["padtui", "externalize", str(pad)]
        names = argv[3:]
        assert names == [before.name_of(before.entries[i]) for i in protected if i > 1]
        assert set(SHELL_IDS[:3]) <= set(names)  # ids a shell would act on, quoted
        assert "-rf" not in names and "dup" not in names  # named by position instead
        assert all(before.find(n) is not None for n in names)

    cwd = tmp_path / "cwd"
    cwd.mkdir()
    done = paste(command, cwd, shell)
    assert done.returncode == 0, done.stderr
    assert forbidden(done.stdout + done.stderr) == []
    assert sorted(os.listdir(cwd)) == []  # no `touch` ran: not pwned, not subst, not tick
    # every protected entry is sealed now, the id-less one and both "dup"s among them
    assert sealed_ids(pad) == protected
    after = formats.load(str(pad)).pad
    assert [e.text for e in after.entries] == [e.text for e in before.entries]


def test_a_later_entry_with_a_repeated_id_is_named_by_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries: list[dict[str, Any]] = [
        {"kind": "constraint", "id": "c-1", "sealed": True, "text": "Never push on Fridays."},
        {"kind": "constraint", "id": "c-1", "text": "Never force-push to main."},
        {"kind": "note", "id": "n", "text": "A note. " * 30},
    ]
    pad = tmp_path / "pad.json"
    pad.write_text(json.dumps({"budget_tokens": 8, "entries": entries}), encoding="utf-8")
    code, out, _ = run(capsys, "check", str(pad), "--json")
    way_out = json.loads(out)["way_out"]
    assert shlex.split(suggested(way_out)) == ["padtui", "externalize", str(pad), "#1"]
    code, out, err = run(capsys, *shlex.split(suggested(way_out))[1:])
    assert code == 0, err
    assert sealed_ids(pad) == [0, 1]
    # the id alone names two entries: an error that says so, nothing written
    pad.write_text(json.dumps({"budget_tokens": 8, "entries": entries}), encoding="utf-8")
    code, out, err = run(capsys, "externalize", str(pad), "c-1")
    assert code == 2 and "2 entries have the id 'c-1' (#0, #1)" in err
    assert sealed_ids(pad) == [0]


def test_an_id_of_the_form_of_a_position_does_not_hide_the_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [
        {"kind": "note", "id": "n", "text": "a note"},
        {"kind": "constraint", "id": "#2", "text": "Never A."},
        {"kind": "constraint", "text": "Never B."},  # its name: #2, which the id above spells
    ]
    pad = tmp_path / "pad.json"
    pad.write_text(json.dumps({"entries": entries}), encoding="utf-8")
    code, _, err = run(capsys, "externalize", str(pad), "#2")
    assert code == 0, err
    assert sealed_ids(pad) == [2]
    loaded = formats.load(str(pad)).pad
    assert loaded.name_of(loaded.entries[1]) == "#1"  # "#2" would name the other


# --- usage errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["check"],
        ["check", "p.json", "--budget", "many"],
        ["check", "p.json", "--policy", "lax"],
        ["check", "p.json", "--bogus"],
        ["--bogus"],
        ["history", "p.json", "--restore", "0"],
        ["externalize", "p.json"],
        ["audit", "a.json"],
        ["watch", "a.json", "--journal", "j", "--no-journal"],
    ],
)
def test_a_usage_error_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("padtui: error: ") and err.count("\n") == 1, err
    assert "--help" in err  # (where the usage is)


def test_a_usage_error_of_the_real_process(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "padtui"), "check", "--budget", "-3", str(tmp_path / "p.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1 and "must be >= 0" in done.stderr


def test_help_and_version_still_print(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--version")[:2] == (0, f"padtui {__import__('padtui').__version__}\n")
    code, out, _ = run(capsys, "check", "--help")
    assert code == 0 and out.startswith("usage: padtui check")


def test_hostile_entries_cover_what_the_tests_need() -> None:
    entries = hostile_entries()
    assert sum(1 for e in entries if e.get("id") == "dup") == 2
    assert any("id" not in e and e["kind"] == "negative_fact" for e in entries)
