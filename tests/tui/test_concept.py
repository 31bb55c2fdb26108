"""The concept screen explains every finding code and every refusal: "why this matters"
opens the section that the code's row in the audit's table names."""

from __future__ import annotations

import pytest

from padtui.core.audit.findings import FindingCode
from padtui.core.vocabulary import RefusalCode
from padtui.tui.concept import SECTIONS, section_for


@pytest.mark.parametrize("code", [*FindingCode, *RefusalCode])
def test_every_code_opens_a_section_of_the_concept(code: FindingCode | RefusalCode) -> None:
    assert section_for(code) in SECTIONS


def test_each_finding_opens_the_section_that_explains_it() -> None:
    sections = {code: section_for(code) for code in FindingCode}
    assert sections == {
        "CONSTRAINT_DROPPED": "distinction",
        "CONSTRAINT_WEAKENED": "distinction",
        "CONSTRAINT_DEMOTED": "boundary",
        "UNDECLARED_LOSS": "distinction",
        "LOSS_RECORD_EVICTED": "mitigation",
        "SEALED_REMOVED": "mitigation",
        "SEALED_EDITED": "mitigation",
        "SEALED_UNSEALED": "mitigation",
        "CLAIMS_REDUCED": "tell",
        "CAUTION_FALLING": "tell",
        "RULE_MOVED": "distinction",
        "RULE_SCOPE_NARROWED": "boundary",
        "RULE_TIGHTENED": "distinction",
        "RULE_UNCERTAIN": "distinction",
    }
    assert {section_for(code) for code in RefusalCode} == {"boundary"}
    assert section_for(None) == "distinction"  # (no code: the core distinction)


def test_a_code_the_table_does_not_hold_is_an_error_not_the_first_section() -> None:
    with pytest.raises(KeyError):
        section_for("NO_SUCH_CODE")
