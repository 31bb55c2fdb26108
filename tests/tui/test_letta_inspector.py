"""A Letta agent file (``.af``) in the inspector: read-only (no key that writes is offered),
and measured in Letta's own unit, each block's characters against its limit."""

from __future__ import annotations

import json
from pathlib import Path

from textual.command import CommandList, CommandPalette

from padtui.core.live.watcher import read_once
from tests.tui.conftest import SAMPLES, Harness, copy_sample, inspector

AGENT = "letta-support-agent.af"  # five blocks; ticket_log 294 of its 300 characters


def footer(h: Harness) -> str:
    return h.screen_text().splitlines()[-1]


async def palette(h: Harness) -> set[str]:
    """The commands the command palette lists (every one, before a search)."""
    await h.pilot.press("ctrl+p")
    await h.until(lambda: isinstance(h.app.screen, CommandPalette), "the palette")
    commands = h.app.screen.query_one(CommandList)

    def listed() -> set[str]:
        return {
            str(commands.get_option_at_index(i).prompt).split("\n")[0]
            for i in range(commands.option_count)
        }

    await h.until(lambda: {"Trial", "History"} <= listed(), "the palette's commands")
    found = listed()
    await h.pilot.press("escape")
    await h.until(lambda: not isinstance(h.app.screen, CommandPalette), "the palette closed")
    return found


def test_a_letta_agent_file_is_read_by_the_watch() -> None:
    reading = read_once(str(SAMPLES / AGENT))
    assert reading.state == "version" and reading.snapshot is not None
    assert reading.snapshot.format == "af"


async def test_a_letta_agent_file_opens_read_only(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, AGENT)
    before = pad.read_bytes()
    async with inspector(pad) as h:
        assert "read-only" in h.topbar
        assert h.app.inspection.current.pad_file.pad.entries  # (the blocks are on screen)
        keys = footer(h)
        assert "t Trial" in keys and "c Commit" not in keys and "x Seal" not in keys
        assert h.view.check_action("commit", ()) is False
        assert h.view.check_action("externalize", ()) is False
        await h.pilot.press("c", "x")  # nothing happens: no dialog, no write
        await h.settle()
        assert h.app.screen is h.app.screen_stack[0] and not h.notes
        await h.pilot.press("t")  # a trial still shows what a pass would do, and says so
        assert "commit" not in h.status
        await h.pilot.press("escape")
        listed = await palette(h)  # nor does the command palette offer them
        assert "Trial" in listed and not {"Commit", "Seal"} & listed
    assert pad.read_bytes() == before


async def test_each_block_shows_its_characters_against_its_limit(tmp_path: Path) -> None:
    pad = copy_sample(tmp_path, AGENT)
    doc = json.loads(pad.read_text("utf-8"))
    blocks = {b["label"]: b for b in doc["blocks"]}
    blocks["escalation_rules"]["value"] += " Always." * 120  # past its 1000 characters
    pad.write_text(json.dumps(doc), encoding="utf-8")
    async with inspector(pad, watch=False) as h:
        assert "294/300 chars  ⚠ near its limit" in h.row("rewritable", "ticket_log")
        chars = len(blocks["escalation_rules"]["value"])
        assert f"{chars}/1000 chars  ✖ over its limit" in h.row("rewritable", "escalation_rules")
        human = h.row("rewritable", "human")
        assert "190/5000 chars" in human and "limit" not in human
        assert "194/2000 chars" in h.row("sealed", "refund_policy")
        # the gauge: characters against the blocks' limits, not a token budget Letta lacks
        total = sum(len(b["value"]) for b in doc["blocks"])
        assert h.gauge.startswith("now ") and f" {total}/13300 chars" in h.gauge
        assert "1 over its limit · 1 near it" in h.gauge
        assert "/4000 tok" not in h.gauge
        assert "· limits 13300 chars · trial budget 4000 tok ·" in h.topbar
