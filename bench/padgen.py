"""Synthetic pads for the benchmarks: realistic entries, a chosen size, reproducible.

A pad of about N tokens (cl100k_base) is made of entries of 10 to 90 tokens of agent-like
prose (plans, notes, hypotheses, numbers, paths, ids), with a sealed region of constraints,
negative facts and one loss record, as a healthy pad has. Every text is distinct. The same
arguments give the same bytes (a seeded generator), so anyone can rebuild the benchmark pads.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

WORDS = [
    "export",
    "legacy",
    "orders",
    "table",
    "replica",
    "pages",
    "rows",
    "ordered",
    "checkpoint",
    "resume",
    "ledger",
    "schema",
    "amount",
    "currency",
    "customer",
    "counterparty",
    "booked",
    "invoice",
    "batch",
    "endpoint",
    "import",
    "reject",
    "truncate",
    "retry",
    "write",
    "landed",
    "idempotency",
    "key",
    "header",
    "gateway",
    "timeout",
    "upstream",
    "cache",
    "migration",
    "column",
    "index",
    "constraint",
    "foreign",
    "primary",
    "shard",
    "region",
    "latency",
    "budget",
    "token",
    "summary",
    "merge",
    "paraphrase",
    "condense",
    "plan",
    "note",
    "hypothesis",
    "evidence",
    "metric",
    "dashboard",
    "alert",
    "deploy",
    "rollback",
    "canary",
    "traffic",
    "percent",
    "error",
    "rate",
    "queue",
    "consumer",
    "producer",
    "offset",
    "lag",
    "partition",
    "topic",
    "schema",
    "registry",
    "payload",
    "field",
    "nullable",
    "default",
    "backfill",
    "window",
    "cron",
    "owner",
    "review",
    "approve",
    "ticket",
    "incident",
    "postmortem",
    "runbook",
    "page",
    "oncall",
    "escalate",
    "vendor",
]
VERBS = [
    "check",
    "verify",
    "confirm",
    "map",
    "post",
    "fetch",
    "compare",
    "record",
    "skip",
    "pause",
    "replay",
    "count",
]
KINDS = ("plan", "note", "hypothesis", "note", "plan")
AVG_TOKENS = 40  # the length asked of an entry (10 to 70); it comes out about 50 tokens
REAL_TOKENS = 50


def _sentence(rng: random.Random, words: int) -> str:
    parts = [rng.choice(VERBS).capitalize()]
    for _ in range(words):
        r = rng.random()
        if r < 0.06:
            parts.append(str(rng.randint(2, 99_999)))
        elif r < 0.09:
            parts.append(f"/v{rng.randint(1, 3)}/{rng.choice(WORDS)}/{rng.choice(WORDS)}")
        elif r < 0.11:
            parts.append(f"`{rng.choice(WORDS)}_{rng.choice(WORDS)}`")
        else:
            parts.append(rng.choice(WORDS))
    return " ".join(parts) + rng.choice(".;.!.")


def entry_text(rng: random.Random, serial: int, tokens: int) -> str:
    """About ``tokens`` tokens of prose; ``serial`` makes the text unique."""
    out = [f"Step {serial}:"]
    left = tokens - 3
    while left > 0:
        n = min(left, rng.randint(6, 16))
        out.append(_sentence(rng, max(n - 2, 2)))
        left -= n + 2
    return " ".join(out)


def pad_entries(target_tokens: int, seed: int = 7) -> list[dict[str, Any]]:
    """Entries adding up to about ``target_tokens`` tokens (ids ``e-N``; sealed first)."""
    rng = random.Random(seed)
    n = max(4, round(target_tokens / REAL_TOKENS))
    sealed = max(2, n // 40)
    entries: list[dict[str, Any]] = []
    for i in range(sealed):
        if i == 0:
            entries.append(
                {
                    "kind": "loss_record",
                    "id": "loss-0",
                    "sealed": True,
                    "op": "compact",
                    "text": "compaction at 2026-11-13T22:15:02Z (strict, budget 4000) dropped "
                    "2 entries, 341 tokens: n-00a (note, 170 tokens); n-00b (note, 171 tokens)",
                }
            )
            continue
        kind = "constraint" if i % 2 else "negative_fact"
        text = (
            f"Do not call /v1/{rng.choice(WORDS)}/{rng.choice(WORDS)} from job {i}: "
            + entry_text(rng, i, rng.randint(10, 30))
        )
        entries.append({"kind": kind, "id": f"c-{i}", "sealed": True, "text": text})
    for i in range(sealed, n):
        entries.append(
            {
                "kind": KINDS[i % len(KINDS)],
                "id": f"e-{i}",
                "text": entry_text(rng, i, rng.randint(10, 2 * AVG_TOKENS - 10)),
            }
        )
    return entries


def write_pad(
    path: str,
    entries: list[dict[str, Any]],
    budget: int | None = None,
    *,
    atomic: bool = True,
) -> int:
    """Write a JSON pad (indented, as agents and people write them); returns its size."""
    doc = {"budget_tokens": budget or 4000, "encoding": "cl100k_base", "entries": entries}
    data = json.dumps(doc, indent=2).encode("utf-8")
    write_bytes(path, data, atomic=atomic)
    return len(data)


def write_bytes(path: str, data: bytes, *, atomic: bool = True) -> None:
    """Save as agents do: a temporary file renamed over the pad, or in place (O_TRUNC)."""
    if atomic:
        tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.agent-tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    else:
        with open(path, "wb") as f:
            f.write(data)


def make_pad(path: str, target_tokens: int, budget_share: float = 0.8, seed: int = 7) -> int:
    """A pad of about ``target_tokens`` tokens over its budget (``budget_share`` of it)."""
    entries = pad_entries(target_tokens, seed)
    return write_pad(path, entries, max(1, int(target_tokens * budget_share)))


def edit_one(
    entries: list[dict[str, Any]], version: int, rng: random.Random, near_end: int = 0
) -> None:
    """Change one rewritable entry's text in place (a new version with one entry changed):
    any of them, or (``near_end``) one of the last ``near_end``, as an agent that works on
    its latest notes does."""
    candidates = [i for i, e in enumerate(entries) if not e.get("sealed")]
    i = rng.choice(candidates[-near_end:] if near_end else candidates)
    entries[i] = dict(entries[i], text=entries[i]["text"] + f" Revised in v{version}.")
