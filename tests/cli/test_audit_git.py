"""``padtui audit --git``: a temporary repository with a history of a CLAUDE.md, audited commit
by commit over a range, and staged against HEAD as the pre-commit hook runs it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from padtui.cli import main

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

ROOT = Path(__file__).parents[2]

START = """\
# Project memory

## User Preferences
- Never retry writes after a 5xx from the billing API; surface the error to the user instead.
- Always run `make lint` before pushing a branch.
- Do not edit anything under vendor/; it is synced from upstream.

## Lessons
- The staging database is reset every night at 02:00 UTC; do not keep fixtures there.

## Notes
- 2026-03-02: moved the importer to the queue worker.
- 2026-03-04: the importer now batches 500 rows a page.
- 2026-03-05: the importer logs each page it sends.
- The team prefers small pull requests.
"""
LESSON = "- The staging database is reset every night at 02:00 UTC; do not keep fixtures there.\n"
FLAKY = "- test_sync_timeout is flaky on CI: rerun it once, then report it.\n"
NOTES = """\
- 2026-03-02: moved the importer to the queue worker.
- 2026-03-04: the importer now batches 500 rows a page.
- 2026-03-05: the importer logs each page it sends.
"""
COMPACTED = (
    "- The importer runs on the queue worker, 500 rows a page, and logs each page it sends.\n"
)
LOSS = "\n## Loss records\n- Compacted the March importer notes (2026-03-02, -04, -05) into one.\n"
RETRY = (
    "Never retry writes after a 5xx from the billing API; surface the error to the user instead."
)
VENDOR = "- Do not edit anything under vendor/; it is synced from upstream.\n"


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Dana Example")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "dana@example.com")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit(repo: Path, message: str, text: str | None, name: str = "CLAUDE.md") -> str:
    if text is None:
        git(repo, "rm", "-q", name)
    else:
        (repo / name).write_text(text)
        git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """README first; then CLAUDE.md added, a lesson learnt, an honest compaction, a rule
    weakened, a rule dropped."""
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "README.md").write_text("# service\n")
    git(tmp_path, "add", "README.md")
    git(tmp_path, "commit", "-q", "-m", "Start the service")
    text = START
    commit(tmp_path, "Add the project memory", text)
    text = text.replace(LESSON, LESSON + FLAKY)
    commit(tmp_path, "Remember the flaky sync test", text)
    text = text.replace(NOTES, COMPACTED) + LOSS
    commit(tmp_path, "Compact the importer notes", text)
    text = text.replace(RETRY, "Handle write errors from the billing API.")
    commit(tmp_path, "Tidy the retry preference", text)
    text = text.replace(VENDOR, "")
    commit(tmp_path, "Drop the vendor rule", text)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["audit", "--git", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code, out, err = run(capsys, *argv, "--json")
    assert err == ""
    return code, json.loads(out)


def test_each_commit_of_the_range_is_audited_against_the_version_before(capsys, repo):
    code, out, err = run(capsys, "HEAD~5..HEAD", str(repo / "CLAUDE.md"))
    assert (code, err) == (1, "")
    heads = [line for line in out.splitlines() if re.match(r"[0-9a-f]{7} ", line)]
    shas = git(repo, "log", "--format=%h", "--abbrev=7", "-5", "--reverse").split()
    assert heads == [
        f"{shas[0]} 'Add the project memory' (added): growth",
        f"{shas[1]} 'Remember the flaky sync test': growth",
        f"{shas[2]} 'Compact the importer notes': compaction",
        f"{shas[3]} 'Tidy the retry preference': corruption",
        f"{shas[4]} 'Drop the vendor rule': corruption",
    ]
    assert "CRITICAL CONSTRAINT_WEAKENED" in out
    assert "after:  Handle write errors from the billing API." in out
    assert "CRITICAL CONSTRAINT_DROPPED" in out
    assert out.splitlines()[0].endswith(": 5 commits in HEAD~5..HEAD changed it")
    assert out.splitlines()[-1] == "gate: failed: corruption or an unreadable pad in 2 of 5 changes"


def test_a_range_without_corruption_passes(capsys, repo):
    code, out, _ = run(capsys, "HEAD~5..HEAD~2", str(repo / "CLAUDE.md"))
    assert code == 0
    assert out.splitlines()[-1] == "gate: passed: 3 changes, none corrupt"


def test_the_first_commit_of_a_range_is_audited_against_the_range_base(capsys, repo):
    code, report = run_json(capsys, "HEAD~1..HEAD", str(repo / "CLAUDE.md"))
    assert code == 1
    [only] = report["results"]
    assert only["parent"] == git(repo, "rev-parse", "HEAD~1")
    assert [f["code"] for f in only["findings"]] == ["CONSTRAINT_DROPPED"]


def test_json_is_one_object_with_a_result_per_commit(capsys, repo):
    code, report = run_json(capsys, "HEAD~5..HEAD", str(repo / "CLAUDE.md"))
    assert code == 1
    assert report.keys() == {"range", "staged", "results", "failed", "notes"}
    assert report["notes"] == []
    assert (report["range"], report["staged"], report["failed"]) == ("HEAD~5..HEAD", False, True)
    rows = report["results"]
    assert [r["verdict"] for r in rows] == [
        "growth",
        "growth",
        "compaction",
        "corruption",
        "corruption",
    ]
    assert [r["change"] for r in rows] == ["added", *["modified"] * 4]
    assert rows[3]["commit"] == git(repo, "rev-parse", "HEAD~1")
    assert rows[3]["subject"] == "Tidy the retry preference"
    assert rows[0]["parent"] == git(repo, "rev-parse", "HEAD~5")
    assert {"code", "severity", "message"} <= rows[3]["findings"][0].keys()
    assert rows[2]["tokens"]["after"] < rows[2]["tokens"]["before"]


def test_a_range_that_does_not_touch_the_file_passes_when_git_tracks_it(capsys, repo):
    (repo / "README.md").write_text("# service\n\nmore\n")
    git(repo, "commit", "-q", "-am", "Readme")
    code, out, _ = run(capsys, "HEAD~1..HEAD", str(repo / "CLAUDE.md"))
    assert code == 0
    assert "no commit in HEAD~1..HEAD changed it" in out


def test_a_rename_is_followed_and_a_deletion_drops_every_rule(capsys, repo):
    git(repo, "mv", "CLAUDE.md", "AGENTS.md")
    git(repo, "commit", "-q", "-m", "Share the memory with every agent")
    text = (repo / "AGENTS.md").read_text() + "- Ask before adding a dependency.\n"
    commit(repo, "One more preference", text, "AGENTS.md")
    code, report = run_json(capsys, "HEAD~3..HEAD", str(repo / "AGENTS.md"))
    rows = report["results"]
    assert [(r["change"], r["verdict"]) for r in rows] == [
        ("modified", "corruption"),  # the vendor rule dropped, under its old name
        ("renamed", "unchanged"),
        ("modified", "growth"),
    ]
    assert (rows[0]["name"], rows[1]["old_name"]) == ("CLAUDE.md", "CLAUDE.md")
    assert code == 1
    commit(repo, "Remove the memory file", None, "AGENTS.md")
    code, report = run_json(capsys, "HEAD~1..HEAD", str(repo / "AGENTS.md"))
    [gone] = report["results"]
    assert (gone["change"], gone["verdict"], code) == ("deleted", "corruption", 1)
    assert {f["code"] for f in gone["findings"]} >= {"CONSTRAINT_DROPPED"}


def test_a_merge_is_audited_against_its_first_parent(capsys, repo):
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "topic", "HEAD~2")  # before the rule was weakened
    text = (repo / "CLAUDE.md").read_text().replace(FLAKY, FLAKY + "- Seed the queue first.\n")
    commit(repo, "Learn to seed the queue", text)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge topic", "topic")
    code, report = run_json(capsys, f"{base}..HEAD", str(repo / "CLAUDE.md"))
    assert code == 0
    rows = report["results"]
    assert [r["subject"] for r in rows] == ["Learn to seed the queue", "Merge topic"]
    merge = rows[1]
    assert merge["parent"] == base
    assert merge["verdict"] == "growth"  # only what the topic brought in over main's
    assert rows[0]["parent"] == git(repo, "rev-parse", f"{base}~2")


def test_an_unreadable_version_fails_and_the_next_is_audited_against_the_last_readable(
    capsys, repo
):
    good = (repo / "CLAUDE.md").read_text()
    (repo / "CLAUDE.md").write_bytes(b"\x00\x01binary\x00")
    git(repo, "commit", "-q", "-am", "Oops")
    commit(repo, "Restore, fixtures allowed", good.replace("; do not keep fixtures there", ""))
    code, report = run_json(capsys, "HEAD~2..HEAD", str(repo / "CLAUDE.md"))
    broken, restored = report["results"]
    assert (broken["verdict"], code) == ("unreadable", 1)
    assert "binary file (NUL byte)" in broken["problem"]
    assert "last readable" in restored["note"]
    assert restored["verdict"] == "corruption"  # the prohibition lost, seen across the gap


def test_staged_against_head_as_the_pre_commit_hook_runs_it(capsys, repo):
    pad = str(repo / "CLAUDE.md")
    code, out, _ = run(capsys, pad)
    assert code == 0
    assert out.splitlines() == [
        f"{pad} (staged, against HEAD): unchanged",
        "  note: nothing staged: the index holds HEAD's",
        "gate: passed: no change to audit",
    ]
    text = (repo / "CLAUDE.md").read_text()
    (repo / "CLAUDE.md").write_text(text + "- Prefer ruff over flake8.\n")
    code, out, _ = run(capsys, pad)
    assert (code, out.splitlines()[0]) == (0, f"{pad} (staged, against HEAD): unchanged")
    git(repo, "add", "CLAUDE.md")
    code, out, _ = run(capsys, pad)
    assert (code, out.splitlines()[0]) == (0, f"{pad} (staged, against HEAD): growth")
    (repo / "CLAUDE.md").write_text(text.replace("Always run", "Consider running"))
    git(repo, "add", "CLAUDE.md")
    (repo / "CLAUDE.md").write_text(text)  # the working tree is not what is committed
    code, report = run_json(capsys, pad)
    [staged] = report["results"]
    assert (code, report["staged"], report["range"]) == (1, True, None)
    assert (staged["commit"], staged["verdict"]) == (None, "corruption")


def test_several_staged_files_each_against_head(capsys, repo):
    (repo / "AGENTS.md").write_text("## Rules\n- Never push to main directly.\n")
    git(repo, "add", "AGENTS.md")
    code, report = run_json(capsys, str(repo / "CLAUDE.md"), str(repo / "AGENTS.md"))
    assert code == 0
    assert [(r["name"], r["change"], r["verdict"]) for r in report["results"]] == [
        ("CLAUDE.md", "unchanged", "unchanged"),
        ("AGENTS.md", "added", "growth"),
    ]


def test_staged_before_the_first_commit(capsys, tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "CLAUDE.md").write_text(START)
    git(tmp_path, "add", "CLAUDE.md")
    code, out, _ = run(capsys, str(tmp_path / "CLAUDE.md"))
    assert code == 0
    assert out.splitlines()[0].endswith("(staged, against HEAD) (added): growth")


def test_untrusted_commit_subjects_are_cleaned(capsys, repo):
    text = (repo / "CLAUDE.md").read_text() + "- Keep commits small.\n"
    (repo / "CLAUDE.md").write_text(text)
    git(repo, "commit", "-q", "-am", "Nice \x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J subject")
    code, out, _ = run(capsys, "HEAD~1..HEAD", str(repo / "CLAUDE.md"))
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "subject" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["nope..HEAD", "{repo}/CLAUDE.md"], "padtui: error: git: bad revision 'nope..HEAD'"),
        (["HEAD~1..HEAD", "{repo}/NOTES.md"], "NOTES.md: not tracked by git"),
        (["{repo}/NOTES.md"], "NOTES.md: not tracked by git"),
        (["{repo}/notes.txt"], "unsupported format '.txt'"),
        (["{bare}/CLAUDE.md"], "CLAUDE.md: not in a git repository"),
        (["HEAD~1..", "{bare}/CLAUDE.md"], "CLAUDE.md: not in a git repository"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, repo, tmp_path_factory, argv, says):
    bare = tmp_path_factory.mktemp("not-a-repo")
    (bare / "CLAUDE.md").write_text(START)
    argv = [a.format(repo=repo, bare=bare) for a in argv]
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("padtui: error: ")
    assert says in err


def test_a_path_going_up_is_a_path_not_a_range(capsys, repo, monkeypatch):
    (repo / "sub").mkdir()
    monkeypatch.chdir(repo / "sub")
    code, out, _ = run(capsys, "../CLAUDE.md")
    assert code == 0
    assert out.startswith("../CLAUDE.md (staged, against HEAD): unchanged")


def test_the_pre_commit_hook_runs_the_gate_on_memory_file_names():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "- id: padtui-audit" in text
    assert re.search(r"^  entry: padtui audit --git$", text, re.M)
    files = re.compile(re.search(r"^  files: (.*)$", text, re.M).group(1))
    for name in (
        "CLAUDE.md",
        "sub/CLAUDE.local.md",
        "AGENTS.md",
        "MEMORY.md",
        ".cursor/rules/api.mdc",
        ".cursorrules",
        ".clinerules",
        ".windsurfrules",
        "agents/support.af",
    ):
        assert files.search(name), name
    for name in ("README.md", "docs/CLAUDE.md.bak", "MYCLAUDE.md"):
        assert not files.search(name), name


def test_any_format_padtui_reads(capsys, tmp_path):
    samples = ROOT / "sample_pads"
    git(tmp_path, "init", "-q")
    before = (samples / "transitions" / "retry-5xx-before.json").read_text()
    commit(tmp_path, "Plan the backfill", before, "pad.json")
    after = (samples / "transitions" / "retry-5xx-after-condense.json").read_text()
    commit(tmp_path, "Condense", after, "pad.json")
    commit(tmp_path, "Export the agent", (samples / "letta-support-agent.af").read_text(), "a.af")
    code, report = run_json(capsys, "HEAD~2..HEAD", str(tmp_path / "pad.json"))
    [condensed] = report["results"]
    assert (condensed["verdict"], code) == ("corruption", 1)
    code, report = run_json(capsys, "HEAD~1..HEAD", str(tmp_path / "a.af"))
    assert ([r["verdict"] for r in report["results"]], code) == (["growth"], 0)


def test_a_symbolic_link_is_skipped_not_audited(capsys, repo):
    (repo / "AGENTS.md").symlink_to("CLAUDE.md")
    git(repo, "add", "AGENTS.md")
    code, out, _ = run(capsys, str(repo / "AGENTS.md"))
    assert code == 0
    assert out.splitlines()[:2] == [
        f"{repo / 'AGENTS.md'} (staged, against HEAD) (added): skipped",
        "  note: a symbolic link in git, not a pad: audit the file it points to",
    ]


def test_without_git_on_path_one_line_exit_2(capsys, repo, monkeypatch):
    monkeypatch.setenv("PATH", str(repo / "no-bin"))
    code, out, err = run(capsys, str(repo / "CLAUDE.md"))
    assert (code, out) == (2, "")
    assert err == "padtui: error: git: not found: --git runs the git command, and none is on PATH\n"


# --- renames and shallow clones ----------------------------------------------------------------


def test_a_staged_rename_is_audited_against_the_old_names_version(capsys, repo):
    git(repo, "mv", "CLAUDE.md", "AGENTS.md")
    text = (repo / "AGENTS.md").read_text().replace("Always run", "Consider running")
    (repo / "AGENTS.md").write_text(text)
    git(repo, "add", "AGENTS.md")
    pad = str(repo / "AGENTS.md")
    code, out, _ = run(capsys, pad)
    assert code == 1
    assert (
        out.splitlines()[0] == f"{pad} (staged, against HEAD) (renamed from CLAUDE.md): corruption"
    )
    assert "CRITICAL CONSTRAINT_WEAKENED" in out
    code, report = run_json(capsys, pad)
    [moved] = report["results"]
    assert (moved["change"], moved["old_name"], moved["name"]) == (
        "renamed",
        "CLAUDE.md",
        "AGENTS.md",
    )


def test_a_staged_move_into_a_folder_is_found_over_the_whole_index(capsys, repo):
    (repo / "docs").mkdir()
    git(repo, "mv", "CLAUDE.md", "docs/CLAUDE.md")
    code, report = run_json(capsys, str(repo / "docs" / "CLAUDE.md"))
    [moved] = report["results"]
    assert (code, moved["change"], moved["verdict"]) == (0, "renamed", "unchanged")
    assert moved["old_name"] == "CLAUDE.md"


def test_a_committed_rename_with_an_edit_is_audited_against_the_old_names_version(capsys, repo):
    git(repo, "mv", "CLAUDE.md", "AGENTS.md")
    text = (repo / "AGENTS.md").read_text().replace("Always run", "Consider running")
    commit(repo, "Share the memory, relax lint", text, "AGENTS.md")
    code, report = run_json(capsys, "HEAD~1..HEAD", str(repo / "AGENTS.md"))
    [moved] = report["results"]
    assert (moved["change"], moved["old_name"], moved["verdict"], code) == (
        "renamed",
        "CLAUDE.md",
        "corruption",
        1,
    )
    assert [f["code"] for f in moved["findings"]] == ["CONSTRAINT_WEAKENED"]


CUT_SHORT = "the history is shallow: HEAD~4 is not in this clone; audited its commits to HEAD"
NO_PARENT = "the history is shallow: the version before is not in this clone (git fetch --deepen)"


@pytest.fixture
def shallow(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of ``repo`` holding only its last two commits (as CI checks out)."""
    clone = tmp_path_factory.mktemp("ci") / "clone"
    git(repo.parent, "clone", "-q", "--depth", "2", repo.as_uri(), str(clone))
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    return clone


def test_a_shallow_clone_audits_what_it_has_and_says_the_history_is_shallow(capsys, shallow):
    pad = str(shallow / "CLAUDE.md")
    code, out, err = run(capsys, "HEAD~1..HEAD", pad)  # (all in the clone)
    assert (code, err) == (1, "")
    assert "shallow" not in out
    code, out, err = run(capsys, "HEAD~4..HEAD", pad)  # (its base is not)
    assert (code, err) == (1, "")
    first = git(shallow, "rev-parse", "--short=7", "HEAD~1")
    assert out.splitlines()[1:4] == [
        f"  note: {CUT_SHORT}",
        f"{first} 'Tidy the retry preference': skipped",
        f"  note: {NO_PARENT}",
    ]
    assert out.count("shallow") == 2
    assert out.splitlines()[-1] == "gate: failed: corruption or an unreadable pad in 1 of 1 change"
    code, report = run_json(capsys, "HEAD~4..HEAD", pad)
    assert [(r["change"], r["verdict"]) for r in report["results"]] == [
        ("unknown", "skipped"),
        ("modified", "corruption"),
    ]
    assert report["notes"] == [CUT_SHORT]


def test_a_blob_over_the_limit_is_refused_before_it_is_read(capsys, repo, monkeypatch):
    """Its size is asked of git first: a blob over the limit is never loaded (a 1 GB
    CLAUDE.md in a history must not be read whole to be refused)."""
    import padtui.gate
    from padtui.core.history import git as core_git

    big = repo / "CLAUDE.md"
    commit(repo, "Paste a log into the memory", START + "- log line\n" * 400)
    huge = git(repo, "rev-parse", "HEAD:CLAUDE.md")
    limit = len(START) + 100
    monkeypatch.setattr(padtui.gate, "MAX_PAD_BYTES", limit)
    read: list[bytes] = []
    real_run = core_git._run

    def spy(path: str, args: list[str], stdin: bytes | None = None) -> bytes:
        if args == ["cat-file", "--batch"]:
            read.append(stdin or b"")
        return real_run(path, args, stdin)

    monkeypatch.setattr(core_git, "_run", spy)
    code, out, err = run(capsys, "HEAD~1..HEAD", str(big))
    assert code == 1 and err == ""
    assert "'Paste a log into the memory': unreadable" in out
    assert "MiB; padtui reads pads up to" in out
    assert read and all(huge.encode() not in asked for asked in read)
