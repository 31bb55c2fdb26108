"""Memory stores for tests: a folder built from ``{path: text}``, and a git repository whose
commits each change some files of one (text None deletes a file). The texts are written for
these tests, in the styles real agents' memory files have."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path


def make_store(root: Path, files: Mapping[str, str]) -> Path:
    """A folder holding each file at its path (folders made as needed)."""
    root.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def git_store(repo: Path, commits: list[tuple[str, Mapping[str, str | None]]]) -> Path:
    """A repository with one commit per ``(subject, changes)``: each path written with its
    text, or removed (None); ``{"old": "new"}`` under the key ``"mv "`` renames."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    for subject, changes in commits:
        for path, text in changes.items():
            if path.startswith("mv "):
                old, new = path[3:], text or ""
                (repo / new).parent.mkdir(parents=True, exist_ok=True)
                git(repo, "mv", old, new)
            elif text is None:
                git(repo, "rm", "-q", path)
            else:
                make_store(repo, {path: text})
                git(repo, "add", path)
        git(repo, "commit", "-q", "--allow-empty", "-m", subject)
    return repo
