"""A version examined while the settle rule waits on it is the version examined once it has
settled: the same figures and audit, and only for that very parse, against the same version
before it."""

from __future__ import annotations

import json
from pathlib import Path

from padtui.core.formats import PadFile
from padtui.core.live.inspection import Examined, Inspection
from padtui.core.storage import store

NOTES = [
    {"kind": "note", "id": f"n-{i}", "text": f"The cache {i} lives in /tmp/c{i}."} for i in range(6)
]
RULE = {"kind": "constraint", "id": "c-1", "text": "Never retry writes after a 5xx."}
WEAKENED = [{**RULE, "text": "Handle write errors."}, *NOTES]


def write(path: Path, entries: list[dict[str, str]]) -> None:
    path.write_text(json.dumps({"budget_tokens": 500, "entries": entries}, indent=2), "utf-8")


def figures(e: Examined | None) -> tuple[object, ...]:
    assert e is not None and e.audit is not None
    a = e.audit
    return (e.digest, e.after, e.tokens, e.claims, e.caution, a.verdict, a.findings)


def opened(folder: Path) -> tuple[Inspection, Path]:
    folder.mkdir(exist_ok=True)
    pad = folder / "pad.json"
    write(pad, [RULE, *NOTES])
    insp = Inspection(str(pad))
    insp.observe(store.read(str(pad)))
    return insp, pad


def test_a_reading_examined_ahead_is_the_reading_examined_when_it_settles(
    tmp_path: Path,
) -> None:
    insp, pad = opened(tmp_path / "ahead")
    write(pad, WEAKENED)
    seen: list[PadFile] = []
    made: list[Examined | None] = []

    def ahead(pad_file: PadFile) -> None:
        seen.append(pad_file)
        insp.look_ahead(pad_file)
        made.append(insp._ahead)

    settled = store.read(str(pad), previous=insp.current.pad_file, quiet=0.01, ahead=ahead)
    assert seen == [settled.file]  # (the parse the settled reading is made of)
    got = insp.examine(settled)
    assert got is not None and got.audit is not None and got.audit.verdict == "corruption"
    assert got.snapshot.stamp == settled.stamp  # (the settled reading's, not the look's)
    assert made[0] is not None and got.snapshot.file is made[0].snapshot.file  # (taken over)
    # the same rewrite, examined only once it settled
    plain, other = opened(tmp_path / "plain")
    write(other, WEAKENED)
    want = plain.examine(store.read(str(other), previous=plain.current.pad_file))
    assert figures(got) == figures(want)


def test_a_look_ahead_is_not_used_for_another_parse_or_against_another_version(
    tmp_path: Path,
) -> None:
    insp, pad = opened(tmp_path / "pad")
    write(pad, [RULE, *NOTES[:3]])
    first = store.read(str(pad), previous=insp.current.pad_file)
    insp.look_ahead(first.file)
    again = store.read(str(pad), previous=insp.current.pad_file)  # the same bytes, parsed anew
    assert again.file is not first.file
    got = insp.examine(again)
    assert got is not None and got.parsed is again.file  # (examined itself, not taken over)
    # examined ahead, then another version taken in before it settled: examined again
    write(pad, [RULE, *NOTES[:2]])
    later = store.read(str(pad), previous=insp.current.pad_file)
    insp.look_ahead(later.file)
    insp.observe(first)  # (the version in between)
    after = insp.examine(later)
    assert after is not None and after.after == insp.current.digest
