"""The fleet's readers: each pad is read by its own, so a pad that cannot be read, or that is
slow to read, holds up no other."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from padtui.core.storage import store
from tests.tui.conftest import SAMPLES, write_atomic
from tests.tui.test_fleet import HEALTHY, doc_of, fleet


def grown(pad: Path, text: str) -> str:
    doc = doc_of(pad)
    doc["entries"].append({"kind": "note", "id": "n-new", "text": text})
    return json.dumps(doc, indent=2)


async def test_a_fifo_or_a_device_named_like_a_pad_is_refused_and_others_go_on(
    tmp_path: Path,
) -> None:
    pad = tmp_path / HEALTHY
    pad.write_bytes((SAMPLES / HEALTHY).read_bytes())
    os.mkfifo(tmp_path / "pipe.json")  # no writer: an open without O_NONBLOCK never returns
    (tmp_path / "zero.json").symlink_to("/dev/zero")  # a read to its end never ends
    async with fleet(tmp_path) as f:
        for name in ("pipe.json", "zero.json"):
            assert f.row(name)["state"] == "✖ not a regular file"
        write_atomic(pad, grown(pad, "Written while the pipe waits."))
        await f.until(lambda: f.row(HEALTHY)["worst"].strip() == "growth", "the other pad")
        (tmp_path / "pipe.json").touch()  # an event for the FIFO: refused again, at once
        write_atomic(pad, grown(pad, "And again."))
        insp = f.app.pads[HEALTHY].inspection
        await f.until(lambda: insp.current.number == 3, "the other pad's next version")


async def test_a_pad_that_never_settles_holds_up_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "SETTLE_LIMIT", 60.0)  # its reader stays at work all along
    busy, pad = tmp_path / "busy.json", tmp_path / HEALTHY
    busy.write_bytes((SAMPLES / HEALTHY).read_bytes())
    pad.write_bytes((SAMPLES / HEALTHY).read_bytes())
    stop = threading.Event()

    def hammer() -> None:  # a save every millisecond or so, never a quiet moment
        n = 0
        while not stop.is_set():
            n += 1
            busy.write_text(grown(busy, f"save {n}"), encoding="utf-8")
            stop.wait(0.001)

    async with fleet(tmp_path) as f:
        writer = threading.Thread(target=hammer)
        writer.start()
        try:
            batches = f.app.batches
            await f.until(lambda: f.app.batches > batches, "the busy pad's saves taken in")
            write_atomic(pad, grown(pad, "Written while the other pad is being read."))
            await f.until(lambda: f.row(HEALTHY)["worst"].strip() == "growth", "the other pad")
            assert f.app.pads["busy.json"].inspection.current.number == 1  # never settled
        finally:
            stop.set()
            writer.join()


async def test_a_file_name_the_watch_cannot_decode_does_not_blind_the_fleet(
    tmp_path: Path,
) -> None:
    pad = tmp_path / HEALTHY
    pad.write_bytes((SAMPLES / HEALTHY).read_bytes())
    async with fleet(tmp_path) as f:
        batches = f.app.batches
        with open(os.path.join(os.fsencode(tmp_path), b"bad\xff.json"), "wb") as bad:
            bad.write(b"{}")  # the watch library fails on this name's event
        await f.until(lambda: f.app.batches > batches, "the folder looked at again")
        write_atomic(pad, grown(pad, "Written after the undecodable name."))
        await f.until(lambda: f.row(HEALTHY)["worst"].strip() == "growth", "the pad's rewrite")
        assert f.app.is_running
