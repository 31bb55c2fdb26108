"""Letta agent files beside the rest of padtui: each block's size in Letta's unit and in
tokens, and the way out of a refusal in Letta's words. (Reading an agent file is a format:
``padtui/core/formats/letta.py``.)"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from padtui.core.formats import format_for_name
from padtui.core.formats.known import LETTA
from padtui.core.model import Pad

if TYPE_CHECKING:
    from padtui.core.compaction.plan import Plan


@dataclass(frozen=True, kw_only=True)
class BlockLimit:
    """A block's size in Letta's unit (characters, against its ``limit``) and in tokens."""

    id: str
    label: str
    kind: str
    sealed: bool
    chars: int
    limit: int | None
    tokens: int

    @property
    def over(self) -> bool:
        return self.limit is not None and self.chars > self.limit

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "over_limit": self.over}


def limits(pad: Pad, costs: Mapping[int, int]) -> list[BlockLimit]:
    """Each block of a pad read from an agent file: characters / limit, and tokens."""
    out = []
    for e in pad.entries:
        limit = e.raw.get("limit")
        out.append(
            BlockLimit(
                id=e.label,
                label=str(e.raw.get("label", e.label)),
                kind=e.kind,
                sealed=e.sealed,
                chars=len(e.text),
                limit=limit if type(limit) is int else None,
                tokens=costs[e.index],
            )
        )
    return out


def is_agent_file(path: str, fmt: str | None = None) -> bool:
    """Is ``path`` read as a Letta agent file (its name, unless ``fmt`` says another format)?"""
    return (fmt or format_for_name(path)) == LETTA.name


def way_out(plan: Plan, path: str) -> str | None:
    """The way out of a refusal for a pad read from an agent file (which padtui cannot
    externalize into: the blocks to seal are marked read-only in Letta)."""
    if plan.code in ("PROTECTED_KIND_WOULD_DROP", "RULE_WOULD_DROP", "NO_LOSS_RECORD"):
        chosen = plan.to_seal or [e for e in plan.dropped if e.protected]
        names = " ".join(e.label for e in chosen)
        return f"in Letta, make these blocks read_only (padtui does not write .af files): {names}"
    return plan.way_out_for(path)
