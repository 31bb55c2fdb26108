"""`padtui check` with its count cache against the plain baseline, whole processes alternated.

Run: python bench/bench_check_cache.py [--tokens 4000 200000 1000000] [--pairs 9]
     [--situations cold changed edited unchanged] [--also DIR] [--steps] [--timeline]
     [--timeline-runs N]

For each pad size (a synthetic pad from bench/padgen.py, as bench_check_vs_baseline.py makes
it, both programs first checked to make the same decision) and each of four situations:

- cold: no count cache (the folder is emptied before each padtui run, which then writes it);
- changed: the pad re-checked after 1 % of its entries changed, at random (each padtui run
  starts from the cache the pad before the change left, and writes the new counts back);
- edited: the same after an agent's kind of save: three entries near the end edited and one
  added after them;
- unchanged: the pad checked again, as it is (the cache of the same pad; nothing written).

`padtui check` (default policy, strict) and the baseline (bench/baseline_seed.py: the seed's
`compact()` with tiktoken) run as child processes, alternately (the baseline first in even
pairs, padtui first in odd ones), on the same pad file, after warm-up runs, with Python's
bytecode cache on (PYTHONDONTWRITEBYTECODE dropped; the cache in a temporary folder) as an
installed program runs. Reported: the ratio padtui / baseline of the median wall times, and
the range (lowest to highest) and middle half of the pairs' ratios, never a best run; the
CPU times; the load average before and after each point, and the time of a fixed loop of
Python (``loop_ms``: a host's busy spells slow it, and the load average does not show them).

``--also DIR`` runs a second padtui, another source tree (a git worktree of an earlier commit,
say) on PYTHONPATH, in the same rounds, each padtui with its own count cache folder; the
three programs then take turns in a rotated order. Reported besides: its median, its ratio to
the baseline, and this tree's time over its time in each round (median and range). With
``--timeline`` too, its cold check's timeline is taken in the same rounds as this tree's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import padgen  # noqa: E402
from bench_check_vs_baseline import (  # noqa: E402
    BASELINE,
    MARKS,
    agree,
    child_env,
    dump,
    loop_ms,
    padtui_command,
    pct,
    run,
)

SITUATIONS = ("cold", "changed", "edited", "unchanged")

# --steps: where a cold check's time goes, in a fresh process (no count cache)
STEPS = (
    MARKS
    + r"""
import padtui.cli, padtui.report, padtui.core.compaction.plan, padtui.core.formats
mark("imports")
from padtui.core.formats import load_pad
pad = load_pad(sys.argv[1]); mark("read")
from padtui.core.counting.tokens import counter_for
counter = counter_for(); mark("load the encoding")
from padtui.core.compaction.plan import plan
p = plan(pad, None, "strict", counter); mark("counts, claims, strict plan")
p.rules_at_risk; mark("rules at risk")
from padtui.report import plan_report
plan_report(sys.argv[1], p); mark("report")
print(json.dumps(marks))
"""
)


def steps(py: str, pad: str, env: dict[str, str], runs: int = 3) -> dict[str, float]:
    """The median time of each step of a cold check (ms), over ``runs`` fresh processes."""
    import subprocess

    got: dict[str, list[float]] = {}
    for _ in range(runs):
        out = subprocess.run(
            [py, "-c", STEPS, pad], capture_output=True, text=True, env=env, check=True
        )
        for name, ms in json.loads(out.stdout).items():
            got.setdefault(name, []).append(ms)
    return {name: statistics.median(v) for name, v in got.items()}


# --timeline: a cold `padtui check` of the pad, the command itself, in a fresh process with
# the encoder's chunks timed: when the encoder thread starts and ends, when the thread that
# asks for the counts joins it (its own work done: the claims, the rules, the cache's keys),
# and each thread's CPU time encoding (and, after it, the count cache's file built and written).
# A cold check's wall time is then about
#   before + (encoding + own work) / 2 + after
# on two free cores: the asking thread's own work runs beside the encoder, and what is left
# of the encoding when it joins is shared by the two. The same is timed of `padtui check
# --no-cache` in the same rounds: the difference is what a first run's count cache costs.
TIMELINE = r"""
import contextlib, io, json, sys, threading, time
t0 = time.perf_counter()
import padtui.core.counting.tokens as tokens
seen = {}
work = tokens._Chunks._work
def timed(self):
    name, cpu = threading.current_thread().name, time.thread_time()
    seen.setdefault(name, {})["start"] = (time.perf_counter() - t0) * 1000
    work(self)
    seen[name]["end"] = (time.perf_counter() - t0) * 1000
    seen[name]["cpu"] = (time.thread_time() - cpu) * 1000
tokens._Chunks._work = timed
import padtui.core.counting.countcache as countcache
save = countcache.CountCache.save
def saved(self):
    at = time.perf_counter()
    try:
        return save(self)
    finally:
        seen.setdefault("save", {})["ms"] = (time.perf_counter() - at) * 1000
countcache.CountCache.save = saved
from padtui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["check", *sys.argv[1:]])
end = (time.perf_counter() - t0) * 1000
if "padtui-encoder" not in seen:  # (too few texts for a thread: counted where asked)
    print(json.dumps({"in all (no encoder thread)": end}))
    sys.exit()
enc, own = seen["padtui-encoder"], seen["MainThread"]
print(json.dumps({
    "before the encoding": enc["start"],
    "own work beside it": own["start"] - enc["start"],
    "the encoding (wall)": max(enc["end"], own["end"]) - enc["start"],
    "after it": end - max(enc["end"], own["end"]),
    "of which the cache written": seen.get("save", {}).get("ms", 0.0),
    "encoder thread CPU": enc["cpu"],
    "asking thread's encoding CPU": own["cpu"],
    "in all": end,
}))
"""


def timeline(
    py: str, pad: str, env: dict[str, str], runs: int = 3, also: str | None = None
) -> dict[str, dict[str, float]]:
    """The median of each part of a cold check (ms, see TIMELINE) over ``runs`` fresh
    processes, each with an empty count cache folder; and of a check with ``--no-cache``,
    in the same rounds (each round runs them in turn, the first in turn first), to show
    what a first run's count cache costs; and with ``also`` (another source tree), of its
    cold check too."""
    import subprocess

    hows: list[tuple[str, dict[str, str], list[str]]] = [
        ("cold", env, []),
        ("no-cache", env, ["--no-cache"]),
    ]
    if also:
        hows.append(("cold, the other tree's", dict(env, PYTHONPATH=also), []))
    got: dict[str, dict[str, list[float]]] = {how: {} for how, _env, _args in hows}
    for i in range(runs):
        turn = i % len(hows)
        for how, how_env, more in hows[turn:] + hows[:turn]:
            with tempfile.TemporaryDirectory(prefix="padtui-timeline-") as cache:
                here = dict(how_env, XDG_CACHE_HOME=cache)
                command = [py, "-c", TIMELINE, pad, *more]
                out = subprocess.run(command, capture_output=True, text=True, env=here, check=True)
            for name, ms in json.loads(out.stdout).items():
                got[how].setdefault(name, []).append(ms)
    return {
        how: {name: statistics.median(v) for name, v in parts.items()} for how, parts in got.items()
    }


def changed_copy(pad: str, out: str, share: float = 0.01, seed: int = 11) -> int:
    """``pad`` with ``share`` of its rewritable entries changed (a sentence added), written
    to ``out``; how many were changed."""
    with open(pad, encoding="utf-8") as f:
        doc = json.load(f)
    rng = random.Random(seed)
    rewritable = [i for i, e in enumerate(doc["entries"]) if not e.get("sealed")]
    chosen = rng.sample(rewritable, max(1, round(len(doc["entries"]) * share)))
    for i in chosen:
        entry = doc["entries"][i]
        entry["text"] += f" Revised after run {rng.randrange(10_000)}."
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
    return len(chosen)


def edited_copy(pad: str, out: str) -> int:
    """``pad`` with three of its last 50 rewritable entries edited (a sentence added) and an
    entry added after the last, written to ``out``; how many were changed or added."""
    with open(pad, encoding="utf-8") as f:
        doc = json.load(f)
    entries = doc["entries"]
    rewritable = [i for i, e in enumerate(entries) if not e.get("sealed")]
    for i in rewritable[-40:-37]:
        entries[i]["text"] += " Revised after the last run."
    entries.append(
        dict(entries[rewritable[-1]], text="New lesson: never retry writes after a 5xx.")
    )
    entries[-1].pop("id", None)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
    return 4


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


class Side:
    """A padtui measured: its environment (``also``: another source tree on PYTHONPATH) and
    its own count cache folder, with the cache the pad before a change left (``kept``)."""

    def __init__(self, name: str, env: dict[str, str], tmp: str, tree: str | None = None):
        self.name = name
        self.env = dict(env, XDG_CACHE_HOME=os.path.join(tmp, f"cache-{name}"))
        if tree:
            self.env["PYTHONPATH"] = tree
        self.cache = os.path.join(self.env["XDG_CACHE_HOME"], "padtui")
        self.kept = os.path.join(tmp, f"kept-{name}")

    def empty(self) -> None:
        shutil.rmtree(self.cache, ignore_errors=True)

    def restore(self) -> None:
        shutil.rmtree(self.cache, ignore_errors=True)
        shutil.copytree(self.kept, self.cache)

    def keep(self) -> None:
        shutil.rmtree(self.kept, ignore_errors=True)
        shutil.copytree(self.cache, self.kept)


def point(
    py: str,
    pad: str,
    env: dict[str, str],
    sides: list[tuple[Side, Any]],
    pairs: int,
    warmup: int,
) -> dict[str, Any]:
    """Alternated runs of the baseline and of ``padtui check`` on ``pad``, for each side
    (the first this tree, the second if any another, ``also``); its ``before()`` sets its
    cache up before each of its runs (not timed)."""
    ours_cmd = [*padtui_command(py), "check", pad]
    base_cmd = [py, BASELINE, pad]
    order: list[tuple[str, list[str], dict[str, str], Any]] = [("base", base_cmd, env, None)]
    order += [(side.name, ours_cmd, side.env, before) for side, before in sides]
    for _ in range(warmup):
        for _who, cmd, where, before in order:
            if before:
                before()
            run(cmd, where)
    got: dict[str, list[tuple[float, float, int]]] = {who: [] for who, *_rest in order}
    load_before, loop_before = load(), loop_ms()
    for i in range(pairs):
        # two: each first in turn; three: rotated, so that each runs in each place and none
        # twice in a row (a program run just before runs faster: the files it read are warm)
        turn = order if i % 2 == 0 else order[::-1]
        if len(order) > 2:
            turn = order[i % len(order) :] + order[: i % len(order)]
        for who, cmd, where, before in turn:
            if before:
                before()
            got[who].append(run(cmd, where))
    base, ours = got["base"], got["ours"]
    bw, ow = [b[0] for b in base], [o[0] for o in ours]
    ratios = sorted(o / b for o, b in zip(ow, bw, strict=True))
    extra: dict[str, Any] = {}
    if "also" in got:
        aw = [a[0] for a in got["also"]]
        extra = {
            "also_wall_median": statistics.median(aw),
            "also_cpu_median": statistics.median(a[1] for a in got["also"]),
            "also_ratio_of_medians": statistics.median(aw) / statistics.median(bw),
            "ours_to_also": sorted(o / a for o, a in zip(ow, aw, strict=True)),
        }
    return {
        **extra,
        "pairs": pairs,
        "baseline_wall_median": statistics.median(bw),
        "padtui_wall_median": statistics.median(ow),
        "baseline_cpu_median": statistics.median(b[1] for b in base),
        "padtui_cpu_median": statistics.median(o[1] for o in ours),
        "ratio_of_medians": statistics.median(ow) / statistics.median(bw),
        "pair_ratio_min": ratios[0],
        "pair_ratio_q1": pct(ratios, 0.25),
        "pair_ratio_median": statistics.median(ratios),
        "pair_ratio_q3": pct(ratios, 0.75),
        "pair_ratio_max": ratios[-1],
        "load_before": load_before,
        "load_after": load(),
        "loop_ms_before": loop_before,
        "loop_ms_after": loop_ms(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, nargs="+", default=[4000, 200_000, 1_000_000])
    ap.add_argument("--pairs", type=int, default=9)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--situations", nargs="*", choices=SITUATIONS, default=list(SITUATIONS))
    ap.add_argument("--json", metavar="FILE", help="also write the figures here")
    ap.add_argument(
        "--steps", action="store_true", help="also time each step of a cold check (in process)"
    )
    ap.add_argument(
        "--timeline",
        action="store_true",
        help="also time a cold check's encoder and the work beside and after it (in process)",
    )
    ap.add_argument(
        "--timeline-runs", type=int, default=3, help="fresh processes of each for --timeline"
    )
    ap.add_argument(
        "--also",
        metavar="DIR",
        help="also run the padtui of another source tree (e.g. a git worktree of an earlier "
        "commit) in the same alternation, with its own count cache",
    )
    args = ap.parse_args()
    json_path = args.json and os.path.abspath(args.json)  # (before the change of folder)
    also = os.path.abspath(args.also) if args.also else None
    counts = (args.pairs, args.warmup)
    py, home, results = sys.executable, os.getcwd(), []
    with tempfile.TemporaryDirectory(prefix="padtui-bench-cache-") as tmp:
        env = child_env(tmp)
        sides = [Side("ours", env, tmp)]
        if args.also:
            sides.append(Side("also", env, tmp, also))
        os.chdir(tmp)  # (not the repository's root, from which `-m padtui` would import)
        print(
            f"machine: {os.cpu_count()} cores; load average {load()} (1, 5, 15 min); "
            f"a million-step loop of Python {loop_ms():.0f} ms",
            flush=True,
        )

        for tokens in args.tokens:
            pad = os.path.join(tmp, f"pad-{tokens}.json")
            size = padgen.make_pad(pad, tokens)
            decision = agree(py, pad, env)
            changed = os.path.join(tmp, f"pad-{tokens}-changed.json")
            if args.steps:
                times = steps(py, pad, env)
                results.append({"tokens_target": tokens, "steps_ms": times})
                print(
                    f"{tokens:>9} tokens, a cold check's steps (ms, median of 3 fresh processes): "
                    + ", ".join(f"{n} {ms:.0f}" for n, ms in times.items())
                    + f"; load {load()}",
                    flush=True,
                )
            if args.timeline:
                parts = timeline(py, pad, env, args.timeline_runs, also)
                results.append({"tokens_target": tokens, "timeline_ms": parts})
                for how, got in parts.items():
                    print(
                        f"{tokens:>9} tokens, a {how} check's timeline (ms, median of "
                        f"{args.timeline_runs} fresh processes): "
                        + ", ".join(f"{n} {ms:.0f}" for n, ms in got.items())
                        + f"; load {load()}",
                        flush=True,
                    )
            check = [*padtui_command(py), "check", pad]
            for situation in args.situations:
                if situation == "cold":
                    row = point(py, pad, env, [(s, s.empty) for s in sides], *counts)
                elif situation == "unchanged":
                    for side in sides:
                        side.empty()
                        run(check, side.env)
                    row = point(py, pad, env, [(s, None) for s in sides], *counts)
                else:
                    # the changed pad takes the original's place (its cache file is the
                    # pad's path's), so each run starts from the cache the original left
                    made = changed_copy if situation == "changed" else edited_copy
                    n = made(pad, changed)
                    original = pad + ".original"
                    shutil.copy(pad, original)
                    for side in sides:
                        side.empty()
                        run(check, side.env)
                        side.keep()
                    shutil.copy(changed, pad)
                    row = point(py, pad, env, [(s, s.restore) for s in sides], *counts)
                    row["entries_changed"] = n
                    shutil.copy(original, pad)
                row.update(tokens_target=tokens, bytes=size, decision=decision, situation=situation)
                results.append(row)
                print(
                    f"{tokens:>9} tokens, {situation:<9}: baseline "
                    f"{row['baseline_wall_median'] * 1000:5.0f} ms (cpu "
                    f"{row['baseline_cpu_median'] * 1000:.0f}), padtui check "
                    f"{row['padtui_wall_median'] * 1000:5.0f} ms (cpu "
                    f"{row['padtui_cpu_median'] * 1000:.0f}); ratio of medians "
                    f"{row['ratio_of_medians']:.2f}, pairs {row['pair_ratio_min']:.2f}–"
                    f"{row['pair_ratio_max']:.2f} (middle half {row['pair_ratio_q1']:.2f}–"
                    f"{row['pair_ratio_q3']:.2f}, {row['pairs']} pairs); load "
                    f"{row['load_before']} → {row['load_after']}; loop "
                    f"{row['loop_ms_before']:.0f} → {row['loop_ms_after']:.0f} ms",
                    flush=True,
                )
                if args.also:
                    mine = row["ours_to_also"]
                    print(
                        f"{'':>9}  and {args.also}: {row['also_wall_median'] * 1000:5.0f} ms (cpu "
                        f"{row['also_cpu_median'] * 1000:.0f}), ratio of medians "
                        f"{row['also_ratio_of_medians']:.2f}; this tree / it, each round: "
                        f"{statistics.median(mine):.2f} ({mine[0]:.2f}–{mine[-1]:.2f})",
                        flush=True,
                    )
        os.chdir(home)
    dump(json_path, results)


if __name__ == "__main__":
    main()
