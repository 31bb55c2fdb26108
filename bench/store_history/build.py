"""Rebuild the labelled multi-file memory changes of bench/store_history from git histories.

Each line of manifest.jsonl names one change: a repository, a commit and its first parent, and
the paths of the memory store at both (``old_files``, ``new_files``). The file contents are not
kept here; this script takes them again from a folder of git directories of those repositories:

    python bench/store_history/build.py --mirrors DIR --out OUT [--only NAME ...] [--discover]

For ``owner/name`` it looks for ``DIR/owner+name/repo``, ``DIR/owner+name``, ``DIR/name.git``
and ``DIR/name`` (a bare git directory or a clone). It writes ``OUT/NAME/old/`` and
``OUT/NAME/new/`` with the files at their paths, and ``OUT/NAME/label.json`` (the manifest line).
With ``--discover`` the store is found again by the patterns below instead of the recorded lists.

    python bench/store_history/build.py --git-dir GITDIR --rev REV --out DIR

writes the store found at one revision (to label a new change).

The store: every ``CLAUDE.md``/``AGENTS.md``/``GEMINI.md``/``CRUSH.md``/``CLAUDE.local.md`` at
any depth (also spelt ``.MD``, as a case-blind file system finds it), ``.claude/CLAUDE.md``,
``.claude/rules/**``, the Markdown files of a skill's folder (``.claude/skills/*/``,
``.agents/skills/*/``, at any depth), ``.cursor/rules/**``, ``.cursorrules``, ``.windsurfrules``,
``.windsurf/rules/**``, ``.clinerules`` (file or folder), ``memory-bank/**``,
``.github/copilot-instructions.md``, ``.github/instructions/**``, ``agent_docs/**``; plus, one
level deep, each local Markdown file one of those imports (``@path``), links to, or names on a
line that tells the agent to read, see or follow it. A symbolic link is written as a link, with
the target git records (even a dangling one). Paths under ``node_modules``, vendored or
test-fixture folders are left out, and so are linked files over 256 KiB. A store over 2 MiB on
either side is refused.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import subprocess
import sys
from pathlib import Path

MEMORY = re.compile(
    r"(^|/)(CLAUDE|AGENTS|GEMINI|CRUSH|CLAUDE\.local)\.(md|MD)$"
    r"|^\.claude/rules/"
    r"|(^|/)\.(claude|agents)/skills/[^/]+/[^/]+\.md$"
    r"|^\.cursor/rules/"
    r"|(^|/)\.cursorrules$"
    r"|^\.windsurfrules$"
    r"|^\.windsurf/rules/"
    r"|^\.clinerules(/|$)"
    r"|(^|/)memory-bank/.+\.md$"
    r"|^\.github/copilot-instructions\.md$"
    r"|^\.github/instructions/.+\.md$"
    r"|^agent_docs/.+\.md$"
)
SKIP = re.compile(
    r"(^|/)(node_modules|vendor|third_party|__fixtures__|fixtures|testdata|test-data|\.git)/"
)
IMPORT = re.compile(r"(?<![\w`@/])@((?:\.{1,2}/|~/)?[\w.-]+(?:/[\w.-]+)*\.mdc?)\b")
LINK = re.compile(r"\]\(\s*<?([^)\s>#]+\.mdc?)(?:#[^)\s]*)?>?\s*\)")
NAMED = re.compile(r"(?<![\w/.-])((?:\.{1,2}/)?[\w.-]+(?:/[\w.-]+)*\.mdc?)\b")
READ_VERB = re.compile(
    r"\b(read|reads|reading|see|refer|follow|consult|load|check|documented in|details in|"
    r"described in|defined in|rules in|guide)\b",
    re.IGNORECASE,
)
MAX_LINKED = 256 * 1024
MAX_STORE = 2 * 1024 * 1024


def git(gitdir: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(gitdir), *args], check=True, capture_output=True
    ).stdout


def tree(gitdir: Path, rev: str) -> dict[str, int]:
    """Paths of the blobs at rev, with their sizes (-1 for a symbolic link)."""
    out = git(gitdir, "ls-tree", "-r", "-l", "-z", rev)
    sizes: dict[str, int] = {}
    for row in out.split(b"\0"):
        if not row:
            continue
        meta, path = row.split(b"\t", 1)
        mode, kind, _, size = meta.split()
        if kind == b"blob":
            name = path.decode("utf-8", "surrogateescape")
            # a blob missing from a partial copy has no size ("BAD"): never follow it
            sizes[name] = -1 if mode == b"120000" else int(size) if size.isdigit() else 1 << 40
    return sizes


def blob(gitdir: Path, rev: str, path: str) -> bytes:
    return git(gitdir, "show", f"{rev}:{path}")


def is_memory(path: str) -> bool:
    return bool(MEMORY.search(path)) and not SKIP.search(path)


def mentioned(path: str, text: str) -> set[str]:
    """Local Markdown paths that a memory file imports, links to, or tells the agent to read."""
    found: set[str] = set()
    in_code = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        found.update(IMPORT.findall(line))
        found.update(m for m in LINK.findall(line) if "://" not in m)
        if READ_VERB.search(line):
            found.update(NAMED.findall(line))
    return found


def resolve(base: str, ref: str, paths: dict[str, int]) -> str | None:
    if ref.startswith("~/"):
        return None
    here = posixpath.dirname(base)
    for cand in (posixpath.join(here, ref), ref.lstrip("/")):
        norm = posixpath.normpath(cand)
        if not norm.startswith("..") and norm in paths:
            return norm
    return None


def discover(gitdir: Path, rev: str) -> list[str]:
    paths = tree(gitdir, rev)
    primary = sorted(p for p in paths if is_memory(p))
    store = set(primary)
    for p in primary:
        if paths[p] < 0:
            continue
        if not p.endswith((".md", ".mdc")) and "/" in p and not p.startswith(".clinerules"):
            continue
        text = blob(gitdir, rev, p).decode("utf-8", "replace")
        for ref in mentioned(p, text):
            hit = resolve(p, ref, paths)
            if hit and not SKIP.search(hit) and 0 <= paths[hit] <= MAX_LINKED:
                store.add(hit)
    return sorted(store)


def write(gitdir: Path, rev: str, files: list[str], out: Path) -> int:
    """Write files at rev under out (a symbolic link as a link); return the bytes written."""
    total = 0
    out.mkdir(parents=True, exist_ok=True)
    links = {p for p, size in tree(gitdir, rev).items() if size < 0}
    for path in files:
        data = blob(gitdir, rev, path)
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if path in links:
            target.symlink_to(data.decode("utf-8", "surrogateescape"))
            continue
        total += len(data)
        target.write_bytes(data)
    return total


def find_gitdir(mirrors: Path, repo: str) -> Path | None:
    owner, name = repo.split("/", 1)
    for cand in (
        mirrors / f"{owner}+{name}" / "repo",
        mirrors / f"{owner}+{name}",
        mirrors / f"{name}.git",
        mirrors / name,
    ):
        if (cand / "HEAD").is_file():
            return cand
        if (cand / ".git" / "HEAD").exists():
            return cand / ".git"
    return None


def rebuild(entry: dict, mirrors: Path, out: Path, rediscover: bool) -> str:
    gitdir = find_gitdir(mirrors, entry["repo"])
    if gitdir is None:
        return f"{entry['name']}: no git directory for {entry['repo']} under {mirrors}"
    dest = out / entry["name"]
    for side, rev in (("old", entry["parent"]), ("new", entry["commit"])):
        files = discover(gitdir, rev) if rediscover else entry[f"{side}_files"]
        size = write(gitdir, rev, files, dest / side)
        if size > MAX_STORE:
            return f"{entry['name']}: its {side} store has {size} bytes, over {MAX_STORE}"
    (dest / "label.json").write_text(json.dumps(entry, indent=2) + "\n", encoding="utf-8")
    return ""


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", type=Path, default=here / "manifest.jsonl")
    ap.add_argument("--mirrors", type=Path, help="folder of git directories")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", nargs="*", default=None, help="names of changes to rebuild")
    ap.add_argument("--discover", action="store_true", help="find the stores again by pattern")
    ap.add_argument("--git-dir", type=Path, help="write the store of one revision")
    ap.add_argument("--rev")
    args = ap.parse_args(argv)
    if args.git_dir:
        if not args.rev:
            ap.error("--git-dir needs --rev")
        files = discover(args.git_dir, args.rev)
        size = write(args.git_dir, args.rev, files, args.out)
        print(f"{len(files)} files, {size} bytes -> {args.out}")
        return 0
    if not args.mirrors:
        ap.error("--mirrors is required to rebuild the manifest's changes")
    entries = [
        json.loads(line)
        for line in args.manifest.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    if args.only:
        entries = [e for e in entries if e["name"] in set(args.only)]
    failed = 0
    for entry in entries:
        problem = rebuild(entry, args.mirrors, args.out, args.discover)
        if problem:
            failed += 1
            print(problem, file=sys.stderr)
    print(f"{len(entries) - failed} of {len(entries)} changes rebuilt under {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
