"""The fleet view under load: 200 pads, each rewritten once a second.

Run: python bench/bench_fleet.py [--pads 200] [--tokens 4000] [--seconds 20]

``FleetApp`` (``padtui DIR``) runs headless under ``App.run_test`` on a folder of ``--pads``
pads of about ``--tokens`` tokens (bench/padgen.py), journaling every version into a
temporary state folder. A writer process (the agents) then rewrites every pad once a second, one
entry changed each time, the saves spread evenly over the second (200 pads: one save every
5 ms), by atomic rename. Meanwhile the benchmark measures what a person at the screen gets:

- *key latency*: every 200 ms a key (down, then up) is posted to the table; from then to the
  first frame composited after the cursor moved;
- *loop lag*: a 20 ms timer on the screen's event loop, and how late it fires (everything
  the screen's thread does holds it up);
- *staleness*: from an agent's save to the pad's row showing that version (the writer stamps
  the entry it changes with the time of the save);
- *frames*: each frame's render by the compositor, in wall and in CPU time of the screen's
  thread (the difference is its wait for the interpreter's lock, which the readers' threads
  share);

and the throughput: saves made, versions taken in, batches (the folder watch merges the
events of a quiet moment into one batch, and a batch read while others queue up takes them
all in at once), and the fleet process's CPU time (the writer's is not counted). The first
look at the folder (every pad read, audited and journaled) is timed too.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import padgen


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def run(
    folder: str, pads: int, tokens: int, seconds: float, cache: bool = True
) -> dict[str, Any]:
    from textual import events

    from padtui.tui.fleet import FleetApp, FleetTable

    for i in range(pads):
        entries = padgen.pad_entries(tokens, seed=i)
        padgen.write_pad(os.path.join(folder, f"agent-{i:03}.json"), entries, int(tokens * 0.8))

    app = FleetApp(folder, count_cache=cache)
    frames: list[float] = []
    display = app._display

    def hooked_display(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if renderable is not None:
            frames.append(time.perf_counter())

    app._display = hooked_display  # type: ignore[method-assign]
    moves: list[float] = []  # when the table's cursor moved
    watch_cursor = FleetTable.watch_cursor

    def hooked_watch_cursor(table: Any, old: int, new: int) -> None:
        moves.append(time.perf_counter())
        watch_cursor(table, old, new)

    FleetTable.watch_cursor = hooked_watch_cursor  # type: ignore[method-assign,assignment]
    staleness: list[float] = []  # ms from a save to its row on screen
    show = app._show

    def hooked_show(results: Any) -> None:
        show(results)
        now = time.monotonic()
        for _pad, _reading, observed, _prepared in results:
            if observed is not None:
                saved = [e.raw.get("saved_at", 0) for e in observed.version.pad.entries]
                if max(saved) > 0:
                    staleness.append((now - max(saved)) * 1000)

    app._show = hooked_show  # type: ignore[method-assign]
    # each frame's render by the compositor on the screen's thread: its wall time, and its CPU
    # time (the difference is the time the thread waited for the interpreter's lock)
    from textual._compositor import Compositor

    renders: list[tuple[float, float]] = []
    render_update = Compositor.render_update

    def timed_render(compositor: Any, *args: Any, **kwargs: Any) -> Any:
        wall, cpu_time = time.perf_counter(), time.thread_time()
        try:
            return render_update(compositor, *args, **kwargs)
        finally:
            renders.append(
                ((time.perf_counter() - wall) * 1000, (time.thread_time() - cpu_time) * 1000)
            )

    Compositor.render_update = timed_render  # type: ignore[method-assign]

    pauses: list[float] = []  # the cyclic garbage collector's full collections (ms)
    started: list[float] = []

    def gc_watch(phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            pauses.append((time.perf_counter() - started.pop()) * 1000)

    gc.callbacks.append(gc_watch)
    t0 = time.perf_counter()
    async with app.run_test(size=(160, 50)) as pilot:
        await asyncio.wait_for(app.fleet_ready.wait(), 300)
        first_look = time.perf_counter() - t0
        await pilot.pause()
        table = app.fleet_screen.table
        lags: list[float] = []
        expected = [time.perf_counter() + 0.02]

        def tick() -> None:
            now = time.perf_counter()
            lags.append((now - expected[0]) * 1000)
            expected[0] = now + 0.02

        timer = app.set_interval(0.02, tick)
        versions_before = sum(
            p.inspection.released + len(p.inspection.versions) for p in app.pads.values()
        )
        batches_before = app.batches
        cpu0 = cpu()
        del renders[:]  # (those of the measured seconds only)
        writer = subprocess.Popen(
            [sys.executable, __file__, "--writer", folder, str(pads), str(tokens), str(seconds)]
        )
        keys: list[float] = []
        deadline = time.perf_counter() + seconds
        down = True
        while time.perf_counter() < deadline:
            await asyncio.sleep(0.2)
            row = table.cursor
            start = time.perf_counter()
            app.post_message(events.Key("down" if down else "up", None))
            while table.cursor == row and time.perf_counter() - start < 5:
                await asyncio.sleep(0.001)
            # the first frame composited once the cursor moved shows the key (it may come
            # before this loop, polling under load, finds the move: it counts all the same)
            moved = max([start, *(t for t in moves[-2:] if t >= start)])
            while not (frames and frames[-1] >= moved) and time.perf_counter() - start < 5:
                await asyncio.sleep(0.001)
            shown = next((t for t in frames if t >= moved), moved)
            keys.append((shown - start) * 1000)
            down = not down
        await asyncio.to_thread(writer.wait)
        work = cpu() - cpu0
        await asyncio.sleep(1.0)  # let the last saves land
        timer.stop()
        measured = renders[:]
        Compositor.render_update = render_update  # type: ignore[method-assign]
        with open(os.path.join(folder, ".saves")) as f:
            saves = int(f.read())
        versions = (
            sum(p.inspection.released + len(p.inspection.versions) for p in app.pads.values())
            - versions_before
        )
        batches = app.batches - batches_before
    return {
        "pads": pads,
        "tokens": tokens,
        "seconds": seconds,
        "first_look_s": first_look,
        "saves": saves,
        "versions_taken_in": versions,
        "batches": batches,
        "cpu_s": work,
        "key_ms": {p: pct(keys, p) for p in (50, 95, 99)},
        "lag_ms": {p: pct(lags, p) for p in (50, 95, 99)},
        "staleness_ms": {p: pct(staleness, p) for p in (50, 95, 99)},
        "keys": len(keys),
        "frames": len(measured),
        "frame_render_ms": {p: pct([w for w, _c in measured], p) for p in (50, 95, 99)},
        "frame_render_cpu_ms": {p: pct([c for _w, c in measured], p) for p in (50, 95, 99)},
        "full_gc_pauses_ms": sorted(pauses)[-5:],
    }


def writer(folder: str, pads: int, tokens: int, seconds: float) -> None:
    """The agents (a process of their own): every pad saved once a second, one entry changed
    each time (stamped with the time of the save), the saves spread evenly over the second.
    Each entry's JSON is kept, so that a save costs the agents little of the machine."""
    names = [f"agent-{i:03}.json" for i in range(pads)]
    head = (
        f'{{\n  "budget_tokens": {int(tokens * 0.8)},\n  "encoding": "cl100k_base",\n'
        '  "entries": [\n    '
    )
    tail = "\n  ]\n}\n"
    docs = {}
    for i, name in enumerate(names):
        entries = padgen.pad_entries(tokens, seed=i)
        docs[name] = (entries, [_dumped(e) for e in entries])
    rng = random.Random(7)
    gap = 1.0 / pads
    start = time.perf_counter()
    k = 0
    while time.perf_counter() - start < seconds:
        name = names[k % pads]
        entries, pieces = docs[name]
        i = rng.randrange(len(entries) // 40 + 1, len(entries))  # a rewritable entry
        entries[i] = dict(entries[i], text=entries[i]["text"] + f" Revised {k}.")
        entries[i]["saved_at"] = time.monotonic()
        pieces[i] = _dumped(entries[i])
        data = (head + ",\n    ".join(pieces) + tail).encode()
        padgen.write_bytes(os.path.join(folder, name), data, atomic=True)
        k += 1
        wait = start + k * gap - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
    with open(os.path.join(folder, ".saves"), "w") as f:
        f.write(str(k))


def _dumped(entry: dict[str, Any]) -> str:
    return json.dumps(entry, indent=2).replace("\n", "\n    ")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--writer":
        folder, pads, tokens, seconds = sys.argv[2:6]
        writer(folder, int(pads), int(tokens), float(seconds))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pads", type=int, default=200)
    ap.add_argument("--tokens", type=int, default=4000)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--json", metavar="FILE", help="also write the figures here")
    ap.add_argument("--no-cache", action="store_true", help="the pads' count caches not used")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="padtui-bench-") as tmp:
        os.environ["XDG_STATE_HOME"] = os.path.join(tmp, "state")
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")  # (the pads' count caches)
        folder = os.path.join(tmp, "pads")
        os.mkdir(folder)
        got = asyncio.run(run(folder, args.pads, args.tokens, args.seconds, not args.no_cache))
    k, lag, stale = got["key_ms"], got["lag_ms"], got["staleness_ms"]
    print(
        f"{got['pads']} pads of ~{got['tokens']} tokens, each saved once a second for "
        f"{got['seconds']:g} s ({got['saves']} saves)"
    )
    print(f"first look at the folder (all read, audited, journaled): {got['first_look_s']:.2f} s")
    print(
        f"key -> frame:      p50 {k[50]:6.1f}  p95 {k[95]:6.1f}  p99 {k[99]:6.1f} ms "
        f"({got['keys']} keys)"
    )
    print(f"longest full garbage collections: {[round(p) for p in got['full_gc_pauses_ms']]} ms")
    print(f"event-loop lag:    p50 {lag[50]:6.1f}  p95 {lag[95]:6.1f}  p99 {lag[99]:6.1f} ms")
    fr, fc = got["frame_render_ms"], got["frame_render_cpu_ms"]
    print(
        f"frame render:      p50 {fr[50]:6.1f}  p95 {fr[95]:6.1f}  p99 {fr[99]:6.1f} ms wall, "
        f"p50 {fc[50]:.1f}  p95 {fc[95]:.1f}  p99 {fc[99]:.1f} ms CPU ({got['frames']} frames)"
    )
    print(f"save -> row:       p50 {stale[50]:6.1f}  p95 {stale[95]:6.1f}  p99 {stale[99]:6.1f} ms")
    print(
        f"versions taken in: {got['versions_taken_in']} of {got['saves']} saves "
        f"({got['batches']} batches, {got['versions_taken_in'] / max(got['batches'], 1):.1f} "
        f"versions a batch); CPU {got['cpu_s'] / got['seconds']:.2f} s per second"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(got, f, indent=2)


if __name__ == "__main__":
    main()
