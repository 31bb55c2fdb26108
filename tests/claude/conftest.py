from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _no_managed_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The managed policy file is looked for in the test's own folder, never in /etc."""
    monkeypatch.setenv("PADTUI_CLAUDE_MANAGED", str(tmp_path / "managed" / "CLAUDE.md"))
