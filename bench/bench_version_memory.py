"""Benchmark: the memory each kept version of a live pad costs the inspector.

An inspection (``padtui.core.live.inspection.Inspection``, as the inspector and the fleet keep
one a pad) takes in ``--versions`` versions of a pad of ``--tokens`` tokens
(``bench/padgen.py``), one entry changed each, each read against the version before as the
watch reads it, examined and journaled as the inspector does (``--no-journal``: not). The
figure is what the versions hold once all are in (``tracemalloc``, after a full collection),
less what the first held, per kept version: the inspection's and the journal's. An older
version journaled keeps its parse and reads its bytes back from the journal on demand; the
current one, and every one without a journal, holds them.

Run: python bench/bench_version_memory.py [--tokens 200000] [--versions 30] [--no-journal]
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
from hashlib import sha256

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import padgen


def main() -> None:
    from padtui.core.live.inspection import Inspection, journal_seen
    from padtui.core.live.watcher import read_once
    from padtui.core.storage.store import Snapshot

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, default=200_000)
    ap.add_argument("--versions", type=int, default=30)
    ap.add_argument("--no-journal", action="store_true", help="keep every version's bytes")
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

        journal = False if args.no_journal else os.path.join(tmp, "pad.jsonl")
        insp = Inspection(path)

        def take(snapshot: Snapshot | None) -> None:
            assert snapshot is not None
            examined = insp.examine(snapshot)
            assert examined is not None
            journaled = journal_seen(snapshot, journal)
            insp.take_in(examined, number=journaled.number, journal=journaled.journal)

        tracemalloc.start()  # (from the first version on: its bytes, let go, count too)
        save(0)
        take(read_once(path).snapshot)
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        for n in range(1, args.versions + 1):
            save(n)
            take(read_once(path, insp.current.pad_file).snapshot)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
        size = os.path.getsize(path)
        holding = sum(v.holds_bytes for v in insp.versions)
        if not args.no_journal:  # (every older version's bytes come back, byte for byte)
            assert all(sha256(v.snapshot.data).hexdigest() == v.digest for v in insp.versions)
    kept = args.versions
    print(
        f"{args.tokens} tokens ({size / 2**20:.2f} MiB a version's bytes), "
        f"{'no journal' if args.no_journal else 'journaled'}: "
        f"{held / kept / 2**20:.3f} MiB a kept version ({kept} versions, {held / 2**20:.1f} MiB); "
        f"{holding} of {len(insp.versions)} versions hold their bytes",
        flush=True,
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
