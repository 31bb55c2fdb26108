"""Rebuild the real-history corpus of memory-file rewrites from public git histories.

Each line of manifest.jsonl names one pair: a repository, a memory file in it, the commit
before and the commit after a rewrite, and the label a reader gave it by meaning. No file
content is kept here; given local clones (or bare git directories) of the repositories,
this script writes every pair back as NAME/old.EXT, NAME/new.EXT and NAME/label.json:

    python bench/real_history/build.py --git-root ~/clones --out /tmp/real-history

A repository owner/name is looked up under --git-root as owner+name/repo, owner+name,
owner/name or owner/name.git. Pairs whose repository or commits are missing are listed and
skipped; the exit status is then 1. A malformed manifest line is reported with its line
number and the script exits 2.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

MANIFEST = Path(__file__).resolve().parent / "manifest.jsonl"
REQUIRED = ("name", "repo", "file", "old_commit", "new_commit", "ext", "verdict", "split")
NOT_IN_LABEL = ("name", "old_commit", "new_commit", "ext")
EXTS = ("md", "mdc")


class ManifestError(Exception):
    pass


def read_manifest(path: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    names: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ManifestError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise ManifestError(f"{where}: expected an object")
        missing = [key for key in REQUIRED if not isinstance(row.get(key), str)]
        if missing:
            raise ManifestError(f"{where}: missing or non-text field(s) {', '.join(missing)}")
        name = str(row["name"])
        if "/" in name or name.startswith(".") or name in names:
            raise ManifestError(f"{where}: bad or repeated name {name!r}")
        if row["ext"] not in EXTS:
            raise ManifestError(f"{where}: ext must be one of {', '.join(EXTS)}")
        names.add(name)
        rows.append(row)
    return rows


def find_git_dir(root: Path, repo: str) -> Path | None:
    owner, _, name = repo.partition("/")
    candidates = [
        root / f"{owner}+{name}" / "repo",
        root / f"{owner}+{name}",
        root / owner / name,
        root / owner / f"{name}.git",
    ]
    for candidate in candidates:
        if (candidate / "HEAD").is_file() or (candidate / ".git").exists():
            return candidate
    return None


def show(git_dir: Path, commit: str, path: str) -> bytes | None:
    done = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"]
        if (git_dir / "HEAD").is_file()
        else ["git", "-C", str(git_dir), "show", f"{commit}:{path}"],
        capture_output=True,
        check=False,
    )
    return done.stdout if done.returncode == 0 else None


def build(rows: list[dict[str, object]], root: Path, out: Path) -> list[str]:
    problems: list[str] = []
    for row in rows:
        name, repo, path = str(row["name"]), str(row["repo"]), str(row["file"])
        git_dir = find_git_dir(root, repo)
        if git_dir is None:
            problems.append(f"{name}: no git directory for {repo} under {root}")
            continue
        old = show(git_dir, str(row["old_commit"]), path)
        new = show(git_dir, str(row["new_commit"]), path)
        if old is None or new is None:
            problems.append(f"{name}: {repo} lacks {path} at one of its commits")
            continue
        if old == new:
            problems.append(f"{name}: both versions of {path} are identical")
            continue
        target = out / name
        target.mkdir(parents=True, exist_ok=True)
        ext = str(row["ext"])
        (target / f"old.{ext}").write_bytes(old)
        (target / f"new.{ext}").write_bytes(new)
        label = {key: value for key, value in row.items() if key not in NOT_IN_LABEL}
        (target / "label.json").write_text(
            json.dumps(label, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--git-root", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        rows = read_manifest(args.manifest)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"{args.manifest}: cannot read ({exc})", file=sys.stderr)
        return 2
    except ManifestError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    problems = build(rows, args.git_root, args.out)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(rows) - len(problems)} of {len(rows)} pairs written to {args.out}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
