"""Strict keeps every rule of real memory (SPEC §3, §4.1): on memory files as people keep
them, at any budget, a strict pass never writes a version missing a rule of the old one; a
pass that would is refused (RULE_WOULD_DROP) with a way out that seals the rules where they
stand, after which the pass goes through or names the budget the rules need. Sealing in place
(``<!-- sealed -->``) round-trips byte for byte."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from padtui.core import formats
from padtui.core.audit.rewrite import audit
from padtui.core.compaction import sealing
from padtui.core.compaction.plan import plan
from padtui.core.counting.tokens import counter_for
from padtui.core.errors import PadError
from padtui.core.formats import markdown
from padtui.core.model import Pad
from padtui.core.rules.finder import find_rules
from padtui.core.storage import store
from tests.memory_files import CLAUDE_MD, MEMORY_FILES

COUNTER = counter_for("cl100k_base")
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
KEEPS = ("PROTECTED_KIND_WOULD_DROP", "RULE_WOULD_DROP")
BUDGET_LEFT = ("SEALED_OVER_BUDGET", "RECORD_WOULD_NOT_FIT")  # (each names a budget)


def rule_texts(pad: Pad) -> set[tuple[str, str]]:
    """Every rule of a pad, with the entry's text it sits in."""
    return {(pad.entries[r.entry].text, r.text) for r in find_rules(pad)}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def budgets(total: int) -> list[int]:
    return sorted({0, 1, total // 10, *(total * k // 20 for k in range(2, 21)), total + 5})


@pytest.mark.parametrize("name", sorted(MEMORY_FILES))
def test_a_strict_pass_never_writes_a_version_missing_a_rule(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, name, MEMORY_FILES[name])
    first = store.read(str(path))
    total = sum(COUNTER.count_many([e.text for e in first.pad.entries]))
    assert find_rules(first.pad), f"{name}: a memory file with rules"
    outcomes = set()
    for budget in budgets(total):
        path.write_text(MEMORY_FILES[name], encoding="utf-8")
        snap = store.read(str(path))
        old = rule_texts(snap.pad)
        got = plan(snap.pad, budget, "strict", COUNTER, now=NOW, fmt=snap.format)
        outcomes.add(got.code or got.verdict)
        if got.code in KEEPS:
            # the way out: seal what it names (where it stands), then the same pass
            labels = [snap.pad.name_of(e) for e in got.to_seal]
            snap = sealing.externalize(snap, labels, journal=False)
            sealed_text = path.read_text(encoding="utf-8")
            assert sealed_text.count(markdown.SEAL_MARK) == len(labels)
            assert sealed_text.replace(" " + markdown.SEAL_MARK, "") == MEMORY_FILES[name]
            assert audit(store.read(str(path)).pad, snap.pad, COUNTER).verdict == "unchanged"
            got = plan(snap.pad, budget, "strict", COUNTER, now=NOW, fmt=snap.format)
            assert got.code not in KEEPS, got.message
            if got.refused:  # the rules (and the record of a loss) alone are over the budget
                assert got.code in BUDGET_LEFT and got.fits_at is not None
                assert budget < got.fits_at
                at = plan(snap.pad, got.fits_at, "strict", COUNTER, now=NOW, fmt=snap.format)
                assert not at.refused, at.message
                got = at
            outcomes.add("sealed, then " + (got.code or got.verdict))
        if got.refused:
            assert got.code in BUDGET_LEFT
            continue
        assert not {e.index for e in got.dropped} & {r.entry for r in find_rules(snap.pad)}
        before = snap.pad
        if got.dropped:
            snap = store.commit(snap, got, journal=False)
        after = store.read(str(path)).pad
        assert old <= rule_texts(after), f"{name} at {budget}: a rule is missing"
        assert audit(before, after, COUNTER).verdict != "corruption"
    assert "RULE_WOULD_DROP" in outcomes, outcomes
    if len(MEMORY_FILES[name]) > 1000:  # (a small file's record of a loss costs what it frees)
        assert outcomes & {"compactable", "sealed, then compactable"}, outcomes


def test_the_refusal_names_the_rules_and_the_tokens_they_need() -> None:
    pad = formats.parse("CLAUDE.md", CLAUDE_MD.encode()).pad
    total = sum(COUNTER.count_many([e.text for e in pad.entries]))
    got = plan(pad, total // 3, "strict", COUNTER, now=NOW, fmt="md")
    assert got.code == "RULE_WOULD_DROP"
    holders = {r.entry for r in find_rules(pad)}
    need = sum(COUNTER.count(pad.entries[i].text) for i in holders)
    assert got.rules_need == need  # (nothing sealed yet: the entries holding rules)
    assert f"the rules alone need {need} tokens" in got.message
    dropped_rules = [r for r in got.rules_at_risk if r.dropped]
    assert f"would drop {len(dropped_rules)} rules in " in got.message
    assert got.way_out is not None and got.way_out.startswith("seal them where they stand")
    assert {e.index for e in got.to_seal} <= holders
    assert got.as_json()["to_seal"] == [e.label for e in got.to_seal]


def test_the_seed_policy_still_drops_rules_as_the_reference_does() -> None:
    pad = formats.parse("CLAUDE.md", CLAUDE_MD.encode()).pad
    total = sum(COUNTER.count_many([e.text for e in pad.entries]))
    got = plan(pad, total // 2, "seed", COUNTER, now=NOW, fmt="md")
    assert not got.refused  # (no protected kind in a CLAUDE.md: the reference drops freely)
    assert {e.index for e in got.dropped} & {r.entry for r in find_rules(pad)}


# --- sealing in place --------------------------------------------------------------------------

MARKED = """\
# CLAUDE.md

## Rules (sealed)

- Never push to `main`.

## Conventions

- Do not edit generated files under `gen/`. <!-- sealed -->
- Prefer small pull requests.
- Run the linter before you commit:
  ```
  make lint
  ```
- Keep the changelog up to date. {#changelog} <!--sealed-->

## Notes

The deploy runs on tag. <!-- SEALED -->
Nothing else here.

The staging server is slow on Mondays.
"""


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_seal_markers_are_read_and_written_back_byte_for_byte(newline: str) -> None:
    text = MARKED.replace("\n", newline)
    pf = formats.parse("CLAUDE.md", text.encode())
    sealed = [(e.label, e.text) for e in pf.pad.entries if e.sealed]
    assert sealed == [
        ("#0", "Never push to `main`."),
        ("#1", "Do not edit generated files under `gen/`."),
        ("changelog", "Keep the changelog up to date."),
        ("#5", "The deploy runs on tag.\nNothing else here."),
    ]
    assert formats.render(pf.layout, pf.pad.entries) == text
    # sealing the fenced entry puts the marker on its first line (a fence's close takes none)
    entries = [e.sealed_copy() if e.label == "#3" else e for e in pf.pad.entries]
    out = formats.render(pf.layout, entries)
    assert out == text.replace(
        "before you commit:" + newline, "before you commit: <!-- sealed -->" + newline
    )
    back = formats.parse("CLAUDE.md", out.encode()).pad
    assert [e.label for e in back.entries if e.sealed] == ["#0", "#1", "#3", "changelog", "#5"]
    assert [e.text for e in back.entries] == [e.text for e in pf.pad.entries]


def test_an_agents_edits_around_the_markers_stay_as_they_are(tmp_path: Path) -> None:
    path = write(tmp_path, "CLAUDE.md", MARKED)
    # the agent edits the file itself: a note reworded, a bullet added under the rules
    edited = MARKED.replace("slow on Mondays.", "slow on Mondays and Fridays.").replace(
        "- Prefer small pull requests.\n",
        "- Prefer small pull requests.\n- Pin the Node version in `.nvmrc`.\n",
    )
    path.write_text(edited, encoding="utf-8")
    snap = store.read(str(path))
    gone = [e for e in snap.pad.entries if e.text.startswith("The staging server")]
    kept = [e for e in snap.pad.entries if e not in gone]
    store.commit(snap, kept, journal=False)
    out = path.read_text(encoding="utf-8")
    assert out == edited.replace("The staging server is slow on Mondays and Fridays.\n", "")
    assert len(re.findall(r"<!--\s*sealed\s*-->", out, re.IGNORECASE)) == 3


def test_externalize_seals_a_rule_where_it_stands_and_refuses_a_plain_entry(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "CLAUDE.md", CLAUDE_MD)
    snap = store.read(str(path))
    rule = next(e for e in snap.pad.entries if e.text.startswith("Never run `terraform"))
    sealing.externalize(snap, [rule.label], journal=False)
    assert path.read_text(encoding="utf-8") == CLAUDE_MD.replace(
        "reviewed in CI.\n", "reviewed in CI. <!-- sealed -->\n"
    )
    again = store.read(str(path))
    assert [e.label for e in again.pad.entries if e.sealed] == [rule.label]
    assert again.pad.entries[rule.index].context == rule.context  # under its heading still
    plain = next(e for e in again.pad.entries if e.text.startswith("`make seed`"))
    with pytest.raises(PadError, match="holds no rule"):
        sealing.externalize(again, [plain.label], journal=False)


def test_a_letta_agent_file_stays_read_only_and_says_so(tmp_path: Path) -> None:
    sample = Path(__file__).parents[2] / "sample_pads" / "letta-support-agent.af"
    path = tmp_path / "agent.af"
    path.write_bytes(sample.read_bytes())
    with pytest.raises(PadError, match=r"read-only|does not write"):
        sealing.externalize(store.read(str(path)), ["#0"], journal=False)


# --- generated Markdown memory ---------------------------------------------------------------

HEADINGS = ["Rules", "Notes", "Status", "Lessons", "Architecture", "禁止事項", "Regeln", "Todo"]
SENTENCES = [
    "Never commit secrets to the repository.",
    "Always run the tests before pushing.",
    "Do not edit `vendor/`.",
    "Use yarn, not npm.",
    "The export takes about ten minutes.",
    "The cache lives in Redis.",
    "Session 4: moved the parser into its own module.",
    "The old endpoint does not work anymore.",
    "本番環境に直接デプロイしない",
    "Schreibe Tests für jede neue Funktion.",
    "Dashboards are rebuilt every night from the warehouse tables.",
    "Must keep the API backwards compatible.",
    "Ask before deleting branches.",
]


@st.composite
def markdown_memory(draw: st.DrawFn) -> str:
    parts = ["# Memory\n\n", draw(st.sampled_from(["", "Context for the agent.\n\n"]))]
    for _ in range(draw(st.integers(1, 5))):
        parts.append(f"## {draw(st.sampled_from(HEADINGS))}\n\n")
        for _ in range(draw(st.integers(1, 6))):
            words = draw(st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=3))
            if draw(st.booleans()):
                parts.append("- " + " ".join(words) + "\n")
            else:
                parts.append("\n" + " ".join(words) + "\n\n")
        parts.append("\n")
    return "".join(parts)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=markdown_memory(), share=st.floats(0, 1.1))
def test_generated_markdown_memory_never_loses_a_rule(
    tmp_path: Path, text: str, share: float
) -> None:
    path = write(tmp_path, "CLAUDE.md", text)
    snap = store.read(str(path))
    total = sum(COUNTER.count_many([e.text for e in snap.pad.entries]))
    budget = int(total * share)
    old = rule_texts(snap.pad)
    got = plan(snap.pad, budget, "strict", COUNTER, now=NOW, fmt="md")
    if got.code in KEEPS:
        snap = sealing.externalize(snap, [snap.pad.name_of(e) for e in got.to_seal], journal=False)
        got = plan(snap.pad, budget, "strict", COUNTER, now=NOW, fmt="md")
        assert got.code not in KEEPS
    if got.refused or not got.dropped:
        return
    before = snap.pad
    store.commit(snap, got, journal=False)
    after = store.read(str(path)).pad
    assert old <= rule_texts(after)
    assert audit(before, after, COUNTER).verdict != "corruption"


def test_the_readme_claude_md_does_what_the_readme_says(tmp_path: Path) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Strict keeps every rule: sealing in place", 1)[1]
    before, after_sealing = re.findall(r"```md\n(.*?)```", section, re.S)[:2]
    path = write(tmp_path, "CLAUDE.md", before)
    snap = store.read(str(path))
    got = plan(snap.pad, 140, "strict", COUNTER, now=NOW, fmt="md")
    assert got.code == "RULE_WOULD_DROP" and got.rules_need == 59
    assert got.way_out == "seal them where they stand: padtui externalize PATH '#3' '#4' '#5' '#6'"
    snap = sealing.externalize(snap, ["#3", "#4", "#5", "#6"], journal=False)
    assert after_sealing in path.read_text(encoding="utf-8")
    got = plan(snap.pad, 140, "strict", COUNTER, now=NOW, fmt="md")
    assert got.verdict == "compactable"
    assert [e.kind for e in got.dropped] == ["preamble", "architecture", "status"]
    store.commit(snap, got, journal=False)
    assert audit(snap.pad, store.read(str(path)).pad, COUNTER).verdict == "compaction"
