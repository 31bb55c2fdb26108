"""The audit of two large versions of a pad, against an earlier padtui.

Run: python bench/bench_audit.py [--tokens 200000] [--rounds 7] [--also REV]

Two versions of a pad of about ``--tokens`` tokens (bench/padgen.py) are audited in
process, ``audit(old, new)``, with the token counts already cached (as the inspector and
``history`` audit: the counts were taken when each version was read), for three rewrites:

- *one edit*: one entry's text changed;
- *1 % edited*: one entry in a hundred reworded (its words shuffled, a number changed);
- *compaction*: the last 10 % of the rewritable entries dropped and a loss record naming
  them appended, as a strict commit writes it.

With ``--cold``, each audit is instead a whole ``padtui audit OLD NEW --json`` process (read,
count, audit, from nothing cached but tiktoken's ranks), as a script or CI runs it.

With ``--also REV`` the same measurement runs, alternating whole processes, on the padtui of
an earlier commit (checked out into a temporary folder with ``git worktree``), and the
ratio of medians is printed with the range of each side. State the machine's load beside
any figure you publish (``uptime``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _versions(tokens: int, tmp: str) -> dict[str, tuple[str, str]]:
    sys.path.insert(0, HERE)
    import padgen

    rng = random.Random(5)
    entries = padgen.pad_entries(tokens)
    budget = int(tokens * 0.8)
    old = os.path.join(tmp, "old.json")
    padgen.write_pad(old, entries, budget)
    out = {}

    one = [dict(e) for e in entries]
    padgen.edit_one(one, 1, rng)
    path = os.path.join(tmp, "one.json")
    padgen.write_pad(path, one, budget)
    out["one edit"] = (old, path)

    some = [dict(e) for e in entries]
    for i in range(0, len(some), 100):
        if some[i].get("sealed"):
            continue
        words = some[i]["text"].split()
        rng.shuffle(words)
        some[i]["text"] = " ".join(words) + " 42"
    path = os.path.join(tmp, "some.json")
    padgen.write_pad(path, some, budget)
    out["1 % edited"] = (old, path)

    rewritable = [i for i, e in enumerate(entries) if not e.get("sealed")]
    drop = set(rewritable[-len(rewritable) // 10 :])
    kept = [dict(e) for i, e in enumerate(entries) if i not in drop]
    named = ", ".join(entries[i].get("id", f"#{i}") for i in sorted(drop))
    kept.append({"kind": "loss_record", "text": f"dropped {named}", "sealed": True})
    path = os.path.join(tmp, "compact.json")
    padgen.write_pad(path, kept, budget)
    out["compaction"] = (old, path)
    return out


def _measure(pairs: dict[str, tuple[str, str]], repeat: int) -> dict[str, float]:
    """Seconds per audit (median of ``repeat``), counts cached, in this process."""
    from padtui.core.audit.rewrite import audit
    from padtui.core.counting.tokens import counter_for
    from padtui.core.formats import load_pad

    counter = counter_for()
    got = {}
    for name, (a, b) in pairs.items():
        old, new = load_pad(a), load_pad(b)
        counter.count_many(e.text for e in old.entries)
        counter.count_many(e.text for e in new.entries)
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            audit(old, new, counter)
            times.append(time.perf_counter() - t)
        got[name] = statistics.median(times)
    return got


def _child(args: argparse.Namespace) -> None:
    pairs = json.loads(args.pairs_json)
    print(json.dumps(_measure({k: tuple(v) for k, v in pairs.items()}, args.repeat)))


def _cold(code_root: str, pairs: dict[str, tuple[str, str]]) -> dict[str, float]:
    """Seconds of one whole ``padtui audit`` process per rewrite."""
    env = dict(os.environ, PYTHONPATH=code_root)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    got = {}
    for name, (a, b) in pairs.items():
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "padtui", "audit", a, b, "--json"],
            env=env,
            cwd=tempfile.gettempdir(),
            capture_output=True,
            check=False,  # (exit 1 is a verdict, not a failure)
        )
        got[name] = time.perf_counter() - t
    return got


def _run(code_root: str, pairs: dict[str, tuple[str, str]], repeat: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=code_root)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run(
        [
            sys.executable,
            os.path.join(HERE, "bench_audit.py"),
            "--child",
            "--repeat",
            str(repeat),
            "--pairs-json",
            json.dumps(pairs),
        ],
        env=env,
        cwd=tempfile.gettempdir(),  # (not the repository root: it would import that padtui)
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--also", metavar="REV", help="an earlier commit to compare with")
    ap.add_argument("--cold", action="store_true", help="whole padtui audit processes")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--pairs-json", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args)
        return
    with tempfile.TemporaryDirectory(prefix="padtui-bench-") as tmp:
        pairs = _versions(args.tokens, tmp)
        sides = {"now": ROOT}
        if args.also:
            other = os.path.join(tmp, "earlier")
            subprocess.run(
                ["git", "-C", ROOT, "worktree", "add", "--detach", other, args.also],
                check=True,
                capture_output=True,
            )
            sides[args.also] = other
        runs: dict[str, list[dict[str, float]]] = {k: [] for k in sides}
        load = os.getloadavg()
        try:
            for _ in range(args.rounds):
                for name, root in sides.items():  # alternated, round by round
                    if args.cold:
                        runs[name].append(_cold(root, pairs))
                    else:
                        runs[name].append(_run(root, pairs, args.repeat))
        finally:
            if args.also:
                subprocess.run(
                    ["git", "-C", ROOT, "worktree", "remove", "--force", sides[args.also]],
                    capture_output=True,
                )
        how = "whole processes" if args.cold else "in process, counts cached"
        print(f"pad of about {args.tokens} tokens, {how}, {args.rounds} rounds")
        print(f"load average before/after: {load} / {os.getloadavg()}")
        for case in pairs:
            line = [f"{case:>12}:"]
            meds = {}
            for name, got in runs.items():
                xs = [r[case] * 1000 for r in got]
                meds[name] = statistics.median(xs)
                line.append(f"{name} {meds[name]:.0f} ms ({min(xs):.0f}-{max(xs):.0f})")
            if args.also:
                line.append(f"ratio now/{args.also} {meds['now'] / meds[args.also]:.2f}")
            print("  ".join(line))


if __name__ == "__main__":
    main()
