"""The rule finder on crafted text: no input costs more than linear time in its length.
Each crafted text is timed at n and at 4n (the best of a few runs each) and the ratio is
bounded, generously (linear is 4; a quadratic pattern gives 16), so a loaded machine does
not fail it while a superlinear regular expression does. n is at least 16 KB, and doubled
until the text takes 10 ms (shorter times are noise)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from padtui.core.audit.rewrite import audit
from padtui.core.counting.tokens import counter_for
from padtui.core.model import Pad, make_entry
from padtui.core.rules.finder import (
    conditions,
    entry_claims,
    entry_rules,
    markers,
    negates,
    numbers,
    said_with,
    strength,
)

KB = 1024
SMALL = 16 * KB  # the least n; doubled (to LARGEST) until a text of n takes FLOOR
LARGEST = 256 * KB
FLOOR = 0.01  # seconds: a shorter time is noise on a loaded machine
RATIO = 10.0  # (linear: 4)

# pieces that the rule finder's patterns look for, each repeated to fill the text: long
# runs with no end of sentence, nested brackets, digits with separators, markers without
# their word, and many alternations' common prefixes
PIECES = {
    "one word": "a",
    "words": "never ",
    "no sentence end": "do not retry the write ",
    "sentences": "Never retry. ",
    "brackets": "(",
    "nested": "((a) ",
    "closed": "(a) ",
    "digits": "1",
    "numbers": "1,000.5 ",
    "separators": "1,",
    "separated dots": "1,...",  # (numbers() was quadratic on it: 2.4 s at 64 KB)
    "dashes": "- ",
    "bold": "**",
    "bold labels": "**Rule:** ",
    "quotes": "\"'",
    "conditions": "if and only if unless ",
    "modals": "must should may ",
    "not": "not no never don't ",
    "heads": "# ",
    "lines": "\n",
    "bullets": "\n- a",
    "colons": "a: ",
    "spaces": " ",
    "cjk": "不要重试。",
    "mixed digits": "1٣",
    "slashes": "a/b/",
    "urls": "http://a.b/",
    "backticks": "`",
    "ellipsis": "...",
    "times": "12:00 UTC ",
}


def _work(text: str) -> None:
    """What the rule finder does with an entry's text, and what an audit asks of it."""
    entry = make_entry("note", text)
    entry_rules(entry)
    entry_rules(make_entry("constraint", text))
    for claim in entry_claims(text)[:50]:
        body = claim.body
        markers(body)
        numbers(body)
        conditions(body)
        negates(body)
        said_with(body)
        strength(body)


def _took(text: str, work: Callable[[str], None] = _work, runs: int = 2) -> float:
    best = float("inf")
    for i in range(runs):
        variant = text + " " * i  # (a text of its own each run: no memo answers)
        started = time.perf_counter()
        work(variant)
        best = min(best, time.perf_counter() - started)
    return best


def _fill(piece: str, size: int) -> str:
    return (piece * (size // len(piece) + 1))[:size]


def _ratio(piece: str, work: Callable[[str], None] = _work) -> float:
    n = SMALL
    small = _took(_fill(piece, n), work)
    while small < FLOOR and n < LARGEST:
        n *= 2
        small = _took(_fill(piece, n), work)
    large = _took(_fill(piece, 4 * n), work)
    return large / max(small, FLOOR)


@pytest.mark.parametrize("piece", list(PIECES.values()), ids=list(PIECES))
def test_crafted_text_costs_linear_time(piece: str) -> None:
    ratio = _ratio(piece)
    if ratio >= RATIO:  # (once more: a moment of load is not the pattern's)
        ratio = min(ratio, _ratio(piece))
    assert ratio < RATIO, f"{piece!r}: 4x the text took {ratio:.1f}x the time"


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(list(PIECES.values())), min_size=1, max_size=4))
def test_mixed_crafted_text_costs_linear_time(pieces: list[str]) -> None:
    piece = "".join(pieces)
    ratio = _ratio(piece)
    if ratio >= RATIO:
        ratio = min(ratio, _ratio(piece))
    assert ratio < RATIO, f"{piece!r}: 4x the text took {ratio:.1f}x the time"


def test_an_audit_of_crafted_text_costs_linear_time() -> None:
    counter = counter_for()

    def audited(text: str) -> None:
        old = Pad(entries=[make_entry("constraint", "Never retry the write.")])
        new = Pad(entries=[make_entry("constraint", text)])
        audit(old, new, counter)

    for piece in ("never ", "(", "1,", "\n- a", "do not retry the write "):
        ratio = _ratio(piece, audited)
        if ratio >= RATIO:
            ratio = min(ratio, _ratio(piece, audited))
        assert ratio < RATIO, f"{piece!r}: 4x the text took {ratio:.1f}x the time in an audit"


STEPS = {
    "claims": entry_claims,
    "markers": markers,
    "numbers": numbers,
    "conditions": conditions,
    "negates": negates,
    "said_with": said_with,
    "strength": strength,
}


@pytest.mark.parametrize("step", list(STEPS), ids=list(STEPS))
def test_each_step_on_crafted_text_costs_linear_time(step: str) -> None:
    """Each step alone: a quadratic one is not hidden behind the linear time of the others
    (numbers() took 2.4 s on 64 KB of "1,...", and the whole under 8 times its 16 KB)."""
    worst = []
    for piece in PIECES.values():
        ratio = _ratio(piece, STEPS[step])
        if ratio >= RATIO:
            ratio = min(ratio, _ratio(piece, STEPS[step]))
        worst.append((ratio, piece))
    ratio, piece = max(worst)
    assert ratio < RATIO, f"{step} on {piece!r}: 4x the text took {ratio:.1f}x the time"
