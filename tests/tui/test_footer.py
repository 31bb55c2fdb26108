"""The footer (``keys.KeysFooter``) composes its keys again only when what it shows changes,
and then shows the change."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Footer

from tests.tui.conftest import copy_sample, inspector
from tests.tui.test_fleet import RETRY, fleet


def counted_composes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a footer's keys are taken down and mounted again, from now on."""
    composes: list[int] = []
    recompose = Footer.recompose

    async def counted(footer: Footer) -> None:
        composes.append(1)
        await recompose(footer)

    monkeypatch.setattr(Footer, "recompose", counted)
    return composes


async def test_the_inspector_s_footer_is_composed_once_as_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    composes = counted_composes(monkeypatch)
    async with inspector(copy_sample(tmp_path, RETRY)) as h:
        await h.until(lambda: "Trial" in h.screen_text().splitlines()[-1], "the footer's keys")
        assert len(composes) == 1  # (Textual's footer: once for each bindings change, 7)


async def test_the_footer_follows_the_keys_a_trial_hides_and_shows_again(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, RETRY)
    async with fleet(pad.parent) as f:
        await f.select(RETRY)
        await f.pilot.press("enter")

        def footer() -> str:
            return f.screen_text().splitlines()[-1]

        await f.until(lambda: "Back" in footer(), "escape offered as Back")
        await f.pilot.press("t")
        await f.until(lambda: "Back" not in footer(), "Back hidden while the trial is open")
        assert "Trial" in footer()
        await f.pilot.press("escape")  # (leaves the trial, not the pad)
        await f.until(lambda: "Back" in footer(), "Back offered again")
