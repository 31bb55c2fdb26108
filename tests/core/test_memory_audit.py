"""Two versions of a store judged as one memory: a rule that moved to another file is
carried and reported as moved, one carried nowhere (a deleted file's too) is dropped, and one
now loaded less often is a warning."""

from __future__ import annotations

from pathlib import Path

from padtui.core.audit.findings import FindingCode as C
from padtui.core.audit.rewrite import audit
from padtui.core.formats import load_pad
from padtui.core.memory.audit import StoreAudit, audit_stores
from padtui.core.memory.discovery import folder_store
from padtui.core.vocabulary import Verdict
from tests.stores import make_store

CLAUDE = """# Project notes

## Rules

- Never push directly to main; open a pull request.
- Always run `make check` before a commit.
- Do not edit files under `src/generated/`.

## Stack

The API is written in Go 1.22 and the web app in TypeScript.
"""


def stores(tmp_path: Path, old: dict[str, str], new: dict[str, str]) -> StoreAudit:
    a = folder_store(str(make_store(tmp_path / "old", old)))
    b = folder_store(str(make_store(tmp_path / "new", new)))
    return audit_stores(a, b)


def test_a_rule_moved_to_an_always_loaded_file_is_carried_and_reported_moved(
    tmp_path: Path,
) -> None:
    old = {"CLAUDE.md": CLAUDE}
    new = {
        "CLAUDE.md": CLAUDE.replace("- Do not edit files under `src/generated/`.\n", ""),
        ".claude/rules/generated.md": (
            "# Generated code\n\n- Do not edit files under `src/generated/`.\n"
        ),
    }
    result = stores(tmp_path, old, new)
    assert result.verdict in (Verdict.GROWTH, Verdict.COMPACTION)
    moved = [f for f in result.findings if f.code == C.RULE_MOVED]
    assert [(f.file, f.to, f.rules) for f in moved] == [
        ("CLAUDE.md", ".claude/rules/generated.md", 1)
    ]
    assert "src/generated/" in (moved[0].finding.before or "")
    assert moved[0].severity == "info"
    # the single-file audit of CLAUDE.md alone calls the same change corruption
    single = audit(
        load_pad(str(tmp_path / "old" / "CLAUDE.md")), load_pad(str(tmp_path / "new" / "CLAUDE.md"))
    )
    assert single.verdict == Verdict.CORRUPTION


def test_a_rule_moved_into_a_paths_scoped_file_is_narrowed(tmp_path: Path) -> None:
    old = {"CLAUDE.md": CLAUDE}
    new = {
        "CLAUDE.md": CLAUDE.replace("- Do not edit files under `src/generated/`.\n", ""),
        ".claude/rules/generated.md": (
            "---\npaths: src/**\n---\n\n- Do not edit files under `src/generated/`.\n"
        ),
    }
    result = stores(tmp_path, old, new)
    assert result.verdict != Verdict.CORRUPTION
    [f] = [f for f in result.findings if f.code == C.RULE_SCOPE_NARROWED]
    assert (f.file, f.to, f.severity) == ("CLAUDE.md", ".claude/rules/generated.md", "warning")
    assert "only for some paths" in f.finding.message
    assert C.RULE_MOVED not in result.codes


def test_a_rule_moved_into_a_skill_is_narrowed_to_on_demand(tmp_path: Path) -> None:
    new = {
        "CLAUDE.md": CLAUDE.replace("- Always run `make check` before a commit.\n", ""),
        ".claude/skills/commit/SKILL.md": (
            "---\nname: commit\n---\n\n- Always run `make check` before a commit.\n"
        ),
    }
    result = stores(tmp_path, {"CLAUDE.md": CLAUDE}, new)
    [f] = [f for f in result.findings if f.code == C.RULE_SCOPE_NARROWED]
    assert "on demand" in f.finding.message


def test_a_rule_in_no_file_of_the_new_store_is_dropped(tmp_path: Path) -> None:
    new = {
        "CLAUDE.md": CLAUDE.replace("- Never push directly to main; open a pull request.\n", ""),
        "AGENTS.md": "# Agents\n\n- Always run `make check` before a commit.\n",
    }
    result = stores(tmp_path, {"CLAUDE.md": CLAUDE}, new)
    assert result.verdict == Verdict.CORRUPTION
    [f] = [f for f in result.findings if f.code == C.CONSTRAINT_DROPPED]
    assert f.file == "CLAUDE.md" and "main" in (f.finding.before or "")


def test_a_deleted_files_rules_are_lost_unless_carried_elsewhere(tmp_path: Path) -> None:
    old = {
        "memory/MEMORY.md": "# Memory\n\n- [Go](go.md)\n- [Deploy](deploy.md)\n",
        "memory/go.md": "# Go\n\n- Never use `panic` in library code.\n",
        "memory/deploy.md": "# Deploy\n\n- Deploy on Tuesdays only, never on Fridays.\n",
    }
    kept = {
        "memory/MEMORY.md": (
            "# Memory\n\n## Rules\n\n- Never use `panic` in library code.\n"
            "- Deploy on Tuesdays only, never on Fridays.\n"
        ),
    }
    result = stores(tmp_path / "a", old, kept)
    assert result.verdict != Verdict.CORRUPTION
    assert {(f.file, f.to) for f in result.findings if f.code == C.RULE_MOVED} == {
        ("memory/go.md", "memory/MEMORY.md"),
        ("memory/deploy.md", "memory/MEMORY.md"),
    }
    assert {c.path: c.change for c in result.files}["memory/go.md"] == "deleted"
    lost = {"memory/MEMORY.md": "# Memory\n\n- [Go](go.md)\n", "memory/go.md": old["memory/go.md"]}
    result = stores(tmp_path / "b", old, lost)
    assert result.verdict == Verdict.CORRUPTION
    [f] = [f for f in result.findings if f.code == C.CONSTRAINT_DROPPED]
    assert f.file == "memory/deploy.md"
    assert f.finding.message.startswith("memory/deploy.md was deleted")


def test_a_renamed_file_moves_nothing(tmp_path: Path) -> None:
    new = {"AGENTS.md": CLAUDE}
    result = stores(tmp_path, {"CLAUDE.md": CLAUDE}, new)
    assert result.verdict in (Verdict.UNCHANGED, Verdict.GROWTH)
    assert result.findings == ()
    assert [(c.path, c.change, c.was) for c in result.files] == [
        ("AGENTS.md", "renamed", "CLAUDE.md")
    ]


def test_a_file_whose_scope_narrowed_says_so_once(tmp_path: Path) -> None:
    rules = "# API\n\n- Never return raw rows.\n- Always paginate lists.\n"
    old = {".claude/rules/api.md": rules}
    new = {".claude/rules/api.md": "---\npaths: src/api/**\n---\n" + rules}
    result = stores(tmp_path, old, new)
    [f] = [f for f in result.findings if f.code == C.RULE_SCOPE_NARROWED]
    assert f.rules == 2 and "2 rules in .claude/rules/api.md" in f.finding.message


def test_a_rule_pushed_past_line_200_of_memory_md_is_narrowed(tmp_path: Path) -> None:
    filler = "".join(f"- Note {i}: the importer handles case {i}.\n" for i in range(210))
    rule = "- Never run migrations against production from a laptop.\n"
    old = {"MEMORY.md": "# Memory\n\n" + rule + filler}
    new = {"MEMORY.md": "# Memory\n\n" + filler + rule}
    result = stores(tmp_path, old, new)
    [f] = [f for f in result.findings if f.code == C.RULE_SCOPE_NARROWED]
    assert "migrations" in (f.finding.before or "") and "on demand" in f.finding.message


def test_one_verdict_for_the_store_and_findings_per_file_in_json(tmp_path: Path) -> None:
    new = {
        "CLAUDE.md": CLAUDE.replace("- Do not edit files under `src/generated/`.\n", ""),
        "AGENTS.md": "# Agents\n\n- Do not edit files under `src/generated/`.\n",
    }
    got = stores(tmp_path, {"CLAUDE.md": CLAUDE}, new).as_json()
    assert got["verdict"] in ("growth", "compaction")
    files = {f["path"]: f for f in got["files"]}
    assert files["AGENTS.md"]["change"] == "added"
    assert [f["code"] for f in files["CLAUDE.md"]["findings"]] == ["RULE_MOVED"]
    assert files["CLAUDE.md"]["findings"][0]["to"] == "AGENTS.md"


def test_a_file_moved_with_small_edits_is_renamed_and_rules_naming_it_still_hold(
    tmp_path: Path,
) -> None:
    guide = "".join(f"- Step {i}: register the tool in `tools/index.ts` first.\n" for i in range(6))
    agents = "# Agents\n\n## Rules\n\n- Always read {path} before adding a tool.\n"
    old = {"AGENTS.md": agents.format(path="docs/adding-tools.md"), "docs/adding-tools.md": guide}
    new = {
        "AGENTS.md": agents.format(path="docs/contributing/adding-tools.md"),
        "docs/contributing/adding-tools.md": guide + "- Step 6: add a snapshot test.\n",
    }
    result = stores(tmp_path, old, new)
    assert result.verdict != Verdict.CORRUPTION, result.codes
    changes = {c.path: (c.change, c.was) for c in result.files}
    assert changes["docs/contributing/adding-tools.md"] == ("renamed", "docs/adding-tools.md")
    assert C.RULE_MOVED not in result.codes
