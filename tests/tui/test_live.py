"""The live inspector under agents that save while it reads: a stream of in-place saves never
gives a torn version (nor a false alarm, nor a torn journal entry), and the watch follows the
pad through symlink swaps and its folder being deleted, re-created or renamed away."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from padtui.cli import main
from padtui.core.formats import parse
from padtui.core.storage import store
from tests.tui.conftest import Harness, inspector, write_atomic, write_in_place

SAVES = 400  # at about a thousand a second, in bursts
CHUNK_PAUSE = 0.0005  # the writer's pause between two chunks of one save
# The settle rule holds for a writer that never stops mid-save for as long as the quiet
# interval (tests/core/test_settle.py holds it exactly at 20 ms). The writer here pauses
# 0.5 ms, but a thread of a loaded machine (the tests run on every core) can be kept off the
# CPU for longer than 20 ms: the stream is read with a longer interval, which the writer's
# pauses stay far under even then.
QUIET = 0.1
REST_EVERY = 50  # a burst of saves, then a rest long enough for a version to settle
REST = 3 * QUIET

CONSTRAINT = {
    "kind": "constraint",
    "id": "c-push",
    "text": "Never force-push main.",
    "sealed": True,
}


def jsonl_pad(n: int) -> bytes:
    """Notes 0..n, then a sealed constraint last: any prefix cut at a line end parses, and
    drops the constraint."""
    notes = [{"kind": "note", "id": f"n{i}", "text": f"Step {i} done."} for i in range(n + 1)]
    return "".join(json.dumps(e) + "\n" for e in [*notes, CONSTRAINT]).encode()


def md_pad(n: int) -> bytes:
    notes = "".join(f"- Step {i} done. {{#n{i}}}\n" for i in range(n + 1))
    return (
        f"# Scratchpad\n\n## Notes\n\n{notes}\n"
        "## Constraints (sealed)\n\n- Never force-push main. {#c-push}\n"
    ).encode()


def save_streaming(path: Path, data: bytes, truncate_first: bool) -> None:
    """One save in several chunks, each cut at a line end, with pauses between them: opened
    with O_TRUNC, or ``r+`` (over the old bytes, cut to length at the end)."""
    lines = data.splitlines(keepends=True)
    step = max(1, len(lines) // 4)
    chunks = [b"".join(lines[i : i + step]) for i in range(0, len(lines), step)]
    fd = os.open(path, os.O_WRONLY | (os.O_TRUNC if truncate_first else 0))
    try:
        for chunk in chunks:
            os.write(fd, chunk)
            time.sleep(CHUNK_PAUSE)
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def stream(path: Path, make: Callable[[int], bytes]) -> threading.Thread:
    def run() -> None:
        for n in range(1, SAVES + 1):
            save_streaming(path, make(n), truncate_first=n % 2 == 0)
            if n % REST_EVERY == 0:
                time.sleep(REST)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.parametrize(("name", "make"), [("pad.jsonl", jsonl_pad), ("pad.md", md_pad)])
async def test_a_stream_of_in_place_saves_gives_no_torn_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, make: Callable[[int], bytes]
) -> None:
    monkeypatch.setattr(store, "SETTLE_QUIET", QUIET)
    pad = tmp_path / name
    pad.write_bytes(make(0))
    final = hashlib.sha256(make(SAVES)).hexdigest()
    async with inspector(pad) as h:
        writer = stream(pad, make)
        try:
            await h.until(lambda: h.app.inspection.current.digest == final, "the last save")
        finally:
            writer.join()
        insp = h.app.inspection
        assert insp.alarms == []
        assert {v.verdict for v in insp.versions} <= {"initial", "growth"}
        assert all(v.pad_file.pad.find("c-push") is not None for v in insp.versions)
    journal = store.journal_of(str(pad), True)
    assert journal is not None
    kept = journal.versions()
    assert len(kept) == len(insp.versions)  # every version taken is journaled, and no other
    for v in kept:  # each one a whole save, the constraint last
        assert parse(str(pad), journal.data(v.n)).pad.entries[-1].id == "c-push"
    assert main(["history", str(pad)]) == 0


def note(text: str) -> str:
    return json.dumps([{"kind": "note", "id": "n", "text": text}])


def shown(h: Harness, text: str) -> Callable[[], bool]:
    insp = h.app.inspection

    def check() -> bool:
        return bool(insp.status == "live" and insp.current.pad_file.pad.entries[0].text == text)

    return check


async def test_the_watch_follows_a_symlink_swap_to_another_folder(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    pad, target = here / "pad.json", there / "target.json"
    pad.write_text(note("the pad"), encoding="utf-8")
    target.write_text(note("the target"), encoding="utf-8")
    async with inspector(pad) as h:
        link = here / ".pad.json.link"
        link.symlink_to(target)
        os.replace(link, pad)  # the pad is now a link to a file in another folder
        await h.until(shown(h, "the target"), "the link's target")
        write_in_place(target, note("the target, rewritten"))
        await h.until(shown(h, "the target, rewritten"), "the rewrite of the target")
        insp = h.app.inspection
        texts = [v.pad_file.pad.entries[0].text for v in insp.versions]
        assert texts == ["the pad", "the target", "the target, rewritten"]
        assert insp.current.audit is not None  # audited against the version before
    journal = store.journal_of(str(pad), True)
    assert journal is not None
    assert any(b"the target, rewritten" in journal.data(v.n) for v in journal.versions())


async def test_the_watch_sees_the_pad_again_in_a_folder_deleted_and_re_created(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "pads"
    folder.mkdir()
    pad = folder / "pad.json"
    pad.write_text(note("before"), encoding="utf-8")
    async with inspector(pad) as h:
        pad.unlink()
        folder.rmdir()
        await h.until(lambda: h.app.inspection.status == "deleted", "the deletion")
        folder.mkdir()
        write_atomic(pad, note("after"))
        await h.until(shown(h, "after"), "the pad in the new folder")
        write_in_place(pad, note("after, again"))
        await h.until(shown(h, "after, again"), "a write in the new folder")


async def test_a_folder_renamed_away_leaves_the_pad_deleted(tmp_path: Path) -> None:
    folder = tmp_path / "pads"
    folder.mkdir()
    pad = folder / "pad.json"
    pad.write_text(note("before"), encoding="utf-8")
    async with inspector(pad) as h:
        moved = tmp_path / "elsewhere"
        folder.rename(moved)
        await h.until(lambda: h.app.inspection.status == "deleted", "the pad gone")
        write_in_place(moved / "pad.json", note("the moved file"))  # not the pad any more
        folder.mkdir()  # a new folder of that name, and a pad in it: the pad again
        write_atomic(pad, note("a new pad"))
        await h.until(shown(h, "a new pad"), "the new pad")
        assert all(
            v.pad_file.pad.entries[0].text != "the moved file" for v in h.app.inspection.versions
        )
