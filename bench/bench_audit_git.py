"""``padtui audit --git`` on a 100-commit history of a CLAUDE.md.

Run: python bench/bench_audit_git.py [--commits 100] [--rounds 7]

A temporary repository gets a CLAUDE.md in the style of a project memory file (preferences
holding rules, lessons, dated notes) and ``--commits`` commits to it: most add a lesson or a
note, one in ten compacts the notes into one and records the loss. Measured, each the median
of ``--rounds``:

- *range*: ``padtui audit --git ROOT..HEAD CLAUDE.md --json``, a whole process, as CI runs it
  (every commit audited against the one before);
- *its parts*, in process: the ``git log`` of the range, the one ``git cat-file --batch``
  of the blobs, and the parsing and audits;
- *staged*: ``padtui audit --git CLAUDE.md`` with one change staged, a whole process, as the
  pre-commit hook runs it;
- for scale, one ``padtui audit OLD NEW`` of two versions on disk, and ``padtui --version``.

The parts are measured in one process, round after round: token counts and the encoding
are cached after the first round, as they are not in a fresh process.

State the machine's load beside any figure you publish (``uptime``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ENV = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}

HEAD = """\
# Project memory

## User Preferences
- Never retry writes after a 5xx from the billing API; surface the error instead.
- Always run `make lint` before pushing a branch.
- Do not edit anything under vendor/; it is synced from upstream.

## Lessons
"""


def _git(repo: str, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, env=ENV, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def _history(repo: str, commits: int) -> str:
    """The repository's root commit; ``commits`` commits to CLAUDE.md after it."""
    _git(repo, "init", "-q", "-b", "main")
    lessons = ["- The staging database resets every night at 02:00 UTC."]
    notes: list[str] = []
    losses: list[str] = []

    def write(message: str) -> None:
        text = HEAD + "\n".join(lessons) + "\n\n## Notes\n" + "\n".join(notes) + "\n"
        if losses:
            text += "\n## Loss records\n" + "\n".join(losses) + "\n"
        with open(os.path.join(repo, "CLAUDE.md"), "w") as f:
            f.write(text)
        _git(repo, "add", "CLAUDE.md")
        _git(repo, "commit", "-q", "-m", message)

    write("Start the project memory")
    root = _git(repo, "rev-parse", "HEAD")
    for n in range(1, commits + 1):
        if n % 10 == 0 and len(notes) > 2:
            losses.append(f"- Compacted {len(notes)} dated notes into one (commit {n}).")
            notes = [f"- Batches {n - 9}-{n} of the importer are in; see the ledger."]
            write(f"Compact the notes ({n})")
        elif n % 3 == 0:
            lessons.append(f"- Lesson {n}: the queue worker {n} needs a warm cache first.")
            write(f"Remember lesson {n}")
        else:
            notes.append(f"- 2026-04-{n % 28 + 1:02d}: imported batch {n}, {n * 37} rows.")
            write(f"Note batch {n}")
    return root


def _median_s(argv: list[str], repo: str, rounds: int) -> tuple[float, float, float, int]:
    times, code = [], 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        done = subprocess.run(argv, cwd=repo, env=ENV, capture_output=True, check=False)
        times.append(time.perf_counter() - t0)
        code = done.returncode
        if code not in (0, 1):
            sys.exit(f"failed: {done.stderr.decode()}")
    return statistics.median(times), min(times), max(times), code


def _parts(repo: str, rev_range: str, rounds: int) -> dict[str, float]:
    sys.path.insert(0, ROOT)
    from padtui.core.audit.rewrite import audit
    from padtui.core.counting.tokens import counter_for
    from padtui.core.formats import MAX_PAD_BYTES, parse
    from padtui.core.history import git

    path = os.path.join(repo, "CLAUDE.md")
    got: dict[str, list[float]] = {"git log": [], "cat-file": [], "parse + audit": []}
    for _ in range(rounds):
        t0 = time.perf_counter()
        found, _note = git.changes(path, rev_range)
        t1 = time.perf_counter()
        data = git.blobs(path, [o for c in found for o in (c.before, c.after) if o], MAX_PAD_BYTES)
        t2 = time.perf_counter()
        counter = counter_for(None)
        pads = {
            oid: parse(path, raw, "md").pad for oid, raw in data.items() if isinstance(raw, bytes)
        }
        for c in found:
            if c.before and c.after:
                audit(pads[c.before], pads[c.after], counter)
        t3 = time.perf_counter()
        got["git log"].append(t1 - t0)
        got["cat-file"].append(t2 - t1)
        got["parse + audit"].append(t3 - t2)
    return {k: statistics.median(v) for k, v in got.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    padtui = [sys.executable, "-m", "padtui"]
    with tempfile.TemporaryDirectory(prefix="padtui-bench-git-") as repo:
        root = _history(repo, args.commits)
        size = os.path.getsize(os.path.join(repo, "CLAUDE.md"))
        rev_range = f"{root}..HEAD"
        print(f"CLAUDE.md: {args.commits} commits after the first, {size} bytes at HEAD")
        med, lo, hi, code = _median_s(
            [*padtui, "audit", "--git", rev_range, "CLAUDE.md", "--json"], repo, args.rounds
        )
        print(
            f"range, whole process:  {med * 1000:7.1f} ms median "
            f"({lo * 1000:.1f}-{hi * 1000:.1f}), exit {code}"
        )
        for part, seconds in _parts(repo, rev_range, args.rounds).items():
            print(f"  {part + ':':<20} {seconds * 1000:7.1f} ms")
        with open(os.path.join(repo, "CLAUDE.md"), "a") as f:
            f.write("- Prefer small pull requests.\n")
        _git(repo, "add", "CLAUDE.md")
        med, lo, hi, code = _median_s([*padtui, "audit", "--git", "CLAUDE.md"], repo, args.rounds)
        print(
            f"staged, whole process: {med * 1000:7.1f} ms median "
            f"({lo * 1000:.1f}-{hi * 1000:.1f}), exit {code}"
        )
        for name, rev in (("old.md", "HEAD~1"), ("new.md", "HEAD")):
            with open(os.path.join(repo, name), "w") as f:
                f.write(_git(repo, "show", f"{rev}:CLAUDE.md") + "\n")
        med, lo, hi, _ = _median_s([*padtui, "audit", "old.md", "new.md"], repo, args.rounds)
        print(f"(one padtui audit OLD NEW, whole process: {med * 1000:.1f} ms median)")
        med, lo, hi, _ = _median_s([*padtui, "--version"], repo, args.rounds)
        print(f"(padtui --version, the floor: {med * 1000:.1f} ms median)")
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute average), {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
