"""The other files a memory file brings in: ``@path`` imports (loaded with it), links to
local files, and file names it tells the agent to read (``Read docs/testing.md before ...``,
a table of ``rules/*.md`` to read "when working in that area"): loaded on demand.

Nothing inside a code block or a code span is an import (``@`` there is code); a link or a
named file is one only where the file exists (the caller checks), never a URL.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache

_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[^\n]*$|\Z)", re.M | re.S)
_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\`]|\\ )+)")
_LINK = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_NAMED = re.compile(r"(?<![\w/.@-])((?:\.{1,2}/)?[\w.\-/]*[\w\-]\.(?:md|mdc|txt))(?![\w/])", re.I)
_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\*\*|__)?[ \t]*")
# a line that tells the agent to read a file (or a section that lists files to read)
_READ = re.compile(
    r"\b(?:read|see|follow|consult|refer|check|load|open|review|reference|look at|"
    r"details? in|described in|documented in|rules? in|instructions? in)\b|\bMUST\b|"
    r"\bwhen working\b|\bbefore\b",
    re.I,
)


@dataclass(frozen=True)
class Reference:
    """A file a memory file brings in: its path as written, and how (``import``, ``link``
    or ``named``)."""

    target: str
    how: str


def _plain(text: str) -> str:
    return _SPAN.sub(" ", _FENCE.sub(" ", text))


@lru_cache(maxsize=4096)
def references(text: str) -> tuple[Reference, ...]:
    """Every file ``text`` imports, links to or names to be read, each once, in order."""
    out: dict[str, Reference] = {}
    no_code = _FENCE.sub(" ", text)
    for m in _IMPORT.finditer(_plain(text)):
        token = m.group(1).replace("\\ ", " ").rstrip(".,;:!?)]}'\"")
        if token and ("/" in token or "." in token):
            out.setdefault(token, Reference(token, "import"))
    for m in _LINK.finditer(no_code):
        target = m.group(1).split("#", 1)[0]
        if target and "://" not in target and not target.startswith(("mailto:", "#")):
            out.setdefault(target, Reference(target, "link"))
    reading = False
    for line in no_code.splitlines():
        item = _ITEM.match(line)
        if item is None and line.strip():
            # a heading or a label line ("**Read before tool changes:**") says what the
            # list under it is for
            reading = bool(_READ.search(line))
        plain = line.replace("`", " ")
        if not (reading or _READ.search(line)):
            # a list of files (an index: "- docs/testing.md — how we test") names them too
            rest = plain[item.end() :].lstrip(" \t*_") if item is not None else ""
            first = _NAMED.match(rest) if rest else None
            if first is not None:
                out.setdefault(first.group(1), Reference(first.group(1), "named"))
            continue
        for m in _NAMED.finditer(plain):
            out.setdefault(m.group(1), Reference(m.group(1), "named"))
    return tuple(out.values())


def resolve(target: str, importer: str) -> str | None:
    """The root-relative path ``target`` names from the file ``importer`` (relative to its
    folder, or to the root when it starts with ``/``); None when it leaves the root or names
    the user's home (``~/``)."""
    if target.startswith("~"):
        return None
    base = "" if target.startswith("/") else posixpath.dirname(importer)
    path = posixpath.normpath(posixpath.join(base, target.lstrip("/")))
    if path.startswith("../") or path in ("..", "."):
        return None
    return path
