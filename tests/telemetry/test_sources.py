"""Each source of a verdict exports it as SPEC §11 says: an ``update_memory`` span naming the
memory, with a ``gen_ai.evaluation.result`` event (read back from the SDK's in-memory
exporter)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from padtui.cli import main
from tests.telemetry.conftest import NEW, OLD, Spans, evaluation, write_pad

# git without the user's configuration, committing as one person
GIT_ALONE = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"} | {
    f"GIT_{who}_{what}": value
    for who in ("AUTHOR", "COMMITTER")
    for what, value in (("NAME", "Dana Example"), ("EMAIL", "dana@example.com"))
}


def only(spans: Spans) -> dict:
    got = spans()
    assert len(got) == 1, [s.attributes for s in got]
    span = got[0]
    assert span.name == "update_memory"
    assert span.attributes["gen_ai.operation.name"] == "update_memory"
    return {"span": dict(span.attributes), "event": evaluation(span)}


def test_audit_exports_the_verdict_the_share_of_rules_carried_and_the_rule_lost(
    spans: Spans, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = write_pad(tmp_path / "old.json", OLD)
    new = write_pad(tmp_path / "new.json", NEW)
    assert main(["audit", str(old), str(new)]) == 1
    got = only(spans)
    span, event = got["span"], got["event"]
    assert span["gen_ai.memory.store.id"] == str(new)
    assert span["padtui.source"] == "audit"
    assert span["padtui.verdict"] == "corruption"
    assert "CONSTRAINT_DROPPED" in span["padtui.findings.codes"]
    # the retry constraint is two claims, each a rule: two of the three are gone
    assert span["padtui.rules.before"] == 3 and span["padtui.rules.lost"] == 2
    assert span["padtui.tokens.before"] > span["padtui.tokens.after"] > 0
    assert event["gen_ai.evaluation.name"] == "padtui.memory_fidelity"
    assert event["gen_ai.evaluation.score.label"] == "corruption"
    assert event["gen_ai.evaluation.score.value"] == pytest.approx(1 / 3)
    assert "c-retry" in event["gen_ai.evaluation.explanation"]


def test_an_honest_audit_carries_every_rule(spans: Spans, tmp_path: Path, capsys) -> None:
    old = write_pad(tmp_path / "old.json", OLD)
    grown = write_pad(tmp_path / "new.json", [*OLD, {"kind": "note", "text": "Deploys: Fri."}])
    assert main(["audit", str(old), str(grown), "--json"]) == 0
    got = only(spans)
    assert got["span"]["padtui.verdict"] == "growth"
    assert got["event"]["gen_ai.evaluation.score.value"] == 1.0
    assert "gen_ai.evaluation.explanation" not in got["event"]


def test_check_exports_the_trial_and_its_refusal(spans: Spans, tmp_path: Path, capsys) -> None:
    pad = write_pad(tmp_path / "pad.json", OLD)
    assert main(["check", str(pad), "--budget", "1"]) == 1
    got = only(spans)
    span, event = got["span"], got["event"]
    assert span["gen_ai.memory.store.id"] == str(pad)
    assert span["padtui.source"] == "check" and span["padtui.trial"] is True
    assert event["gen_ai.evaluation.score.label"] == "refused"
    assert span["padtui.refusal.code"]
    assert span["padtui.rules.at_risk"] == 3


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_audit_git_exports_each_commit(
    spans: Spans, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    for name, value in GIT_ALONE.items():
        monkeypatch.setenv(name, value)

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    git("init", "-q", "-b", "main")
    write_pad(tmp_path / "pad.json", OLD)
    git("add", "pad.json")
    git("commit", "-q", "-m", "The pad")
    write_pad(tmp_path / "pad.json", NEW)
    git("commit", "-q", "-am", "Rewrite the pad")
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "--git", "HEAD~1..HEAD", "pad.json"]) == 1
    got = only(spans)
    assert got["span"]["padtui.source"] == "audit.git"
    assert got["span"]["gen_ai.memory.store.id"] == "pad.json"
    assert got["span"]["padtui.commit"] == git("rev-parse", "HEAD")
    assert got["event"]["gen_ai.evaluation.score.label"] == "corruption"
    assert got["event"]["gen_ai.evaluation.score.value"] == pytest.approx(1 / 3)


def test_nothing_is_exported_for_bad_input(spans: Spans, tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["audit", str(bad), str(bad)]) == 2
    assert spans() == []


# --- the Claude Code hooks ---------------------------------------------------------------------


def test_a_compaction_judged_by_the_hook_names_the_session_and_is_compacted(
    spans: Spans, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from padtui.claude.hooks import post_compact, read_event
    from tests.claude.sessions import DROPPED, RULE_MIGRATIONS, SESSION, Session

    session = Session(tmp_path)
    session.conversation()
    for name, value in session.env().items():
        if name in ("HOME", "XDG_STATE_HOME"):
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("PADTUI_CLAUDE_MANAGED", str(tmp_path / "managed" / "CLAUDE.md"))
    session.compact(DROPPED)
    event = session.event("PostCompact", trigger="auto", compact_summary=DROPPED)
    said = post_compact(read_event(json.dumps(event).encode()))
    assert "1 dropped" in said.out
    got = only(spans)
    span, result = got["span"], got["event"]
    assert span["gen_ai.conversation.id"] == SESSION
    assert span["gen_ai.conversation.compacted"] is True
    assert span["gen_ai.memory.store.id"] == str(session.transcript)
    assert span["padtui.rules.dropped"] == 1
    rules = span["padtui.rules.before"]
    assert result["gen_ai.evaluation.score.label"] == "corruption"
    assert result["gen_ai.evaluation.score.value"] == pytest.approx((rules - 1) / rules)
    assert RULE_MIGRATIONS in result["gen_ai.evaluation.explanation"]


# --- the MCP tools -------------------------------------------------------------------------------


def test_the_mcp_tools_export_their_verdicts(spans: Spans, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from padtui.mcp_server import Guard, Scope

    pad = write_pad(tmp_path / "pad.json", OLD)
    guard = Guard(Scope([str(tmp_path)]))
    assert guard.audit(str(pad), new_text=json.dumps(NEW))["verdict"] == "corruption"
    guard.check(str(pad), budget=1)
    audit, check = spans()
    assert audit.attributes["padtui.source"] == "mcp.audit"
    assert audit.attributes["gen_ai.memory.store.id"] == str(pad)
    assert evaluation(audit)["gen_ai.evaluation.score.value"] == pytest.approx(1 / 3)
    assert "c-retry" in evaluation(audit)["gen_ai.evaluation.explanation"]
    assert check.attributes["padtui.source"] == "mcp.check"
    assert evaluation(check)["gen_ai.evaluation.score.label"] == "refused"


def test_an_audit_of_a_store_exports_the_stores_verdict(
    spans: Spans, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.stores import make_store

    rules = "# Rules\n\n- Never push to `main`.\n- Always run `make check` first.\n"
    old = make_store(tmp_path / "old", {"CLAUDE.md": rules})
    new = make_store(tmp_path / "new", {"CLAUDE.md": "# Rules\n\n- Never push to `main`.\n"})
    assert main(["audit", str(old), str(new)]) == 1
    span = only(spans)["span"]
    assert span["gen_ai.memory.store.id"] == str(new)
    assert span["padtui.source"] == "audit.store"
    assert span["padtui.verdict"] == "corruption"
    assert "CONSTRAINT_DROPPED" in span["padtui.findings.codes"]
