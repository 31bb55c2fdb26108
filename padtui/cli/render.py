"""Output: every line the commands print goes through ``print_lines``, ``print_error`` or
``print_json``.

Pads, file names, journals and caches are untrusted, and their text is in almost every line:
these clean all of it (ESC, C0 and C1 controls, DEL, bidirectional controls), so that no
output path has to remember to. (The progress line on a terminal writes its own.)
"""

from __future__ import annotations

import json
import sys
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from padtui.cli.outcome import BAD, Outcome

if TYPE_CHECKING:
    from padtui.core.history.versions import HistoryRow


def print_lines(*lines: str, flush: bool = False) -> None:
    from padtui.core.text import clean

    print(clean("\n".join(lines)), flush=flush)  # noqa: T201


def print_error(message: str) -> None:
    """One line on standard error: ``padtui: error: ...``."""
    from padtui.core.text import one_line

    print(f"padtui: error: {one_line(message)}", file=sys.stderr)  # noqa: T201


def print_json(obj: dict[str, Any]) -> None:
    from padtui.core.text import escape_controls

    # (json.dumps escapes C0 controls; escape_controls the rest: the same JSON value)
    print_lines(escape_controls(json.dumps(obj, ensure_ascii=False, indent=2)))


def show(outcome: Outcome) -> int:
    """Print what a command ended with; its exit code."""
    if outcome.json is not None:
        print_json(outcome.json)
    if outcome.text is not None:
        print_lines(outcome.text)
    if outcome.error is not None:
        print_error(outcome.error)
    return outcome.code


def fail(message: str, argv: Sequence[str]) -> int:
    """Bad input: one line on standard error (and a JSON object for ``--json``), exit 2."""
    if "--json" in argv:
        print_json({"error": message})
    print_error(message)
    return BAD


# --- the text of `padtui history` ------------------------------------------------------------


def outstanding_text(
    rows: Sequence[HistoryRow], acks: set[int], waiting: Sequence[int], command: str
) -> str:
    """What was acknowledged, what is outstanding, and the commands that deal with it
    (``command``: ``padtui history`` with the pad's path and options, shell-quoted)."""
    alarmed = [r.version.n for r in rows if r.verdict in ("corruption", "undeclared_loss")]
    done = [n for n in alarmed if n in acks]
    lines = []
    if done:
        lines.append("acknowledged: " + ", ".join(f"version {n}" for n in done))
    if waiting:
        listed = ", ".join(map(str, waiting))
        lines.append(f"outstanding corruption: version{'s' if len(waiting) > 1 else ''} {listed}")
        acks_cmd = " ".join(f"--ack {n}" for n in waiting)
        it = "them" if len(waiting) > 1 else "it"
        lines.append(f"  `{command} {acks_cmd}` acknowledges {it}")
        last = next(r for r in rows if r.version.n == waiting[-1])
        if last.previous is not None:
            lines.append(
                f"  `{command} --restore {last.previous}` writes back version {last.previous}, "
                f"the one before the corruption of version {last.version.n}"
            )
    return "".join("\n" + line for line in lines)


def history_text(
    path: str,
    journal: str,
    rows: Sequence[HistoryRow],
    on_disk: int | None,
    current: str | None,
    damage: Sequence[tuple[int, str]] = (),
    lost: Collection[int] = (),
) -> str:
    from padtui.core.history.versions import restored
    from padtui.core.text import one_line

    back = restored(list(rows))
    lines = [f"history of {path} ({journal})"]
    if not rows:
        lines.append("  no versions journaled yet")
    else:
        lines.append(
            f"  {'#':>4}  {'time (UTC)':<23}  {'origin':<11}  {'tokens':>6}  "
            f"{'entries':>7}  verdict"
        )
    for r in rows:
        v = r.version
        when = one_line(v.at.replace("T", " ").removesuffix("Z"), 23)
        tokens = "-" if r.tokens is None else str(r.tokens)
        mark = "  <- on disk" if v.n == on_disk else ""
        verdict = r.verdict
        if v.n in back:  # (the user's own doing: not judged against the version it replaced)
            verdict = f"restore of version {back[v.n]}"
        elif r.audit is not None and r.audit.findings:
            codes = sorted({f.code for f in r.audit.findings})
            verdict += ": " + ", ".join(codes)
        lines.append(
            f"  {v.n:>4}  {when:<23}  {one_line(v.origin, 11):<11}  {tokens:>6}  "
            f"{len(v.entries):>7}  {verdict}{mark}"
        )
    if current is not None:
        lines.append(f"  now: the file is unreadable ({one_line(current, 80)})")
    if damage:
        where = ", ".join(str(n) for n, _problem in damage[:10])
        more = f" and {len(damage) - 10} more" if len(damage) > 10 else ""
        gone = sorted(lost)
        named = f"; versions lost: {', '.join(map(str, gone[:20]))}" if gone else ""
        named += " ..." if len(gone) > 20 else ""
        lines.append(
            f"damaged journal: line{'s' if len(damage) > 1 else ''} {where}{more} passed "
            f"over as unreadable{named}"
        )
    return "\n".join(lines)
