"""``padtui history``: the journaled versions of a pad with the verdict of each rewrite;
``--restore N`` writes one back, ``--ack N`` acknowledges an alarm, ``--open`` travels
through them in the inspector."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from padtui.cli.commands import journal_arg, missed
from padtui.cli.outcome import FOUND, OK, Outcome, UsageError
from padtui.cli.parser import rule_map
from padtui.cli.render import history_text, outstanding_text
from padtui.core.errors import PadError
from padtui.progress import Progress

if TYPE_CHECKING:
    from padtui.core.history.versions import HistoryRow
    from padtui.core.storage.journal import Journal


def history(args: argparse.Namespace) -> Outcome:
    from padtui.cli.screens import travel
    from padtui.core.history.versions import history as verdicts
    from padtui.core.history.versions import outstanding
    from padtui.core.storage import store

    if args.no_journal:
        raise UsageError("history reads the journal; --no-journal makes no sense here")
    if args.ack and (args.restore is not None or args.open):
        raise UsageError("--ack goes alone: not with --restore or --open")
    journal = store.journal_of(args.path, journal_arg(args))
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
        return travel(journal)
    with Progress(f"reading the history of {args.path}", len(journal.versions())) as progress:
        rows = verdicts(journal, args.encoding, progress.advance, rule_map(args))
    for n in args.ack or ():
        _acknowledge(journal, rows, n)
    acks = journal.acknowledged()
    waiting = outstanding(rows, acks)
    code = FOUND if waiting else OK
    if args.json:
        return Outcome(
            code,
            json={
                "path": args.path,
                "journal": journal.path,
                "on_disk": on_disk,
                "current_error": current,
                "versions": [r.as_json() for r in rows],
                "damaged_lines": [{"line": n, "problem": p} for n, p in journal.damage()],
                "lost_versions": sorted(journal.lost()),
                "acknowledged": sorted(acks),
                "outstanding": [r.version.n for r in waiting],
            },
        )
    text = history_text(
        args.path, journal.path, rows, on_disk, current, journal.damage(), journal.lost()
    )
    numbers = [r.version.n for r in waiting]
    return Outcome(code, text=text + outstanding_text(rows, acks, numbers, _command(args)))


def _command(args: argparse.Namespace) -> str:
    """``padtui history`` on this pad as it was asked for (its path, and the options that
    find the same pad and journal), shell-quoted: the start of the commands suggested."""
    import shlex

    words = ["padtui", "history", args.path]
    if args.format is not None:
        words += ["--format", args.format]
    if args.journal is not None:
        words += ["--journal", args.journal]
    return shlex.join(words)


def _acknowledge(journal: Journal, rows: Sequence[HistoryRow], n: int) -> None:
    """Record that the user has seen the alarm of version ``n`` (PadError: exit 2, for a
    version that raised none)."""
    row = next((r for r in rows if r.version.n == n), None)
    if row is None or row.verdict not in ("corruption", "undeclared_loss"):
        what = "is not in the journal" if row is None else f"raised no alarm ({row.verdict})"
        raise PadError(journal.path, f"version {n} {what}: nothing to acknowledge")
    journal.acknowledge(n)


def _restore(args: argparse.Namespace, journal: Journal) -> Outcome:
    from padtui.core.formats import check_writable, read_bytes
    from padtui.core.storage import store

    check_writable(args.path, args.format)  # a Letta .af file: exit 2

    wanted = journal.data(args.restore)  # PadError for a version that is not there
    try:  # (read_bytes: a FIFO in the pad's place is refused, not waited on)
        same = read_bytes(args.path) == wanted
    except PadError:
        same = False
    try:
        after = store.restore(args.path, args.restore, journal=journal, fmt=args.format)
    except store.CommitError as exc:
        return missed(exc, args, {"path": args.path, "restored": None, "written": False})
    report = {
        "path": args.path,
        "restored": args.restore,
        "written": not same or after.created,
        "created": after.created,
        "journal": {"path": journal.path, "version": after.version},
    }
    if args.json:
        return Outcome(OK, json=report)
    if after.created:
        text = (
            f"{args.path}: it did not exist; written anew as version {args.restore}; "
            f"journal: version {after.version} in {journal.path}"
        )
    elif same:
        text = f"{args.path}: version {args.restore} is what is on disk; nothing written"
    else:
        text = (
            f"{args.path}: restored version {args.restore}; the version it replaced is "
            f"journaled; journal: version {after.version} in {journal.path}"
        )
    return Outcome(OK, text=text)
