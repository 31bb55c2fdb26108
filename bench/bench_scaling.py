"""Scaling of plan and audit, from 10 to 100,000 entries: time per entry.

Run: python bench/bench_scaling.py [--sizes 10 100 1000 10000 100000] [--repeat 3]

For each size it builds a pad of that many entries (bench/padgen.py, about 50 tokens each, a
sealed region with a loss record, budget 80 % of the tokens) and measures, in process:

- ``plan`` (strict) with a cold token cache (every text tokenized) and with a warm one (the
  plan itself: first-fit passes, the loss record, the claims);
- ``audit`` of three rewrites of that pad:
  - *edit*: one entry's text changed (what a live pad does most);
  - *compaction*: the strict plan's commit (a fifth of the entries dropped, a loss record
    naming them all appended);
  - *anonymous*: the same pad without ids, one entry in ten reworded, one in twenty dropped,
    so that entries pair by close text (the costly case of matching).

Each figure is the best of ``--repeat`` runs (the machine is shared: the best run is the one
least disturbed), reported in total and per entry; a linear algorithm keeps the time per
entry flat as the pad grows. The cyclic garbage collector is paused while a figure is timed,
as it is when padtui runs these (the headless commands pause it; the inspector and the fleet
set what they keep aside from it after each version): with five pads of 100,000 entries
alive, a full collection costs more than the audit it would interrupt.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from difflib import SequenceMatcher
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import padgen

from padtui.core.audit.rewrite import audit
from padtui.core.compaction.plan import plan
from padtui.core.counting.tokens import TokenCounter
from padtui.core.formats import parse
from padtui.core.model import Pad
from padtui.core.rules.claims import count_claims

NOW = datetime(2026, 11, 14, 3, 30, tzinfo=UTC)


def best(fn: Callable[[], Any], repeat: int, setup: Callable[[], Any] | None = None) -> float:
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        gc.collect()
        gc.disable()  # as padtui runs them: see the module's docstring
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        gc.enable()
    return min(times)


def pad_of(entries: list[dict[str, Any]], budget: int) -> Pad:
    doc = {"budget_tokens": budget, "entries": entries}
    return parse("pad.json", json.dumps(doc, indent=2).encode()).pad


def anonymous(entries: list[dict[str, Any]], rng: random.Random) -> tuple[Pad, Pad]:
    """The pad without ids, and a rewrite of it: some entries reworded, some dropped."""
    bare = [{k: v for k, v in e.items() if k != "id"} for e in entries]
    after = []
    for e in bare:
        r = rng.random()
        if r < 0.05 and not e.get("sealed"):
            continue  # dropped
        if r < 0.15 and not e.get("sealed"):
            words = e["text"].split()
            words[rng.randrange(len(words))] = "reworded"
            e = dict(e, text=" ".join(words))
        after.append(e)
    return pad_of(bare, 10**9), pad_of(after, 10**9)


def measure(n: int, repeat: int) -> dict[str, Any]:
    """Every figure for a pad of ``n`` entries."""
    rng = random.Random(n)
    entries = padgen.pad_entries(n * padgen.REAL_TOKENS)[:n]
    counter = TokenCounter()
    tokens = sum(counter.count_many(e["text"] for e in entries))
    budget = int(tokens * 0.8)
    pad = pad_of(entries, budget)

    def forget() -> None:  # a cold start: no text counted yet (the encoder stays loaded)
        counter._cache.clear()
        count_claims.cache_clear()

    t_cold = best(lambda: plan(pad, None, "strict", counter, now=NOW), repeat, forget)
    plan(pad, None, "strict", counter, now=NOW)  # warms the token cache
    t_warm = best(lambda: plan(pad, None, "strict", counter, now=NOW), repeat)

    edited = [dict(e) for e in entries]
    padgen.edit_one(edited, 1, rng)
    after_edit = pad_of(edited, budget)
    t_edit = best(lambda: audit(pad, after_edit, counter), repeat)

    committed = plan(pad, None, "strict", counter, now=NOW)
    after_commit = Pad.of(committed.result(), budget)
    t_commit = best(lambda: audit(pad, after_commit, counter), repeat)

    old_anon, new_anon = anonymous(entries, rng)
    counter.count_many(e.text for e in new_anon.entries)
    t_anon = best(lambda: audit(old_anon, new_anon, counter), repeat)
    # what the anonymous audit's time goes to: character-level comparisons of close texts
    compared = [0, 0.0]
    ratio = SequenceMatcher.ratio

    def counted(self: SequenceMatcher[str]) -> float:
        t = time.perf_counter()
        try:
            return ratio(self)
        finally:
            compared[0] += 1
            compared[1] += time.perf_counter() - t

    SequenceMatcher.ratio = counted  # type: ignore[method-assign]
    try:
        audit(old_anon, new_anon, counter)
    finally:
        SequenceMatcher.ratio = ratio  # type: ignore[method-assign]
    return {
        "entries": n,
        "tokens": tokens,
        "plan_cold_s": t_cold,
        "plan_warm_s": t_warm,
        "audit_edit_s": t_edit,
        "audit_compaction_s": t_commit,
        "audit_anonymous_s": t_anon,
        "compaction_verdict": audit(pad, after_commit, counter).verdict,
        "dropped": len(committed.dropped),
        "anonymous_comparisons_per_entry": compared[0] / n,
        "anonymous_ms_per_comparison": compared[1] / max(compared[0], 1) * 1000,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 10_000, 100_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", metavar="FILE", help="also write the figures here")
    args = ap.parse_args()
    rows = []
    print(
        f"{'entries':>8} {'tokens':>9} | {'plan cold':>10} {'plan warm':>10} | "
        f"{'audit edit':>10} {'compaction':>10} {'anonymous':>10}   (µs per entry)",
        flush=True,
    )
    for n in args.sizes:
        row = measure(n, args.repeat)
        rows.append(row)
        per = [
            row[k] / n * 1e6
            for k in (
                "plan_cold_s",
                "plan_warm_s",
                "audit_edit_s",
                "audit_compaction_s",
                "audit_anonymous_s",
            )
        ]
        totals = " / ".join(
            f"{row[k] * 1000:.1f}"
            for k in (
                "plan_cold_s",
                "plan_warm_s",
                "audit_edit_s",
                "audit_compaction_s",
                "audit_anonymous_s",
            )
        )
        print(
            f"{n:>8} {row['tokens']:>9} | {per[0]:>10.1f} {per[1]:>10.1f} | "
            f"{per[2]:>10.1f} {per[3]:>10.1f} {per[4]:>10.1f}   "
            f"(totals {totals} ms; compaction: {row['compaction_verdict']}; anonymous: "
            f"{row['anonymous_comparisons_per_entry']:.2f} text comparisons an entry, "
            f"{row['anonymous_ms_per_comparison']:.1f} ms each)",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
