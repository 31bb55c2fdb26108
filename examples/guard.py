#!/usr/bin/env python3
"""An agent-side guard: one safe compaction step, run by the agent on its own pad.

The seed document's rule, as code an agent author can copy into an agent loop. Each call of
:func:`guarded_compact` does, under padtui's lock (so a padtui commit never races it):

1. read the pad with its version stamp (``padtui.read``);
2. plan a *strict* compaction (``padtui.plan``): nothing protected may drop, and a pass that
   drops anything appends a sealed loss record naming what it dropped;
3. if the pass would drop an unsealed constraint, negative fact or loss record, or an entry
   holding a rule (by its heading or its own wording: ``RULE_WOULD_DROP``), seal what the
   refusal's way out names instead (``padtui.externalize``: into the append-only region; in
   a Markdown memory file where it stands, with a ``<!-- sealed -->`` marker) and plan again;
4. commit by compare-and-swap (``padtui.commit``): if the pad changed since it was read (the
   agent's other half, a tool, anything wrote meanwhile) nothing is written and the step
   starts over from the new version, up to ``attempts`` times. It never clobbers a write;
5. halt and surface: a plan still refused (the sealed region alone over the budget, or no
   room left for the record of its own loss) raises :class:`GuardHalt`, loudly, naming the
   refusal code. The agent must stop and show it to a person, not compact anyway.

From the shell, one step::

    python examples/guard.py PAD --budget N [--attempts K] [--no-journal]

Exit 0: compacted, or nothing to do; 1: halted (the refusal code is on stderr); 2: bad
input; 3: the pad kept changing (gave up after K attempts; nothing was written over it).
Every version replaced is journaled (``padtui history PAD``) unless ``--no-journal``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field

import padtui

# the refusals that sealing lifts: strict never drops a protected entry nor a rule
KEEPS = ("PROTECTED_KIND_WOULD_DROP", "RULE_WOULD_DROP")


class GuardHalt(padtui.UnrecoverableCompactionError):
    """A compaction the guard will not make. Stop the agent and surface ``code``."""

    def __init__(self, plan: padtui.Plan, path: str) -> None:
        self.plan = plan
        self.code = plan.code
        way_out = plan.way_out_for(path)
        super().__init__(f"{plan.code}: {plan.message}" + (f" ({way_out})" if way_out else ""))


class GuardGaveUp(RuntimeError):
    """The pad changed under every attempt; nothing was written over anyone's write."""


@dataclass
class GuardResult:
    """What one guarded step did."""

    path: str
    committed: bool  # a compaction was written
    attempts: int  # 1, or more after compare-and-swap misses
    externalized: list[str] = field(default_factory=list)  # sealed instead of dropped
    dropped: list[str] = field(default_factory=list)
    loss_record: str | None = None  # the id of the loss record appended
    tokens_before: int = 0
    tokens_after: int = 0


def guarded_compact(
    path: str,
    budget: int | None = None,
    *,
    attempts: int = 5,
    journal: bool = True,
    lock_timeout: float = 10.0,
    backoff: float = 0.02,
) -> GuardResult:
    """One guarded compaction step of the pad at ``path`` (see the module's docstring).

    Raises GuardHalt (refused: stop and surface), GuardGaveUp (the pad kept changing),
    padtui.LockTimeout, or padtui.PadError (bad input, or a pad padtui does not write).
    """
    sealed: list[str] = []
    for attempt in range(1, attempts + 1):
        try:
            with padtui.lock(path, timeout=lock_timeout):
                snap = padtui.read(path)  # the bytes and their stamp: what a commit checks
                # strict, the default policy; the format says what the loss record may leave
                # to its drops field (JSON) and what its text must name itself (Markdown)
                fmt = snap.file.layout.format
                plan = padtui.plan(snap.pad, budget, fmt=fmt)
                while plan.code in KEEPS:  # seal, never drop
                    labels = [snap.pad.name_of(e) for e in plan.to_seal]
                    snap = padtui.externalize(snap, labels, journal=journal)
                    sealed += [label for label in labels if label not in sealed]
                    plan = padtui.plan(snap.pad, budget, fmt=fmt)
                if plan.refused:
                    raise GuardHalt(plan, path)  # halt and surface
                result = GuardResult(path, False, attempt, sealed, tokens_before=plan.tokens_total)
                if plan.dropped:
                    padtui.commit(snap, plan, journal=journal)  # compare-and-swap
                    result.committed = True
                    result.dropped = [e.label for e in plan.dropped]
                    result.loss_record = plan.loss_record.label if plan.loss_record else None
                result.tokens_after = plan.tokens_after
                return result
        except padtui.Conflict:
            time.sleep(backoff * attempt)  # someone wrote meanwhile: read the new version
    raise GuardGaveUp(f"{path}: changed during each of {attempts} attempts; nothing written")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="One guarded compaction step of a pad.")
    parser.add_argument("pad", metavar="PAD", help="the pad file (.json, .jsonl, .md)")
    parser.add_argument("--budget", type=int, metavar="N", help="token budget")
    parser.add_argument("--attempts", type=int, default=5, metavar="K")
    parser.add_argument("--no-journal", action="store_true", help="journal nothing")
    args = parser.parse_args(argv)
    try:
        r = guarded_compact(
            args.pad, args.budget, attempts=args.attempts, journal=not args.no_journal
        )
    except GuardHalt as exc:
        print(f"guard: HALT {exc}", file=sys.stderr)
        return 1
    except padtui.PadError as exc:
        print(f"guard: error: {exc.line()}", file=sys.stderr)
        return 2
    except padtui.EncodingUnavailable as exc:
        print(f"guard: error: {exc}", file=sys.stderr)
        return 2
    except (GuardGaveUp, padtui.CommitError) as exc:
        print(f"guard: gave up: {exc}", file=sys.stderr)
        return 3
    if r.externalized:
        print(f"guard: sealed {' '.join(r.externalized)} instead of dropping them")
    if r.committed:
        print(
            f"guard: compacted {r.path} ({r.tokens_before} -> {r.tokens_after} tokens): "
            f"dropped {' '.join(r.dropped)}; loss record {r.loss_record}; attempts {r.attempts}"
        )
    else:
        print(f"guard: {r.path} fits ({r.tokens_before} tokens): nothing to do")
    return 0


if __name__ == "__main__":
    sys.exit(main())
