"""The concept screen: compaction versus corruption, explained with the live pad."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from padtui.core.audit.findings import FindingCode
from padtui.core.live.inspection import Inspection
from padtui.core.text import one_line
from padtui.core.vocabulary import RefusalCode

SECTIONS: dict[str, tuple[str, str]] = {
    "distinction": (
        "The core distinction",
        "A compaction and a corruption both leave a pad that is shorter, fluent and "
        "internally consistent. From inside the agent they look the same. A compaction keeps "
        "a derivable relationship to what was there: every dropped span can be rebuilt from "
        "what is kept plus a declared lossy operation (derived_from, a loss record). A "
        "corrupting rewrite severs it: 'do not retry writes after a 5xx' becomes 'handle "
        "write errors', and nothing says a stronger rule ever existed. The agent's own "
        "consistency check prefers the corrupted pad: the constraint was what created the "
        "tension with the plan.",
    ),
    "quadrant": (
        "The dangerous quadrant",
        "The risk is real when the rewrite is self-chosen (the agent decides what to drop), "
        "in-place (the old text is overwritten), unversioned (nobody keeps the version "
        "before) and budget-forced (the agent cannot just grow the pad). padtui removes one "
        "of the four from outside: it keeps every version it sees, so each rewrite can be "
        "diffed and audited.",
    ),
    "boundary": (
        "The decision boundary",
        "Compact freely when what is dropped can be rebuilt and the loss record survives: "
        "merging two redundant plan steps is safe. Refuse and externalize when what would "
        "drop is a constraint, a prohibition or a negative fact: the plan says what to do, "
        "not what is forbidden or what already failed, so move it to the sealed region "
        "(press x) instead of paraphrasing it. Halt and surface when the pass cannot afford "
        "the record of its own loss, or the sealed region alone is over budget: that is "
        "amnesia disguised as housekeeping, and a person must decide.",
    ),
    "tell": (
        "The tell",
        "Watch what a pass reduces. Fewer tokens per claim is compression. Fewer claims under "
        "budget pressure is where constraints die. A pad whose share of constraint and "
        "negative-fact tokens falls as it shrinks belongs to an agent that grows more "
        "decisive as its memory degrades.",
    ),
    "mitigation": (
        "The mitigation: a sealed region",
        "Constraints, negative facts and loss records live in a sealed region that the "
        "compaction pass may not touch and that only grows. It is small and does not grow "
        "with the plan, and it makes the loss record un-evictable by the very pass that "
        "creates the need for it. Any rewrite that removes, edits or unseals a sealed entry "
        "is corruption.",
    ),
}

# a refused compaction plan is the decision boundary: refuse and externalize, or halt
REFUSAL_SECTION = "boundary"


def section_for(code: str | None) -> str:
    """The section that explains a finding (its row in the audit's table) or a refused
    plan; with no code, the core distinction. A code of neither kind is an error."""
    if code is None:
        return "distinction"
    if code in tuple(RefusalCode):
        return REFUSAL_SECTION
    return FindingCode[code].row.section  # (a code is its name)


def live_example(inspection: Inspection) -> Text:
    """The concept in numbers of the pad on screen."""
    text = Text("In this pad now\n", style="bold")
    if not inspection.versions:
        text.append("  (no version read yet)")
        return text
    v = inspection.current
    pad = v.pad
    hazards = [one_line(e.label, 40) for e in pad.rewritable if e.protected]
    per_claim = v.tokens / v.claims if v.claims else 0.0
    text.append(
        f"  {v.tokens} tokens in {v.claims} claims: {per_claim:.1f} tokens per claim; "
        f"caution share {v.caution_share:.0%}\n"
    )
    text.append(f"  sealed region {v.sealed_tokens} tokens of a budget of {inspection.budget}\n")
    if hazards:
        text.append(
            "  unsealed protected entries (the next pass may drop them): ", style="bold red"
        )
        text.append(", ".join(hazards[:8]) + ("…" if len(hazards) > 8 else "") + "\n")
    text.append(f"  versions seen: {len(inspection.versions)}, alarms: {len(inspection.alarms)}\n")
    return text


class ConceptScreen(ModalScreen[None]):
    """What padtui is for, in five short sections, with the live pad as the example."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,i,q", "close", "Close", id="concept.close", tooltip="Back to the pad"),
    ]

    def __init__(self, inspection: Inspection, section: str | None = None) -> None:
        super().__init__()
        self.inspection = inspection
        self.section = section

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="wide"):
            yield Static(Text("esc: back", style="dim"), classes="keys actions")
            with VerticalScroll(classes="body"):
                yield Static(Text("Compaction or corruption?", style="bold"))
                yield Static(live_example(self.inspection), id="live-example")
                for key, (title, body) in SECTIONS.items():
                    text = Text(title + "\n", style="bold underline")
                    text.append(body)
                    classes = "concept-section"
                    if key == self.section:
                        classes += " current"
                    yield Static(text, id=f"concept-{key}", classes=classes)

    def on_mount(self) -> None:
        if self.section in SECTIONS:
            self.query_one(f"#concept-{self.section}", Static).scroll_visible(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
