"""Entries and pads: the data model (the README's "The pad file")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from padtui.core.text import one_line

_T = TypeVar("_T")


def made_whole(cls: type[_T], fields: dict[str, Any]) -> _T:
    """``cls(**fields)`` for a frozen dataclass given every field, made the fast way: its
    ``__dict__`` set at once (a frozen dataclass sets its fields one by one through
    ``object.__setattr__``, most of the cost of making the entries, or the rows, of a pad
    of 20,000 entries; tests check that the two are the same, field for field)."""
    made = object.__new__(cls)
    object.__setattr__(made, "__dict__", fields)
    return made


PROTECTED_KINDS = frozenset({"constraint", "negative_fact", "loss_record"})
CAUTION_KINDS = frozenset({"constraint", "negative_fact"})
KNOWN_KINDS = ("constraint", "negative_fact", "loss_record", "plan", "note", "hypothesis")
_PLURALS = {
    "constraints": "constraint",
    "negative_facts": "negative_fact",
    "loss_records": "loss_record",
    "plans": "plan",
    "notes": "note",
    "hypotheses": "hypothesis",
}


def known_kind(name: str) -> str | None:
    """The known kind a heading or label names, plural, case and separators forgiven
    (``Negative facts``, ``loss-records``, ``HYPOTHESES``); None for any other name."""
    slug = "_".join(name.lower().replace("-", " ").replace("_", " ").split())
    if slug in KNOWN_KINDS:
        return slug
    return _PLURALS.get(slug)


@dataclass(frozen=True)
class Entry:
    """One entry of a pad.

    ``raw`` is the entry's whole object as read (every unknown field kept, key order kept);
    ``source`` is its exact source text when it has not been changed since it was read, so
    that a write reproduces untouched entries byte for byte.
    """

    kind: str
    text: str
    sealed: bool = False
    id: str | None = None
    derived_from: tuple[str, ...] = ()
    op: str | None = None
    index: int = 0
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    source: str | None = field(default=None, compare=False, repr=False)
    # the headings the entry sits under in its file, outermost first, as written ("Lessons",
    # "User Specified Lessons"), or a Letta block's label: where a rule lives (rules.py)
    context: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def label(self) -> str:
        """The entry's name in all output: its id, else ``#N`` (its 0-based position)."""
        return self.id if self.id is not None else f"#{self.index}"

    @property
    def protected(self) -> bool:
        return self.kind in PROTECTED_KINDS

    def as_dict(self) -> dict[str, Any]:
        """The entry as a JSON object: the original fields, in their order, plus ours."""
        out = dict(self.raw)
        out["kind"] = self.kind
        out["text"] = self.text
        if self.sealed or "sealed" in out:
            out["sealed"] = self.sealed
        if self.id is not None:
            out["id"] = self.id
        if self.derived_from:
            out["derived_from"] = list(self.derived_from)
        if self.op is not None:
            out["op"] = self.op
        return out

    def sealed_copy(self) -> Entry:
        """This entry moved into the sealed region; nothing else about it changes."""
        raw = dict(self.raw)
        raw["sealed"] = True
        return replace(self, sealed=True, raw=raw, source=None)


def make_entry(
    kind: str,
    text: str,
    *,
    sealed: bool = False,
    id: str | None = None,
    derived_from: Iterable[str] = (),
    op: str | None = None,
    **extra: Any,
) -> Entry:
    """Build a new entry (as an agent or a commit would write it)."""
    raw: dict[str, Any] = {"kind": kind, "text": text}
    if sealed:
        raw["sealed"] = True
    if id is not None:
        raw["id"] = id
    derived = tuple(derived_from)
    if derived:
        raw["derived_from"] = list(derived)
    if op is not None:
        raw["op"] = op
    raw.update(extra)
    return Entry(kind, text, sealed, id, derived, op, raw=raw)


@dataclass(frozen=True)
class Pad:
    """A version of a pad: its entries in file order plus the file's own settings."""

    entries: tuple[Entry, ...]
    budget_tokens: int | None = None
    encoding: str | None = None
    # the file's own words for headings that hold rules (front matter or JSON object
    # ``rule_headings``), added to padtui's, or replacing them (``rule_headings_replace``)
    rule_headings: tuple[str, ...] = ()
    rule_headings_replace: bool = False

    @classmethod
    def of(
        cls,
        entries: Iterable[Entry],
        budget_tokens: int | None = None,
        encoding: str | None = None,
        *,
        rule_headings: Iterable[str] = (),
        rule_headings_replace: bool = False,
    ) -> Pad:
        """A pad whose entries are numbered by position (for their ``#N`` labels)."""
        numbered = tuple(e if e.index == i else replace(e, index=i) for i, e in enumerate(entries))
        return cls(numbered, budget_tokens, encoding, tuple(rule_headings), rule_headings_replace)

    @property
    def sealed(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.sealed)

    @property
    def rewritable(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if not e.sealed)

    def find(self, label: str) -> Entry | None:
        """The entry at position ``#N``, else the first with this id (see :meth:`named`)."""
        found = self.named(label)
        return found[0] if found else None

    def named(self, label: str) -> list[Entry]:
        """The entries a name given on a command line may mean: ``#N`` is always the entry at
        position N (so every entry can be named, whatever the ids say), any other name the
        entries with that id (more than one when ids repeat)."""
        if _is_position(label):
            i = int(label[1:])
            return [self.entries[i]] if i < len(self.entries) else []
        return [e for e in self.entries if e.id == label]

    def name_of(self, entry: Entry) -> str:
        """The name of ``entry`` on a command line: its id when that names it alone and shows
        as it is, else its position ``#N``. An id that a terminal would not show as it is
        (controls, newlines, surrounding spaces) is never suggested: the command a person
        reads and the one they paste must be the same; nor is one that starts with ``-``,
        which would read as an option."""
        i = entry.id
        alone = i is not None and [e.index for e in self.named(i)] == [entry.index]
        if i and alone and one_line(i) == i and not i.startswith("-"):
            return i
        return f"#{entry.index}"


def _is_position(label: str) -> bool:
    return label.startswith("#") and label[1:].isascii() and label[1:].isdigit()
