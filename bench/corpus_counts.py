"""Count the labelled rewrite pairs in tests/corpus/pairs by style, variant, language and verdict.

Prints Markdown tables for tests/corpus/README.md:

    python bench/corpus_counts.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

PAIRS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "pairs"
VARIANTS = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"]


def main() -> int:
    paths = sorted(PAIRS.glob("*/expect.json"))
    labels = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    if not labels:
        print(f"no pairs under {PAIRS}", file=sys.stderr)
        return 1
    styles = sorted({e["style"] for e in labels})
    by = Counter((e["style"], e["variant"]) for e in labels)
    print(f"{len(labels)} pairs.\n")
    print("| style | " + " | ".join(VARIANTS) + " | total |")
    print("| --- | " + " | ".join("---:" for _ in VARIANTS) + " | ---: |")
    for s in styles:
        row = [by[(s, v)] for v in VARIANTS]
        print(f"| {s} | " + " | ".join(str(n or "") for n in row) + f" | {sum(row)} |")
    col = Counter(e["variant"] for e in labels)
    print("| **total** | " + " | ".join(str(col[v]) for v in VARIANTS) + f" | {len(labels)} |\n")
    for key, title in (("lang", "language"), ("verdict", "verdict")):
        c = Counter(e[key] for e in labels)
        print(f"| {title} | pairs |\n| --- | ---: |")
        for k, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"| {k} | {n} |")
        print()
    codes = Counter(code for e in labels for code in e["must_include_codes"])
    print("| must_include_codes | pairs |\n| --- | ---: |")
    for k, n in sorted(codes.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"| {k} | {n} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
