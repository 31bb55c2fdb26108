"""The headless commands on the shipped sample pads: output, JSON shape and exit codes."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from padtui.cli import main
from padtui.cli.parser import COMMANDS, build_parser

SAMPLES = Path(__file__).parents[2] / "sample_pads"
TRANSITIONS = SAMPLES / "transitions"
CHECK_KEYS = {
    "verdict",
    "code",
    "policy",
    "budget",
    "encoding",
    "tokens",
    "kept",
    "dropped",
    "loss_record",
    "claims",
    "message",
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code, out, err = run(capsys, *argv, "--json")
    assert err == ""
    return code, json.loads(out)


@pytest.mark.parametrize("pad", sorted(p.name for p in SAMPLES.glob("*.json*")))
def test_every_sample_pad_checks_with_a_known_verdict(capsys, pad):
    code, report = run_json(capsys, "check", str(SAMPLES / pad))
    assert report.keys() >= CHECK_KEYS
    assert report["verdict"] in {"fits", "compactable", "refused"}
    assert code == (1 if report["verdict"] == "refused" else 0)
    assert set(report["tokens"]) >= {"total", "sealed", "rewritable", "after"}


def test_the_seed_situation_is_refused_under_strict_with_the_way_out(capsys):
    pad = str(SAMPLES / "retry-5xx-under-pressure.json")
    code, out, _ = run(capsys, "check", pad)
    assert code == 1
    assert "refused: PROTECTED_KIND_WOULD_DROP" in out
    # the way out seals the constraint, and the rules a pass at this budget would drop once
    # it is sealed (the sealed region grows): one command, the pad's path absolute
    head = f"way out: externalize them into the sealed region first: padtui externalize {pad} "
    assert out.splitlines()[-1].startswith(head)
    assert {"c-retry", "n-08"} <= set(out.splitlines()[-1].removeprefix(head).split())
    code, report = run_json(capsys, "check", pad)
    assert report["code"] == "PROTECTED_KIND_WOULD_DROP"
    assert report["to_seal"] == out.splitlines()[-1].removeprefix(head).split()
    assert "c-retry" in report["dropped"]
    assert report["tokens"]["after"] == report["tokens"]["total"]


def test_the_seed_policy_lets_the_constraint_go_because_some_loss_record_exists(capsys):
    """The reference compact() only asks that *a* sealed loss record exists: it drops the
    unsealed constraint without recording it. strict refuses the same pass."""
    pad = str(SAMPLES / "retry-5xx-under-pressure.json")
    code, report = run_json(capsys, "check", pad, "--policy", "seed")
    assert code == 0
    assert report["verdict"] == "compactable"
    assert "c-retry" in report["dropped"]
    assert report["loss_record"] is None
    # seed reports kept as sealed first, then kept rewritable entries
    assert report["kept"][:3] == ["c-billing", "nf-bulk", "loss-20261113T221502Z"]


def test_a_larger_budget_makes_it_fit(capsys):
    code, report = run_json(
        capsys, "check", str(SAMPLES / "retry-5xx-under-pressure.json"), "--budget", "5000"
    )
    assert (code, report["verdict"], report["dropped"]) == (0, "fits", [])
    assert report["budget"] == 5000


def test_sealed_region_over_budget_is_refused(capsys):
    code, report = run_json(capsys, "check", str(SAMPLES / "sealed-over-budget.json"))
    assert code == 1
    assert report["code"] == "SEALED_OVER_BUDGET"
    assert report["tokens"]["sealed"] > report["budget"]


def test_compactable_pad_gets_a_loss_record_within_budget(capsys):
    code, report = run_json(capsys, "check", str(SAMPLES / "compactable-notes.jsonl"))
    assert code == 0
    assert report["verdict"] == "compactable"
    # the record declares every drop: its drops field lists them, its text names them (the
    # notes, which have no id, by a short quote of each)
    assert report["loss_record_drops"] == report["dropped"] == ["#74", "#75", "h-1"]
    assert report["loss_record_form"] == "names"
    assert '2 notes ("SKU 19590:...", "SKU 19727:...")' in report["loss_record"]
    assert "1 hypothesis (h-1)" in report["loss_record"]
    assert report["tokens"]["after"] <= report["budget"] < report["tokens"]["total"]
    assert report["claims"]["after"] < report["claims"]["before"]


def test_compact_without_write_changes_nothing(capsys):
    pad = SAMPLES / "compactable-notes.jsonl"
    before = pad.read_bytes()
    code, out, _ = run(capsys, "compact", str(pad))
    assert code == 0
    assert "would drop" in out
    assert pad.read_bytes() == before


def test_audit_of_the_seed_condense_is_corruption(capsys):
    code, report = run_json(
        capsys,
        "audit",
        str(TRANSITIONS / "retry-5xx-before.json"),
        str(TRANSITIONS / "retry-5xx-after-condense.json"),
    )
    assert code == 1
    assert report["verdict"] == "corruption"
    weakened = [f for f in report["findings"] if f["code"] == "CONSTRAINT_WEAKENED"]
    assert weakened and weakened[0]["severity"] == "critical"
    assert "c-retry" in weakened[0]["entries"]
    assert set(weakened[0]) >= {"code", "severity", "entries", "message"}


def test_audit_of_a_declared_merge_is_compaction(capsys):
    code, out, _ = run(
        capsys,
        "audit",
        str(TRANSITIONS / "retry-5xx-before.json"),
        str(TRANSITIONS / "merge-after.json"),
    )
    assert code == 0
    assert out.splitlines()[0].endswith(": compaction")


def test_human_output_never_carries_control_characters(capsys, tmp_path):
    pad = tmp_path / "evil.json"
    pad.write_text(
        json.dumps(
            [
                {
                    "kind": "note",
                    "text": "ring\x07 the \x1b]0;title\x1b\\ bell \x9b31m" + " x" * 50,
                },
                {"kind": "plan", "text": "short"},
            ]
        )
    )
    _code, out, _ = run(capsys, "check", str(pad), "--budget", "5")
    assert not any(ch in out for ch in "\x07\x1b\x9b")
    assert "ring the ]0;title\\ bell 31m" in out


def test_budget_must_be_a_whole_number(capsys):
    code, _, err = run(capsys, "check", str(SAMPLES / "healthy.json"), "--budget", "-3")
    assert code == 2
    assert "--budget" in err


def test_padtui_alone_checks_the_embedded_sample(capsys):
    code, out, _ = run(capsys)
    assert code == 0
    assert "retry-5xx-under-pressure.json" in out


def test_the_installed_entry_point_runs(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "padtui", "check", str(SAMPLES / "healthy.json"), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["verdict"] == "fits"


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser = action.choices[command]
            return found
    raise AssertionError("no commands")


ARGV = {  # a command line of each command
    "watch": ["watch", "p.json", "--budget", "9"],
    "simulate": ["simulate", "p.json", "--scenario", "x"],
    "demo": ["demo"],
    "replay": ["replay", "j"],
    "externalize": ["externalize", "p.json", "a"],
    "audit": ["audit", "a.json", "b.json"],
    "mcp": ["mcp", "p.json"],
    "claude": ["claude", "pre-compact", "--no-block"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_parsed_alone_reads_and_helps_as_in_the_whole_grammar(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run builds only its own command's parser: its --help and what it parses are
    those of the whole grammar."""
    monkeypatch.setenv("COLUMNS", "100")
    whole, alone = build_parser(), build_parser(command)
    assert _subparser(alone, command).format_help() == _subparser(whole, command).format_help()
    argv = ARGV.get(command, [command, "p.json"])
    assert vars(alone.parse_args(argv)) == vars(whole.parse_args(argv))


def test_help_is_as_wide_as_the_terminal_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert max(map(len, build_parser("check").format_help().splitlines())) <= 58
    monkeypatch.setenv("COLUMNS", "200")
    assert max(map(len, _subparser(build_parser(), "audit").format_help().splitlines())) > 100
