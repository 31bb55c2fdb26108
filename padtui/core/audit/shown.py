"""How a finding names the entries it is about and shows their text: an entry by its kind
and label, the old entry then where it went, a long entry by the claims that changed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from padtui.core.audit.wording import cut
from padtui.core.model import CAUTION_KINDS, Entry
from padtui.core.rules.claims import split_claims
from padtui.core.rules.finder import Rule
from padtui.core.vocabulary import Reason


def what(e: Entry) -> str:
    return f"{e.kind.replace('_', ' ')} {e.label}"


def rule_what(e: Entry, kinds: Sequence[str], rules: Iterable[Rule]) -> str:
    """``constraint c-retry``, or for a rule found by place or wording elsewhere, its entry,
    the kind of rule and where: ``#3 (prohibition, under 'Boundaries')``."""
    if e.kind in CAUTION_KINDS or not kinds:
        return what(e)
    kind = kinds[0] if len(set(kinds)) == 1 else "rules"
    heading = next((r.heading for r in rules if r.heading), None)
    where = f", under {cut(heading, 30)!r}" if heading else ""
    return f"{e.label} ({kind.replace('_', ' ')}{where})"


def labels(o: Entry, into: Sequence[Entry]) -> tuple[str, ...]:
    """The old entry, then where it went (itself, under the same label, not twice)."""
    return (o.label, *dict.fromkeys(e.label for e in into if e.label != o.label))


def part(text: str, claims: Sequence[str]) -> str:
    """An entry's text when short; else the claims that changed (not the head of a long
    entry)."""
    if len(text) <= 400 or not claims:
        return text if len(text) <= 400 else cut(text, 400)
    return "\n".join(dict.fromkeys(claims))


def changed_part(before: str, after: str) -> tuple[str, str]:
    """The sentences that differ between two texts (not the head of a long entry)."""
    a, b = split_claims(before), split_claims(after)
    if len(before) <= 400 and len(after) <= 400:
        return before, after
    gone = [c for c in a if c not in set(b)]
    came = [c for c in b if c not in set(a)]
    return ("\n".join(gone) or cut(before, 400), "\n".join(came) or cut(after, 400))


def union(items: Iterable[str]) -> str:
    """The items, each once, in their order, joined by semicolons."""
    seen: list[str] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return "; ".join(seen)


def in_order(reasons: Iterable[Reason]) -> tuple[Reason, ...]:
    """The reasons, each once, in the order of ``Reason``."""
    have = set(reasons)
    return tuple(r for r in Reason if r in have)


def said_reasons(said: str) -> tuple[Reason, ...]:
    """The reasons of a rule rewritten out of its entry (``wording.weakening``'s words)."""
    found = [Reason.GONE]
    if "prohibition" in said or "negation" in said:
        found.append(Reason.POLARITY)
    if "number" in said:
        found.append(Reason.NUMBER)
    if "name" in said:
        found.append(Reason.NAME)
    return in_order(found)
