"""Benchmark: the live inspector under a stream of in-place saves (the settle rule).

Run: python bench/bench_settle.py [--saves 2000] [--format jsonl|md]

A writer process saves a pad in place as fast as it can, each save streamed: opened with
``O_TRUNC`` (even saves) or ``r+`` (odd saves: over the old bytes, cut to length at the end),
then written in three chunks cut at line ends, 0.2 ms apart, so every moment of a save is a
prefix that parses. Every save is honest: it adds a note; the pad's sealed constraint comes
last, so a torn prefix taken for a version drops it (a CRITICAL alarm). After a save the writer
saves again at once (about a thousand saves a second), but one save in ten is left on disk for
a while (2 to 100 ms) before the next.

The inspector (``PadApp``, headless) watches the pad and journals what it takes. Reported:
saves made and their rate, versions taken, alarms, journaled versions that are not whole
saves, the exit code of ``padtui history``, and, for each time a version stayed on disk, the
share of such versions the inspector took.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass

CHUNK_PAUSE = 0.0002
CHUNKS = 3
HOLDS_MS = (2, 5, 10, 20, 30, 50, 100)
BASE_NOTES = 40


def pad_lines(n: int, fmt: str) -> list[bytes]:
    """The pad with ``n`` notes, line by line (the sealed constraint last)."""
    notes = [f"Step {i} done: the batch was checked and its totals match." for i in range(n)]
    if fmt == "md":
        bullets = [f"- {t} {{#n{i}}}\n" for i, t in enumerate(notes)]
        text = ["# Scratchpad\n", "\n", "## Notes\n", "\n", *bullets, "\n"]
        text += ["## Constraints (sealed)\n", "\n", "- Never force-push main. {#c-push}\n"]
        return [line.encode() for line in text]
    entries: list[dict[str, object]] = [
        {"kind": "note", "id": f"n{i}", "text": t} for i, t in enumerate(notes)
    ]
    entries.append({"kind": "constraint", "id": "c-push", "text": "Never force-push main."})
    entries[-1]["sealed"] = True
    return [(json.dumps(e) + "\n").encode() for e in entries]


def pad_bytes(n: int, fmt: str) -> bytes:
    return b"".join(pad_lines(n, fmt))


def writer(path: str, fmt: str, saves: int, log: str, seed: int) -> None:
    rng = random.Random(seed)
    holds = []
    start = time.perf_counter()
    every = pad_lines(BASE_NOTES + saves, fmt)
    before, after = (4, 4) if fmt == "md" else (0, 1)  # lines around the notes
    head, notes, tail = every[:before], every[before:-after], every[-after:]
    for k in range(1, saves + 1):
        lines = [*head, *notes[: BASE_NOTES + k], *tail]
        size = sum(map(len, lines))
        step = -(-len(lines) // CHUNKS)
        fd = os.open(path, os.O_WRONLY | (os.O_TRUNC if k % 2 == 0 else 0))
        for i in range(0, len(lines), step):
            os.write(fd, b"".join(lines[i : i + step]))
            time.sleep(CHUNK_PAUSE)
        os.ftruncate(fd, size)
        os.close(fd)
        hold = rng.choice(HOLDS_MS) if rng.random() < 0.1 else 0
        holds.append(hold)
        if hold:
            time.sleep(hold / 1000)
    elapsed = time.perf_counter() - start
    with open(log, "w", encoding="utf-8") as f:
        json.dump({"holds": holds, "seconds": elapsed}, f)


@dataclass
class Outcome:
    taken: set[int]  # the saves taken for versions
    alarms: int
    critical: int
    journaled: int
    torn: int  # journaled versions that are not a whole save
    history: int  # the exit code of padtui history
    holds: list[int]  # how long each save stayed on disk before the next began (ms, 0: none)
    seconds: float  # the writer's time


async def watch(path: str, fmt: str, saves: int, log: str) -> Outcome:
    from padtui.core.formats import parse
    from padtui.core.storage import store
    from padtui.tui.app import make_app

    app = make_app(path)
    async with app.run_test(size=(160, 45)) as pilot:
        await asyncio.wait_for(app.ready.wait(), 30)
        await asyncio.wait_for(app.watch_armed.wait(), 30)
        await pilot.pause()
        command = [sys.executable, __file__, "--writer", path, "--format", fmt]
        proc = subprocess.Popen([*command, "--saves", str(saves), "--log", log])
        last = f"n{BASE_NOTES + saves - 1}"
        while proc.poll() is None or app.inspection.current.pad_file.pad.find(last) is None:
            await pilot.pause(0.05)
        insp = app.inspection
        taken = {len(v.pad_file.pad.entries) - 1 - BASE_NOTES for v in insp.versions[1:]}
        alarms = len(insp.alarms)
        critical = sum(1 for a in insp.alarms if a.critical)
    journal = store.journal_of(path, True)
    assert journal is not None
    torn = 0
    for v in journal.versions():
        entries = parse(path, journal.data(v.n), fmt).pad.entries
        torn += not entries or entries[-1].id != "c-push"
    history = subprocess.run(
        [sys.executable, "-m", "padtui", "history", path], capture_output=True, check=False
    )
    with open(log, encoding="utf-8") as f:
        written = json.load(f)
    return Outcome(
        taken,
        alarms,
        critical,
        len(journal.versions()),
        torn,
        history.returncode,
        written["holds"],
        written["seconds"],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--saves", type=int, default=2000)
    parser.add_argument("--format", default="jsonl", choices=["jsonl", "md"])
    parser.add_argument("--writer", metavar="PATH")
    parser.add_argument("--log")
    args = parser.parse_args()
    if args.writer:
        writer(args.writer, args.format, args.saves, args.log, seed=7)
        return 0
    with tempfile.TemporaryDirectory(prefix="padtui-bench-") as tmp:
        os.environ["XDG_STATE_HOME"] = os.path.join(tmp, "state")
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")  # (the count caches)
        path = os.path.join(tmp, f"pad.{args.format}")
        with open(path, "wb") as f:
            f.write(pad_bytes(BASE_NOTES, args.format))
        got = asyncio.run(watch(path, args.format, args.saves, os.path.join(tmp, "log.json")))
    saving = got.seconds - sum(got.holds) / 1000  # the writer's time less its holds
    print(
        f"{args.format}: {len(got.holds)} saves in {got.seconds:.2f} s "
        f"({len(got.holds) / saving:.0f} saves/s between holds); versions taken "
        f"{len(got.taken)}; "
        f"alarms {got.alarms} (critical {got.critical}); journaled {got.journaled}, "
        f"of which not a whole save {got.torn}; padtui history exits {got.history}"
    )
    by_hold: dict[int, list[bool]] = defaultdict(list)
    for k, hold in enumerate(got.holds, start=1):
        by_hold[hold].append(k in got.taken)
    for hold in sorted(by_hold):
        seen = by_hold[hold]
        label = "next save at once" if hold == 0 else f"on disk {hold} ms more"
        print(f"  {label:<22} {sum(seen):>5} of {len(seen):>5} taken ({sum(seen) / len(seen):.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
