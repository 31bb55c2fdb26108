"""Benchmark: what exporting verdicts to OpenTelemetry costs (SPEC §11; docs/observability.md).

Two figures, each alternating the runs with and without exporting, and reported as the ratio
of their medians:

- ``padtui audit OLD NEW`` on a pad of about 200k tokens (``bench/padgen.py``), the whole
  command as a user runs it (a fresh process each time, the count cache warm): one entry
  edited (a live pad's usual rewrite), and a sealed constraint dropped (corruption: the rules
  of the version before are then counted for the share carried). Target: at most +5 %. The
  command hands its verdict to a sender process and exits: after each run with exporting,
  the benchmark waits (untimed) until the receiver has the span and the sender is done, so
  that the next run does not share the cores with it, and reports that wait as the time a
  span takes to arrive.
- the inspector's write → screen latency (``bench/bench_latency.py``'s own measure, reused)
  on a pad of about 200k tokens, in rounds with and without exporting: p50 and p95 per
  condition. Target: nothing measurable (a difference within that between rounds alike).

Exporting goes to a local OTLP/HTTP receiver started here (a thread that answers 200 to each
batch and counts the spans' batches), so the figures are padtui's cost, not a collector's.
The machine's load (``uptime``) is printed with the figures.

Run: python bench/bench_otel.py [--runs N] [--writes N] [--tokens N]
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_latency  # bench/bench_latency.py, beside this file
import padgen  # bench/padgen.py, beside this file

ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"


class Receiver(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver that takes every batch (and counts them)."""

    batches = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).batches += 1
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def receiver() -> str:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def pairs(tokens: int, tmp: str) -> dict[str, tuple[str, str]]:
    rng = random.Random(5)
    entries = padgen.pad_entries(tokens)
    budget = int(tokens * 0.8)
    old = os.path.join(tmp, "old.json")
    padgen.write_pad(old, entries, budget)
    one = [dict(e) for e in entries]
    padgen.edit_one(one, 1, rng)
    edited = os.path.join(tmp, "edited.json")
    padgen.write_pad(edited, one, budget)
    sealed = [i for i, e in enumerate(entries) if e.get("sealed") and e["kind"] == "constraint"]
    dropped = [dict(e) for i, e in enumerate(entries) if i != sealed[0]]
    corrupt = os.path.join(tmp, "corrupt.json")
    padgen.write_pad(corrupt, dropped, budget)
    return {"one entry edited": (old, edited), "a sealed constraint dropped": (old, corrupt)}


def audit_once(old: str, new: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "padtui", "audit", old, new],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    took = time.perf_counter() - start
    if done.returncode not in (0, 1) or done.stderr:
        raise SystemExit(f"audit failed ({done.returncode}): {done.stderr}")
    return took


def delivered(batches: int, spools: str, limit: float = 120.0) -> float:
    """Seconds until the receiver holds more than ``batches`` batches and no spool is left in
    ``spools`` (the sender done): what a span takes to arrive once the command has exited,
    and the next run does not share the cores with the sender."""
    start = time.perf_counter()
    while Receiver.batches <= batches or any(n.endswith(".jsonl") for n in os.listdir(spools)):
        if time.perf_counter() - start > limit:
            raise SystemExit(f"nothing delivered within {limit:g} s (see {spools}/export.log)")
        time.sleep(0.005)
    return time.perf_counter() - start


def spread(times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    return f"{statistics.median(ms):.0f} ms ({ms[0]:.0f}–{ms[-1]:.0f})"


def bench_audit(tokens: int, runs: int, endpoint: str, tmp: str) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    base["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    base["XDG_STATE_HOME"] = os.path.join(tmp, "state")
    spools = os.path.join(tmp, "state", "padtui", "telemetry")
    exporting = {**base, ENDPOINT: endpoint}
    for name, (old, new) in pairs(tokens, tmp).items():
        for env in (base, exporting):  # (the count cache warm, the files in the page cache)
            audit_once(old, new, env)
        delivered(0, spools)
        without: list[float] = []
        with_: list[float] = []
        arrival: list[float] = []
        for i in range(runs):
            for on in (False, True) if i % 2 == 0 else (True, False):
                before = Receiver.batches
                (with_ if on else without).append(audit_once(old, new, exporting if on else base))
                if on:
                    arrival.append(delivered(before, spools))
        a, b = statistics.median(without), statistics.median(with_)
        print(
            f"audit, {name} ({runs} runs each, alternated): without {spread(without)} · "
            f"with {spread(with_)} · ratio of medians {b / a:.3f}",
            flush=True,
        )
        print(f"  span received after the command's exit: {spread(arrival)}", flush=True)


def bench_inspector(tokens: int, writes: int, rounds: int, endpoint: str, tmp: str) -> None:
    from padtui import telemetry

    folder = os.path.join(tmp, "live")
    os.mkdir(folder)
    path = os.path.join(folder, "pad.json")
    padgen.make_pad(path, tokens)
    totals: dict[str, list[float]] = {"without": [], "with": []}
    per_round: list[tuple[str, float]] = []
    before = Receiver.batches
    for i in range(rounds * 2):
        on = i % 4 in (1, 2)  # (without, with, with, without, ...: a drifting load cancels)
        if on:
            os.environ[ENDPOINT] = endpoint
        else:
            os.environ.pop(ENDPOINT, None)
        telemetry.stop()  # (the next verdict looks at the environment again)
        runs = asyncio.run(bench_latency.measure(path, tokens, ["atomic"], writes))
        telemetry.stop()  # (what the round queued, sent)
        got = [(s.shown - s.start) * 1000 for r in runs for s in r.samples]
        name = "with" if on else "without"
        totals[name] += got
        per_round.append((name, bench_latency.pct(got, 95)))
    os.environ.pop(ENDPOINT, None)
    for name, got in totals.items():
        print(
            f"inspector write → screen, {tokens // 1000}k tokens, {name} exporting: n={len(got)}"
            f" p50 {bench_latency.pct(got, 50):.1f} · p95 {bench_latency.pct(got, 95):.1f} ms"
        )
    a, b = (bench_latency.pct(totals[n], 95) for n in ("without", "with"))
    rounds_text = ", ".join(f"{n} {p:.0f}" for n, p in per_round)
    medians = {n: statistics.median(p for m, p in per_round if m == n) for n in totals}
    print(
        f"  p95 ratio with/without {b / a:.3f} (pooled), "
        f"{medians['with'] / medians['without']:.3f} (median of the rounds' p95s)"
    )
    print(f"  p95 of each round (ms): {rounds_text}")
    print(f"  {Receiver.batches - before} batches received")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="audits per condition and pair")
    parser.add_argument("--writes", type=int, default=30, help="writes per inspector round")
    parser.add_argument("--rounds", type=int, default=3, help="inspector rounds per condition")
    parser.add_argument("--tokens", type=int, default=200_000)
    parser.add_argument("--skip-inspector", action="store_true")
    args = parser.parse_args()
    endpoint = receiver()
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    print(f"load: {load.strip()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="padtui-bench-otel-") as tmp:
        os.environ["XDG_STATE_HOME"] = os.path.join(tmp, "state")
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        bench_audit(args.tokens, args.runs, endpoint, tmp)
        if not args.skip_inspector:
            bench_inspector(args.tokens, args.writes, args.rounds, endpoint, tmp)
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    print(f"load: {load.strip()}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
