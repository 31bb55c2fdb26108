"""The hooks driven as Claude Code drives them: the JSON it sends on standard input, against
a transcript in its record shapes and a project with CLAUDE.md and .claude/rules/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.claude.sessions import (
    DROPPED,
    FAITHFUL,
    RULE_MIGRATIONS,
    RULE_TESTS,
    WEAKENED,
    Session,
)


@pytest.fixture
def session(tmp_path: Path) -> Session:
    s = Session(tmp_path)
    s.conversation()
    return s


def _compaction(s: Session, summary: str, trigger: str = "auto") -> tuple[str, str]:
    """PreCompact, the compaction, PostCompact, SessionStart: (PostCompact's notice, what
    SessionStart gives the model)."""
    pre = s.run(
        "claude",
        "pre-compact",
        stdin=s.event("PreCompact", trigger=trigger, custom_instructions=""),
    )
    assert pre.returncode == 0, pre.stderr
    assert pre.stdout == ""  # an auto compaction is never held back
    s.compact(summary, trigger)
    post = s.run(
        "claude",
        "post-compact",
        stdin=s.event("PostCompact", trigger=trigger, compact_summary=summary),
    )
    assert post.returncode == 0, post.stderr
    notice = json.loads(post.stdout)["systemMessage"]
    start = s.run("claude", "session-start", stdin=s.event("SessionStart", source="compact"))
    assert start.returncode == 0, start.stderr
    return notice, start.stdout


def test_faithful_summary_no_alarm_no_reinjection(session: Session) -> None:
    notice, context = _compaction(session, FAITHFUL)
    assert "kept all" in notice
    assert context == ""


def test_dropped_rule_alarms_and_is_given_back_verbatim(session: Session) -> None:
    notice, context = _compaction(session, DROPPED)
    assert "lost 1 of" in notice and "1 dropped" in notice
    assert RULE_MIGRATIONS in context
    assert "transcript line 1" in context  # where it came from
    assert RULE_TESTS not in context  # (carried: not repeated)
    assert "Never push" not in context  # CLAUDE.md is read again after a compaction


def test_weakened_rule_alarms_and_is_given_back_with_what_the_summary_said(
    session: Session,
) -> None:
    notice, context = _compaction(session, WEAKENED)
    assert "1 weakened" in notice
    assert RULE_MIGRATIONS in context
    assert "the summary weakened it to:" in context
    assert "Avoid touching the migration files where possible" in context


def test_a_rule_removed_from_claude_md_before_the_compaction_is_not_in_force(
    session: Session,
) -> None:
    (session.project / "CLAUDE.md").write_text("# Project\n\nA small shop backend.\n")
    pre = session.run("claude", "pre-compact", stdin=session.event("PreCompact", trigger="auto"))
    assert pre.returncode == 0
    _notice, context = _compaction(session, FAITHFUL)
    assert context == ""  # the rule was gone before the compaction: not in force


def test_memory_rules_are_in_the_snapshot(session: Session) -> None:
    session.run("claude", "pre-compact", stdin=session.event("PreCompact", trigger="auto"))
    state = list((session.state / "padtui" / "claude").glob("*.json"))
    assert len(state) == 1
    assert session.transcript.stem not in state[0].name  # named by a hash of the session id
    sources = {r["source"] for r in json.loads(state[0].read_text())["before"]["rules"]}
    assert {"CLAUDE.md", ".claude/rules/style.md"} <= sources


def test_manual_compaction_is_held_back_once_with_a_ready_instruction(session: Session) -> None:
    event = session.event("PreCompact", trigger="manual", custom_instructions="")
    first = session.run("claude", "pre-compact", stdin=event)
    assert first.returncode == 0
    out = json.loads(first.stdout)
    assert out["decision"] == "block"
    assert "/compact Keep each of these rules" in out["reason"]
    assert json.dumps(RULE_TESTS) in out["reason"]
    again = session.run("claude", "pre-compact", stdin=event)  # the same compaction, again
    assert again.returncode == 0 and again.stdout == ""


def test_manual_compaction_with_the_rules_asked_for_is_not_held_back(session: Session) -> None:
    asked = f"Keep these verbatim: {RULE_MIGRATIONS}; {RULE_TESTS}"
    event = session.event("PreCompact", trigger="manual", custom_instructions=asked)
    result = session.run("claude", "pre-compact", stdin=event)
    assert result.returncode == 0 and result.stdout == ""


def test_no_block_never_holds_back(session: Session) -> None:
    event = session.event("PreCompact", trigger="manual", custom_instructions="")
    result = session.run("claude", "pre-compact", "--no-block", stdin=event)
    assert result.returncode == 0 and result.stdout == ""


def test_pre_compact_called_twice_judges_the_same(session: Session) -> None:
    event = session.event("PreCompact", trigger="auto")
    assert session.run("claude", "pre-compact", stdin=event).returncode == 0
    notice, context = _compaction(session, DROPPED)
    assert "1 dropped" in notice and RULE_MIGRATIONS in context


def test_post_compact_without_pre_compact_gathers_the_rules_itself(session: Session) -> None:
    session.compact(DROPPED)  # (the transcript already holds the compaction)
    post = session.run(
        "claude",
        "post-compact",
        stdin=session.event("PostCompact", trigger="auto", compact_summary=DROPPED),
    )
    assert post.returncode == 0
    assert "1 dropped" in json.loads(post.stdout)["systemMessage"]
    assert "no PreCompact snapshot" in post.stderr


def test_session_start_without_post_compact_judges_the_transcript(session: Session) -> None:
    session.compact(DROPPED)
    start = session.run(
        "claude", "session-start", stdin=session.event("SessionStart", source="compact")
    )
    assert start.returncode == 0
    assert RULE_MIGRATIONS in start.stdout


def test_session_start_not_after_a_compaction_says_nothing(session: Session) -> None:
    _compaction(session, DROPPED)
    start = session.run(
        "claude", "session-start", stdin=session.event("SessionStart", source="resume")
    )
    assert start.returncode == 0 and start.stdout == ""


def test_a_rule_kept_by_one_compaction_and_dropped_by_the_next_is_caught(
    session: Session,
) -> None:
    _compaction(session, FAITHFUL)
    session.user("now add a reason field. the reason must be at most 200 characters")
    session.assistant("Adding the field.")
    summary = (
        "Summary:\n1. The user wants a reason field on cancelled orders, at most 200 "
        "characters.\n   - Run only `pytest -q` for the tests, never the full tox run.\n"
    )
    notice, context = _compaction(session, summary)
    assert "1 dropped" in notice
    assert RULE_MIGRATIONS in context  # said before the first compaction, kept by it
    assert RULE_TESTS not in context


def test_a_rule_lost_at_one_compaction_is_not_blamed_on_the_next(session: Session) -> None:
    _compaction(session, DROPPED)
    session.user("now add a reason field. the reason must be at most 200 characters")
    summary = (
        "Summary:\n1. The user wants a reason field on cancelled orders, at most 200 "
        "characters.\n   - Run only `pytest -q` for the tests, never the full tox run.\n"
    )
    notice, context = _compaction(session, summary)
    assert "kept all" in notice and context == ""


@pytest.mark.parametrize(
    "stdin",
    ["", "not json", "[1, 2]", json.dumps({"session_id": "x"})],
)
def test_bad_hook_input_never_breaks_the_session(session: Session, stdin: str) -> None:
    for hook in ("pre-compact", "post-compact", "session-start"):
        result = session.run("claude", hook, stdin=stdin)
        assert result.returncode == 0
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1
        assert "Traceback" not in result.stderr


def test_missing_transcript_is_named(session: Session) -> None:
    event = session.event("PreCompact", trigger="auto")
    event["transcript_path"] = str(session.root / "gone.jsonl")
    result = session.run("claude", "pre-compact", stdin=event)
    assert result.returncode == 0
    assert "gone.jsonl" in result.stderr and "transcript not read" in result.stderr


def test_audit_transcript_after_the_fact(session: Session) -> None:
    session.compact(FAITHFUL)
    session.user("the reason must be at most 200 characters")
    session.compact("Summary:\n1. The user wants a reason field.\n")
    text = session.run("claude", "audit", str(session.transcript))
    assert text.returncode == 1
    assert "compaction 1" in text.stdout and "compaction 2" in text.stdout
    assert "dropped  the reason must be at most 200 characters" in text.stdout
    data = session.run("claude", "audit", str(session.transcript), "--json")
    found = json.loads(data.stdout)["compactions"]
    assert [c["verdict"] for c in found] == ["compaction", "corruption"]


def test_audit_of_a_missing_transcript_is_one_line_exit_2(session: Session) -> None:
    result = session.run("claude", "audit", str(session.root / "none.jsonl"))
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1 and "none.jsonl" in result.stderr


def test_a_rule_claude_md_also_states_is_carried_by_the_reload(session: Session) -> None:
    """The user said a rule that CLAUDE.md states too: Claude Code loads CLAUDE.md again
    after the compaction, so a summary that leaves the rule out loses nothing."""
    claude_md = session.project / "CLAUDE.md"
    claude_md.write_text(
        claude_md.read_text()
        + "- Don't touch the migration files: the user writes them after the rebase.\n"
    )
    notice, context = _compaction(session, DROPPED)
    assert "kept all" in notice
    assert context == ""


def test_a_rule_only_in_a_paths_scoped_rules_file_is_lost_with_the_summary(
    session: Session,
) -> None:
    """A rules file scoped by ``paths:`` was loaded when the agent read a matching file; it
    is not loaded again after the compaction, so its rule lives only in the summary."""
    rules = session.project / ".claude" / "rules" / "payments.md"
    rules.write_text(
        "---\npaths: payments/**\n---\n\n# Payments\n\n- Never log card numbers, not even masked.\n"
    )
    (session.project / "payments").mkdir()
    (session.project / "payments" / "refund.py").write_text("def refund(): ...\n")
    session.read_file(session.project / "payments" / "refund.py")
    notice, context = _compaction(session, FAITHFUL)
    assert "lost 1 of" in notice and "1 dropped" in notice
    assert "Never log card numbers" in context
    assert ".claude/rules/payments.md" in context  # where it came from
