"""The inspector's trial beyond its drops: the rules at risk (marked in the panes, counted on
the line under the gauge, listed with u, named in the commit confirmation), a pass that drops
far more than it had to, and a refusal whose way out can be taken from the dialog."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Static

from padtui.core.live import at_risk as at_risk_module
from padtui.tui import inspector as inspector_module
from padtui.tui.screens import CommitScreen, RefusalScreen, RulesScreen
from tests.tui.conftest import WAIT, Harness, copy_sample, inspector, plain

RETRY = "retry-5xx-under-pressure.json"  # refused: the pass would drop constraint c-retry


def screen_is(h: Harness, kind: type) -> bool:
    return isinstance(h.app.screen, kind)


def memory(tmp_path: Path, budget: int = 180) -> Path:
    """A pad as agents keep memory: rules under a preferences heading and in a note (at
    170 the seed policy, which appends no loss record, drops the long note too)."""
    folder = tmp_path / "pads"
    folder.mkdir(exist_ok=True)
    path = folder / "memory.json"
    entries = [
        {"kind": "user_preferences", "text": "Always answer in French.", "id": "pref-fr"},
        {"kind": "note", "text": "Short status: the export is half done.", "id": "n-status"},
        {"kind": "note", "text": "Never deploy on Fridays. " + "Background. " * 80, "id": "n-log"},
        {"kind": "note", "text": "Next: check the totals.", "id": "n-next"},
    ]
    # a few tokens over budget: first fit drops the long note whole
    path.write_text(json.dumps({"budget_tokens": budget, "entries": entries}), encoding="utf-8")
    return path


def standing(h: Harness) -> str:
    widget = h.view.query_one("#standing", Static)
    return plain(widget.content) if widget.display else ""


async def test_the_trial_marks_and_counts_the_rules_at_risk(tmp_path: Path) -> None:
    pad = memory(tmp_path, 170)
    async with inspector(pad, watch=False) as h:
        # a rule in the rewritable pane is marked protected (strict keeps it), trial or not
        assert "⚑ 1 rule · protected" in h.row("rewritable", "pref-fr").split("\n")[0]
        assert "⚑" not in h.row("rewritable", "n-status")
        await h.pilot.press("t")
        trial = h.app.inspection.trial
        assert trial is not None and [e.label for e in trial.dropped] == ["n-log"]
        assert trial.code == "RULE_WOULD_DROP"
        # the line under the gauge: the rules strict keeps, and what this pass would drop
        assert "1 would drop  (2 unsealed rules strict keeps · x seals one · u lists them)" in (
            standing(h)
        )
        assert "rules at risk" not in h.status  # (said once, there)
        # the first line of each row: a rule kept, or one the refused pass would drop
        assert "⚑ 1 rule · protected" in h.row("rewritable", "pref-fr").split("\n")[0]
        assert "⚑ 1 rule would drop: refused" in h.row("rewritable", "n-log").split("\n")[0]
        assert "⚑" not in h.row("rewritable", "n-status")
        # under the seed policy the pass goes through: the rule is dropped ...
        await h.pilot.press("s")
        assert "⚑ 1 rule dropped" in h.row("rewritable", "n-log").split("\n")[0]
        # ... and stepped back to before the drop, it is at risk, not dropped
        await h.pilot.press("p")
        assert "⚑ 1 rule at risk" in h.row("rewritable", "n-log").split("\n")[0]
        assert "dropped by this pass" not in standing(h)
        await h.pilot.press("escape")
        assert "⚑" not in h.status


async def test_u_lists_every_rule_at_risk_the_dropped_ones_first(tmp_path: Path) -> None:
    pad = memory(tmp_path)
    async with inspector(pad, watch=False) as h:
        await h.pilot.press("u")  # no trial open: u trials first
        assert screen_is(h, RulesScreen)
        assert h.app.inspection.trial is not None
        head = h.dialog_text()
        assert "Rules at risk (2)" in head and "this one drops 1 (✗)" in head
        listed = h.app.screen.query_one("#rules")
        lines = [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]
        assert lines == [
            "✗ n-log  prohibition   Never deploy on Fridays.",
            "  pref-fr  obligation    user preferences: Always answer in French.",
        ]
        await h.pilot.press("escape")
        assert not screen_is(h, RulesScreen)


async def test_the_commit_confirmation_names_the_rules_it_drops(tmp_path: Path) -> None:
    pad = memory(tmp_path, 170)
    async with inspector(pad, watch=False) as h:
        await h.pilot.press("s", "t", "c")  # (the seed policy: strict never drops a rule)
        assert screen_is(h, CommitScreen)
        dialog = h.dialog_text()
        assert "drops 1 of 2 rules at risk" in dialog
        assert "Rules this commit drops (1):" in dialog
        assert "✗ n-log  prohibition   Never deploy on Fridays." in dialog
        await h.pilot.press("n")


async def test_a_large_pad_finds_its_rules_in_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inspector_module, "RULES_AT_ONCE", 0)  # every pad is "large"
    pad = memory(tmp_path)
    async with inspector(pad, watch=False) as h:
        await h.pilot.press("t")
        await h.until(lambda: "2 unsealed rules" in standing(h), "the rules found in a thread")
        assert "⚑ 1 rule would drop" in h.row("rewritable", "n-log").split("\n")[0]


async def test_the_first_versions_rules_are_sought_once_it_is_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (not while its tokens are counted, where the search put off its first draw, and once
    # only: the draw does not start a search of its own); a version after it is sought for
    # as ever
    monkeypatch.setattr(inspector_module, "RULES_AT_ONCE", 0)  # every pad is "large"
    sought: list[int] = []
    search = inspector_module.InspectorScreen.find_unsealed_rules

    def counted(self: inspector_module.InspectorScreen, *args: object) -> object:
        sought.append(len(self.inspection.versions))  # (how many were taken in by then)
        return search(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(inspector_module.InspectorScreen, "find_unsealed_rules", counted)
    pad = memory(tmp_path)
    async with inspector(pad) as h:
        await h.until(lambda: "2 unsealed rules" in standing(h), "the first version's rules")
        assert sought == [1]
        doc = json.loads(pad.read_text(encoding="utf-8"))
        doc["entries"][3]["text"] = "Never skip the totals check."
        pad.write_text(json.dumps(doc), encoding="utf-8")
        await h.until(lambda: "3 unsealed rules" in standing(h), "the second version's rules")
        assert sought == [1, 2]


async def test_a_search_for_a_version_gone_by_does_not_undo_the_current_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the first version's search ends only after a second version's rules are on screen:
    # its late result must not take the current version's place (the line then said it
    # was still looking, and no search was left to end it)
    monkeypatch.setattr(inspector_module, "RULES_AT_ONCE", 0)  # every pad is "large"
    gate, first_done = threading.Event(), threading.Event()
    calls: list[int] = []
    real_of = at_risk_module.AtRisk.of

    def of(self: at_risk_module.AtRisk, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(calls))
        if len(calls) > 1:
            return real_of(self, *args, **kwargs)
        gate.wait(WAIT)
        try:
            return real_of(self, *args, **kwargs)
        finally:
            first_done.set()

    monkeypatch.setattr(at_risk_module.AtRisk, "of", of)
    pad = memory(tmp_path)
    async with inspector(pad) as h:
        doc = json.loads(pad.read_text(encoding="utf-8"))
        doc["entries"][3]["text"] = "Never skip the totals check."
        pad.write_text(json.dumps(doc), encoding="utf-8")
        await h.until(lambda: "3 unsealed rules" in standing(h), "the second version's rules")
        gate.set()
        await h.until(first_done.is_set, "the first version's search ended")
        await h.pilot.pause()  # (its result handed to the screen)
        await h.pilot.press("t")
        await h.until(lambda: "3 unsealed rules" in standing(h), "the current rules kept")


async def test_the_status_says_when_the_pass_drops_far_more_than_the_overrun(
    tmp_path: Path,
) -> None:
    pad = memory(tmp_path, 170)
    async with inspector(pad, watch=False) as h:
        await h.pilot.press("s", "t")  # (the seed policy: strict refuses to drop the rule)
        trial = h.app.inspection.trial
        assert trial is not None and trial.over_dropping
        over = next(line for line in h.status.splitlines() if line.startswith("over-dropping"))
        assert f"drops {trial.tokens_dropped} tokens to free {trial.tokens_needed}" in over
        assert "the largest, n-log, is" in over


async def test_the_way_out_names_the_inspectors_own_keys(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, RETRY, "my pad.json")
    async with inspector(pad, watch=False) as h:
        await h.pilot.press("t")
        # one short line: how many would drop, and the key that seals them
        assert "refused: 1 protected entry would drop · x seals them" in h.status
        trial = h.app.inspection.trial
        assert trial is not None and "c-retry" in [e.label for e in trial.to_seal]
        # (c-retry, and the rules a pass would drop once it is sealed: named, or past three
        # counted)
        labels = [e.label for e in trial.to_seal]
        named = ", ".join(labels) if len(labels) <= 3 else f"{len(labels)} entries"
        await h.pilot.press("c")
        assert screen_is(h, RefusalScreen)
        dialog = h.dialog_text()
        assert f"Way out: externalize them into the sealed region first: x seals {named}" in (
            dialog
        )
        assert "padtui" not in dialog and "padtui" not in h.status  # no shell command
        buttons = [str(b.label) for b in h.app.screen.query(Button)]
        assert buttons == [f"Seal {named} (x)", "Close (esc)"]  # no budget to try
        await h.pilot.press("escape")
