"""``padtui mcp`` as an agent meets it: how long the server takes to start (spawn to the
end of the MCP handshake) and what a read-only call costs once it runs.

Usage::

    python bench/bench_mcp.py                 # the sample pad retry-5xx-under-pressure.json
    python bench/bench_mcp.py --pad PATH      # any pad (copied; the original is not touched)
    python bench/bench_mcp.py --runs 5 --calls 10

Each run starts a fresh server over a copy of the pad (its journal in a temporary folder),
times ``initialize``, then ``check`` and ``audit`` (the pad against its own text) ``--calls``
times each; the figures are medians over runs of each run's median call.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

SAMPLE = Path(__file__).resolve().parents[1] / "sample_pads" / "retry-5xx-under-pressure.json"


async def one_run(pad: Path, folder: Path, calls: int) -> tuple[float, float, float]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "padtui", "mcp", str(pad)],
        env={"XDG_STATE_HOME": str(folder / "state")},
    )
    text = pad.read_text(encoding="utf-8")
    with open(os.devnull, "w") as quiet:
        start = time.perf_counter()
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            started = time.perf_counter() - start
            timed: dict[str, list[float]] = {"check": [], "audit": []}
            for tool, args in (("check", {}), ("audit", {"new_text": text})):
                for _ in range(calls):
                    t = time.perf_counter()
                    result = await session.call_tool(tool, {"path": str(pad), **args})
                    timed[tool].append(time.perf_counter() - t)
                    if result.is_error:
                        raise SystemExit(f"{tool} failed: {result.content}")
    return started, statistics.median(timed["check"]), statistics.median(timed["audit"])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pad", type=Path, default=SAMPLE)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--calls", type=int, default=10)
    args = parser.parse_args()
    rows = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="padtui-bench-mcp-") as name:
            folder = Path(name)
            pad = folder / args.pad.name
            shutil.copyfile(args.pad, pad)
            rows.append(await one_run(pad, folder, args.calls))
    start, check, audit = (statistics.median(col) for col in zip(*rows, strict=True))
    print(f"pad: {args.pad.name} ({args.pad.stat().st_size} bytes), {args.runs} runs")
    print(f"start to initialized: {start:.2f} s")
    print(f"check call: {check * 1000:.1f} ms")
    print(f"audit call: {audit * 1000:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
