"""The commands that take over the terminal (``watch``, the fleet, ``demo``, ``replay``) or
play a scripted agent (``simulate``), and ``padtui`` alone. Bad input is reported before a
screen is taken over; outside a terminal they exit 2 at once, naming what to run instead."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from padtui.cli.outcome import FOUND, OK, Outcome, UsageError
from padtui.cli.parser import rule_map
from padtui.cli.render import print_lines
from padtui.core.errors import PadError

if TYPE_CHECKING:
    from padtui.core.storage.journal import Journal


def _terminal() -> bool:
    """Are standard input and output a terminal? The screens need both."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def need_terminal(what: str, instead: str) -> None:
    """Outside a terminal a screen would draw into a pipe and wait for keys that never
    come: exit 2 at once, naming what to run instead."""
    if not _terminal():
        raise UsageError(f"{what} needs a terminal (standard input and output); {instead}")


def shell_path(path: str) -> str:
    from padtui.core.text import shell_word

    return shell_word("./" + path if path.startswith("-") else path)


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """What the inspector and the fleet are both opened with."""
    return {
        "budget": args.budget,
        "policy": args.policy,
        "encoding": args.encoding,
        "use_journal": not args.no_journal,
        "rule_map": rule_map(args),
        "count_cache": not args.no_cache,
    }


def watch(args: argparse.Namespace) -> Outcome:
    """The live inspector."""
    from padtui.core.counting.tokens import counter_for
    from padtui.core.formats import format_of, read_bytes

    if os.path.isdir(args.path):
        return _fleet(args)
    format_of(args.path, args.format)
    read_bytes(args.path)  # a missing or unreadable file: exit 2 now, not inside the app
    need_terminal(
        f"{args.path}: the inspector", f"run `padtui check {shell_path(args.path)}` for a report"
    )
    if args.encoding is not None:  # an unavailable encoding too (the default one is bundled,
        counter_for(args.encoding)  # and a warm count cache may not need it loaded at all)
    from padtui.tui.app import make_app

    app = make_app(args.path, journal=args.journal, fmt=args.format, **_settings(args))
    app.run()
    return Outcome(app.return_code or OK)


def store(args: argparse.Namespace) -> Outcome:
    """``padtui store DIR``: the inspector on a memory store (``--demo``: on a temporary one
    that a scripted consolidation pass rewrites)."""
    import tempfile

    from padtui.cli.stores import patterns_of
    from padtui.core.memory.discovery import folder_store

    extra, replace_own = patterns_of(args)
    if args.demo == (args.dir is not None):
        raise UsageError("padtui store takes DIR, or --demo (not both)")
    if args.demo and not args.interval > 0:
        raise UsageError(f"--interval must be a positive number of seconds, got {args.interval}")
    root = args.dir
    if args.demo:
        from padtui import store_demo

        root = tempfile.mkdtemp(prefix="padtui-store-demo-")
        store_demo.make_store(root)
    folder_store(root, extra, replace_own)  # a missing folder or a bad config: exit 2 now
    need_terminal(f"{root}: the store inspector", f"run `padtui memory {shell_path(root)}`")
    from padtui.tui.store import StoreApp

    app = StoreApp(
        root,
        extra=extra,
        replace_own=replace_own,
        use_journal=not args.no_journal and not args.demo,
        demo=args.interval if args.demo else None,
    )
    app.run()
    return Outcome(app.return_code or OK)


def _fleet(args: argparse.Namespace) -> Outcome:
    """``padtui DIR``: the fleet view of every pad in the folder."""
    from padtui.core.counting.tokens import counter_for

    if args.journal:
        raise UsageError(
            f"{args.path}: --journal names one journal, and each pad of a folder keeps its own"
        )
    if args.format:
        raise UsageError(
            f"{args.path}: --format names one pad's format; the pads of a folder are read "
            "by their names"
        )
    first = _first_pad(args.path)
    need_terminal(
        f"{args.path}: the fleet view",
        f"run `padtui check {shell_path(os.path.join(args.path, first))}` for a report on a pad"
        if first is not None
        else "it holds no pad padtui reads",
    )
    if args.encoding is not None:  # an unavailable encoding: exit 2 now, not inside the app
        counter_for(args.encoding)
    from padtui.tui.fleet import FleetApp

    app = FleetApp(args.path, **_settings(args))
    app.run()
    return Outcome(app.return_code or OK)


def _first_pad(folder: str) -> str | None:
    """The first pad of the folder by name (not hidden: agents' temporary saves), if any."""
    from padtui.core.formats import format_for_name

    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    return next(
        (n for n in names if not n.startswith(".") and format_for_name(n) is not None), None
    )


def simulate(args: argparse.Namespace) -> Outcome:
    """Play a scenario against PATH, printing what the agent does at each step as it does it
    (so this one prints as it goes)."""
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
    print_lines(f"{scenario.title}\n{scenario.teaches}\nstarted {args.path}", flush=True)
    while not agent.done:
        time.sleep(args.interval)
        result = agent.step()
        if result is None:
            break
        print_lines(f"step {result.number + 1}/{len(scenario.steps)}: {result.say}", flush=True)
        if result.refusal is not None:
            print_lines(
                f"halt and surface: {result.refusal.code}: {result.refusal.message}", flush=True
            )
            return Outcome(FOUND)
    return Outcome(OK)


def demo(args: argparse.Namespace) -> Outcome:
    """The inspector on a temporary copy of a sample pad, with the scripted agent on it."""
    import shutil
    import tempfile
    from functools import partial

    from padtui.demo_agent import load_scenario, names

    if args.list:
        return Outcome(OK, text="\n".join(f"{n:<22} {load_scenario(n).title}" for n in names()))
    scenario = load_scenario(args.scenario)
    need_terminal(
        "the demo",
        f"run `padtui simulate demo-pad.json --scenario {shell_path(args.scenario)}` to play "
        "its agent into a new file without one, or `padtui` alone for the trial of the sample "
        "pad",
    )
    from padtui.tui.demo import DemoApp, ended_by_signals

    with tempfile.TemporaryDirectory(prefix="padtui-demo-", ignore_cleanup_errors=True) as folder:
        path = os.path.join(folder, "pad.json")
        app = DemoApp(path, scenario, args.interval, journal=os.path.join(folder, "journal.jsonl"))
        with ended_by_signals(app, partial(shutil.rmtree, folder, ignore_errors=True)):
            app.agent.start()
            app.run()
        return Outcome(app.return_code or OK)


def replay(args: argparse.Namespace) -> Outcome:
    """Open the inspector on the versions a journal recorded."""
    from padtui.core.storage.journal import Journal

    if not os.path.isfile(args.journal):
        raise PadError(args.journal, "no such journal file")
    return travel(Journal(args.journal))


def travel(journal: Journal) -> Outcome:
    """Time travel through a journal's versions (``replay``, ``history --open``)."""
    if not journal.versions():
        raise PadError(journal.path, "the journal holds no version")
    owner = journal.owner
    need_terminal(
        f"{journal.path}: time travel",
        f"run `padtui history {shell_path(owner)} --journal {shell_path(journal.path)}` for its "
        "versions"
        if owner is not None
        else "the journal names no pad: `padtui history` on its pad lists them",
    )
    from padtui.tui.replay import ReplayApp

    app = ReplayApp(journal)
    app.run()
    return Outcome(app.return_code or OK)


def sample() -> Outcome:
    """``padtui`` alone outside a terminal: a trial compaction of the embedded sample pad."""
    from padtui.cli.commands import check
    from padtui.cli.parser import build_parser
    from padtui.samples import default_pad

    trial = check(build_parser().parse_args(["check", str(default_pad())]))
    note = (
        "(not a terminal, so this is the trial of the embedded sample pad; in a terminal "
        "padtui alone runs the demo. See `padtui --help` for the commands)"
    )
    return Outcome(trial.code if trial.code != FOUND else OK, text=f"{trial.text}\n\n{note}")
