"""What a kept version of a live pad holds: the current version its bytes (a commit compares
against them), an older one only its parse when its journal holds it, its bytes read back
from there on demand, byte for byte; and a matching kept as runs that reads as the dict."""

from __future__ import annotations

import json
import random
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from padtui.core.audit.matching import Pairs, match
from padtui.core.audit.rewrite import audit
from padtui.core.errors import PadError
from padtui.core.formats import parse
from padtui.core.live.inspection import Inspection, journal_seen
from padtui.core.live.watcher import read_once
from padtui.core.storage.journal import Journal
from padtui.core.storage.store import Snapshot, snapshot_of
from tests.core.test_inspection_scale import entries_of, rewrite, write


def take(insp: Inspection, snapshot: Snapshot | None, journal: str | bool) -> None:
    """As the inspector takes a reading in: examined, journaled, then taken in."""
    assert snapshot is not None
    examined = insp.examine(snapshot)
    if examined is None:
        return
    journaled = journal_seen(snapshot, journal)
    insp.take_in(examined, number=journaled.number, journal=journaled.journal)


def live(tmp_path: Path, journal: str | bool, versions: int = 25) -> tuple[Inspection, list[bytes]]:
    """An inspection of a pad rewritten ``versions`` times, read as the watch reads it;
    with the bytes of each version it took in, oldest first."""
    path = tmp_path / "pad.json"
    entries = entries_of("retry-5xx-under-pressure.json")
    write(path, entries)
    insp = Inspection(str(path))
    take(insp, read_once(str(path)).snapshot, journal)
    written = [path.read_bytes()]
    rng = random.Random(11)
    for n in range(versions):
        entries = rewrite(entries, rng, n)
        write(path, entries)
        before = len(insp.versions)
        take(insp, read_once(str(path), insp.current.pad_file).snapshot, journal)
        if len(insp.versions) > before:
            written.append(path.read_bytes())
    return insp, written


def test_older_versions_read_their_bytes_back_from_the_journal(tmp_path: Path) -> None:
    insp, written = live(tmp_path, str(tmp_path / "pad.jsonl"))
    assert len(insp.versions) == len(written) > 10
    assert [v.holds_bytes for v in insp.versions] == [False] * (len(written) - 1) + [True]
    assert [v.snapshot.data for v in insp.versions] == written
    for v, data in zip(insp.versions, written, strict=True):
        alone = parse(insp.path, data)
        assert v.pad == alone.pad and v.layout == alone.layout
        assert v.pad_file == alone  # (the bytes back from the journal, the parse kept)
    assert insp.current.snapshot is insp.current.read  # (the current one's own, for a commit)


def test_without_a_journal_every_version_keeps_its_bytes(tmp_path: Path) -> None:
    insp, written = live(tmp_path, False, versions=8)
    assert all(v.holds_bytes for v in insp.versions)
    assert [v.snapshot.data for v in insp.versions] == written


def test_bytes_the_journal_no_longer_holds_are_an_error_not_other_bytes(tmp_path: Path) -> None:
    journal = tmp_path / "pad.jsonl"
    insp, _written = live(tmp_path, str(journal), versions=4)
    old = insp.versions[0]
    journal.unlink()
    Journal(str(journal), insp.path).append(b'[{"kind": "note", "text": "other"}]', "json", "seen")
    with pytest.raises(PadError):
        old.snapshot  # noqa: B018 (version 1 of that journal is another pad's)
    journal.unlink()
    with pytest.raises(PadError, match="no version"):
        old.pad_file  # noqa: B018
    assert old.pad.entries  # (its parse stays)


def test_a_version_numbered_after_it_was_taken_in_lets_its_bytes_go_once_older(
    tmp_path: Path,
) -> None:
    """The inspector shows a pad's first version before journaling it (an fsync away):
    its journal's number comes later, and the version has given way to a newer one."""
    path = tmp_path / "pad.json"
    journal = str(tmp_path / "pad.jsonl")
    entries = entries_of("healthy.json")
    write(path, entries)
    first = snapshot_of(parse(str(path), path.read_bytes()))
    insp = Inspection(str(path))
    insp.observe(first)
    write(path, [*entries, {"kind": "note", "id": "n-new", "text": "Found."}])
    second = snapshot_of(parse(str(path), path.read_bytes()))
    j = Journal(journal, str(path))
    n = j.append(first.data, "json", "seen", first.file)
    insp.observe(second, number=2, journal=j)
    assert insp.versions[0].holds_bytes  # (not journaled yet: nothing to read it back from)
    insp.journaled(insp.versions[0].digest, n, journal=j)
    assert not insp.versions[0].holds_bytes
    assert insp.versions[0].snapshot.data == first.data


def test_a_matching_kept_reads_as_the_matching(tmp_path: Path) -> None:
    insp, _written = live(tmp_path, False, versions=30)
    for before, v in zip(insp.versions, insp.versions[1:], strict=False):
        assert v.audit is not None
        pairs = match(before.pad, v.pad)
        assert v.audit.matches == pairs and dict(v.audit.matches) == pairs
        assert audit(before.pad, v.pad).matches == pairs


def _in_runs(runs: list[tuple[int, int, str]]) -> dict[int, tuple[int, str]]:
    """Pairs in runs of consecutive entries (as a live pad's are), shifted and paired alike
    or not: (the run's length, how far the new side is shifted, how)."""
    pairs: dict[int, tuple[int, str]] = {}
    o = 0
    for length, shift, how in runs:
        pairs.update((o + k, (o + k + shift, how)) for k in range(length))
        o += length
    return pairs


_HOW = st.sampled_from(["id", "exact", "close"])


@given(
    st.one_of(
        st.dictionaries(st.integers(0, 60), st.tuples(st.integers(0, 60), _HOW)),
        st.lists(st.tuples(st.integers(1, 5), st.integers(0, 2), _HOW)).map(_in_runs),
    )
)
def test_pairs_are_the_dict_they_were_made_of(pairs: dict[int, tuple[int, str]]) -> None:
    kept = Pairs(pairs)
    assert len(kept) == len(pairs) and dict(kept.items()) == pairs and kept == pairs
    assert sorted(kept) == sorted(pairs)
    # a run for each pair that is not one on from the pair before it, on both sides, alike
    olds = sorted(pairs)
    breaks = [
        o
        for p, o in pairwise(olds)
        if not (o == p + 1 and pairs[o][0] == pairs[p][0] + 1 and pairs[o][1] == pairs[p][1])
    ]
    assert kept.runs == (1 + len(breaks) if pairs else 0)
    for o in range(-1, 62):
        assert kept.get(o) == pairs.get(o)
        assert (o in kept) == (o in pairs)


def test_pairs_of_a_pad_paired_in_place_are_a_few_runs() -> None:
    pairs = {i: (i, "id") for i in range(4000)} | {4000: (4001, "close")}
    kept = Pairs(pairs)
    assert kept == pairs and kept.runs == 2  # (4000 in place, then one close pair)


def test_a_json_pad_rewritten_keeps_runs_per_change(tmp_path: Path) -> None:
    path = tmp_path / "pad.json"
    entries = [{"kind": "note", "id": f"n-{i}", "text": f"Note {i}."} for i in range(500)]
    path.write_text(json.dumps(entries))
    insp = Inspection(str(path))
    insp.observe(snapshot_of(parse(str(path), path.read_bytes())))
    entries[250] = {"kind": "note", "id": "n-250", "text": "Note 250, revised."}
    del entries[100]
    path.write_text(json.dumps(entries))
    insp.observe(snapshot_of(parse(str(path), path.read_bytes())))
    got = insp.current.audit
    assert got is not None and isinstance(got.matches, Pairs)
    assert got.matches.runs == 2  # (before the dropped entry, and after it)
