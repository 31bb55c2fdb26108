"""Versions of a live pad taken in cheaply (the inspector and the fleet): unchanged entries
shared with the version before, read against it, a bound on the versions kept, and audits
that give the same verdicts and findings as audits of pads read on their own."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from padtui.core.audit import totals as audit_module
from padtui.core.audit.rewrite import audit
from padtui.core.formats import parse
from padtui.core.live.inspection import Inspection, shared
from padtui.core.live.watcher import read_once
from padtui.core.rules import claims
from padtui.core.storage.store import snapshot_of

SAMPLES = Path(__file__).resolve().parents[2] / "sample_pads"


def entries_of(name: str) -> list[dict[str, Any]]:
    doc = json.loads((SAMPLES / name).read_text("utf-8"))
    entries: list[dict[str, Any]] = doc["entries"]
    return entries


def write(path: Path, entries: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps({"budget_tokens": 4000, "entries": entries}, indent=2), "utf-8")


def rewrite(entries: list[dict[str, Any]], rng: random.Random, n: int) -> list[dict[str, Any]]:
    """One of the things an agent does to its pad: edit, add, drop or move an entry."""
    out = [dict(e) for e in entries]
    i = rng.randrange(len(out))
    what = rng.choice(["edit", "add", "drop", "move", "seal"])
    if what == "edit":
        out[i]["text"] += f" (revised {n})"
    elif what == "add":
        out.insert(i, {"kind": "note", "id": f"n-new-{n}", "text": f"Found at step {n}."})
    elif what == "drop" and len(out) > 3:
        del out[i]
    elif what == "move":
        out.append(out.pop(i))
    else:
        out[i]["sealed"] = True
    return out


def test_versions_read_live_share_entries_and_audit_as_pads_read_alone(tmp_path: Path) -> None:
    path = tmp_path / "pad.json"
    entries = entries_of("retry-5xx-under-pressure.json")
    write(path, entries)
    insp = Inspection(str(path))
    first = read_once(str(path))
    assert first.snapshot is not None
    insp.observe(first.snapshot)
    rng = random.Random(5)
    for n in range(60):
        before = insp.current
        entries = rewrite(entries, rng, n)
        write(path, entries)
        reading = read_once(str(path), before.pad_file)  # as the watch reads it
        assert reading.snapshot is not None
        observed = insp.observe(reading.snapshot)
        if observed is None:
            continue
        now = insp.current
        alone = parse(str(path), path.read_bytes())  # the same bytes, read on their own
        assert now.pad_file.pad == alone.pad and now.pad_file.layout == alone.layout
        # unchanged entries are the very objects of the version before
        olds = {id(e) for e in before.pad_file.pad.entries}
        same = [e for e in now.pad_file.pad.entries if id(e) in olds]
        kept_sources = {e.source for e in before.pad_file.pad.entries}
        assert all(e.source in kept_sources for e in same)
        # ... and the audit of the shared version is the audit of the pads read alone
        fresh = audit(parse(str(path), before.pad_file.data).pad, alone.pad)
        got = now.audit
        assert got is not None
        assert (got.verdict, got.findings, got.matches) == (
            fresh.verdict,
            fresh.findings,
            fresh.matches,
        )
        assert (got.tokens_before, got.tokens_after, got.claims_before, got.claims_after) == (
            fresh.tokens_before,
            fresh.tokens_after,
            fresh.claims_before,
            fresh.claims_after,
        )


def test_shared_keeps_every_entry_equal_and_moves_indices() -> None:
    old_entries = entries_of("healthy.json")
    new_entries = [old_entries[-1], *old_entries[:-1]]  # the last entry moved first
    old = parse("pad.json", json.dumps({"entries": old_entries}).encode())
    new = parse("pad.json", json.dumps({"entries": new_entries}).encode())
    got = shared(old, new)
    assert got.pad == new.pad and got.layout == new.layout and got.data == new.data
    assert [e.index for e in got.pad.entries] == list(range(len(new_entries)))
    # a moved entry is a new object (its index changed) made of the old one's parts
    assert got.pad.entries[0] is not old.pad.entries[-1]
    assert got.pad.entries[0].raw is old.pad.entries[-1].raw


def test_an_inspection_may_keep_only_its_newest_versions(tmp_path: Path) -> None:
    path = tmp_path / "pad.json"
    entries = entries_of("healthy.json")
    insp = Inspection(str(path), keep_versions=3)
    for n in range(7):
        entries = [*entries, {"kind": "note", "id": f"n{n}", "text": f"step {n}"}]
        write(path, entries)
        insp.observe(snapshot_of(parse(str(path), path.read_bytes())))
    assert [v.number for v in insp.versions] == [5, 6, 7]  # numbered as seen (from 1), all the same
    assert insp.released == 4
    assert insp.current.verdict == "growth"


def test_a_new_version_counts_the_claims_of_its_changed_entries_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "pad.json"
    entries = [
        {"kind": "note", "id": f"n-{i}", "text": f"Step {i} done. The cache is in /tmp/c{i}."}
        for i in range(40)
    ]
    write(path, entries)
    insp = Inspection(str(path))
    first = read_once(str(path))
    assert first.snapshot is not None
    insp.observe(first.snapshot)
    counted: list[str] = []

    def count_claims(text: str) -> int:
        counted.append(text)
        return claims.count_claims(text)

    monkeypatch.setattr(audit_module, "count_claims", count_claims)
    entries[7] = {**entries[7], "text": "Step 7 redone. It must not touch /etc."}
    entries.insert(20, {"kind": "note", "id": "n-new", "text": "Found one. And another."})
    write(path, entries)
    reading = read_once(str(path), insp.current.pad_file)
    assert reading.snapshot is not None and insp.observe(reading.snapshot) is not None
    assert counted == [entries[7]["text"], entries[20]["text"]]
    # ... and its figures are those of the pad counted afresh
    alone = parse(str(path), path.read_bytes()).pad
    assert insp.current.claims == claims.pad_claims(alone.entries)
    assert insp.current.tokens == sum(insp.counter.count_many(e.text for e in alone.entries))
