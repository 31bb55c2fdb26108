"""A scripted consolidation pass over an auto-memory folder, for ``padtui store --demo``.

Like Claude Code's auto-memory "dream", it writes the folder as any agent would (plain file
writes, deletes), step by step: a lesson added to a topic file; a topic file folded into the
index, its rule moved there (carried: reported as moved); then a topic file deleted with
its rule (a corruption the store's audit names by the file). It is a client of the store,
not part of padtui's core.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

START = {
    "CLAUDE.md": "# Project\n\n## Rules\n\n- Never push directly to `main`; open a pull request.\n",
    "memory/MEMORY.md": (
        "# Memory index\n\n"
        "- [Testing feedback](feedback_testing.md): how the user wants tests run\n"
        "- [Deploys](project_deploys.md): when and how we ship\n"
        "- [Go style](feedback_go.md): the user's Go preferences\n"
    ),
    "memory/feedback_testing.md": (
        "---\nname: testing feedback\ntype: feedback\n---\n\n"
        "- Run only `pytest -q`, never the full tox run.\n"
        "- The integration suite needs the local stack up first.\n"
    ),
    "memory/project_deploys.md": (
        "---\nname: deploys\ntype: project\n---\n\n"
        "- Deploy on Tuesdays only, never on Fridays.\n"
        "- The release train leaves at 14:00 UTC.\n"
    ),
    "memory/feedback_go.md": (
        "---\nname: go style\ntype: feedback\n---\n\n- Never use `panic` in library code.\n"
    ),
}


def _add_lesson(root: str) -> str:
    path = os.path.join(root, "memory", "feedback_go.md")
    with open(path, "a", encoding="utf-8") as f:
        f.write("- Wrap errors with `%w`, never `%v`.\n")
    return "a lesson added to feedback_go.md"


def _fold_testing(root: str) -> str:
    index = os.path.join(root, "memory", "MEMORY.md")
    with open(index, encoding="utf-8") as f:
        text = f.read()
    text = text.replace(
        "- [Testing feedback](feedback_testing.md): how the user wants tests run\n", ""
    )
    text += (
        "\n## Testing\n\n- Run only `pytest -q`, never the full tox run.\n"
        "- The integration suite needs the local stack up first.\n"
    )
    with open(index, "w", encoding="utf-8") as f:
        f.write(text)
    os.remove(os.path.join(root, "memory", "feedback_testing.md"))
    return "feedback_testing.md folded into MEMORY.md and deleted"


def _drop_deploys(root: str) -> str:
    index = os.path.join(root, "memory", "MEMORY.md")
    with open(index, encoding="utf-8") as f:
        text = f.read()
    text = text.replace("- [Deploys](project_deploys.md): when and how we ship\n", "")
    with open(index, "w", encoding="utf-8") as f:
        f.write(text)
    os.remove(os.path.join(root, "memory", "project_deploys.md"))
    return "project_deploys.md deleted as stale"


STEPS: tuple[Callable[[str], str], ...] = (_add_lesson, _fold_testing, _drop_deploys)


def make_store(root: str) -> None:
    for path, text in START.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def run(
    root: str,
    interval: float,
    said: Callable[[str], None] = lambda _line: None,
    stopped: Callable[[], bool] = lambda: False,
) -> None:
    """Each step after ``interval`` seconds (stopping early when ``stopped()``)."""
    for step in STEPS:
        deadline = time.monotonic() + interval
        while time.monotonic() < deadline:
            if stopped():
                return
            time.sleep(min(0.05, interval))
        said(step(root))
