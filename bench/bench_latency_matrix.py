"""Write -> screen latency of the inspector, for pads of 1k, 4k, 50k and 200k tokens, saved
by atomic rename and in place: p50 / p95 / p99.

Run: python bench/bench_latency_matrix.py [--writes 40] [--sizes 1000 4000 50000 200000]

The inspector (``PadApp``, exactly as ``padtui PATH`` runs it: watching the pad's folder,
journaling every version into a temporary state folder) runs headless under
``App.run_test``, 160 x 45 cells. For each size a pad is written (bench/padgen.py) and then
rewritten ``--writes`` times per mode, one entry changed each time, as an agent saves:

- *atomic*: a temporary file written beside the pad and renamed over it;
- *in place*: the pad opened with O_TRUNC and written.

A latency runs from just before the write starts to the moment the first frame that holds
the new version has been composited and rendered into the segments a terminal would be sent
(a headless app skips that last step, so the benchmark does it, as a terminal would cost
it). The inspector's ``refresh_view`` is hooked to note when the new version reached its
widgets, and its ``_display`` to note the frame. Writes are spaced by a pause, so each
latency is one save's, not a queue's. bench/bench_latency.py measures the same path for 4k
and 200k tokens with a breakdown of where the time goes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import padgen

TIMEOUT = 10.0  # a write that never reaches the screen within this is counted as missed
PAUSE = 0.05  # between two saves


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


async def run_size(path: str, tokens: int, writes: int, modes: list[str]) -> dict[str, Any]:
    from padtui.tui.app import make_app

    app = make_app(path)
    want = {"number": -1, "start": 0.0, "drawn": 0.0}
    done = asyncio.Event()
    latencies: dict[str, list[float]] = {m: [] for m in modes}
    to_widgets: dict[str, list[float]] = {m: [] for m in modes}
    missed = dict.fromkeys(modes, 0)

    refresh_view, display = app.inspector.refresh_view, app._display

    def hooked_refresh() -> None:
        refresh_view()
        insp = app.inspection
        if insp.versions and insp.current.number == want["number"] and not want["drawn"]:
            want["drawn"] = time.perf_counter()

    def hooked_display(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if want["drawn"] and renderable is not None and not done.is_set():
            renderable.render_segments(app.console)  # the bytes' worth a terminal is sent
            done.set()

    app.inspector.refresh_view = hooked_refresh  # type: ignore[method-assign]
    app._display = hooked_display  # type: ignore[method-assign]

    entries = padgen.pad_entries(tokens)
    budget = int(tokens * 0.8)
    rng = random.Random(tokens)
    async with app.run_test(size=(160, 45)) as pilot:
        await asyncio.wait_for(app.ready.wait(), 60)
        await asyncio.wait_for(app.watch_armed.wait(), 60)
        await pilot.pause()
        for mode in modes:
            for _ in range(writes):
                number = app.inspection.current.number + 1
                padgen.edit_one(entries, number, rng)
                doc = {"budget_tokens": budget, "encoding": "cl100k_base", "entries": entries}
                data = json.dumps(doc, indent=2).encode("utf-8")
                done.clear()
                want.update(number=number, start=time.perf_counter(), drawn=0.0)
                padgen.write_bytes(path, data, atomic=mode == "atomic")
                try:
                    await asyncio.wait_for(done.wait(), TIMEOUT)
                except TimeoutError:
                    missed[mode] += 1
                else:
                    end = time.perf_counter()
                    latencies[mode].append((end - want["start"]) * 1000)
                    to_widgets[mode].append((want["drawn"] - want["start"]) * 1000)
                want["number"] = -1
                await asyncio.sleep(PAUSE)
    return {"latencies": latencies, "to_widgets": to_widgets, "missed": missed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000, 50_000, 200_000])
    ap.add_argument("--modes", nargs="+", default=["atomic", "inplace"])
    ap.add_argument("--writes", type=int, default=40)
    ap.add_argument("--json", metavar="FILE", help="also write the figures here")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="padtui-bench-") as tmp:
        os.environ["XDG_STATE_HOME"] = os.path.join(tmp, "state")  # the journal goes here
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")  # (the count caches)
        print(
            f"{'tokens':>8} {'mode':<8} {'n':>3} {'p50':>7} {'p95':>7} {'p99':>7} {'max':>7}"
            f"   (ms, write -> frame; median write -> widgets)",
            flush=True,
        )
        for tokens in args.sizes:
            folder = os.path.join(tmp, f"pad-{tokens}")
            os.mkdir(folder)
            path = os.path.join(folder, "pad.json")
            size = padgen.make_pad(path, tokens)
            got = asyncio.run(run_size(path, tokens, args.writes, args.modes))
            for mode in args.modes:
                lat = got["latencies"][mode]
                row = {
                    "tokens": tokens,
                    "bytes": size,
                    "mode": mode,
                    "n": len(lat),
                    "missed": got["missed"][mode],
                    "p50": percentile(lat, 50),
                    "p95": percentile(lat, 95),
                    "p99": percentile(lat, 99),
                    "max": max(lat),
                    "to_widgets_median": statistics.median(got["to_widgets"][mode]),
                }
                rows.append(row)
                print(
                    f"{tokens:>8} {mode:<8} {row['n']:>3} {row['p50']:>7.1f} {row['p95']:>7.1f}"
                    f" {row['p99']:>7.1f} {row['max']:>7.1f}   "
                    f"({row['to_widgets_median']:.1f}; {size / 1024:,.0f} KiB"
                    + (f"; {row['missed']} missed" if row["missed"] else "")
                    + ")",
                    flush=True,
                )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
