"""Command line: argument parsing and the headless commands (SPEC section 5).

Exit codes everywhere: 0 fine, 1 refused or corruption found, 2 bad input or usage.
The headless commands never import Textual; the inspector is imported only when it runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from typing import Any

from padtui import __version__
from padtui.core.errors import EncodingUnavailable, PadError

OK, FOUND, BAD = 0, 1, 2
COMMANDS = ("check", "compact", "audit")


class UsageError(Exception):
    """Bad arguments: exit 2 with a one-line message."""


def _budget(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {n}")
    return n


def _plan_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="PATH", help="pad file (.json, .jsonl)")
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="padtui",
        description="Watch a self-editing agent's scratchpad; tell a declared compaction "
        "from a corrupting rewrite.",
    )
    parser.add_argument("--version", action="version", version=f"padtui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("check", help="trial compaction report")
    _plan_options(p)
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("compact", help="the compaction plan (--write commits it)")
    _plan_options(p)
    p.add_argument("--write", action="store_true", help="commit the plan safely")
    p.set_defaults(run=cmd_compact)

    p = sub.add_parser("audit", help="findings and verdict for one rewrite OLD -> NEW")
    p.add_argument("old", metavar="OLD")
    p.add_argument("new", metavar="NEW")
    p.add_argument("--encoding", metavar="E")
    p.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    p.set_defaults(run=cmd_audit)
    return parser


# --- commands ------------------------------------------------------------------------------


def _plan(args: argparse.Namespace) -> tuple[Any, Any]:
    from padtui.core.compaction import plan
    from padtui.core.formats import load
    from padtui.core.tokens import counter_for

    pad_file = load(args.path)
    counter = counter_for(args.encoding or pad_file.pad.encoding)
    return pad_file, plan(pad_file.pad, args.budget, args.policy, counter)


def _plan_json(path: str, plan: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"path": path, **plan.as_json()}
    if out["way_out"]:
        out["way_out"] = out["way_out"].replace("PATH", shlex.quote(path))
    return out


def cmd_check(args: argparse.Namespace) -> int:
    from padtui.report import plan_report

    _pad_file, plan = _plan(args)
    if args.json:
        _print_json(_plan_json(args.path, plan))
    else:
        print(plan_report(args.path, plan))
    return FOUND if plan.refused else OK


def cmd_compact(args: argparse.Namespace) -> int:
    from padtui.report import plan_report

    _pad_file, plan = _plan(args)
    if args.write:
        raise UsageError(
            "compact --write is not available in this version; run without --write to see the plan"
        )
    if args.json:
        _print_json({**_plan_json(args.path, plan), "written": False})
    else:
        print(plan_report(args.path, plan))
        if not plan.refused and plan.dropped:
            print("dry run: nothing written")
    return FOUND if plan.refused else OK


def cmd_audit(args: argparse.Namespace) -> int:
    from padtui.core.audit import audit
    from padtui.core.formats import load
    from padtui.core.tokens import counter_for
    from padtui.report import audit_report

    old = load(args.old)
    new = load(args.new)
    counter = counter_for(args.encoding or new.pad.encoding or old.pad.encoding)
    result = audit(old.pad, new.pad, counter)
    if args.json:
        _print_json({"old": args.old, "new": args.new, **result.as_json()})
    else:
        print(audit_report(args.old, args.new, result))
    return FOUND if result.verdict == "corruption" else OK


def cmd_default(args: argparse.Namespace) -> int:
    """``padtui`` alone: a trial compaction of the embedded sample pad."""
    from padtui.samples import default_pad

    path = str(default_pad())
    args = build_parser().parse_args(["check", path])
    code = cmd_check(args)
    print(
        "\n(padtui with no arguments checks an embedded sample pad; "
        "see `padtui --help` for the commands)"
    )
    return code if code != FOUND else OK


# --- running -------------------------------------------------------------------------------


def _print_json(obj: dict[str, Any]) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=2))


def _wants_json(argv: Sequence[str]) -> bool:
    return "--json" in argv


def _fail(message: str, argv: Sequence[str]) -> int:
    if _wants_json(argv):
        _print_json({"error": message})
    print(f"padtui: error: {message}", file=sys.stderr)
    return BAD


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        if not argv:
            return cmd_default(argparse.Namespace())
        if not argv[0].startswith("-") and argv[0] not in COMMANDS:
            raise UsageError(
                f"{argv[0]}: the live inspector is not in this version yet; "
                f"try `padtui check {argv[0]}`"
            )
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version, or a usage error already printed
            return exc.code if isinstance(exc.code, int) else BAD
        run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
        if run is None:
            parser.print_usage(sys.stderr)
            return BAD
        return run(args)
    except PadError as exc:
        return _fail(exc.line(), argv)
    except (EncodingUnavailable, UsageError) as exc:
        return _fail(str(exc), argv)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return OK
    except KeyboardInterrupt:
        return 130
