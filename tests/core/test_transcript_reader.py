"""A transcript read as it grows (``transcript.Reader``): only what was added, complete
lines only, and the same messages and compactions as a whole parse."""

from __future__ import annotations

import json
from pathlib import Path

from padtui.core.agents import transcript
from padtui.core.agents.transcript import Reader, parse


def _line(record: dict) -> str:
    return json.dumps(record) + "\n"


def _user(text: str) -> dict:
    return {"type": "user", "message": {"role": "user", "content": text}}


AGENT = {
    "type": "assistant",
    "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
}
BOUNDARY = {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": "auto"}}
SUMMARY = {**_user("Summary: never push to main."), "isCompactSummary": True}


def test_only_what_was_added_and_only_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_line(_user("never push to main")) + _line(AGENT))
    r = Reader(str(path))
    assert r.read()
    assert [m.text for m in r.transcript.messages()] == ["never push to main"]
    half = _line(BOUNDARY)
    with open(path, "a") as f:
        f.write(half[:10])  # (being written)
    assert not r.read()
    with open(path, "a") as f:
        f.write(half[10:] + _line(SUMMARY))
    assert r.read()
    [c] = r.transcript.compactions()
    assert (c.line, c.summary_line, c.trigger) == (3, 4, "auto")
    assert not r.read()  # (nothing new)


def test_the_same_compactions_and_messages_as_a_whole_parse(tmp_path: Path) -> None:
    records = [_user("a"), AGENT, BOUNDARY, AGENT, AGENT, SUMMARY, _user("b"), BOUNDARY]
    records += [AGENT] * 6 + [SUMMARY]  # (a summary too far from its boundary is none)
    lines = list(map(_line, records))
    lines.insert(3, _line(AGENT)[:20] + "\n")  # (a torn line: skipped, as parse skips it)
    data = "".join(lines) + "not json\n"
    path = tmp_path / "s.jsonl"
    path.write_text(data)
    r = Reader(str(path))
    r.read()
    whole = parse(data.encode())
    assert r.transcript.compactions() == whole.compactions()
    assert r.transcript.messages() == whole.messages()
    assert r.skipped == whole.skipped == 2


def test_a_file_cut_short_or_replaced_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_line(_user("one")) + _line(_user("two")))
    r = Reader(str(path))
    r.read()
    path.write_text(_line(_user("three")))  # (shorter: another file now)
    assert r.read()
    assert [m.text for m in r.transcript.messages()] == ["three"]
    other = tmp_path / "other.jsonl"
    other.write_text(_line(_user("four")) + _line(_user("five")) + _line(_user("six")))
    other.replace(path)  # (longer, but another file)
    r.read()
    assert [m.text for m in r.transcript.messages()] == ["four", "five", "six"]


def test_read_in_chunks_smaller_than_a_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(transcript, "CHUNK", 7)
    data = "".join(_line(_user(f"message {n}")) for n in range(20))
    path = tmp_path / "s.jsonl"
    path.write_text(data)
    r = Reader(str(path))
    r.read()
    assert [m.text for m in r.transcript.messages()] == [f"message {n}" for n in range(20)]
