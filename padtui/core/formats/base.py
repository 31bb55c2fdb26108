"""What a pad format is (:class:`Format`), and the records every format reads into: the
pad's :class:`Layout` (where its entries sit in the text), its :class:`Settings`, and the
:class:`PadFile` that holds them with the bytes they were read from."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from padtui.core.model import Entry, Pad

BOM = "\ufeff"
# the largest budget a pad may set: far above any model's context, and small enough that no
# arithmetic on it (a share, a float) can overflow
MAX_BUDGET = 10**12
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, each with its ending (``\\n``, ``\\r\\n`` or ``\\r``).

    ``str.splitlines()`` would also split on U+2028, U+0085 and the like, which a JSON
    string or a Markdown paragraph may hold as text.
    """
    return _LINE.findall(text)


@dataclass(frozen=True, kw_only=True)
class Layout:
    """Where the entries sit in the file, so that a write can splice them back. A format
    that writes back keeps what else it needs in a subclass of its own."""

    format: str  # the name of the format that read it
    pieces: tuple[str, ...] = ()  # each entry's source, with what the format keeps with it
    read_only: str | None = None  # why padtui does not write this file back (None: it does)


@dataclass(frozen=True)
class PadFile:
    """A pad as read from disk: the parsed pad, its layout and the exact bytes."""

    path: str
    pad: Pad
    layout: Layout
    data: bytes


@dataclass(frozen=True, kw_only=True)
class Settings:
    """A pad file's own settings (JSON object keys, Markdown front matter)."""

    budget_tokens: int | None = None
    encoding: str | None = None
    rule_headings: tuple[str, ...] = ()
    rule_headings_replace: bool = False

    def pad(self, entries: Sequence[Entry]) -> Pad:
        """A pad of these entries with these settings."""
        return Pad.of(
            entries,
            self.budget_tokens,
            self.encoding,
            rule_headings=self.rule_headings,
            rule_headings_replace=self.rule_headings_replace,
        )

    @classmethod
    def of(cls, pad: Pad) -> Settings:
        return cls(
            budget_tokens=pad.budget_tokens,
            encoding=pad.encoding,
            rule_headings=pad.rule_headings,
            rule_headings_replace=pad.rule_headings_replace,
        )


def budget_problem(got: str) -> str:
    """What is wrong with a budget that is not one (``got``: the value as shown)."""
    return f"must be a whole number >= 0 (at most {MAX_BUDGET}), got {got}"


def names_end(name: str, suffixes: tuple[str, ...]) -> bool:
    """Does a file's name end with one of ``suffixes`` (lower case), case forgiven?"""
    return os.path.basename(name).lower().endswith(suffixes)


class Format(Protocol):
    """A pad format: how padtui knows a file of it, reads it, and writes it back.

    Each format is one module of this package holding one instance, registered by one line
    of ``formats/__init__.py`` (see ``registry.register``). A format subclasses this class to
    take the defaults below and sets what differs. The rest of padtui asks the registry
    what a format supports, never its name.
    """

    name: str  # its name: the value of --format, and what a journal records
    suffixes: tuple[str, ...]  # how the names of its files end (lower case)
    choosable: bool = True  # may --format read a file of any name as this format
    read_only: str | None = None  # why padtui never writes it back (None: it does)
    ids: bool = True  # the file keeps an id for each entry (else entries are named #N)
    sealing: bool = True  # the file can mark an entry sealed
    keeps_fields: bool = False  # every field of an entry (a loss record's drops) survives
    # an entry is what its source text says: the same text, the same entry (not so for a
    # Markdown bullet, whose kind comes from the section it is in)
    entry_is_source: bool = False
    token_budget: bool = True  # the pad is held to a budget of tokens (a Letta agent file
    # budgets each block in characters instead)
    empty: str = "empty file: a pad needs at least one entry"  # what an empty file is told
    # what may stand between the source of one entry and the next (the journal looks there
    # first before it searches the text)
    glue: re.Pattern[str] = re.compile(r"\s*")

    def sniff(self, name: str) -> bool:
        """Does a file's name say it is of this format? By its end, case forgiven."""
        return names_end(name, self.suffixes)

    def names_text(self) -> str:
        """Its file names in words, for help and errors."""
        names = ", ".join(self.suffixes)
        return f"{names} read-only" if self.read_only is not None else names

    def read(self, path: str, text: str, previous: PadFile | None) -> tuple[Pad, Layout]:
        """The pad a decoded text holds, and its layout; bad input raises a one-line PadError.
        ``previous``, an earlier version of the same pad, may make the read cheaper; the
        result is the same without it."""
        ...

    def read_pad(self, path: str, text: str) -> Pad:
        """The pad alone, for a caller that never writes it back (a format may take a
        shorter way); the same pad and the same errors as :meth:`read`."""
        return self.read(path, text, None)[0]

    def write(self, layout: Layout, entries: Sequence[Entry]) -> str:
        """The file's new text: every entry that did not change keeps its source. ValueError
        for entries this format cannot hold as they are."""
        raise ValueError(self.read_only or f"padtui does not write {self.name} pads back")

    def same_entries(self, a: Sequence[Entry], b: Sequence[Entry]) -> bool:
        """Do two lists hold the same entries, as far as this format can hold them? (What a
        write must read back as.)"""
        return [_as_json(e) for e in a] == [_as_json(e) for e in b]


def _as_json(e: Entry) -> object:
    return json.loads(json.dumps(e.as_dict()))
