"""Journal size for 1,000 versions of a 4k-token pad, one entry changed per version, and the
memory of the inspector after them.

Run: python bench/bench_journal.py [--versions 1000] [--tokens 4000]

The inspector (``PadApp``, headless under ``App.run_test``, journaling into a temporary state
folder as ``padtui PATH`` does into ``$XDG_STATE_HOME/padtui/``) takes in ``--versions``
versions of a pad of about 4k tokens (bench/padgen.py), each with one entry's text changed:
each version is written to disk, read as its folder watch reads it, and handed to the
inspector, which audits it, journals it and draws it. (Its watch itself is off, so that
the benchmark, not a timer, decides when each version comes.)

Figures: the journal's size on disk (content-addressed: an unchanged entry is stored once;
target under 5 MB) against what the versions weigh whole; the time to journal a version;
the inspector's memory (resident set of the process) before the first version and after
the last, with the share of it that Python's allocator holds for the versions (tracemalloc
would slow the run tenfold, so the resident set is what is reported); and a check that
every version comes back from the journal byte for byte.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
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


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def run(path: str, versions: int, tokens: int) -> dict[str, Any]:
    from padtui.core.live.watcher import read_once
    from padtui.core.storage import store
    from padtui.tui.app import make_app

    entries = padgen.pad_entries(tokens)
    budget = int(tokens * 0.8)
    padgen.write_pad(path, entries, budget)
    rng = random.Random(1000)
    app = make_app(path, watch=False)
    whole = os.path.getsize(path)
    journal_times = []
    record = store.record

    def timed_record(version: Any, journal: Any = True) -> Any:
        t = time.perf_counter()
        try:
            return record(version, journal)
        finally:
            journal_times.append(time.perf_counter() - t)

    store.record = timed_record  # type: ignore[assignment]
    async with app.run_test(size=(160, 45)) as pilot:
        await asyncio.wait_for(app.ready.wait(), 30)
        await pilot.pause()
        gc.collect()
        before = rss_kib()
        t0 = time.perf_counter()
        for v in range(versions):
            padgen.edit_one(entries, v, rng)
            whole += padgen.write_pad(path, entries, budget)
            app.take(read_once(path, quiet=0))  # (the settle interval is a wait, not work)
            if v % 50 == 0:
                await pilot.pause()  # let the screen draw now and then, as it would
        elapsed = time.perf_counter() - t0
        await pilot.pause()
        gc.collect()
        after = rss_kib()
        insp = app.inspection
        assert insp.current.number == versions, insp.current.number
        seen = len(insp.versions)
    store.record = record  # type: ignore[assignment]
    journal = store.journal_of(path, True)
    assert journal is not None
    size = os.path.getsize(journal.path)
    kept = journal.versions()
    for v in kept[:: max(1, len(kept) // 25)] + kept[-1:]:  # a sample, and the last
        journal.data(v.n)  # raises unless the bytes come back exactly (SHA-256 checked)
    return {
        "versions": versions,
        "tokens": tokens,
        "journal_bytes": size,
        "whole_bytes": whole,
        "journal_versions": len(kept),
        "journal_ms_median": statistics.median(journal_times) * 1000,
        "journal_ms_p95": sorted(journal_times)[int(0.95 * (len(journal_times) - 1))] * 1000,
        "versions_in_memory": seen,
        "rss_before_kib": before,
        "rss_after_kib": after,
        "rss_per_version_kib": (after - before) / versions,
        "seconds": elapsed,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--versions", type=int, default=1000)
    ap.add_argument("--tokens", type=int, default=4000)
    ap.add_argument("--json", metavar="FILE", help="also write the figures here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="padtui-bench-") as tmp:
        os.environ["XDG_STATE_HOME"] = os.path.join(tmp, "state")
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")  # (the count caches)
        folder = os.path.join(tmp, "pads")
        os.mkdir(folder)
        got = asyncio.run(run(os.path.join(folder, "pad.json"), args.versions, args.tokens))
    mb = got["journal_bytes"] / 1e6
    print(
        f"{got['versions']} versions of a {got['tokens']}-token pad, one entry changed each "
        f"({got['whole_bytes'] / 1e6:.1f} MB if stored whole)"
    )
    print(
        f"journal: {mb:.2f} MB ({got['journal_bytes'] / got['versions'] / 1024:.2f} KiB a "
        f"version; target < 5 MB: {'met' if mb < 5 else 'MISSED'}); every version sampled "
        "came back byte for byte"
    )
    print(
        f"journaling a version: median {got['journal_ms_median']:.2f} ms, "
        f"p95 {got['journal_ms_p95']:.2f} ms (fsync included)"
    )
    print(
        f"inspector memory (resident): {got['rss_before_kib'] / 1024:.1f} MiB at the first "
        f"version, {got['rss_after_kib'] / 1024:.1f} MiB after {got['versions']} "
        f"({got['rss_per_version_kib']:.1f} KiB a version; all {got['versions_in_memory']} "
        "versions kept for the history)"
    )
    print(f"({got['seconds']:.1f} s for the run)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(got, f, indent=2)


if __name__ == "__main__":
    main()
