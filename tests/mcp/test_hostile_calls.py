"""Calls a hostile client makes: every one is answered, as a tool error of one line when it
cannot be taken (text that is not Unicode, a path past any system's limit, a budget that is
no whole number of tokens in the command line's range)."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from padtui.core.formats import MAX_BUDGET

from .conftest import call, error, make_pad, served

ANSWER_WITHIN = 30.0


class RawClient:
    """The server spoken to in raw JSON lines (the SDK's client cannot send a lone
    surrogate's escape, which a hostile client can)."""

    def __init__(self, tmp_path: Path, root: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "padtui", "mcp", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=tmp_path,
            env={"XDG_STATE_HOME": str(tmp_path / "state"), "PATH": "/usr/bin:/bin"},
        )
        self.send(
            '{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion":'
            ' "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}'
        )
        assert "result" in self.receive()
        self.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], ANSWER_WITHIN)
        assert ready, "no answer"
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return answer

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(ANSWER_WITHIN)


@pytest.mark.parametrize(
    ("tool", "arguments", "named"),
    [
        ("check", '{"path": "PAD\\ud800"}', "path"),
        ("audit", '{"path": "PAD", "new_text": "[{\\"text\\": \\"a\\udc9b\\"}]"}', "new_text"),
        ("externalize", '{"path": "PAD", "ids": ["nf1", "\\udfff"]}', "ids"),
    ],
    ids=["path", "new_text", "ids"],
)
def test_text_that_is_not_unicode_is_answered_as_a_tool_error(
    tmp_path: Path, tool: str, arguments: str, named: str
) -> None:
    pad = make_pad(tmp_path)
    before = pad.read_bytes()
    client = RawClient(tmp_path, tmp_path)
    try:
        arguments = arguments.replace("PAD", json.dumps(str(pad))[1:-1])
        client.send(
            '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": '
            f'{{"name": "{tool}", "arguments": {arguments}}}}}'
        )
        answer = client.receive()
        assert answer["id"] == 7
        result = answer["result"]
        assert result["isError"] is True
        text = result["content"][0]["text"]
        assert "\n" not in text
        assert f"{named}: holds text that is not Unicode" in text
        # and the server goes on
        client.send(
            '{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "check",'
            f' "arguments": {{"path": {json.dumps(str(pad))}}}}}}}'
        )
        assert client.receive()["result"]["structuredContent"]["verdict"] == "compactable"
    finally:
        client.close()
    assert pad.read_bytes() == before


@pytest.mark.parametrize(
    ("budget", "problem"),
    [
        (-5, "budget: must be >= 0 and at most 1000000000000, got -5"),
        (True, "budget: a whole number is needed, got a boolean"),
        (10**400, "got a number of more than 40 digits"),
        (MAX_BUDGET + 1, f"at most {MAX_BUDGET}, got {MAX_BUDGET + 1}"),
        (2.5, "budget: a whole number is needed, got a number"),
        ("12", "budget: a whole number is needed, got a string"),
    ],
    ids=["negative", "true", "huge", "over", "fraction", "string"],
)
async def test_a_budget_is_a_whole_number_in_the_command_lines_range(
    tmp_path: Path, budget: object, problem: str
) -> None:
    pad = make_pad(tmp_path)
    async with served(tmp_path, pad) as session:
        for tool in ("check", "compact"):
            assert problem in await error(session, tool, path=str(pad), budget=budget)
        assert (await call(session, "check", path=str(pad), budget=MAX_BUDGET))["verdict"]
        assert (await call(session, "check", path=str(pad), budget=0))["verdict"] == "refused"


async def test_a_path_longer_than_any_system_allows_is_refused_at_once(tmp_path: Path) -> None:
    pad = make_pad(tmp_path)
    async with served(tmp_path, tmp_path) as session:
        for path in ("a/" * 500_000, str(pad) + "/" * 5000, "x" * 1_000_000):
            message = await error(session, "check", path=path)
            assert message.endswith("path: longer than 4096 bytes"), message[:200]
        many = ["nf1"] * 10_001
        assert "ids: at most 10000" in await error(session, "externalize", path=str(pad), ids=many)
        assert (await call(session, "check", path=str(pad)))["verdict"] == "compactable"
