"""The rules at risk of a live pad's versions, kept by entry, are the rules a fresh look
finds, whatever the rewrites between them; a version looks again only at its new entries."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from padtui.core.compaction.plan import unsealed_rules
from padtui.core.live.at_risk import AtRisk
from padtui.core.model import Entry, Pad
from padtui.core.rules.finder import RuleMap
from padtui.core.sequences.ends import common_ends

_TEXTS = st.sampled_from(
    [
        "Never retry writes after a 5xx.",
        "Handle write errors.",
        "The ledger lives in the ops account.",
        "Always ask before deleting a branch.",
        "Hana prefers short answers.",
        "Do not push to main on Fridays.",
        "Deploys went fine today.",
    ]
)
_ENTRY = st.builds(
    lambda kind, text, ctx, sealed: Entry(kind, text, context=ctx, sealed=sealed),
    st.sampled_from(["note", "constraint", "plan", "user_preferences"]),
    _TEXTS,
    st.sampled_from([(), ("Rules",), ("Notes",), ("Lessons",)]),
    st.booleans(),
)
# a rewrite: (what, where, the entry it brings)
_EDIT = st.tuples(
    st.sampled_from(["replace", "insert", "delete", "seal"]), st.integers(0, 20), _ENTRY
)


def _rewrite(pad: Pad, edits: list[tuple[str, int, Entry]], words: tuple[str, ...]) -> Pad:
    """The pad rewritten: unchanged entries in place stay the very same objects (as a
    new version read against the one before shares them)."""
    entries = list(pad.entries)
    for what, at, new in edits:
        i = at % (len(entries) + 1)
        if what == "insert" or not entries:
            entries.insert(i, new)
        elif what == "replace":
            entries[i % len(entries)] = new
        elif what == "delete":
            del entries[i % len(entries)]
        else:
            e = entries[i % len(entries)]
            entries[i % len(entries)] = replace(e, sealed=not e.sealed)
    return Pad.of(entries, rule_headings=words)


@given(
    st.lists(_ENTRY, max_size=8),
    st.lists(st.tuples(st.lists(_EDIT, max_size=3), st.sampled_from([(), ("Notes",)])), max_size=6),
)
def test_the_rules_kept_by_entry_are_those_a_fresh_look_finds(
    first: list[Entry], rewrites: list[tuple[list[tuple[str, int, Entry]], tuple[str, ...]]]
) -> None:
    finder = AtRisk()
    pad = Pad.of(first)
    assert finder.of(pad) == unsealed_rules(pad)
    for edits, words in rewrites:
        pad = _rewrite(pad, edits, words)  # (the pad's own words change the rule map)
        assert finder.of(pad, RuleMap.default()) == unsealed_rules(pad, RuleMap.default())


def test_a_new_version_is_looked_at_only_where_it_changed() -> None:
    pad = Pad.of(Entry("note", f"Never touch table {i}.") for i in range(500))
    finder = AtRisk()
    assert finder.at_once(pad, None, 499) is None  # (500 new entries: not at once)
    assert len(finder.of(pad)) == 500
    entries = list(pad.entries)
    entries[7] = Entry("note", "Handle table errors.")
    after = Pad.of(entries)
    rules = finder.at_once(after, None, 1)  # (one new entry)
    assert rules is not None and len(rules) == 499 and rules == unsealed_rules(after)
    # the pad's own words change what makes a rule: every entry is looked at again
    assert finder.at_once(Pad.of(entries, rule_headings=("Notes",)), None, 499) is None


@given(st.lists(st.integers(0, 5), max_size=10), st.lists(st.integers(0, 5), max_size=10))
def test_common_ends_are_the_runs_of_the_very_objects_at_each_end(
    old_keys: list[int], new_keys: list[int]
) -> None:
    pool = [object() for _ in range(6)]  # (equal keys: the very same object)
    old, new = [pool[k] for k in old_keys], [pool[k] for k in new_keys]
    a, t = common_ends(old, new)
    n = min(len(old), len(new))
    want_a = next((i for i in range(n) if old[i] is not new[i]), n)
    want_t = next((i for i in range(n - want_a) if old[-1 - i] is not new[-1 - i]), n - want_a)
    assert (a, t) == (want_a, want_t)
