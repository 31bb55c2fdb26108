"""Damaged or crafted pads: reading one either succeeds or says, in one PadError, what is
wrong and where; no other exception, whatever an agent wrote."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from padtui.core.errors import PadError
from padtui.core.formats import MAX_BUDGET, PadFile, parse

SAMPLES = Path(__file__).resolve().parents[2] / "sample_pads"
SEEDS = {
    "json": (SAMPLES / "healthy.json").read_bytes(),
    "jsonl": (SAMPLES / "compactable-notes.jsonl").read_bytes(),
    "md": (SAMPLES / "markdown-notes.md").read_bytes(),
    "af": (SAMPLES / "letta-support-agent.af").read_bytes(),
}
DEEP = 100_000
# what an agent (or a damaged disk) may put anywhere in a pad
POISON = [
    b"1e999",
    b"-1e999",
    b"NaN",
    b"Infinity",
    b"9" * 5000,
    b"-" + b"9" * 40,
    b"[" * DEEP,
    b"{" * 10 + b'"a":' * 3,
    b"\xff\xfe",
    b"\xc3",
    b"\0",
    b'"\\ud800"',
    b"\r",
    b"---\nbudget_tokens: " + b"9" * 5000 + b"\n---\n",
    b"---\nbudget_tokens: 0" + b"9" * 20 + b"\n---\n",
    b"\nbudget_tokens: 1e999\n",
    b"\nrule_headings: [" + b"[" * 200,
    b"\n## " + b"(" * 1000 + b"\n",
    b"\n- " + b"> " * 2000 + b"\n",
    b"\n```\n",
    b"\n<!--\n",
    b'{"label":"x","value":"y","limit":' + b"9" * 400 + b"}",
    b'{"kind":"note","text":"x","sealed":1e999}',
    b'"budget_tokens":-1,',
    b'"budget_tokens":' + b"9" * 20 + b",",
]


def read_or_pad_error(fmt: str, data: bytes, previous: PadFile | None = None) -> None:
    try:
        parse(f"pad.{fmt}", data, fmt, previous)
    except PadError as exc:
        assert "\n" not in exc.line()


@st.composite
def damaged(draw: st.DrawFn, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.just(0) | st.integers(0, len(data)))  # the start: front matter
        how = draw(st.sampled_from(["insert", "replace", "flip", "cut"]))
        if how == "insert":
            data[at:at] = draw(st.sampled_from(POISON) | st.binary(max_size=8))
        elif how == "replace":
            data[at : at + draw(st.integers(1, 40))] = draw(st.sampled_from(POISON))
        elif how == "flip" and at < len(data):
            data[at] ^= 1 << draw(st.integers(0, 7))
        else:
            del data[at:]
    return bytes(data)


@pytest.mark.parametrize("fmt", sorted(SEEDS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_damaged_pad_reads_or_gives_a_pad_error(fmt: str, data: st.DataObject) -> None:
    read_or_pad_error(fmt, data.draw(damaged(SEEDS[fmt])))


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_a_damaged_json_pad_read_against_its_previous_version(data: st.DataObject) -> None:
    previous = parse("pad.json", SEEDS["json"], "json")
    read_or_pad_error("json", data.draw(damaged(SEEDS["json"])), previous)


@pytest.mark.parametrize("fmt", sorted(SEEDS))
@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=200))
def test_any_bytes_read_or_give_a_pad_error(fmt: str, data: bytes) -> None:
    read_or_pad_error(fmt, data)


@pytest.mark.parametrize(
    ("fmt", "data", "says"),
    [
        (
            "md",
            b"---\nbudget_tokens: " + b"9" * 5000 + b"\n---\n## Notes\n- a\n",
            "line 2: budget_tokens in the front matter must be a whole number",
        ),
        ("md", b"---\nbudget_tokens: 1000000000001\n---\n- a\n", "at most 1000000000000"),
        ("json", b'{"budget_tokens": ' + b"9" * 4000 + b', "entries": []}', "more than 40 digits"),
        ("json", b'{"budget_tokens": 1e999, "entries": []}', "got inf"),
        ("json", b'{"entries": [' + b"[" * DEEP + b"]" * DEEP + b"]}", "nested too deeply"),
        ("jsonl", b"9" * 5000 + b"\n", "line 1: invalid JSON"),
        ("af", b'{"blocks":[{"label":"x","value":"y","limit":-1e999}]}', "block 0"),
    ],
)
def test_crafted_numbers_and_nesting_are_named(fmt: str, data: bytes, says: str) -> None:
    with pytest.raises(PadError) as caught:
        parse(f"pad.{fmt}", data, fmt)
    assert says in caught.value.line()
    assert len(caught.value.line()) < 200


def test_the_largest_budget_is_read() -> None:
    pad = parse("pad.md", f"---\nbudget_tokens: {MAX_BUDGET}\n---\n- a\n".encode(), "md").pad
    assert pad.budget_tokens == MAX_BUDGET
