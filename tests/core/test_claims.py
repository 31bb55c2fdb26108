"""Claims (the README's "The pad file"): a sentence or a bullet line of an entry's text, split on
line breaks and on ``.``, ``!``, ``?``, ``;`` followed by white space."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from padtui.core.compaction.plan import plan
from padtui.core.counting.tokens import counter_for
from padtui.core.model import Pad, make_entry
from padtui.core.rules.claims import count_claims, pad_claims, split_claims


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("Do not retry writes after a 5xx", ["Do not retry writes after a 5xx"]),
        (
            "Do not retry. The write may have landed.",
            ["Do not retry.", "The write may have landed."],
        ),
        ("Stop! Why? Because; that is all", ["Stop!", "Why?", "Because;", "that is all"]),
        ("one\ntwo\r\nthree\rfour", ["one", "two", "three", "four"]),
        (
            "- first bullet\n- second bullet\n\n* third",
            ["- first bullet", "- second bullet", "* third"],
        ),
        ("1. fetch\n2. parse", ["1. fetch", "2. parse"]),  # a numbered bullet is one claim
        ("3. Retry at most 3 times. Then stop", ["3. Retry at most 3 times.", "Then stop"]),
        ("  12. indented item", ["12. indented item"]),
        ("Done. 42. Next", ["Done.", "42.", "Next"]),  # mid-line, a number is a sentence
        ("a.\tb", ["a.", "b"]),  # any white space after the mark
        ("version 3.14 is out", ["version 3.14 is out"]),  # no white space: no split
        ("a;b!c?d.e", ["a;b!c?d.e"]),
        ("trailing.   ", ["trailing."]),
    ],
)
def test_split_claims(text: str, claims: list[str]) -> None:
    assert split_claims(text) == claims
    assert count_claims(text) == len(claims)


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "-", "- \n* ", "...", "?! ;", "1.", "2. \n"])
def test_text_without_a_word_holds_no_claim(text: str) -> None:
    assert count_claims(text) == 0


SEPARATORS = [". ", "! ", "? ", "; ", ".\n", "\n", "\r\n", ".  ", ";\t"]
JOINERS = [" ", ", ", "-", ".", ":"]


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(
        st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,7}", fullmatch=True), min_size=1, max_size=10
    ),
    data=st.data(),
)
def test_count_is_one_more_than_the_breaks(words: list[str], data: st.DataObject) -> None:
    """Words joined by spaces and commas stay one claim; each break makes one more."""
    text = words[0]
    breaks = 0
    for word in words[1:]:
        sep = data.draw(st.sampled_from([*SEPARATORS, *JOINERS]))
        breaks += sep in SEPARATORS
        text += sep + word
    assert count_claims(text) == breaks + 1


def test_pad_claims_counts_every_entry_loss_records_included() -> None:
    entries = [
        make_entry("constraint", "Never call billing. Do not retry.", sealed=True),
        make_entry("loss_record", "dropped two notes", sealed=True),
        make_entry("note", "- a\n- b\n- c"),
    ]
    assert pad_claims(entries) == 2 + 1 + 3


def test_plan_reports_claims_before_and_after_the_pass() -> None:
    counter = counter_for("cl100k_base")
    keep = make_entry("constraint", "Never call billing. Do not retry.", sealed=True, id="c1")
    bulky = make_entry("plan", "\n".join(f"- step {i} of the long plan" for i in range(40)))
    pad = Pad.of([keep, bulky, make_entry("note", "short note")])
    now = datetime(2026, 11, 14, tzinfo=UTC)
    got = plan(pad, 200, "strict", counter, now=now)
    assert got.verdict == "compactable"
    assert got.loss_record is not None
    assert got.claims_before == 2 + 40 + 1
    assert got.claims_after == 2 + 1 + count_claims(got.loss_record.text)
    assert got.as_json()["claims"] == {"before": got.claims_before, "after": got.claims_after}
    # a refused pass changes nothing, claims included
    refused = plan(pad, 3, "strict", counter)
    assert refused.refused
    assert refused.claims_after == refused.claims_before


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=list("12a_é٣.!?;:-#* \t\r\n\x0b\x0c\x85\u00a0\u2028"), max_size=40))
def test_fast_count_agrees_with_the_claims(text: str) -> None:
    """``count_claims`` counts without splitting; it must agree with ``split_claims``."""
    count_claims.cache_clear()
    assert count_claims(text) == len(split_claims(text))


@pytest.mark.parametrize(
    "text",
    [". " + " " * 200_000 + ".", "; " * 100_000, "-" * 100_000 + ". " + "-" * 100_000],
)
def test_counting_claims_never_backtracks(text: str) -> None:
    assert count_claims(text) == len(split_claims(text))
