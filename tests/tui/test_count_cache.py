"""The inspector and the fleet count with each pad's count cache: a pad reopened is counted
from it (the encoder not even loaded), what was learnt is written back as the app ends, and
``--no-cache`` counts afresh, for ``padtui PATH`` and ``padtui DIR`` alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from padtui.cli import main, screens
from padtui.core.counting.countcache import CountCache
from padtui.core.counting.tokens import counter_for
from padtui.tui.app import PadApp
from padtui.tui.fleet import FleetApp
from tests.tui.conftest import copy_sample, inspector
from tests.tui.test_fleet import fleet

HEALTHY = "healthy.json"


async def test_a_pad_reopened_is_counted_from_its_count_cache(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, HEALTHY)
    async with inspector(pad) as h:
        first = h.app.inspection.counter
        assert first.store is not None and first.store.path is not None
        tokens = h.app.inspection.current.tokens
    assert CountCache(first.store.path, "cl100k_base").warm  # (written as the app ended)
    async with inspector(pad) as h:
        insp = h.app.inspection
        assert insp.current.tokens == tokens
        assert insp.counter is not first and not insp.counter.loaded  # nothing tokenized
        await h.pilot.press("t")  # a trial of it too: every count is in the cache
        assert insp.trial is not None and not insp.counter.loaded


async def test_without_the_cache_the_inspector_counts_with_the_process_counter(
    tmp_path: Path,
) -> None:
    pad = copy_sample(tmp_path, HEALTHY)
    async with inspector(pad, count_cache=False) as h:
        assert h.app.inspection.counters is None
        assert h.app.inspection.counter is counter_for("cl100k_base")


async def test_the_fleet_writes_each_pads_counts_back_as_it_ends(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, HEALTHY)
    async with fleet(pad.parent) as f:
        counter = f.app.pads[pad.name].inspection.counter
        assert counter.store is not None and counter.store.path is not None
        assert not CountCache(counter.store.path, "cl100k_base").warm  # (not yet)
    assert CountCache(counter.store.path, "cl100k_base").warm


def test_no_cache_reaches_the_inspector_and_the_fleet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[PadApp | FleetApp] = []

    def fake_run(self: PadApp | FleetApp, *args: Any, **kwargs: Any) -> None:
        ran.append(self)

    monkeypatch.setattr(PadApp, "run", fake_run)
    monkeypatch.setattr(FleetApp, "run", fake_run)
    monkeypatch.setattr(screens, "_terminal", lambda: True)
    pad = copy_sample(tmp_path, HEALTHY)
    for args in ([str(pad)], [str(pad), "--no-cache"], [str(pad.parent), "--no-cache"]):
        assert main(args) == 0
    single, uncached, folder = ran
    assert isinstance(single, PadApp) and single.inspection.counters is not None
    assert isinstance(uncached, PadApp) and uncached.inspection.counters is None
    assert isinstance(folder, FleetApp) and folder.inspection_for(str(pad)).counters is None
