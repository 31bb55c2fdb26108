"""The residual race: an agent that writes through a file it opened before a commit's swap.

A writer process that does not take padtui's lock appends to a JSON Lines pad in a loop: it
opens the pad (``r+``, then writes at the end it found; or ``O_APPEND``), pauses a random
0-3 ms (``--pause``), writes one line naming a unique marker, closes it, and logs the
marker. Meanwhile this process commits in a loop: a stamped read, one entry changed, a
compare-and-swap commit (no journal unless ``--journal``, so commits come as fast as they
can) that takes the writer's lines it read out of the pad (so the pad stays small) and counts
them as accounted for. Every other marker the writer wrote must end up in the pad: a commit
that lands its swap between the writer's open and its write either sees the write and
reports a conflict (the write stays in the pad), or the write went into the file the swap
displaced and is lost. At the end the markers in the pad are counted against the log (and
those in a version a conflict reported as kept beside the pad are counted as kept).

Figures per run: commits made and conflicts reported, writes, writes lost; the loss rate is
lost writes per commit made (a lost write is lost by exactly one commit's swap).

Run: python bench/bench_race.py [--runs 5] [--commits 400] [--mode rplus,append] [--pause 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from typing import Any

PAD = [
    {"kind": "constraint", "id": "c1", "sealed": True, "text": "Never retry a write after a 5xx."},
    {"kind": "plan", "id": "p1", "text": "commit 0"},
]


def writer(path: str, log: str, mode: str, pause_ms: float, stop: str, seed: int) -> None:
    """The agent: open, pause, write one marker line, close, log the marker; until ``stop``."""
    rng = random.Random(seed)
    n = 0
    with open(log, "a", encoding="utf-8") as out:
        while not os.path.exists(stop):
            n += 1
            line = json.dumps({"kind": "note", "id": f"w{n}", "text": f"marker {n}"}) + "\n"
            try:
                if mode == "append":
                    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
                    time.sleep(rng.uniform(0, pause_ms) / 1000)
                    os.write(fd, line.encode())
                else:
                    fd = os.open(path, os.O_RDWR)
                    end = os.lseek(fd, 0, os.SEEK_END)
                    time.sleep(rng.uniform(0, pause_ms) / 1000)
                    os.pwrite(fd, line.encode(), end)
                os.close(fd)
            except FileNotFoundError:
                continue
            out.write(f"w{n}\n")
            out.flush()
            time.sleep(rng.uniform(0, pause_ms) / 1000)  # between saves


def one_run(mode: str, commits: int, pause_ms: float, seed: int, journal: bool) -> dict[str, Any]:
    from padtui.core.model import make_entry
    from padtui.core.storage import store

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "pad.jsonl")
        log = os.path.join(folder, "writer.log")
        stop = os.path.join(folder, "stop")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(json.dumps(e) + "\n" for e in PAD))
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the writer
            try:
                writer(path, log, mode, pause_ms, stop, seed)
            finally:
                os._exit(0)
        made = conflicts = 0
        accounted: set[str] = set()
        started = time.perf_counter()
        try:
            while made < commits:
                try:
                    snap = store.read(path)
                except Exception:  # a torn read that did not settle: read again
                    continue
                taken = {e.id for e in snap.pad.entries if e.id and e.id.startswith("w")}
                entries = [
                    make_entry("plan", f"commit {made + 1}", id="p1") if e.id == "p1" else e
                    for e in snap.pad.entries
                    if e.id not in taken
                ]
                try:
                    store.commit(snap, entries, journal=journal)
                    made += 1
                    accounted |= taken  # the commit read them and took them out, on purpose
                except store.Conflict:
                    conflicts += 1
        finally:
            open(stop, "w").close()
            os.waitpid(pid, 0)
        elapsed = time.perf_counter() - started
        with open(log, encoding="utf-8") as f:
            written = {line.strip() for line in f if line.strip()}
        final = store.read(path)
        present = {e.id for e in final.pad.entries if e.id and e.id.startswith("w")}
        kept: set[str] = set()  # in a version a conflict named as kept beside the pad
        for name in os.listdir(folder):
            if ".padtui-rescued-" in name:
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    kept |= set(re.findall(r'"id": "(w\d+)"', f.read()))
        kept -= present | accounted
        lost = len(written - present - accounted - kept)
        return {
            "commits": made,
            "conflicts": conflicts,
            "writes": len(written),
            "lost": lost,
            "kept": len(kept),
            "loss_per_commit": lost / made if made else 0.0,
            "seconds": elapsed,
        }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--commits", type=int, default=400)
    ap.add_argument("--mode", default="rplus,append")
    ap.add_argument("--pause", type=float, default=3.0, help="the writer's pause, ms (at most)")
    ap.add_argument("--journal", action="store_true", help="journal as commits do by default")
    ap.add_argument(
        "--no-leases", action="store_true", help="as on a system that cannot tell open writers"
    )
    ap.add_argument("--replace", action="store_true", help="swap by os.replace, not exchange")
    args = ap.parse_args()
    from padtui.core.storage import fsio

    state = tempfile.TemporaryDirectory()  # the journals, when --journal
    os.environ["XDG_STATE_HOME"] = state.name
    if args.no_leases:
        fsio.no_writers = lambda fd: None
    if args.replace:
        fsio.USE_EXCHANGE = False
    folder = tempfile.gettempdir()
    print(f"swap by exchange: {fsio.swaps_by_exchange(folder)}; load: {os.getloadavg()}")
    for mode in args.mode.split(","):
        rows = [
            one_run(mode, args.commits, args.pause, seed, args.journal) for seed in range(args.runs)
        ]
        rates = [r["loss_per_commit"] for r in rows]
        for r in rows:
            print(
                f"  {mode:<6} commits {r['commits']:>4}  conflicts {r['conflicts']:>4}  "
                f"writes {r['writes']:>5}  kept {r['kept']:>3}  lost {r['lost']:>4}  "
                f"loss/commit {r['loss_per_commit']:6.1%}  {r['seconds']:.1f} s"
            )
        print(
            f"{mode}: {len(rows)} runs, loss per commit median {statistics.median(rates):.1%} "
            f"(range {min(rates):.1%}-{max(rates):.1%}); "
            f"lost {sum(r['lost'] for r in rows)} of {sum(r['writes'] for r in rows)} writes, "
            f"{sum(r['commits'] for r in rows)} commits, "
            f"{sum(r['conflicts'] for r in rows)} conflicts"
        )
    sys.stdout.flush()
    state.cleanup()


if __name__ == "__main__":
    main()
