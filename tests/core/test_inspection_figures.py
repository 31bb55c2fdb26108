"""The figures an inspection gives the screen: the claims at each step of a trial, the budget
ladder of [ and ], and the halt state (the sealed region alone over the budget)."""

from __future__ import annotations

from pathlib import Path

import pytest

from padtui.core.live.inspection import Inspection
from padtui.core.live.watcher import read_once
from padtui.core.rules.claims import pad_claims

SAMPLES = Path(__file__).resolve().parents[2] / "sample_pads"


def inspection(name: str) -> Inspection:
    insp = Inspection(str(SAMPLES / name))
    reading = read_once(insp.path)
    assert reading.snapshot is not None
    insp.observe(reading.snapshot)
    return insp


def test_the_claims_at_step_k_are_those_of_the_pad_after_k_drops() -> None:
    insp = inspection("compactable-notes.jsonl")
    trial = insp.start_trial()
    assert len(trial.dropped) == 3 and trial.loss_record is not None
    entries = insp.current.pad_file.pad.entries
    seen = []
    while insp.step_back():
        pass
    for k in range(len(trial.dropped) + 1):
        gone = {e.index for e in trial.dropped[:k]}
        shown = [e for e in entries if e.index not in gone]
        if k:  # the record is in the preview from the first drop on
            shown.append(trial.loss_record)
        assert insp.preview_claims == pad_claims(shown), f"step {k}"
        seen.append(insp.preview_claims)
        insp.step_forward()
    assert seen[0] == trial.claims_before and seen[-1] == trial.claims_after
    assert len(set(seen[1:])) == len(seen) - 1  # each drop takes its own claims away
    insp.end_trial()
    assert insp.preview_claims == insp.current.claims


@pytest.mark.parametrize(
    "keys",
    ["[]", "][", "[[]]", "]]][[[", "[[[[[[[[[]]]]]]]]]"],
)
def test_the_brackets_come_back_to_the_budget_they_left(keys: str) -> None:
    insp = inspection("retry-5xx-under-pressure.json")
    start = insp.budget
    for key in keys:
        insp.scale_budget(up=key == "]")
        assert insp.budget >= 0
    assert insp.budget == start


def test_a_budget_set_otherwise_starts_a_new_ladder() -> None:
    insp = inspection("retry-5xx-under-pressure.json")
    insp.scale_budget(up=True)
    assert insp.budget == 4400  # 10 % of 4000
    insp.set_budget(1000)  # typed (b), or a way out taken
    insp.scale_budget(up=False)
    assert insp.budget == 900  # 10 % of 1000
    insp.scale_budget(up=True)
    assert insp.budget == 1000


def test_the_ladder_stops_at_zero_and_comes_back() -> None:
    insp = inspection("retry-5xx-under-pressure.json")
    insp.set_budget(200)  # (the sealed region: 141 tokens)
    for _ in range(15):
        insp.scale_budget(up=False)
    assert insp.budget == 0
    insp.set_budget(200)
    for _ in range(3):
        insp.scale_budget(up=False)
    assert insp.budget == 140 and insp.halted
    for _ in range(3):
        insp.scale_budget(up=True)
    assert insp.budget == 200  # ([ then ] came back, through a halt that one step lifted)


def test_up_from_a_halt_steps_past_the_sealed_region() -> None:
    """From 0 (or any budget a 10 % step would leave under the sealed region), ] does not
    step to 1 token: it steps 10 % past the sealed region, and the halt is over."""
    insp = inspection("retry-5xx-under-pressure.json")
    sealed = insp.current.sealed_tokens
    for typed in (0, 10, 100):
        insp.set_budget(typed)
        assert insp.halted
        assert insp.stepped_budget(up=True) is not None
        insp.scale_budget(up=True)
        assert insp.budget == sealed + round(sealed * 0.1) and not insp.halted
        insp.scale_budget(up=False)
        assert insp.budget == sealed  # (the ladder starts at the sealed region)


def test_halted_when_the_sealed_region_alone_is_over_the_budget() -> None:
    insp = inspection("sealed-over-budget.json")
    assert insp.current.sealed_tokens > insp.budget and insp.halted
    insp.set_budget(insp.current.sealed_tokens)  # the sealed region just fits: a pass helps
    assert not insp.halted
    assert not inspection("retry-5xx-under-pressure.json").halted  # over budget, not halted
