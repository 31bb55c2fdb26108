"""Letta agent files (``.af``): an agent's core memory blocks, opened read-only as a pad.

A Letta agent file is JSON, in one of the shapes Letta has exported:

* an object with top-level ``blocks`` (each ``label``, ``value``, ``limit``, ``read_only``,
  ``description``, ``id``, ...) that the ``agents`` reference by ``block_ids``;
* the same object encoded twice: the whole file is a JSON *string* whose content is the
  JSON document (an older export style);
* older still, agents that carry their blocks inline as ``core_memory`` (in ``agents``, or
  a single agent object at the top).

Each block is one entry, in file order: its ``value`` is the text; its ``label`` names the
kind (a label naming constraints, rules, policies or guardrails is a ``constraint``, one
naming a known kind is that kind, any other a ``note``) and is the entry's context (where a
rule lives); ``read_only: true`` seals it. Every field of the block is kept in the entry's
``raw``.

A block's identity (its entry's id) is what names the same block in the next export: never
the export's own ``id`` (``block-N``, renumbered on every export), nor its position. It is

* the block's ``label``, where no other block of the file has that label;
* among blocks that share a label, ``label@TAG``: TAG is the block's ``description`` in
  short, its first four words lower-cased and joined by ``-`` (``persona@the-persona-of-the``),
  with six hex digits of the description's SHA-256 added where two different descriptions
  begin alike; and where several of them also share the description, its order among those
  (``-1``, ``-2``, ...): ``persona@1`` and ``persona@2`` for two ``persona`` blocks without
  a description.

Letta budgets a block in characters (``limit``), padtui in tokens: ``padtui.core.agents.letta``
gives both, beside each other. Writing back to ``.af`` is not supported: a Letta agent's memory
lives in its server, and the file is an export of it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from padtui.core.errors import PadError, json_type, shown
from padtui.core.formats import jsonscan, known
from padtui.core.formats.base import BOM, Format, Layout, PadFile
from padtui.core.formats.objects import check_text
from padtui.core.model import Entry, Pad, known_kind, make_entry

NAME = known.LETTA.name
READ_ONLY = (
    "writing back to .af is not supported: padtui opens Letta agent files read-only "
    "(change the agent's memory in Letta)"
)
_RULE_WORDS = frozenset(
    {
        "constraint",
        "constraints",
        "rule",
        "rules",
        "policy",
        "policies",
        "guardrail",
        "guardrails",
    }
)
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def kind_for_label(label: str) -> str:
    """The kind of a block by its label: ``memory_editing_rules`` is a constraint,
    ``negative_facts`` a negative fact, ``persona`` or ``human`` a note."""
    words = [w.lower() for w in _WORDS.findall(label)]
    known = known_kind(" ".join(words))
    if known is not None:
        return known
    if any(w in _RULE_WORDS for w in words):
        return "constraint"
    return "note"


def parse(path: str, text: str) -> Pad:
    """Read a Letta agent file as a pad. Bad input raises a one-line PadError."""
    body = text.removeprefix(BOM)
    doc = jsonscan.loads(path, body)
    encoded = isinstance(doc, str)
    if isinstance(doc, str):
        body = doc
        doc = jsonscan.loads(path, body, what="the encoded document: ")
    if not isinstance(doc, dict):
        raise PadError(
            path,
            'a Letta agent file is a JSON object with "agents" and "blocks" (or a JSON string '
            f"holding one), got {json_type(doc)}",
        )
    blocks, spans = _blocks(path, doc, body)
    entries = []
    for i, block in enumerate(blocks):
        span = spans[i] if spans is not None else None
        where = f"block {i}"
        if span is not None:
            line = body.count("\n", 0, span[0]) + 1
            where += f" (line {line}{' of the encoded document' if encoded else ''})"
        entries.append(_entry(path, block, i, where, _source(text, body, span, encoded)))
    ids = block_ids([e.raw["label"] for e in entries], [_description(e.raw) for e in entries])
    return Pad.of(replace(e, id=name) for e, name in zip(entries, ids, strict=True))


def _description(block: Mapping[str, Any]) -> str:
    description = block.get("description")
    return " ".join(description.split()) if isinstance(description, str) else ""


def block_ids(labels: Sequence[str], descriptions: Sequence[str]) -> list[str]:
    """Each block's identity, from its label and description (see the module's docstring)."""
    count = Counter(labels)
    ids: list[str] = []
    for i, (label, description) in enumerate(zip(labels, descriptions, strict=True)):
        if count[label] == 1:
            ids.append(label)
            continue
        shared = [k for k, other in enumerate(labels) if other == label]
        tag = _tag(description)
        if tag and any(
            _tag(descriptions[k]) == tag and descriptions[k] != description for k in shared
        ):
            digest = hashlib.sha256(description.encode("utf-8")).hexdigest()[:6]
            tag = f"{tag}-{digest}"
        twins = [k for k in shared if descriptions[k] == description]
        if len(twins) > 1 or not tag:
            order = str(twins.index(i) + 1)
            tag = f"{tag}-{order}" if tag else order
        ids.append(f"{label}@{tag}")
    return ids


def _tag(description: str) -> str:
    """A description in short: its first four words, lower-cased, joined by ``-``."""
    words = re.findall(r"[^\W_]+", description.lower())[:4]
    return "-".join(words)[:40].strip("-")


def _blocks(
    path: str, doc: dict[str, Any], body: str
) -> tuple[list[Any], list[tuple[int, int]] | None]:
    """The memory blocks of the file, in file order, and where each one's text is."""
    root = jsonscan.skip(body, 0)
    if doc.get("blocks") is not None:
        blocks = doc["blocks"]
        if not isinstance(blocks, list):
            raise PadError(
                path, f'"blocks" must be an array of memory blocks, got {json_type(blocks)}'
            )
        return blocks, _spans(body, jsonscan.member(body, root, "blocks"), len(blocks))
    if doc.get("core_memory") is not None:  # one agent, exported whole (older style)
        blocks = _core_memory(path, doc, "agent")
        return blocks, _spans(body, jsonscan.member(body, root, "core_memory"), len(blocks))
    agents = doc.get("agents")
    if isinstance(agents, list) and any(
        isinstance(a, dict) and a.get("core_memory") is not None for a in agents
    ):
        blocks = []
        spans: list[tuple[int, int]] | None = []
        agent_spans = _spans(body, jsonscan.member(body, root, "agents"), len(agents))
        for k, agent in enumerate(agents):
            if not isinstance(agent, dict) or agent.get("core_memory") is None:
                continue
            mine = _core_memory(path, agent, f"agent {k}")
            blocks += mine
            found = None
            if agent_spans is not None and spans is not None:
                found = _spans(
                    body, jsonscan.member(body, agent_spans[k][0], "core_memory"), len(mine)
                )
            spans = spans + found if spans is not None and found is not None else None
        return blocks, spans
    raise PadError(
        path,
        'no memory blocks: a Letta agent file has "blocks" (or agents with "core_memory")',
    )


def _core_memory(path: str, agent: dict[str, Any], who: str) -> list[Any]:
    blocks = agent["core_memory"]
    if not isinstance(blocks, list):
        raise PadError(
            path, f'"core_memory" must be an array of memory blocks, got {json_type(blocks)}', who
        )
    return blocks


def _entry(path: str, block: Any, index: int, where: str, source: str | None) -> Entry:
    """A block as an entry (its id is set afterwards: it depends on the other blocks)."""
    if not isinstance(block, dict):
        raise PadError(path, f"a memory block must be an object, got {json_type(block)}", where)
    for name in ("label", "value"):
        if name not in block:
            raise PadError(path, f'missing "{name}"', where)
    label = _str(path, where, block, "label")
    value = _str(path, where, block, "value")
    if not label:
        raise PadError(path, '"label" must not be empty', where)
    for name in ("description", "id"):
        if block.get(name) is not None:
            _str(path, where, block, name)
    limit = block.get("limit")
    if limit is not None and (type(limit) is not int or limit < 0):
        raise PadError(path, f'"limit" must be a whole number >= 0, got {shown(limit)}', where)
    read_only = block.get("read_only")
    if read_only is not None and not isinstance(read_only, bool):
        raise PadError(
            path, f'"read_only" must be true or false, got {json_type(read_only)}', where
        )
    e = make_entry(kind_for_label(label), value, sealed=read_only is True, id=label)
    return replace(e, index=index, raw=block, source=source, context=(label,))


def _str(path: str, where: str, block: dict[str, Any], name: str) -> str:
    value = block[name]
    if not isinstance(value, str):
        raise PadError(path, f'"{name}" must be a string, got {json_type(value)}', where)
    check_text(path, where, name, value)
    return value


# --- where each block's text is (for the journal, which stores unchanged blocks once) ------


def _spans(text: str, start: int | None, count: int) -> list[tuple[int, int]] | None:
    """The (start, end) of each of the ``count`` elements of the JSON array at ``start``."""
    found = jsonscan.array_spans(text, start) if start is not None else None
    return found[0] if found is not None and len(found[0]) == count else None


def _source(text: str, body: str, span: tuple[int, int] | None, encoded: bool) -> str | None:
    """The block's exact text in the file: as it is, or (encoded twice) as it was escaped."""
    if span is None:
        return None
    piece = body[span[0] : span[1]]
    if not encoded:
        return piece
    for ascii_ in (True, False):
        escaped = json.dumps(piece, ensure_ascii=ascii_)[1:-1]
        if escaped in text:
            return escaped
    return None


class LettaFormat(Format):
    name = NAME
    suffixes = known.LETTA.suffixes
    choosable = known.LETTA.choosable
    read_only = READ_ONLY
    token_budget = False
    empty = "empty file: a Letta agent file is a JSON object"
    glue = re.compile(r"[\s,\[\]]*")

    def read(self, path: str, text: str, previous: PadFile | None) -> tuple[Pad, Layout]:
        return parse(path, text), Layout(format=NAME, read_only=READ_ONLY)


FORMAT = LettaFormat()
