"""Sealing: the way out of a compaction refused for a protected entry, or a rule, it would
drop.

``externalized`` flips ``sealed`` on for named constraints, negative facts and loss records,
and for any entry holding a rule (``rules.find_rules``: by place or by wording): the
append-only region no compaction drops. A Markdown memory file seals such an entry where it
stands (a ``<!-- sealed -->`` marker at its end: the format's writer). ``externalize``
commits that by the store's safe write. They build on the store, as the compaction's
``commit`` does; the store knows nothing of them.
"""

from __future__ import annotations

from collections.abc import Iterable

from padtui.core.errors import PadError
from padtui.core.formats import check_writable
from padtui.core.model import PROTECTED_KINDS, Entry, Pad
from padtui.core.rules.finder import RuleMap, entry_rules
from padtui.core.storage.store import DEFAULT_LOCK_TIMEOUT, JournalArg, Snapshot, commit
from padtui.core.vocabulary import Origin


def externalized(
    pad: Pad, labels: Iterable[str], path: str, rule_map: RuleMap | None = None
) -> tuple[list[Entry], list[str], list[str]]:
    """The entries with ``sealed`` flipped on for the named unsealed protected entries and
    entries holding a rule (``rule_map``: the headings that hold rules, padtui's own by
    default; the pad's own settings extend it).

    Returns (entries, labels sealed by this, labels that were sealed already). An unknown
    label, or an entry that is neither of a protected kind nor holds a rule, is bad input
    (PadError): what holds no rule is rewritable by nature.
    """
    rules = (rule_map or RuleMap.default()).for_pad(pad)
    chosen: dict[int, Entry] = {}
    already: list[str] = []
    for label in labels:
        found = pad.named(label)
        if not found:
            raise PadError(path, f"no entry {label!r} (name entries by id, or by position #N)")
        if len(found) > 1:
            at = ", ".join(f"#{e.index}" for e in found)
            raise PadError(
                path, f"{len(found)} entries have the id {label!r} ({at}): name one by position"
            )
        e = found[0]
        if e.kind not in PROTECTED_KINDS and not e.sealed and not entry_rules(e, rules):
            raise PadError(
                path,
                f"{label} is a {e.kind} entry that holds no rule; only constraints, negative "
                "facts, loss records and entries holding a rule are sealed",
            )
        if not e.sealed:
            chosen[e.index] = e
        elif e.label not in already:
            already.append(e.label)
    entries = [e.sealed_copy() if e.index in chosen else e for e in pad.entries]
    return entries, [chosen[i].label for i in sorted(chosen)], already


def externalize(
    snapshot: Snapshot,
    labels: Iterable[str],
    *,
    journal: JournalArg = True,
    lock_timeout: float | None = DEFAULT_LOCK_TIMEOUT,
    rule_map: RuleMap | None = None,
) -> Snapshot:
    """Seal unsealed constraints / negative facts / loss records and entries holding a
    rule, by a safe commit; nothing else changes (see :func:`externalized` for what is bad
    input)."""
    check_writable(snapshot.path, snapshot.format, snapshot.file.layout, seals=True)
    entries, _sealed, _already = externalized(snapshot.pad, labels, snapshot.path, rule_map)
    return commit(
        snapshot, entries, journal=journal, lock_timeout=lock_timeout, origin=Origin.EXTERNALIZE
    )
