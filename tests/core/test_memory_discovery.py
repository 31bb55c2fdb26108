"""A memory store is found under a root by the table of patterns per agent, with what its
files import, link to or tell the agent to read, each with its scope and why it is in."""

from __future__ import annotations

from pathlib import Path

import pytest

from padtui.core.errors import PadError
from padtui.core.memory.discovery import folder_store
from padtui.core.memory.patterns import from_option
from padtui.core.vocabulary import Scope
from tests.stores import make_store

A, P, D = Scope.ALWAYS, Scope.PATHS, Scope.ON_DEMAND


def scopes(root: Path, **kw: object) -> dict[str, Scope]:
    return {f.path: f.scope for f in folder_store(str(root), **kw).files}  # type: ignore[arg-type]


def test_each_agents_files_are_found_with_when_they_load(tmp_path: Path) -> None:
    make_store(
        tmp_path,
        {
            "CLAUDE.md": "# Project\n\n- Never push to main.\n",
            "CLAUDE.local.md": "- Use my sandbox account.\n",
            ".claude/rules/api.md": (
                '---\npaths:\n  - "src/api/**/*.py"\n---\n- Never return raw rows.\n'
            ),
            ".claude/rules/style.md": "- Always use type hints.\n",
            ".claude/skills/release/SKILL.md": (
                "---\nname: release\n---\n- Tag before you publish.\n"
            ),
            "packages/web/CLAUDE.md": "- No inline styles.\n",
            "AGENTS.md": "- Run `make check` before a commit.\n",
            "services/api/AGENTS.md": "- Never edit generated clients.\n",
            "GEMINI.md": "- Answer in English.\n",
            "packages/core/GEMINI.md": "- Keep core free of I/O.\n",
            ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\n- Use pnpm, not npm.\n",
            ".cursor/rules/tests.mdc": (
                "---\nglobs: tests/**/*.ts\nalwaysApply: false\n---\n- No snapshots.\n"
            ),
            ".cursor/rules/ask.mdc": (
                "---\ndescription: migrations\nalwaysApply: false\n---\n- Ask first.\n"
            ),
            ".cursorrules": "Never commit secrets.\n",
            ".windsurfrules": "Always write tests.\n",
            ".windsurf/rules/db.md": "---\ntrigger: model_decision\n---\n- No raw SQL.\n",
            ".clinerules/01-style.md": "- Prefer small functions.\n",
            "memory-bank/activeContext.md": "# Active context\n\nWorking on the importer.\n",
            ".github/copilot-instructions.md": "- Use tabs.\n",
            ".github/instructions/py.instructions.md": (
                "---\napplyTo: '**/*.py'\n---\n- Use ruff.\n"
            ),
            "memory/system/persona.md": "---\nlabel: persona\n---\nI am careful.\n",
            "README.md": "# A project\n",
            "src/notes.md": "not memory\n",
        },
    )
    assert scopes(tmp_path) == {
        "CLAUDE.md": A,
        "CLAUDE.local.md": A,
        ".claude/rules/api.md": P,
        ".claude/rules/style.md": A,
        ".claude/skills/release/SKILL.md": D,
        "packages/web/CLAUDE.md": P,
        "AGENTS.md": A,
        "services/api/AGENTS.md": P,
        "GEMINI.md": A,
        "packages/core/GEMINI.md": P,
        ".cursor/rules/always.mdc": A,
        ".cursor/rules/tests.mdc": P,
        ".cursor/rules/ask.mdc": D,
        ".cursorrules": A,
        ".windsurfrules": A,
        ".windsurf/rules/db.md": D,
        ".clinerules/01-style.md": A,
        "memory-bank/activeContext.md": A,
        ".github/copilot-instructions.md": A,
        ".github/instructions/py.instructions.md": P,
        "memory/system/persona.md": A,
    }


def test_each_file_says_why_it_is_in(tmp_path: Path) -> None:
    make_store(
        tmp_path,
        {
            ".claude/rules/api.md": "---\npaths: src/api/**\n---\n- Never return raw rows.\n",
            ".cursor/rules/tests.mdc": "---\nglobs: tests/**/*.ts\n---\n- No snapshots.\n",
        },
    )
    why = {f.path: f.why for f in folder_store(str(tmp_path)).files}
    assert why[".claude/rules/api.md"] == ("a Claude Code rules file (for paths src/api/**)",)
    assert "tests/**/*.ts" in why[".cursor/rules/tests.mdc"][0]


def test_imports_load_with_their_importer_links_and_reads_on_demand(tmp_path: Path) -> None:
    make_store(
        tmp_path,
        {
            "CLAUDE.md": (
                "# Rules\n\n@docs/conventions.md\n\n- See [the release steps](docs/release.md).\n"
                "- Read `agent_docs/testing.md` before you change a test.\n"
                "- Our site is [here](https://example.org/x.md); `@not/an/import.md` is code.\n"
            ),
            "docs/conventions.md": "- Never rename a public function.\n\n@../shared/base.md\n",
            "shared/base.md": "- Always keep the changelog.\n",
            "docs/release.md": "- Tag before you publish.\n",
            "agent_docs/testing.md": "- No network in unit tests.\n",
            "not/an/import.md": "- x\n",
        },
    )
    store = folder_store(str(tmp_path))
    got = {f.path: (f.scope, f.why) for f in store.files}
    assert got["docs/conventions.md"] == (A, ("imported by CLAUDE.md",))
    assert got["shared/base.md"] == (A, ("imported by docs/conventions.md",))
    assert got["docs/release.md"] == (D, ("linked from CLAUDE.md",))
    assert got["agent_docs/testing.md"] == (D, ("named in CLAUDE.md",))
    assert "not/an/import.md" not in got


def test_auto_memory_topic_files_load_on_demand_beside_their_index(tmp_path: Path) -> None:
    make_store(
        tmp_path,
        {
            "memory/MEMORY.md": "# Memory\n\n- [Build](build.md): how we build\n",
            "memory/build.md": "- Never run the full build on battery.\n",
            "memory/feedback_tabs.md": "- Use tabs in Go files.\n",
            "docs/guide.md": "# A guide, beside no index\n",
        },
    )
    store = folder_store(str(tmp_path))
    got = {f.path: f for f in store.files}
    assert got["memory/MEMORY.md"].scope == A and got["memory/MEMORY.md"].lines == 200
    assert got["memory/build.md"].scope == D
    assert got["memory/feedback_tabs.md"].scope == D
    assert "docs/guide.md" not in got


def test_a_file_reached_twice_keeps_the_widest_scope_and_every_reason(tmp_path: Path) -> None:
    make_store(
        tmp_path,
        {
            "AGENTS.md": "- See [testing](docs/testing.md).\n",
            "CLAUDE.md": "@docs/testing.md\n",
            "docs/testing.md": "- No network in unit tests.\n",
        },
    )
    f = folder_store(str(tmp_path)).get("docs/testing.md")
    assert f is not None and f.scope == A
    assert set(f.why) == {"linked from AGENTS.md", "imported by CLAUDE.md"}


def test_the_user_extends_the_table_by_option_and_by_config(tmp_path: Path) -> None:
    make_store(
        tmp_path,
        {
            "CLAUDE.md": "- Never push to main.\n",
            "team/rules.md": "- Two reviews for a release.\n",
            "kb/deploy.md": "- Deploy on Tuesdays only.\n",
            ".padtui.toml": (
                '[[memory.pattern]]\nglob = "kb/*.md"\nscope = "on_demand"\nagent = "team"\n'
            ),
        },
    )
    got = scopes(tmp_path, extra=[from_option("team/*.md=paths")])
    assert got == {"CLAUDE.md": A, "team/rules.md": P, "kb/deploy.md": D}
    (tmp_path / ".padtui.toml").write_text(
        '[memory]\nreplace = true\n[[memory.pattern]]\nglob = "kb/*.md"\n', encoding="utf-8"
    )
    assert scopes(tmp_path) == {"kb/deploy.md": A}


@pytest.mark.parametrize(
    ("config", "place"),
    [
        ("[[memory.pattern]]\nscope = 'always'\n", "memory.pattern #1"),
        ("[[memory.pattern]]\nglob = 'x'\nscope = 'sometimes'\n", "memory.pattern #1"),
        ("[memory\n", "not valid TOML"),
    ],
)
def test_a_bad_config_is_one_line_naming_the_place(tmp_path: Path, config: str, place: str) -> None:
    make_store(tmp_path, {".padtui.toml": config, "CLAUDE.md": "- x\n"})
    with pytest.raises(PadError) as err:
        folder_store(str(tmp_path))
    assert ".padtui.toml" in err.value.line() and place in err.value.line()
    assert "\n" not in err.value.line()


def test_an_unreadable_file_is_noted_and_the_rest_found(tmp_path: Path) -> None:
    make_store(tmp_path, {"CLAUDE.md": "- Never push to main.\n"})
    (tmp_path / "AGENTS.md").write_bytes(b"\xff\xfe bad")
    store = folder_store(str(tmp_path))
    assert [f.path for f in store.files] == ["CLAUDE.md"]
    assert any(n.startswith("AGENTS.md: not read") for n in store.notes)


def test_a_missing_root_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(PadError, match="no such folder"):
        folder_store(str(tmp_path / "nope"))


def test_a_symbolic_link_is_the_file_it_points_to_loaded_at_the_links_scope(
    tmp_path: Path,
) -> None:
    make_store(
        tmp_path,
        {
            ".agents/AGENTS.md": "- Never push to main.\n",
            "web/AGENTS.md": "- No inline styles. See [the root](../AGENTS.md).\n",
        },
    )
    (tmp_path / "AGENTS.md").symlink_to(".agents/AGENTS.md")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    store = folder_store(str(tmp_path))
    assert {f.path: f.scope for f in store.files} == {".agents/AGENTS.md": A, "web/AGENTS.md": P}
    why = " ".join(store.files[0].why)
    assert "loaded as AGENTS.md" in why and "loaded as CLAUDE.md" in why


def test_the_table_takes_copilot_files_and_a_memory_banks_subfolders(tmp_path: Path) -> None:
    make_store(
        tmp_path,
        {
            "memory-bank/progress.md": "- Importer done.\n",
            "memory-bank/instructions/git.instructions.md": "- Never force-push.\n",
            ".github/prompts/release.prompt.md": "- Tag first.\n",
            "docs/py.instructions.md": "---\napplyTo: '**'\n---\n- Use ruff.\n",
        },
    )
    assert scopes(tmp_path) == {
        "memory-bank/progress.md": A,
        "memory-bank/instructions/git.instructions.md": D,
        ".github/prompts/release.prompt.md": D,
        "docs/py.instructions.md": A,
    }


def test_an_index_of_files_and_shared_skills_are_found_on_demand(tmp_path: Path) -> None:
    make_store(
        tmp_path,
        {
            "AGENTS.md": (
                "# Agents\n\n## Documentation map\n\n**Contributing:**\n"
                "- docs/contributing/style.md — the style guide\n"
                "- `docs/contributing/prs.md`: pull requests\n"
            ),
            "docs/contributing/style.md": "- Use sentence case.\n",
            "docs/contributing/prs.md": "- One change per PR.\n",
            ".agents/skills/triage/SKILL.md": "---\nname: triage\n---\n- Never run commands.\n",
            "docs/other.md": "- Not named anywhere.\n",
        },
    )
    assert scopes(tmp_path) == {
        "AGENTS.md": A,
        "docs/contributing/style.md": D,
        "docs/contributing/prs.md": D,
        ".agents/skills/triage/SKILL.md": D,
    }


def test_an_extension_in_capitals_is_the_same_file_a_name_is_not(tmp_path: Path) -> None:
    make_store(tmp_path, {"AGENTS.MD": "- Use uv.\n", "docs/agents.md": "# About agents\n"})
    assert scopes(tmp_path) == {"AGENTS.MD": A}
