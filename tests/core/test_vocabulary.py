"""padtui's words are StrEnums: each is its string in JSON and in comparisons, and every
finding code has its severity."""

from __future__ import annotations

import json

from padtui.core.audit.findings import SEVERITY, FindingCode
from padtui.core.vocabulary import Origin, Policy, Severity, Verdict


def test_every_finding_code_has_a_severity() -> None:
    assert set(SEVERITY) == set(FindingCode)
    assert set(SEVERITY.values()) == set(Severity)


def test_a_word_is_its_string_in_json_and_in_comparisons() -> None:
    report = {"verdict": Verdict.CORRUPTION, "codes": [FindingCode.CONSTRAINT_DROPPED]}
    assert json.dumps(report) == '{"verdict": "corruption", "codes": ["CONSTRAINT_DROPPED"]}'
    assert Verdict.CORRUPTION == "corruption" and f"{Policy.SEED}" == "seed"
    assert Origin("seen") is Origin.SEEN
