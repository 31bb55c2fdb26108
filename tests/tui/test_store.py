"""``padtui store DIR``: a memory of many files on one screen, every file watched, every
change audited as one memory, every version journaled."""

from __future__ import annotations

import json
import os
from pathlib import Path

from rich.text import Text
from textual.widgets import DataTable, Static

from padtui.core.counting.tokens import counter_for
from padtui.core.text import clean
from padtui.tui.store import StoreApp
from tests.stores import make_store
from tests.tui.conftest import Harness, plain

INDEX = "# Memory\n\n- [Deploys](deploys.md)\n- [Go](go.md)\n"
DEPLOYS = "# Deploys\n\n- Deploy on Tuesdays only, never on Fridays.\n"
GO = "# Go\n\n- Never use `panic` in library code.\n"


def rows(app: StoreApp) -> list[list[str]]:
    table = app.screen_.query_one("#store-files", DataTable)
    return [[plain(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def alarms(app: StoreApp) -> str:
    return plain(app.screen_.query_one("#store-alarms", Static).content)


def store(tmp_path: Path) -> Path:
    return make_store(
        tmp_path / "memory",
        {"MEMORY.md": INDEX, "deploys.md": DEPLOYS, "go.md": GO, "CLAUDE.md": "- Use tabs.\n"},
    )


async def test_a_consolidation_that_deletes_a_topic_file_with_its_rule_is_an_alarm(
    tmp_path: Path, state_home: Path
) -> None:
    root = store(tmp_path)
    app = StoreApp(str(root), counter=counter_for(None))
    async with app.run_test(size=(140, 40)) as pilot:
        h = Harness(app, pilot)  # type: ignore[arg-type]
        await h.until(app.armed.is_set, "the first version")
        got = {r[1]: r[0] for r in rows(app)}
        assert got == {
            "CLAUDE.md": "always",
            "MEMORY.md": "always",
            "deploys.md": "on demand",
            "go.md": "on demand",
        }
        title = plain(app.screen_.query_one("#store-title", Static).content)
        assert "4 memory file(s)" in title and "loaded at start" in title
        # a consolidation: the Go lesson moved into the index, both topic files deleted
        (root / "MEMORY.md").write_text(INDEX.replace("- [Go](go.md)\n", "") + GO[6:])
        os.remove(root / "go.md")
        os.remove(root / "deploys.md")
        await h.until(lambda: "corruption" in alarms(app), "the alarm")
        said = alarms(app)
        assert "CONSTRAINT_DROPPED deploys.md was deleted" in said
        assert "RULE_MOVED" in said and "from go.md to MEMORY.md" in said
        assert any(r[1] == "deploys.md" and r[4] == "deleted" for r in rows(app))
    journal = next((state_home / "padtui" / "stores").glob("memory-*.jsonl"))
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert lines[0]["verdict"] is None and lines[-1]["verdict"] == "corruption"
    # a text already in the journal is named by its hash, not written again
    assert "text" not in next(f for f in lines[-1]["files"] if f["path"] == "CLAUDE.md")


async def test_file_names_are_shown_literally(tmp_path: Path) -> None:
    root = store(tmp_path)
    name = "[red]x[-] \x1b[2J.md"
    (root / name).write_text("- Never do x.\n")
    (root / "MEMORY.md").write_text(INDEX)
    app = StoreApp(str(root), counter=counter_for(None), use_journal=False, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        h = Harness(app, pilot)  # type: ignore[arg-type]
        await h.until(app.armed.is_set, "the first version")
        names = [r[1] for r in rows(app)]
        assert clean(name) in names and "[red]x[-]" in clean(name)
        table = app.screen_.query_one("#store-files", DataTable)
        assert all(isinstance(c, Text) for c in table.get_row_at(0))


async def test_the_demo_consolidation_moves_a_rule_then_loses_one(tmp_path: Path) -> None:
    from padtui import store_demo

    root = tmp_path / "demo"
    store_demo.make_store(str(root))
    app = StoreApp(str(root), counter=counter_for(None), use_journal=False, demo=0.05)
    async with app.run_test(size=(140, 40)) as pilot:
        h = Harness(app, pilot)  # type: ignore[arg-type]
        await h.until(lambda: "corruption" in alarms(app), "the consolidation's loss")
        said = alarms(app)
        assert "from memory/feedback_testing.md to memory/MEMORY.md" in said
        assert "memory/project_deploys.md was deleted" in said
        newest = said.split("\n\n")[0] if "\n\n" in said else said
        assert newest.splitlines()[0].split()[-1] == "corruption"
