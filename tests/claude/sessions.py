"""Claude Code sessions written for the tests, in the record shapes Claude Code writes (the README's
"Guard Claude Code's compactions"): a project folder with memory files and a transcript to
compact."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

SESSION = "5e1f0c2a-9b7d-4c3e-8f21-0a6b3c9d7e45"
CLAUDE_MD = "# Project\n\nA small shop backend.\n\n## Rules\n\n- Never push to `main` directly.\n"
STYLE_RULES = "# Style\n\n- Always run `make lint` before a commit.\n"

# the user's messages: content as a string, and as a list of blocks
RULE_MIGRATIONS = "don't touch the migration files, I'll write them myself after the rebase"
RULE_TESTS = "run only `pytest -q` for the tests, never the full tox run"

FAITHFUL = """Summary:
1. Primary Request and Intent:
   The user wants a cancel endpoint for orders.
   - Do not touch the migration files: the user writes them himself after the rebase.
   - Run only `pytest -q` for the tests, never the full tox run.
2. Current Work:
   The cancel view is written; tests pass.
"""
DROPPED = """Summary:
1. Primary Request and Intent:
   The user wants a cancel endpoint for orders.
   - Run only `pytest -q` for the tests, never the full tox run.
2. Current Work:
   The cancel view is written; next, add the migration for the new field.
"""
WEAKENED = """Summary:
1. Primary Request and Intent:
   The user wants a cancel endpoint for orders.
   - Avoid touching the migration files where possible; the user writes them after the rebase.
   - Run only `pytest -q` for the tests, never the full tox run.
2. Current Work:
   The cancel view is written; tests pass.
"""


class Session:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = root / "shop"
        self.home = root / "home"
        self.state = root / "state"
        self.transcript = self.home / ".claude" / "projects" / "-shop" / f"{SESSION}.jsonl"
        self.records: list[dict[str, Any]] = []
        self.last: str | None = None
        (self.project / ".claude" / "rules").mkdir(parents=True)
        self.transcript.parent.mkdir(parents=True)
        (self.project / "CLAUDE.md").write_text(CLAUDE_MD)
        (self.project / ".claude" / "rules" / "style.md").write_text(STYLE_RULES)
        self.state.mkdir()

    def _add(self, record: dict[str, Any]) -> None:
        base = {
            "parentUuid": self.last,
            "isSidechain": False,
            "userType": "external",
            "cwd": str(self.project),
            "sessionId": SESSION,
            "version": "2.1.60",
            "gitBranch": "cancel-orders",
            "uuid": str(uuid.uuid4()),
            "timestamp": "2026-03-03T11:00:00.000Z",
        }
        base.update(record)
        self.records.append(base)
        self.last = base["uuid"]
        self._save()

    def _save(self) -> None:
        lines = (json.dumps(r, ensure_ascii=False) for r in self.records)
        self.transcript.write_text("".join(line + "\n" for line in lines))

    def user(self, content: str | list[dict[str, Any]]) -> None:
        self._add({"type": "user", "message": {"role": "user", "content": content}})

    def assistant(self, text: str) -> None:
        tool = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "ls"}}
        content = [{"type": "text", "text": text}, tool]
        self._add({"type": "assistant", "message": {"role": "assistant", "content": content}})
        result = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "views.py\n"}
        self._add(
            {
                "type": "user",
                "message": {"role": "user", "content": [result]},
                "toolUseResult": {"stdout": "views.py\n"},
            }
        )

    def read_file(self, path: Path) -> None:
        """The agent reads a file (a Read tool call)."""
        call = {
            "type": "tool_use",
            "id": "toolu_02",
            "name": "Read",
            "input": {"file_path": str(path)},
        }
        self._add({"type": "assistant", "message": {"role": "assistant", "content": [call]}})

    def conversation(self) -> None:
        self.user(f"add a cancel endpoint for orders. {RULE_MIGRATIONS}.")
        self.assistant("Looking at the views.")
        self.user([{"type": "text", "text": RULE_TESTS}])
        self.assistant("Understood.")

    def compact(self, summary: str, trigger: str = "auto") -> None:
        """What Claude Code writes when it compacts: a boundary, then the summary."""
        self._add(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "isMeta": False,
                "level": "info",
                "compactMetadata": {"trigger": trigger, "preTokens": 155000},
                "parentUuid": None,
                "logicalParentUuid": self.last,
            }
        )
        text = (
            "This session is being continued from a previous conversation that ran out of "
            "context. The summary below covers the earlier portion of the conversation.\n\n"
            + summary
        )
        self._add(
            {
                "type": "user",
                "message": {"role": "user", "content": text},
                "isCompactSummary": True,
                "isVisibleInTranscriptOnly": True,
            }
        )

    def event(self, name: str, **more: Any) -> dict[str, Any]:
        return {
            "session_id": SESSION,
            "transcript_path": str(self.transcript),
            "cwd": str(self.project),
            "hook_event_name": name,
            **more,
        }

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["HOME"] = str(self.home)
        env["XDG_STATE_HOME"] = str(self.state)
        env["PADTUI_CLAUDE_MANAGED"] = str(self.root / "managed" / "CLAUDE.md")
        return env

    def run(
        self, *args: str, stdin: dict[str, Any] | str | None = None
    ) -> subprocess.CompletedProcess[str]:
        data = stdin if isinstance(stdin, str) or stdin is None else json.dumps(stdin)
        return subprocess.run(
            [sys.executable, "-m", "padtui", *args],
            input=data,
            capture_output=True,
            text=True,
            env=self.env(),
            cwd=self.project,
            timeout=60,
        )
