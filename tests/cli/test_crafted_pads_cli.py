"""Crafted pads through the commands: a one-line error naming the file and the place, exit 2,
never a traceback (a budget of 5,000 digits in front matter was a ValueError's traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from padtui.cli import main

CRAFTED = {
    "front-matter-budget.md": (
        b"---\nbudget_tokens: " + b"9" * 5000 + b"\n---\n## Notes\n- a\n",
        "line 2: budget_tokens in the front matter must be a whole number",
    ),
    "absurd-budget.json": (
        b'{"budget_tokens": 99999999999999999999, "entries": []}',
        '"budget_tokens" must be a whole number',
    ),
    "infinite-budget.json": (b'{"budget_tokens": 1e999, "entries": []}', "got inf"),
    "deep.jsonl": (b"[" * 100_000 + b"]" * 100_000 + b"\n", "line 1: invalid JSON"),
    "huge-limit.af": (
        b'{"blocks": [{"label": "x", "value": "y", "limit": -1e999}]}',
        '"limit" must be a whole number',
    ),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
@pytest.mark.parametrize("command", ["check", "audit", "compact"])
def test_a_crafted_pad_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, command: str
) -> None:
    data, says = CRAFTED[name]
    path = tmp_path / name
    path.write_bytes(data)
    argv = [command, str(path)] if command != "audit" else [command, str(path), str(path)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith(f"padtui: error: {path}: ")
    assert says in err and len(err) < 300
