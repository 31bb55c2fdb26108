"""The README's promises to a new user that a test can hold."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]


def _shell_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, flags=re.S)


def test_readme_opens_with_the_two_commands():
    blocks = _shell_blocks((ROOT / "README.md").read_text())
    install_and_run, install_and_test = blocks[0], blocks[1]
    assert "pip install ." in install_and_run and ".venv/bin/padtui" in install_and_run
    assert "pytest" in install_and_test


def test_ci_runs_exactly_the_readme_test_command():
    blocks = _shell_blocks((ROOT / "README.md").read_text())
    command = [line for line in blocks[1].splitlines() if line and not line.startswith("#")]
    assert len(command) == 1
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert command[0] in ci


def test_every_name_of_the_readme_python_api_is_there():
    import padtui

    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Python API\n\n```python\n(.*?)```", text, flags=re.S)
    assert block is not None
    names = set(re.findall(r"\bpadtui\.([A-Za-z_]\w*)", block.group(1)))
    assert {"load", "load_pad", "plan", "audit", "commit"} <= names
    for name in names - {"core"}:
        assert name in padtui.__all__ and getattr(padtui, name) is not None, name
