"""The guard over MCP: an agent lists the tools, asks before it rewrites, and commits only
the plan it was shown, only to the pads the server was started with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from padtui.core.storage.journal import Journal, journal_path_for

from .conftest import call, error, make_pad, served

TOOLS = {"check", "audit", "compact", "externalize", "history"}


async def test_the_tools_are_listed_with_their_annotations(tmp_path: Path) -> None:
    pad = make_pad(tmp_path)
    async with served(tmp_path, pad) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
    assert set(tools) == TOOLS
    for name in ("check", "audit", "history"):
        hints = tools[name].annotations
        assert hints is not None and hints.read_only_hint is True
    compact = tools["compact"].annotations
    assert compact is not None
    assert compact.read_only_hint is False and compact.destructive_hint is True
    assert compact.idempotent_hint is False
    seal = tools["externalize"].annotations
    assert seal is not None
    assert seal.read_only_hint is False and seal.destructive_hint is False
    assert seal.idempotent_hint is True
    assert all(t.output_schema is not None for t in tools.values())  # structured results
    assert "confirm" in tools["compact"].input_schema["properties"]


async def test_check_refuses_a_protected_drop_and_gives_the_way_out(tmp_path: Path) -> None:
    pad = make_pad(tmp_path, sealed_nf1=False)
    before = pad.read_bytes()
    async with served(tmp_path, pad) as session:
        report = await call(session, "check", path=str(pad), budget=60)
        plan = await call(session, "compact", path=str(pad), budget=60)
    assert report["verdict"] == "refused" and report["code"] == "PROTECTED_KIND_WOULD_DROP"
    assert "nf1" in report["message"]
    assert (
        report["way_out"]
        == f"externalize them into the sealed region first: padtui externalize {pad} nf1"
    )
    assert {r["entry"] for r in report["rules_at_risk"] if r["dropped"]} == {"nf1"}
    assert report["way_out_call"] == {
        "tool": "externalize",
        "arguments": {"path": str(pad), "ids": ["nf1"]},
    }
    assert plan["verdict"] == "refused" and plan["token"] is None and plan["written"] is False
    assert pad.read_bytes() == before


async def test_a_confirmed_compaction_is_written_and_journaled(tmp_path: Path) -> None:
    pad = make_pad(tmp_path)
    async with served(tmp_path, pad) as session:
        plan = await call(session, "compact", path=str(pad))
        assert plan["verdict"] == "compactable" and plan["dropped"] == ["n1"]
        assert plan["written"] is False and plan["token"]
        done = await call(session, "compact", path=str(pad), confirm=plan["token"])
        history = await call(session, "history", path=str(pad))
    assert done["written"] is True
    ids = [e.get("id") for e in json.loads(pad.read_text())["entries"]]
    assert "n1" not in ids and "c1" in ids and len(ids) == 4  # plus the loss record
    os.environ["XDG_STATE_HOME"] = str(tmp_path / "state")
    try:
        journal = Journal(journal_path_for(str(pad)))
        origins = [v.origin for v in journal.versions()]
    finally:
        del os.environ["XDG_STATE_HOME"]
    assert done["journal"] == {"path": journal.path, "version": 2}
    assert origins == ["seen", "compact"]
    assert [v["verdict"] for v in history["versions"]] == ["first", "compaction"]
    assert history["on_disk"] == 2
    # the command line sees the same journal: the compaction is one like any other
    shown = subprocess.run(
        [sys.executable, "-m", "padtui", "history", str(pad), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
    )
    rows = json.loads(shown.stdout)["versions"]
    assert [(r["origin"], r["verdict"]) for r in rows] == [
        ("seen", "first"),
        ("compact", "compaction"),
    ]


async def test_a_stale_token_is_a_conflict_and_nothing_is_written(tmp_path: Path) -> None:
    pad = make_pad(tmp_path)
    async with served(tmp_path, pad) as session:
        plan = await call(session, "compact", path=str(pad))
        doc = json.loads(pad.read_text())
        doc["entries"][1]["text"] = "Read the ticket again; the test is flaky on Mondays."
        pad.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        changed = pad.read_bytes()
        message = await error(session, "compact", path=str(pad), confirm=plan["token"])
        assert "conflict" in message and "nothing written" in message
        assert pad.read_bytes() == changed
        # a token for another budget, or no token of this server's, is no better
        fresh = await call(session, "compact", path=str(pad))
        other = await error(session, "compact", path=str(pad), budget=95, confirm=fresh["token"])
        forged = await error(session, "compact", path=str(pad), confirm="0" * 64)
        assert "conflict" in other and "conflict" in forged
        assert pad.read_bytes() == changed
        # and a token is spent once: the pad it was made from is gone after its commit
        await call(session, "compact", path=str(pad), confirm=fresh["token"])
        again = await error(session, "compact", path=str(pad), confirm=fresh["token"])
        assert "conflict" in again


async def test_paths_outside_the_allowed_ones_are_refused(tmp_path: Path) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    make_pad(allowed)
    outside = make_pad(tmp_path, "secret.json")
    (allowed / "link.json").symlink_to(outside)
    (allowed / "sub").mkdir()
    (allowed / "alias.json").symlink_to(allowed / "pad.json")
    before = outside.read_bytes()
    async with served(tmp_path, allowed) as session:
        attempts = [
            str(outside),
            str(allowed / ".." / "secret.json"),
            "allowed/../secret.json",  # relative to the server's folder
            str(allowed / "link.json"),  # a symlink that leads out
            str(allowed / "sub" / ".." / ".." / "secret.json"),
            str(allowed),  # the folder itself is not a pad
            "/etc/passwd",
            "",
        ]
        for path in attempts:
            for tool, extra in (
                ("check", {}),
                ("audit", {"new_text": "[]"}),
                ("compact", {}),
                ("externalize", {"ids": ["nf1"]}),
                ("history", {}),
            ):
                message = await error(session, tool, path=path, **extra)
                assert "outside the pads" in message or "a path is needed" in message, message
        # audit's second pad is held to the same scope
        message = await error(
            session, "audit", path=str(allowed / "pad.json"), new_path=str(outside)
        )
        assert "outside the pads" in message
        # inside the folder, relative and nested names are fine
        assert (await call(session, "check", path="allowed/sub/../pad.json"))["verdict"]
        assert (await call(session, "check", path=str(allowed / "alias.json")))["verdict"]
    assert outside.read_bytes() == before


async def test_audit_judges_a_rewrite_before_it_is_written(tmp_path: Path) -> None:
    pad = make_pad(tmp_path)
    doc = json.loads(pad.read_text())
    doc["entries"] = doc["entries"][1:]  # the sealed constraint is gone
    rewrite = json.dumps(doc, indent=2)
    (tmp_path / "new.json").write_text(rewrite, encoding="utf-8")
    before = pad.read_bytes()
    async with served(tmp_path, tmp_path) as session:
        by_text = await call(session, "audit", path=str(pad), new_text=rewrite)
        by_path = await call(session, "audit", path=str(pad), new_path=str(tmp_path / "new.json"))
        same = await call(session, "audit", path=str(pad), new_text=pad.read_text())
        bad = await error(session, "audit", path=str(pad), new_text="{not json")
        both = await error(session, "audit", path=str(pad))
    assert by_text["verdict"] == "corruption"
    lost = [f for f in by_text["findings"] if "c1" in f["entries"]]
    assert lost and lost[0]["severity"] == "critical"
    assert "Never retry a write after a 5xx." in (lost[0]["before"] or "")
    assert by_path["verdict"] == "corruption" and by_path["findings"] == by_text["findings"]
    assert same["verdict"] == "unchanged"
    assert bad.startswith("Error executing tool audit: new_text:")
    assert "new_text" in both
    assert pad.read_bytes() == before  # read-only


async def test_externalize_seals_and_history_shows_it(tmp_path: Path) -> None:
    pad = make_pad(tmp_path, sealed_nf1=False)
    async with served(tmp_path, pad) as session:
        sealed = await call(session, "externalize", path=str(pad), ids=["nf1"])
        again = await call(session, "externalize", path=str(pad), ids=["nf1"])
        plan = await call(session, "check", path=str(pad), budget=60)
        history = await call(session, "history", path=str(pad), limit=1)
        unknown = await error(session, "externalize", path=str(pad), ids=["nope"])
        bad_limit = await error(session, "history", path=str(pad), limit=0)
    assert sealed["sealed"] == ["nf1"] and sealed["written"] is True
    assert again["written"] is False and again["already_sealed"] == ["nf1"]
    assert json.loads(pad.read_text())["entries"][3]["sealed"] is True
    assert plan["code"] != "PROTECTED_KIND_WOULD_DROP"  # the way out worked
    assert [v["origin"] for v in history["versions"]] == ["externalize"]
    assert history["more"] == 1
    assert "nope" in unknown and "limit" in bad_limit


async def test_resources_show_the_sealed_region_and_the_latest_findings(tmp_path: Path) -> None:
    pad = make_pad(tmp_path)
    async with served(tmp_path, pad) as session:
        uris = sorted(str(r.uri) for r in (await session.list_resources()).resources)
        assert uris == ["padtui://pads/1/findings", "padtui://pads/1/sealed"]
        plan = await call(session, "compact", path=str(pad))
        await call(session, "compact", path=str(pad), confirm=plan["token"])
        sealed = await session.read_resource("padtui://pads/1/sealed")
        findings = await session.read_resource("padtui://pads/1/findings")
    region = json.loads(getattr(sealed.contents[0], "text", ""))
    assert [e["id"] for e in region["sealed"]][:2] == ["c1", "nf1"]
    assert any(e["kind"] == "loss_record" for e in region["sealed"])
    latest = json.loads(getattr(findings.contents[0], "text", ""))
    assert latest["verdict"] == "compaction" and latest["version"] == 2


async def test_bad_pads_are_one_line_tool_errors_and_the_server_goes_on(tmp_path: Path) -> None:
    pad = make_pad(tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text('{"entries": [\x1b[31m', encoding="utf-8")
    async with served(tmp_path, tmp_path) as session:
        message = await error(session, "check", path=str(broken))
        assert str(broken) in message and "\x1b" not in message
        missing = await error(session, "check", path=str(tmp_path / "gone.json"))
        assert "gone.json" in missing
        kind = await error(session, "check", path=str(tmp_path / "server-stderr.txt"))
        assert "server-stderr.txt" in kind
        assert (await call(session, "check", path=str(pad)))["verdict"] == "compactable"


def test_a_missing_path_on_the_command_line_is_one_line_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "padtui", "mcp", str(tmp_path / "nowhere.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "no such file or folder" in done.stderr


async def test_bad_arguments_are_one_line_tool_errors(tmp_path: Path) -> None:
    pad = make_pad(tmp_path)
    async with served(tmp_path, pad) as session:
        budget = await error(session, "check", path=str(pad), budget="lots\nof\ntokens")
        ids = await error(session, "externalize", path=str(pad), ids=3)
        policy = await error(session, "check", path=str(pad), policy="lenient")
        missing = await error(session, "compact")
    assert "invalid arguments: budget:" in budget and "lots" not in budget
    assert "invalid arguments: ids:" in ids
    assert "invalid arguments: policy:" in policy
    assert "invalid arguments: path:" in missing


async def test_a_letta_agent_file_is_checked_but_never_written(tmp_path: Path) -> None:
    source = Path(__file__).parents[2] / "sample_pads" / "letta-support-agent.af"
    agent = tmp_path / "agent.af"
    agent.write_bytes(source.read_bytes())
    async with served(tmp_path, agent) as session:
        report = await call(session, "check", path=str(agent))
        refused = await error(session, "compact", path=str(agent))
    assert report["limits"]  # Letta's blocks, in characters beside tokens
    assert str(agent) in refused
    assert agent.read_bytes() == source.read_bytes()


async def test_compact_on_a_claude_md_keeps_its_rules_and_names_the_call_that_seals(
    tmp_path: Path,
) -> None:
    from tests.memory_files import CLAUDE_MD

    pad = tmp_path / "CLAUDE.md"
    pad.write_text(CLAUDE_MD, encoding="utf-8")
    async with served(tmp_path, pad) as session:
        first = await call(session, "compact", path=str(pad), budget=200)
        assert first["code"] == "RULE_WOULD_DROP" and first["token"] is None
        assert first["written"] is False and pad.read_text(encoding="utf-8") == CLAUDE_MD
        way = first["way_out_call"]
        assert way["tool"] == "externalize" and way["arguments"]["ids"] == first["to_seal"]
        sealed = await call(session, "externalize", **way["arguments"])
        assert sealed["written"] is True
        again = await call(session, "compact", path=str(pad), budget=200)
    assert again["code"] not in ("RULE_WOULD_DROP", "PROTECTED_KIND_WOULD_DROP")
    text = pad.read_text(encoding="utf-8")
    assert text.count("<!-- sealed -->") == len(first["to_seal"])
    assert text.replace(" <!-- sealed -->", "") == CLAUDE_MD  # sealed where they stand
