"""``padtui claude watch`` on a long session: how long until its compactions are on screen,
and how long a compaction appended while watching takes to be judged.

Run: python bench/bench_claude_watch.py [--tokens 200000] [--compactions 3] [--rounds 5]

The transcript is bench_claude_hooks.py's (user messages, a third of them holding a rule;
the agent's text and tool calls; tool results, most of the bytes), ``--tokens`` tokens of
conversation (four characters a token) cut into ``--compactions`` stretches, each closed by
a compaction whose summary drops one rule. Timed, each a median of ``--rounds``:

* read: the transcript read (``transcript.Reader``), once, from the start;
* open: read and every compaction judged, its two versions made (what the app does in its
  worker before the first frame of versions);
* app: the app headless (``run_test``) from start until its versions are on screen (the
  token encoding already loaded);
* cold: the same in a fresh process, from its start (interpreter, imports, the encoding);
* append: one more compaction appended to the open transcript, read and judged.

Also the peak memory of a read (tracemalloc). State the machine's load beside any figure
you publish (``uptime``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

from bench_claude_hooks import _session  # noqa: E402

from padtui.claude import projects  # noqa: E402
from padtui.claude.compactions import examined, judged, pad_files  # noqa: E402
from padtui.core.agents.transcript import Reader  # noqa: E402
from padtui.core.counting.tokens import counter_for  # noqa: E402


def _boundary(n: int) -> str:
    return json.dumps(
        {
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "compactMetadata": {"trigger": "auto", "preTokens": 160000},
            "uuid": f"b{n}",
            "timestamp": "2026-03-03T11:00:00.000Z",
        }
    )


def _summary(text: str, n: int) -> str:
    return json.dumps(
        {
            "type": "user",
            "message": {"role": "user", "content": text},
            "isCompactSummary": True,
            "uuid": f"s{n}",
        }
    )


def _compacted(path: str, summary: str, compactions: int) -> None:
    """The transcript cut into stretches, each closed by a compaction."""
    with open(path) as f:
        lines = f.read().splitlines()
    out: list[str] = []
    step = max(1, len(lines) // compactions)
    for n in range(compactions):
        out += lines[n * step : (n + 1) * step]
        out += [_boundary(n), _summary(summary, n)]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def _open(path: str) -> int:
    reader = Reader(path)
    reader.read()
    counter = counter_for(None)
    previous, versions = None, 0
    for j in judged(reader.transcript, whole_only=True):
        if j.judgement is None:
            continue
        before, after = pad_files(path, j, "read-only")
        for pad_file, of in ((before, None), (after, j)):
            previous = examined(pad_file, counter, previous, of).digest
            versions += 1
    return versions


async def _app(path: str) -> float:
    from padtui.tui.claude_watch import ClaudeWatchApp

    folder = os.path.dirname(path)
    found = projects.sessions(folder)
    t0 = time.perf_counter()
    app = ClaudeWatchApp(folder, found[0], watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.loaded.wait()
        took = time.perf_counter() - t0
        await pilot.pause()
    return took


def _cold(path: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--app-once", path], check=True)
    return time.perf_counter() - t0


def _show(name: str, ts: list[float]) -> None:
    print(
        f"{name:8} median {statistics.median(ts) * 1000:6.0f} ms"
        f"  (range {min(ts) * 1000:.0f}-{max(ts) * 1000:.0f})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=200_000)
    ap.add_argument("--compactions", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--app-once", metavar="TRANSCRIPT", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.app_once:
        asyncio.run(_app(a.app_once))
        return
    with tempfile.TemporaryDirectory() as tmp:
        _project, path, summary = _session(tmp, a.tokens)
        folder = os.path.join(tmp, "transcripts")
        os.makedirs(folder)
        moved = os.path.join(folder, "session.jsonl")
        os.replace(path, moved)
        _compacted(moved, summary, a.compactions)
        size = os.path.getsize(moved)
        print(
            f"transcript: {size / 2**20:.1f} MiB, ~{a.tokens} tokens, "
            f"{a.compactions} compactions; rounds: {a.rounds}"
        )
        counter_for(None).count("warm")  # (the encoding loaded once, as the app has it)
        times: dict[str, list[float]] = {"read": [], "open": [], "app": [], "cold": []}
        times["append"] = []
        for _ in range(a.rounds):
            times["cold"].append(_cold(moved))
            t0 = time.perf_counter()
            Reader(moved).read()
            times["read"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            versions = _open(moved)
            times["open"].append(time.perf_counter() - t0)
            times["app"].append(asyncio.run(_app(moved)))
        assert versions == 2 * a.compactions, versions
        for n in range(a.rounds):
            reader = Reader(moved)
            reader.read()
            done = len(list(judged(reader.transcript)))
            with open(moved, "a") as f:
                f.write(_boundary(100 + n) + "\n" + _summary(summary, 100 + n) + "\n")
            t0 = time.perf_counter()
            reader.read()
            new = list(judged(reader.transcript, done, whole_only=True))
            times["append"].append(time.perf_counter() - t0)
            assert len(new) == 1
        for name, ts in times.items():
            _show(name, ts)
        tracemalloc.start()
        Reader(moved).read()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"peak memory of a read: {peak / 2**20:.1f} MiB (the file: {size / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
