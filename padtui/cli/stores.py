"""The commands on a memory store of many files: ``padtui memory DIR`` (what was found, when
each file loads, why it is in), ``padtui audit OLD_DIR NEW_DIR``, and ``padtui audit --git
[RANGE]`` with no path (the repository's store at each commit against its first parent's;
without a range, the staged store against HEAD's, for a pre-commit hook)."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from typing import Any

from padtui import telemetry
from padtui.cli.outcome import FOUND, OK, Outcome, UsageError
from padtui.cli.parser import rule_map
from padtui.cli.render import print_json, print_lines
from padtui.core.audit.rewrite import Audit
from padtui.core.errors import PadError
from padtui.core.memory.audit import StoreAudit, audit_stores
from padtui.core.memory.discovery import Store, folder_store
from padtui.core.memory.patterns import Pattern, from_option
from padtui.core.text import one_line
from padtui.core.vocabulary import Scope, Verdict

_WHEN = {Scope.ALWAYS: "always", Scope.PATHS: "paths", Scope.ON_DEMAND: "on demand"}


def patterns_of(args: argparse.Namespace) -> tuple[list[Pattern], bool]:
    found = [from_option(v) for v in getattr(args, "pattern", None) or []]
    replace_own = bool(getattr(args, "only_patterns", False))
    if replace_own and not found:
        raise UsageError("--only-patterns needs at least one --pattern GLOB[=SCOPE]")
    return found, replace_own


def memory(args: argparse.Namespace) -> Outcome:
    extra, replace_own = patterns_of(args)
    store = folder_store(args.dir, extra, replace_own)
    if args.json:
        return Outcome(OK, json=store.as_json())
    return Outcome(OK, text="\n".join(store_lines(args.dir, store)))


def store_lines(root: str, store: Store) -> list[str]:
    if not store.files:
        return [f"{root}: no memory files found (see `padtui memory --help` for the patterns)"]
    start = sum(1 for f in store.files if f.scope == Scope.ALWAYS)
    lines = [f"{root}: {len(store.files)} memory file(s), {start} loaded at start"]
    width = min(48, max(len(one_line(f.path)) for f in store.files))
    for f in store.files:
        part = f" (first {f.lines} lines)" if f.lines else ""
        why = "; ".join(one_line(w, 80) for w in f.why)
        lines.append(f"  {_WHEN[f.scope]:<9} {one_line(f.path, 48):<{width}}  {why}{part}")
    lines += [f"  note: {one_line(n, 160)}" for n in store.notes]
    return lines


def audit_dirs(args: argparse.Namespace, old: str, new: str) -> Outcome:
    extra, replace_own = patterns_of(args)
    for path in (old, new):
        if not os.path.exists(path):
            raise PadError(path, "no such file or folder")
        if not os.path.isdir(path):
            raise PadError(path, "not a folder: audit two folders, or two files, not one of each")
    before = folder_store(old, extra, replace_own)
    after = folder_store(new, extra, replace_own)
    result = audit_stores(before, after, rule_map=rule_map(args))
    telemetry.audited(new, as_audit(result), source="audit.store")
    code = FOUND if result.verdict == Verdict.CORRUPTION else OK
    if args.json:
        return Outcome(code, json={"old": old, "new": new, "store": True, **result.as_json()})
    head = f"audit {old} -> {new}: {result.verdict}"
    return Outcome(code, text="\n".join([head, *audit_lines(result)]))


def as_audit(result: StoreAudit) -> Audit:
    """The store's audit as one audit (its verdict, every finding), as exported."""
    return replace(
        result.audit, verdict=result.verdict, findings=tuple(f.finding for f in result.findings)
    )


def audit_lines(result: StoreAudit, indent: str = "  ") -> list[str]:
    """The changed files, then each finding under the file it is about."""
    lines = []
    for c in result.files:
        if c.change == "unchanged":
            continue
        was = f" from {one_line(c.was, 60)}" if c.was else ""
        lines.append(f"{indent}{c.change} {one_line(c.path, 80)}{was}")
    sev = {"critical": "CRITICAL", "warning": "warning ", "info": "info    "}
    for f in result.findings:
        where = f" [{one_line(f.file, 60)}]" if f.file else ""
        lines.append(
            f"{indent}{sev.get(f.severity, f.severity)} {f.code}{where} "
            f"{one_line(f.finding.message)}"
        )
        if f.finding.before is not None and f.finding.entries:
            lines.append(f"{indent}    before: {one_line(f.finding.before, 100)}")
        if f.finding.after is not None and f.finding.entries:
            lines.append(f"{indent}    after:  {one_line(f.finding.after, 100)}")
    lines += [f"{indent}note: {one_line(n, 160)}" for n in result.notes]
    a = result.audit
    lines.append(
        f"{indent}tokens {a.tokens_before} -> {a.tokens_after} · "
        f"claims {a.claims_before} -> {a.claims_after}"
    )
    return lines


def store_range(files: list[str]) -> tuple[str | None] | None:
    """For ``audit --git`` with no PATH: the range to audit the store over (``(None,)``: the
    staged store); None when a PATH is named (each named file is audited as before). A lone
    argument is a range when it has ``..``, or a revision (not a file) for its whole history."""
    from padtui.core.history import git

    if not files:
        return (None,)
    if len(files) != 1:
        return None
    arg = files[0]
    if git.is_range(arg):
        return (arg,)
    if os.path.lexists(arg) or arg.startswith("-"):
        return None
    try:
        git._run(
            os.path.join(os.getcwd(), "."), ["rev-parse", "--verify", "-q", f"{arg}^{{commit}}"]
        )
    except PadError:
        return None
    return (arg,)


def audit_git_store(args: argparse.Namespace, rev_range: str | None) -> int:
    """Each commit of ``rev_range`` that changed the store, or the staged store; printed as
    it goes. Exit 1 when any is corruption."""
    from padtui.core.memory import git as store_git

    extra, replace_own = patterns_of(args)
    where = os.getcwd()
    headings = rule_map(args)
    results: list[dict[str, Any]] = []
    failed = 0
    lines: list[str] = []
    if rev_range is None:
        root, change = store_git.staged(where, extra, replace_own)
        changes = iter([change] if change is not None else [])
    else:
        root, changes = store_git.history(where, rev_range, extra, replace_own)
    n = 0
    for c in changes:
        result = audit_stores(c.before, c.after, rule_map=headings, renamed=c.renamed)
        telemetry.audited(
            root, as_audit(result), source="audit.git.store", commit=c.commit or "staged"
        )
        n += 1
        failed += result.verdict == Verdict.CORRUPTION
        if args.json:
            results.append(
                {
                    "commit": c.commit,
                    "parent": c.parent,
                    "subject": c.subject,
                    **result.as_json(),
                }
            )
            continue
        what = f"{c.commit[:7]} {one_line(c.subject, 60)!r}" if c.commit else "staged store"
        print_lines(f"{what}: {result.verdict}", *audit_lines(result), flush=True)
    if args.json:
        print_json(
            {
                "root": root,
                "range": rev_range,
                "staged": rev_range is None,
                "store": True,
                "results": results,
                "failed": bool(failed),
            }
        )
        return FOUND if failed else OK
    if failed:
        lines.append(f"gate: failed: corruption of the memory store in {failed} of {n} change(s)")
    elif n:
        lines.append(f"gate: passed: {n} change(s) to the memory store, none corrupt")
    else:
        lines.append("gate: passed: no change to the memory store")
    print_lines(*lines)
    return FOUND if failed else OK
