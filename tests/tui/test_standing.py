"""What matters stays on screen: the halt (the sealed region alone over the budget) while a
pad is watched, in the inspector and on the fleet's row; the unsealed rules at risk named
under the gauge; the trial's figures at the step shown; the pane on what a new version
changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import Static

from tests.tui.conftest import (
    SAMPLES,
    Harness,
    copy_sample,
    inspector,
    plain,
    write_atomic,
)
from tests.tui.test_fleet import fleet

RETRY = "retry-5xx-under-pressure.json"  # c-retry, an unsealed constraint
NOTES = "compactable-notes.jsonl"  # a trial of three drops and a loss record
SEALED_OVER = "sealed-over-budget.json"


def standing(h: Harness) -> str:
    widget = h.view.query_one("#standing", Static)
    return plain(widget.content) if widget.display else ""


def doc_of(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((SAMPLES / name).read_text("utf-8"))
    return doc


def halting_rewrite() -> tuple[str, str]:
    """Two versions of a pad: within its budget of 700, then a declared compaction whose
    loss record takes the sealed region over it (a compaction, and a halt)."""
    doc = doc_of(SEALED_OVER)
    doc["budget_tokens"] = 700  # (the sealed region: 664 tokens)
    before = json.dumps(doc, indent=2)
    doc["entries"] = [e for e in doc["entries"] if e["id"] != "p-90"]
    doc["entries"].append(
        {
            "kind": "loss_record",
            "id": "loss-20261116T091500Z",
            "sealed": True,
            "op": "compact",
            "text": "compaction at 2026-11-16T09:15:00Z (strict, budget 700) dropped 1 entry, "
            "18 tokens: p-90 (plan, 18 tokens)",
            "drops": ["p-90"],
        }
    )
    return before, json.dumps(doc, indent=2)


# --- the halt ----------------------------------------------------------------------------------


async def test_the_halt_shows_while_watching_and_stays_until_it_is_over(tmp_path: Path) -> None:
    before, after = halting_rewrite()
    pad = tmp_path / "pads" / "pad.json"
    pad.parent.mkdir()
    pad.write_text(before, encoding="utf-8")
    async with inspector(pad) as h:
        assert "HALT" not in standing(h)
        write_atomic(pad, after)  # the agent's compaction takes the sealed region over
        await h.until(lambda: h.app.inspection.current.number == 2, "the agent's version")
        assert h.app.inspection.current.verdict == "compaction"
        text = standing(h)
        assert "HALT" in text and "the sealed region alone (707 tok)" in text
        assert "over the budget (700)" in text and "no compaction can help" in text
        # on screen, not a notice that fades
        await h.until(lambda: "HALT" in h.screen_text(), "the halt on screen")
        await h.pilot.press("t", "escape", "h", "escape")  # a trial and a screen come and go
        assert "HALT" in standing(h)
        await h.pilot.press("right_square_bracket")  # the budget goes up: 770
        assert "HALT" not in standing(h)


async def test_the_fleet_row_says_halt_where_it_said_compaction(tmp_path: Path) -> None:
    before, after = halting_rewrite()
    folder = tmp_path / "pads"
    folder.mkdir()
    pad = folder / "pad.json"
    pad.write_text(before, encoding="utf-8")
    copy_sample(tmp_path, NOTES)
    async with fleet(folder) as f:
        assert f.row("pad.json")["state"].strip() == "● live"
        write_atomic(pad, after)
        await f.until(lambda: "HALT" in f.row("pad.json")["state"], "the halt on the row")
        row = f.row("pad.json")
        assert f.app.pads["pad.json"].worst == "compaction"  # the rewrite was one
        assert row["worst"].strip() == "halt"  # what the row shows: the state it led to
        assert "HALT: sealed over budget" in row["state"]
        assert f.row(NOTES)["worst"].strip() == "initial"  # over its budget, not halted
        assert "halt" in f.screen_text()


# --- the rules at risk -------------------------------------------------------------------------


async def test_the_unsealed_rules_at_risk_are_named_under_the_gauge(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, RETRY)
    async with inspector(pad) as h:
        text = standing(h)
        # (strict keeps them: protected; the unsealed constraint first)
        assert text.startswith("⚑ protected: c-retry, ")
        assert "u lists them" in text and "strict keeps" in text
        assert "⚑ protected: c-retry" in h.screen_text()
        lines = h.screen_text().splitlines()
        gauge = next(i for i, line in enumerate(lines) if "4086/4000 tok" in line)
        assert "protected: c-retry" in lines[gauge + 1]  # just under the gauge
        await h.pilot.press("t")  # in a trial: those the preview drops are marked
        assert "✗ c-retry" in standing(h)
        await h.pilot.press("escape")
        # the agent seals c-retry: it is no longer at risk
        doc = json.loads(pad.read_text("utf-8"))
        for e in doc["entries"]:
            if e.get("id") == "c-retry":
                e["sealed"] = True
        write_atomic(pad, json.dumps(doc, indent=2))
        await h.until(lambda: h.app.inspection.current.number == 2, "the agent's version")
        assert "protected" in standing(h) and "c-retry" not in standing(h)
        await h.pilot.press("s")  # under the seed policy the same rules are at risk
        assert standing(h).startswith("⚠ at risk: ")


async def test_a_large_pad_names_its_rules_at_risk_once_found(tmp_path: Path) -> None:
    notes = [{"kind": "note", "id": f"n{i}", "text": f"row {i} exported"} for i in range(2100)]
    rule = {"kind": "constraint", "id": "c-late", "text": "Never write to the primary."}
    pad = tmp_path / "pads" / "big.json"
    pad.parent.mkdir()
    pad.write_text(json.dumps({"entries": [*notes, rule]}), encoding="utf-8")
    async with inspector(pad, watch=False) as h:
        await h.until(lambda: "c-late" in standing(h), "the rules at risk of a large pad")
        assert standing(h).startswith("⚑ protected: c-late")


# --- the trial's figures -----------------------------------------------------------------------


async def test_the_trial_figures_are_those_of_the_step_shown(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, NOTES)
    async with inspector(pad, watch=False) as h:
        insp = h.app.inspection
        sealed = insp.current.sealed_tokens
        await h.pilot.press("t")
        trial = insp.trial
        assert trial is not None and trial.loss_record is not None
        assert f"claims {trial.claims_before} → {trial.claims_after}" in h.status
        # the sealed pane counts the pending loss record it shows
        subtitle = h.pane("sealed").border_subtitle
        assert subtitle.endswith(f" · {sealed + trial.record_tokens} tok")
        await h.pilot.press("p")  # step 2/3: the claims of the pad after two drops
        assert "step 2/3 drops" in h.status
        assert insp.preview_claims != trial.claims_after
        assert f"claims {trial.claims_before} → {insp.preview_claims}" in h.status
        await h.pilot.press("p", "p")  # step 0: nothing dropped, no record
        assert f"claims {trial.claims_before} → {trial.claims_before}" in h.status
        assert h.pane("sealed").border_subtitle.endswith(f" · {sealed} tok")


# --- the pane on what changed ------------------------------------------------------------------


async def test_a_new_version_brings_the_pane_to_what_changed(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, NOTES)
    lines = pad.read_text("utf-8").splitlines()
    async with inspector(pad) as h:
        pane = h.pane("rewritable")
        assert pane.highlighted == 0 and pane.scroll_y == 0
        # the agent rewrites one note far down the pane (line 60 of the file: #59)
        doc = json.loads(lines[59])
        doc["text"] = "SKU 17535: fixed, the page shows 54.49 now."
        write_atomic(pad, "\n".join([*lines[:59], json.dumps(doc), *lines[60:]]) + "\n")
        await h.until(lambda: h.app.inspection.current.number == 2, "the agent's version")
        await h.pilot.pause()
        row = pane.selected_row
        assert row is not None and row.entry.text == doc["text"]
        assert pane.scroll_y > 0  # scrolled to it
        top, bottom = pane.scroll_y, pane.scroll_y + pane.scrollable_content_region.height
        line = pane._index_to_line[pane.highlighted or 0]
        assert top <= line < bottom  # and it is on screen
        # then it adds a note near the top: the pane goes there
        note = {"kind": "note", "id": "n-new", "text": "The price service was redeployed."}
        now = pad.read_text("utf-8").splitlines()
        write_atomic(pad, "\n".join([*now[:4], json.dumps(note), *now[4:]]) + "\n")
        await h.until(lambda: h.app.inspection.current.number == 3, "the agent's next version")
        await h.pilot.pause()
        assert pane.selected_row is not None and pane.selected_row.entry.label == "n-new"
