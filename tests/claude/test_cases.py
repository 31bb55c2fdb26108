"""The guard on labelled compactions (tests/claude/cases, written in Claude Code's record
shapes): each verdict right, every lost rule found, and nothing else flagged."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    path = ROOT / "bench" / "claude_accuracy.py"
    spec = importlib.util.spec_from_file_location("claude_accuracy", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["claude_accuracy"] = module
    spec.loader.exec_module(module)
    return module


BENCH = _bench()
CASES = BENCH.cases(BENCH.CASES)


def test_there_are_faithful_and_lossy_cases() -> None:
    labels = {(folder / "expect.json").read_text().count('"corruption"') > 0 for _, folder in CASES}
    assert labels == {True, False}


@pytest.mark.parametrize(("kind", "folder"), CASES, ids=[f.name for _, f in CASES])
def test_case(kind: str, folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    outcome = BENCH.judge_case(kind, folder)
    assert outcome.verdict == outcome.expected, outcome.flagged
    assert outcome.found == outcome.lost, outcome.flagged
    assert outcome.false_flags == []


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("the legend should sit lower on the page", False),
        ("should be https", False),
        ("you should run the linter before a commit", True),
        ("we should keep the old endpoint", True),
        ("the API should never return a stack trace", True),
        ("tests should only use the fixtures folder", True),
        ("and there should be more of them near the river", False),
        ("also, they look too flat, should be taller", False),
        ("Comments should point to an issue or sit in a docstring", True),
    ],
)
def test_a_wish_for_the_work_is_no_rule_of_the_user(text: str, rule: bool) -> None:
    from padtui.core.agents.guard import message_rules

    assert bool(message_rules([(1, text, "your message")])) is rule
