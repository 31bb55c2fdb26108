"""Where counting new text in Python (padtui/core/bpe.py) stops paying: fresh processes.

Run: python bench/bench_bpe.py [--chars 5000 20000 50000 100000 200000 400000] [--pairs 7]

For each amount of new text, two kinds of fresh process count the same texts, alternately
(the Python counter first in even pairs): one with the Python counter (its `regex` import,
the bundled ranks file hashed and split, the counting), one loading tiktoken's encoder (its
import, the ranks parsed, the encoder built, the counting). Each times only that, after
padtui's imports, which both share. The texts are distinct entries of a synthetic pad
(bench/padgen.py) and, harder for a counter that remembers pieces, the paragraphs of this
repository's documentation, repeated with a number to make each distinct. Reported: the
median times, the ratio Python / tiktoken of the medians and the range of the pairs'
ratios, and the load average. The texts are (almost all) ASCII: characters are bytes.
SMALL in bpe.py (bytes) is put well below the crossing, for text harder than prose.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import padgen  # noqa: E402

PROBE = """
import json, sys, time
import padtui.core.counting.tokens as tokens
texts = json.load(open(sys.argv[2], encoding="utf-8"))
start = time.perf_counter()
if sys.argv[1] == "python":
    from padtui.core.counting.bpe import small_encoder
    enc = small_encoder("cl100k_base")
else:
    enc = tokens.load_encoding("cl100k_base")
n = sum(len(enc.encode_ordinary(t)) for t in texts)
print(time.perf_counter() - start, n)
"""


def texts_of(kind: str, chars: int, tmp: str) -> list[str]:
    if kind == "padgen":
        pad = os.path.join(tmp, "pad.json")
        if not os.path.exists(pad):
            padgen.make_pad(pad, 400_000)
        with open(pad, encoding="utf-8") as f:
            pool = [e["text"] for e in json.load(f)["entries"]]
    else:
        root = os.path.dirname(HERE)
        paras: list[str] = []
        for path in sorted(glob.glob(os.path.join(root, "*.md"))):
            with open(path, encoding="utf-8") as f:
                paras += [p for p in f.read().split("\n\n") if p.strip()]
        pool = [f"{p} ({i})" for i in range(100) for p in paras]
    out, total = [], 0
    for t in pool:
        if total >= chars:
            break
        out.append(t)
        total += len(t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--chars", type=int, nargs="+", default=[5000, 20_000, 50_000, 100_000, 200_000, 400_000]
    )
    ap.add_argument("--pairs", type=int, default=7)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="padtui-bench-bpe-") as tmp:
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        for kind in ("padgen", "docs"):
            for chars in args.chars:
                path = os.path.join(tmp, f"{kind}-{chars}.json")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(texts_of(kind, chars, tmp), f)
                got: dict[str, list[float]] = {"python": [], "tiktoken": []}
                counts = set()
                for i in range(args.pairs + 1):
                    order = ["python", "tiktoken"] if i % 2 == 0 else ["tiktoken", "python"]
                    for who in order:
                        out = subprocess.run(
                            [py, "-c", PROBE, who, path],
                            capture_output=True,
                            text=True,
                            env=env,
                            check=True,
                        ).stdout.split()
                        counts.add(out[1])
                        if i:  # (the first pair warms the bytecode cache)
                            got[who].append(float(out[0]))
                if len(counts) != 1:
                    raise SystemExit(f"the counts differ: {counts}")
                ratios = sorted(a / b for a, b in zip(got["python"], got["tiktoken"], strict=True))
                p, t = statistics.median(got["python"]), statistics.median(got["tiktoken"])
                print(
                    f"{kind:>6} {chars:>7} chars: python {p * 1000:6.1f} ms, tiktoken "
                    f"{t * 1000:6.1f} ms; ratio of medians {p / t:.2f}, pairs "
                    f"{ratios[0]:.2f}–{ratios[-1]:.2f}; load "
                    f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
