"""Command line: argument parsing and the headless commands (the README's "Commands").

Exit codes everywhere: 0 fine, 1 refused or corruption found, 2 bad input or usage.
The headless commands never import Textual; the inspector is imported only when it runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from padtui import __version__
from padtui.core.errors import EncodingUnavailable, PadError
from padtui.progress import Progress

if TYPE_CHECKING:
    from padtui.core.rules import RuleMap

OK, FOUND, BAD = 0, 1, 2
COMMANDS = (
    "watch",
    "check",
    "compact",
    "externalize",
    "audit",
    "history",
    "replay",
    "simulate",
    "demo",
    "mcp",
    "claude",
)


class UsageError(Exception):
    """Bad arguments: exit 2 with a one-line message."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line like every other bad input (argparse's own
    prints the usage too), exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def _budget(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {n}")
    return n


def _path_help() -> str:
    from padtui.core.formats import names_text

    return f"pad file ({names_text()})"


def _format_option(p: argparse.ArgumentParser) -> None:
    from padtui.core.formats import chosen

    p.add_argument(
        "--format",
        choices=chosen(),
        metavar="|".join(chosen()),
        help="read the pad as this format, whatever its file name says",
    )


def _plan_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="PATH", help=_path_help())
    _format_option(p)
    p.add_argument(
        "--budget",
        type=_budget,
        metavar="N",
        help="token budget (default: the file's budget_tokens, else 4000)",
    )
    p.add_argument(
        "--encoding", metavar="E", help="tiktoken encoding (default: the file's, else cl100k_base)"
    )
    p.add_argument(
        "--policy",
        choices=("strict", "seed"),
        default="strict",
        help="strict (default) refuses to drop protected kinds and appends a "
        "loss record; seed is the reference compact()",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    _rule_options(p)
    _cache_option(p)


def _cache_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="count every text afresh, and keep no counts for the next run (by default the "
        "tokens and claims of each text are kept in $XDG_CACHE_HOME/padtui/, else "
        "~/.cache/padtui/; safe to delete)",
    )


def _rule_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rule-heading",
        action="append",
        default=[],
        metavar="WORD",
        help="a heading or label word that holds rules, added to padtui's (repeatable): "
        "--rule-heading gotchas makes '## Known gotchas' a place of rules",
    )
    p.add_argument(
        "--only-rule-headings",
        action="store_true",
        help="the --rule-heading words replace padtui's own list instead of adding to it",
    )


def _rule_map(args: argparse.Namespace) -> RuleMap | None:
    from padtui.core.rules import RuleMap

    words = [w for w in getattr(args, "rule_heading", []) if w.strip()]
    if getattr(args, "only_rule_headings", False):
        if not words:
            raise UsageError("--only-rule-headings needs at least one --rule-heading WORD")
        return RuleMap.default().extended(words, replace=True)
    return RuleMap.default().extended(words) if words else None


def _journal_options(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "--journal",
        metavar="PATH",
        help="the version journal to use (default: one per pad in $XDG_STATE_HOME/padtui/, "
        "else ~/.local/state/padtui/)",
    )
    group.add_argument(
        "--no-journal", action="store_true", help="keep no journal of the versions replaced"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="padtui",
        description="Watch a self-editing agent's scratchpad; tell a declared compaction "
        "from a corrupting rewrite.",
    )
    parser.add_argument("--version", action="version", version=f"padtui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("watch", help="the live inspector on a pad file (also: padtui PATH)")
    p.add_argument("path", metavar="PATH", help=f"{_path_help()}, or a folder of them")
    _format_option(p)
    p.add_argument("--budget", type=_budget, metavar="N", help="token budget")
    p.add_argument("--encoding", metavar="E", help="tiktoken encoding")
    p.add_argument("--policy", choices=("strict", "seed"), default="strict")
    _rule_options(p)
    _journal_options(p)
    p.set_defaults(run=cmd_watch)

    p = sub.add_parser("simulate", help="a scripted agent rewriting a pad, for demos and tests")
    p.add_argument("path", metavar="PATH", help="the pad the agent writes (.json)")
    p.add_argument("--scenario", required=True, metavar="NAME", help="see padtui demo --list")
    p.add_argument(
        "--interval",
        type=_seconds,
        default=2.0,
        metavar="S",
        help="seconds between steps (default 2)",
    )
    p.add_argument(
        "--writes",
        choices=("atomic", "inplace"),
        default="atomic",
        help="save by renaming a temporary file over the pad (default), or in place",
    )
    p.add_argument(
        "--reset",
        action="store_true",
        help="start the scenario over an existing file (it is replaced)",
    )
    p.set_defaults(run=cmd_simulate)

    p = sub.add_parser("demo", help="the inspector on a temporary pad a scripted agent rewrites")
    p.add_argument("--scenario", default="retry-5xx", metavar="NAME")
    p.add_argument(
        "--interval",
        type=_seconds,
        metavar="S",
        default=_env_seconds("PADTUI_DEMO_INTERVAL", 6.0),
        help="seconds between the agent's steps (default 6, or $PADTUI_DEMO_INTERVAL)",
    )
    p.add_argument("--list", action="store_true", help="list the scenarios and what each shows")
    p.set_defaults(run=cmd_demo)

    p = sub.add_parser("replay", help="time travel through a journal's versions in the inspector")
    p.add_argument("journal", metavar="JOURNAL", help="a journal file (see padtui history)")
    p.set_defaults(run=cmd_replay)

    p = sub.add_parser("check", help="trial compaction report")
    _plan_options(p)
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("compact", help="the compaction plan (--write commits it)")
    _plan_options(p)
    p.add_argument(
        "--write",
        action="store_true",
        help="commit the plan safely (compare-and-swap, journaled; refused plans never are)",
    )
    _journal_options(p)
    p.set_defaults(run=cmd_compact)

    p = sub.add_parser(
        "externalize",
        help="seal unsealed constraints / negative facts / loss records, by a safe commit",
    )
    p.add_argument("path", metavar="PATH", help=_path_help())
    p.add_argument("ids", metavar="ID", nargs="+", help="entry ids (or #N positions)")
    _format_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    _journal_options(p)
    p.set_defaults(run=cmd_externalize)

    p = sub.add_parser(
        "audit",
        help="findings and verdict for one rewrite OLD -> NEW (--git: each change in git)",
        usage="%(prog)s [options] OLD NEW\n       %(prog)s --git [options] [REV_RANGE] PATH...",
    )
    p.add_argument(
        "files", nargs="+", metavar="FILE", help="OLD NEW, or with --git: [REV_RANGE] PATH..."
    )
    p.add_argument(
        "--git",
        action="store_true",
        help="audit each commit in REV_RANGE (a range has '..': origin/main..HEAD) that changed "
        "PATH against its first parent's version; without a range, the staged PATH against HEAD",
    )
    _format_option(p)
    p.add_argument("--encoding", metavar="E")
    p.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    _rule_options(p)
    _cache_option(p)
    p.set_defaults(run=cmd_audit)

    p = sub.add_parser(
        "history",
        help="journaled versions of a pad with the audit verdict of each transition "
        "(exit 1 if a corruption is not yet acknowledged or restored away); --restore N "
        "writes one back; --ack N acknowledges the alarm of version N",
    )
    p.add_argument("path", metavar="PATH", help=_path_help())
    _format_option(p)
    p.add_argument(
        "--restore",
        type=_version_number,
        metavar="N",
        help="write version N back over the pad (a safe commit; the version replaced is journaled)",
    )
    p.add_argument(
        "--ack",
        type=_version_number,
        action="append",
        metavar="N",
        help="acknowledge the alarm of version N (recorded in the journal; repeatable): "
        "history then exits 0 unless another corruption is outstanding",
    )
    p.add_argument("--encoding", metavar="E", help="tiktoken encoding for token counts")
    p.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    p.add_argument(
        "--open",
        action="store_true",
        help="time travel through the versions in the inspector (read-only)",
    )
    _rule_options(p)
    _journal_options(p)
    p.set_defaults(run=cmd_history)

    p = sub.add_parser(
        "mcp",
        help="a stdio MCP server, so an agent can check, audit and compact its pads itself "
        "(needs the mcp extra: pip install 'padtui[mcp]')",
    )
    p.add_argument(
        "paths",
        metavar="PATH",
        nargs="+",
        help="the pads, or folders of pads, the server may touch (nothing else)",
    )
    p.set_defaults(run=cmd_mcp)

    from padtui.claude.commands import add_parser as add_claude_parser

    add_claude_parser(sub)
    return parser


def _seconds(value: str) -> float:
    try:
        n = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {value!r}") from None
    if not 0 <= n <= 3600:
        raise argparse.ArgumentTypeError(f"must be between 0 and 3600, got {n}")
    return n


def _env_seconds(name: str, default: float) -> float:
    try:
        return _seconds(os.environ.get(name, str(default)))
    except argparse.ArgumentTypeError:
        return default


def _version_number(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a version number: {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"versions are numbered from 1, got {n}")
    return n


# --- commands ------------------------------------------------------------------------------


def _plan(args: argparse.Namespace) -> Any:
    """The trial of ``check`` and of ``compact`` without ``--write`` (nothing is written back,
    so the pad is read without the layout a write needs)."""
    from padtui.core.compaction import plan
    from padtui.core.formats import format_of, load_pad

    with Progress(f"checking {args.path}"):
        pad = load_pad(args.path, args.format)
        counter = _counter(args, args.path, pad)
        fmt = format_of(args.path, args.format)
        rules = _rule_map(args)
        made = plan(
            pad, args.budget, args.policy, counter, fmt=fmt, rule_map=rules, find_rules_now=True
        )
        _keep_counts(counter, made)
        return made


def _counter(args: argparse.Namespace, path: str, pad: Any) -> Any:
    """The token counter; an encoding named by the file itself is the file's bad input."""
    if args.encoding is None and pad.encoding is not None:
        try:
            return _cached_counter(args, path, pad.encoding)
        except EncodingUnavailable as exc:
            raise PadError(path, str(exc), '"encoding"') from None
    return _cached_counter(args, path, args.encoding)


def _cached_counter(args: argparse.Namespace, path: str, encoding: str | None) -> Any:
    """The token counter of a command on the pad at ``path``: with the pad's count cache
    (padtui/core/countcache.py) unless ``--no-cache``."""
    from padtui.core.tokens import DEFAULT_ENCODING, TokenCounter, counter_for

    if args.no_cache:
        return counter_for(encoding)
    from padtui.core.countcache import CountCache

    name = encoding or DEFAULT_ENCODING
    return TokenCounter(name, CountCache.for_pad(path, name))


def _keep_counts(counter: Any, plan: Any = None) -> None:
    """Write the counts learnt (and the plan's rules at risk, which every report of it
    shows, found now) back to the cache; a failure (a full disk, a read-only cache folder)
    is passed over in silence: the next run counts again, nothing else is lost."""
    if counter.store is not None:
        if plan is not None:
            plan.rules_at_risk  # noqa: B018
        counter.store.save()


def _plan_json(path: str, plan: Any, fmt: str | None = None) -> dict[str, Any]:
    from padtui.report import plan_json

    return plan_json(path, plan, fmt)


def cmd_check(args: argparse.Namespace) -> int:
    from padtui.report import plan_report

    plan = _plan(args)
    if args.json:
        _print_json(_plan_json(args.path, plan, args.format))
    else:
        _out(plan_report(args.path, plan, args.format))
    return FOUND if plan.refused else OK


def cmd_compact(args: argparse.Namespace) -> int:
    from padtui.report import plan_report

    if args.write:
        return _compact_write(args)
    plan = _plan(args)
    if args.json:
        _print_json({**_plan_json(args.path, plan, args.format), "written": False})
    else:
        _out(plan_report(args.path, plan, args.format))
        if not plan.refused and plan.dropped:
            _out("dry run: nothing written")
    return FOUND if plan.refused else OK


def _journal_arg(args: argparse.Namespace) -> str | bool:
    if args.no_journal:
        return False
    return str(args.journal) if args.journal else True


def _journal_text(args: argparse.Namespace, after: Any) -> str:
    if after.version is None:
        return "no journal"
    from padtui.core.store import journal_of

    j = journal_of(args.path, _journal_arg(args))
    return f"journal: version {after.version} in {j.path if j else '-'}"


def _compact_write(args: argparse.Namespace) -> int:
    """``compact --write``: plan from a stamped read, commit by compare-and-swap."""
    from padtui.core import store
    from padtui.core.compaction import plan as make_plan
    from padtui.core.formats import check_writable
    from padtui.report import plan_report

    # a Letta .af file: exit 2, nothing read or written
    check_writable(args.path, args.format, seals=True)
    with Progress(f"checking {args.path}"):
        snap = store.read(args.path, fmt=args.format)
        check_writable(args.path, snap.format, snap.file.layout)  # a memory export: exit 2
        counter = _cached_counter(args, args.path, args.encoding or snap.pad.encoding)
        plan = make_plan(
            snap.pad,
            args.budget,
            args.policy,
            counter,
            fmt=snap.format,
            rule_map=_rule_map(args),
            find_rules_now=True,
        )
        _keep_counts(counter, plan)
    report = _plan_json(args.path, plan, args.format)
    if plan.refused:
        if args.json:
            _print_json({**report, "written": False})
        else:
            _out(plan_report(args.path, plan, args.format))
            _out("refused: nothing written")
        return FOUND
    if not plan.dropped:
        if args.json:
            _print_json({**report, "written": False})
        else:
            _out(plan_report(args.path, plan, args.format))
            _out("nothing to drop: nothing written")
        return OK
    try:
        after = store.commit(snap, plan, journal=_journal_arg(args))
    except store.CommitError as exc:
        return _missed(exc, args, {**report, "written": False})
    if args.json:
        j = store.journal_of(args.path, _journal_arg(args))
        journal = {"path": j.path, "version": after.version} if j is not None else None
        _print_json({**report, "written": True, "journal": journal})
    else:
        _out(plan_report(args.path, plan, args.format))
        _out(
            f"written: {args.path} ({plan.tokens_total} -> {plan.tokens_after} tokens); "
            + _journal_text(args, after)
        )
    return OK


def _missed(exc: Any, args: argparse.Namespace, report: dict[str, Any]) -> int:
    """A commit that did not happen, one line on stderr: exit 1 for a CAS miss or a lock held,
    2 for one the system or the pad's place would not allow (a full disk, a read-only pad)."""
    from padtui.core.store import WriteFailed

    message = exc.line()
    if args.json:
        _print_json({**report, "error": message})
    _error(message)
    return BAD if isinstance(exc, WriteFailed) else FOUND


def cmd_externalize(args: argparse.Namespace) -> int:
    from padtui.core import sealing, store
    from padtui.core.formats import check_writable

    check_writable(args.path, args.format, seals=True)  # a Letta .af file: exit 2
    snap = store.read(args.path, fmt=args.format)
    check_writable(args.path, snap.format, snap.file.layout)  # a memory export: exit 2
    entries, sealed, already = sealing.externalized(snap.pad, args.ids, args.path)
    report: dict[str, Any] = {
        "path": args.path,
        "sealed": sealed,
        "already_sealed": already,
        "written": False,
    }
    if not sealed:
        if args.json:
            _print_json(report)
        else:
            _out(f"{args.path}: already sealed: {', '.join(already)}; nothing written")
        return OK
    try:
        after = store.commit(snap, entries, journal=_journal_arg(args), origin="externalize")
    except store.CommitError as exc:
        return _missed(exc, args, report)
    if args.json:
        j = store.journal_of(args.path, _journal_arg(args))
        journal = {"path": j.path, "version": after.version} if j is not None else None
        _print_json({**report, "written": True, "journal": journal})
    else:
        from padtui.core.text import one_line

        line = f"{args.path}: sealed {', '.join(one_line(s, 40) for s in sealed)}"
        if already:
            line += f" (already sealed: {', '.join(one_line(s, 40) for s in already)})"
        _out(line)
        _out(_journal_text(args, after))
    return OK


def cmd_history(args: argparse.Namespace) -> int:
    from padtui.core import store
    from padtui.core.history import history, outstanding

    if args.no_journal:
        raise UsageError("history reads the journal; --no-journal makes no sense here")
    if args.ack and (args.restore is not None or args.open):
        raise UsageError("--ack goes alone: not with --restore or --open")
    journal = store.journal_of(args.path, _journal_arg(args))
    assert journal is not None
    journal.check_owner()  # before anything in it is shown or written back
    if args.restore is not None:
        return _restore(args, journal)
    current: str | None = None
    try:
        # the version on disk is one seen too
        snap = store.read(args.path, journal=journal, fmt=args.format)
        on_disk = snap.version
    except PadError as exc:
        if not journal.versions():
            raise
        current, on_disk = exc.problem, None
    if args.open:
        return _replay(journal)
    with Progress(f"reading the history of {args.path}", len(journal.versions())) as progress:
        rows = history(journal, args.encoding, progress.advance, _rule_map(args))
    for n in args.ack or ():
        _acknowledge(journal, rows, n)
    acks = journal.acknowledged()
    waiting = outstanding(rows, acks)
    if args.json:
        _print_json(
            {
                "path": args.path,
                "journal": journal.path,
                "on_disk": on_disk,
                "current_error": current,
                "versions": [r.as_json() for r in rows],
                "damaged_lines": [{"line": n, "problem": p} for n, p in journal.damage()],
                "lost_versions": sorted(journal.lost()),
                "acknowledged": sorted(acks),
                "outstanding": [r.version.n for r in waiting],
            }
        )
    else:
        text = _history_text(
            args.path, journal.path, rows, on_disk, current, journal.damage(), journal.lost()
        )
        _out(text + _outstanding_text(rows, acks, [r.version.n for r in waiting]))
    return FOUND if waiting else OK


def _acknowledge(journal: Any, rows: Sequence[Any], n: int) -> None:
    """Record that the user has seen the alarm of version ``n`` (PadError: exit 2, for a
    version that raised none)."""
    row = next((r for r in rows if r.version.n == n), None)
    if row is None or row.verdict not in ("corruption", "undeclared_loss"):
        what = "is not in the journal" if row is None else f"raised no alarm ({row.verdict})"
        raise PadError(journal.path, f"version {n} {what}: nothing to acknowledge")
    journal.acknowledge(n)


def _outstanding_text(rows: Sequence[Any], acks: set[int], waiting: Sequence[int]) -> str:
    alarmed = [r.version.n for r in rows if r.verdict in ("corruption", "undeclared_loss")]
    done = [n for n in alarmed if n in acks]
    lines = []
    if done:
        lines.append("acknowledged: " + ", ".join(f"version {n}" for n in done))
    if waiting:
        listed = ", ".join(map(str, waiting))
        lines.append(
            f"outstanding corruption: version{'s' if len(waiting) > 1 else ''} {listed} "
            f"(`--ack N` acknowledges one; a restore of the version before undoes it)"
        )
    return "".join("\n" + line for line in lines)


def _history_text(
    path: str,
    journal: str,
    rows: Sequence[Any],
    on_disk: int | None,
    current: str | None,
    damage: Sequence[tuple[int, str]] = (),
    lost: Collection[int] = (),
) -> str:
    from padtui.core.text import one_line

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
        if r.audit is not None and r.audit.findings:
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
    if any(r.verdict == "corruption" for r in rows):
        lines.append(
            "corruption in the history: `padtui history PATH --restore N` writes a version back"
        )
    return "\n".join(lines)


def _restore(args: argparse.Namespace, journal: Any) -> int:
    from padtui.core import store
    from padtui.core.formats import check_writable, read_bytes

    check_writable(args.path, args.format)  # a Letta .af file: exit 2

    wanted = journal.data(args.restore)  # PadError for a version that is not there
    try:  # (read_bytes: a FIFO in the pad's place is refused, not waited on)
        same = read_bytes(args.path) == wanted
    except PadError:
        same = False
    try:
        after = store.restore(args.path, args.restore, journal=journal, fmt=args.format)
    except store.CommitError as exc:
        return _missed(exc, args, {"path": args.path, "restored": None, "written": False})
    report = {
        "path": args.path,
        "restored": args.restore,
        "written": not same or after.created,
        "created": after.created,
        "journal": {"path": journal.path, "version": after.version},
    }
    if args.json:
        _print_json(report)
    elif after.created:
        _out(
            f"{args.path}: it did not exist; written anew as version {args.restore}; "
            f"journal: version {after.version} in {journal.path}"
        )
    elif same:
        _out(f"{args.path}: version {args.restore} is what is on disk; nothing written")
    else:
        _out(
            f"{args.path}: restored version {args.restore}; the version it replaced is "
            f"journaled; journal: version {after.version} in {journal.path}"
        )
    return OK


def cmd_audit(args: argparse.Namespace) -> int:
    from padtui.core.audit import audit
    from padtui.core.formats import load_pad
    from padtui.report import audit_report

    if args.git:
        from padtui.gate import audit_git

        return audit_git(args)
    if len(args.files) != 2:
        raise UsageError(
            "audit takes OLD NEW, or --git [REV_RANGE] PATH... (see `padtui audit --help`)"
        )
    args.old, args.new = args.files
    with Progress(f"auditing {args.old} -> {args.new}"):
        old = load_pad(args.old, args.format)
        new = load_pad(args.new, args.format)
        counter = _cached_counter(args, args.new, args.encoding or new.encoding or old.encoding)
        result = audit(old, new, counter, _rule_map(args))
        _keep_counts(counter)
    if args.json:
        _print_json({"old": args.old, "new": args.new, **result.as_json()})
    else:
        _out(audit_report(args.old, args.new, result))
    return FOUND if result.verdict == "corruption" else OK


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the guard over MCP on standard input and output (nothing else is printed there)."""
    try:
        from padtui.mcp_server import serve
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "mcp":
            raise
        raise UsageError("padtui mcp needs the mcp extra: pip install 'padtui[mcp]'") from None
    serve(args.paths)
    return OK


def _terminal() -> bool:
    """Are standard input and output a terminal? The screens need both."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _need_terminal(what: str, instead: str) -> None:
    """Outside a terminal a screen would draw into a pipe and wait for keys that never
    come: exit 2 at once, naming what to run instead."""
    if not _terminal():
        raise UsageError(f"{what} needs a terminal (standard input and output); {instead}")


def _shell(path: str) -> str:
    from padtui.core.text import shell_word

    return shell_word("./" + path if path.startswith("-") else path)


def cmd_watch(args: argparse.Namespace) -> int:
    """The live inspector. Bad input is reported before the screen is taken over."""
    from padtui.core.formats import format_of, read_bytes
    from padtui.core.tokens import counter_for

    if os.path.isdir(args.path):
        return _fleet(args)
    format_of(args.path, args.format)
    read_bytes(args.path)  # a missing or unreadable file: exit 2 now, not inside the app
    _need_terminal(
        f"{args.path}: the inspector", f"run `padtui check {_shell(args.path)}` for a report"
    )
    counter_for(args.encoding)  # an unavailable encoding too
    from padtui.tui.app import make_app

    app = make_app(
        args.path,
        budget=args.budget,
        policy=args.policy,
        encoding=args.encoding,
        journal=args.journal,
        use_journal=not args.no_journal,
        fmt=args.format,
        rule_map=_rule_map(args),
    )
    app.run()
    return app.return_code or OK


def _fleet(args: argparse.Namespace) -> int:
    """``padtui DIR``: the fleet view of every pad in the folder."""
    from padtui.core.tokens import counter_for

    if args.journal:
        raise UsageError(
            f"{args.path}: --journal names one journal, and each pad of a folder keeps its own"
        )
    if args.format:
        raise UsageError(
            f"{args.path}: --format names one pad's format; the pads of a folder are read "
            "by their names"
        )
    _need_terminal(
        f"{args.path}: the fleet view",
        f"run `padtui check {_shell(os.path.join(args.path, 'PAD'))}` for a report on a pad",
    )
    counter_for(args.encoding)  # an unavailable encoding: exit 2 now, not inside the app
    from padtui.tui.fleet import FleetApp

    app = FleetApp(
        args.path,
        budget=args.budget,
        policy=args.policy,
        encoding=args.encoding,
        use_journal=not args.no_journal,
        rule_map=_rule_map(args),
    )
    app.run()
    return app.return_code or OK


def cmd_simulate(args: argparse.Namespace) -> int:
    """Play a scenario against PATH, printing what the agent does at each step."""
    import time

    from padtui.demo_agent import ScriptedAgent, load_scenario

    scenario = load_scenario(args.scenario)
    if os.path.exists(args.path) and not args.reset:
        raise UsageError(
            f"{args.path} exists; the scripted agent starts its own pad: pass "
            "--reset to replace it, or name a new file"
        )
    if not args.path.endswith(".json"):
        raise UsageError(f"{args.path}: the scripted agents write .json pads")
    if os.path.exists(args.path) and not os.path.isfile(args.path):
        # (a FIFO there would hold the first in-place write for ever)
        raise UsageError(f"{args.path}: not a regular file; the scripted agent writes only files")
    agent = ScriptedAgent(args.path, scenario, args.writes)
    agent.start()
    _out(f"{scenario.title}\n{scenario.teaches}\nstarted {args.path}", flush=True)
    while not agent.done:
        time.sleep(args.interval)
        result = agent.step()
        if result is None:
            break
        _out(f"step {result.number + 1}/{len(scenario.steps)}: {result.say}", flush=True)
        if result.refusal is not None:
            _out(f"halt and surface: {result.refusal.code}: {result.refusal.message}", flush=True)
            return FOUND
    return OK


def cmd_demo(args: argparse.Namespace) -> int:
    """The inspector on a temporary copy of a sample pad, with the scripted agent on it."""
    import shutil
    import tempfile
    from functools import partial

    from padtui.demo_agent import load_scenario, names

    if args.list:
        for name in names():
            s = load_scenario(name)
            _out(f"{name:<22} {s.title}")
        return OK
    scenario = load_scenario(args.scenario)
    _need_terminal(
        "the demo",
        f"run `padtui simulate PATH --scenario {args.scenario}` to play its agent without "
        "one, or `padtui` alone for the trial of the sample pad",
    )
    from padtui.tui.demo import DemoApp, ended_by_signals

    with tempfile.TemporaryDirectory(prefix="padtui-demo-", ignore_cleanup_errors=True) as folder:
        path = os.path.join(folder, "pad.json")
        app = DemoApp(path, scenario, args.interval, journal=os.path.join(folder, "journal.jsonl"))
        with ended_by_signals(app, partial(shutil.rmtree, folder, ignore_errors=True)):
            app.agent.start()
            app.run()
        return app.return_code or OK


def cmd_replay(args: argparse.Namespace) -> int:
    """Open the inspector on the versions a journal recorded."""
    from padtui.core.journal import Journal

    if not os.path.isfile(args.journal):
        raise PadError(args.journal, "no such journal file")
    return _replay(Journal(args.journal))


def _replay(journal: Any) -> int:
    if not journal.versions():
        raise PadError(journal.path, "the journal holds no version")
    _need_terminal(f"{journal.path}: time travel", "run `padtui history PATH` for its versions")
    from padtui.tui.replay import ReplayApp

    app = ReplayApp(journal)
    app.run()
    return app.return_code or OK


def cmd_default(args: argparse.Namespace) -> int:
    """``padtui`` alone: a trial compaction of the embedded sample pad."""
    from padtui.samples import default_pad

    path = str(default_pad())
    args = build_parser().parse_args(["check", path])
    code = cmd_check(args)
    _out(
        "\n(not a terminal, so this is the trial of the embedded sample pad; in a terminal "
        "padtui alone runs the demo. See `padtui --help` for the commands)"
    )
    return code if code != FOUND else OK


# --- running -------------------------------------------------------------------------------


def _without_cyclic_gc(run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a headless command with the cyclic garbage collector paused: a command that reads
    a large pad makes a hundred thousand objects and keeps them to the end, and the
    collector's passes over them are pure loss in a process that exits right after."""
    import gc

    paused = gc.isenabled()
    gc.disable()
    try:
        return run(args)
    finally:
        if paused:
            gc.enable()


# --- output: every line the commands print goes through _out, _error or _print_json --------
# Pads, file names, journals and caches are untrusted, and their text is in almost every line:
# these clean all of it (ESC, C0 and C1 controls, DEL, bidirectional controls), so that no
# output path has to remember to. (The progress line on a terminal writes its own.)


def _out(*lines: str, flush: bool = False) -> None:
    from padtui.core.text import clean

    print(clean("\n".join(lines)), flush=flush)  # noqa: T201


def _error(message: str) -> None:
    """One line on standard error: ``padtui: error: ...``."""
    from padtui.core.text import one_line

    print(f"padtui: error: {one_line(message)}", file=sys.stderr)  # noqa: T201


def _print_json(obj: dict[str, Any]) -> None:
    from padtui.core.text import escape_controls

    # (json.dumps escapes C0 controls; escape_controls the rest: the same JSON value)
    _out(escape_controls(json.dumps(obj, ensure_ascii=False, indent=2)))


def _wants_json(argv: Sequence[str]) -> bool:
    return "--json" in argv


def _fail(message: str, argv: Sequence[str]) -> int:
    if _wants_json(argv):
        _print_json({"error": message})
    _error(message)
    return BAD


_SHORT_LIVED = (cmd_check, cmd_compact, cmd_audit)  # headless, read-mostly, exit at once


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code."""
    return _main(argv)[0]


def entry() -> NoReturn:
    """The console script (and ``python -m padtui``): ``main``, and after a headless
    command an exit without the interpreter's teardown, once its output is flushed (its
    files are closed by then): freeing a large pad's objects one by one took ~25 ms."""
    code, headless = _main(None)
    if not headless:
        raise SystemExit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # (a reader that has gone: as in _main)
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        except (OSError, ValueError):
            pass
    os._exit(code)


def _main(argv: Sequence[str] | None) -> tuple[int, bool]:
    """The exit code, and whether the command was one of the headless ones that may end
    without the interpreter's teardown (``_SHORT_LIVED``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    headless = False
    try:
        if not argv:
            if sys.stdin.isatty() and sys.stdout.isatty():
                argv = ["demo"]
            else:
                return cmd_default(argparse.Namespace()), False
        if not argv[0].startswith("-") and argv[0] not in COMMANDS:
            argv = ["watch", *argv]
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version, or a usage error already printed
            return (exc.code if isinstance(exc.code, int) else BAD), False
        run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
        if run is None:
            raise UsageError("no command given (see `padtui --help`)")
        if run in _SHORT_LIVED:
            headless = True
            return _without_cyclic_gc(run, args), headless
        return run(args), headless
    except PadError as exc:
        return _fail(exc.line(), argv), headless
    except (EncodingUnavailable, UsageError) as exc:
        return _fail(str(exc), argv), headless
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return OK, headless
    except KeyboardInterrupt:
        return 130, headless
