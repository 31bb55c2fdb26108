"""The inspector on a CLAUDE.md: what is sealed in place shows in the sealed pane, a rule in
the rewritable pane is marked protected, a trial that would drop many rules is refused in one
short line (the panes keep their room), the list is in the refusal dialog and under u, and x
seals the rules where they stand."""

from __future__ import annotations

from pathlib import Path

import pytest

from padtui.tui.screens import RefusalScreen, RulesScreen
from tests.memory_files import CLAUDE_MD
from tests.tui.conftest import inspector

MANY = 200  # rules a trial would drop: a paragraph of ids, once
SEALED = CLAUDE_MD.replace("reviewed in CI.\n", "reviewed in CI. <!-- sealed -->\n").replace(
    "## Lessons\n", "## Lessons (sealed)\n"
)


def many_rules(tmp_path: Path) -> Path:
    """A CLAUDE.md whose long "## Rules" section comes after its notes: a pass at a tight
    budget would drop a couple of hundred rules."""
    rules = "".join(
        f"- Never call the legacy endpoint `/v1/part-{i}` from new code.\n" for i in range(MANY)
    )
    text = CLAUDE_MD.replace("## Rules\n", "## Project rules\n") + "\n## Rules\n\n" + rules
    text = "---\nbudget_tokens: 400\n---\n" + text
    path = tmp_path / "CLAUDE.md"
    path.write_text(text, encoding="utf-8")
    return path


async def test_the_sealed_pane_shows_what_is_sealed_in_place(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(SEALED, encoding="utf-8")
    async with inspector(path, watch=False) as h:
        sealed = h.rows("sealed")
        assert len(sealed) == 3  # the marked rule, and the two lessons under a sealed heading
        assert "Never run `terraform apply`" in sealed[0] and "<!--" not in sealed[0]
        assert any("staging database was wiped" in row for row in sealed)
        # a rule in the rewritable pane is marked protected; a plain note is not
        assert "⚑ 1 rule · protected" in h.row("rewritable", "#3").split("\n")[0]
        status = next(r for r in h.rows("rewritable") if "Working on the CSV" in r)
        assert "⚑" not in status


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_trial_refusing_hundreds_of_rules_says_so_in_one_short_line(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    path = many_rules(tmp_path)
    before = path.read_bytes()
    async with inspector(path, watch=False, size=size) as h:
        await h.pilot.press("t")
        trial = h.app.inspection.trial
        assert trial is not None and trial.code == "RULE_WOULD_DROP"
        lost = sum(r.dropped for r in trial.rules_at_risk)
        assert lost >= MANY - 10
        status = h.status
        assert f"refused: {lost} rules would drop · x seals them" in status
        assert "\n" not in status.strip() and "#" not in status  # no paragraph of ids
        # the panes keep their room: several rows of each are on screen
        for which in ("sealed", "rewritable"):
            assert h.pane(which).size.height >= (5 if size[1] < 30 else 15)
        await h.pilot.press("c")  # the full list lives in the refusal dialog, which scrolls
        assert isinstance(h.app.screen, RefusalScreen)
        dialog = h.dialog_text()
        assert f"Rules this pass would drop ({lost}):" in dialog
        assert "/v1/part-199" in dialog
        await h.pilot.press("escape")
        await h.pilot.press("u")  # ... and under u
        assert isinstance(h.app.screen, RulesScreen)
        await h.pilot.press("escape")
    assert path.read_bytes() == before


async def test_x_seals_the_rules_where_they_stand_and_the_pass_then_goes_through(
    tmp_path: Path,
) -> None:
    path = many_rules(tmp_path)
    text = path.read_text(encoding="utf-8")
    async with inspector(path, watch=False) as h:
        await h.pilot.press("t")
        trial = h.app.inspection.trial
        assert trial is not None and trial.code == "RULE_WOULD_DROP"
        n = len(trial.to_seal)
        await h.pilot.press("x")
        await h.settle()
        await h.until(lambda: h.app.inspection.current.number == 2, "the sealing on screen")
        assert h.noted(f"sealed {n} entries")
        after = path.read_text(encoding="utf-8")
        # every sealed entry stays where it was, under its heading: a marker at its end
        assert after.count(" <!-- sealed -->\n") == n
        assert after.replace(" <!-- sealed -->\n", "\n") == text
        assert len(h.rows("sealed")) == n
        await h.pilot.press("t")
        again = h.app.inspection.trial
        assert again is not None and again.code not in (
            "RULE_WOULD_DROP",
            "PROTECTED_KIND_WOULD_DROP",
        )
        if again.refused:  # the rules alone are over the budget: it says by how much
            assert again.code == "SEALED_OVER_BUDGET" and again.fits_at is not None
            assert f"{again.tokens_sealed} tokens, over the budget of 400" in again.message


async def test_x_on_a_selected_rule_seals_it_in_place(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(CLAUDE_MD, encoding="utf-8")
    async with inspector(path, watch=False) as h:
        pane = h.pane("rewritable")
        pane.focus()
        labels = h.labels("rewritable")
        pane.highlighted = labels.index("#2")  # "Do not edit files under `migrations/`"
        await h.pilot.press("x")
        await h.settle()
        await h.until(lambda: h.app.inspection.current.number == 2, "the sealing on screen")
        assert path.read_text(encoding="utf-8") == CLAUDE_MD.replace(
            "`make migration`.\n", "`make migration`. <!-- sealed -->\n"
        )
        assert "#2" in h.labels("sealed")
