"""Accuracy of the memory store's audit on labelled multi-file changes from public git
histories: moved rules carried and reported as moved, true losses caught, false alarms.

    python bench/store_accuracy.py CORPUS_DIR [--split dev|heldout|all] [--git] [--json]

Each case is a folder ``NAME/`` with ``old/`` and ``new/`` (the memory files before and after
the change) and ``label.json`` (``verdict``, ``accept``, ``moved`` [{rule, from, to}], ``lost``
[{rule, from}], ``split``, and for ``--git`` the ``mirror`` git directory with ``parent`` and
``commit``), labelled before padtui ran on it. Two folders are audited with ``audit_stores``;
with ``--git`` the mirror's store at ``commit`` against its first parent, found by padtui
itself. A label's rule is matched to a finding when most of its content words are in the
finding's rule text (labels paraphrase); a label without the rule's words (as
``bench/store_history/manifest.jsonl`` keeps them out) counts in the verdicts only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterable
from typing import Any

from padtui.core.audit.carry import stems
from padtui.core.audit.rewrite import audit
from padtui.core.memory import git as store_git
from padtui.core.memory.audit import (
    StoreAudit,
    StoreEntry,
    audit_stores,
    file_entries,
    store_pad,
)
from padtui.core.memory.discovery import Store, folder_store
from padtui.core.model import Pad
from padtui.core.rules.finder import entry_rules

CRITICAL = ("CONSTRAINT_DROPPED", "CONSTRAINT_WEAKENED")
MOVES = ("RULE_MOVED", "RULE_SCOPE_NARROWED")


def said(rule: str, text: str | None) -> bool:
    """Does ``text`` state the label's rule (most of its content words)?"""
    if not text:
        return False
    want = stems(rule.split("->")[0])
    if not want:
        return False
    have = stems(text)
    return len(want & have) * 2 >= len(want) * 1 + (1 if len(want) > 3 else 0)


def audited(
    name: str, folder: str, label: dict[str, Any], use_git: bool
) -> tuple[StoreAudit, list[tuple[str, str]]] | None:
    """The store's audit, and the old store's rules as padtui reads them (file, text)."""
    if not use_git:
        old = folder_store(os.path.join(folder, "old"))
        new = folder_store(os.path.join(folder, "new"))
        return audit_stores(old, new), rules_of(old)
    mirror, parent, commit = label.get("mirror"), label.get("parent"), label.get("commit")
    if not (mirror and parent and commit and os.path.isdir(mirror)):
        return None
    _root, changes = store_git.history(mirror, f"{parent}..{commit}")
    got = [c for c in changes if c.commit == commit]
    if not got:
        return None
    c = got[0]
    return audit_stores(c.before, c.after, renamed=c.renamed), rules_of(c.before)


def single_file_criticals(folder: str) -> dict[str, list[str]]:
    """The baseline: each file of the two stores audited on its own (a deleted file against
    an empty pad), the rule texts of its critical findings."""
    old = folder_store(os.path.join(folder, "old"))
    new = folder_store(os.path.join(folder, "new"))
    out: dict[str, list[str]] = {}
    for path in {f.path for f in old.files} | {f.path for f in new.files}:
        a, b = old.get(path), new.get(path)
        before = Pad.of(file_entries(a)) if a else Pad.of([])
        after = Pad.of(file_entries(b)) if b else Pad.of([])
        result = audit(before, after)
        out[path] = [f.before or "" for f in result.findings if f.code in CRITICAL]
    return out


def rules_of(store: Store) -> list[tuple[str, str]]:
    out = []
    for e in store_pad(store).entries:
        assert isinstance(e, StoreEntry)
        out += [(e.file, r.text) for r in entry_rules(e)]
    return out


def score(
    label: dict[str, Any],
    result: StoreAudit | None,
    rules: list[tuple[str, str]],
    single: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    findings = result.findings if result is not None else ()
    critical = [f for f in findings if f.code in CRITICAL]
    moves = [f for f in findings if f.code in MOVES]
    verdict = str(result.verdict) if result is not None else "unchanged"
    out: dict[str, Any] = {
        "verdict": verdict,
        "verdict_ok": verdict in label.get("accept", [label.get("verdict")]),
        "moved": 0,
        "moved_carried": 0,
        "moved_reported": 0,
        "moved_read": 0,  # moved rules padtui reads as rules in the old store
        "moved_single_flagged": 0,  # moved rules one file's audit alone calls lost
        "lost": 0,
        "lost_caught": 0,
        "critical": len(critical),
        "honest": "corruption" not in label.get("accept", [label.get("verdict")]),
        "single_alarm": bool(single) and any(single.values()),
        "missed": [],
        "not_reported": [],
        "flagged": [],
    }
    for m in label.get("moved", []):
        rule = m.get("rule")
        if m.get("from") == m.get("to") or not rule:
            continue  # (a label without the rule's words is counted in the verdicts only)
        out["moved"] += 1
        carried = not any(said(rule, f.finding.before) for f in critical)
        out["moved_carried"] += carried
        if single is not None:
            out["moved_single_flagged"] += any(
                said(rule, text) for text in single.get(m["from"], [])
            )
        if not carried:
            out["flagged"].append(rule)
        reported = any(
            said(rule, f.finding.before) and f.file == m["from"] and f.to == m["to"] for f in moves
        ) or any(  # (a file renamed: the move is the rename, reported with the files)
            c.change == "renamed" and c.was == m["from"] and c.path == m["to"]
            for c in (result.files if result is not None else ())
        )
        read = any(said(rule, text) for file, text in rules if file == m["from"])
        out["moved_read"] += read
        out["moved_reported"] += reported and read
        if read and not reported:
            out["not_reported"].append(rule)
    for lost in label.get("lost", []):
        if not lost.get("rule"):
            continue
        out["lost"] += 1
        caught = any(said(lost["rule"], f.finding.before) for f in critical)
        out["lost_caught"] += caught
        if not caught:
            out["missed"].append(lost["rule"])
    return out


def _pct(a: int, b: int) -> str:
    return f"{a / b:.0%} ({a}/{b})" if b else "-"


def markdown(summary: dict[str, Any], rows: list[dict[str, Any]], baseline: bool) -> list[str]:
    s = summary
    out = [
        f"Split `{s['split']}`, through {s['through']}: {s['cases']} changes "
        f"({s['errors']} not audited).",
        "",
        "| measure | result |",
        "| --- | ---: |",
        f"| store verdict in the labelled set | {_pct(s['verdict_ok'], s['cases'] - s['errors'])}"
        " |",
        f"| moved rules carried (no critical finding) | {_pct(s['moved_carried'], s['moved'])} |",
    ]
    out.append(
        f"| honest changes (corruption not in the labelled set) the store gate fails | "
        f"{_pct(s['honest_alarmed'], s['honest'])} |"
    )
    if baseline:
        out.append(
            f"| honest changes a gate of one file at a time fails | "
            f"{_pct(s['honest_single_alarmed'], s['honest'])} |"
        )
        flagged = s["moved_single_flagged"]
        out.append(
            f"| moved rules called lost by one file's audit alone | {_pct(flagged, s['moved'])} |"
        )
    out += [
        f"| moved rules reported as moved, from and to the labelled files (of those padtui "
        f"reads as rules) | {_pct(s['moved_reported'], s['moved_read'])} |",
        f"| truly lost rules caught | {_pct(s['lost_caught'], s['lost'])} |",
        "",
    ]
    wrong = [r for r in rows if "error" not in r and not r["verdict_ok"]]
    if wrong:
        out.append(
            "Verdicts outside the labelled set: "
            + ", ".join(f"`{r['name']}` ({r['verdict']})" for r in wrong)
            + "."
        )
    errors = [r for r in rows if "error" in r]
    if errors:
        out.append(
            "Not audited: " + ", ".join(f"`{r['name']}` ({r['error']})" for r in errors) + "."
        )
    return out


def cases(corpus: str, split: str) -> Iterable[tuple[str, str, dict[str, Any]]]:
    for name in sorted(os.listdir(corpus)):
        folder = os.path.join(corpus, name)
        path = os.path.join(folder, "label.json")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            label = json.load(f)
        if split != "all" and label.get("split") != split:
            continue
        yield name, folder, label


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("--split", default="dev", choices=("dev", "heldout", "all"))
    parser.add_argument("--git", action="store_true", help="through the mirrors' history")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--markdown", action="store_true", help="a section for ACCURACY")
    parser.add_argument(
        "--baseline", action="store_true", help="also audit each file on its own, as before"
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    started = time.perf_counter()
    for name, folder, label in cases(args.corpus, args.split):
        try:
            got = audited(name, folder, label, args.git)
        except Exception as exc:  # a case that breaks is counted, not fatal
            rows.append({"name": name, "error": f"{type(exc).__name__}: {exc}"})
            continue
        if got is None:
            rows.append({"name": name, "error": "no mirror, or the store did not change"})
            continue
        single = single_file_criticals(folder) if args.baseline else None
        rows.append({"name": name, "kind": label.get("kind"), **score(label, *got, single)})
    done = [r for r in rows if "error" not in r]
    total = {
        k: sum(r[k] for r in done)
        for k in (
            "moved",
            "moved_carried",
            "moved_single_flagged",
            "moved_read",
            "moved_reported",
            "lost",
            "lost_caught",
        )
    }
    honest = [r for r in done if r["honest"]]
    summary = {
        "honest": len(honest),
        "honest_alarmed": sum(r["verdict"] == "corruption" for r in honest),
        "honest_single_alarmed": sum(r["single_alarm"] for r in honest),
        "split": args.split,
        "through": "git" if args.git else "folders",
        "cases": len(rows),
        "errors": len(rows) - len(done),
        "verdict_ok": sum(r["verdict_ok"] for r in done),
        **total,
        "seconds": round(time.perf_counter() - started, 1),
    }
    if args.json:
        print(json.dumps({"summary": summary, "cases": rows}, indent=1))
        return 0
    if args.markdown:
        print("\n".join(markdown(summary, rows, args.baseline)))
        return 0
    for r in rows:
        if "error" in r:
            print(f"{r['name']}: ERROR {r['error']}")
            continue
        print(
            f"{r['name']:<28} {r['verdict']:<16} {'ok ' if r['verdict_ok'] else 'BAD'} "
            f"moved {r['moved_carried']}/{r['moved']} carried, "
            f"{r['moved_reported']}/{r['moved_read']} reported; "
            f"lost {r['lost_caught']}/{r['lost']} caught"
        )
        if args.verbose:
            for key in ("flagged", "not_reported", "missed"):
                for rule in r[key]:
                    print(f"    {key}: {rule}")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
