"""``padtui audit --git [REV_RANGE] PATH...``: a gate on memory files kept in git.

With a REV_RANGE (anything with ``..`` in it: ``origin/main..HEAD``), each commit in the range
that changed a PATH is audited against its first parent's version of it (the first one
against the version at the range's base). Without one, what is staged for each PATH is
audited against HEAD: what a pre-commit hook needs. Exit 1 when any change corrupts the pad
or leaves it unreadable, else 0; bad input (not a repository, a revision that does not
exist, a path git does not track) is one line, exit 2.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from padtui import telemetry
from padtui.cli.outcome import FOUND, OK, UsageError
from padtui.cli.parser import rule_map
from padtui.cli.render import print_json, print_lines
from padtui.core.audit.rewrite import Audit, audit
from padtui.core.counting.tokens import counter_for
from padtui.core.errors import EncodingUnavailable, PadError
from padtui.core.formats import MAX_PAD_BYTES, format_of, parse
from padtui.core.history import git
from padtui.core.model import Pad
from padtui.core.text import one_line
from padtui.report import audit_lines

FAILING = ("corruption", "unreadable")


# what a change says of itself in --json (its blob ids are left out)
_CHANGE_KEYS = ("path", "name", "old_name", "commit", "parent", "subject", "change")


@dataclass
class Result:
    change: git.Change
    verdict: str
    audit: Audit | None = None
    problem: str | None = None
    note: str | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {key: getattr(self.change, key) for key in _CHANGE_KEYS}
        if self.audit is not None:
            out.update(self.audit.as_json())
        else:
            out.update(verdict=self.verdict, findings=[], tokens=None, claims=None)
        out.update(problem=self.problem, note=self.note)
        return out


def split_range(files: list[str]) -> tuple[str | None, list[str]]:
    if files and git.is_range(files[0]):
        rev_range, paths = files[0], files[1:]
    else:
        rev_range, paths = None, files
    if not paths:
        raise UsageError(
            "audit --git needs a PATH: padtui audit --git [REV_RANGE] PATH... "
            "(see `padtui audit --help`)"
        )
    return rev_range, paths


class _Versions:
    """The pads of one path's versions, each parsed once (a version is the after of one
    change and the before of the next)."""

    def __init__(self, path: str, fmt: str, data: dict[str, bytes | str]) -> None:
        self.path, self.fmt, self.data = path, fmt, data
        self.pads: dict[str, Pad | str] = {}

    def pad(self, oid: str, label: str) -> Pad | str:
        got = self.pads.get(oid)
        if got is None:
            data = self.data[oid]
            try:
                got = data if isinstance(data, str) else parse(label, data, self.fmt).pad
            except PadError as exc:
                got = f"{exc.where}: {exc.problem}" if exc.where else exc.problem
            self.pads[oid] = got
        return got


def _label(c: git.Change) -> str:
    return f"{c.name}@{c.commit[:7]}" if c.commit else f"{c.name} (staged)"


def _audit_path(
    args: argparse.Namespace, path: str, fmt: str, found: list[git.Change], versions: _Versions
) -> list[Result]:
    results = []
    headings = rule_map(args)
    last_good: Pad | None = None  # the latest readable version, to audit past an unreadable one
    for c in found:
        if c.not_a_file is not None:
            results.append(Result(c, "skipped", note=c.not_a_file))
            continue
        if c.shallow:
            results.append(Result(c, "skipped", note=git.SHALLOW))
            continue
        if c.change == "unchanged":
            results.append(Result(c, "unchanged", note="nothing staged: the index holds HEAD's"))
            continue
        note = None
        old: Pad | str = Pad.of([]) if c.before is None else versions.pad(c.before, _label(c))
        if isinstance(old, str):
            note = f"the version before is unreadable ({old}); audited against " + (
                "the last readable one" if last_good is not None else "nothing"
            )
            old = last_good if last_good is not None else Pad.of([])
        elif c.before is not None:
            last_good = old
        new: Pad | str = Pad.of([]) if c.after is None else versions.pad(c.after, _label(c))
        if isinstance(new, str):
            results.append(Result(c, "unreadable", problem=new, note=note))
            continue
        try:
            counter = counter_for(args.encoding or new.encoding or old.encoding)
        except EncodingUnavailable as exc:
            if args.encoding:
                raise
            results.append(Result(c, "unreadable", problem=str(exc), note=note))
            continue
        result = audit(old, new, counter, headings)
        about: dict[str, Any] = {"old": old, "rule_map": headings, "commit": c.commit or "staged"}
        telemetry.audited(path, result, source="audit.git", **about)
        results.append(Result(c, result.verdict, result, note=note))
        last_good = new
    return results


def _text(rev_range: str | None, path: str, results: list[Result]) -> list[str]:
    commits = [r for r in results if r.change.commit is not None]
    if rev_range is not None:
        n = len(commits)
        head = f"{path}: {n} commit{'' if n == 1 else 's'} in {one_line(rev_range, 60)} changed it"
        lines = [head if n else f"{path}: no commit in {one_line(rev_range, 60)} changed it"]
    else:
        lines = []
    for r in results:
        c = r.change
        if c.commit is None:
            what = f"{path} (staged, against HEAD)"
        else:
            what = f"{c.commit[:7]} {one_line(c.subject or '', 60)!r}"
        if c.change == "renamed" and c.old_name is not None:
            what += f" (renamed from {one_line(c.old_name, 60)})"
        elif c.change in ("added", "deleted"):
            what += f" ({c.change})"
        lines.append(f"{what}: {r.verdict}")
        if r.problem is not None:
            lines.append(f"  {one_line(r.problem, 120)}")
        if r.note is not None:
            lines.append(f"  note: {one_line(r.note, 120)}")
        if r.audit is not None and r.verdict != "unchanged":
            *findings, totals = audit_lines(r.audit)
            lines += [*findings, f"  {totals}"]
    return lines


def audit_git(args: argparse.Namespace) -> int:
    rev_range, paths = split_range(args.files)
    plans = []
    for path in paths:
        fmt = format_of(path, args.format)  # a name that says no format: exit 2 before git runs
        shallow = None
        if rev_range is None:
            found = [git.staged(path)]
        else:
            found, shallow = git.changes(path, rev_range)
            if not found and not git.tracked(path):
                raise PadError(path, f"not tracked by git, and no commit in {rev_range} changed it")
        ids = [oid for c in found for oid in (c.before, c.after) if oid and not c.not_a_file]
        plans.append((path, fmt, found, git.blobs(path, ids, MAX_PAD_BYTES), shallow))
    results: list[Result] = []
    lines: list[str] = []
    notes: list[str] = []
    for path, fmt, found, data, shallow in plans:
        got = _audit_path(args, path, fmt, found, _Versions(path, fmt, data))
        results += got
        text = _text(rev_range, path, got)
        if shallow is not None:
            notes.append(shallow)
            text[1:1] = [f"  note: {one_line(shallow, 160)}"]
        lines += text
    failing = [r for r in results if r.verdict in FAILING]
    if args.json:
        print_json(
            {
                "range": rev_range,
                "staged": rev_range is None,
                "results": [r.as_json() for r in results],
                "failed": bool(failing),
                "notes": list(dict.fromkeys(notes)),
            }
        )
        return FOUND if failing else OK
    audited = [r for r in results if r.audit is not None or r.verdict == "unreadable"]
    changes = f"{len(audited)} change{'' if len(audited) == 1 else 's'}"
    if failing:
        lines.append(
            f"gate: failed: corruption or an unreadable pad in {len(failing)} of {changes}"
        )
    elif audited:
        lines.append(f"gate: passed: {changes}, none corrupt")
    else:
        lines.append("gate: passed: no change to audit")
    print_lines(*lines)
    return FOUND if failing else OK
