"""The checks of the sealed region: a sealed entry is never removed, edited or unsealed,
and a loss record is never evicted (unless it was folded verbatim into another record)."""

from __future__ import annotations

from padtui.core.audit.context import Rewrite
from padtui.core.audit.findings import Finding, FindingCode, finding
from padtui.core.audit.shown import changed_part, said_reasons, what
from padtui.core.audit.wording import weakening
from padtui.core.model import Entry
from padtui.core.vocabulary import Reason

GONE = (Reason.GONE,)


def sealed_region(o: Entry, n: Entry | None) -> list[Finding]:
    """A sealed entry gone, rewritten, changed into another kind, or unsealed."""
    if o is n or not o.sealed:
        return []
    if n is None:
        return [finding(FindingCode.SEALED_REMOVED, (o.label,), o.text, None, GONE, what=what(o))]
    out = []
    if n.text != o.text:
        out.append(
            finding(
                FindingCode.SEALED_EDITED,
                (o.label,),
                *changed_part(o.text, n.text),
                edited_reasons(o.text, n.text),
                case="text",
                what=what(o),
            )
        )
    elif n.kind != o.kind:
        kind = n.kind.replace("_", " ")
        out.append(
            finding(
                FindingCode.SEALED_EDITED,
                (o.label,),
                o.text,
                n.text,
                case="kind",
                what=what(o),
                kind=kind,
            )
        )
    if not n.sealed:
        out.append(finding(FindingCode.SEALED_UNSEALED, (o.label,), o.text, n.text, what=what(o)))
    return out


def loss_records(ctx: Rewrite, o: Entry, n: Entry | None) -> list[Finding]:
    """A loss record gone, and said by no other record."""
    if o.kind != "loss_record" or n is not None or ctx.record_kept(o):
        return []
    return [finding(FindingCode.LOSS_RECORD_EVICTED, (o.label,), o.text, None, GONE, label=o.label)]


def edited_reasons(before: str, after: str) -> tuple[Reason, ...]:
    """What an edit of a sealed entry changed of what it says (none found: its wording)."""
    said = "; ".join(weakening(before, after))
    return tuple(r for r in said_reasons(said) if r != Reason.GONE)
