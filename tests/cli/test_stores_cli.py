"""The commands on a memory store of many files: ``padtui memory DIR``, ``padtui audit
OLD_DIR NEW_DIR`` and ``padtui audit --git [RANGE]`` with no path (each commit's store
against its first parent's, and the staged store for a pre-commit hook)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from padtui.cli import main
from tests.stores import git, git_store, make_store

CLAUDE = """# Project memory

## Rules

- Never push directly to main; open a pull request.
- Always run `make check` before a commit.
- Do not edit files under `src/generated/`.
"""
GENERATED = "- Do not edit files under `src/generated/`.\n"
TOPIC = "# Deploys\n\n- Deploy on Tuesdays only, never on Fridays.\n"
INDEX = "# Memory\n\n- [Deploys](deploys.md): when we ship\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_memory_lists_each_file_when_it_loads_and_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    make_store(
        tmp_path,
        {
            "CLAUDE.md": CLAUDE + "\nSee [deploys](docs/deploys.md).\n",
            "docs/deploys.md": TOPIC,
            ".claude/rules/api.md": "---\npaths: src/api/**\n---\n- Never return raw rows.\n",
        },
    )
    code, out, err = run(capsys, "memory", str(tmp_path))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{tmp_path}: 3 memory file(s), 1 loaded at start"
    assert any(ln.split()[:2] == ["always", "CLAUDE.md"] for ln in lines)
    assert any(
        "paths" in ln and ".claude/rules/api.md" in ln and "src/api/**" in ln for ln in lines
    )
    assert any("on demand" in ln and "linked from CLAUDE.md" in ln for ln in lines)
    code, out, _ = run(capsys, "memory", str(tmp_path), "--json")
    got = json.loads(out)
    assert {f["path"]: f["scope"] for f in got["files"]} == {
        "CLAUDE.md": "always",
        "docs/deploys.md": "on_demand",
        ".claude/rules/api.md": "paths",
    }


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["memory", "{tmp}/nope"], "no such folder"),
        (["memory", "{tmp}", "--pattern", "kb/*.md=sometimes"], "unknown scope"),
        (["memory", "{tmp}", "--only-patterns"], "--only-patterns needs"),
        (["audit", "{tmp}", "{tmp}/CLAUDE.md"], "not a folder"),
        (["audit", "{tmp}", "{tmp}/gone"], "gone: no such file or folder"),
        (["store"], "takes DIR, or --demo"),
        (["store", "{tmp}"], "needs a terminal"),
        (["store", "{tmp}/nope"], "no such folder"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], says: str
) -> None:
    make_store(tmp_path, {"CLAUDE.md": CLAUDE})
    code, out, err = run(capsys, *[a.format(tmp=tmp_path) for a in argv])
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and says in err


def test_audit_of_two_folders_carries_a_moved_rule_and_catches_a_lost_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    old = make_store(tmp_path / "old", {"CLAUDE.md": CLAUDE})
    moved = make_store(
        tmp_path / "moved",
        {"CLAUDE.md": CLAUDE.replace(GENERATED, ""), "AGENTS.md": "# Agents\n\n" + GENERATED},
    )
    lost = make_store(tmp_path / "lost", {"CLAUDE.md": CLAUDE.replace(GENERATED, "")})
    code, out, _ = run(capsys, "audit", str(old), str(moved))
    assert code == 0
    assert "RULE_MOVED [CLAUDE.md]" in out and "from CLAUDE.md to AGENTS.md" in out
    code, out, _ = run(capsys, "audit", str(old), str(lost), "--json")
    got = json.loads(out)
    assert code == 1 and got["verdict"] == "corruption" and got["store"] is True
    assert [f["code"] for f in got["findings"]] == ["CONSTRAINT_DROPPED"]
    assert got["findings"][0]["file"] == "CLAUDE.md"


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@needs_git
def test_audit_git_with_no_path_audits_the_store_at_each_commit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = git_store(
        tmp_path / "repo",
        [
            ("Start", {"README.md": "# service\n"}),
            ("Add the memory", {"CLAUDE.md": CLAUDE, "memory/MEMORY.md": INDEX}),
            ("Note deploys", {"memory/deploys.md": TOPIC}),
            ("Touch the code", {"src/app.py": "print('hi')\n"}),
            (
                "Move the generated-code rule",
                {"CLAUDE.md": CLAUDE.replace(GENERATED, ""), "AGENTS.md": "# A\n\n" + GENERATED},
            ),
            ("Rename the memory", {"mv memory/deploys.md": "memory/shipping.md"}),
            ("Consolidate memory", {"memory/shipping.md": None}),
        ],
    )
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, "audit", "--git", "HEAD", "--json")
    assert err == ""
    got = json.loads(out)
    assert code == 1 and got["failed"] is True
    subjects = [r["subject"] for r in got["results"]]
    assert subjects == [
        "Add the memory",
        "Note deploys",
        "Move the generated-code rule",
        "Rename the memory",
        "Consolidate memory",
    ]
    by = {r["subject"]: r for r in got["results"]}
    assert by["Move the generated-code rule"]["verdict"] in ("growth", "compaction")
    assert [
        (f["code"], f["file"], f["to"]) for f in by["Move the generated-code rule"]["findings"]
    ] == [("RULE_MOVED", "CLAUDE.md", "AGENTS.md")]
    renamed = [f for f in by["Rename the memory"]["files"] if f["change"] != "unchanged"]
    assert [(f["path"], f["change"], f["was"]) for f in renamed] == [
        ("memory/shipping.md", "renamed", "memory/deploys.md")
    ]
    assert by["Rename the memory"]["findings"] == []
    last = by["Consolidate memory"]
    assert last["verdict"] == "corruption"
    assert [(f["code"], f["file"]) for f in last["findings"] if f["severity"] == "critical"] == [
        ("CONSTRAINT_DROPPED", "memory/shipping.md")
    ]
    code, out, _ = run(capsys, "audit", "--git", "HEAD~3..HEAD~1")
    assert code == 0
    assert out.splitlines()[-1] == "gate: passed: 2 change(s) to the memory store, none corrupt"


@needs_git
def test_the_staged_store_is_gated_against_head(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = git_store(
        tmp_path / "repo",
        [
            (
                "Add the memory",
                {"CLAUDE.md": CLAUDE, "memory/MEMORY.md": INDEX, "memory/deploys.md": TOPIC},
            )
        ],
    )
    monkeypatch.chdir(repo)
    code, out, _ = run(capsys, "audit", "--git")
    assert (code, out) == (0, "gate: passed: no change to the memory store\n")
    # a rule moved into the index before the topic file goes: the commit passes
    make_store(
        repo,
        {
            "memory/MEMORY.md": INDEX
            + "\n## Rules\n\n- Deploy on Tuesdays only, never on Fridays.\n"
        },
    )
    git(repo, "add", "memory/MEMORY.md")
    git(repo, "rm", "-q", "memory/deploys.md")
    code, out, _ = run(capsys, "audit", "--git")
    assert code == 0 and "RULE_MOVED [memory/deploys.md]" in out
    # the topic file goes with its rule: the commit fails
    git(repo, "reset", "-q", "--hard")
    git(repo, "rm", "-q", "memory/deploys.md")
    code, out, _ = run(capsys, "audit", "--git")
    assert code == 1
    assert "CONSTRAINT_DROPPED [memory/deploys.md] memory/deploys.md was deleted" in out
    assert out.splitlines()[-1].startswith("gate: failed")


@needs_git
def test_a_symbolic_link_in_git_is_the_file_it_points_to(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = git_store(tmp_path / "repo", [("Add the memory", {".agents/AGENTS.md": CLAUDE})])
    (repo / "CLAUDE.md").symlink_to(".agents/AGENTS.md")
    git(repo, "add", "CLAUDE.md")
    git(repo, "commit", "-q", "-m", "Link CLAUDE.md")
    make_store(repo, {".agents/AGENTS.md": CLAUDE.replace(GENERATED, "")})
    git(repo, "commit", "-q", "-am", "Drop the generated-code rule")
    monkeypatch.chdir(repo)
    code, out, _ = run(capsys, "audit", "--git", "HEAD", "--json")
    got = json.loads(out)
    by = {r["subject"]: r for r in got["results"]}
    linked = {f["path"]: f["scope"]["after"] for f in by["Link CLAUDE.md"]["files"]}
    assert linked == {".agents/AGENTS.md": "always"}  # (was for paths: a subfolder's)
    assert code == 1
    assert by["Drop the generated-code rule"]["verdict"] == "corruption"


@needs_git
def test_a_shallow_clones_first_commit_is_the_base_not_an_addition(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = git_store(
        tmp_path / "repo",
        [
            ("Add the memory", {"CLAUDE.md": CLAUDE}),
            ("Add agents", {"AGENTS.md": "# Agents\n\n- Use tabs.\n"}),
            ("Drop a rule", {"CLAUDE.md": CLAUDE.replace(GENERATED, "")}),
        ],
    )
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{repo}", str(clone))
    monkeypatch.chdir(clone)
    code, out, _ = run(capsys, "audit", "--git", "HEAD", "--json")
    got = json.loads(out)
    assert [r["subject"] for r in got["results"]] == ["Drop a rule"]
    assert code == 1


def test_the_store_pre_commit_hook_runs_the_gate_with_no_path() -> None:
    import re

    text = (Path(__file__).parents[2] / ".pre-commit-hooks.yaml").read_text()
    hook = text[text.index("- id: padtui-audit-store") :]
    assert re.search(r"^  entry: padtui audit --git$", hook, re.M)
    assert re.search(r"^  pass_filenames: false$", hook, re.M)
    assert re.search(r"^  always_run: true$", hook, re.M)
