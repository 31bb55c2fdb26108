"""A store followed on disk: a change to one file re-reads that file alone, each version is
audited against the one before and journaled."""

from __future__ import annotations

import json
import os
from pathlib import Path

from padtui.core.memory.live import LiveStore
from padtui.core.vocabulary import Verdict
from tests.stores import make_store

FILES = {
    "CLAUDE.md": "# Project\n\n## Rules\n\n- Never push to `main`.\n",
    **{f"docs/agent/t{i}.md": f"# Topic {i}\n\n- Note {i}.\n" for i in range(20)},
}
FILES["CLAUDE.md"] += "".join(f"- Read [t{i}](docs/agent/t{i}.md).\n" for i in range(20))


def test_a_change_to_one_file_rereads_that_file_alone(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", FILES)
    live = LiveStore(str(root))
    first = live.look()
    assert first is not None and len(first.store.files) == 21
    assert len(live.tree.reread) == 21
    assert live.look() is None and live.tree.reread == []  # nothing changed: nothing read
    target = root / "docs" / "agent" / "t3.md"
    target.write_text("# Topic 3\n\n- Note 3.\n- Never deploy on Fridays.\n")
    os.utime(target, ns=(1, 1))  # (a new stamp even on a coarse clock)
    v = live.look()
    assert v is not None and v.audit is not None and v.audit.verdict == Verdict.GROWTH
    assert live.tree.reread == ["docs/agent/t3.md"]


def test_each_version_is_journaled_with_each_text_once(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", FILES)
    journal = tmp_path / "state" / "store.jsonl"
    live = LiveStore(str(root), journal=str(journal))
    live.look()
    (root / "CLAUDE.md").write_text(FILES["CLAUDE.md"].replace("- Never push to `main`.\n", ""))
    os.utime(root / "CLAUDE.md", ns=(2, 2))
    v = live.look()
    assert v is not None and v.audit is not None and v.audit.verdict == Verdict.CORRUPTION
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [(x["version"], x["verdict"]) for x in lines] == [(1, None), (2, "corruption")]
    texts = [f for x in lines for f in x["files"] if "text" in f]
    assert len(texts) == 22  # 21 files, then only CLAUDE.md's new text
