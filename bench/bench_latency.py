"""Benchmark: from an agent's write to the inspector's screen showing it (the README's
"Performance": new versions appear within 100 ms of the write).

The inspector runs headless (``App.run_test``) on a pad of about 4k tokens and one of about
200k (``bench/padgen.py``), watching its folder as it does in a terminal, journaling every
version (into a temporary state folder). The benchmark rewrites one entry per version, as an
agent would: a temporary file renamed over the pad, or the pad rewritten in place; any
rewritable entry at random (the pane then scrolls somewhere new each time), or with
``--near-end N`` one of the last N, as an agent working on its latest notes does. Each
latency runs from just before the write starts to the moment the frame holding the new
version has been composited and turned into the bytes a terminal would be sent (a headless
app skips that last step, so the benchmark does it). Figures: p50 / p95 / p99 / max in ms,
and where the time goes (medians): the watch, from the write to the first look of the read
that waits for the file to settle; that settling read, which takes the file once it has stayed
the same for the settle interval (``store.SETTLE_QUIET``, 20 ms: a floor of every figure
here), while the version's parse and examination (counts, audit) begin in a worker thread;
what is left of the examination; taking the version in and drawing its widgets on the
screen's thread; the frame. (The version is journaled after the frame that shows it.)

Run: python bench/bench_latency.py [--writes N] [--sizes 4000,200000] [--near-end N] [--profile]
Targets: p95 < 100 ms at 4k tokens, < 300 ms at 200k.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import padgen  # bench/padgen.py, beside this file

TARGETS = {4000: 100.0, 200_000: 300.0}
TIMEOUT = 10.0  # a write not on screen after this long counts as missed


@dataclass
class Sample:
    start: float  # the write begins
    looked: float = 0.0  # the settling read of it begins (the watch has seen the write)
    settled: float = 0.0  # ... and ends: the file has stayed as it is for the settle interval
    taken: float = 0.0  # the screen starts taking the new version in (examined)
    drawn: float = 0.0  # ... and has drawn it into its widgets
    shown: float = 0.0  # the frame is composited and rendered for the terminal


@dataclass
class Run:
    tokens: int
    mode: str
    samples: list[Sample] = field(default_factory=list)
    missed: int = 0


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


async def measure(
    path: str, tokens: int, modes: list[str], writes: int, near_end: int = 0
) -> list[Run]:
    from padtui.tui.app import make_app

    app = make_app(path)
    expected = -1  # the version number the benchmark waits for
    current: Sample | None = None
    shown = asyncio.Event()

    screen = app.inspector  # (the pad's screen: a reading comes to it journaled, examined)
    take, display = screen.take_prepared, app._display

    def timed_take(prepared: Any) -> None:
        if current is not None and not current.taken:
            current.taken = time.perf_counter()
        take(prepared)
        insp = app.inspection
        if current is not None and insp.versions and insp.current.number == expected:
            current.drawn = current.drawn or time.perf_counter()

    def timed_display(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if current is not None and current.drawn and not current.shown and renderable:
            renderable.render_segments(app.console)  # what a terminal would be sent
            current.shown = time.perf_counter()
            shown.set()

    import padtui.core.live.watcher as watcher

    read_settled = watcher.read_settled

    async def timed_read(*args: Any, **kwargs: Any) -> Any:
        sample = current
        if sample is not None and not sample.looked:
            sample.looked = time.perf_counter()
        reading = await read_settled(*args, **kwargs)
        if sample is not None and sample is current and not sample.settled:
            sample.settled = time.perf_counter()
        return reading

    watcher.read_settled = timed_read  # (what watch_pad reads each change with)
    screen.take_prepared = timed_take  # type: ignore[method-assign]
    app._display = timed_display  # type: ignore[method-assign]

    entries = padgen.pad_entries(tokens)
    budget = int(tokens * 0.8)
    rng = random.Random(11)
    runs = []
    async with app.run_test(size=(160, 45)) as pilot:
        await asyncio.wait_for(app.ready.wait(), 30)
        await asyncio.wait_for(app.watch_armed.wait(), 30)
        await pilot.pause()
        for mode in modes:
            run = Run(tokens, mode)
            for _ in range(writes):
                expected = app.inspection.current.number + 1
                padgen.edit_one(entries, expected, rng, near_end)
                doc = {"budget_tokens": budget, "encoding": "cl100k_base", "entries": entries}
                data = json.dumps(doc, indent=2).encode("utf-8")
                shown.clear()
                current = Sample(time.perf_counter())
                padgen.write_bytes(path, data, atomic=mode == "atomic")
                try:
                    await asyncio.wait_for(shown.wait(), TIMEOUT)
                    run.samples.append(current)
                except TimeoutError:
                    run.missed += 1
                current = None
                await asyncio.sleep(0.02)  # let the watch settle between two saves
            runs.append(run)
    watcher.read_settled = read_settled
    return runs


def report(run: Run) -> str:
    total = [(s.shown - s.start) * 1000 for s in run.samples]
    watch = [(s.looked - s.start) * 1000 for s in run.samples]
    settle = [(s.settled - s.looked) * 1000 for s in run.samples]
    examine = [(s.taken - s.settled) * 1000 for s in run.samples]
    take = [(s.drawn - s.taken) * 1000 for s in run.samples]
    frame = [(s.shown - s.drawn) * 1000 for s in run.samples]
    target = TARGETS.get(run.tokens)
    verdict = ""
    if target is not None and total:
        verdict = "  OK" if pct(total, 95) < target else f"  MISSES p95 < {target:g} ms"
    line = (
        f"{run.tokens // 1000:>4}k tokens  {run.mode:<8} n={len(total):<3}"
        f" p50 {pct(total, 50):6.1f}  p95 {pct(total, 95):6.1f}  p99 {pct(total, 99):6.1f}"
        f"  max {max(total):6.1f} ms{verdict}"
    )
    line += (
        f"\n{'':14}median: watch {statistics.median(watch):4.1f} · settling read "
        f"{statistics.median(settle):4.1f} · examine {statistics.median(examine):4.1f}"
        f" · take in {statistics.median(take):4.1f} · frame {statistics.median(frame):4.1f} ms"
    )
    if run.missed:
        line += f"\n{'':14}{run.missed} writes never reached the screen within {TIMEOUT:g} s"
    return line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=40, help="writes per size and mode")
    parser.add_argument("--sizes", default="4000,200000", help="pad sizes in tokens")
    parser.add_argument("--modes", default="atomic,inplace")
    parser.add_argument("--profile", action="store_true", help="cProfile the run, top 25")
    parser.add_argument(
        "--near-end",
        type=int,
        default=0,
        metavar="N",
        help="edit one of the last N rewritable entries each time (default: any of them)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = args.modes.split(",")
    with tempfile.TemporaryDirectory(prefix="padtui-bench-") as tmp:
        os.environ["XDG_STATE_HOME"] = os.path.join(tmp, "state")  # the journal goes here
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")  # and the count cache
        for tokens in sizes:
            folder = os.path.join(tmp, f"pad-{tokens}")
            os.mkdir(folder)
            path = os.path.join(folder, "pad.json")
            size = padgen.make_pad(path, tokens)
            print(f"pad of ~{tokens} tokens: {size / 1024:.0f} KiB", flush=True)
            profiler = cProfile.Profile() if args.profile else None
            if profiler is not None:
                profiler.enable()
            runs = asyncio.run(measure(path, tokens, modes, args.writes, args.near_end))
            if profiler is not None:
                profiler.disable()
            for run in runs:
                print(report(run), flush=True)
            if profiler is not None:
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
                print(out.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
