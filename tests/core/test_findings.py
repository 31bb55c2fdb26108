"""The table of findings: each finding code is one row (severity, the concept section that
explains it, its message templates), and a finding's message is its row's template."""

from __future__ import annotations

import pytest

from padtui.core.audit.findings import (
    BOUNDARY,
    DISTINCTION,
    MITIGATION,
    SEVERITY,
    TELL,
    FindingCode,
    finding,
)
from padtui.core.vocabulary import Reason, Severity


@pytest.mark.parametrize("code", list(FindingCode))
def test_every_code_has_its_row(code: FindingCode) -> None:
    row = code.row
    assert row.severity in set(Severity) and SEVERITY[code] == row.severity
    assert row.section in {DISTINCTION, BOUNDARY, TELL, MITIGATION}
    assert row.messages and all(text.strip() for text in row.messages.values())


def test_a_finding_says_its_row_s_message_with_its_fields() -> None:
    f = finding(
        FindingCode.SEALED_EDITED,
        ("c-retry",),
        "old",
        "new",
        case="kind",
        what="constraint c-retry",
        kind="plan step",
    )
    assert f.message == "sealed constraint c-retry was changed into a plan step"
    assert (f.severity, f.before, f.after, f.reasons) == (Severity.CRITICAL, "old", "new", ())
    assert f.as_json()["code"] == "SEALED_EDITED"


def test_a_message_that_quotes_a_rule_is_cut_to_its_row_s_width() -> None:
    long = "never retry writes after a 5xx " * 20
    f = finding(FindingCode.CONSTRAINT_DROPPED, ("#3",), long, None, (Reason.GONE,), what=long)
    width = FindingCode.CONSTRAINT_DROPPED.row.width
    assert width is not None and len(f.message) <= width < len(long)
    whole = finding(FindingCode.SEALED_REMOVED, ("#3",), what=long)
    assert long in whole.message  # (no width: the sealed region's findings say it whole)


def test_an_unknown_case_of_a_code_is_an_error_not_a_default_message() -> None:
    with pytest.raises(KeyError):
        FindingCode.UNDECLARED_LOSS.message("other", what="x")
