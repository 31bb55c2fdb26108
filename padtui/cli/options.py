"""The options several commands share, each set a parent parser (the pad's PATH, ``--format``,
a trial's ``--budget``, ``--encoding`` and ``--policy``, ``--json``, the rule headings,
``--no-cache``, the journal), so each is worded once; and the parser class, whose usage
errors are one line."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, NamedTuple, NoReturn

from padtui.cli.numbers import BUDGET
from padtui.cli.outcome import UsageError


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it ($COLUMNS, else the
    terminal of standard output, else 80), without importing ``shutil``: argparse imports
    it for each parser it builds, 2 ms of every run, for help that is seldom shown."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _columns() - 2 if width is None else width  # (as argparse's own)
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line like every other bad input (argparse's own
    prints the usage too), exit 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        # --journal and --no-journal exclude each other: checked here, since a mutually
        # exclusive group taken from a parent parser loses its heading in --help
        known, rest = super().parse_known_args(args, namespace)
        if getattr(known, "journal", None) is not None and getattr(known, "no_journal", False):
            self.error("argument --no-journal: not allowed with argument --journal")
        return known, rest


class Shared(NamedTuple):
    pad: Parser
    format: Parser
    trial: Parser
    json: Parser
    rules: Parser
    cache: Parser
    journal: Parser


def path_help() -> str:
    from padtui.core.formats import names_text

    return f"pad file ({names_text()})"


def shared_options() -> Shared:
    from padtui.core.formats import chosen

    parsers = Shared(*(Parser(add_help=False) for _ in Shared._fields))
    parsers.pad.add_argument("path", metavar="PATH", help=path_help())
    # each set of options under its own heading, after the command's own options in --help
    fmt, trial, json, rules, cache, journal = (
        getattr(parsers, name).add_argument_group(title)
        for name, title in (
            ("format", "the pad's format"),
            ("trial", "the trial"),
            ("json", "output"),
            ("rules", "where rules are"),
            ("cache", "count cache"),
            ("journal", "journal"),
        )
    )
    json.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    fmt.add_argument(
        "--format",
        choices=chosen(),
        metavar="|".join(chosen()),
        help="read the pad as this format, whatever its file name says",
    )
    trial.add_argument(
        "--budget",
        type=BUDGET,
        metavar="N",
        help="token budget (default: the file's budget_tokens, else 4000)",
    )
    trial.add_argument(
        "--encoding", metavar="E", help="tiktoken encoding (default: the file's, else cl100k_base)"
    )
    trial.add_argument(
        "--policy",
        choices=("strict", "seed"),
        default="strict",
        help="strict (default) refuses to drop protected kinds and appends a "
        "loss record; seed is the reference compact()",
    )
    rules.add_argument(
        "--rule-heading",
        action="append",
        default=[],
        metavar="WORD",
        help="a heading or label word that holds rules, added to padtui's (repeatable): "
        "--rule-heading gotchas makes '## Known gotchas' a place of rules",
    )
    rules.add_argument(
        "--only-rule-headings",
        action="store_true",
        help="the --rule-heading words replace padtui's own list instead of adding to it",
    )
    cache.add_argument(
        "--no-cache",
        action="store_true",
        help="count every text afresh, and keep no counts for the next run (by default the "
        "tokens and claims of each text are kept in $XDG_CACHE_HOME/padtui/, else "
        "~/.cache/padtui/; safe to delete)",
    )
    journal.add_argument(
        "--journal",
        metavar="PATH",
        help="the version journal to use (default: one per pad in $XDG_STATE_HOME/padtui/, "
        "else ~/.local/state/padtui/)",
    )
    journal.add_argument(
        "--no-journal", action="store_true", help="keep no journal of the versions replaced"
    )
    return parsers
