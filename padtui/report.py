"""Short, readable text reports of plans and audits for the headless commands.

Every piece of pad text goes through ``one_line`` (controls stripped) before it is printed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from padtui.core.agents import letta
from padtui.core.compaction.plan import Plan, RuleAtRisk, kind_words
from padtui.core.text import one_line

if TYPE_CHECKING:  # (the audit is not imported by `padtui check`, which only plans)
    from padtui.core.audit.rewrite import Audit

GAUGE_WIDTH = 40
MAX_LISTED = 20
T = TypeVar("T")


def gauge(sealed: int, rewritable: int, budget: int, width: int = GAUGE_WIDTH) -> str:
    """``[███▒▒▒····]`` sealed | rewritable | free; past the budget, ``!`` marks overflow."""
    total = sealed + rewritable
    scale = max(total, budget, 1)
    cells = [round(width * sealed / scale), round(width * total / scale)]
    limit = round(width * budget / scale)
    out = []
    for i in range(width):
        if i < cells[0]:
            ch = "█"
        elif i < cells[1]:
            ch = "▒" if i < limit else "!"
        else:
            ch = "·"
        out.append(ch)
    bar = "".join(out)
    if total > budget:
        bar = bar[:limit] + "|" + bar[limit:]
    return f"[{bar}]"


def gauge_line(plan: Plan) -> str:
    sealed, rewritable, budget = plan.tokens_sealed, plan.tokens_rewritable, plan.budget
    total = sealed + rewritable
    state = f"over by {total - budget}" if total > budget else f"{budget - total} free"
    return (
        f"{gauge(sealed, rewritable, budget)} {total}/{budget} tokens "
        f"(sealed {sealed} · rewritable {rewritable} · {state})"
    )


def plan_json(path: str, plan: Plan, fmt: str | None = None, **read_with: Any) -> dict[str, Any]:
    """The plan as ``check --json`` prints it, with the way out of a refusal for this path
    (the MCP server's ``check`` and ``compact`` return the same object). ``fmt`` and
    ``read_with`` (``encoding``, ``rule_headings``, ``only_rule_headings``): the options the
    pad was read with, which the way out's command repeats (``Plan.way_out_for``)."""
    out: dict[str, Any] = {"path": path, **plan.as_json()}
    out["way_out"] = plan.way_out_for(path, fmt=fmt, **read_with)
    if letta.is_agent_file(path, fmt):  # Letta budgets blocks in characters: show both
        out["limits"] = [b.as_json() for b in letta.limits(plan.source, plan.costs)]
        out["way_out"] = letta.way_out(plan, path)
    return out


def plan_report(path: str, plan: Plan, fmt: str | None = None, **read_with: Any) -> str:
    lines = [
        f"{path} · {plan.encoding} · policy {plan.policy} · budget {plan.budget}",
        gauge_line(plan),
    ]
    agent_file = letta.is_agent_file(path, fmt)
    if agent_file:
        lines += limits_lines(letta.limits(plan.source, plan.costs))
    if plan.dropped:
        head = "would drop" if not plan.refused else "the pass would drop"
        lines.append(
            f"{head} {len(plan.dropped)} "
            f"{'entry' if len(plan.dropped) == 1 else 'entries'} "
            f"({plan.tokens_dropped} tokens):"
        )
        shown = plan.dropped[:MAX_LISTED]
        width = max(len(one_line(e.label, 24)) for e in shown)
        # a kind as words (a Markdown heading's slug, user_preferences, reads back as one)
        kinds = [one_line(kind_words(e.kind), 24) for e in shown]
        kind_width = max(13, *(len(k) for k in kinds))
        for e, kind in zip(shown, kinds, strict=True):
            hazard = "  ⚠ protected" if e.protected else ""
            lines.append(
                f"  - {one_line(e.label, 24):<{width}}  {kind:<{kind_width}} "
                f"{plan.costs[e.index]:>6} tok  {one_line(e.text, 60)}{hazard}"
            )
        if len(plan.dropped) > MAX_LISTED:
            rest = len(plan.dropped) - MAX_LISTED
            lines.append(f"  … and {rest} more (--json lists them all)")
    if plan.loss_record is not None and not plan.refused:
        lines.append(
            f"appends sealed loss record ({plan.record_tokens} tokens): "
            f"{one_line(plan.loss_record.text, 100)}"
        )
    over = plan.over_dropping_line()
    if over is not None:
        lines.append(one_line(over))
    lines += rules_lines(plan.rules_at_risk)
    lines.append(_claims_line(plan))
    if plan.refused:
        lines.append(f"refused: {plan.code} — {one_line(plan.message)}")
        way_out = (
            letta.way_out(plan, path)
            if agent_file
            else plan.way_out_for(path, fmt=fmt, **read_with)
        )
        if way_out:
            lines.append(f"way out: {one_line(way_out)}")
    else:
        lines.append(f"{plan.verdict}: {one_line(plan.message)}")
    return "\n".join(lines)


def rules_lines(rules: Sequence[RuleAtRisk]) -> list[str]:
    """Every rule in an unsealed entry, those this pass drops (✗) first."""
    if not rules:
        return ["rules at risk: none found in unsealed entries"]
    dropped = sum(r.dropped for r in rules)
    lines = [
        f"rules at risk: {len(rules)} in unsealed entries, a pass may drop them"
        + (f"; this one drops {dropped} (✗):" if dropped else "; this one drops none:")
    ]
    order = sorted(rules, key=lambda r: not r.dropped)
    width = max(len(one_line(r.entry.label, 24)) for r in order[:MAX_LISTED])
    return lines + _listed(
        order,
        lambda r: (
            f"  {'✗' if r.dropped else ' '} {one_line(r.entry.label, 24):<{width}}  "
            f"{r.kind:<13} {f'{one_line(r.where, 28)}: ' if r.where else ''}"
            f"{one_line(r.text, 80)}"
        ),
    )


def _listed(items: Sequence[T], line: Callable[[T], str]) -> list[str]:
    """A line each for the first ``MAX_LISTED`` items, and how many more there are."""
    lines = [line(item) for item in items[:MAX_LISTED]]
    if len(items) > MAX_LISTED:
        lines.append(f"  … and {len(items) - MAX_LISTED} more (--json lists them all)")
    return lines


def limits_lines(blocks: list[letta.BlockLimit]) -> list[str]:
    """A Letta agent file's blocks: characters against each block's limit (Letta's unit)
    beside tokens (padtui's)."""
    lines = ["Letta memory blocks (read-only: padtui does not write .af files):"]
    if not blocks:
        return [*lines, "  (none)"]
    width = max(len(one_line(b.id, 24)) for b in blocks[:MAX_LISTED])

    def line(b: letta.BlockLimit) -> str:
        limit = f"{b.chars:>6} / {b.limit if b.limit is not None else '-':>6} chars"
        over = "  ⚠ over its limit" if b.over else ""
        return (
            f"  - {one_line(b.id, 24):<{width}}  {one_line(b.kind, 16):<13} "
            f"{'sealed' if b.sealed else '':<6} {limit} {b.tokens:>6} tok{over}"
        )

    return lines + _listed(blocks, line)


def _claims_line(plan: Plan) -> str:
    before, after = plan.claims_before, plan.claims_after
    tpc_before = plan.tokens_total / before if before else 0.0
    tpc_after = plan.tokens_after / after if after else 0.0
    if plan.refused or not plan.dropped:
        return f"claims: {before} ({tpc_before:.1f} tokens per claim)"
    tell = "claim reduction" if after < before else "compression"
    return (
        f"claims: {before} -> {after}, tokens per claim {tpc_before:.1f} -> "
        f"{tpc_after:.1f} ({tell})"
    )


def audit_report(old: str, new: str, result: Audit) -> str:
    return "\n".join([f"audit {old} -> {new}: {result.verdict}", *audit_lines(result)])


def audit_lines(result: Audit) -> list[str]:
    """The findings of an audit, each with the entry's text before and after, then the
    totals."""
    lines = []
    for f in result.findings:
        sev = {"critical": "CRITICAL", "info": "info    "}.get(f.severity, "warning ")
        names = f" {', '.join(one_line(e, 24) for e in f.entries)}:" if f.entries else ":"
        if f.entries and f.message.startswith(f"{f.entries[0]} "):
            names = ""  # (the message opens with the entry: "#5 (prohibition, under ...)")
        lines.append(f"  {sev} {f.code}{names} {one_line(f.message)}")
        if f.entries and f.before is not None:
            lines.append(f"      before: {one_line(f.before, 100)}")
        if f.entries and f.after is not None:
            lines.append(f"      after:  {one_line(f.after, 100)}")
    lines.append(
        f"tokens {result.tokens_before} -> {result.tokens_after} · "
        f"claims {result.claims_before} -> {result.claims_after}"
    )
    return lines
