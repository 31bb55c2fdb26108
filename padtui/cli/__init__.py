"""Command line: parse (``parser``), run a command to its outcome (``commands``, ``history``,
``screens``), print it (``render``), exit.

Exit codes everywhere: 0 fine, 1 refused or corruption found, 2 bad input or usage.
The headless commands never import Textual; the inspector is imported only when it runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from padtui import telemetry
from padtui.cli import commands
from padtui.cli.outcome import BAD, FOUND, OK, Outcome, UsageError
from padtui.cli.parser import COMMANDS, build_parser, is_path, unknown_command
from padtui.cli.render import fail, show
from padtui.core.errors import EncodingUnavailable, PadError

__all__ = [
    "BAD",
    "COMMANDS",
    "FOUND",
    "OK",
    "UsageError",
    "build_parser",
    "entry",
    "main",
]

Command = Callable[[argparse.Namespace], "Outcome | int"]
_SHORT_LIVED = (commands.check, commands.compact, commands.audit)  # headless, exit at once


def _without_cyclic_gc(run: Command, args: argparse.Namespace) -> int:
    """Run a headless command and print its outcome with the cyclic garbage collector
    paused: a command that reads a large pad makes a hundred thousand objects and keeps them
    to the end, and the collector's passes over them are pure loss in a process that exits
    right after."""
    import gc

    paused = gc.isenabled()
    gc.disable()
    try:
        return _shown(run(args))
    finally:
        if paused:
            gc.enable()


def _shown(result: Outcome | int) -> int:
    """The exit code, once the outcome is printed (a command that returns a bare code, like
    ``audit --git`` and ``claude``, has printed as it went)."""
    return show(result) if isinstance(result, Outcome) else result


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code."""
    return _main(argv)[0]


def entry() -> NoReturn:
    """The console script (and ``python -m padtui``): ``main``, and after a headless
    command an exit without the interpreter's teardown, once its output is flushed (its
    files are closed by then): freeing a large pad's objects one by one took ~25 ms."""
    code, headless = _main(None)
    telemetry.finish()  # (before the interpreter ends, when the SDK can still start a thread)
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
    from padtui.cli.screens import sample

    argv = list(sys.argv[1:] if argv is None else argv)
    headless = False
    try:
        if not argv:
            if sys.stdin.isatty() and sys.stdout.isatty():
                argv = ["demo"]
            else:
                return show(sample()), False
        if not argv[0].startswith("-") and argv[0] not in COMMANDS:
            if not is_path(argv[0]):
                raise UsageError(unknown_command(argv[0]))
            argv = ["watch", *argv]
        parser = build_parser(argv[0] if argv[0] in COMMANDS else None)
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version, or a usage error already printed
            return (exc.code if isinstance(exc.code, int) else BAD), False
        run: Command | None = getattr(args, "run", None)
        if run is None:
            raise UsageError("no command given (see `padtui --help`)")
        if run in (commands.check, commands.audit):
            telemetry.prepare()  # (with an endpoint set: verdicts left to a sender at exit)
        if run in _SHORT_LIVED:
            headless = True
            return _without_cyclic_gc(run, args), headless
        return _shown(run(args)), headless
    except PadError as exc:
        return fail(exc.line(), argv), headless
    except (EncodingUnavailable, UsageError) as exc:
        return fail(str(exc), argv), headless
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return OK, headless
    except KeyboardInterrupt:
        return 130, headless
