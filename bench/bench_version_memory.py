"""Benchmark: the memory each kept version of a live pad costs the inspector.

An inspection (``padtui.core.inspection.Inspection``, as the inspector and the fleet keep
one a pad) takes in ``--versions`` versions of a pad of ``--tokens`` tokens
(``bench/padgen.py``), one entry changed each, each read against the version before as the
watch reads it. ``tracemalloc`` measures what the versions hold once all are in (after a
full collection), less what the first held: the figure is per kept version, with the share
that is the version's bytes (kept whole, for a commit's compare-and-swap and the history).

Run: python bench/bench_version_memory.py [--tokens 200000] [--versions 30]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import tempfile
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import padgen


def main() -> None:
    from padtui.core.inspection import Inspection
    from padtui.core.watcher import read_once

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, default=200_000)
    ap.add_argument("--versions", type=int, default=30)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="padtui-bench-") as tmp:
        path = os.path.join(tmp, "pad.json")
        entries = padgen.pad_entries(args.tokens)
        budget = int(args.tokens * 0.8)
        rng = random.Random(5)

        def save(n: int) -> None:
            if n:
                padgen.edit_one(entries, n, rng)
            doc = {"budget_tokens": budget, "encoding": "cl100k_base", "entries": entries}
            padgen.write_bytes(path, json.dumps(doc, indent=2).encode("utf-8"))

        insp = Inspection(path)
        save(0)
        first = read_once(path)
        assert first.snapshot is not None
        insp.observe(first.snapshot)
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        for n in range(1, args.versions + 1):
            save(n)
            reading = read_once(path, insp.current.pad_file)
            assert reading.snapshot is not None
            insp.observe(reading.snapshot)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
        size = os.path.getsize(path)
    kept = args.versions
    print(
        f"{args.tokens} tokens ({size / 2**20:.2f} MiB a version's bytes): "
        f"{held / kept / 2**20:.2f} MiB a kept version ({kept} versions, {held / 2**20:.1f} MiB); "
        f"its bytes {size / 2**20:.2f} MiB of it",
        flush=True,
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
