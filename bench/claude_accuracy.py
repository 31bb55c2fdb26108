"""How often the Claude Code guard is right about a compaction, on labelled sessions.

A labelled session is a folder holding ``transcript.jsonl`` (the session up to the
compaction, in Claude Code's record shapes), ``summary.txt`` (the compaction's summary),
``expect.json`` and, when the project has one, ``CLAUDE.md``::

    {"verdict": "corruption", "lost_rules": ["never run terraform apply ..."],
     "kept_rules": ["only touch the staging workspace, never prod"], "why": "..."}

Folders may be grouped one level down (``real/NAME``, ``synthetic/NAME``): the group is the
kind reported. Usage::

    python bench/claude_accuracy.py                 # tests/claude/cases
    python bench/claude_accuracy.py --cases DIR     # any folder of labelled sessions
    python bench/claude_accuracy.py -v              # every rule flagged, and why

Each session is judged as the PostCompact hook judges it: the rules in force gathered from
the project folder (its ``CLAUDE.md``) and the transcript, the summary audited against them
(with the memory files as they are now). Counted: the verdict (``compaction`` or
``corruption``) against the label; a lost rule *found* when a rule flagged as dropped or
weakened is part of it (or it of the rule); a *false flag* a flagged rule that is part of no
labelled lost rule. The user's own folder is an empty temporary one, and no managed policy
file is read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "claude" / "cases"


@dataclass
class Outcome:
    name: str
    kind: str
    expected: str
    verdict: str
    lost: int
    found: int
    false_flags: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)

    @property
    def right(self) -> bool:
        return self.verdict == self.expected


def _plain(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .;!")


def _part_of(flagged: str, labelled: str) -> bool:
    a, b = _plain(flagged), _plain(labelled)
    return bool(a and b) and (a in b or b in a)


def cases(root: Path) -> list[tuple[str, Path]]:
    out = []
    for folder in sorted(p for p in root.rglob("expect.json")):
        rel = folder.parent.relative_to(root)
        kind = rel.parts[0] if len(rel.parts) > 1 else "all"
        out.append((kind, folder.parent))
    return out


def judge_case(kind: str, folder: Path) -> Outcome:
    from padtui.claude.hooks import Event, rules_in_force
    from padtui.claude.memory import read_memory
    from padtui.core.agents.guard import judgement

    label = json.loads((folder / "expect.json").read_text(encoding="utf-8"))
    summary = (folder / "summary.txt").read_text(encoding="utf-8")
    event = Event("bench", str(folder / "transcript.jsonl"), str(folder), {})
    rules, _ = rules_in_force(event, [])
    memory_now = read_memory(str(folder), event.transcript_path, [])
    verdict = judgement(rules, summary, memory_now).verdict
    lost_rules = [str(r) for r in label.get("lost_rules", [])]
    flagged = [r.text for r in verdict.lost]
    found = sum(1 for lost in lost_rules if any(_part_of(f, lost) for f in flagged))
    false_flags = [f for f in flagged if not any(_part_of(f, lost) for lost in lost_rules)]
    return Outcome(
        str(folder.relative_to(folder.parents[1 if kind != "all" else 0])),
        kind,
        label["verdict"],
        verdict.verdict,
        len(lost_rules),
        found,
        false_flags,
        [f"{r.source}: {r.text}" for r in verdict.lost],
    )


def report(outcomes: Sequence[Outcome], verbose: bool) -> list[str]:
    lines = []
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_kind[o.kind].append(o)
        mark = "ok " if o.right else "BAD"
        lines.append(
            f"{mark} {o.name}: {o.verdict} (labelled {o.expected}); lost rules found "
            f"{o.found}/{o.lost}; false flags {len(o.false_flags)}"
        )
        if verbose:
            lines += [f"      flagged {one}" for one in o.flagged]
    lines.append("")
    for kind, group in [*sorted(by_kind.items()), ("total", list(outcomes))]:
        right = sum(o.right for o in group)
        lost = sum(o.lost for o in group)
        found = sum(o.found for o in group)
        false = sum(len(o.false_flags) for o in group)
        lines.append(
            f"{kind}: verdicts right {right}/{len(group)}, lost rules found {found}/{lost}, "
            f"false flags {false}"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, default=CASES, help="a folder of labelled sessions")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every rule flagged")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as home:
        os.environ["HOME"] = home
        os.environ["PADTUI_CLAUDE_MANAGED"] = os.path.join(home, "no-managed-policy")
        sys.path.insert(0, str(ROOT))
        outcomes = [judge_case(kind, folder) for kind, folder in cases(args.cases)]
    if not outcomes:
        raise SystemExit(f"{args.cases}: no labelled session (a folder with expect.json)")
    print("\n".join(report(outcomes, args.verbose)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
