"""The server's scope under a race: a pad swapped for a symlink to a file outside the scope
while calls stream in. Every call is answered, and none returns the outside file's text."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import anyio

from .conftest import PAD, served

SECRET = "OUTSIDE-SCOPE-SECRET"
FIGHT = 20.0  # seconds of calls against the swapping
ANSWER_WITHIN = 30.0  # a call not answered by then is a call never answered


def _secret_pad(path: Path) -> None:
    doc = json.loads(json.dumps(PAD))
    for entry in doc["entries"]:
        entry["text"] = f"{SECRET} {entry['text']}"
    path.write_text(json.dumps(doc), encoding="utf-8")


async def test_a_pad_swapped_for_an_outside_symlink_never_leaks(tmp_path: Path) -> None:
    scope, outside = tmp_path / "scope", tmp_path / "outside"
    scope.mkdir()
    outside.mkdir()
    secret = outside / "pad.json"
    _secret_pad(secret)
    pad = scope / "pad.json"
    body = json.dumps(PAD).encode()
    pad.write_bytes(body)
    stop = threading.Event()
    swaps = [0, 0]  # to the symlink, back to a regular file

    def swap() -> None:
        link, plain = scope / ".link", scope / ".plain"
        while not stop.is_set():
            link.symlink_to(secret)
            os.replace(link, pad)
            swaps[0] += 1
            plain.write_bytes(body)
            os.replace(plain, pad)
            swaps[1] += 1

    answered: dict[str, int] = {"ok": 0, "error": 0}
    async with served(tmp_path, scope) as session:
        swapper = threading.Thread(target=swap, daemon=True)
        swapper.start()
        try:
            deadline = time.monotonic() + FIGHT
            n = 0
            while time.monotonic() < deadline:
                tool, arguments = (
                    ("check", {"path": str(pad), "budget": 40})
                    if n % 2
                    else ("audit", {"path": str(pad), "new_text": ""})
                )
                n += 1
                with anyio.fail_after(ANSWER_WITHIN):
                    result = await session.call_tool(tool, arguments)
                said = "".join(getattr(c, "text", "") for c in result.content)
                assert SECRET not in said + json.dumps(result.structured_content), tool
                assert not result.is_error or "\n" not in said, said  # (one line)
                answered["error" if result.is_error else "ok"] += 1
        finally:
            stop.set()
            swapper.join()
    # the race was run: calls both went through and met the swap, and it swapped throughout
    assert answered["ok"] > 0 and sum(answered.values()) >= 50, answered
    assert min(swaps) >= 100, swaps
