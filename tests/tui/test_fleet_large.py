"""A fleet of 5,000 pads: it opens at once, shows rows as they are read, and answers keys
all along (the files are hard links to one small pad: five thousand names cost nothing)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from textual import events
from textual.widgets import Static

from padtui.tui.fleet import FleetApp
from tests.tui.conftest import SIZE, fixed_clock, plain
from tests.tui.test_fleet import Fleet

PADS = 5000


async def test_a_fleet_of_5000_pads_opens_and_keeps_answering_keys(tmp_path: Path) -> None:
    first = tmp_path / "agent-00000.md"
    first.write_text("# Notes\n\n- Never push to main.\n- The build takes four minutes.\n")
    for n in range(1, PADS):
        os.link(first, tmp_path / f"agent-{n:05d}.md")
    app = FleetApp(str(tmp_path), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        f = Fleet(app, pilot, tmp_path)
        await f.until(lambda: f.table.row_count >= 10, "the first rows")
        top = plain(app.fleet_screen.query_one("#fleet-top", Static).content)
        assert f"of {PADS} pads" in top  # (counted as they are read)
        waits = []
        # keys, while the folder is still being read: each is answered
        for key, at_least, at_most in (
            ("home", "agent-00000.md", "agent-00000.md"),
            ("down", "agent-00001.md", "agent-00001.md"),
            ("down", "agent-00002.md", "agent-00002.md"),
            ("end", "LAST", "agent-99999.md"),  # (the last row when pressed, or a later one)
            ("home", "agent-00000.md", "agent-00000.md"),
            ("pagedown", "agent-00003.md", "agent-99999.md"),
        ):
            low = f.names()[-1] if at_least == "LAST" else at_least
            started = time.monotonic()
            # (as a terminal sends it: pilot.press would also wait for the process to idle,
            # which it is not while the folder is read)
            app.post_message(events.Key(key, None))
            await f.until(
                lambda: low <= (app.highlighted or "") <= at_most,  # noqa: B023
                f"the cursor after {key}",
            )
            waits.append(time.monotonic() - started)
        assert max(waits) < 2.0, waits  # (tens of ms at a load of 7 on two cores)
        assert not app.fleet_ready.is_set(), "the folder was read before the keys: no test"
