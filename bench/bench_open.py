"""Benchmark: opening a large pad in the inspector, until its first version is on screen.

The inspector (``PadApp``, headless under ``App.run_test``, not journaling) opens pads of
``bench/padgen.py`` of several sizes, each open in a new process (whose caches are empty, as
a new ``padtui PATH``'s are), timed in it from the app's making: the time until the first
frame (which says "reading PAD"), until the first version is on screen (its tokens
counted, its claims, the audit's totals, the first rows of the panes laid out), and until
every entry's row is in the panes and laid out (a step at a time, see ``EntryPane``).
Python's start and the imports are not in it (see BENCHMARKS.md). Three ways, alternated
in each round:

- ``no-cache``: ``--no-cache``, the encoding loaded before the app starts (as padtui did);
- ``cold``: the pad's count cache empty (a first open: every text counted, then kept);
- ``warm``: the count cache the open before wrote (a reopen: nothing tokenized, and the
  encoder not even loaded when every text is found there; the figure says whether it was).

Run: python bench/bench_open.py [--tokens 4000 200000 1000000] [--runs 3]
     [--modes no-cache cold warm]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import padgen

MODES = ("no-cache", "cold", "warm")


async def open_once(path: str, mode: str) -> dict[str, object]:
    from padtui.core.counting import tokens
    from padtui.tui.app import make_app
    from padtui.tui.widgets import EntryPane

    if mode == "no-cache":
        tokens.counter_for()  # the encoding, loaded before the app starts (as padtui did)
    app = make_app(path, use_journal=False, count_cache=mode != "no-cache")
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
        loaded = app.inspection.counter.loaded
        # every entry's row in the panes (a large pad's are first shown in part) and laid
        # out (measured: the scroll bars whole), looked at every millisecond (a look at
        # every turn of the event loop would keep it busy, and slow what it times)
        panes = list(app.inspector.query(EntryPane))
        entries = len(app.inspection.current.pad.entries)

        async def all_laid_out() -> None:
            while sum(p.laid_out for p in panes) < entries:
                await asyncio.sleep(0.001)

        await asyncio.wait_for(all_laid_out(), 120)
        laid = time.perf_counter()
    return {
        "frame": first_frame[0] - start,
        "shown": shown[0] - start,
        "laid": laid - start,
        "loaded": loaded,
    }


def one(path: str, mode: str, cache: str) -> dict[str, object]:
    """One open in a new process (its count cache in ``cache``)."""
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # (the editable install's bytecode is kept)
    out = subprocess.run(
        [sys.executable, __file__, "--one", path, mode],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    got: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, nargs="+", default=[4000, 200_000, 1_000_000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    ap.add_argument("--one", nargs=2, metavar=("PATH", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        import padtui.tui.app  # noqa: F401 (the imports, before the timer)

        print(json.dumps(asyncio.run(open_once(args.one[0], args.one[1]))))
        return
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="padtui-bench-") as tmp:
        for n in args.tokens:
            path = os.path.join(tmp, f"pad-{n}.json")
            size = padgen.make_pad(path, n)
            runs: dict[str, list[dict[str, object]]] = {m: [] for m in args.modes}
            for r in range(args.runs):
                cache = os.path.join(tmp, f"cache-{n}-{r}")
                for mode in args.modes:  # (cold before warm: warm reads what cold wrote)
                    if mode == "warm" and not os.path.isdir(cache):
                        one(path, "cold", cache)
                    runs[mode].append(one(path, mode, cache))
                shutil.rmtree(cache, ignore_errors=True)
            for mode, got in runs.items():
                frame = statistics.median(float(str(g["frame"])) for g in got) * 1000
                shown = sorted(float(str(g["shown"])) * 1000 for g in got)
                laid = sorted(float(str(g["laid"])) * 1000 for g in got)
                loaded = sum(bool(g["loaded"]) for g in got)
                print(
                    f"{n:>9} tokens ({size / 2**20:.1f} MiB), {mode:>8}: first frame {frame:.0f} "
                    f"ms, first version on screen {statistics.median(shown):.0f} ms (median of "
                    f"{len(got)}, {shown[0]:.0f}-{shown[-1]:.0f}), every row laid out "
                    f"{statistics.median(laid):.0f} ms ({laid[0]:.0f}-{laid[-1]:.0f}); encoder "
                    f"loaded in {loaded} of {len(got)}",
                    flush=True,
                )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
