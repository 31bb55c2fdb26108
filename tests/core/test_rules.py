"""Rules wherever they live: the rule finder, by place and by wording, and a rule's force."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from padtui.core.audit.wording import weakening
from padtui.core.model import Entry, Pad, make_entry
from padtui.core.rules.finder import (
    MEDIUM,
    STRONG,
    WEAK,
    RuleMap,
    entry_claims,
    entry_rules,
    find_rules,
    negative,
    numbers,
    strength,
    wording_kind,
)


def entry(kind: str, text: str, *context: str) -> Entry:
    return Entry(kind, text, context=tuple(context))


# --- by place ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "heading",
    [
        "User Preferences",
        "Lessons",
        "NEVER EVER DO",
        "🚫 DON'T",
        "Do not",
        "General Guidelines",
        "communication_guidelines",
        "customInstructions",
        "procedures",
        "Guardrails (updated 2026-04-02)",
        "Policies — 2025-11-03",
        "絶対禁止（NEVER）",
        "必須事項",
        "注意事项",
        "Wichtige Regeln",
        "Règles du projet",
        "Reglas",
    ],
)
def test_a_heading_that_names_rules_makes_its_claims_rules(heading: str) -> None:
    e = entry("notes", "Run the linter on the whole tree.", heading)
    (rule,) = entry_rules(e)
    assert rule.place is not None
    # no rule wording of its own: a rule by its place (a heading's wording is lent to it)
    assert rule.kind == (wording_kind(heading) or "instruction")


@pytest.mark.parametrize("heading", ["Notes", "Current Status", "Core Principles", "Context"])
def test_other_headings_hold_no_rules_by_place(heading: str) -> None:
    assert entry_rules(entry("notes", "The ledger lives in the ops account.", heading)) == []


def test_the_outer_heading_of_a_section_counts_too() -> None:
    # "# Lessons" / "## Cursor learned": the lessons heading is one level up
    e = entry("cursor_learned", "Use the v2 search endpoint.", "Lessons", "Cursor learned")
    assert [r.place for r in entry_rules(e)] == ["lesson"]


def test_constraint_and_negative_fact_kinds_are_rules_by_place() -> None:
    for kind in ("constraint", "negative_fact"):
        assert entry_rules(make_entry(kind, "The staging bucket is shared."))


@pytest.mark.parametrize(
    "kind",
    ["constraint", "negative_fact", "note", "plan", "hypothesis", "user_preferences", "rules"],
)
def test_the_quick_test_passes_over_an_entry_only_where_its_place_makes_no_rule(
    kind: str,
) -> None:
    """The finder passes over an entry its quick test says holds no rule: a plain claim,
    under no heading, must be found wherever its kind alone makes it a rule."""
    from padtui.core.rules.finder import RuleMap, may_hold_rules

    e = make_entry(kind, "The staging bucket is shared.")
    rule_map = RuleMap.default()
    assert may_hold_rules(e, rule_map) == bool(entry_rules(e, rule_map))
    assert _found(Pad.of([e])) == _full_rules([e], rule_map)


def test_the_rule_map_is_extended_and_replaced() -> None:
    e = entry("notes", "Deploys happen on Tuesdays.", "Known quirks")
    assert entry_rules(e) == []
    assert entry_rules(e, RuleMap.default().extended(["quirks"]))
    only = RuleMap.default().extended(["house style"], replace=True)
    assert entry_rules(entry("notes", "Tabs, not spaces.", "House Style"), only)
    assert entry_rules(entry("notes", "Tabs over spaces.", "Lessons"), only) == []


def test_a_pad_extends_the_map_with_its_own_words() -> None:
    e = entry("notes", "Deploys happen on Tuesdays.", "Known quirks")
    pad = Pad.of([e], rule_headings=["quirk"])
    assert find_rules(pad)
    assert find_rules(Pad.of([e])) == []


def test_a_question_is_no_rule_even_under_a_rule_heading() -> None:
    e = entry("decisions", "Open question: should reefers be shown? Waiting on Ana.", "Decisions")
    assert entry_rules(e) == []


# --- by wording -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Never force-push to main.", "prohibition"),
        ("Don't run migrations by hand.", "prohibition"),
        ("Avoid the staging database during the freeze.", "prohibition"),
        ("No emojis in commit messages.", "prohibition"),
        ("ALWAYS verify .env is in .gitignore.", "obligation"),
        ("You must sign every release tag.", "obligation"),
        ("IMPORTANT: the deploy key is read-only.", "obligation"),
        ("Retry a write at most 3 times.", "restriction"),
        ("The v1 bulk endpoint was tried and failed.", "negative_fact"),
        ("The bulk endpoint does not work on ARM runners.", "negative_fact"),
        ("Niemals direkt auf main pushen.", "prohibition"),
        ("Ne jamais committer les secrets.", "prohibition"),
        ("Nunca borres datos sin confirmación.", "prohibition"),
        ("パスワードをハードコーディングしない", "prohibition"),
        ("変更前に既存テストが通ることを確認しなければならない", "obligation"),
        ("不要在生产环境直接修改数据", "prohibition"),
        ("必须先运行测试", "obligation"),
        ("The ledger lives in the ops account.", None),
        ("If the build fails, roll back.", None),
    ],
)
def test_wording_makes_a_rule(text: str, kind: str | None) -> None:
    assert wording_kind(text) == kind


def test_rules_by_wording_live_in_any_entry() -> None:
    e = make_entry("note", "Fetched the batch. Do not retry writes after a 5xx.")
    (rule,) = entry_rules(e)
    assert rule.kind == "prohibition"
    assert rule.text == "Do not retry writes after a 5xx."


def test_a_heading_inside_a_section_lends_its_wording() -> None:
    e = entry("general_guidelines", "Add obvious comments", "General Guidelines", "DO NOT")
    (rule,) = entry_rules(e)
    assert (rule.kind, rule.lent) == ("prohibition", "DO NOT")


def test_a_heading_inside_a_block_lends_its_place_and_wording() -> None:
    text = "## Never\n- Invent sources\n\n## Tone\n- Keep it light"
    rules = entry_rules(entry("note", text, "source_management"))
    assert [r.text for r in rules] == ["- Invent sources"]
    assert (rules[0].heading, rules[0].kind, rules[0].lent) == ("Never", "prohibition", "Never")


def test_headings_inside_a_block_are_not_claims() -> None:
    claims = entry_claims("## Core Principles\n- Cite sources.\n**Boundaries:**\n- Be kind.")
    assert [c.body for c in claims] == ["Cite sources.", "Be kind."]
    assert claims[1].headings == ("Core Principles", "Boundaries")


def test_an_abbreviation_does_not_end_a_claim() -> None:
    claims = entry_claims("Never retry writes, e.g. inserts and updates.")
    assert len(claims) == 1


def test_japanese_sentences_are_claims_of_their_own() -> None:
    claims = entry_claims("日時は UTC で保存する。フロントで変換しない。")
    assert len(claims) == 2


# --- force --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("Never deploy on Fridays.", STRONG),
        ("Always use the venv.", STRONG),
        ("Use the venv.", STRONG),  # a bare instruction is an instruction
        ("You should use the venv.", MEDIUM),
        ("Prefer the venv.", MEDIUM),
        ("You can use the venv.", WEAK),
        ("You may want to use the venv.", WEAK),
        ("Test before deploying where possible.", WEAK),
        ("Be careful with force-pushes.", WEAK),
        ("できればテストを書く", WEAK),
    ],
)
def test_strength(text: str, level: int) -> None:
    assert strength(text) == level


def test_negation_in_a_trigger_does_not_make_a_rule_negative() -> None:
    assert not negative("If it isn't in the guide, ask the author.")
    assert negative("Refer back to it without reciting it.")
    assert not negative("Use X, not Y.")  # a contrast, not a prohibition


def test_numbers_are_read_whole_with_their_context() -> None:
    got = dict(numbers("built for Python 3.12; libpython3.12.so; wait 10s; 4,000 rows"))
    assert "python" in got["3.12"]
    assert "libpython3.12.so" in got
    assert "second" in got["10"]  # 10s is ten seconds
    assert "4000" in got
    assert dict(numbers("never pin below 0.5.1.h"))["0.5.1.h"] == {"below"}


# --- the quick test for rule words --------------------------------------------------------

_SAMPLES = [
    "Never force-push",
    "do not retry",
    "ALWAYS verify",
    "must sign",
    "at most 3",
    "no more than two",
    "needs the polyfill",
    "make sure to",
    "before merging",
    "unless asked",
    "avoid the staging db",
    "the endpoint failed",
    "timed out",
    "パスワードをハードコーディングしない",
    "必须先运行测试",
    "niemals pushen",
    "ne jamais committer",
    "n'utilisez pas",
    "nunca borres",
    "Hana doesn't want reminders",
]


@given(
    st.lists(
        st.sampled_from([*_SAMPLES, "the ledger", "lives in", "ops account", "Tuesday", "42"]),
        min_size=1,
        max_size=6,
    )
)
def test_the_quick_test_never_misses_a_rule_word(parts: list[str]) -> None:
    from padtui.core.rules import finder as rules

    text = " ".join(parts)
    if _any_mark().search(text):
        assert rules._may_mark(text), text


@cache
def _any_mark() -> re.Pattern[str]:
    """Every rule word and phrase in one pattern: the reference the quick test is held to."""
    from padtui.core.rules import finder as r

    return re.compile(
        "|".join(
            f"(?:{p.pattern})"
            for p in (
                *(r._PROHIBIT_STRONG, r._PROHIBIT_MEDIUM, r._PROHIBIT_CJK, r._PROHIBIT_CJK_MEDIUM),
                *(r._OBLIGE_STRONG, r._OBLIGE_MEDIUM, r._OBLIGE_CJK, r._OBLIGE_CJK_MEDIUM),
                *(r._RESTRICT, r._NEGATIVE_FACT, r._NEGATIVE_FACT_CJK, r._JA_OBLIGE),
            )
        )
        + r"|^\W*(?:no|keine?|aucun|ningún|ninguna|nada)\b"
        + r"|(?-i:^\s*(?:IMPORTANT|CRITICAL|NOTE|MUST|NEVER|ALWAYS)\b)",
        re.IGNORECASE,
    )


# --- the quick tests say no only where the full finder finds nothing ------------------------

_PIECES = [
    *_SAMPLES,
    *("the ledger", "lives in", "ops account", "Tuesday", "42", "Hana"),
    *("note", "NOTE", "Note", "important", "IMPORTANT", "critical", "before", "after"),
    *("re-running", "merging", "5never", "read-only", "off-limits", "don\u2019t", "mustn't"),
    *("at", "most", "up", "to", "time", "out", "no", "more", "than", "under", "need", "the"),
    *("Rules", "Lessons", "__Rules__", "**Always**", "# Rules", "préférez", "müssen", "Keine"),
    *("prefers", "avoided", "n'utilisez", "rather", "instead of", "es", "確認する", "注意"),
]
_SEPARATORS = [" ", " ", " ", ", ", ". ", "\n", ":\n", ": ", "-", "'", "\u2019", " \u2014 ", "5"]
_TEXTS = st.lists(
    st.tuples(st.sampled_from(_PIECES), st.sampled_from(_SEPARATORS)), min_size=1, max_size=8
).map(lambda parts: "".join(piece + sep for piece, sep in parts))


def _full_rules(entries: list[Entry], rule_map: RuleMap) -> list[tuple[object, ...]]:
    """Every entry's rules, read with no quick test at all (each claim's wording searched by
    every pattern)."""
    from unittest import mock

    from padtui.core.rules import finder as rules

    rules._rules_of.cache_clear()
    try:
        with mock.patch.object(rules, "wording_kind", rules._kind_of):
            found = [r for e in entries for r in entry_rules(e, rule_map)]
    finally:
        rules._rules_of.cache_clear()
    return [(r.entry, r.text, r.kind, r.place, r.heading, r.lent) for r in found]


def _found(pad: Pad) -> list[tuple[object, ...]]:
    return [(r.entry, r.text, r.kind, r.place, r.heading, r.lent) for r in find_rules(pad)]


@given(_TEXTS)
def test_the_quick_test_says_no_only_where_no_pattern_finds_a_rule(text: str) -> None:
    from padtui.core.rules import finder as rules

    if rules._kind_of(text) is not None:
        assert rules._may_mark(text), text
    if text.isascii():  # (the bulk test of an ASCII text stands for the word split)
        assert rules._may_mark_ascii(text) == rules._any_mark_word(text), text


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["note", "plan", "constraint", "loss_record", "user_preferences"]),
            _TEXTS,
            st.sampled_from([(), ("Rules",), ("Notes",), ("NEVER",), ("Notes", "Do not")]),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_the_finder_finds_what_reading_every_entry_finds(
    rows: list[tuple[str, str, tuple[str, ...]]],
) -> None:
    pad = Pad(
        tuple(Entry(kind, text, index=i, context=ctx) for i, (kind, text, ctx) in enumerate(rows))
    )
    assert _found(pad) == _full_rules(list(pad.entries), RuleMap.default())


def _pads() -> list[Path]:
    from padtui.core.formats import format_for_name

    root = Path(__file__).resolve().parents[2]
    found = [*(root / "sample_pads").rglob("*"), *(root / "tests" / "corpus").rglob("*")]
    return sorted(
        p
        for p in found
        if p.is_file() and p.name != "expect.json" and format_for_name(p.name) is not None
    )


def test_the_finder_finds_on_every_sample_what_reading_every_entry_finds() -> None:
    from padtui.core.formats import load_pad

    pads = _pads()
    assert len(pads) > 300  # (the sample pads, and both sides of the labelled rewrites)
    for path in pads:
        pad = load_pad(str(path))
        assert _found(pad) == _full_rules(list(pad.entries), RuleMap.default().for_pad(pad)), path


@pytest.mark.parametrize("text", ["Rules:\nkeep the cache warm", "__Lessons__\nkeep it warm"])
def test_a_heading_line_without_a_mark_still_makes_rules(text: str) -> None:
    # (no rule word, no "#" nor "**": the heading alone makes the line under it a rule)
    (rule,) = find_rules(Pad((Entry("note", text),)))
    assert rule.place in ("rule", "lesson") and rule.kind == "instruction"


def test_a_lower_case_note_is_no_rule_word_and_a_capital_one_is() -> None:
    assert wording_kind("a note on the cache layout") is None
    assert wording_kind("NOTE: the cache is rebuilt nightly") == "obligation"
    assert find_rules(Pad((Entry("plan", "Read the note. NOTE keep the cache warm"),)))


# --- what is not a rule, and what a rewrite may change -----------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I think it must be the retry loop that floods the queue",
        "we suspect the cache must be stale after the deploy",
        "it must have been the nightly job that removed them",
    ],
)
def test_a_must_that_guesses_binds_nobody(text: str) -> None:
    assert wording_kind(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "The handler must be idempotent.",
        "I think you must never push to main",  # (a hedge before a rule word that binds)
        "Migrations must have been reviewed before they are merged.",
    ],
)
def test_a_must_that_binds_stays_a_rule(text: str) -> None:
    assert wording_kind(text) is not None


def test_an_ordinal_is_its_number() -> None:
    assert [n for n, _ in numbers("leave the 3rd migration alone")] == ["3"]
    assert [n for n, _ in numbers("retry at most 21 times")] == ["21"]
    assert [n for n, _ in numbers("use Python 3.12")] == ["3.12"]
    # (and the finding's explanation says the same)
    assert weakening("leave the 3 migration alone", "leave the 3rd migration alone") == []
    assert weakening("leave the 3 migration alone", "leave the 4th migration alone") == [
        "number '3'"
    ]
