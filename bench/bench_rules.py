"""The rule finder alone, as a cold `padtui check` asks it: the rules at risk of a large pad.

Run: python bench/bench_rules.py [--tokens 1000000] [--runs 7] [--also DIR]

Each run is a fresh process (no rule found before: the finder's memos empty) that reads a
synthetic pad (bench/padgen.py) and times ``find_rules`` over its unsealed entries with an
empty count-cache memo, as ``compaction.plan`` calls it for ``check``: the thread's CPU time
and the wall time, in ms. With ``--also DIR`` (another source tree of padtui, e.g. an
earlier commit's ``padtui/`` exported there) the two trees run alternately (this one first
in even rounds); a tree whose ``find_rules`` takes no ``sealed`` finds every entry's rules,
as it did then. Reported: medians and ranges (never a best run) and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import padgen  # noqa: E402
from bench_check_vs_baseline import child_env  # noqa: E402

ONE = r"""
import inspect, json, sys, time
from padtui.core.counting.countcache import CountCache
from padtui.core.formats import load_pad
from padtui.core.rules.finder import find_rules
pad = load_pad(sys.argv[1])
memo = CountCache(None, "cl100k_base").rules
unsealed = "sealed" in inspect.signature(find_rules).parameters
w, t = time.perf_counter(), time.thread_time()
found = find_rules(pad, None, memo, sealed=False) if unsealed else find_rules(pad, None, memo)
cpu, wall = time.thread_time() - t, time.perf_counter() - w
at_risk = sum(not pad.entries[r.entry].sealed for r in found)
import padtui
got = {"cpu": cpu * 1000, "wall": wall * 1000, "at_risk": at_risk, "from": padtui.__file__}
print(json.dumps(got))
"""


def one(py: str, pad: str, env: dict[str, str]) -> dict[str, Any]:
    # (run from the pad's folder: `-c` imports from the working folder first)
    out = subprocess.run(
        [py, "-c", ONE, pad],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=os.path.dirname(pad),
    )
    got: dict[str, Any] = json.loads(out.stdout)
    return got


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--also", metavar="DIR", help="another source tree of padtui, alternated")
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="padtui-bench-rules-") as tmp:
        env = child_env(tmp)
        pad = os.path.join(tmp, "pad.json")
        padgen.make_pad(pad, args.tokens)
        trees = {"this tree": dict(env, PYTHONPATH=os.path.dirname(HERE))}
        if args.also:
            trees["--also"] = dict(env, PYTHONPATH=os.path.abspath(args.also))
        for tree_env in trees.values():  # (warm-up: the bytecode cache written)
            one(py, pad, tree_env)
        got: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        before = load()
        for i in range(args.runs):
            names = list(trees) if i % 2 == 0 else list(trees)[::-1]
            for name in names:
                got[name].append(one(py, pad, trees[name]))
        print(f"{args.tokens} tokens, {args.runs} runs; load {before} -> {load()}")
        for name, rows in got.items():
            cpu, wall = [r["cpu"] for r in rows], [r["wall"] for r in rows]
            print(
                f"  {name}: find_rules cpu {statistics.median(cpu):.0f} ms "
                f"({min(cpu):.0f}-{max(cpu):.0f}), wall {statistics.median(wall):.0f} ms "
                f"({min(wall):.0f}-{max(wall):.0f}); rules at risk {rows[0]['at_risk']:.0f} "
                f"(padtui from {os.path.dirname(str(rows[0]['from']))})"
            )


if __name__ == "__main__":
    main()
