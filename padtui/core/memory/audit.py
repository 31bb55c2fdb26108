"""Two versions of a memory store judged as one memory (SPEC §10).

Every file of each store is read as a Markdown pad and their entries are put into one pad,
each entry naming its file (``CLAUDE.md#3``); the single-pad audit (``core/audit/rewrite.py``) then
matches rules and claims across the whole store, so a rule that went from one file to
another is carried, and a rule in no file of the new store is dropped, with the file it was
in named. On top of it: where each carried rule of a changed file went (``RULE_MOVED``, from
one file to another), and whether it is now loaded less often than before
(``RULE_SCOPE_NARROWED``: from a file loaded at start into one loaded only for some paths or
on demand). The store's verdict is computed from its findings as a pad's is.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from padtui.core.audit.carry import ClaimIndex, find, keeps_name, old_claims
from padtui.core.audit.findings import Finding, FindingCode
from padtui.core.audit.rewrite import Audit, audit
from padtui.core.audit.wording import cut, normalize
from padtui.core.counting.tokens import TokenCounter
from padtui.core.errors import PadError
from padtui.core.formats import markdown
from padtui.core.model import Entry, Pad, make_entry
from padtui.core.rules.finder import RuleMap, entry_rules, may_hold_rules
from padtui.core.text import one_line
from padtui.core.vocabulary import Scope, Severity, Verdict

from .discovery import MemoryFile, Store, wider

_CRITICAL = (FindingCode.CONSTRAINT_DROPPED, FindingCode.CONSTRAINT_WEAKENED)


@dataclass(frozen=True)
class StoreEntry(Entry):
    """An entry of one file of a store: named by its file and its place in it."""

    file: str = ""
    place: int = 0
    scope: Scope = Scope.ALWAYS

    @property
    def label(self) -> str:
        own = self.id if self.id is not None else f"#{self.place}"
        return f"{self.file}{own}" if own.startswith("#") else f"{self.file}:{own}"


@dataclass(frozen=True)
class FileChange:
    """What became of one file of the store: ``added``, ``deleted``, ``modified``,
    ``renamed`` (from ``was``), ``unchanged``; its scope before and after."""

    path: str
    change: str
    was: str | None = None
    before: Scope | None = None
    after: Scope | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "change": self.change,
            "was": self.was,
            "scope": {"before": self.before, "after": self.after},
        }


@dataclass(frozen=True)
class StoreFinding:
    """A finding of the store's audit and the file it is about (for a move, where to)."""

    finding: Finding
    file: str | None
    to: str | None = None
    rules: int = 0  # how many rules a move or a narrowing took

    @property
    def code(self) -> FindingCode:
        return self.finding.code

    @property
    def severity(self) -> Severity:
        return self.finding.severity

    def as_json(self) -> dict[str, Any]:
        return {**self.finding.as_json(), "file": self.file, "to": self.to, "rules": self.rules}


@dataclass(frozen=True)
class StoreAudit:
    """The store's verdict, its findings (each naming its file) and each file's change."""

    verdict: Verdict
    findings: tuple[StoreFinding, ...]
    files: tuple[FileChange, ...]
    audit: Audit
    notes: tuple[str, ...] = ()
    moved: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def codes(self) -> list[FindingCode]:
        return [f.code for f in self.findings]

    def by_file(self) -> dict[str, list[StoreFinding]]:
        out: dict[str, list[StoreFinding]] = {}
        for f in self.findings:
            out.setdefault(f.file or "", []).append(f)
        return out

    def as_json(self) -> dict[str, Any]:
        grouped = self.by_file()
        return {
            "verdict": self.verdict,
            "findings": [f.as_json() for f in self.findings],
            "files": [
                {**c.as_json(), "findings": [f.as_json() for f in grouped.get(c.path, [])]}
                for c in self.files
            ],
            "tokens": {"before": self.audit.tokens_before, "after": self.audit.tokens_after},
            "claims": {"before": self.audit.claims_before, "after": self.audit.claims_after},
            "notes": list(self.notes),
        }


def store_pad(store: Store, notes: list[str] | None = None) -> Pad:
    """The store as one pad: each file's entries, in path order, named by their file (kept
    with the store: a version of a history is audited as the after of one change and the
    before of the next)."""
    hit = store.cache.get("pad")
    if isinstance(hit, tuple):
        pad, said = hit
        assert isinstance(pad, Pad)
        if notes is not None:
            notes += said
        return pad
    mine: list[str] = []
    entries: list[Entry] = []
    for f in store.files:
        got, said = _file_entries(f.path, f.text, f.scope, f.lines)
        entries += got
        mine += said
    pad = Pad.of(entries)
    store.cache["pad"] = (pad, tuple(mine))
    if notes is not None:
        notes += mine
    return pad


def pair_pads(
    old: Store, new: Store, moved_to: Mapping[str, str], notes: list[str] | None = None
) -> tuple[Pad, Pad]:
    """The two stores as pads to audit: first the files the change left as they were (the
    very entries in both, which the audit passes over), then each side's changed files."""
    same = [
        f
        for f in old.files
        if f.path not in moved_to and (n := new.get(f.path)) is not None and n == f
    ]
    kept = {f.path for f in same}
    head: list[StoreEntry] = []
    for f in same:
        head += _at(f.path, f.text, f.scope, f.lines, len(head))
    pads = []
    for store in (old, new):
        entries: list[Entry] = list(head)
        for f in store.files:
            if f.path in kept:
                continue
            # a file the change renamed is named by its new name in the old version too:
            # a rule that points to it is the same rule
            text = _renamed(f.path, f.text, moved_to) if store is old and moved_to else f.text
            got, said = _file_entries(f.path, text, f.scope, f.lines)
            entries += [replace(e, index=len(entries) + k) for k, e in enumerate(got)]
            if notes is not None:
                notes += said
        pads.append(Pad(tuple(entries)))
    return pads[0], pads[1]


def _renamed(path: str, text: str, moved_to: Mapping[str, str]) -> str:
    """``text`` (of the file at ``path``) with each renamed file it names, by its path from
    the root or from the file's own folder, named by its new path."""
    folder = posixpath.dirname(path)
    for was, now in moved_to.items():
        forms = {was: now}
        if folder:
            forms[posixpath.relpath(was, folder)] = posixpath.relpath(now, folder)
        for a, b in forms.items():
            if a in text:
                text = re.sub(
                    rf"(?<![\w/.-]){re.escape(a)}(?![\w/-])", b.replace("\\", r"\\"), text
                )
    return text


@lru_cache(maxsize=1024)
def _at(path: str, text: str, scope: Scope, lines: int | None, at: int) -> tuple[StoreEntry, ...]:
    """A file's entries from position ``at`` of a pad on (the same objects while the file
    and its place are the same)."""
    got, _said = _file_entries(path, text, scope, lines)
    return tuple(e if e.index == at + k else replace(e, index=at + k) for k, e in enumerate(got))


def file_entries(f: MemoryFile, notes: list[str] | None = None) -> list[StoreEntry]:
    """A memory file's entries (the lines past what loads at its scope, on demand)."""
    got, said = _file_entries(f.path, f.text, f.scope, f.lines)
    if notes is not None:
        notes += said
    return list(got)


@lru_cache(maxsize=4096)
def _file_entries(
    path: str, text: str, scope: Scope, lines: int | None
) -> tuple[tuple[StoreEntry, ...], tuple[str, ...]]:
    notes: tuple[str, ...] = ()
    try:
        pad, _layout = markdown.parse(path, text)
        got: Sequence[Entry] = pad.entries
    except PadError as exc:
        notes = (f"{exc.line()}: read as plain paragraphs",)
        got = [make_entry("note", p.strip()) for p in text.split("\n\n") if p.strip()]
    out = []
    pos = line = 0
    for k, e in enumerate(got):
        at_scope = scope
        if lines is not None and e.source:
            at = text.find(e.source, pos)
            if at >= 0:
                line += text.count("\n", pos, at)
                pos = at
            if line >= lines:
                at_scope = Scope.ON_DEMAND
        fields = {n: getattr(e, n) for n in e.__dataclass_fields__}
        out.append(StoreEntry(**fields, file=path, place=k, scope=at_scope))
    return tuple(out), notes


def renames(old: Store, new: Store, known: Mapping[str, str] | None = None) -> dict[str, str]:
    """Files of ``old`` gone from ``new`` under another name: as git says (``known``), else
    a new file with at least half of the old one's lines (git's own rule for a rename)."""
    out: dict[str, str] = {}
    gone = [f for f in old.files if new.get(f.path) is None]
    came = [f for f in new.files if old.get(f.path) is None]
    taken: set[str] = set()
    for f in gone:
        to = (known or {}).get(f.path)
        if to is None:
            to = _likeliest(f, [c for c in came if c.path not in taken])
        if to is not None and new.get(to) is not None:
            out[f.path] = to
            taken.add(to)
    return out


def _likeliest(f: MemoryFile, came: Sequence[MemoryFile]) -> str | None:
    mine = _lines(f.text)
    best, score = None, 0.5
    for c in came:
        theirs = _lines(c.text)
        if not mine or not theirs:
            continue
        share = len(mine & theirs) / max(len(mine), len(theirs))
        if share >= score:
            best, score = c.path, share
    return best


def _lines(text: str) -> frozenset[str]:
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def audit_stores(
    old: Store,
    new: Store,
    counter: TokenCounter | None = None,
    rule_map: RuleMap | None = None,
    renamed: Mapping[str, str] | None = None,
) -> StoreAudit:
    """Findings and verdict of the store's change from ``old`` to ``new``."""
    notes: list[str] = [*old.notes, *new.notes]
    moved_to = renames(old, new, renamed)
    old_pad, new_pad = pair_pads(old, new, moved_to, notes)
    base = audit(old_pad, new_pad, counter, rule_map)
    changes = _changes(old, new, moved_to)
    gone = {c.path for c in changes if c.change == "deleted"}
    found: list[StoreFinding] = []
    for f in base.findings:
        found.append(_placed(f, old_pad, new_pad, gone))
    lost = {label for f in base.findings if f.code in _CRITICAL for label in f.entries}
    moves = _moves(old, new, old_pad, new_pad, moved_to, lost, rule_map or RuleMap.default())
    found += moves
    findings = tuple(f.finding for f in found)
    verdict = base.verdict
    if verdict == Verdict.UNCHANGED and any(c.change != "unchanged" for c in changes):
        verdict = Verdict.GROWTH if not findings else verdict  # (a file renamed, the rest same)
    if any(f.severity == Severity.CRITICAL for f in findings):
        verdict = Verdict.CORRUPTION
    return StoreAudit(
        verdict=verdict,
        findings=tuple(found),
        files=changes,
        audit=base,
        notes=tuple(dict.fromkeys(notes)),
        moved=sum(m.rules for m in moves if m.to is not None),
    )


def _changes(old: Store, new: Store, moved_to: Mapping[str, str]) -> tuple[FileChange, ...]:
    out = []
    into = set(moved_to.values())
    for f in old.files:
        n = new.get(f.path)
        if n is None and f.path in moved_to:
            continue  # (reported under its new name)
        if n is None:
            out.append(FileChange(f.path, "deleted", before=f.scope))
        else:
            change = "unchanged" if n.text == f.text else "modified"
            out.append(FileChange(f.path, change, before=f.scope, after=n.scope))
    for was, path in moved_to.items():
        o, n = old.get(was), new.get(path)
        if o is not None and n is not None:
            out.append(FileChange(path, "renamed", was, o.scope, n.scope))
    for n in new.files:
        if old.get(n.path) is None and n.path not in into:
            out.append(FileChange(n.path, "added", after=n.scope))
    return tuple(sorted(out, key=lambda c: c.path))


def _file_of(label: str, pad: Pad) -> str | None:
    for e in pad.entries:
        if isinstance(e, StoreEntry) and e.label == label:
            return e.file
    return None


def _placed(f: Finding, old: Pad, new: Pad, gone: set[str]) -> StoreFinding:
    """A finding of the whole store's audit, with the file it is about (and, when that file
    was deleted, a message that says so)."""
    if not f.entries:
        return StoreFinding(f, None)
    file = _file_of(f.entries[0], old) or _file_of(f.entries[0], new)
    if file in gone and f.code in (*_CRITICAL, FindingCode.UNDECLARED_LOSS):
        f = replace(f, message=cut(f"{file} was deleted: {f.message}", 200))
    return StoreFinding(f, file)


def _moves(
    old: Store,
    new: Store,
    old_pad: Pad,
    new_pad: Pad,
    moved_to: Mapping[str, str],
    lost: set[str],
    rule_map: RuleMap,
) -> list[StoreFinding]:
    """Where each rule of a changed file that the audit found carried went: into another
    file (``RULE_MOVED``), or anywhere loaded less often (``RULE_SCOPE_NARROWED``)."""
    by_file: dict[str, list[StoreEntry]] = {}
    for e in new_pad.entries:
        assert isinstance(e, StoreEntry)
        by_file.setdefault(e.file, []).append(e)
    indexes: dict[str, ClaimIndex] = {}
    touched: ClaimIndex | None = None
    wholes: list[ClaimIndex] = []
    flat: list[str] = []
    texts: dict[str, set[str]] = {}

    def home_texts(path: str) -> set[str]:
        if path not in texts:
            texts[path] = {e.text for e in by_file.get(path, ())}
        return texts[path]

    def anywhere(name: str) -> bool:  # (as the audit asks: is the name still said anywhere?)
        if not flat:
            flat.append(normalize("\n".join(e.text for e in new_pad.entries)))
        return keeps_name(name, flat[0])

    # (from file, to file, narrowed) -> the rules that went so: one finding for each
    went: dict[tuple[str, str, bool], list[tuple[StoreEntry, StoreEntry, str, str]]] = {}
    seen: set[tuple[str, str, str]] = set()
    for o in old_pad.entries:
        assert isinstance(o, StoreEntry)
        if o.label in lost or not may_hold_rules(o, rule_map):
            continue
        f_old = old.get(o.file)
        home = moved_to.get(o.file, o.file)
        f_new = new.get(home)
        same = f_old is not None and f_new is not None and f_new.text == f_old.text
        if same and f_new is not None and not wider(o.scope, f_new.scope):
            continue  # the same file, as often loaded: nothing went anywhere
        kept = f_new is not None and f_old is not None and not wider(o.scope, f_new.scope)
        if kept and f_old is not None and f_old.lines is None and o.text in home_texts(home):
            continue  # the very entry, still in its file
        rules = entry_rules(o, rule_map)
        if not rules:
            continue
        for c in old_claims(o, rules):
            if not c.rule:
                continue
            carry = None
            if home in by_file:
                if home not in indexes:
                    indexes[home] = ClaimIndex(by_file[home])
                carry = find(c, [indexes[home]], anywhere=anywhere)
            if carry is None or not carry.carried:
                # where it went: the files this change wrote first, then any file
                if touched is None:
                    fresh = [e for e in new_pad.entries if _written(e, old, new, moved_to)]
                    touched = ClaimIndex(fresh)
                carry = find(c, _then_whole(touched, wholes, new_pad), anywhere=anywhere)
            if not carry.carried or carry.found is None:
                continue
            at = new_pad.entries[carry.found.entry]
            assert isinstance(at, StoreEntry)
            narrowed = wider(o.scope, at.scope)
            if at.file == home and not narrowed:
                continue  # kept in its own file (or the file it was renamed to)
            if (c.text, o.file, at.file) in seen:
                continue
            seen.add((c.text, o.file, at.file))
            key = (o.file, at.file, narrowed)
            went.setdefault(key, []).append((o, at, c.text, carry.found.text))
    out: list[StoreFinding] = []
    for (was, now, narrowed), rules_went in went.items():
        code = FindingCode.RULE_SCOPE_NARROWED if narrowed else FindingCode.RULE_MOVED
        o, at = rules_went[0][0], rules_went[0][1]
        labels = tuple(dict.fromkeys(x for r in rules_went for x in (r[0].label, r[1].label)))
        before = "\n".join(dict.fromkeys(r[2] for r in rules_went))
        after = "\n".join(dict.fromkeys(r[3] for r in rules_went))
        said = _move_fields([r[2] for r in rules_went], o, at, narrowed)
        made = Finding(code, labels, code.message(**said), cut(before, 600), cut(after, 600))
        out.append(StoreFinding(made, was, now if now != was else None, len(rules_went)))
    return out


def _then_whole(first: ClaimIndex, made: list[ClaimIndex], pad: Pad) -> Iterator[ClaimIndex]:
    """``first``, then the whole pad's index (made once, when a claim gets that far)."""
    yield first
    if not made:
        made.append(ClaimIndex(pad.entries))
    yield made[0]


def _written(e: Entry, old: Store, new: Store, moved_to: Mapping[str, str]) -> bool:
    """Is this new entry's file one the change added or rewrote?"""
    assert isinstance(e, StoreEntry)
    was = {v: k for k, v in moved_to.items()}.get(e.file, e.file)
    before, after = old.get(was), new.get(e.file)
    return before is None or after is None or before.text != after.text


def _when(scope: Scope) -> str:
    return {
        Scope.ALWAYS: "at start",
        Scope.PATHS: "only for some paths",
        Scope.ON_DEMAND: "on demand",
    }[scope]


def _move_fields(
    texts: Sequence[str], o: StoreEntry, at: StoreEntry, narrowed: bool
) -> dict[str, str]:
    """What a move's message says (``RULE_MOVED``, ``RULE_SCOPE_NARROWED``)."""
    what = f"rule {cut(one_line(texts[0]), 60)!r}" if len(texts) == 1 else f"{len(texts)} rules"
    if not narrowed:
        return {"what": what, "was": o.file, "now": at.file}
    where = f" in {o.file}" if at.file == o.file else f" moved from {o.file} to {at.file} and"
    verb = "is" if len(texts) == 1 else "are"
    return {
        "what": what,
        "where": where,
        "verb": verb,
        "when": _when(at.scope),
        "was": _when(o.scope),
    }


def changed_files(result: StoreAudit) -> Iterable[FileChange]:
    return (c for c in result.files if c.change != "unchanged")
