"""The inspector's live model below the screen: the folder watch (``core.watcher``) and the
recognition of the inspector's own writes (``core.inspection``)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from padtui.core.live.inspection import Inspection
from padtui.core.live.watcher import watch_pad
from padtui.core.storage import store


def note(text: str) -> str:
    return json.dumps([{"kind": "note", "id": "n", "text": text}])


def text_of(reading: object) -> str:
    pad_file = reading.pad_file  # type: ignore[attr-defined]
    assert pad_file is not None, reading
    return str(pad_file.pad.entries[0].text)


async def test_a_write_right_after_the_first_reading_is_seen(tmp_path: Path) -> None:
    pad = tmp_path / "pad.json"
    pad.write_text(note("a"), encoding="utf-8")
    readings = watch_pad(str(pad))
    try:
        assert text_of(await anext(readings)) == "a"
        pad.write_text(note("b"), encoding="utf-8")  # at once: the watch is already armed
        assert text_of(await asyncio.wait_for(anext(readings), 10)) == "b"
    finally:
        await asyncio.wait_for(readings.aclose(), 10)


async def test_every_rename_over_the_pad_is_seen_and_a_deletion_too(tmp_path: Path) -> None:
    pad = tmp_path / "pad.json"
    pad.write_text(note("v0"), encoding="utf-8")
    (tmp_path / "other.json").write_text(note("not the pad"), encoding="utf-8")
    readings = watch_pad(str(pad))
    try:
        await anext(readings)
        for n in range(1, 4):
            tmp = tmp_path / f".pad.json.{n}.tmp"
            tmp.write_text(note(f"v{n}"), encoding="utf-8")
            os.replace(tmp, pad)
            reading = await asyncio.wait_for(anext(readings), 10)
            while reading.state != "version" or text_of(reading) != f"v{n}":  # (a rename
                reading = await asyncio.wait_for(anext(readings), 10)  # is two events)
        pad.unlink()
        reading = await asyncio.wait_for(anext(readings), 10)
        assert reading.state == "deleted"
    finally:
        await asyncio.wait_for(readings.aclose(), 10)


async def test_a_file_name_the_watch_cannot_decode_does_not_blind_it(tmp_path: Path) -> None:
    pad = tmp_path / "pad.json"
    pad.write_text(note("a"), encoding="utf-8")
    readings = watch_pad(str(pad))
    try:
        await anext(readings)
        # any agent can make a name that is not UTF-8; the watch library fails on its event
        with open(os.path.join(os.fsencode(tmp_path), b"bad\xff.json"), "wb") as f:
            f.write(b"{}")
        reading = await asyncio.wait_for(anext(readings), 10)  # the pad looked at again
        assert text_of(reading) == "a"
        pad.write_text(note("b"), encoding="utf-8")
        while text_of(reading) != "b":  # the watch is armed anew: later writes are seen
            reading = await asyncio.wait_for(anext(readings), 10)
    finally:
        await asyncio.wait_for(readings.aclose(), 10)


def test_an_own_write_the_watch_saw_first_is_relabelled(tmp_path: Path) -> None:
    pad = tmp_path / "pad.json"
    pad.write_text(note("a"), encoding="utf-8")
    insp = Inspection(str(pad))
    insp.observe(store.read(str(pad)))
    pad.write_text(note("b"), encoding="utf-8")  # the inspector's commit, say ...
    written = store.read(str(pad))
    insp.observe(written)  # ... read back by the folder watch before the commit returned
    assert insp.current.origin == "agent"
    insp.note_own_write(written.data)
    assert insp.current.origin == "padtui"
    assert [v.origin for v in insp.versions] == ["initial", "padtui"]
    # and an agent's later write is the agent's
    pad.write_text(note("c"), encoding="utf-8")
    insp.observe(store.read(str(pad)))
    assert insp.current.origin == "agent"
