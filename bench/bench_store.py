"""The memory store's audit: a store of many files against one file of the same size, and
``padtui audit --git`` over a long history of a repository's memory.

Run: python bench/bench_store.py [--files 200] [--tokens 200000] [--commits 1000] [--rounds 5]

- *store vs file*: a store of ``--files`` Markdown files (a root CLAUDE.md, rules files,
  some scoped by ``paths:``, docs it links to) of about ``--tokens`` tokens in all, changed
  by moving a rule from one file to another and rewording a note; and one Markdown file of
  the same text (each file a section) changed the same way. Each run is a fresh process:
  read both versions and audit them (``padtui audit OLD_DIR NEW_DIR --json`` against
  ``padtui audit OLD.md NEW.md --json``), the two alternated; the medians and their ratio.
- *git history*: a synthetic repository (written with ``git fast-import``) whose
  ``--commits`` commits each change its memory store (a lesson added, a rule moved to
  another file, a topic file renamed or deleted, a consolidation) among commits that touch
  only code; ``padtui audit --git HEAD --json``, a whole process, as CI runs it.

State the machine's load beside any figure you publish (``uptime``).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from padgen import entry_text

PADTUI = [sys.executable, "-m", "padtui"]
RULES = [
    "Never push directly to `main`; open a pull request.",
    "Always run `make check` before a commit.",
    "Do not edit files under `src/generated/`.",
    "Never log card numbers, not even masked.",
    "Only use the `ledger` client for writes to the ledger.",
    "Do not retry writes after a 5xx from the billing API.",
]


def _file(rng: random.Random, serial: int, tokens: int, title: str) -> str:
    lines = [f"# {title}", "", "## Rules", ""]
    for k in range(3):
        lines.append(f"- {rng.choice(RULES)[:-1]} in module m{serial}-{k}.")
    lines += ["", "## Notes", ""]
    used = 60
    n = 0
    while used < tokens:
        text = entry_text(rng, serial * 1000 + n, 40).replace("\n", " ")
        lines.append(f"- {text}")
        used += 45
        n += 1
    return "\n".join(lines) + "\n"


def make_store(root: str, files: int, tokens: int, seed: int = 7) -> dict[str, str]:
    rng = random.Random(seed)
    per = tokens // files
    out: dict[str, str] = {}
    links = []
    for i in range(files - 1):
        if i % 3 == 0:
            path = f".claude/rules/area{i}.md"
            front = f"---\npaths: src/area{i}/**\n---\n\n" if i % 2 else ""
            out[path] = front + _file(rng, i, per, f"Area {i}")
        else:
            path = f"docs/agent/topic{i}.md"
            out[path] = _file(rng, i, per, f"Topic {i}")
            links.append(f"- Read [topic {i}]({path}) when working on topic {i}.")
    out["CLAUDE.md"] = _file(rng, files, per, "Project") + "\n## Docs\n\n" + "\n".join(links) + "\n"
    _write(root, out)
    return out


def _write(root: str, files: dict[str, str]) -> None:
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def changed(files: dict[str, str]) -> dict[str, str]:
    """A rule moved from CLAUDE.md to a rules file, and a note reworded."""
    new = dict(files)
    root = new["CLAUDE.md"].splitlines(keepends=True)
    rule = next(line for line in root if line.startswith("- ") and "module" in line)
    new["CLAUDE.md"] = "".join(line for line in root if line is not rule)
    target = sorted(p for p in new if p.startswith(".claude/rules/"))[0]
    new[target] = new[target].replace("## Notes\n", "## Notes\n\n" + rule, 1)
    other = sorted(p for p in new if p.startswith("docs/"))[0]
    lines = new[other].splitlines(keepends=True)
    lines[-1] = "- The importer now batches 500 rows a page and logs each one.\n"
    new[other] = "".join(lines)
    return new


def as_one_file(files: dict[str, str]) -> str:
    return "".join(
        text.replace("\n# ", "\n## ").replace("\n## Rules", "\n### Rules")
        for _path, text in sorted(files.items())
    )


def _run(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(PADTUI + argv, capture_output=True, check=False)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr.decode())
    return took


def store_vs_file(files: int, tokens: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        old_files = make_store(os.path.join(tmp, "old"), files, tokens)
        new_files = changed(old_files)
        _write(os.path.join(tmp, "new"), new_files)
        one_old, one_new = os.path.join(tmp, "old.md"), os.path.join(tmp, "new.md")
        for path, got in ((one_old, old_files), (one_new, new_files)):
            with open(path, "w", encoding="utf-8") as f:
                f.write(as_one_file(got))
        size = sum(len(t) for t in old_files.values())
        store: list[float] = []
        single: list[float] = []
        dirs = ["audit", os.path.join(tmp, "old"), os.path.join(tmp, "new"), "--json"]
        for _ in range(rounds):
            store.append(_run(dirs))
            single.append(_run(["audit", one_old, one_new, "--json"]))
        a, b = statistics.median(store), statistics.median(single)
        print(f"store of {files} files, {size / 1024:.0f} KB: audit {a:.2f} s median")
        print(f"one file of the same text: audit {b:.2f} s median")
        print(f"ratio store / file: {a / b:.2f}")


def _blob(text: str) -> bytes:
    data = text.encode()
    return b"data %d\n%s\n" % (len(data), data)


def make_history(repo: str, commits: int, seed: int = 11) -> None:
    """A repository whose commits change its memory store in the ways people do."""
    rng = random.Random(seed)
    subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True)
    files: dict[str, str] = {
        "CLAUDE.md": "# Project\n\n## Rules\n\n" + "".join(f"- {r}\n" for r in RULES[:4]),
        "AGENTS.md": "# Agents\n\n## Rules\n\n- Run `make check` before a commit.\n",
        "memory/MEMORY.md": "# Memory\n\n",
        "src/app.py": "print('hi')\n",
    }
    stream: list[bytes] = []
    for n in range(commits):
        serial = n
        kind = rng.random()
        subject = "Touch the code"
        if n < 3 or kind < 0.5:
            topic = f"memory/topic{serial % 12}.md"
            text = files.get(topic, f"# Topic {serial % 12}\n\n## Lessons\n\n")
            lesson = entry_text(rng, serial, 25).replace("\n", " ")
            files[topic] = text + f"- Never {lesson[:1].lower()}{lesson[1:]}\n"
            index = f"- [Topic {serial % 12}]({topic[7:]})\n"
            if index not in files["memory/MEMORY.md"]:
                files["memory/MEMORY.md"] += index
            subject = f"Remember lesson {serial}"
        elif kind < 0.6:
            rules = [p for p in files if p.startswith("memory/topic")]
            src = rng.choice(rules)
            lines = files[src].splitlines(keepends=True)
            if len(lines) > 5:
                rule = lines.pop()
                files[src] = "".join(lines)
                files["CLAUDE.md"] += rule
                subject = f"Move a rule from {src} to CLAUDE.md"
        elif kind < 0.65:
            topics = [p for p in files if p.startswith("memory/topic")]
            gone = rng.choice(topics)
            del files[gone]
            subject = f"Consolidate: delete {gone}"
        else:
            files["src/app.py"] += f"print({n})\n"
        stream.append(b"commit refs/heads/main\n")
        stream.append(b"committer Dana <dana@example.com> %d +0000\n" % (1700000000 + n * 60))
        stream.append(_blob(subject))
        stream.append(b"deleteall\n")
        for path, text in sorted(files.items()):
            stream.append(b"M 100644 inline %s\n" % path.encode())
            stream.append(_blob(text))
        stream.append(b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)


def git_history(commits: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        make_history(repo, commits)
        took = []
        for _ in range(rounds):
            start = time.perf_counter()
            done = subprocess.run(
                [*PADTUI, "audit", "--git", "main", "--json"],
                cwd=repo,
                capture_output=True,
                check=False,
            )
            took.append(time.perf_counter() - start)
            if done.returncode not in (0, 1):
                raise SystemExit(done.stderr.decode())
        audited = done.stdout.count(b'"commit": "')
        print(
            f"audit --git over {commits} commits ({audited} changed the store): "
            f"{statistics.median(took):.2f} s median ({min(took):.2f}-{max(took):.2f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--tokens", type=int, default=200_000)
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", choices=("store", "git"))
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.1f}")
    if args.only != "git":
        store_vs_file(args.files, args.tokens, args.rounds)
    if args.only != "store":
        git_history(args.commits, args.rounds)


if __name__ == "__main__":
    main()
