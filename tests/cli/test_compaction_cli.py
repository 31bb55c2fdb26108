"""``check`` and ``compact`` on memory as agents keep it: the loss record sized to the pad and
declared to the next audit once written, a way out that can be followed as printed, the rules
at risk, and a pass that drops far more than it had to."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from padtui.cli import main
from tests.memory_fixtures import PLAIN_ISSUES as KNOWN_ISSUES

ISSUES = KNOWN_ISSUES[:10]
MEMORY = (
    "# Project memory\n\n"
    "## User Preferences\n\n"
    "- Always answer in French.\n"
    "- Never use emoji in commit messages.\n\n"
    "## What Works\n\n"
    + "".join(f"- Feature {i} works end to end\n" for i in range(12))
    + "\n## Known Issues\n\n"
    + "".join(f"- {t}\n" for t in ISSUES)
    + "- Do not retry a scrape more than twice in a minute.\n"
    + "\n## Session Notes\n\n"
    + "".join(
        f"- Session {i}: walked through the fare tables for the spring conferences, compared "
        "the scraped prices with last year's and wrote the differences down city by city.\n"
        for i in range(3)
    )
    + "- Never run the scraper against the production fare cache.\n"
)


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, err = run(capsys, *argv, "--json")
    assert err == ""
    return code, json.loads(out)


def tokens(capsys: pytest.CaptureFixture[str], path: Path) -> int:
    total: int = run_json(capsys, "check", str(path))[1]["tokens"]["total"]
    return total


def follow(capsys: pytest.CaptureFixture[str], way_out: str) -> tuple[int, str]:
    """Run the padtui command a way out suggests, split as a shell splits it."""
    words = shlex.shlex(way_out[way_out.index("padtui ") :], posix=True, punctuation_chars=";")
    words.whitespace_split = True
    argv = list(words)
    argv = argv[: argv.index(";")] if ";" in argv else argv  # (a ; outside quotes ends it)
    assert argv[0] == "padtui"
    code, out, _ = run(capsys, *argv[1:])
    return code, out


def json_pad(tmp_path: Path, entries: list[dict[str, Any]], name: str = "pad.json") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"entries": entries}, indent=2) + "\n", encoding="utf-8")
    return path


# --- the record, written and audited -----------------------------------------------------------


def test_a_markdown_memory_compacts_and_the_next_audit_sees_every_loss_declared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(MEMORY, encoding="utf-8")
    old = tmp_path / "old.md"
    old.write_text(MEMORY, encoding="utf-8")
    budget = str(tokens(capsys, path) - 40)
    # the pass would drop the session notes, and the rule among them: strict refuses ...
    code, report = run_json(capsys, "compact", str(path), "--budget", budget, "--write")
    assert code == 1 and report["code"] == "RULE_WOULD_DROP" and report["written"] is False
    assert path.read_text(encoding="utf-8") == MEMORY
    # ... and its way out seals the rule where it stands, then the pass goes through
    code, _out = follow(capsys, report["way_out"])
    assert code == 0
    sealed = path.read_text(encoding="utf-8")
    # (sealed, the rule leaves less room: the pass would then drop the known issues' rule
    # too, so the way out seals both)
    assert sealed == MEMORY.replace(
        "production fare cache.\n", "production fare cache. <!-- sealed -->\n"
    ).replace("twice in a minute.\n", "twice in a minute. <!-- sealed -->\n")
    old.write_text(sealed, encoding="utf-8")
    code, report = run_json(capsys, "compact", str(path), "--budget", budget, "--write")
    assert code == 0 and report["written"] is True
    assert report["loss_record_form"] == "names"  # Markdown keeps no drops field
    assert report["loss_record_drops"] == report["dropped"]
    assert "3 session_notes entries (" in report["loss_record"].split(": ", 1)[1]
    code, audit = run_json(capsys, "audit", str(old), str(path))
    assert code == 0
    assert audit["verdict"] == "compaction", audit["findings"]
    assert not [f for f in audit["findings"] if f["severity"] == "critical"]


def test_a_json_pad_of_small_bullets_compacts_with_ranges_and_audits_as_compaction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [{"kind": "note", "text": f"step {i} done: batch {i} checked"} for i in range(60)]
    path = json_pad(tmp_path, entries)
    old = json_pad(tmp_path, entries, "old.json")
    budget = str(tokens(capsys, path) * 2 // 3)
    code, report = run_json(capsys, "compact", str(path), "--budget", budget, "--write")
    assert code == 0 and report["written"] is True
    assert report["loss_record_form"] == "ranges"
    assert report["tokens"]["loss_record"] < 60
    record = json.loads(path.read_text())["entries"][-1]
    assert record["kind"] == "loss_record" and record["sealed"] is True
    assert record["drops"] == report["dropped"]  # the field the next audit reads
    assert "\u2013" in record["text"]
    code, audit = run_json(capsys, "audit", str(old), str(path))
    assert (code, audit["verdict"]) == (0, "compaction"), audit["findings"]


# --- ways out, followed as printed --------------------------------------------------------------


def test_record_would_not_fit_names_a_budget_and_that_budget_goes_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [
        {"kind": "constraint", "text": "Never call the billing API. " * 10, "sealed": True},
        *({"kind": "note", "text": t} for t in ISSUES),
    ]
    path = json_pad(tmp_path / "my pads", entries)
    code, out, _ = run(capsys, "check", str(path), "--budget", "75")
    assert code == 1
    assert "refused: RECORD_WOULD_NOT_FIT" in out
    (way_out,) = [line for line in out.splitlines() if line.startswith("way out: ")]
    assert " entries this pass drops needs " in way_out
    code, report = run_json(capsys, "check", str(path), "--budget", "75")
    assert f"padtui check {shlex.quote(str(path))} --budget {report['fits_at']}" in way_out
    code, after = follow(capsys, way_out)
    assert code == 0 and "compactable" in after.splitlines()[-1]


def test_sealed_over_budget_is_followed_by_the_budget_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [
        {"kind": "constraint", "text": "Never call the billing API. " * 10, "sealed": True},
        {"kind": "note", "text": "A note. " * 20},
    ]
    path = json_pad(tmp_path, entries)
    code, out, _ = run(capsys, "check", str(path), "--budget", "20")
    assert code == 1 and "refused: SEALED_OVER_BUDGET" in out
    (way_out,) = [line for line in out.splitlines() if line.startswith("way out: ")]
    assert "the sealed region (1 entry, " in way_out and "consolidates it" in way_out
    assert follow(capsys, way_out)[0] == 0


def test_protected_kind_way_out_externalizes_exactly_the_entries_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [
        {"kind": "note", "text": "A note that rambles on. " * 8},  # 65 tokens: kept first
        {"kind": "negative_fact", "text": "The v1 endpoint was tried and failed."},
        {"kind": "constraint", "text": "Never deploy on Fridays.", "id": "c 1; echo hi"},
    ]
    path = json_pad(tmp_path / "my pads", entries)
    code, out, _ = run(capsys, "check", str(path), "--budget", "66")
    assert code == 1 and "refused: PROTECTED_KIND_WOULD_DROP" in out
    (way_out,) = [line for line in out.splitlines() if line.startswith("way out: ")]
    command = shlex.split(way_out[way_out.index("padtui ") :])
    assert command == ["padtui", "externalize", str(path), "#1", "c 1; echo hi"]
    code, after = follow(capsys, way_out)
    assert code == 0 and "sealed #1, c 1; echo hi" in after
    code, report = run_json(capsys, "check", str(path), "--budget", "66")
    assert code == 0 and report["verdict"] == "compactable"


# --- rules at risk, over-dropping --------------------------------------------------------------


def test_check_lists_every_unsealed_rule_and_marks_the_ones_this_pass_drops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(MEMORY, encoding="utf-8")
    budget = str(tokens(capsys, path) - 40)
    code, report = run_json(capsys, "check", str(path), "--budget", budget)
    assert code == 1 and report["code"] == "RULE_WOULD_DROP"  # (strict keeps every rule)
    rules = report["rules_at_risk"]
    assert all(
        set(r) == {"entry", "entry_kind", "kind", "text", "heading", "dropped"} for r in rules
    )
    by_text = {r["text"]: r for r in rules}
    french = by_text["Always answer in French."]
    assert (french["entry_kind"], french["kind"], french["dropped"]) == (
        "user_preferences",
        "obligation",
        False,
    )
    retry = by_text["Do not retry a scrape more than twice in a minute."]
    assert retry["kind"] == "prohibition" and retry["dropped"] is False
    cache = by_text["Never run the scraper against the production fare cache."]
    assert cache["kind"] == "prohibition" and cache["dropped"] is True
    assert {r["entry"] for r in rules if r["dropped"]} <= set(report["dropped"])
    assert {r["entry"] for r in rules if not r["dropped"]}.isdisjoint(report["dropped"])

    code, out, _ = run(capsys, "check", str(path), "--budget", budget)
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("rules at risk: "))
    dropped = sum(r["dropped"] for r in rules)
    assert lines[head] == (
        f"rules at risk: {len(rules)} in unsealed entries, a pass may drop them; "
        f"this one drops {dropped} (✗):"
    )
    listed = lines[head + 1 : head + 1 + len(rules)]
    assert [line.startswith("  ✗ ") for line in listed] == [True] * dropped + [False] * (
        len(rules) - dropped
    )
    assert any(
        "obligation    User Preferences: Always answer in French." in line for line in listed
    )


def test_a_pad_whose_rules_are_all_sealed_says_none_is_at_risk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [
        {"kind": "constraint", "text": "Never call the billing API.", "sealed": True},
        {"kind": "note", "text": "The ledger is a day behind."},
    ]
    path = json_pad(tmp_path, entries)
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0 and "rules at risk: none found in unsealed entries" in out
    assert run_json(capsys, "check", str(path))[1]["rules_at_risk"] == []


def test_check_says_when_a_pass_drops_far_more_than_the_overrun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [
        {"kind": "note", "text": "note one: fine", "id": "n1"},
        {"kind": "note", "text": "A long log of what happened. " * 60, "id": "log"},
        {"kind": "note", "text": "note two: fine", "id": "n2"},
    ]
    path = json_pad(tmp_path, entries)
    budget = str(tokens(capsys, path) - 3)
    code, report = run_json(capsys, "check", str(path), "--budget", budget)
    assert report["dropped"] == ["log"]
    over = report["over_dropping"]
    assert over["overrun"] == 3 and over["needed"] == 3 + report["tokens"]["loss_record"]
    assert over["dropped"] == report["tokens"]["dropped"] > 2 * over["needed"]
    code, out, _ = run(capsys, "check", str(path), "--budget", budget)
    assert code == 0
    (line,) = [x for x in out.splitlines() if x.startswith("over-dropping: ")]
    assert f"drops {over['dropped']} tokens to free {over['needed']} (3 over the budget" in line
    assert "the largest, log, is" in line
    _, out, _ = run(capsys, "check", str(path), "--budget", str(int(budget) - 400))
    assert "over-dropping" not in out


def test_rules_and_ways_out_print_pad_text_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rule = "Never \x1b[31mdeploy\x1b[0m on \x9b31mFridays \u202egnikaerb\u202c today."
    entries = [
        {"kind": "note", "text": "A note that rambles on. " * 8},
        {"kind": "constraint", "text": rule, "id": "c\x1b]0;T\x07\u2066"},
    ]
    path = json_pad(tmp_path, entries)
    code, out, _ = run(capsys, "check", str(path), "--budget", "66")
    assert code == 1 and "refused: PROTECTED_KIND_WOULD_DROP" in out
    for bad in ("\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\u2066"):
        assert bad not in out, repr(bad)
    assert "Never [31mdeploy[0m on 31mFridays gnikaerb today." in out
    # --json says the same text, with those characters escaped: the same value once parsed
    code, raw, _ = run(capsys, "check", str(path), "--budget", "66", "--json")
    for bad in ("\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\u2066"):
        assert bad not in raw, repr(bad)
    report = json.loads(raw)
    assert {r["text"] for r in report["rules_at_risk"]} >= {rule}
    assert report["dropped"] == ["c\x1b]0;T\x07\u2066"]


def test_the_rule_map_of_the_command_line_decides_what_is_at_risk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "memory.md"
    path.write_text(
        "## Known quirks\n\n- Deploys to prod happen on Tuesdays, after the standup.\n"
        "\n## Status\n\n- The export is half done.\n",
        encoding="utf-8",
    )
    code, report = run_json(capsys, "check", str(path))
    assert (code, report["rules_at_risk"]) == (0, [])
    code, report = run_json(capsys, "check", str(path), "--rule-heading", "quirks")
    assert [r["heading"] for r in report["rules_at_risk"]] == ["Known quirks"]
    only = ("--rule-heading", "status", "--only-rule-headings")
    code, report = run_json(capsys, "compact", str(path), *only)
    assert [r["text"] for r in report["rules_at_risk"]] == ["The export is half done."]
    code, _, err = run(capsys, "check", str(path), "--only-rule-headings")
    assert code == 2 and err.count("\n") == 1 and "--rule-heading" in err
