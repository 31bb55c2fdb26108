"""The memory files in force, found as Claude Code finds them: ``@`` imports, the managed
policy, CLAUDE.md files below the working folder, and the auto memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from padtui.claude.memory import imports_of, memory_rules, read_memory
from tests.claude.sessions import FAITHFUL, Session


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    return home


def rules(project: Path, transcript: Path | None = None, reads: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    notes: list[str] = []
    memory = read_memory(str(project), str(transcript) if transcript else None, notes, reads)
    return {r.text: r.source for r in memory_rules(memory, notes)}, notes


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- @imports -------------------------------------------------------------------------------


def test_imports_are_read_relative_to_the_importing_file_and_cited(
    tmp_path: Path, home: Path
) -> None:
    project = tmp_path / "shop"
    write(project / "CLAUDE.md", "# Shop\n\nGit workflow: @docs/git.md\n")
    write(project / "docs" / "git.md", "- Never force-push.\n\nSee @../shared/db.md too.\n")
    write(project / "shared" / "db.md", "- Never drop a table by hand.\n")
    write(home / "mine.md", "- Always answer in English.\n")
    write(project / "CLAUDE.local.md", "- @~/mine.md\n")
    found, notes = rules(project)
    assert found["Never force-push."] == "docs/git.md, imported by CLAUDE.md"
    assert found["Never drop a table by hand."] == "shared/db.md, imported by docs/git.md"
    assert found["Always answer in English."] == "~/mine.md, imported by CLAUDE.local.md"
    assert notes == []


def test_an_import_inside_code_is_code() -> None:
    text = (
        "Use @a.md here.\n\n"
        "Write `@decorator.py` in code, and ``x @b.md``.\n\n"
        "```python\n@c.md\n```\n\n"
        "~~~\n@d.md\n~~~\n"
        "Mail me at someone@example.com (see @e.md).\n"
    )
    assert imports_of(text) == ["a.md", "e.md"]


def test_imports_stop_after_five_hops_and_survive_a_cycle(tmp_path: Path, home: Path) -> None:
    project = tmp_path / "p"
    write(project / "CLAUDE.md", "@h1.md\n")
    for n in range(1, 8):
        write(project / f"h{n}.md", f"- Never touch module {n}.\n\n@h{n + 1}.md\n")
    write(project / "h8.md", "@CLAUDE.md\n@h1.md\n")  # back to the start
    found, _notes = rules(project)
    held = sorted(t for t in found if t.startswith("Never touch"))
    assert held == [f"Never touch module {n}." for n in range(1, 6)]


def test_a_missing_import_is_noted_and_the_rest_still_read(tmp_path: Path, home: Path) -> None:
    project = tmp_path / "p"
    write(project / "CLAUDE.md", "- Never skip review.\n\nSee @docs/gone.md, ask @alice.\n")
    found, notes = rules(project)
    assert "Never skip review." in found
    assert notes == ["CLAUDE.md: imports docs/gone.md, which does not exist"]


# --- the managed policy ----------------------------------------------------------------------


def test_the_managed_policy_is_in_force_and_cited_by_its_path(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = write(tmp_path / "etc" / "CLAUDE.md", "## Security\n\n- Never paste secrets.\n")
    monkeypatch.setenv("PADTUI_CLAUDE_MANAGED", str(policy))
    found, _ = rules(tmp_path / "project")
    assert found["Never paste secrets."] == str(policy)


# --- loaded on demand ------------------------------------------------------------------------


def test_a_claude_md_below_the_working_folder_counts_once_the_session_read_there(
    tmp_path: Path, home: Path
) -> None:
    project = tmp_path / "p"
    write(project / "src" / "api" / "CLAUDE.md", "- Never log request bodies.\n")
    write(project / "src" / "CLAUDE.md", "- Always type public functions.\n")
    write(project / "web" / "CLAUDE.md", "- Never inline styles.\n")
    assert rules(project)[0] == {}
    found, _ = rules(project, reads=(str(project / "src" / "api" / "views.py"),))
    assert found == {
        "Always type public functions.": "src/CLAUDE.md",
        "Never log request bodies.": "src/api/CLAUDE.md",
    }


def test_a_rules_file_scoped_by_paths_counts_once_a_matching_file_was_read(
    tmp_path: Path, home: Path
) -> None:
    project = tmp_path / "p"
    rules_dir = project / ".claude" / "rules"
    write(rules_dir / "all.md", "- Always write tests first.\n")
    api = '---\npaths:\n  - "src/api/**/*.py"\n  - docs/api.md\n---\n\n- Never return raw rows.\n'
    write(rules_dir / "api.md", api)
    write(rules_dir / "ui" / "web.md", "---\npaths: web/**/*.{ts,tsx}\n---\n- No inline styles.\n")
    write(home / ".claude" / "rules" / "go.md", '---\npaths: ["**/*.go"]\n---\n- Never panic.\n')
    assert set(rules(project)[0]) == {"Always write tests first."}
    read = (str(project / "src" / "api" / "v1" / "views.py"), "web/app.tsx", "cmd/main.go")
    found, _ = rules(project, reads=read)
    assert found == {
        "Always write tests first.": ".claude/rules/all.md",
        "Never return raw rows.": ".claude/rules/api.md",
        "No inline styles.": ".claude/rules/ui/web.md",
        "Never panic.": "~/.claude/rules/go.md",
    }
    assert set(rules(project, reads=("src/api.py", "web/app.js"))[0]) == {
        "Always write tests first."
    }


def test_auto_memory_counts_its_first_200_lines_and_the_topic_files_read(
    tmp_path: Path, home: Path
) -> None:
    folder = home / ".claude" / "projects" / "-p" / "memory"
    transcript = folder.parent / "s.jsonl"
    lines = ["# Memory", "", "- Never deploy on Fridays."]
    lines += [f"- note {n}" for n in range(200)]
    lines += ["- Never rotate the keys by hand."]  # (line 204: not loaded)
    write(folder / "MEMORY.md", "\n".join(lines) + "\n")
    topic = write(folder / "testing.md", "- Always run the slow tests before a release.\n")
    found, _ = rules(tmp_path / "p", transcript)
    assert "Never deploy on Fridays." in found
    assert "Never rotate the keys by hand." not in found
    assert "Always run the slow tests before a release." not in found
    found, _ = rules(tmp_path / "p", transcript, (str(topic),))
    assert found["Always run the slow tests before a release."] == (
        "~/.claude/projects/-p/memory/testing.md"
    )


# --- through the hooks -----------------------------------------------------------------------


def test_a_summary_that_loses_an_imported_or_nested_rule_gives_it_back_with_its_file(
    tmp_path: Path,
) -> None:
    s = Session(tmp_path)
    write(s.project / "CLAUDE.md", "# Shop\n\n## Rules\n\n- Never push to `main` directly.\n")
    write(s.project / "src" / "api" / "CLAUDE.md", "- Never log request bodies.\n")
    s.conversation()
    s.read_file(s.project / "src" / "api" / "views.py")
    pre = s.run("claude", "pre-compact", stdin=s.event("PreCompact", trigger="auto"))
    assert pre.returncode == 0 and pre.stderr == ""
    s.compact(FAITHFUL)
    post = s.run("claude", "post-compact", stdin=s.event("PostCompact", compact_summary=FAITHFUL))
    assert "1 dropped" in json.loads(post.stdout)["systemMessage"]
    start = s.run("claude", "session-start", stdin=s.event("SessionStart", source="compact"))
    assert "- Never log request bodies.  (from src/api/CLAUDE.md)" in start.stdout
    assert "Never push" not in start.stdout  # (loaded again after the compaction)


def test_a_flood_of_imports_is_cut_short_with_one_note(tmp_path: Path, home: Path) -> None:
    project = tmp_path / "p"
    names = [f"part{n}.md" for n in range(250)]
    for n, name in enumerate(names):
        write(project / "parts" / name, f"- Never touch table t{n}.\n")
    write(project / "CLAUDE.md", "".join(f"@parts/{n}\n" for n in names))
    found, notes = rules(project)
    assert 150 < len(found) < 250
    assert notes == ["more than 200 memory files and imports: the rest were not read"]
