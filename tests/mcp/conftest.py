"""``padtui mcp`` started as a subprocess, reached through the SDK's own stdio client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.cli.test_write_commands import PAD as WRITE_PAD

# the write commands' pad, without its unknown field (what the tools report of it is exact)
PAD = {key: value for key, value in WRITE_PAD.items() if key != "x-owner"}


def make_pad(folder: Path, name: str = "pad.json", sealed_nf1: bool = True) -> Path:
    """A pad over its budget: with nf1 sealed a strict pass drops the note; with nf1
    unsealed it would have to drop the negative fact, and refuses."""
    doc = json.loads(json.dumps(PAD))
    doc["entries"][3]["sealed"] = sealed_nf1
    path = folder / name
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return path


@asynccontextmanager
async def served(
    tmp_path: Path, *roots: str | Path, cwd: Path | None = None
) -> AsyncIterator[ClientSession]:
    env = {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME", str(tmp_path / "cache")),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "padtui", "mcp", *map(str, roots)],
        env=env,
        cwd=str(cwd or tmp_path),
    )
    with open(tmp_path / "server-stderr.txt", "w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured result (the call must succeed)."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def error(session: ClientSession, tool: str, **arguments: Any) -> str:
    """A tool's error message (the call must fail, as a tool error of one line)."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    text = "".join(getattr(c, "text", "") for c in result.content)
    assert "\n" not in text
    return text
