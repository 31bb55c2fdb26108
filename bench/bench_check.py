"""Benchmark: `padtui check` on a 10,000-entry pad, and the core's import time.

Run: python bench/bench_check.py [--entries N] [--runs R]
Prints one line per figure; the README's performance section quotes them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

WORDS = [
    "ledger",
    "batch",
    "retry",
    "write",
    "order",
    "replica",
    "export",
    "page",
    "idempotency",
    "summary",
    "checkpoint",
    "gateway",
    "migration",
    "reconcile",
    "customer",
    "invoice",
    "amount",
    "currency",
]


def make_pad(path: str, n: int) -> int:
    entries = []
    kinds = ("plan", "note", "hypothesis", "note")
    for i in range(n):
        words = " ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(12 + i % 20))
        entry = {"kind": kinds[i % 4], "id": f"e-{i}", "text": f"Step {i}: {words}."}
        if i % 50 == 0:
            entry = {
                "kind": "constraint",
                "id": f"c-{i}",
                "sealed": True,
                "text": f"Do not touch batch {i} again; it landed.",
            }
        entries.append(entry)
    with open(path, "w") as f:
        json.dump({"budget_tokens": 40_000, "entries": entries}, f, indent=1)
    return os.path.getsize(path)


def timed(cmd: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        pad = os.path.join(tmp, "big.json")
        size = make_pad(pad, args.entries)
        print(f"pad: {args.entries} entries, {size / 1024:.0f} KiB", flush=True)
        runs = timed([py, "-m", "padtui", "check", pad], args.runs)
        print(
            f"padtui check, whole process: median {statistics.median(runs) * 1000:.0f} ms, "
            f"min {min(runs) * 1000:.0f} ms over {args.runs} runs"
        )
        code = (
            "import time; t=time.perf_counter(); "
            "from padtui.core import compaction, audit, formats; "
            "import sys; print(time.perf_counter()-t, 'textual' in sys.modules)"
        )
        imports = []
        for _ in range(args.runs):
            res = subprocess.run([py, "-c", code], capture_output=True, text=True, check=True)
            seconds, textual = res.stdout.split()
            imports.append(float(seconds))
        print(
            f"core import: median {statistics.median(imports) * 1000:.0f} ms "
            f"(textual imported: {textual})"
        )
        bare = timed([py, "-c", "pass"], args.runs)
        print(f"python start-up alone: median {statistics.median(bare) * 1000:.0f} ms")
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        from padtui.core.compaction import plan
        from padtui.core.formats import load
        from padtui.core.tokens import TokenCounter

        t = time.perf_counter()
        pad_file = load(pad)
        t_load = time.perf_counter() - t
        counter = TokenCounter()
        t = time.perf_counter()
        plan(pad_file.pad, policy="strict", counter=counter)
        t_cold = time.perf_counter() - t
        t = time.perf_counter()
        plan(pad_file.pad, policy="strict", counter=counter)
        t_warm = time.perf_counter() - t
        print(
            f"in process: load {t_load * 1000:.0f} ms, plan (cold token cache) "
            f"{t_cold * 1000:.0f} ms, plan (warm cache) {t_warm * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
