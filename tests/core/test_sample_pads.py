"""The sample pads say what they mean: a loss record's head (``dropped N entries, T tokens``)
agrees with the entries it then names, one by one, and with its ``drops`` field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from padtui.core.formats import format_for_name, load_pad

SAMPLES = Path(__file__).resolve().parents[2] / "sample_pads"
PADS = sorted(p for p in SAMPLES.rglob("*") if p.is_file() and format_for_name(p.name) is not None)
HEAD = re.compile(r"dropped (\d+) (?:entry|entries), (\d+) tokens: (.*)\Z", re.S)
# the "each" form of a record: every entry by its name, its kind and its tokens
EACH = re.compile(r"(\S+) \((\w+), (\d+) tokens(?:, .*)?\)\Z", re.S)


def records(path: Path) -> list[tuple[str, str, list[str] | None]]:
    """Each loss record of the pad: its id, text and ``drops`` field."""
    pad = load_pad(str(path))
    return [(e.label, e.text, e.raw.get("drops")) for e in pad.entries if e.kind == "loss_record"]


def test_the_samples_hold_loss_records_to_check() -> None:
    assert sum(len(records(p)) for p in PADS) >= 10


@pytest.mark.parametrize("path", PADS, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_each_loss_record_adds_up(path: Path) -> None:
    for label, text, drops in records(path):
        head = HEAD.search(text)
        assert head is not None, f"{label}: no 'dropped N entries, T tokens:' in {text!r}"
        count, tokens, rest = int(head[1]), int(head[2]), head[3]
        parts = [EACH.match(part) for part in rest.split("; ")]
        assert all(parts), f"{label}: an entry named other than 'id (kind, N tokens)': {rest!r}"
        named = [m[1] for m in parts if m]
        assert count == len(named), f"{label}: says {count} entries, names {len(named)}"
        listed = sum(int(m[3]) for m in parts if m)
        assert tokens == listed, f"{label}: says {tokens} tokens, its entries sum to {listed}"
        if drops is not None:
            assert drops == named, f"{label}: drops {drops} but the text names {named}"
