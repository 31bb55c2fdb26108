"""Benchmark: what opening with the journal adds before the first version is on screen.

A pad of ``bench/padgen.py`` is journaled over ``--versions`` versions (one entry changed in
each, as live pads change); then, as a new ``padtui PATH`` does, a fresh :class:`Journal`
reads the journal file and the inspection takes in its newest versions (the fleet's
``FLEET_RECENT``; the inspector's ``RECENT_VERSIONS``, fewer past ``RECENT_BYTES``), each
rebuilt, parsed against the one before, counted and audited. Figures are medians of ``--runs``; the
token cache is emptied before each run (a new process's).

Run: python bench/bench_open_journal.py [--tokens 20000 200000] [--versions 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import padgen


def build(folder: str, tokens: int, versions: int) -> tuple[str, str]:
    from padtui.core.formats import parse
    from padtui.core.storage.journal import Journal

    path = os.path.join(folder, "pad.json")
    journal_path = os.path.join(folder, "pad.journal.jsonl")
    entries = padgen.pad_entries(tokens)
    rng = random.Random(1)
    journal = Journal(journal_path, path)
    previous = None
    for n in range(versions):
        if n:
            padgen.edit_one(entries, n, rng)
        padgen.write_pad(path, entries, tokens)
        with open(path, "rb") as f:
            data = f.read()
        previous = parse(path, data, "json", previous)
        journal.append(data, "json", "seen", previous)
    return path, journal_path


def open_once(
    path: str, journal_path: str, recent: int, most_bytes: int | None
) -> tuple[float, float]:
    from padtui.core.counting import tokens
    from padtui.core.live.inspection import Inspection
    from padtui.core.storage.journal import Journal

    tokens._counters.clear()
    tokens.counter_for()
    start = time.perf_counter()
    journal = Journal(journal_path, path)
    journal.versions()
    read = time.perf_counter() - start
    taken = Inspection(path).open_journal(journal, recent, most_bytes)
    assert taken >= min(2, recent)
    return read, time.perf_counter() - start


def main() -> None:
    from padtui.tui.fleet import FLEET_RECENT
    from padtui.tui.inspector import RECENT_BYTES, RECENT_VERSIONS

    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, nargs="+", default=[20000, 200000])
    ap.add_argument("--versions", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"{'tokens':>8} {'versions':>8} {'recent':>6} {'read journal':>13} {'open total':>11}")
    for tokens in args.tokens:
        with tempfile.TemporaryDirectory() as folder:
            path, journal_path = build(folder, tokens, args.versions)
            for recent, most in ((FLEET_RECENT, None), (RECENT_VERSIONS, RECENT_BYTES)):
                runs = [open_once(path, journal_path, recent, most) for _ in range(args.runs)]
                read = statistics.median(r[0] for r in runs)
                total = statistics.median(r[1] for r in runs)
                print(
                    f"{tokens:>8} {args.versions:>8} {recent:>6} {read * 1000:>10.0f} ms "
                    f"{total * 1000:>8.0f} ms"
                )


if __name__ == "__main__":
    main()
