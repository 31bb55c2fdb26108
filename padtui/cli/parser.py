"""The command line's grammar: the commands and their options (those several commands share
come from the parent parsers of ``options``; numbers are checked by ``numbers``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from padtui import __version__
from padtui.cli.numbers import BUDGET, SECONDS, VERSION, env_seconds
from padtui.cli.options import Parser, path_help, shared_options
from padtui.cli.outcome import UsageError

if TYPE_CHECKING:
    from padtui.core.rules.finder import RuleMap

COMMANDS = (
    "watch",
    "check",
    "compact",
    "externalize",
    "audit",
    "memory",
    "store",
    "history",
    "replay",
    "simulate",
    "demo",
    "mcp",
    "claude",
)


def is_path(word: str) -> bool:
    """Is the first word of a command line a pad (``padtui PATH``) rather than a command?
    It is when it names something that exists, or reads as a file's name: it holds a path
    separator or a dot (``pad.json``, ``./notes``, ``CLAUDE.md``). A bare word that is
    neither (``chek``, ``frobnicate``) is taken for a mistyped command."""
    import os

    seps = [s for s in (os.sep, os.altsep) if s]
    return "." in word or any(s in word for s in seps) or os.path.lexists(word)


def unknown_command(word: str) -> str:
    """The one line for a first word that is neither a command nor a path: the nearest
    command when one is near (``chek``: check)."""
    import difflib

    near = difflib.get_close_matches(word, COMMANDS, n=1, cutoff=0.6)
    hint = f"did you mean {near[0]}?" if near else f"the commands: {', '.join(COMMANDS)}"
    return f"unknown command {word!r} — {hint} (padtui PATH opens a pad; see `padtui --help`)"


def rule_map(args: argparse.Namespace) -> RuleMap | None:
    """The places of rules ``--rule-heading`` and ``--only-rule-headings`` ask for (None:
    padtui's own)."""
    from padtui.core.rules.finder import RuleMap

    words = [w for w in getattr(args, "rule_heading", []) if w.strip()]
    if getattr(args, "only_rule_headings", False):
        if not words:
            raise UsageError("--only-rule-headings needs at least one --rule-heading WORD")
        return RuleMap.default().extended(words, replace=True)
    return RuleMap.default().extended(words) if words else None


def _pattern_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--pattern",
        action="append",
        default=[],
        metavar="GLOB[=SCOPE]",
        help="also count files matching GLOB (relative to the root; SCOPE: always, paths or "
        "on_demand, default always) as memory; repeatable",
    )
    p.add_argument(
        "--only-patterns",
        action="store_true",
        help="count only the files --pattern names, not padtui's table of agents' files",
    )


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole grammar; or (``only``, one of ``COMMANDS``) the top level with that one
    command alone, which parses its arguments and shows its help and errors as the whole
    does: what a run of that command needs (making every command's parser took a tenth of
    checking a small pad)."""
    from padtui.cli import commands, history, screens, stores

    def want(name: str) -> bool:
        return only is None or only == name

    pad, fmt, trial, json, rules, cache, journal = shared_options()
    parser = Parser(
        prog="padtui",
        description="Watch a self-editing agent's scratchpad; tell a declared compaction "
        "from a corrupting rewrite.",
    )
    parser.add_argument("--version", action="version", version=f"padtui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    if want("watch"):
        p = sub.add_parser(
            "watch",
            parents=[fmt, rules, cache, journal],
            help="the live inspector on a pad file (also: padtui PATH)",
        )
        p.add_argument("path", metavar="PATH", help=f"{path_help()}, or a folder of them")
        p.add_argument("--budget", type=BUDGET, metavar="N", help="token budget")
        p.add_argument("--encoding", metavar="E", help="tiktoken encoding")
        p.add_argument("--policy", choices=("strict", "seed"), default="strict")
        p.set_defaults(run=screens.watch)

    if want("simulate"):
        p = sub.add_parser("simulate", help="a scripted agent rewriting a pad, for demos and tests")
        p.add_argument("path", metavar="PATH", help="the pad the agent writes (.json)")
        p.add_argument("--scenario", required=True, metavar="NAME", help="see padtui demo --list")
        p.add_argument(
            "--interval",
            type=SECONDS,
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
        p.set_defaults(run=screens.simulate)

    if want("demo"):
        p = sub.add_parser(
            "demo", help="the inspector on a temporary pad a scripted agent rewrites"
        )
        p.add_argument("--scenario", default="retry-5xx", metavar="NAME")
        p.add_argument(
            "--interval",
            type=SECONDS,
            metavar="S",
            default=env_seconds("PADTUI_DEMO_INTERVAL", 6.0),
            help="seconds between the agent's steps (default 6, or $PADTUI_DEMO_INTERVAL)",
        )
        p.add_argument("--list", action="store_true", help="list the scenarios and what each shows")
        p.set_defaults(run=screens.demo)

    if want("replay"):
        p = sub.add_parser(
            "replay", help="time travel through a journal's versions in the inspector"
        )
        p.add_argument("journal", metavar="JOURNAL", help="a journal file (see padtui history)")
        p.set_defaults(run=screens.replay)

    plan_parents = [pad, fmt, trial, json, rules, cache]

    if want("check"):
        p = sub.add_parser("check", parents=plan_parents, help="trial compaction report")
        p.set_defaults(run=commands.check)

    if want("compact"):
        p = sub.add_parser(
            "compact",
            parents=[*plan_parents, journal],
            help="the compaction plan (--write commits it)",
        )
        p.set_defaults(run=commands.compact)
        p.add_argument(
            "--write",
            action="store_true",
            help="commit the plan safely (compare-and-swap, journaled; refused plans never are)",
        )

    if want("externalize"):
        p = sub.add_parser(
            "externalize",
            parents=[pad, fmt, json, rules, journal],
            help="seal unsealed constraints / negative facts / loss records and entries "
            "holding a rule, by a safe commit (in a Markdown memory file: where they stand, "
            "with a <!-- sealed --> marker)",
        )
        p.add_argument("ids", metavar="ID", nargs="+", help="entry ids (or #N positions)")
        p.set_defaults(run=commands.externalize)

    if want("audit"):
        p = sub.add_parser(
            "audit",
            parents=[fmt, json, rules, cache],
            help="findings and verdict for one rewrite OLD -> NEW (two files, or two folders "
            "of memory files); --git: each change in git",
            usage="%(prog)s [options] OLD NEW\n"
            "       %(prog)s --git [options] [REV_RANGE] [PATH...]",
        )
        p.add_argument(
            "files",
            nargs="*",
            metavar="FILE",
            help="OLD NEW (files or folders), or with --git: [REV_RANGE] [PATH...]",
        )
        p.add_argument(
            "--git",
            action="store_true",
            help="audit each commit in REV_RANGE (a range has '..': origin/main..HEAD; a "
            "single revision: its whole history) that changed PATH against its first "
            "parent's version; without a range, the staged PATH against HEAD; without a "
            "PATH, the repository's memory store as a whole",
        )
        p.add_argument("--encoding", metavar="E")
        _pattern_options(p)
        p.set_defaults(run=commands.audit)

    if want("memory"):
        p = sub.add_parser(
            "memory",
            parents=[json],
            help="the memory files of an agent found under DIR: when each loads, why it is in",
        )
        p.add_argument("dir", metavar="DIR", help="the folder (a project's root, say)")
        _pattern_options(p)
        p.set_defaults(run=stores.memory)

    if want("store"):
        p = sub.add_parser(
            "store",
            help="the inspector on a memory store of many files: its files, what loads at "
            "start, every change audited as one memory",
        )
        p.add_argument("dir", metavar="DIR", nargs="?", help="the folder (a project's root, say)")
        _pattern_options(p)
        p.add_argument(
            "--no-journal", action="store_true", help="keep no journal of the store's versions"
        )
        p.add_argument(
            "--demo",
            action="store_true",
            help="a temporary auto-memory folder that a scripted consolidation pass rewrites: "
            "a rule moved into the index, then a topic file deleted with its rule",
        )
        p.add_argument(
            "--interval",
            type=float,
            default=4.0,
            metavar="S",
            help="with --demo, seconds between the pass's steps (default 4)",
        )
        p.set_defaults(run=screens.store)

    if want("history"):
        p = sub.add_parser(
            "history",
            parents=[pad, fmt, json, rules, journal],
            help="journaled versions of a pad with the audit verdict of each transition "
            "(exit 1 if a corruption is not yet acknowledged or restored away); --restore N "
            "writes one back; --ack N acknowledges the alarm of version N",
        )
        p.add_argument(
            "--restore",
            type=VERSION,
            metavar="N",
            help="write version N back over the pad (a safe commit; the version replaced is "
            "journaled)",
        )
        p.add_argument(
            "--ack",
            type=VERSION,
            action="append",
            metavar="N",
            help="acknowledge the alarm of version N (recorded in the journal; repeatable): "
            "history then exits 0 unless another corruption is outstanding",
        )
        p.add_argument("--encoding", metavar="E", help="tiktoken encoding for token counts")
        p.add_argument(
            "--open",
            action="store_true",
            help="time travel through the versions in the inspector (read-only)",
        )
        p.set_defaults(run=history.history)

    if want("mcp"):
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
        p.set_defaults(run=commands.mcp)

    if want("claude"):
        from padtui.claude.commands import add_parser as add_claude_parser

        add_claude_parser(sub)
    return parser
