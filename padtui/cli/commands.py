"""The report commands: ``check``, ``compact``, ``externalize``, ``audit`` (and ``mcp``). Each
takes the parsed arguments and returns an :class:`Outcome`; none prints. Bad input raises
(PadError, UsageError), which ``main`` turns into one line, exit 2."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from padtui import telemetry
from padtui.cli.outcome import BAD, FOUND, OK, Outcome, UsageError
from padtui.cli.parser import rule_map
from padtui.core.errors import EncodingUnavailable, PadError
from padtui.progress import Progress

if TYPE_CHECKING:
    from padtui.core.compaction.plan import Plan
    from padtui.core.counting.tokens import TokenCounter
    from padtui.core.model import Pad
    from padtui.core.storage.store import CommitError, Snapshot


# --- counting --------------------------------------------------------------------------------


def _plan(args: argparse.Namespace) -> Plan:
    """The trial of ``check`` and of ``compact`` without ``--write`` (nothing is written back,
    so the pad is read without the layout a write needs)."""
    from padtui.core.compaction.plan import plan
    from padtui.core.formats import format_of, load_pad

    with Progress(f"checking {args.path}"):
        pad = load_pad(args.path, args.format)
        counter = _counter(args, args.path, pad)
        fmt = format_of(args.path, args.format)
        rules = rule_map(args)
        made = plan(
            pad, args.budget, args.policy, counter, fmt=fmt, rule_map=rules, find_rules_now=True
        )
        _keep_counts(counter, made)
        return made


def _counter(args: argparse.Namespace, path: str, pad: Pad) -> TokenCounter:
    """The token counter; an encoding named by the file itself is the file's bad input."""
    if args.encoding is None and pad.encoding is not None:
        try:
            return cached_counter(args, path, pad.encoding)
        except EncodingUnavailable as exc:
            raise PadError(path, str(exc), '"encoding"') from None
    return cached_counter(args, path, args.encoding)


def cached_counter(args: argparse.Namespace, path: str, encoding: str | None) -> TokenCounter:
    """The token counter of a command on the pad at ``path``: with the pad's count cache
    (padtui/core/countcache.py) unless ``--no-cache``."""
    from padtui.core.counting.tokens import DEFAULT_ENCODING, TokenCounter, counter_for

    if args.no_cache:
        return counter_for(encoding)
    from padtui.core.counting.countcache import CountCache

    name = encoding or DEFAULT_ENCODING
    return TokenCounter(name, CountCache.for_pad(path, name))


def _keep_counts(counter: TokenCounter, plan: Plan | None = None) -> None:
    """Write the counts learnt (and the plan's rules at risk, which every report of it
    shows, found now) back to the cache; a failure (a full disk, a read-only cache folder)
    is passed over in silence: the next run counts again, nothing else is lost."""
    if counter.store is not None:
        if plan is not None:
            plan.rules_at_risk  # noqa: B018
        counter.store.save()


def _read_with(args: argparse.Namespace) -> dict[str, Any]:
    """The options a plan's pad was read with, which its way out's command repeats."""
    return {
        "encoding": args.encoding,
        "rule_headings": [w for w in getattr(args, "rule_heading", []) if w.strip()],
        "only_rule_headings": getattr(args, "only_rule_headings", False),
    }


# --- writing ---------------------------------------------------------------------------------


def journal_arg(args: argparse.Namespace) -> str | bool:
    if args.no_journal:
        return False
    return str(args.journal) if args.journal else True


def _journal_json(args: argparse.Namespace, after: Snapshot) -> dict[str, Any] | None:
    from padtui.core.storage.store import journal_of

    j = journal_of(args.path, journal_arg(args))
    return {"path": j.path, "version": after.version} if j is not None else None


def _journal_text(args: argparse.Namespace, after: Snapshot) -> str:
    if after.version is None:
        return "no journal"
    from padtui.core.storage.store import journal_of

    j = journal_of(args.path, journal_arg(args))
    return f"journal: version {after.version} in {j.path if j else '-'}"


def missed(exc: CommitError, args: argparse.Namespace, report: dict[str, Any]) -> Outcome:
    """A commit that did not happen, one line on stderr: exit 1 for a CAS miss or a lock held,
    2 for one the system or the pad's place would not allow (a full disk, a read-only pad)."""
    from padtui.core.storage.store import WriteFailed

    message = exc.line()
    code = BAD if isinstance(exc, WriteFailed) else FOUND
    return Outcome(code, json={**report, "error": message} if args.json else None, error=message)


# --- the commands ----------------------------------------------------------------------------


def check(args: argparse.Namespace) -> Outcome:
    from padtui.report import plan_json, plan_report

    plan = _plan(args)
    telemetry.planned(args.path, plan, source="check")
    code = FOUND if plan.refused else OK
    if args.json:
        return Outcome(code, json=plan_json(args.path, plan, args.format, **_read_with(args)))
    return Outcome(code, text=plan_report(args.path, plan, args.format, **_read_with(args)))


def compact(args: argparse.Namespace) -> Outcome:
    from padtui.report import plan_json, plan_report

    if args.write:
        return _compact_write(args)
    plan = _plan(args)
    code = FOUND if plan.refused else OK
    if args.json:
        return Outcome(
            code,
            json={**plan_json(args.path, plan, args.format, **_read_with(args)), "written": False},
        )
    text = plan_report(args.path, plan, args.format, **_read_with(args))
    if not plan.refused and plan.dropped:
        text += "\ndry run: nothing written"
    return Outcome(code, text=text)


def _compact_write(args: argparse.Namespace) -> Outcome:
    """``compact --write``: plan from a stamped read, commit by compare-and-swap."""
    from padtui.core.compaction.plan import plan as make_plan
    from padtui.core.formats import check_writable
    from padtui.core.storage import store
    from padtui.report import plan_json, plan_report

    # a Letta .af file: exit 2, nothing read or written
    check_writable(args.path, args.format, seals=True)
    with Progress(f"checking {args.path}"):
        snap = store.read(args.path, fmt=args.format)
        check_writable(args.path, snap.format, snap.file.layout)  # a memory export: exit 2
        counter = cached_counter(args, args.path, args.encoding or snap.pad.encoding)
        plan = make_plan(
            snap.pad,
            args.budget,
            args.policy,
            counter,
            fmt=snap.format,
            rule_map=rule_map(args),
            find_rules_now=True,
        )
        _keep_counts(counter, plan)
    report = plan_json(args.path, plan, args.format, **_read_with(args))
    if plan.refused or not plan.dropped:
        code, why = (FOUND, "refused") if plan.refused else (OK, "nothing to drop")
        if args.json:
            return Outcome(code, json={**report, "written": False})
        text = plan_report(args.path, plan, args.format, **_read_with(args))
        return Outcome(code, text=f"{text}\n{why}: nothing written")
    try:
        after = store.commit(snap, plan, journal=journal_arg(args))
    except store.CommitError as exc:
        return missed(exc, args, {**report, "written": False})
    if args.json:
        return Outcome(OK, json={**report, "written": True, "journal": _journal_json(args, after)})
    return Outcome(
        OK,
        text=f"{plan_report(args.path, plan, args.format, **_read_with(args))}\n"
        f"written: {args.path} ({plan.tokens_total} -> {plan.tokens_after} tokens); "
        + _journal_text(args, after),
    )


def externalize(args: argparse.Namespace) -> Outcome:
    from padtui.core.compaction import sealing
    from padtui.core.formats import check_writable
    from padtui.core.storage import store
    from padtui.core.text import one_line

    check_writable(args.path, args.format, seals=True)  # a Letta .af file: exit 2
    snap = store.read(args.path, fmt=args.format)
    check_writable(args.path, snap.format, snap.file.layout)  # a memory export: exit 2
    entries, sealed, already = sealing.externalized(snap.pad, args.ids, args.path, rule_map(args))
    report: dict[str, Any] = {
        "path": args.path,
        "sealed": sealed,
        "already_sealed": already,
        "written": False,
    }
    if not sealed:
        if args.json:
            return Outcome(OK, json=report)
        text = f"{args.path}: already sealed: {', '.join(already)}; nothing written"
        return Outcome(OK, text=text)
    try:
        after = store.commit(snap, entries, journal=journal_arg(args), origin="externalize")
    except store.CommitError as exc:
        return missed(exc, args, report)
    if args.json:
        return Outcome(OK, json={**report, "written": True, "journal": _journal_json(args, after)})
    line = f"{args.path}: sealed {', '.join(one_line(s, 40) for s in sealed)}"
    if already:
        line += f" (already sealed: {', '.join(one_line(s, 40) for s in already)})"
    return Outcome(OK, text=f"{line}\n{_journal_text(args, after)}")


def audit(args: argparse.Namespace) -> Outcome:
    from padtui.core.audit.rewrite import audit
    from padtui.core.formats import load_pad
    from padtui.report import audit_report

    if args.git:
        from padtui.cli.stores import audit_git_store, store_range
        from padtui.gate import audit_git

        whole = store_range(args.files)
        if whole is not None:
            return Outcome(audit_git_store(args, whole[0]))  # (printed as it goes)
        return Outcome(audit_git(args))  # (it prints each commit's audit as it goes)
    if len(args.files) != 2:
        raise UsageError(
            "audit takes OLD NEW, or --git [REV_RANGE] [PATH...] (see `padtui audit --help`)"
        )
    args.old, args.new = args.files
    if os.path.isdir(args.old) or os.path.isdir(args.new):
        from padtui.cli.stores import audit_dirs

        return audit_dirs(args, args.old, args.new)
    with Progress(f"auditing {args.old} -> {args.new}"):
        old = load_pad(args.old, args.format)
        new = load_pad(args.new, args.format)
        counter = cached_counter(args, args.new, args.encoding or new.encoding or old.encoding)
        rules = rule_map(args)
        result = audit(old, new, counter, rules)
        telemetry.audited(
            args.new, result, source="audit", old=old, rule_map=rules, counter=counter
        )
        _keep_counts(counter)
    code = FOUND if result.verdict == "corruption" else OK
    if args.json:
        return Outcome(code, json={"old": args.old, "new": args.new, **result.as_json()})
    return Outcome(code, text=audit_report(args.old, args.new, result))


def mcp(args: argparse.Namespace) -> Outcome:
    """Serve the guard over MCP on standard input and output (nothing else is printed there)."""
    try:
        from padtui.mcp_server import serve
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "mcp":
            raise
        raise UsageError("padtui mcp needs the mcp extra: pip install 'padtui[mcp]'") from None
    serve(args.paths)
    return Outcome(OK)
