"""Save the README's screenshot: the demo at its corruption step, as the app draws it (SVG).

Run: python docs/screenshot.py [OUT.svg]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from padtui.demo_agent import load_scenario
from padtui.tui.demo import DemoApp


async def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        pad = str(Path(folder) / "pad.json")
        app = DemoApp(
            pad, load_scenario("retry-5xx"), 3600.0, journal=str(Path(folder) / "journal.jsonl")
        )
        app.agent.start()
        async with app.run_test(size=(150, 42)) as pilot:
            while not app.inspection.versions:
                await pilot.pause(0.05)
            for n in (1, 2, 3):
                await pilot.press("full_stop")
                while len(app.inspection.versions) <= n:
                    await pilot.pause(0.05)
            await pilot.pause(0.5)  # the alarm's notification is drawn
            app.save_screenshot(filename=out.name, path=str(out.parent))
    print(f"saved {out}")


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/demo.svg").resolve()
    asyncio.run(main(target))
