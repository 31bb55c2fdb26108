"""Markdown pads: kind sections of bullets and paragraphs, and the memory
files agents keep as Markdown (``CLAUDE.md``, ``.cursorrules``, Cursor's ``.mdc`` rules, Cline's
memory bank) read as they stand.

The format, as padtui reads it::

    ---                                  front matter (optional, kept verbatim); of its
    budget_tokens: 4000                  top-level keys, budget_tokens, encoding,
    rule_headings: [House rules]         rule_headings and rule_headings_replace are read
    ---
    # Agent 7 scratchpad                 text outside any kind section: entries of kind
    Prose about the task.                `preamble`, counted like any other
    ## Constraints (sealed)              a `##` heading names the kind of the entries under it;
    - Never call the billing API. {#c1}  `(sealed)` / `[sealed]` seals them. `{#id}` at the end
    ## Plan                              of an entry's first line gives its id (else it is #N)
    1. Read the ticket.                  each top-level bullet (-, *, +, 1., 1)) or paragraph
       - nested bullets and indented     is one entry; nested bullets and indented lines
         lines belong to their entry     belong to the entry above them

* Headings: a `##` heading at the start of a line opens a kind section. The six known kinds
  are forgiven plural, case and separators (``## Negative facts``, ``## loss-records``); any
  other title is a kind of its own: its words (letters and digits of any script) lower-cased
  and joined by ``_`` (``## Open questions`` is ``open_questions``, ``## 絶対禁止`` is
  ``絶対禁止``), without what changes from one version to the next or only decorates it: a
  trailing date, ``(updated ...)``, ``(as of ...)``, ``— 2026-04-02``, ``[2026-04-02]``, emoji
  and punctuation at either end (``## Block Metrics (updated 2026-04-02)`` is
  ``block_metrics``). A ``#`` heading ends the kind section: what follows it up to the next
  ``##`` heading, like what comes before the first heading, is *preamble*: its bullets and
  paragraphs are entries of kind ``preamble`` (the agent loads that text too). Setext
  headings (underlined) are not read as headings; a heading line indented by a space is not
  one of ``#``/``##``.
* Context: every entry knows the headings it sits under, outermost first, by their titles as
  written (``("Lessons", "User Specified Lessons")``); a heading ends every heading of its
  level and deeper above it (a ``#`` those of ``##`` and below, a ``##`` the ``###`` ...).
  Heading lines are never entries.
* Inside a section, blank lines, deeper headings (``###``), thematic breaks (``---``) and
  HTML comments are not entries; a fenced code block, a table, a quote or any other run of
  non-blank lines is a paragraph entry.
* The id marker: ``{#id}`` as the last thing on the entry's first line, optionally with
  ``op=NAME`` and ``derived_from=ID,ID`` (``{#p3 op=merge derived_from=p1,p2}``); other
  ``key=value`` pairs are kept as fields of the entry. The marker is not part of the text.
* Front matter settings: ``rule_headings`` is a YAML flow list (``[a, "b, c"]``) or a block
  list (``rule_headings:`` then ``  - a`` lines), ``rule_headings_replace`` is ``true`` or
  ``false``; anything else there is bad input, named by its line.

Writing back. An entry's ``source`` is its exact text in the file (its lines, with their
line endings), so untouched entries are reproduced byte for byte, and a write changes only
the sections it touches: a dropped entry's lines go (with one of the blank-line runs around
it), preamble entries as any other; an entry appended by a commit (a loss record) goes at the
end of the last section of its kind and region (``## Loss records (sealed)``), a new section
being created when there is none: before the first section of the same kind if there is one
(never above the front matter), else at the end of the file. An externalized entry moves,
verbatim, from its unsealed section to the sealed section of its kind, created the same way.
Every other byte stays: front matter, titles, prose, comments, headings, line endings (new
lines take the file's own). What is written is read back first: a text that would not read
as the entries meant, with the same front matter settings, is never written (ValueError).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from padtui.core.errors import PadError, shown
from padtui.core.formats import known
from padtui.core.formats.base import (
    BOM,
    MAX_BUDGET,
    Format,
    Layout,
    PadFile,
    Settings,
    budget_problem,
    split_lines,
)
from padtui.core.model import Entry, Pad, known_kind, make_entry

_ENDING = re.compile(r"\r\n|\r|\n")
_HEADING = re.compile(r"(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")  # at the start of the line
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
_ANY_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t].*)?$")
_FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)$")
_THEMATIC = re.compile(r" {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_BULLET = re.compile(r"( {0,3})([-*+]|\d{1,9}[.)])(?=[ \t]|$)")
_COMMENT = re.compile(r" {0,3}<!--")
_SEALED = re.compile(r"[(\[][ \t]*sealed[ \t]*[)\]]", re.IGNORECASE)
# an entry sealed where it stands: the marker at the end of its last line (of its first,
# when the last closes a code fence, where nothing may follow)
_SEAL_MARK = re.compile(r"[ \t]*<!--[ \t]*sealed[ \t]*-->[ \t]*$", re.IGNORECASE)
SEAL_MARK = "<!-- sealed -->"
_FENCE_CLOSE = re.compile(r"[ \t]*(?:`{3,}|~{3,})[ \t]*$")
_MARKER = re.compile(r"[ \t]*\{([^{}]*)\}[ \t]*$")
_ATTR = re.compile(r"([A-Za-z_][\w-]*)=(\S*)")
_FRONT_KEY = re.compile(
    r"(budget_tokens|encoding|rule_headings|rule_headings_replace)[ \t]*:[ \t]*(.*?)[ \t]*$"
)
_FRONT_ITEM = re.compile(r"[ \t]*-(?:[ \t]+(.*?))?[ \t]*$")  # "  - a" of a block list
_YAML_COMMENT = re.compile(r"(?:^|[ \t]+)#.*$")
_SUBHEADING = re.compile(r" {0,3}(#{3,6})(?:[ \t]+(.*?))?[ \t]*$")  # ### to ######
_RESERVED = frozenset({"kind", "text", "sealed", "id"})
PREAMBLE = "preamble"  # the kind of what is not under a `##` heading
# a heading's decorations that change from one version to the next, stripped before its
# title names a kind: "(updated 2026-04-02)", "(as of May)", "— 2026-04-02", "[2026-04-02]",
# a trailing date
_DATE = r"\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?(?:[ T]\d{1,2}:\d{2}(?::\d{2})?Z?)?"
_DECORATION = re.compile(
    rf"""[ \t]*(?:
        [(\[][ \t]*(?:last[ \t]+)?(?:updated|as[ \t]+of|since|edited|revised)\b[^)\]]*[)\]]
      | [(\[][ \t]*{_DATE}[ \t]*[)\]]
      | (?:[-–—:,@|][ \t]*)?(?:(?:last[ \t]+)?(?:updated|as[ \t]+of)[ \t]*:?[ \t]*)?{_DATE}
    )[ \t]*$""",
    re.IGNORECASE | re.VERBOSE,
)

HEADINGS = {
    "constraint": "Constraints",
    "negative_fact": "Negative facts",
    "loss_record": "Loss records",
    "plan": "Plan",
    "note": "Notes",
    "hypothesis": "Hypotheses",
}

Essence = tuple[str, str, str | None, tuple[str, ...], str | None]


@dataclass(frozen=True)
class Section:
    """A part of the file: the head (before the first heading), a ``#`` region (both hold
    entries of kind ``preamble``), or a kind section. Its text is
    ``heading + gaps[0] + piece + gaps[1] + ... + gaps[-1]``."""

    heading: str  # the heading line with its line ending ("" for the head)
    kind: str
    sealed: bool
    gaps: tuple[str, ...]  # the lines between entries (one more than there are entries)
    items: tuple[int, ...]  # the entries in it (their indices in the pad)
    tight: bool  # bullets one after another, no blank line between them

    def text(self, pieces: Sequence[str]) -> str:
        parts = [self.heading, self.gaps[0]]
        for i, gap in zip(self.items, self.gaps[1:], strict=True):
            parts += [pieces[i], gap]
        return "".join(parts)


@dataclass(frozen=True, kw_only=True)
class MdLayout(Layout):
    """Where the entries of a Markdown pad sit, so that a write can splice them (its pieces:
    each entry's exact source text, its lines with their endings)."""

    sections: tuple[Section, ...]
    bullets: tuple[bool, ...]  # each entry: a bullet (else a paragraph block)
    essence: tuple[Essence, ...]  # each entry as read (kind, text, id, derived_from, op)
    sealed: tuple[bool, ...]
    newline: str  # the file's line ending, for new lines
    marker: str  # the bullet of new entries: the file's first one among - * +
    seal_mark: str  # "(sealed)" or "[sealed]", as the file writes it
    settings: Settings  # the front matter's, as read (a write must leave them as they are)


NAME = known.MARKDOWN.name


class MarkdownFormat(Format):
    name = NAME
    suffixes = known.MARKDOWN.suffixes
    empty = "empty file: a Markdown pad needs at least one heading, bullet or paragraph"

    def names_text(self) -> str:
        return known.MARKDOWN.names_text()

    def read(self, path: str, text: str, previous: PadFile | None) -> tuple[Pad, Layout]:
        return parse(path, text)

    def write(self, layout: Layout, entries: Sequence[Entry]) -> str:
        assert isinstance(layout, MdLayout)
        return render(layout, entries)

    def same_entries(self, a: Sequence[Entry], b: Sequence[Entry]) -> bool:
        return same_entries(a, b)


FORMAT = MarkdownFormat()


# --- reading -------------------------------------------------------------------------------


class _Doc:
    """The lines of a file and what the first pass found in them."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines: list[str] = split_lines(text)
        self.content = [line.rstrip("\r\n") for line in self.lines]
        if self.content:
            self.content[0] = self.content[0].removeprefix(BOM)
        self.blocks: dict[int, int] = {}  # first line of a fence or comment -> its last line
        self.fences: set[int] = set()

    def blank(self, i: int) -> bool:
        return not self.content[i].strip(" \t")

    def starts_block(self, i: int) -> bool:
        """Does line ``i`` start a block that ends a bullet's lazy continuation?"""
        c = self.content[i]
        return bool(
            i in self.blocks or _ANY_HEADING.match(c) or _THEMATIC.match(c) or _BULLET.match(c)
        )

    def interrupts(self, i: int) -> bool:
        """Does line ``i`` end a paragraph (CommonMark's rules, simplified)?"""
        c = self.content[i]
        if self.blank(i) or i in self.blocks or _ANY_HEADING.match(c) or _THEMATIC.match(c):
            return True
        m = _BULLET.match(c)
        if m is None or not c[m.end() :].strip(" \t"):
            return False  # an empty list item does not interrupt a paragraph
        marker = m[2]
        return marker in ("-", "*", "+") or marker[:-1] == "1"


def parse(path: str, text: str) -> tuple[Pad, MdLayout]:
    """Read a Markdown pad. Bad input raises a one-line PadError naming the line."""
    doc = _Doc(path, text)
    start, settings = _front_matter(doc)
    heads = _scan(doc, start)
    n = len(doc.lines)
    bounds = [h for h, _level, _title in heads] + [n]
    # the head (what comes before the first heading), then one section a heading
    regions: list[tuple[int | None, int, str, int]] = [(None, 0, "", bounds[0])]
    regions += [
        (h, level, title, end) for (h, level, title), end in zip(heads, bounds[1:], strict=True)
    ]
    sections: list[Section] = []
    entries: list[Entry] = []
    pieces: list[str] = []
    bullets: list[bool] = []
    context: list[tuple[int, str]] = []  # the headings above, outermost first: (level, title)
    for h, level, title, end in regions:
        if h is None:  # the head: front matter (glue) and preamble
            heading, kind, sealed, first, prev = "", PREAMBLE, False, start, 0
        else:
            heading, first, prev = doc.lines[h], h + 1, h + 1
            _enter(context, level, title)
            if level == 1:
                kind, sealed = PREAMBLE, False
            else:
                kind, sealed = _kind_of(title)
                if not kind:
                    raise PadError(
                        path,
                        "a `##` heading must name a kind (## Plan, ## Notes, ...)",
                        f"line {h + 1}",
                    )
        gaps: list[str] = []
        items: list[int] = []
        for a, b, is_bullet, where in _items(doc, first, end, context):
            gaps.append("".join(doc.lines[prev:a]))
            piece = "".join(doc.lines[a:b])
            entries.append(_entry(doc, a, b, is_bullet, kind, sealed, len(entries), piece, where))
            items.append(len(pieces))
            pieces.append(piece)
            bullets.append(is_bullet)
            prev = b
        gaps.append("".join(doc.lines[prev:end]))
        inner = gaps[1:-1]
        tight = not inner[-1] if inner else True
        sections.append(Section(heading, kind, sealed, tuple(gaps), tuple(items), tight))
    found = _ENDING.search(text)
    layout = MdLayout(
        format=NAME,
        sections=tuple(sections),
        pieces=tuple(pieces),
        bullets=tuple(bullets),
        essence=tuple(_essence(e) for e in entries),
        sealed=tuple(e.sealed for e in entries),
        newline=found[0] if found else "\n",
        marker=_first_marker(pieces, bullets),
        seal_mark=_seal_mark(heads),
        settings=settings,
    )
    if "".join(s.text(pieces) for s in sections) != text:  # the splice must hold every byte
        raise RuntimeError(f"padtui bug: {path} does not split back into its own text")
    return settings.pad(entries), layout


def _enter(context: list[tuple[int, str]], level: int, title: str) -> None:
    """A heading of ``level``: it ends the headings of its level and deeper, and (if it has
    a title) is the innermost heading from here on."""
    while context and context[-1][0] >= level:
        context.pop()
    if title:
        context.append((level, title))


def _title(text: str | None) -> str:
    """A heading's title: its text without the closing hashes."""
    return _CLOSING_HASHES.sub("", (text or "").strip())


def _front_matter(doc: _Doc) -> tuple[int, Settings]:
    """Lines of front matter (``---`` ... ``---``) at the top, and the settings in it."""
    c = doc.content
    if not c or c[0].rstrip(" \t") != "---":
        return 0, Settings()
    for k in range(1, len(c)):
        if c[k].rstrip(" \t") in ("---", "..."):
            break
    else:
        return 0, Settings()
    budget: int | None = None
    encoding: str | None = None
    headings: tuple[str, ...] = ()
    replace_ = False
    i = 1
    while i < k:
        m = _FRONT_KEY.match(c[i])
        where = f"line {i + 1}"
        i += 1
        if m is None:
            continue
        raw = _YAML_COMMENT.sub("", m[2])
        value = _unquote(raw)
        if m[1] == "rule_headings":
            if raw.startswith("["):
                headings = _flow_list(doc.path, raw, where)
            elif value in ("", "~", "null"):
                items: list[str] = []
                while i < k and (item := _FRONT_ITEM.match(c[i])) is not None:
                    items.append(_list_item(doc.path, item[1] or "", f"line {i + 1}"))
                    i += 1
                headings = tuple(items)
            else:
                raise PadError(
                    doc.path,
                    "rule_headings in the front matter must be a list of headings "
                    f"([a, b], or `- a` lines under it), got {shown(value)}",
                    where,
                )
            continue
        if value in ("", "~", "null"):
            continue
        if m[1] == "budget_tokens":
            digits = value.lstrip("0") or "0"
            if (
                not value.isascii()
                or not value.isdigit()
                or len(digits) > len(str(MAX_BUDGET))
                or int(digits) > MAX_BUDGET
            ):
                raise PadError(
                    doc.path,
                    f"budget_tokens in the front matter {budget_problem(shown(value))}",
                    where,
                )
            budget = int(digits)
        elif m[1] == "rule_headings_replace":
            if value.lower() not in ("true", "false"):
                raise PadError(
                    doc.path,
                    "rule_headings_replace in the front matter must be true or false, "
                    f"got {shown(value)}",
                    where,
                )
            replace_ = value.lower() == "true"
        else:
            encoding = value
    return k + 1, Settings(
        budget_tokens=budget,
        encoding=encoding,
        rule_headings=headings,
        rule_headings_replace=replace_,
    )


def _unquote(value: str) -> str:
    value = value.strip(" \t")
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _flow_list(path: str, raw: str, where: str) -> tuple[str, ...]:
    """The items of a YAML flow list of headings: ``[a, "b, c", 'd']``."""
    body = raw.strip(" \t")
    if not body.endswith("]"):
        raise PadError(path, "rule_headings in the front matter: the list's `]` is missing", where)
    inner = body[1:-1]
    n = len(inner)
    items: list[str] = []
    i = 0
    while inner[i:].strip(" \t"):
        while inner[i] in " \t":
            i += 1
        if inner[i] in "'\"":
            quote, j, chars = inner[i], i + 1, []
            while True:
                if j >= n:
                    raise PadError(
                        path, "rule_headings in the front matter: a quote is never closed", where
                    )
                if quote == '"' and inner[j] == "\\" and j + 1 < n:  # an escape
                    chars.append(inner[j + 1])
                    j += 2
                elif quote == "'" and inner[j : j + 2] == "''":  # a quote, doubled
                    chars.append("'")
                    j += 2
                elif inner[j] == quote:
                    break
                else:
                    chars.append(inner[j])
                    j += 1
            item = "".join(chars)
            if not item.strip(" \t"):
                raise PadError(path, "rule_headings in the front matter: an empty item", where)
            i = j + 1
            while i < n and inner[i] in " \t":
                i += 1
            if i < n and inner[i] != ",":
                raise PadError(path, "rule_headings in the front matter: a `,` is missing", where)
        else:
            j = inner.find(",", i)
            j = n if j < 0 else j
            item = _list_item(path, inner[i:j], where)
            i = j
        items.append(item)
        i += 1  # past the ","
    return tuple(items)


def _list_item(path: str, text: str, where: str) -> str:
    """One heading of ``rule_headings``: a word or a quoted string, not empty."""
    value = _unquote(_YAML_COMMENT.sub("", text))
    if not value.strip(" \t") or (value[0] in "[{" and text.strip(" \t")[0] in "[{"):
        raise PadError(
            path,
            f"rule_headings in the front matter: each item is a heading's words, got {shown(text)}",
            where,
        )
    return value


def _scan(doc: _Doc, start: int) -> list[tuple[int, int, str]]:
    """First pass: fenced blocks and HTML comments (no heading inside them counts), and the
    ``#`` / ``##`` headings that cut the file into sections: (line, level, title)."""
    heads: list[tuple[int, int, str]] = []
    c = doc.content
    n = len(c)
    i = start
    while i < n:
        m = _FENCE.match(c[i])
        if m and not (m[2][0] == "`" and "`" in m[3]):
            end = _fence_end(doc, i, m[2])
            doc.blocks[i] = end
            doc.fences.add(i)
            i = end + 1
            continue
        if _COMMENT.match(c[i]):
            end = _comment_end(doc, i)
            doc.blocks[i] = end
            i = end + 1
            continue
        h = _HEADING.match(c[i])
        if h and len(h[1]) <= 2:
            heads.append((i, len(h[1]), _title(h[2])))
        i += 1
    return heads


def _fence_end(doc: _Doc, i: int, fence: str) -> int:
    c = doc.content
    closing = re.compile(rf" {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
    for k in range(i + 1, len(c)):
        if closing.match(c[k]):
            return k
    # CommonMark runs it to the end of the file: nothing could be appended after it, and a
    # pad cut short in the middle of a write looks just like this
    raise PadError(doc.path, f"a code fence ({fence}) is never closed", f"line {i + 1}")


def _comment_end(doc: _Doc, i: int) -> int:
    c = doc.content
    if "-->" in c[i][c[i].index("<!--") + 4 :]:
        return i
    for k in range(i + 1, len(c)):
        if "-->" in c[k]:
            return k
    raise PadError(doc.path, "an HTML comment (<!--) is never closed", f"line {i + 1}")


def _items(
    doc: _Doc, a: int, b: int, context: list[tuple[int, str]]
) -> list[tuple[int, int, bool, tuple[str, ...]]]:
    """The entries of a section's lines [a, b): (first line, end, is a bullet, the titles of
    the headings it sits under). ``context`` holds the headings above line ``a``; the
    subheadings (``###`` ...) met on the way are entered into it."""
    items: list[tuple[int, int, bool, tuple[str, ...]]] = []
    c = doc.content
    i = a
    while i < b:
        if doc.blank(i):
            i += 1
        elif i in doc.blocks and i not in doc.fences:  # an HTML comment
            i = doc.blocks[i] + 1
        elif _ANY_HEADING.match(c[i]) or _THEMATIC.match(c[i]):
            sub = _SUBHEADING.match(c[i])
            if sub is not None:  # (a `#` or `##` indented is no heading of padtui's)
                _enter(context, len(sub[1]), _title(sub[2]))
            i += 1
        else:
            where = tuple(title for _level, title in context)
            if i in doc.fences:
                end = min(doc.blocks[i] + 1, b)
                items.append((i, end, False, where))
                i = end
            elif m := _BULLET.match(c[i]):
                j = _item_end(doc, i, b, _offset(c[i], m), m[2])
                items.append((i, j, True, where))
                i = j
            else:
                j = i + 1
                while j < b and not doc.interrupts(j):
                    j += 1
                items.append((i, j, False, where))
                i = j
    return items


def _item_end(doc: _Doc, i: int, b: int, offset: int, marker: str) -> int:
    """Where the bullet starting at line ``i`` ends: indented lines (after blank lines too)
    and lazy continuation lines belong to it; a block that can interrupt a paragraph, or
    the next item of the same list, ends it."""
    j = i + 1
    while j < b:
        if doc.blank(j):
            k = j + 1
            while k < b and doc.blank(k):
                k += 1
            if k < b and _indent(doc.content[k]) >= offset:
                j = k
                continue
            return j
        if _indent(doc.content[j]) >= offset:
            j = doc.blocks[j] + 1 if j in doc.blocks else j + 1
            continue
        if doc.starts_block(j) and (doc.interrupts(j) or _sibling(doc.content[j], marker)):
            return j
        j += 1  # a lazy continuation line
    return b


def _sibling(line: str, marker: str) -> bool:
    """Is ``line`` an item of the same list as an item with ``marker`` (CommonMark: the
    same bullet character, or both ordered with the same delimiter)?"""
    m = _BULLET.match(line)
    if m is None:
        return False
    if marker[-1] in ".)" and len(marker) > 1:
        return m[2][-1] == marker[-1] and len(m[2]) > 1
    return m[2] == marker


def _columns(s: str, col: int = 0) -> tuple[int, int]:
    """Leading spaces and tabs of ``s`` (tab stops every 4), from column ``col``:
    (characters, column after them)."""
    k = 0
    while k < len(s) and s[k] in " \t":
        col = col + 1 if s[k] == " " else col + 4 - col % 4
        k += 1
    return k, col


def _indent(s: str) -> int:
    return _columns(s)[1]


def _offset(line: str, m: re.Match[str]) -> int:
    """The column where a bullet's content starts (CommonMark: 1 to 4 columns past the
    marker; past that, or with nothing after the marker, one)."""
    after_marker = len(m[1]) + len(m[2])
    rest = line[m.end() :]
    if not rest.strip(" \t"):
        return after_marker + 1
    width = _columns(rest, after_marker)[1] - after_marker
    return after_marker + (1 if width > 4 else width)


def _dedent(s: str, n: int) -> str:
    """``s`` without up to ``n`` columns of leading white space."""
    col = k = 0
    while k < len(s) and s[k] in " \t" and col < n:
        step = 1 if s[k] == " " else 4 - col % 4
        if col + step > n:
            break
        col += step
        k += 1
    return s[k:]


def _entry(
    doc: _Doc,
    a: int,
    b: int,
    is_bullet: bool,
    kind: str,
    sealed: bool,
    index: int,
    piece: str,
    context: tuple[str, ...],
) -> Entry:
    c = doc.content
    if is_bullet:
        m = _BULLET.match(c[a])
        assert m is not None
        first = c[a][m.end() :]
        offset = _offset(c[a], m)
    else:
        first = c[a]
        offset = _indent(c[a])
    first = first.strip(" \t")
    rest = [_dedent(c[k], offset) for k in range(a + 1, b)]
    marked = _SEAL_MARK.search(rest[-1]) if rest else None
    if marked is not None:
        rest[-1] = rest[-1][: marked.start()]
    else:
        marked = _SEAL_MARK.search(first)
        if marked is not None:
            first = first[: marked.start()]
    sealed = sealed or marked is not None
    first, id_, attrs = _split_marker(first)
    text = "\n".join([first, *rest]).rstrip(" \t")
    derived = tuple(d for d in attrs.pop("derived_from", "").split(",") if d)
    op = attrs.pop("op", None) or None
    # (the marker's other fields are never kind, text, sealed or id: see _RESERVED)
    e = make_entry(kind, text, sealed=sealed, id=id_, derived_from=derived, op=op, **attrs)
    return replace(e, index=index, source=piece, context=context)


def _split_marker(first: str) -> tuple[str, str | None, dict[str, str]]:
    """An entry's first line without its ``{#id key=value ...}`` marker, and the marker."""
    m = _MARKER.search(first)
    if m is None:
        return first, None, {}
    tokens = m[1].split()
    id_: str | None = None
    attrs: dict[str, str] = {}
    for k, token in enumerate(tokens):
        a = _ATTR.fullmatch(token)
        if k == 0 and token.startswith("#") and len(token) > 1:
            id_ = token[1:]
        elif a is not None and a[1] not in _RESERVED:
            attrs[a[1]] = a[2]
        else:
            return first, None, {}  # not a marker: text that happens to end in braces
    if id_ is None and not attrs:
        return first, None, {}
    return first[: m.start()].rstrip(" \t"), id_, attrs


def _kind_of(title: str) -> tuple[str, bool]:
    """The kind a ``##`` heading names, and whether it is sealed: its words, lower-cased and
    joined by ``_``, without what changes from one version of the file to the next (a
    trailing date, ``(updated ...)``, ``(as of ...)``) or decorates it (emoji, punctuation);
    the six known kinds forgive plural, case and separators."""
    sealed = _SEALED.search(title) is not None
    slug = _slug(_undecorated(_SEALED.sub(" ", title)))
    return known_kind(slug) or slug, sealed


def _undecorated(name: str) -> str:
    """A heading's title without its trailing date or ``(updated ...)`` decorations (and the
    emoji or punctuation after them), as long as words remain."""
    while True:
        before = name
        name = _trim_end(name)
        stripped = _DECORATION.sub("", name)
        if stripped != name and _slug(stripped):
            name = stripped
        if name == before:
            return name


def _wordy(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN"


def _trim_end(name: str) -> str:
    """``name`` without the emoji, punctuation and white space at its end (a closing bracket
    stays: it may close a decoration)."""
    j = len(name)
    while j > 0:
        k = j
        while k > 0 and unicodedata.category(name[k - 1])[0] == "M":  # marks of a character
            k -= 1
        if k == 0:
            return ""
        base = name[k - 1]
        if _wordy(base) or unicodedata.category(base) == "Pe":
            break
        j = k - 1
    return name[:j]


def _slug(name: str) -> str:
    """The words of ``name`` (letters and digits of any script, with their marks),
    lower-cased, joined by ``_``."""
    words: list[str] = []
    word: list[str] = []
    for ch in name:
        cat = unicodedata.category(ch)[0]
        if cat in "LN" or (cat == "M" and word):
            word.append(ch)
        elif word:
            words.append("".join(word))
            word = []
    if word:
        words.append("".join(word))
    return "_".join(words).lower()


def _first_marker(pieces: Sequence[str], bullets: Sequence[bool]) -> str:
    for piece, is_bullet in zip(pieces, bullets, strict=True):
        if is_bullet:
            m = _BULLET.match(piece.lstrip(BOM))
            if m is not None and m[2] in ("-", "*", "+"):
                return m[2]
    return "-"


def _seal_mark(heads: Sequence[tuple[int, int, str]]) -> str:
    for _h, level, title in heads:
        m = _SEALED.search(title) if level == 2 else None
        if m is not None:
            return "[sealed]" if m[0].startswith("[") else "(sealed)"
    return "(sealed)"


def _essence(e: Entry) -> Essence:
    return (e.kind, e.text, e.id, tuple(e.derived_from), e.op)


def same_entries(a: Sequence[Entry], b: Sequence[Entry]) -> bool:
    """Do two lists hold the same entries, as far as Markdown can say (kind, text, sealed,
    id, derived_from, op), wherever their sections put them?"""

    def key(e: Entry) -> tuple[Essence, bool]:
        return (_essence(e), e.sealed)

    return Counter(map(key, a)) == Counter(map(key, b))


# --- writing -------------------------------------------------------------------------------


def render(layout: MdLayout, entries: Sequence[Entry]) -> str:
    """The file's new text: untouched entries stay where they are, byte for byte; entries
    gone take their lines with them; new and moved ones go to the end of their section.

    The text is read back before it is returned: the same entries and the same front matter
    settings. Where taking an entry out would let the next one be read as part of the one
    before it (Markdown's lazy lines), the joint gets a blank line (and the next entry loses
    its indentation); if even that does not read back, or for a new entry that Markdown
    cannot hold as written (text with white space at its ends or a carriage return, a kind
    no heading can name), ValueError.
    """
    claimed = [False] * len(layout.pieces)
    by_essence: dict[Essence, list[int]] = {}
    for n, essence in enumerate(layout.essence):
        by_essence.setdefault(essence, []).append(n)
    kept: set[int] = set()
    adds: dict[tuple[str, bool], list[tuple[str, bool]]] = {}
    pieces = list(layout.pieces)
    own_ways = _own_ways(layout)
    for e in entries:
        i = _claim(layout, e, claimed, by_essence)
        if i is None:
            piece, is_bullet = _new_piece(layout, e), True
        else:
            claimed[i] = True
            if e.sealed == layout.sealed[i]:
                kept.add(i)
                continue
            if e.sealed and not own_ways(e.kind):
                pieces[i] = marked(layout.pieces[i])  # sealed where it stands
                kept.add(i)
                continue
            piece, is_bullet = _moved(layout, i, e)  # externalized: it moves
        adds.setdefault((e.kind, e.sealed), []).append((piece, is_bullet))
    if pieces != list(layout.pieces):
        layout = replace(layout, pieces=tuple(pieces))
    for safe in (False, True):
        out = _assemble(layout, kept, adds, safe)
        try:
            pad, again = parse("(rendered)", out)
        except PadError:
            continue
        if same_entries(pad.entries, entries) and again.settings == layout.settings:
            return out
    raise ValueError("padtui cannot write these entries into this Markdown pad and read them back")


def _own_ways(layout: MdLayout) -> Callable[[str], bool]:
    """Is an entry of a kind sealed the way of padtui's own pads (moved into the sealed
    section of its kind: the file has one, or it is written in padtui's way, with ``{#id}``
    markers, and the kind is one of padtui's), rather than where it stands (a memory file
    with headings of its own)?"""
    sealed_kinds = {s.kind for s in layout.sections if s.sealed}
    ids = any(essence[2] is not None for essence in layout.essence)
    return lambda kind: kind in sealed_kinds or (ids and known_kind(kind) is not None)


def marked(piece: str) -> str:
    """An entry's source sealed where it stands: ``<!-- sealed -->`` at the end of its last
    line (of its first, when the last closes a code fence); every other byte as it was."""
    lines = split_lines(piece)
    k = len(lines) - 1
    if k and _FENCE_CLOSE.match(_ENDING.sub("", lines[k])):
        k = 0
    body = _ENDING.sub("", lines[k])
    gap = "" if body.endswith((" ", "\t")) else " "
    lines[k] = body + gap + SEAL_MARK + lines[k][len(body) :]
    return "".join(lines)


def _assemble(
    layout: MdLayout,
    kept: set[int],
    adds: dict[tuple[str, bool], list[tuple[str, bool]]],
    safe: bool,
) -> str:
    home: dict[int, list[tuple[str, bool]]] = {}
    before: dict[int, list[tuple[tuple[str, bool], list[tuple[str, bool]]]]] = {}
    at_end: list[tuple[tuple[str, bool], list[tuple[str, bool]]]] = []
    for key, pieces in adds.items():
        same = [i for i, s in enumerate(layout.sections) if s.kind == key[0]]
        exact = [i for i in same if layout.sections[i].sealed == key[1]]
        # (never before the head: it holds the front matter, which must stay on top)
        later = [i for i in same if i > 0] or ([1] if same and len(layout.sections) > 1 else [])
        if exact:
            home[exact[-1]] = pieces
        elif later:
            before.setdefault(later[0], []).append((key, pieces))
        else:
            at_end.append((key, pieces))
    out: list[str] = []
    for i, section in enumerate(layout.sections):
        for key, pieces in before.get(i, []):
            _new_section(out, layout, key, pieces, followed=True)
        out.append(_render_section(layout, section, kept, home.get(i, []), safe))
    for key, pieces in at_end:
        _new_section(out, layout, key, pieces, followed=False)
    return "".join(out)


def _moved(layout: MdLayout, i: int, e: Entry) -> tuple[str, bool]:
    """Entry ``i``'s piece for another place: its lines as they are but for the indentation
    of its first line (taken off every line, so that it cannot be read as part of the
    entry before it), ending a line. If that reads otherwise, the entry written anew."""
    lines = split_lines(layout.pieces[i])
    width = _indent(lines[0])
    if width:
        lines = [_dedent(line, width) for line in lines]
    piece = _ENDING.sub("", lines[-1]).join(("".join(lines[:-1]), layout.newline))
    if not width or _reads_as(piece, layout.newline, e):
        return piece, layout.bullets[i]
    return _new_piece(layout, e), True


def _reads_as(piece: str, nl: str, e: Entry) -> bool:
    """Does ``piece``, alone in a section, read as exactly the entry ``e``?"""
    try:
        back = parse("(new entry)", "## Notes" + nl + piece)[0].entries
    except PadError:
        return False
    return len(back) == 1 and _essence(back[0])[1:] == _essence(e)[1:]


def _claim(
    layout: MdLayout, e: Entry, claimed: list[bool], by_essence: dict[Essence, list[int]]
) -> int | None:
    """The entry of the file that ``e`` is (unchanged but perhaps for ``sealed``), if any:
    by position first, else the first unclaimed one with the same content."""
    essence = _essence(e)
    i = e.index
    if (
        0 <= i < len(claimed)
        and not claimed[i]
        and layout.essence[i] == essence
        and e.source in (None, layout.pieces[i])
    ):
        return i
    for i in by_essence.get(essence, ()):
        if not claimed[i] and e.source in (None, layout.pieces[i]):
            return i
    return None


def _render_section(
    layout: MdLayout,
    section: Section,
    kept: set[int],
    adds: list[tuple[str, bool]],
    safe: bool,
) -> str:
    if not adds and all(i in kept for i in section.items):
        return section.text(layout.pieces)
    nl = layout.newline
    parts = [section.heading]
    gap = section.gaps[0]
    last: str | None = None  # the last entry kept, if it is a bullet
    joint = False  # an entry was taken out since the last one kept
    for k, i in enumerate(section.items):
        if i not in kept:
            gap = _merge(gap, section.gaps[k + 1])
            joint = True
            continue
        piece = layout.pieces[i]
        if safe and joint and k > 0:
            if not (gap and _ends_blank_line(gap)):
                gap += _nl_after(parts[-1] + gap, nl)
            e = Entry(*_essence_fields(layout, i))
            piece, _bullet = _moved(layout, i, e)
            if not layout.pieces[i].endswith(("\n", "\r")):
                piece = piece[: -len(nl)]
        parts += [gap, piece]
        gap = section.gaps[k + 1]
        last = piece if layout.bullets[i] else None
        joint = False
    if not adds:
        parts.append(gap)
        return "".join(parts)
    main, trail = _split_trailing_blanks(gap)
    parts.append(main)
    if not _ends_line("".join(parts)):
        parts.append(nl)
    _put(parts, adds, nl, None if main.strip(" \t\r\n") else last, section.tight and not safe)
    parts.append(trail)
    return "".join(parts)


def _essence_fields(
    layout: MdLayout, i: int
) -> tuple[str, str, bool, str | None, tuple[str, ...], str | None]:
    kind, text, id_, derived, op = layout.essence[i]
    return kind, text, layout.sealed[i], id_, derived, op


def _put(
    parts: list[str], adds: list[tuple[str, bool]], nl: str, prev: str | None, tight: bool
) -> None:
    """Append pieces: a blank line before each, but between bullets of a tight list where
    the new bullet cannot be read as a lazy line of the one before (``prev``: the bullet
    piece just before them, if any)."""
    for piece, is_bullet in adds:
        if not (tight and prev is not None and is_bullet and _follows(prev, piece)):
            parts.append(_nl_after("".join(parts[-2:]), nl))
        parts.append(piece)
        prev = piece if is_bullet else None


def _follows(prev: str, piece: str) -> bool:
    """Does ``piece``, a bullet written right after the bullet ``prev``, start an item?"""
    first = piece.split("\n", 1)[0].split("\r", 1)[0]
    m = _BULLET.match(first)
    before = _BULLET.match(prev)
    if m is None or before is None:
        return False
    if first[m.end() :].strip(" \t") and (m[2] in ("-", "*", "+") or m[2][:-1] == "1"):
        return True  # it would interrupt a paragraph: it ends the item before it
    return _sibling(first, before[2])


def _new_section(
    out: list[str],
    layout: MdLayout,
    key: tuple[str, bool],
    adds: list[tuple[str, bool]],
    followed: bool,
) -> None:
    nl = layout.newline
    before = "".join(out)
    if before:
        if not _ends_line(before):
            out.append(nl)
            before += nl
        if not _ends_blank_line(before):
            out.append(_nl_after(before, nl))
    kind, sealed = key
    out.append(heading_for(kind, sealed, layout.seal_mark) + nl)
    parts: list[str] = []
    _put(parts, adds, nl, None, True)
    out.extend(parts)
    if followed:
        out.append(nl)


def heading_for(kind: str, sealed: bool, seal_mark: str = "(sealed)") -> str:
    """The ``##`` heading of a new section for ``kind`` (ValueError if none can name it)."""
    name = HEADINGS.get(kind) or kind.replace("_", " ").capitalize()
    if not kind or _kind_of(name) != (kind, False):
        raise ValueError(f"a Markdown heading cannot name the kind {kind!r}")
    return f"## {name} {seal_mark}" if sealed else f"## {name}"


def _new_piece(layout: MdLayout, e: Entry) -> str:
    """A new entry as a bullet, checked to read back as the same entry."""
    nl = layout.newline
    lines = e.text.split("\n")
    attrs = []
    if e.id is not None:
        attrs.append("#" + e.id)
    if e.op is not None:
        attrs.append("op=" + e.op)
    if e.derived_from:
        attrs.append("derived_from=" + ",".join(e.derived_from))
    first = lines[0]
    if attrs:
        first = f"{first} {{{' '.join(attrs)}}}" if first else f"{{{' '.join(attrs)}}}"
    out = [f"{layout.marker} {first}" if first else layout.marker]
    out += ["  " + line if line else "" for line in lines[1:]]
    piece = nl.join(out) + nl
    heading = heading_for(e.kind, e.sealed, layout.seal_mark)
    try:
        back = parse("(new entry)", heading + nl + piece)[0].entries
    except PadError:
        back = ()
    if len(back) != 1 or _essence(back[0]) != _essence(e):
        raise ValueError(
            f"entry {e.label} cannot be written as a Markdown bullet and read back the same "
            "(white space at the start or end of its text, a carriage return, or an id, op "
            "or derived_from with spaces or braces?)"
        )
    return piece


def _merge(a: str, b: str) -> str:
    """The glue left where an entry was removed from between glue ``a`` and glue ``b``:
    lines with content are all kept; of two runs of blank lines, the longer."""
    a_blank, b_blank = not a.strip(" \t\r\n"), not b.strip(" \t\r\n")
    if a_blank and b_blank:
        return a if len(split_lines(a)) >= len(split_lines(b)) else b
    if a_blank:
        return b
    if b_blank:
        return a
    return _split_trailing_blanks(a)[0] + b


def _split_trailing_blanks(gap: str) -> tuple[str, str]:
    """``gap`` as (its lines up to the last one with content, the blank lines after)."""
    lines = split_lines(gap)
    k = len(lines)
    while k > 0 and not lines[k - 1].strip(" \t\r\n"):
        k -= 1
    return "".join(lines[:k]), "".join(lines[k:])


def _nl_after(text: str, nl: str) -> str:
    """A line ending to put after ``text``: ``nl``, but where ``text`` ends in a lone CR
    (a file of mixed line endings), a CR: an LF there would only finish the CR's line."""
    return "\r" if nl == "\n" and text.endswith("\r") else nl


def _ends_line(text: str) -> bool:
    return not text or text.endswith(("\n", "\r"))


def _ends_blank_line(text: str) -> bool:
    """Is the last line of ``text`` (which ends a line) blank?"""
    lines = split_lines(text)
    return not lines or not lines[-1].strip(" \t\r\n")
