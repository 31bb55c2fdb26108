"""The commands on Markdown pads and Letta agent files: check, compact --write, externalize,
audit, history and restore on .md; check (with block limits) and audit on .af, and every
write to .af refused with exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from padtui.cli import main
from padtui.core import formats
from tests.cli.test_bad_input import FUZZ, check_any

SAMPLES = Path(__file__).parents[2] / "sample_pads"
MD = SAMPLES / "markdown-notes.md"
AF = SAMPLES / "letta-support-agent.af"
READ_ONLY = "writing back to .af is not supported"


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code, out, err = run(capsys, *argv, "--json")
    assert err == ""
    return code, json.loads(out)


def copy(tmp_path: Path, sample: Path) -> Path:
    path = tmp_path / sample.name
    shutil.copyfile(sample, path)
    return path


def one_error_line(err: str, path: Path) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"padtui: error: {path}: ")
    return lines[0]


# --- Markdown -------------------------------------------------------------------------------


def test_check_a_markdown_pad(capsys) -> None:
    code, report = run_json(capsys, "check", str(MD))
    # the notes hold rules ("delete neither without her", "... only"): strict keeps them
    assert code == 1 and report["code"] == "RULE_WOULD_DROP"
    assert report["budget"] == 345  # from the front matter
    assert set(report["to_seal"]) & set(report["dropped"])
    assert {"n-3", "n-5"} & set(report["to_seal"])
    assert "limits" not in report
    code, out, _err = run(capsys, "check", str(MD))
    assert code == 1 and "the pass would drop " in out


def test_compact_write_on_a_markdown_pad_changes_only_what_it_means_to(
    tmp_path: Path, capsys
) -> None:
    path = copy(tmp_path, MD)
    code, report = run_json(capsys, "compact", str(path), "--write")
    assert code == 1 and report["written"] is False  # (the rule in n-3: seal it first)
    code, _ = run_json(capsys, "externalize", str(path), *report["to_seal"])
    assert code == 0
    sealed = path.read_text()
    code, report = run_json(capsys, "compact", str(path), "--write")
    assert code == 0 and report["written"] is True
    before, after = sealed, path.read_text()
    ends = tuple(f"{{#{label}}}" for label in report["dropped"])
    dropped = [line for line in before.splitlines() if line.endswith(ends)]
    assert dropped and len(dropped) == len(ends) and not any(line in after for line in dropped)
    added = [line for line in after.splitlines() if line not in before.splitlines()]
    assert len(added) == 2 and added[0] == "## Loss records (sealed)"
    assert added[1].startswith(f"- {report['loss_record']} {{#loss-")
    assert added[1].endswith(" op=compact}")
    # the front matter, the title and the prose, the comment: all still there
    for keep in ("agent: ledger-sync-7", "# Scratchpad — ledger backfill", "<!-- padtui reads"):
        assert keep in after
    code, report = run_json(capsys, "check", str(path))
    assert code == 0 and report["verdict"] == "fits"
    old = tmp_path / "sealed.md"
    old.write_text(sealed)
    code, out, _ = run(capsys, "audit", str(old), str(path))
    assert code == 0 and out.splitlines()[0].endswith(": compaction")


def test_externalize_and_history_on_a_markdown_pad(tmp_path: Path, capsys) -> None:
    path = copy(tmp_path, MD)
    code, report = run_json(capsys, "externalize", str(path), "c-retry")
    assert code == 0 and report["sealed"] == ["c-retry"] and report["written"] is True
    pad = formats.load(str(path)).pad
    assert pad.find("c-retry").sealed
    text = path.read_text()
    sealed_section = text.split("## Constraints (sealed)", 1)[1].split("##", 1)[0]
    assert "{#c-retry}" in sealed_section
    code, report = run_json(capsys, "history", str(path))
    assert code == 0
    assert [v["origin"] for v in report["versions"]] == ["seen", "externalize"]
    code, report = run_json(capsys, "history", str(path), "--restore", "1")
    assert code == 0 and report["written"] is True
    assert path.read_bytes() == MD.read_bytes()


def test_bad_markdown_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    path = tmp_path / "pad.md"
    path.write_text("## Plan\n- a\n```\nunclosed\n")
    code, out, err = run(capsys, "check", str(path))
    assert code == 2 and out == ""
    assert one_error_line(err, path).endswith("line 3: a code fence (```) is never closed")


# --- memory files under other names, --format, memory exports --------------------------------

CURSOR_RULES = """# Working agreement

Keep answers short; the person reads them on a phone.

## Lessons

- Use `rg` for searching, never `grep -r` over node_modules.
- The staging database is `stage-eu`; production is never touched from here.
"""


@pytest.mark.parametrize("name", [".cursorrules", ".clinerules", ".windsurfrules", "team.mdc"])
def test_memory_files_under_other_names_read_as_markdown(tmp_path: Path, capsys, name: str) -> None:
    path = tmp_path / name
    path.write_text(CURSOR_RULES)
    code, report = run_json(capsys, "check", str(path))
    assert code == 0 and report["kept"] == ["#0", "#1", "#2"]
    assert report["tokens"]["total"] > 30  # the preamble paragraph is counted too


def test_format_reads_any_name_on_every_command(tmp_path: Path, capsys) -> None:
    path = tmp_path / "AGENT_MEMORY"
    path.write_text(CURSOR_RULES)
    code, _out, err = run(capsys, "check", str(path))
    assert code == 2 and "--format md|json|jsonl" in one_error_line(err, path)
    code, report = run_json(capsys, "check", str(path), "--format", "md")
    assert code == 0 and report["tokens"]["total"] > 30
    seed = ("--format", "md", "--budget", "30", "--policy", "seed")
    code, report = run_json(capsys, "compact", str(path), *seed)
    assert code == 0 and report["written"] is False and report["dropped"] == ["#2"]
    code, report = run_json(capsys, "compact", str(path), *seed, "--write")
    assert code == 0 and report["written"] is True
    assert "stage-eu" not in path.read_text() and "# Working agreement" in path.read_text()
    code, report = run_json(capsys, "history", str(path), "--format", "md")
    # the seed pass dropped a lesson (a rule, by its heading) and recorded nothing: corruption,
    # but of the user's own making (padtui wrote it): not outstanding, so exit 0
    assert code == 0 and [v["format"] for v in report["versions"]] == ["md", "md"]
    assert report["versions"][1]["verdict"] == "corruption" and report["outstanding"] == []
    code, report = run_json(capsys, "history", str(path), "--format", "md", "--restore", "1")
    assert code == 0 and report["written"] is True and path.read_text() == CURSOR_RULES
    other = tmp_path / "AGENT_MEMORY_2"
    other.write_text(CURSOR_RULES.split("## Lessons")[0])  # the lessons are gone
    code, report = run_json(capsys, "audit", str(path), str(other), "--format", "md")
    assert code in (0, 1) and report["verdict"] not in ("unchanged", "growth")
    assert report["tokens"]["before"] > report["tokens"]["after"] > 0  # the preamble
    rules = tmp_path / "RULES"
    rules.write_text("## Constraints\n\n- Never push to main. {#c1}\n")
    code, report = run_json(capsys, "externalize", str(rules), "c1", "--format", "md")
    assert code == 0 and report["sealed"] == ["c1"]
    assert rules.read_text().startswith("## Constraints (sealed)\n")


def test_watch_checks_the_chosen_format_before_taking_the_screen(tmp_path: Path, capsys) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("## Notes\n- a\n")
    code, _out, err = run(capsys, str(path))
    assert code == 2 and "unsupported format '.txt'" in one_error_line(err, path)
    code, _out, err = run(capsys, "watch", str(tmp_path), "--format", "md")
    assert code == 2 and "--format names one pad's format" in err


MEMORY_EXPORT = {
    "memories": [
        {"id": "m-1", "memory": "The user's dog is called Pixel and is afraid of vacuum cleaners."},
        {"id": "m-2", "memory": "Prefers meetings after 10:00 Lisbon time, never on Fridays."},
    ]
}


def test_a_memory_export_is_counted_and_never_written(tmp_path: Path, capsys) -> None:
    path = tmp_path / "memories.json"
    path.write_text(json.dumps(MEMORY_EXPORT, indent=2))
    before = path.read_bytes()
    code, report = run_json(capsys, "check", str(path))
    assert code == 0 and report["verdict"] == "fits"
    assert report["kept"] == ["m-1", "m-2"] and report["tokens"]["total"] > 20
    for argv in (
        ["compact", str(path), "--budget", "20", "--write"],
        ["externalize", str(path), "m-1"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert "memory export read-only" in one_error_line(err, path)
    assert path.read_bytes() == before


# --- Letta agent files -------------------------------------------------------------------------


def test_check_an_agent_file_shows_limits_in_characters_and_tokens(capsys) -> None:
    code, out, err = run(capsys, "check", str(AF), "--budget", "200")
    assert code == 0 and err == ""
    assert "Letta memory blocks (read-only: padtui does not write .af files):" in out
    line = next(x for x in out.splitlines() if x.startswith("  - ticket_log "))
    assert " 294 /    300 chars " in line and line.endswith(" tok")
    code, report = run_json(capsys, "check", str(AF), "--budget", "200")
    assert code == 0 and report["verdict"] == "compactable"
    limits = {b["id"]: b for b in report["limits"]}
    assert list(limits) == ["human", "persona", "refund_policy", "escalation_rules", "ticket_log"]
    assert limits["ticket_log"]["chars"] == 294 and limits["ticket_log"]["limit"] == 300
    assert limits["refund_policy"]["sealed"] is True
    assert all(b["tokens"] > 0 for b in report["limits"])


def test_a_refused_agent_file_points_to_letta_not_to_externalize(capsys) -> None:
    code, report = run_json(capsys, "check", str(AF), "--budget", "120")
    assert code == 1
    assert report["code"] in ("PROTECTED_KIND_WOULD_DROP", "RULE_WOULD_DROP")
    assert report["to_seal"] and "read_only" in report["way_out"]
    assert report["way_out"].endswith(": " + " ".join(report["to_seal"]))
    assert "padtui externalize" not in report["way_out"]
    code, out, _ = run(capsys, "check", str(AF), "--budget", "120")
    assert out.splitlines()[-1].startswith("way out: in Letta, make these blocks read_only")


@pytest.mark.parametrize(
    "argv",
    [
        ["compact", "{path}", "--write"],
        ["compact", "{path}", "--write", "--budget", "100000"],  # even one that fits
        ["externalize", "{path}", "escalation_rules"],
        ["history", "{path}", "--restore", "1"],
    ],
)
def test_every_write_to_an_agent_file_is_exit_2_in_one_line(tmp_path: Path, capsys, argv) -> None:
    path = copy(tmp_path, AF)
    before = path.read_bytes()
    args = [a.replace("{path}", str(path)) for a in argv]
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert READ_ONLY in one_error_line(err, path)
    code, out, err = run(capsys, *args, "--json")
    assert code == 2 and READ_ONLY in json.loads(out)["error"]
    assert path.read_bytes() == before


def test_compact_without_write_and_audit_on_agent_files(tmp_path: Path, capsys) -> None:
    code, report = run_json(capsys, "compact", str(AF), "--budget", "200")
    assert code == 0 and report["written"] is False and "limits" in report
    changed = json.loads(AF.read_text())
    del changed["blocks"][2]  # the read-only refund policy is gone
    new = tmp_path / "after.af"
    new.write_text(json.dumps(json.dumps(changed)))  # and exported in the older style
    code, report = run_json(capsys, "audit", str(AF), str(new))
    assert code == 1 and report["verdict"] == "corruption"
    assert "SEALED_REMOVED" in {f["code"] for f in report["findings"]}


def test_history_of_an_agent_file_reads(tmp_path: Path, capsys) -> None:
    path = copy(tmp_path, AF)
    code, report = run_json(capsys, "history", str(path))
    assert code == 0 and [v["format"] for v in report["versions"]] == ["af"]


# --- any bytes at all -----------------------------------------------------------------------

VALID_MD = [
    b"---\nbudget_tokens: 30\n---\n# T\n\n## Constraints (sealed)\n- never x {#c}\n\n"
    b"## Plan\n1. do y\n   - detail\n\n## Notes\n\nA note.\n",
    b"## Notes [sealed]\r\n* a\r\n## Hypotheses\r\n- b {#h op=merge derived_from=x,y}\r\n",
]
VALID_AF = [json.dumps(json.loads(AF.read_text())["blocks"][:2]).encode()]


@st.composite
def mutated(draw: st.DrawFn, valid: list[bytes]) -> bytes:
    data = bytearray(draw(st.sampled_from(valid)))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(data)))
        byte = draw(st.binary(min_size=1, max_size=2) | st.sampled_from([b"\n", b"#", b"`", b"-"]))
        if draw(st.booleans()):
            data[i:i] = byte
        else:
            del data[i : i + len(byte)]
    return bytes(data)


@FUZZ
@given(data=st.binary(max_size=120) | mutated(VALID_MD))
def test_fuzz_markdown(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("md") / "pad.md"
    path.write_bytes(data)
    check_any(path)


def _blocks_file(blocks: bytes) -> bytes:
    return b'{"agents": [{"name": "a", "block_ids": []}], "blocks": ' + blocks + b"}"


@FUZZ
@given(data=st.binary(max_size=120) | mutated([_blocks_file(v) for v in VALID_AF]))
def test_fuzz_agent_files(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("af") / "agent.af"
    path.write_bytes(data)
    check_any(path)
