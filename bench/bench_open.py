"""Benchmark: opening a large pad in the inspector, until its first version is on screen.

The inspector (``PadApp``, headless under ``App.run_test``, not journaling) opens pads of
``bench/padgen.py`` of several sizes; each figure is the median of ``--runs`` fresh apps (a
fresh token cache each time, as a new ``padtui PATH`` has): the time until the first frame
(which says "reading PAD") and the time until the first version is on screen (its tokens
counted, its claims, the audit's totals, the panes laid out). A new process also pays
Python's start, the imports and loading the encoding (about 0.3 s; see BENCHMARKS.md).

Run: python bench/bench_open.py [--tokens 4000 200000 1000000] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import padgen


async def open_once(path: str) -> tuple[float, float]:
    from padtui.core import tokens
    from padtui.tui.app import make_app

    tokens._counters.clear()  # a new process's empty token cache ...
    tokens.counter_for()  # ... and its encoding, loaded before the app starts (as padtui does)
    app = make_app(path, use_journal=False)
    start = time.perf_counter()
    first_frame: list[float] = []
    shown: list[float] = []
    drawn = asyncio.Event()
    display = app._display

    def timed_display(screen: object, renderable: object) -> None:
        display(screen, renderable)  # type: ignore[arg-type]
        if not renderable:
            return
        now = time.perf_counter()
        if not first_frame:
            first_frame.append(now)
        if app.ready.is_set() and not shown:  # the first frame with the version in it
            shown.append(now)
            drawn.set()

    app._display = timed_display  # type: ignore[method-assign]
    async with app.run_test(size=(160, 45)):
        await asyncio.wait_for(drawn.wait(), 120)
    return first_frame[0] - start, shown[0] - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, nargs="+", default=[4000, 200_000, 1_000_000])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="padtui-bench-") as tmp:
        for n in args.tokens:
            path = os.path.join(tmp, f"pad-{n}.json")
            size = padgen.make_pad(path, n)
            runs = [asyncio.run(open_once(path)) for _ in range(args.runs)]
            frame = statistics.median(r[0] for r in runs) * 1000
            shown = statistics.median(r[1] for r in runs) * 1000
            print(
                f"{n:>9} tokens ({size / 2**20:.1f} MiB): first frame {frame:.0f} ms, "
                f"first version on screen {shown:.0f} ms (median of {args.runs})",
                flush=True,
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
