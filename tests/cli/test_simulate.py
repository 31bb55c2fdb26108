"""`padtui simulate`: a scripted agent from the command line."""

from __future__ import annotations

import json

from padtui.cli import main


def test_simulate_plays_a_scenario_to_its_end(tmp_path, capsys):
    pad = tmp_path / "pad.json"
    code = main(["simulate", str(pad), "--scenario", "billing", "--interval", "0"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "step 3/3" in out
    ids = [e.get("id") for e in json.loads(pad.read_text())["entries"]]
    assert "c-billing" not in ids and "n-3" in ids  # the prohibition is gone, the act done


def test_simulate_halts_and_surfaces_on_a_refusal(tmp_path, capsys):
    pad = tmp_path / "pad.json"
    code = main(
        [
            "simulate",
            str(pad),
            "--scenario",
            "sealed-overflow",
            "--interval",
            "0",
            "--writes",
            "inplace",
        ]
    )
    out, _ = capsys.readouterr()
    assert code == 1
    assert "halt and surface: SEALED_OVER_BUDGET" in out


def test_simulate_never_overwrites_a_pad_unless_told(tmp_path, capsys):
    pad = tmp_path / "pad.json"
    pad.write_text("[]")
    code = main(["simulate", str(pad), "--scenario", "healthy", "--interval", "0"])
    _, err = capsys.readouterr()
    assert code == 2 and "--reset" in err and len(err.splitlines()) == 1
    assert pad.read_text() == "[]"
    assert main(["simulate", str(pad), "--scenario", "healthy", "--interval", "0", "--reset"]) == 0


def test_unknown_scenario_is_bad_input(tmp_path, capsys):
    code = main(["simulate", str(tmp_path / "p.json"), "--scenario", "nope"])
    _, err = capsys.readouterr()
    assert code == 2 and "no such scenario" in err


def test_demo_lists_the_scenarios(capsys):
    assert main(["demo", "--list"]) == 0
    out, _ = capsys.readouterr()
    assert {"retry-5xx", "billing", "loss-record-eviction", "healthy", "sealed-overflow"} <= {
        line.split()[0] for line in out.splitlines()
    }
