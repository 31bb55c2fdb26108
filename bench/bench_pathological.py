"""Benchmark: ``padtui check`` on a pad of one character repeated (no pre-tokenizer split).

A Markdown pad of ``--mib`` MiB of one letter (one paragraph, one entry) is checked in a fresh
process; the figures are its wall time and peak memory (the child's maximum resident set).
``--root`` runs the padtui of another checkout (say, the main branch's) for a comparison.
The machine's load is printed with them: the figures move with it.

Run: python bench/bench_pathological.py [--mib 64] [--char a] [--root PATH] [--runs 1]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile


def check_once(path: str, root: str | None) -> tuple[float, float]:
    """(seconds, peak MiB) of one ``padtui check PATH`` in its own process."""
    env = dict(os.environ)
    if root is not None:
        env["PYTHONPATH"] = root
    probe = (
        "import resource, sys, time\n"
        "from padtui.cli import main\n"
        "start = time.perf_counter()\n"
        "code = main(['check', sys.argv[1]])\n"
        "took = time.perf_counter() - start\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "print(f'@@ {took} {peak}', file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, path],
        env=env,
        cwd=os.path.dirname(path),  # (not this checkout's folder, which -c would put first)
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    line = next(x for x in out.stderr.splitlines() if x.startswith("@@ "))
    took, peak = (float(x) for x in line.split()[1:])
    return took, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--char", default="a")
    parser.add_argument("--root", help="the checkout whose padtui is timed (default: this one)")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "pad.md")
        size = args.mib * 2**20 - 16  # (under padtui's 64 MiB limit)
        with open(path, "w", encoding="utf-8") as f:
            f.write(args.char * (size // len(args.char.encode("utf-8"))))
        for _ in range(args.runs):
            load = os.getloadavg()[0]
            took, peak = check_once(path, args.root)
            print(
                f"padtui check, {args.mib} MiB of {args.char!r} ({args.root or 'this checkout'}): "
                f"{took:.1f} s, peak {peak:.0f} MiB (load average {load:.2f} before)"
            )


if __name__ == "__main__":
    main()
