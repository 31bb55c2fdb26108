"""The version journal (the README's "Safe writes and the journal"): content-addressed, byte-exact,
torn-line tolerant."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from padtui.core.counting.tokens import counter_for
from padtui.core.errors import PadError
from padtui.core.formats import parse
from padtui.core.history.versions import history
from padtui.core.storage.journal import Journal, _cut_text, journal_path_for, state_dir


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def _journal(tmp_path, name="pad.json") -> Journal:
    return Journal(str(tmp_path / "j.jsonl"), str(tmp_path / name))


def _append(j: Journal, data: bytes, fmt="json", origin="seen") -> int:
    return j.append(data, fmt, origin)


def _lines(j: Journal) -> list[dict]:
    with open(j.path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


LAYOUTS = {
    "object": (
        "json",
        '{\n  "budget_tokens": 300,\n  "encoding": "cl100k_base",\n  "x-owner": {"a": [1, 2]},\n'
        '  "entries": [\n    {"kind": "constraint", "text": "Never call billing.", "sealed": true,'
        ' "id": "c1", "x": 1},\n    {"kind": "plan", "text": "Step one.", "id": "p1"}\n  ]\n}\n',
    ),
    "bare array, odd white space": (
        "json",
        '[ {"kind":"note","text":"a"} ,\n\n\t{"kind":"note","text":"b"}\t, {"kind":"note",'
        '"text":"a"} ]',
    ),
    "empty": ("json", "[]\n"),
    "memory export": (
        "json",
        '{"memories": [{"id": "m1", "memory": "likes tea"}, "plain"], "budget_tokens": 5}',
    ),
    "rule headings": (
        "json",
        '{"rule_headings": ["House rules"], "rule_headings_replace": true, "entries": []}',
    ),
    "pretty entries": (
        "json",
        json.dumps({"entries": [{"kind": "plan", "text": "é ünïcode ✓", "id": "p"}] * 2}, indent=4),
    ),
    "bom": ("json", '\ufeff[{"kind": "note", "text": "bom"}]\n'),
    "ascii escapes": ("json", '[{"kind": "note", "text": "caf\\u00e9"}]'),
    "jsonl crlf": (
        "jsonl",
        '{"kind": "note", "text": "one"}\r\n\r\n{"kind": "plan", "text": "two"}\r\n',
    ),
    "jsonl open end": ("jsonl", '{"kind": "note", "text": "one"}\n{"kind": "note", "text": "x"}'),
}


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_a_version_comes_back_byte_for_byte(tmp_path, name):
    fmt, text = LAYOUTS[name]
    data = text.encode("utf-8")
    j = _journal(tmp_path, "pad." + fmt)
    n = _append(j, data, fmt)
    assert j.data(n) == data
    assert j.version(n).parsed
    # and from a fresh reader of the same file
    again = Journal(j.path, str(tmp_path / ("pad." + fmt)))
    assert again.data(n) == data
    assert again.pad_file(n).pad == parse("x." + fmt, data, fmt).pad


_entry = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["constraint", "note", "plan", "loss_record"]),
        "text": st.text(min_size=0, max_size=40),
    },
    optional={"sealed": st.booleans(), "id": st.text(max_size=5), "extra": st.integers()},
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    versions=st.lists(st.lists(_entry, max_size=6), min_size=1, max_size=5),
    indent=st.sampled_from([None, 0, 1, 2, "\t"]),
    ascii_=st.booleans(),
    wrap=st.booleans(),
)
def test_any_sequence_of_versions_rebuilds_exactly(tmp_path, versions, indent, ascii_, wrap):
    j = Journal(str(tmp_path / f"j{os.urandom(4).hex()}.jsonl"), str(tmp_path / "pad.json"))
    written = []
    for entries in versions:
        doc = {"budget_tokens": 100, "entries": entries} if wrap else entries
        data = json.dumps(doc, indent=indent, ensure_ascii=ascii_).encode("utf-8")
        written.append((j.append(data, "json", "seen"), data))
    for n, data in written:
        assert j.data(n) == data


def test_an_unchanged_entry_costs_nothing_twice(tmp_path):
    j = _journal(tmp_path)
    entries = [{"kind": "note", "text": f"note number {i}", "id": f"n{i}"} for i in range(20)]
    _append(j, json.dumps(entries, indent=2).encode())
    before = len(_lines(j))
    entries[7] = {**entries[7], "text": "changed"}
    _append(j, json.dumps(entries, indent=2).encode())
    new = _lines(j)[before:]
    blobs = [r for r in new if r["t"] == "b"]
    assert len(blobs) == 1 and "changed" in blobs[0]["s"]
    version = new[-1]
    assert version["t"] == "v"
    assert version.get("mid") == [blobs[0]["h"]]  # coded against the previous version


def test_the_same_bytes_are_not_journaled_twice_in_a_row(tmp_path):
    j = _journal(tmp_path)
    data = b'[{"kind": "note", "text": "x"}]'
    assert _append(j, data) == 1
    assert _append(j, data) == 1
    assert _append(j, b"[]") == 2
    assert _append(j, data) == 3  # a version that comes back is a new point in time
    assert [v.n for v in j.versions()] == [1, 2, 3]


def test_bytes_another_writer_journaled_after_the_version_seen_before_are_not_journaled_again(
    tmp_path,
):
    """The inspector journals a version once it is on screen; a restore from the command line
    may have journaled it meanwhile (the version it replaced), then the restore. Journaled
    again, it would follow the restore: the journal gives the number it has instead."""
    j = _journal(tmp_path)
    one, two = b'[{"kind": "note", "text": "one"}]', b'[{"kind": "note", "text": "two"}]'
    seen_before = _append(j, one)  # (the inspector's)
    other = Journal(j.path, str(tmp_path / "pad.json"))  # the command line's
    assert other.append(two, "json", "seen") == 2
    assert other.append(one, "json", "restore") == 3
    assert j.append(two, "json", "seen", since=seen_before) == 2
    assert [(v.n, v.origin) for v in Journal(j.path).versions()] == [
        (1, "seen"),
        (2, "seen"),
        (3, "restore"),
    ]
    # seen after the restore, the same bytes are a new point in time (as without since),
    # and so are the bytes of the version seen before (a write that came back to them)
    assert j.append(two, "json", "seen", since=3) == 4
    assert j.append(one, "json", "seen", since=4) == 5
    assert j.append(two, "json", "seen", since=4) == 6


def _big_pad(changed: int, version: int) -> bytes:
    entries = [
        {
            "kind": "note" if i % 4 else "constraint",
            "id": f"e{i}",
            "text": f"Entry {i} keeps a handful of words about the task at hand, "
            f"so that it costs some forty tokens in all; it was revision "
            f"{version if i == changed else 0} of this entry, written by the agent in its loop.",
        }
        for i in range(100)
    ]
    return json.dumps({"budget_tokens": 4000, "entries": entries}, indent=2).encode()


def test_a_thousand_versions_of_a_4k_token_pad_stay_small(tmp_path):
    first = _big_pad(0, 0)
    pad = parse("pad.json", first).pad
    assert sum(counter_for().count_many(e.text for e in pad.entries)) >= 4000
    j = _journal(tmp_path)
    kept = {}
    for v in range(1000):
        data = _big_pad(v % 100, v + 1)
        n = _append(j, data)
        if v % 97 == 0 or v == 999:
            kept[n] = data
    size = os.path.getsize(j.path)
    assert size < 1_500_000, size  # the bar is 5 MB; this format needs about 1 MB
    fresh = Journal(j.path, str(tmp_path / "pad.json"))
    assert len(fresh.versions()) == 1000
    for n, data in kept.items():
        assert fresh.data(n) == data


def test_a_torn_last_line_is_tolerated_and_cut_before_the_next_append(tmp_path):
    j = _journal(tmp_path)
    _append(j, b'[{"kind": "note", "text": "one"}]')
    _append(j, b'[{"kind": "note", "text": "two"}]')
    with open(j.path, "ab") as f:
        f.write(b'{"t":"b","h":"abc","s":"half a li')  # a crashed append
    reader = Journal(j.path, str(tmp_path / "pad.json"))
    assert [v.n for v in reader.versions()] == [1, 2]
    assert reader.data(2) == b'[{"kind": "note", "text": "two"}]'
    assert _append(reader, b'[{"kind": "note", "text": "three"}]') == 3
    lines = Path(j.path).read_bytes().split(b"\n")
    assert lines[-1] == b""
    for line in lines[:-1]:
        json.loads(line)  # every line whole again
    assert Journal(j.path).data(3) == b'[{"kind": "note", "text": "three"}]'


def test_a_damaged_line_inside_the_journal_is_passed_over(tmp_path):
    j = _journal(tmp_path)
    _append(j, b"[]")
    with open(j.path, "ab") as f:
        f.write(b"this is not json\n")
    with open(j.path, "ab") as f:
        f.write(b'{"t":"b","h":"x","s":"y"}\n')
    reader = Journal(j.path)
    assert reader.data(1) == b"[]"
    assert reader.damage() == [(3, "its CRC is missing"), (4, "its CRC is missing")]
    assert _append(reader, b"[ ]") == 2
    assert Journal(j.path).data(2) == b"[ ]"


def test_a_version_that_did_not_parse_is_kept_whole(tmp_path):
    j = _journal(tmp_path)
    torn = b'{"entries": [{"kind": "note", "te'
    n = _append(j, torn)
    assert not j.version(n).parsed
    assert j.data(n) == torn
    with pytest.raises(PadError, match="unreadable"):
        j.pad_file(n)
    binary = b"\xff\xfe\x00garbage"
    assert j.data(_append(j, binary)) == binary


def test_default_location_follows_xdg_state_home_and_the_real_path(tmp_path, monkeypatch):
    pad = tmp_path / "work" / "pad.json"
    pad.parent.mkdir()
    pad.write_text("[]")
    link = tmp_path / "link.json"
    link.symlink_to(pad)
    path = journal_path_for(str(pad))
    assert path.startswith(str(tmp_path / "state" / "padtui") + os.sep)
    assert os.path.basename(path).startswith("pad.json.") and path.endswith(".jsonl")
    assert journal_path_for(str(link)) == path  # one journal per pad, whatever its name
    other = tmp_path / "elsewhere" / "pad.json"
    assert journal_path_for(str(other)) != path
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert state_dir() == str(tmp_path / "home" / ".local" / "state" / "padtui")
    monkeypatch.setenv("XDG_STATE_HOME", "relative/is/ignored")
    assert state_dir() == str(tmp_path / "home" / ".local" / "state" / "padtui")


def test_a_journal_of_another_pad_is_refused(tmp_path):
    j = Journal(str(tmp_path / "j.jsonl"), str(tmp_path / "a.json"))
    _append(j, b"[]")
    other = Journal(str(tmp_path / "j.jsonl"), str(tmp_path / "b.json"))
    with pytest.raises(PadError, match="belongs to another pad"):
        _append(other, b"[]")


def test_an_unwritable_journal_is_a_one_line_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    j = Journal(str(blocker / "j.jsonl"), str(tmp_path / "pad.json"))
    with pytest.raises(PadError, match="cannot write the journal"):
        _append(j, b"[]")


APPENDER = """
import sys
from padtui.core.storage.journal import Journal
j = Journal(sys.argv[1], sys.argv[2])
for i in range(int(sys.argv[4])):
    j.append(('[{"kind": "note", "text": "%s %d"}]' % (sys.argv[3], i)).encode(), "json", "seen")
"""


def test_two_processes_appending_at_once_lose_nothing(tmp_path):
    jpath, pad = str(tmp_path / "j.jsonl"), str(tmp_path / "pad.json")
    procs = [
        subprocess.Popen([sys.executable, "-c", APPENDER, jpath, pad, name, "40"])
        for name in ("left", "right")
    ]
    for p in procs:
        assert p.wait(timeout=60) == 0
    j = Journal(jpath, pad)
    versions = j.versions()
    assert [v.n for v in versions] == list(range(1, 81))
    texts = {j.pad_file(v.n).pad.entries[0].text for v in versions}
    assert texts == {f"{name} {i}" for name in ("left", "right") for i in range(40)}


def test_history_gives_tokens_and_the_verdict_of_each_transition(tmp_path):
    j = _journal(tmp_path)
    c = {"kind": "constraint", "id": "c1", "text": "Never retry a write after a 5xx."}
    p = {"kind": "plan", "id": "p1", "text": "Call the API."}
    _append(j, json.dumps([c]).encode())
    _append(j, json.dumps([c, p]).encode())
    _append(j, json.dumps([p]).encode())  # the constraint is gone, undeclared
    _append(j, b"[{")  # torn
    _append(j, json.dumps([p, c]).encode())  # after a torn version: against the last good one
    seen: list[int] = []
    rows = history(j, on_version=lambda: seen.append(len(seen)))
    assert seen == [0, 1, 2, 3, 4]  # told of each version as it is read
    assert [r.verdict for r in rows] == ["first", "growth", "corruption", "unreadable", "growth"]
    assert rows[4].previous == 3
    assert rows[2].previous == 2
    assert "CONSTRAINT_DROPPED" in rows[2].audit.codes
    counter = counter_for()
    assert rows[1].tokens == counter.count(c["text"]) + counter.count(p["text"])
    assert rows[3].tokens is None
    out = rows[2].as_json()
    assert out["verdict"] == "corruption" and out["against"] == 2


_few_texts = st.sampled_from(["a", "b", "a b", "- a", "## a", "a,b", "a\nb"])


def _written(fmt: str, texts: list[str], gap: str) -> tuple[str, bytes]:
    """A pad of ``texts`` (notes) in ``fmt``, its entries apart by ``gap`` where the format
    lets white space vary."""
    if fmt == "json":
        items = [{"kind": "note", "text": t} for t in texts]
        return "pad.json", json.dumps(items, indent=1).replace("},", "}" + gap + ",").encode()
    if fmt == "jsonl":
        lines = [json.dumps({"kind": "note", "text": t}) for t in texts]
        return "pad.jsonl", ("\n" + gap.strip(" ")).join(lines).encode() + b"\n"
    bullets = "".join(f"- {t.replace(chr(10), ' ')}\n" + gap.strip(" ,") for t in texts)
    return "pad.md", ("## Notes\n\n" + bullets).encode()


@settings(max_examples=400, deadline=None)
@given(
    fmt=st.sampled_from(["json", "jsonl", "md"]),
    versions=st.lists(
        st.tuples(st.lists(_few_texts, min_size=1, max_size=8), st.sampled_from(["", " ", "\n"])),
        min_size=2,
        max_size=4,
    ),
    keep=st.integers(0, 8),
)
def test_a_version_is_cut_from_the_cut_before_it_as_it_is_cut_alone(
    fmt: str, versions: list[tuple[list[str], str]], keep: int
) -> None:
    """The journal cuts a version at its entries' sources from the cut of the version before
    (what the two texts share at their start and end is not searched again): the glue, the
    sources and where they end must be what cutting it alone gives."""
    last = None
    previous = None
    texts: list[str] = []
    for new, gap in versions:
        texts = texts[: keep % (len(texts) + 1)] + new  # (a change after a shared start)
        name, data = _written(fmt, texts, gap)
        pf = parse(name, data, previous=previous)
        alone = _cut_text(pf, data)
        got = _cut_text(pf, data, last)
        if alone is None:
            assert got is None
        else:
            assert got is not None
            assert (got.glue, got.sources, got.ends) == (alone.glue, alone.sources, alone.ends)
        last, previous = got or last, pf
