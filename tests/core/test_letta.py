"""Letta agent files (.af): core memory blocks opened read-only as a pad, in every export
style Letta has written; limits in characters beside tokens; writes refused in one line."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from padtui.core import formats
from padtui.core.agents import letta
from padtui.core.audit.rewrite import audit
from padtui.core.compaction import sealing
from padtui.core.compaction.plan import plan
from padtui.core.counting.tokens import counter_for
from padtui.core.errors import PadError
from padtui.core.formats import letta as agent_files
from padtui.core.storage import store
from padtui.core.storage.journal import Journal, _cut

SAMPLE = Path(__file__).parents[2] / "sample_pads" / "letta-support-agent.af"


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def block(label: str, value: str, limit: int, read_only: bool, n: int, **extra: Any) -> dict:
    """A block as Letta exports it (the fields padtui reads, and the ones it keeps)."""
    return {
        "value": value,
        "limit": limit,
        "project_id": None,
        "template_name": None,
        "is_template": False,
        "preserve_on_migration": False,
        "label": label,
        "read_only": read_only,
        "description": f"The {label} block.",
        "metadata": {},
        "hidden": None,
        "id": f"block-{n}",
        **extra,
    }


def agent_file() -> dict[str, Any]:
    """A realistic agent file: a research agent and its sleep-time helper sharing blocks."""
    blocks = [
        block(
            "persona",
            "I am Wren, a research assistant. I cite sources and say when I am unsure.",
            5000,
            False,
            0,
        ),
        block(
            "human",
            "Dr. Okafor, a hydrologist. Writing a review of groundwater recharge in the Sahel.",
            5000,
            False,
            1,
        ),
        block(
            "research_policies",
            "Never fabricate a citation. Do not quote paywalled papers beyond 200 words.",
            1000,
            True,
            2,
        ),
        block(
            "negative_facts",
            "The 2019 FAO dataset was tried for recharge rates: it has no Sahel coverage.",
            1000,
            False,
            3,
        ),
        block(
            "working_notes",
            "Draft section 2 is done. Section 3 needs the GRACE satellite figures, "
            "which the human will send on Thursday. " * 3,
            200,
            False,
            4,
        ),
        block(
            "memory_editing_rules",
            "Only the sleep-time agent rewrites working_notes.",
            500,
            True,
            5,
        ),
    ]
    agent = {
        "name": "wren",
        "memory_blocks": [],
        "tools": [],
        "tool_ids": ["tool-0", "tool-1"],
        "source_ids": [],
        "folder_ids": None,
        "block_ids": [b["id"] for b in blocks],
        "tool_rules": [],
        "tags": ["research"],
        "system": "<base_instructions>\nYou are Wren.\n</base_instructions>",
        "agent_type": "memgpt_v2_agent",
        "llm_config": {"model": "example", "context_window": 32000},
        "embedding_config": {"embedding_model": "example-embedding", "embedding_dim": 1536},
        "id": "agent-0",
        "in_context_message_ids": ["message-0"],
        "messages": [
            {
                "type": "message",
                "role": "system",
                "content": [{"type": "text", "text": "<base_instructions>…"}],
                "id": "message-0",
            }
        ],
        "group_ids": ["group-0"],
    }
    sleeper = {**copy.deepcopy(agent), "name": "wren-sleeptime", "id": "agent-1"}
    sleeper["block_ids"] = ["block-4", "block-5"]
    return {
        "agents": [agent, sleeper],
        "groups": [{"id": "group-0", "agent_ids": ["agent-0", "agent-1"]}],
        "blocks": blocks,
        "files": [],
        "sources": [],
        "tools": [{"id": "tool-0", "name": "send_message"}, {"id": "tool-1", "name": "memory"}],
        "mcp_servers": [],
        "metadata": {},
        "created_at": "2026-11-29T12:00:00+00:00",
    }


def write(tmp_path: Path, doc: Any, name: str = "wren.af", encode_twice: bool = False) -> Path:
    text = json.dumps(doc, indent=2)
    if encode_twice:  # the older export style: the file is a JSON string holding the document
        text = json.dumps(text)
    path = tmp_path / name
    path.write_text(text + "\n")
    return path


EXPECTED = [
    ("persona", "note", False),
    ("human", "note", False),
    ("research_policies", "constraint", True),
    ("negative_facts", "negative_fact", False),
    ("working_notes", "note", False),
    ("memory_editing_rules", "constraint", True),
]


@pytest.mark.parametrize("encode_twice", [False, True], ids=["object", "encoded-twice"])
def test_an_agent_file_opens_as_a_pad(tmp_path: Path, encode_twice: bool) -> None:
    doc = agent_file()
    pf = formats.load(str(write(tmp_path, doc, encode_twice=encode_twice)))
    assert pf.layout.format == "af"
    assert [(e.label, e.kind, e.sealed) for e in pf.pad.entries] == EXPECTED
    assert [e.text for e in pf.pad.entries] == [b["value"] for b in doc["blocks"]]
    assert pf.pad.entries[2].raw["description"] == "The research_policies block."
    assert pf.pad.entries[2].raw["id"] == "block-2"
    assert pf.pad.budget_tokens is None
    # each block's source is its exact text in the file, so the journal stores it once
    assert all(e.source is not None for e in pf.pad.entries)
    assert _cut(pf, pf.data) is not None


def test_agents_with_inline_core_memory_and_a_single_agent_export(tmp_path: Path) -> None:
    doc = agent_file()
    blocks = doc.pop("blocks")
    doc["agents"][0]["core_memory"] = blocks[:4]
    doc["agents"][1]["core_memory"] = blocks[4:]
    pf = formats.load(str(write(tmp_path, doc)))
    assert [(e.label, e.kind, e.sealed) for e in pf.pad.entries] == EXPECTED
    single = {"agent_type": "memgpt_agent", "name": "wren", "core_memory": blocks, "tools": []}
    pf = formats.load(str(write(tmp_path, single, "single.af", encode_twice=True)))
    assert [(e.label, e.kind, e.sealed) for e in pf.pad.entries] == EXPECTED


def test_labels_name_kinds() -> None:
    cases = {
        "guardrails": "constraint",
        "server_rules": "constraint",
        "refundPolicy": "constraint",
        "Constraints": "constraint",
        "loss-records": "loss_record",
        "hypotheses": "hypothesis",
        "plan": "plan",
        "persona": "note",
        "human": "note",
        "rulebook_notes": "note",
    }
    assert {label: agent_files.kind_for_label(label) for label in cases} == cases


def test_two_blocks_with_one_label_are_told_apart_by_description(tmp_path: Path) -> None:
    doc = agent_file()
    doc["blocks"].append(
        block(
            "persona",
            "The sleep-time agent's own persona.",
            2000,
            False,
            9,
            description="Who the sleep-time helper is and how it tidies memory.",
        )
    )
    pad = formats.load(str(write(tmp_path, doc))).pad
    assert [e.label for e in pad.entries if e.raw["label"] == "persona"] == [
        "persona@the-persona-block",
        "persona@who-the-sleep-time",
    ]
    assert {e.context for e in pad.entries if e.raw["label"] == "persona"} == {("persona",)}
    assert pad.find("human") is not None and pad.find("human").context == ("human",)


def test_a_block_keeps_its_identity_across_re_exports(tmp_path: Path) -> None:
    """Letta renumbers its block ids on every export, and a re-export may put the blocks in
    another order: neither changes a block's identity."""
    doc = agent_file()
    doc["blocks"].append(block("persona", "The helper's persona.", 2000, False, 9))
    first = formats.load(str(write(tmp_path, doc))).pad
    again = json.loads(json.dumps(doc))
    personas = [b for b in again["blocks"] if b["label"] == "persona"]
    others = [b for b in again["blocks"] if b["label"] != "persona"]
    # the other blocks move around them (the two persona blocks keep their own order)
    again["blocks"] = [others[-1], personas[0], *others[:-1][::-1], personas[1]]
    for k, b in enumerate(again["blocks"]):
        b["id"] = f"block-{40 + k}"
    path = tmp_path / "again.af"
    path.write_text(json.dumps(again))
    second = formats.load(str(path)).pad
    by_id = {e.label: e.text for e in first.entries}
    assert {e.label: e.text for e in second.entries} == by_id
    # the two persona blocks share label and description: their order among the two tells
    assert {k for k in by_id if k.startswith("persona")} == {
        "persona@the-persona-block-1",
        "persona@the-persona-block-2",
    }


def test_block_ids_from_labels_and_descriptions() -> None:
    ids = agent_files.block_ids(
        ["human", "notes", "notes", "notes", "notes", "tasks", "tasks"],
        [
            "",
            "Open work items for today",
            "Open work items for later",
            "Scratch",
            "Scratch",
            "",
            "",
        ],
    )
    assert ids[0] == "human"
    for found in ids[1:3]:  # two descriptions that begin alike: a hash tells them apart
        assert re.fullmatch(r"notes@open-work-items-for-[0-9a-f]{6}", found)
    assert ids[1] != ids[2]
    assert ids[3:] == ["notes@scratch-1", "notes@scratch-2", "tasks@1", "tasks@2"]


def test_limits_in_characters_beside_tokens(tmp_path: Path) -> None:
    pad = formats.load(str(write(tmp_path, agent_file()))).pad
    trial = plan(pad, 4000)
    limits = {b.id: b for b in letta.limits(pad, trial.costs)}
    notes = limits["working_notes"]
    assert (notes.chars, notes.limit) == (len(pad.entries[4].text), 200)
    assert notes.over and notes.chars > 200
    assert notes.tokens == trial.costs[4] > 0
    assert not limits["persona"].over
    assert notes.as_json() == {
        "id": "working_notes",
        "label": "working_notes",
        "kind": "note",
        "sealed": False,
        "chars": notes.chars,
        "limit": 200,
        "tokens": notes.tokens,
        "over_limit": True,
    }


def test_an_agent_file_audits(tmp_path: Path) -> None:
    doc = agent_file()
    old = formats.load(str(write(tmp_path, doc, "old.af"))).pad
    counter = counter_for(None)

    # a sleep-time rewrite that condenses the notes: a rewritable block, no alarm
    calm = agent_file()
    calm["blocks"][4]["value"] = "Section 2 done; section 3 waits for GRACE figures (Thursday)."
    new = formats.load(str(write(tmp_path, calm, "calm.af", encode_twice=True))).pad
    assert audit(old, new, counter).verdict in ("compaction", "growth", "unchanged")
    assert not [f for f in audit(old, new, counter).findings if f.severity == "critical"]

    # a rewrite that drops the read-only policies and weakens the negative fact
    bad = agent_file()
    del bad["blocks"][2]
    bad["blocks"][2]["value"] = "The FAO dataset was tried for recharge rates."
    new = formats.load(str(write(tmp_path, bad, "bad.af"))).pad
    result = audit(old, new, counter)
    assert result.verdict == "corruption"
    codes = {f.code for f in result.findings}
    assert {"SEALED_REMOVED", "CONSTRAINT_DROPPED", "CONSTRAINT_WEAKENED"} <= codes


def test_the_sample_agent_file(tmp_path: Path) -> None:
    pf = formats.load(str(SAMPLE))
    assert [e.label for e in pf.pad.entries] == [
        "human",
        "persona",
        "refund_policy",
        "escalation_rules",
        "ticket_log",
    ]
    assert [e.label for e in pf.pad.sealed] == ["refund_policy"]
    trial = plan(pf.pad, 200)
    assert trial.verdict == "compactable"


# --- read-only ------------------------------------------------------------------------------


def test_every_write_is_refused_in_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, agent_file())
    before = path.read_bytes()
    snap = store.read(str(path), journal=True)
    trial = plan(snap.pad, 150, "seed")  # (strict keeps the blocks' rules: it refuses)
    assert trial.verdict == "compactable"
    attempts = [
        lambda: store.commit(snap, trial),
        lambda: store.commit(snap, list(snap.pad.entries)),
        lambda: sealing.externalize(snap, ["negative_facts"]),
        lambda: store.restore(str(path), 1),
    ]
    for attempt in attempts:
        with pytest.raises(PadError) as caught:
            attempt()
        line = caught.value.line()
        assert line == f"{path}: {agent_files.READ_ONLY}" and "\n" not in line
        assert "writing back to .af is not supported" in line
    with pytest.raises(ValueError, match="not supported"):
        formats.render(snap.file.layout, snap.pad.entries)
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("encode_twice", [False, True])
def test_the_journal_keeps_agent_file_versions_byte_for_byte(
    tmp_path: Path, encode_twice: bool
) -> None:
    path = tmp_path / "wren.af"
    journal = Journal(str(tmp_path / "j.jsonl"), str(path))
    texts = []
    for k in range(3):
        doc = agent_file()
        doc["blocks"][4]["value"] = f"Working notes, revision {k}."
        write(tmp_path, doc, encode_twice=encode_twice)
        texts.append(path.read_bytes())
        store.read(str(path), journal=journal)
    assert [journal.data(v.n) for v in journal.versions()] == texts
    assert all(v.raw is None for v in journal.versions())  # cut at blocks, not whole


# --- bad input ------------------------------------------------------------------------------


def bad(tmp_path: Path, text: str) -> PadError:
    path = tmp_path / "bad.af"
    path.write_text(text)
    with pytest.raises(PadError) as caught:
        formats.load(str(path))
    line = caught.value.line()
    assert line.startswith(f"{path}: ") and "\n" not in line
    return caught.value


def mutated(change) -> str:
    doc = agent_file()
    change(doc)
    return json.dumps(doc, indent=2)


@pytest.mark.parametrize(
    ("text", "problem", "where"),
    [
        ('{"agents": [\n  {"name": "x",}\n]}', "invalid JSON", "line 2, column 16"),
        (json.dumps('{"blocks": [}'), "the encoded document: invalid JSON", "line 1, column 13"),
        ("[1, 2]", "a Letta agent file is a JSON object", None),
        ('{"agents": []}', "no memory blocks", None),
        ('{"blocks": {"label": "x"}}', '"blocks" must be an array', None),
        (mutated(lambda d: d["blocks"][3].pop("label")), 'missing "label"', "block 3 (line "),
        (
            mutated(lambda d: d["blocks"][1].update(value=None)),
            '"value" must be a string',
            "block 1",
        ),
        (
            mutated(lambda d: d["blocks"][0].update(limit="5k")),
            '"limit" must be a whole',
            "block 0",
        ),
        (
            mutated(lambda d: d["blocks"][2].update(read_only="yes")),
            '"read_only" must be',
            "block 2",
        ),
        (
            mutated(lambda d: d["blocks"][5].update(label="")),
            '"label" must not be empty',
            "block 5",
        ),
        (mutated(lambda d: d["blocks"].__setitem__(4, "text")), "must be an object", "block 4"),
        ("", "empty file", None),
    ],
)
def test_bad_input_is_one_line_naming_the_file_and_place(
    tmp_path: Path, text: str, problem: str, where: str | None
) -> None:
    exc = bad(tmp_path, text)
    assert problem in exc.problem
    if where is None:
        assert exc.where is None
    else:
        assert exc.where is not None and exc.where.startswith(where)


def test_a_bad_block_in_an_encoded_file_names_its_line_in_the_encoded_document(
    tmp_path: Path,
) -> None:
    text = json.dumps(mutated(lambda d: d["blocks"][3].update(read_only=1)))
    exc = bad(tmp_path, text)
    assert exc.where is not None
    assert exc.where.startswith("block 3 (line ") and exc.where.endswith("of the encoded document)")
