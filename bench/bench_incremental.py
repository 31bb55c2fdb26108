"""Incremental cost: a new version of a 200k-token pad in which one entry changed.

Run: python bench/bench_incremental.py [--tokens 200000] [--versions 30]

The inspector's core (``Inspection``, as the live view and the fleet use it) takes in a pad of
about 200k tokens (bench/padgen.py), then ``--versions`` new versions, each with one entry's
text changed, as an agent saves them. For each new version it times, in process:

- *read*: the watcher's read of the file (stamped read, torn-write retries, JSON parse made
  against the version before, as the inspector and the fleet read: an entry whose JSON text
  is unchanged is taken over, the changed one parsed);
- *take in*: ``Inspection.observe``: token counts (cached by text: only the changed entry is
  encoded), claims, and the audit against the version before (entries matched by id, exact
  text, then close text);
- *journal*: the version journaled as the inspector journals it once it is on screen
  (``journal_seen``: cut at its entries' sources, new blobs written, fsync included), into a
  journal in the temporary folder;

and compares them with a full tokenization of the same pad (every entry's text encoded, as a
cold start does, in batch) and with taking in the same version with an empty token cache.
It also counts the texts actually sent to the encoder per version (one is the target).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import padgen

from padtui.core.counting.tokens import TokenCounter, counter_for
from padtui.core.live.inspection import Inspection, journal_seen
from padtui.core.live.watcher import read_once
from padtui.core.storage.journal import Journal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, default=200_000)
    ap.add_argument("--versions", type=int, default=30)
    ap.add_argument("--json", metavar="FILE", help="also write the figures here")
    args = ap.parse_args()
    rng = random.Random(17)
    with tempfile.TemporaryDirectory(prefix="padtui-bench-") as tmp:
        path = os.path.join(tmp, "pad.json")
        entries = padgen.pad_entries(args.tokens)
        budget = int(args.tokens * 0.8)
        size = padgen.write_pad(path, entries, budget)
        counter = counter_for()
        insp = Inspection(path)
        first = read_once(path, quiet=0)
        assert first.snapshot is not None
        t = time.perf_counter()
        insp.observe(first.snapshot)
        t_first = time.perf_counter() - t
        texts = [e.text for e in first.snapshot.pad.entries]
        tokens = insp.current.tokens

        # a full tokenization of the pad: every text encoded (batch, threads), best of 3
        full = []
        for _ in range(3):
            cold = TokenCounter(counter.encoding)  # (an empty cache; the encoding is shared)
            gc.collect()
            t = time.perf_counter()
            cold.count_many(texts)
            full.append(time.perf_counter() - t)
        t_full = min(full)

        encoded: list[int] = []
        real = counter._encode_chunk

        def counting(chunk: list[str], *rest: object) -> list[int]:
            encoded[-1] += len(chunk)
            return real(chunk, *rest)

        counter._encode_chunk = counting  # type: ignore[method-assign]
        journal = Journal(os.path.join(tmp, "journal.jsonl"), path)
        journal.append(first.snapshot.data, "json", "seen", insp.current.pad_file)
        reads, takes, appends = [], [], []
        for v in range(args.versions):
            padgen.edit_one(entries, v, rng)
            padgen.write_pad(path, entries, budget)
            encoded.append(0)
            gc.collect()
            t = time.perf_counter()
            # as the inspector reads, less its settle interval (a wait, not work)
            reading = read_once(path, insp.current.pad_file, quiet=0)
            t1 = time.perf_counter()
            assert reading.snapshot is not None
            observed = insp.observe(reading.snapshot)
            t2 = time.perf_counter()
            assert observed is not None and observed.version.verdict == "growth"
            t3 = time.perf_counter()
            journal_seen(insp.current.snapshot, journal)
            reads.append(t1 - t)
            takes.append(t2 - t1)
            appends.append(time.perf_counter() - t3)
        counter._encode_chunk = real  # type: ignore[method-assign]

        # the same last version taken in with an empty token cache, for comparison
        fresh = Inspection(path)
        fresh.observe(first.snapshot)
        saved = dict(counter._cache)
        counter._cache.clear()
        t = time.perf_counter()
        fresh.observe(reading.snapshot)
        t_uncached = time.perf_counter() - t
        counter._cache.update(saved)

    read_ms = statistics.median(reads) * 1000
    take_ms = statistics.median(takes) * 1000
    append_ms = statistics.median(appends) * 1000
    full_ms = t_full * 1000
    result = {
        "tokens": tokens,
        "entries": len(texts),
        "bytes": size,
        "first_version_ms": t_first * 1000,
        "full_tokenization_ms": full_ms,
        "read_median_ms": read_ms,
        "take_in_median_ms": take_ms,
        "take_in_p90_ms": sorted(takes)[int(0.9 * (len(takes) - 1))] * 1000,
        "take_in_uncached_ms": t_uncached * 1000,
        "journal_median_ms": append_ms,
        "texts_encoded_per_version": statistics.median(encoded),
        "take_in_share_of_full_tokenization": take_ms / full_ms,
        "read_and_take_in_share_of_full_tokenization": (read_ms + take_ms) / full_ms,
    }
    print(
        f"pad: {tokens:,} tokens, {len(texts):,} entries, {size / 1024:,.0f} KiB; "
        f"{args.versions} versions, one entry changed in each"
    )
    print(f"full tokenization (every text, batch):  {full_ms:7.1f} ms")
    print(f"first version taken in (cold cache):    {t_first * 1000:7.1f} ms")
    print(
        f"new version, take in (median):          {take_ms:7.1f} ms "
        f"({take_ms / full_ms:.0%} of a full tokenization; p90 {result['take_in_p90_ms']:.1f} ms)"
    )
    print(f"new version, read + parse (median):     {read_ms:7.1f} ms")
    print(
        f"new version, read + take in:            {read_ms + take_ms:7.1f} ms "
        f"({(read_ms + take_ms) / full_ms:.0%} of a full tokenization)"
    )
    print(f"new version, journaled (median):        {append_ms:7.1f} ms (fsync included)")
    print(f"same version taken in, empty cache:     {t_uncached * 1000:7.1f} ms")
    print(f"texts encoded per new version (median): {statistics.median(encoded):g}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
