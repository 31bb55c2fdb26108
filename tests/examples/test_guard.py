"""The agent-side guard (examples/guard.py), end to end: a clean step, a step raced by
another process that rewrites the pad the way ``padtui simulate`` does (retry, never
clobber), a constraint that would drop (externalize, then compact), and a sealed region
over budget (halt, loudly)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import padtui
from padtui.core import formats
from padtui.core.storage.journal import Journal, journal_path_for

ROOT = Path(__file__).parents[2]
GUARD = ROOT / "examples" / "guard.py"


def load_guard() -> ModuleType:
    spec = importlib.util.spec_from_file_location("guard_example", GUARD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


guard = load_guard()


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


# A process that writes the pad as `padtui simulate`'s scripted agents do (padtui's own
# write_pad: a temporary file renamed over the pad, or a rewrite in place), without the lock:
# it reads the pad, adds a note, saves; `count` times, `pause` seconds apart.
WRITER = r"""
import json, sys, time
from padtui.demo_agent import write_pad
path, mode = sys.argv[1], sys.argv[4]
start, count, pause = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[5])
for k in range(start, start + count):
    while True:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            break
        except (ValueError, OSError):  # caught a save mid-way: read again
            time.sleep(0.0005)
    doc["entries"].append(
        {"kind": "note", "id": f"tick-{k}", "text": f"tick {k}: " + "one more thing. " * 12}
    )
    write_pad(path, doc, mode)
    time.sleep(pause)
"""


def writer(
    path: Path, start: int, count: int, mode: str = "atomic", pause: float = 0.0
) -> list[str]:
    return [sys.executable, "-c", WRITER, str(path), str(start), str(count), mode, str(pause)]


def entry(kind: str, id_: str, text: str, sealed: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": kind, "id": id_, "text": text}
    if sealed:
        out["sealed"] = True
    return out


def make_pad(tmp_path: Path, entries: list[dict[str, Any]], budget: int) -> Path:
    path = tmp_path / "pad.json"
    path.write_text(json.dumps({"budget_tokens": budget, "entries": entries}, indent=2) + "\n")
    return path


BASE = [
    entry("constraint", "c-billing", "Never call the billing API from this job.", sealed=True),
    entry("plan", "p-1", "Page through the March export and post each page once."),
    entry("note", "n-1", "Page 14 has two refunds with a negative amount. " * 4),
    entry("note", "n-2", "Throughput is about one page every two minutes today. " * 4),
]


def run_cli(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(GUARD), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )


def ids(path: Path) -> list[str]:
    return [e.label for e in formats.load(str(path)).pad.entries]


# --- one clean step -------------------------------------------------------------------------


def test_the_example_runs_from_the_shell(tmp_path: Path) -> None:
    path = make_pad(tmp_path, BASE, 90)
    done = run_cli(str(path), "--budget", "90")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"guard: compacted {path} (")
    assert "dropped n-1 n-2; loss record loss-" in done.stdout
    pad = formats.load(str(path)).pad
    assert [e.label for e in pad.entries][:2] == ["c-billing", "p-1"]
    assert pad.entries[-1].kind == "loss_record" and pad.entries[-1].sealed
    again = run_cli(str(path), "--budget", "90")
    assert again.returncode == 0 and "nothing to do" in again.stdout


def test_the_guard_works_on_markdown_pads(tmp_path: Path) -> None:
    path = tmp_path / "pad.md"
    path.write_bytes((ROOT / "sample_pads" / "markdown-notes.md").read_bytes())
    result = guard.guarded_compact(str(path))
    assert result.committed and result.dropped == ["n-3", "n-4", "h-1"]
    assert "## Loss records (sealed)" in path.read_text()


# --- raced by another process ----------------------------------------------------------------


@pytest.mark.parametrize("mode", ["atomic", "inplace"])
def test_a_write_meanwhile_is_a_retry_never_a_clobber(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    path = make_pad(tmp_path, BASE, 90)
    real_read = padtui.read
    reads = []

    def read_then_race(p: str, **kw: Any) -> padtui.Snapshot:
        snap = real_read(p, **kw)
        reads.append(snap)
        if len(reads) == 1:  # another process saves the pad between the guard's read and commit
            subprocess.run(writer(path, 0, 1, mode), check=True, timeout=60)
        return snap

    monkeypatch.setattr(padtui, "read", read_then_race)
    result = guard.guarded_compact(str(path), 90)
    assert result.attempts == 2 and result.committed
    assert reads[1].pad.find("tick-0") is not None  # the second attempt planned from the new one
    pad = formats.load(str(path)).pad
    record = pad.entries[-1]
    # the other process's note is not lost unseen: kept, or named by the loss record
    assert pad.find("tick-0") is not None or "tick-0" in record.text
    journal = Journal.for_pad(str(path))
    origins = [v.origin for v in journal.versions()]
    assert origins[-1] == "compact"
    # the version the commit replaced is the one the other process wrote
    replaced = journal.pad_file(journal.versions()[-2].n).pad
    assert replaced.find("tick-0") is not None


def test_a_pad_that_keeps_changing_makes_the_guard_give_up_without_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_pad(tmp_path, BASE, 90)
    real_read = padtui.read
    tick = iter(range(100))

    def always_raced(p: str, **kw: Any) -> padtui.Snapshot:
        snap = real_read(p, **kw)
        subprocess.run(writer(path, next(tick), 1), check=True, timeout=60)
        return snap

    monkeypatch.setattr(padtui, "read", always_raced)
    with pytest.raises(guard.GuardGaveUp):
        guard.guarded_compact(str(path), 104, attempts=3, backoff=0)
    assert ids(path)[-3:] == ["tick-0", "tick-1", "tick-2"]  # every write is still there


TICK = re.compile(r"\btick-(\d+)\b")


def test_steps_while_a_writer_process_runs_never_lose_a_write(tmp_path: Path) -> None:
    """A writer process saves a note every few milliseconds while the guard keeps compacting:
    at the end, every note the writer wrote is in the pad or named by a loss record in it."""
    path = make_pad(tmp_path, BASE, 1200)
    count = 120
    proc = subprocess.Popen(writer(path, 0, count, "atomic", 0.01))
    results, halted = [], None
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                results.append(guard.guarded_compact(str(path), attempts=50, backoff=0.001))
            except guard.GuardGaveUp:  # raced every time: nothing written, try the next turn
                pass
            except guard.GuardHalt as exc:  # the sealed region filled up: stop, loudly
                halted = exc
                break
            time.sleep(0.01)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == 0
    assert any(r.committed for r in results)
    if halted is not None:
        assert halted.code in ("SEALED_OVER_BUDGET", "RECORD_WOULD_NOT_FIT")
    pad = formats.load(str(path)).pad
    present = {
        int(m[1])
        for e in pad.entries
        if e.kind == "note"
        for m in [TICK.fullmatch(e.label or "")]
        if m
    }
    # named by a loss record: in its text, or in its drops field (a record of many notes
    # beside a full sealed region may only count them in its text)
    named = [
        text
        for e in pad.entries
        if e.kind == "loss_record"
        for text in (e.text, *(d for d in e.raw.get("drops", ()) if isinstance(d, str)))
    ]
    declared = {int(m) for text in named for m in TICK.findall(text)}
    assert present | declared >= set(range(count))
    # and every compaction the guard journaled replaced exactly the version it was made from
    journal = Journal(journal_path_for(str(path)), str(path))
    versions = journal.versions()
    for before, after in itertools.pairwise(versions):
        if after.origin == "compact":
            old = journal.pad_file(before.n).pad
            new = journal.pad_file(after.n).pad
            old_labels = {e.label for e in old.entries}
            assert {e.label for e in new.entries} - old_labels == {new.entries[-1].label}


# --- externalize, then compact -------------------------------------------------------------


def test_an_unsealed_constraint_that_would_drop_is_externalized_first(tmp_path: Path) -> None:
    constraint = entry(
        "constraint",
        "c-retry",
        "Do not retry writes after a 5xx; the write may have landed. Check the batch by its "
        "idempotency key first, and resend only if it is absent.",
    )
    path = make_pad(tmp_path, [*BASE[:3], constraint, BASE[3]], 120)
    trial = padtui.plan(padtui.load(str(path)).pad)
    assert trial.code == "PROTECTED_KIND_WOULD_DROP"  # what a plain pass would refuse
    done = run_cli(str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "guard: sealed c-retry instead of dropping them"
    pad = formats.load(str(path)).pad
    kept = pad.find("c-retry")
    assert kept is not None and kept.sealed and kept.text == constraint["text"]
    record = pad.entries[-1]
    assert record.kind == "loss_record" and "c-retry" not in record.text
    origins = [v.origin for v in Journal.for_pad(str(path)).versions()]
    assert origins[-2:] == ["externalize", "compact"]


# --- halt and surface ------------------------------------------------------------------------


def test_a_sealed_region_over_budget_halts_loudly(tmp_path: Path) -> None:
    sealed = [
        entry("loss_record", f"loss-{k}", "dropped an earlier plan and three notes. " * 5, True)
        for k in range(4)
    ]
    path = make_pad(tmp_path, [*BASE, *sealed], 150)
    before = path.read_bytes()
    with pytest.raises(guard.GuardHalt) as caught:
        guard.guarded_compact(str(path))
    assert caught.value.code == "SEALED_OVER_BUDGET"
    assert str(caught.value).startswith("SEALED_OVER_BUDGET: the sealed region alone costs")
    assert isinstance(caught.value, padtui.UnrecoverableCompactionError)  # the seed's error
    done = run_cli(str(path))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("guard: HALT SEALED_OVER_BUDGET: ")
    assert path.read_bytes() == before


def test_bad_input_and_agent_files_are_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "pad.json"
    broken.write_text('{"entries": [')
    done = run_cli(str(broken))
    assert done.returncode == 2 and done.stderr.startswith(f"guard: error: {broken}: ")
    af = tmp_path / "agent.af"
    af.write_bytes((ROOT / "sample_pads" / "letta-support-agent.af").read_bytes())
    before = af.read_bytes()
    done = run_cli(str(af), "--budget", "200")
    assert done.returncode == 2 and "writing back to .af is not supported" in done.stderr
    assert af.read_bytes() == before


def test_the_rules_of_a_claude_md_are_sealed_where_they_stand_then_it_compacts(
    tmp_path: Path,
) -> None:
    from padtui.core.rules.finder import find_rules
    from tests.memory_files import CLAUDE_MD

    path = tmp_path / "CLAUDE.md"
    path.write_text(CLAUDE_MD, encoding="utf-8")
    old = formats.load(str(path)).pad
    assert padtui.plan(old, 240, fmt="md").code == "RULE_WOULD_DROP"
    result = guard.guarded_compact(str(path), 240)
    assert result.committed and result.externalized  # sealed instead of dropped
    new = formats.load(str(path)).pad
    assert {old.entries[r.entry].text for r in find_rules(old)} <= {e.text for e in new.entries}
    assert path.read_text(encoding="utf-8").count("<!-- sealed -->") == len(result.externalized)
