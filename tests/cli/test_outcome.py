"""A command returns what to show and prints nothing; the renderer prints it, and that is what
``padtui`` prints."""

from __future__ import annotations

import json

import pytest

from padtui.cli import commands, main
from padtui.cli.parser import build_parser
from padtui.cli.render import show
from padtui.samples import default_pad


@pytest.mark.parametrize("as_json", [False, True])
def test_a_command_returns_its_outcome_and_the_renderer_prints_it(
    as_json: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["check", str(default_pad()), "--no-cache", *(["--json"] if as_json else [])]
    outcome = commands.check(build_parser().parse_args(argv))
    assert capsys.readouterr() == ("", "")  # nothing printed by the command itself
    assert (outcome.json is not None) == as_json and (outcome.text is not None) != as_json
    code = show(outcome)
    shown = capsys.readouterr().out
    assert code == outcome.code == main(argv)
    assert capsys.readouterr().out == shown
    if as_json:
        assert json.loads(shown)["path"] == str(default_pad())
