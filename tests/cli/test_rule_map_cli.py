"""The rule map from the command line and from the pad: headings that hold rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from padtui.cli import main

OLD = "## Known quirks\n\n- Deploys to prod happen on Tuesdays, after the standup.\n"
NEW = "## Known quirks\n\n- Deploys to prod happen on Tuesdays.\n"


def _pair(tmp_path: Path, old: str = OLD, new: str = NEW) -> tuple[str, str]:
    a, b = tmp_path / "old.md", tmp_path / "new.md"
    a.write_text(old, encoding="utf-8")
    b.write_text(new, encoding="utf-8")
    return str(a), str(b)


def _audit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(["audit", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_heading_outside_the_map_holds_no_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, got = _audit(capsys, *_pair(tmp_path))
    assert (code, got["verdict"]) == (0, "compaction")


def test_rule_heading_adds_a_word(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, got = _audit(capsys, *_pair(tmp_path), "--rule-heading", "quirks")
    assert (code, got["verdict"]) == (1, "corruption")
    (finding,) = [f for f in got["findings"] if f["severity"] == "critical"]
    assert "condition" in finding["message"] and "standup" in finding["message"]


def test_only_rule_headings_replaces_the_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lessons = OLD.replace("Known quirks", "Lessons")
    args = _pair(tmp_path, lessons, NEW.replace("Known quirks", "Lessons"))
    assert _audit(capsys, *args)[1]["verdict"] == "corruption"
    code, got = _audit(capsys, *args, "--rule-heading", "quirks", "--only-rule-headings")
    assert (code, got["verdict"]) == (0, "compaction")


def test_only_rule_headings_alone_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", *_pair(tmp_path), "--only-rule-headings"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--rule-heading" in err


def test_the_pad_names_its_own_rule_headings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    front = "---\nrule_headings: [quirks]\n---\n"
    code, got = _audit(capsys, *_pair(tmp_path, front + OLD, front + NEW))
    assert (code, got["verdict"]) == (1, "corruption")


def test_history_takes_the_rule_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pad = tmp_path / "CLAUDE.md"
    journal = tmp_path / "j.jsonl"
    pad.write_text(NEW, encoding="utf-8")
    # the two versions journaled, as the inspector journals what it sees
    from padtui.core.storage.journal import Journal

    j = Journal(str(journal), str(pad))
    j.append(OLD.encode(), "md", "seen")
    j.append(NEW.encode(), "md", "seen")
    plain = main(["history", str(pad), "--journal", str(journal), "--json"])
    capsys.readouterr()
    ruled = main(
        ["history", str(pad), "--journal", str(journal), "--json", "--rule-heading", "quirks"]
    )
    assert (plain, ruled) == (0, 1)
