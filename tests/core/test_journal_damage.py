"""A damaged journal loses only the damaged versions: a flipped byte, a cut, a crafted, deleted
or repeated line costs the versions on that line and those built from it (coded against it,
or made of its blob); every other version comes back byte for byte, and appends go on."""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from padtui.core.errors import PadError
from padtui.core.history.versions import history
from padtui.core.storage import journal as journal_module
from padtui.core.storage.journal import Journal


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def _pad_versions(count: int) -> list[bytes]:
    """A pad rewritten ``count`` times: entries added, changed, dropped; one torn read."""
    entries = [{"kind": "note", "id": f"n{i}", "text": f"note {i} " + "x" * 70} for i in range(8)]
    out = []
    for k in range(count):
        if k == 4:
            out.append(b'{"entries": [{"kind": "no')  # a torn read, kept whole
            continue
        if k % 3 == 0:
            entries.append({"kind": "plan", "id": f"p{k}", "text": f"step {k}"})
        elif k % 3 == 1:
            entries[k % len(entries)] = {"kind": "note", "id": f"c{k}", "text": f"changed {k}"}
        else:
            del entries[k % len(entries)]
        doc = {"budget_tokens": 500, "entries": entries}
        out.append(json.dumps(doc, indent=2 if k % 2 else None).encode())
    return out


@dataclass
class Built:
    path: Path
    lines: list[bytes]  # without their newlines
    data: dict[int, bytes]  # version -> its bytes
    needs: dict[int, set[int]]  # version -> the line indices it is rebuilt from


def build(tmp_path: Path, count: int = 14) -> Built:
    path = tmp_path / f"j{os.urandom(4).hex()}.jsonl"
    j = Journal(str(path), str(tmp_path / "pad.json"))
    data = {j.append(v, "json", "seen"): v for v in _pad_versions(count)}
    lines = path.read_bytes().split(b"\n")[:-1]
    blob_line: dict[str, int] = {}
    needs: dict[int, set[int]] = {}
    for i, line in enumerate(lines):
        rec = json.loads(line)
        if rec["t"] == "b":
            blob_line.setdefault(rec["h"], i)
        elif rec["t"] == "v":
            n, need = rec["n"], {i}
            if "raw" in rec:
                need.add(blob_line[rec["raw"]])
            else:
                if "base" in rec:
                    need |= needs[rec["base"]]
                need |= {blob_line[h] for h in rec.get("list", []) + rec.get("mid", [])}
                need |= {blob_line[h] for kind, h, _n in rec["glue"] if kind == "B"}
            needs[n] = need
    return Built(path, lines, data, needs)


def _with_crc(rec: dict) -> bytes:
    body = json.dumps(rec, separators=(",", ":")).encode()
    return body[:-1] + b',"c":"%08x"}' % zlib.crc32(body)


def crafted() -> list[bytes]:
    v = {
        "t": "v",
        "n": 3,
        "at": "2026-01-01T00:00:00.000Z",
        "ns": 1,
        "origin": "seen",
        "sha": "0" * 64,
        "size": 2,
        "fmt": "json",
        "glue": [["L", "[]", 1]],
        "list": [],
    }
    bad = [
        {**v, "n": 10**12},
        {**v, "glue": [["L", "", 10**12]]},
        {**v, "at": "yesterday"},
        {**v, "at": 5},
        {**v, "ns": "soon"},
        {**v, "set": [1]},
        {**v, "set": {"budget_tokens": "many"}},
        {**v, "base": 1, "keep": [-5, 10**12], "mid": [], "list": None},
        {**v, "list": [[[]]]},
        {"t": "b", "h": 5, "s": "x"},
        {"t": "b", "h": "0" * 20, "s": ["not", "text"]},
        {"t": "b", "h": "0" * 20, "b64": "!!"},
        {"t": ["v"]},
        {"t": "padtui-journal", "v": "one"},
    ]
    out = [_with_crc(r) for r in bad]
    out += [json.dumps(r).encode() for r in bad]
    out += [
        b'{"t":"v","n":1e999}',
        b'{"t":"v","n":NaN}',
        b'{"t":"v","n":' + b"9" * 5000 + b"}",
        b"[" * 100_000 + b"]" * 100_000,
        b'{"t":"b","h":"' + b"0" * 20 + b'","s":"\\ud800"}',
        b"\xff\xfe garbage",
        b"",
        b"[]",
    ]
    return out


CRAFTED = crafted()


@st.composite
def damage(draw: st.DrawFn, built: Built) -> tuple[bytes, set[int], int | None]:
    """The journal's bytes damaged, the original line indices damaged, and where a cut
    left a torn last line (appends cut it off)."""
    lines = list(built.lines)
    keep: list[int | None] = list(range(len(lines)))  # each line's original index
    bad: set[int] = set()
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["flip", "crafted", "delete", "duplicate", "cut"]))
        i = draw(st.integers(0, len(lines) - 1))
        if how == "flip":
            at = draw(st.integers(0, len(lines[i])))  # len: the line's newline
            bit = 1 << draw(st.integers(0, 7))
            text = lines[i] + b"\n"
            flipped = text[:at] + bytes([text[at] ^ bit]) + text[at + 1 :]
            parts = flipped.split(b"\n")
            if parts[-1] == b"":
                parts.pop()
            elif i + 1 < len(lines):  # the newline itself was flipped: the lines run together
                parts[-1] += lines[i + 1]
                bad.add(keep[i + 1] if keep[i + 1] is not None else -1)
                del lines[i + 1], keep[i + 1]
            bad.add(keep[i] if keep[i] is not None else -1)
            lines[i : i + 1] = parts
            keep[i : i + 1] = [None] * len(parts)
        elif how == "crafted":
            if keep[i] is not None:
                bad.add(keep[i])
            lines[i] = draw(st.sampled_from(CRAFTED))
            keep[i] = None
        elif how == "delete":
            if keep[i] is not None:
                bad.add(keep[i])
            del lines[i], keep[i]
            if not lines:
                lines, keep = [b"[]"], [None]
        elif how == "duplicate":
            to = draw(st.integers(i + 1, len(lines)))
            lines.insert(to, lines[i])
            keep.insert(to, None)  # (a copy: the original stays where it was)
        else:
            cut = draw(st.integers(0, len(lines[i])))
            bad |= {k for k in keep[i:] if k is not None}
            lines = [*lines[:i], lines[i][:cut]]
            keep = [*keep[:i], None]
            torn = b"\n".join(lines)  # no newline at the end: a torn last line
            return torn, bad, len(lines)
    return b"\n".join(lines) + b"\n", bad, None


@pytest.fixture(scope="module")
def journal_of_14(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """One journal of 14 versions, built once: each example damages a copy of its bytes."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(journal_module, "CHECKPOINT", 5)  # several chains of deltas
        return build(tmp_path_factory.mktemp("journal"))


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_damaged_journal_gives_back_every_intact_version(journal_of_14, data, monkeypatch):
    monkeypatch.setattr(journal_module, "CHECKPOINT", 5)  # as the journal was built
    built = replace(journal_of_14, path=journal_of_14.path.with_name(f"d{os.urandom(4).hex()}"))
    damaged, bad, _torn = data.draw(damage(built))
    built.path.write_bytes(damaged)
    intact = {n for n, need in built.needs.items() if not need & bad}
    pad = str(built.path.with_name("pad.json"))

    reader = Journal(str(built.path), pad)
    numbers = {v.n for v in reader.versions()}
    assert intact <= numbers
    for n in intact:
        assert reader.data(n) == built.data[n]
    for n in set(built.data) - intact:
        try:
            assert reader.data(n) == built.data[n]  # what comes back is never wrong
        except PadError as exc:
            assert "\n" not in exc.line()
    for row in history(reader):
        if row.version.n in intact:
            assert row.damage is None

    # appends go on, and what they journal comes back
    new = b'{"budget_tokens": 500, "entries": [{"kind": "note", "text": "after the damage"}]}'
    n = reader.append(new, "json", "seen")
    again = Journal(str(built.path), pad)
    assert again.data(n) == new
    for k in intact:
        assert again.data(k) == built.data[k]
    assert n not in built.data or n not in intact  # no intact version's number is taken
    built.path.unlink()


def test_a_damaged_middle_line_costs_its_version_and_those_built_on_it(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_module, "CHECKPOINT", 5)
    built = build(tmp_path)
    own = {n: max(need) for n, need in built.needs.items()}  # each version's own line
    # a version that later versions are coded against
    target = min(n for n in own if sum(own[n] in need for need in built.needs.values()) > 1)
    line = own[target]
    lines = list(built.lines)
    lines[line] = lines[line].replace(b'"origin":"seen"', b'"origin":"sEen"')
    built.path.write_bytes(b"\n".join(lines) + b"\n")
    reader = Journal(str(built.path), str(tmp_path / "pad.json"))
    lost = {n for n, need in built.needs.items() if line in need}
    assert target in lost and len(lost) < len(built.data)
    assert {v.n for v in reader.versions()} == set(built.data) - lost
    assert reader.damage() == [(line + 1, "its CRC does not match")]
    assert target in reader.lost()
    with pytest.raises(PadError) as caught:
        reader.data(target)
    assert f"version {target} is lost: its line ({line + 1}) is damaged" in caught.value.line()
    with pytest.raises(PadError, match=rf"is lost: .*coded against version {target}, which"):
        reader.data(min(lost - {target}))


def test_a_journal_of_lines_without_a_crc_is_read_as_before(tmp_path):
    built = build(tmp_path, 6)
    old = [json.dumps({k: v for k, v in json.loads(x).items() if k != "c"}) for x in built.lines]
    built.path.write_text("\n".join(old) + "\n")
    reader = Journal(str(built.path), str(tmp_path / "pad.json"))
    for n, data in built.data.items():
        assert reader.data(n) == data
    assert reader.damage() == []


def test_a_later_journal_format_is_still_refused(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_bytes(_with_crc({"t": "padtui-journal", "v": 2, "pad": "x"}) + b"\n")
    with pytest.raises(PadError, match="journal format 2 is not supported"):
        Journal(str(path)).versions()


def test_a_journal_edited_in_place_is_read_anew_by_a_process_that_had_it_open(tmp_path):
    path = tmp_path / "j.jsonl"
    pad = str(tmp_path / "pad.json")
    versions = _pad_versions(6)
    j = Journal(str(path), pad)
    for v in versions[:3]:
        j.append(v, "json", "seen")
    # another process rewrites the journal in place (same file, its last line gone), then
    # appends: this object must not read on from the offset it had
    lines = path.read_bytes().split(b"\n")[:-1]
    with open(path, "r+b") as f:
        f.write(b"\n".join(lines[:-1]) + b"\n")
        f.truncate()
    other = Journal(str(path), pad)
    for v in versions[3:]:
        other.append(v, "json", "seen")
    assert os.stat(path).st_size >= len(b"\n".join(lines)) + 1  # longer than what j read
    j.refresh()
    assert j.damage() == [] and [j.data(v.n) for v in j.versions()] == [
        other.data(v.n) for v in other.versions()
    ]
