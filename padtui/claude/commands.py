"""``padtui claude ...``: the hooks, install/uninstall, and the audit of a transcript."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from padtui.claude.hooks import Event, Said
    from padtui.cli.options import Parser

    SubParsers = argparse._SubParsersAction[Parser]

HOOK_HELP = "run by Claude Code as a hook: reads the hook's JSON on standard input"


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("claude", help="guard Claude Code's compactions (hooks, install, audit)")
    group = p.add_subparsers(dest="claude_command", metavar="ACTION")
    for name, run, what in (
        ("install", cmd_install, "write padtui's hooks into Claude Code's settings"),
        ("uninstall", cmd_uninstall, "remove padtui's hooks from Claude Code's settings"),
    ):
        q = group.add_parser(name, help=what)
        where = q.add_mutually_exclusive_group()
        where.add_argument(
            "--project",
            metavar="DIR",
            help="the project's .claude/settings.json (default: the current folder's)",
        )
        where.add_argument("--user", action="store_true", help="the user's ~/.claude/settings.json")
        where.add_argument(
            "--local",
            nargs="?",
            const=".",
            metavar="DIR",
            help="the project's .claude/settings.local.json, this machine's alone (not "
            "committed): the hooks name this interpreter by its path (default: the current "
            "folder's project)",
        )
        q.add_argument("--dry-run", action="store_true", help="print the change; write nothing")
        if name == "install":
            q.add_argument(
                "--no-block",
                action="store_true",
                help="never hold back a manual /compact (by default it is held back once, with "
                "a ready /compact instruction that keeps the rules)",
            )
        q.set_defaults(run=run)
    q = group.add_parser("pre-compact", help=f"PreCompact hook ({HOOK_HELP})")
    q.add_argument("--no-block", action="store_true", help="never hold back a manual /compact")
    q.set_defaults(run=cmd_pre_compact)
    q = group.add_parser("post-compact", help=f"PostCompact hook ({HOOK_HELP})")
    q.set_defaults(run=cmd_post_compact)
    q = group.add_parser("session-start", help=f"SessionStart hook ({HOOK_HELP})")
    q.set_defaults(run=cmd_session_start)
    q = group.add_parser(
        "audit",
        help="judge every compaction in a transcript (exit 1 if one lost a rule)",
    )
    q.add_argument("transcript", metavar="TRANSCRIPT", help="a Claude Code session file (.jsonl)")
    q.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    q.set_defaults(run=cmd_audit)
    q = group.add_parser(
        "watch",
        help="the compactions of a project's newest session in the inspector, followed live",
    )
    q.add_argument(
        "dir",
        metavar="DIR",
        nargs="?",
        default=".",
        help="the project (default: this folder), or a session's transcript (.jsonl)",
    )
    q.add_argument(
        "--transcripts",
        metavar="FOLDER",
        help="the folder of the project's transcripts (default: Claude Code's own, "
        "~/.claude/projects/<the project's path, each character but a letter or digit made ->, "
        "under $CLAUDE_CONFIG_DIR when that is set)",
    )
    q.add_argument(
        "--session", metavar="ID", help="this session (its id, or the start of it), not the newest"
    )
    q.set_defaults(run=cmd_watch)
    p.set_defaults(run=_no_action)


def _no_action(args: argparse.Namespace) -> int:
    from padtui.cli import UsageError

    raise UsageError("padtui claude needs an action (see `padtui claude --help`)")


# --- the hooks: never break the session ------------------------------------------------------


def _hook(name: str, body: Callable[[Event], Said], only: str | None = None) -> int:
    """Run a hook body on the event read from standard input. Any failure is one line on
    standard error and exit 0: a guard that breaks the session it guards is worse than none.
    ``only``: the event's ``source`` the hook acts on (else it returns before loading the
    audit: SessionStart runs at every start of a session)."""
    from padtui.cli.render import print_lines
    from padtui.core.text import one_line

    def note(text: str) -> None:
        print(f"padtui claude {name}: {one_line(text)}", file=sys.stderr)  # noqa: T201

    try:
        data = sys.stdin.buffer.read()
        if only is not None and _source(data) not in (only, None):
            return 0
        from padtui.claude.hooks import read_event

        said = body(read_event(data))
    except Exception as exc:
        note(str(exc) or type(exc).__name__)
        return 0
    for text in said.notes:
        note(text)
    if said.out:
        print_lines(said.out)
    return 0


def _source(data: bytes) -> str | None:
    """The event's ``source``, or None when the input is not what it should be (left to the
    hook to report)."""
    import json

    try:
        obj = json.loads(data)
    except ValueError:
        return None
    source = obj.get("source") if isinstance(obj, dict) else None
    return source if isinstance(source, str) else None


def cmd_pre_compact(args: argparse.Namespace) -> int:
    from padtui.claude.hooks import pre_compact

    return _hook("pre-compact", lambda e: pre_compact(e, block=not args.no_block))


def cmd_post_compact(args: argparse.Namespace) -> int:
    from padtui.claude.hooks import post_compact

    return _hook("post-compact", post_compact)


def cmd_session_start(args: argparse.Namespace) -> int:
    from padtui.claude.hooks import session_start

    return _hook("session-start", session_start, only="compact")


# --- install ----------------------------------------------------------------------------------


def _settings(args: argparse.Namespace, installing: bool) -> int:
    from padtui.claude import settings
    from padtui.cli.render import print_lines

    local = args.local is not None
    path = settings.settings_path(args.local if local else args.project, args.user, local)
    if installing:
        # the project's settings.json is shared (teams commit it): a command that works on
        # every machine; the others are this machine's own
        shared = not (local or args.user)
        change = settings.plan_install(path, block=not args.no_block, portable=shared)
    else:
        change = settings.plan_uninstall(path)
    if args.dry_run:
        print_lines(change.diff() or f"{path}: no change")
        return 0
    if not change.changed:
        print_lines(
            f"{path}: " + ("padtui's hooks are already there" if installing else "no padtui hooks")
        )
        return 0
    settings.apply(change, installing)
    if installing:
        print_lines(f"{path}: padtui's PreCompact, PostCompact and SessionStart hooks added")
        if shared and not _padtui_on_path():
            print_lines(
                "note: padtui is not on PATH here; the hooks then run `python3 -m padtui`, "
                "which needs padtui in that python3 (or: padtui claude install --local)"
            )
    else:
        print_lines(f"{path}: padtui's hooks removed")
    return 0


def _padtui_on_path() -> bool:
    import shutil

    return shutil.which("padtui") is not None


def cmd_install(args: argparse.Namespace) -> int:
    return _settings(args, True)


def cmd_uninstall(args: argparse.Namespace) -> int:
    return _settings(args, False)


# --- after the fact -------------------------------------------------------------------------


def cmd_audit(args: argparse.Namespace) -> int:
    from padtui.claude.hooks import audit_transcript
    from padtui.cli.render import print_json, print_lines
    from padtui.core.errors import PadError

    try:
        found = audit_transcript(args.transcript)
    except OSError as exc:
        raise PadError(args.transcript, str(exc)) from None
    lost = any(c.get("verdict") == "corruption" for c in found)
    if args.json:
        print_json({"transcript": args.transcript, "compactions": found})
        return 1 if lost else 0
    if not found:
        print_lines(f"{args.transcript}: no compaction in this transcript")
        return 0
    lines: list[str] = []
    for c in found:
        trigger = c.get("trigger") or "trigger unknown"
        head = f"compaction {c['compaction']} (line {c['line']}, {trigger}): {c['verdict']}"
        if "rules" in c:
            head += f", {c['rules']} rule(s) of the user"
        lines.append(head)
        for r in c.get("dropped", []):
            lines.append(f"  dropped  {r['text']}  ({r['source']})")
        for r in c.get("weakened", []):
            lines.append(f"  weakened {r['text']}  ({r['source']})")
            lines.append(f"        -> {' '.join(r['after'].split())}")
    print_lines(*lines)
    return 1 if lost else 0


def cmd_watch(args: argparse.Namespace) -> int:
    """Bad input is reported before the screen is taken over."""
    import os

    from padtui.claude import projects
    from padtui.cli.screens import need_terminal, shell_path
    from padtui.core.errors import PadError

    wanted = args.session
    if args.transcripts is not None:
        folder = args.transcripts
    elif os.path.isfile(args.dir) and args.dir.endswith(".jsonl"):  # a session named outright
        folder = os.path.dirname(args.dir) or "."
        wanted = wanted or os.path.basename(args.dir)[: -len(".jsonl")]
    elif os.path.exists(args.dir) and not os.path.isdir(args.dir):
        raise PadError(args.dir, "not a folder: name a project's folder, or a session's .jsonl")
    elif not os.path.isdir(args.dir):
        raise PadError(args.dir, "no such folder")
    else:
        folder = projects.transcripts_folder(args.dir)
    found = projects.sessions(folder)
    session = projects.choose(found, wanted, folder)
    need_terminal(
        f"{session.path}: the watch",
        f"run `padtui claude audit {shell_path(session.path)}` for its compactions",
    )
    from padtui.tui.claude_watch import ClaudeWatchApp

    app = ClaudeWatchApp(folder, session, len(found))
    app.run()
    return app.return_code or 0
