"""Markdown pads (the README's "Markdown pads"): reading sections, bullets and paragraphs as
entries, and writing back so that a commit changes only the sections it touches, byte for byte."""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from padtui.core import formats
from padtui.core.audit.rewrite import audit
from padtui.core.compaction import sealing
from padtui.core.compaction.plan import plan
from padtui.core.counting.tokens import counter_for
from padtui.core.errors import PadError
from padtui.core.formats import markdown
from padtui.core.model import make_entry
from padtui.core.storage import store
from padtui.core.storage.journal import Journal, _cut

NOW = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
SAMPLE = Path(__file__).parents[2] / "sample_pads" / "markdown-notes.md"


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def read(text: str, name: str = "pad.md") -> formats.PadFile:
    return formats.parse(name, text.encode("utf-8"))


def entries_of(text: str) -> list[tuple[str, str, bool, str]]:
    return [(e.kind, e.text, e.sealed, e.label) for e in read(text).pad.entries]


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


# --- the round trip the issue asks for --------------------------------------------------------

N1 = (
    "- Page 14 has two refunds with a negative amount, which finance confirmed by mail on "
    "Monday; both are marked as refunds in the export, and the reconciliation keeps them "
    "apart from the sales of the same day, so the totals come out short by exactly "
    'their sum. {#n1}\n  - see the thread "March refunds"\n'
)
N2 = (
    "- Throughput is about one page every two minutes with the rate limit in place today, so "
    "the whole export takes most of the afternoon; plan the reconciliation for tomorrow "
    "morning, after the nightly ledger compaction has finished and the totals have settled. "
    "{#n2}\n"
)
PAD = """---
agent: ledger-sync-7
budget_tokens: 170
---
# Ledger backfill

Working notes; the agent rewrites the plan and notes, never the sealed sections.

## Constraints (sealed)

- Never call the billing API from this job. {#c1}

## Plan

1. Page through the March export. {#p1}
   - 500 rows a page
   - skip the header row
2. POST each page with an idempotency key. {#p2}

## Notes

{N1}{N2}- The staging ledger is a day behind production.

Some closing prose that is not a bullet but a paragraph note.
""".replace("{N1}{N2}", N1 + N2)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_front_matter_prose_nested_bullets_and_line_endings_survive_a_commit(
    tmp_path: Path, newline: str
) -> None:
    text = PAD.replace("\n", newline)
    path = tmp_path / "pad.md"
    path.write_bytes(text.encode("utf-8"))
    snap = store.read(str(path))
    assert snap.pad.budget_tokens == 170
    # the prose under the title is an entry too: counted in the budget, as the agent reads it
    assert [e.label for e in snap.pad.entries] == ["#0", "c1", "p1", "p2", "n1", "n2", "#6", "#7"]
    assert snap.pad.entries[0].kind == "preamble"
    assert (
        snap.pad.entries[2].text
        == "Page through the March export.\n- 500 rows a page\n- skip the header row"
    )

    trial = plan(snap.pad, 140, policy="strict", now=NOW)  # a pass that drops the long notes
    assert trial.verdict == "compactable"
    assert [e.label for e in trial.dropped] == ["n1", "n2"]
    store.commit(snap, trial)

    record = trial.loss_record
    assert record is not None
    nl = newline
    dropped = [N1.replace("\n", nl), N2.replace("\n", nl)]
    want = text
    for lines in dropped:  # only the dropped bullets go (their nested bullets with them) ...
        assert want.count(lines) == 1
        want = want.replace(lines, "")
    # ... and one loss-record bullet comes, in a sealed section created at the end
    want += f"{nl}## Loss records (sealed){nl}{nl}- {record.text} {{#{record.id} op=compact}}{nl}"
    out = path.read_bytes().decode("utf-8")
    assert out == want

    back = formats.parse(str(path), out.encode("utf-8")).pad
    assert [e.label for e in back.entries] == ["#0", "c1", "p1", "p2", "#4", "#5", record.id]
    assert back.entries[-1].kind == "loss_record" and back.entries[-1].sealed
    assert back.entries[-1].text == record.text and back.entries[-1].op == "compact"
    assert audit(snap.pad, back, counter_for(None)).verdict == "compaction"


def test_a_second_commit_appends_to_the_loss_records_section(tmp_path: Path) -> None:
    path = tmp_path / "pad.md"
    path.write_text(PAD)
    snap = store.read(str(path))
    after = store.commit(snap, plan(snap.pad, 140, policy="strict", now=NOW))
    note = make_entry("note", ("The agent writes a long note again. " * 12).strip(), id="n9")
    after = store.commit(after, [*after.pad.entries, note])  # the agent's own save
    assert path.read_text().count("{#n9}") == 1
    second = plan(after.pad, 180, policy="strict", now=NOW.replace(hour=10))
    assert second.verdict == "compactable" and [e.label for e in second.dropped] == ["n9"]
    store.commit(after, second)
    out = path.read_text()
    assert out.count("## Loss records (sealed)") == 1 and "{#n9}" not in out
    tail = out.split("## Loss records (sealed)\n\n", 1)[1]
    assert tail.count("\n") == 2 and tail.startswith("- compaction at")  # two tight bullets


# --- reading --------------------------------------------------------------------------------


def test_headings_name_kinds_plural_and_case_forgiven() -> None:
    text = (
        "## CONSTRAINTS\n- a\n## negative-facts\n- b\n## Loss Records [Sealed]\n- c\n"
        "## Plans\n- d\n## note\n- e\n## Hypotheses (sealed)\n- f\n## Open questions\n- g\n"
        "## **Decisions:**\n- h\n"
    )
    assert entries_of(text) == [
        ("constraint", "a", False, "#0"),
        ("negative_fact", "b", False, "#1"),
        ("loss_record", "c", True, "#2"),
        ("plan", "d", False, "#3"),
        ("note", "e", False, "#4"),
        ("hypothesis", "f", True, "#5"),
        ("open_questions", "g", False, "#6"),
        ("decisions", "h", False, "#7"),
    ]


def test_text_outside_kind_sections_is_preamble() -> None:
    text = (
        "# Title\n\nIntro prose.\n- a bullet in the intro\n\n## Notes\n- n1\n\n"
        "# Appendix\n\n- also preamble\n\n## Plan\n- p1\n"
    )
    assert entries_of(text) == [
        ("preamble", "Intro prose.", False, "#0"),
        ("preamble", "a bullet in the intro", False, "#1"),
        ("note", "n1", False, "#2"),
        ("preamble", "also preamble", False, "#3"),
        ("plan", "p1", False, "#4"),
    ]


def test_a_file_without_a_kind_heading_is_a_pad_of_preamble() -> None:
    for text in ("# Title only\n\nprose\n", "just prose\n\n- and a bullet", "# Title\n"):
        pf = read(text)
        assert {e.kind for e in pf.pad.entries} <= {"preamble"}
        assert formats.render(pf.layout, pf.pad.entries) == text
    assert entries_of("# Title only\n\nprose\n") == [("preamble", "prose", False, "#0")]
    assert entries_of("# Title\n") == []


def test_bullets_paragraphs_and_what_belongs_to_them() -> None:
    text = """## Notes

- first
  - nested
    deeper text
- lazy
continuation line
* star
+ plus
1. ordered
2. second ordered
3) not a sibling of 2.: a lazy line

10) ordered paren

A paragraph
over two lines.
- a bullet interrupts it
2. but this line does not start a bullet

- loose item

  with a second paragraph
-
  empty first line

```text
## not a heading
- not a bullet
```

| a | b |
|---|---|
"""
    assert [t for _k, t, _s, _l in entries_of(text)] == [
        "first\n- nested\n  deeper text",
        "lazy\ncontinuation line",
        "star",
        "plus",
        "ordered",
        "second ordered\n3) not a sibling of 2.: a lazy line",
        "ordered paren",
        "A paragraph\nover two lines.",
        "a bullet interrupts it\n2. but this line does not start a bullet",
        "loose item\n\nwith a second paragraph",
        "\nempty first line",
        "```text\n## not a heading\n- not a bullet\n```",
        "| a | b |\n|---|---|",
    ]


def test_glue_inside_a_section_is_not_an_entry() -> None:
    text = (
        "## Notes\n<!-- a comment\n- spanning lines -->\n### A subheading\n- n1\n\n---\n\n"
        "***\n- n2\n"
    )
    assert [t for _k, t, _s, _l in entries_of(text)] == ["n1", "n2"]


def test_ids_and_attributes() -> None:
    text = (
        "## Plan\n- merged step {#p3 op=merge derived_from=p1,p2 owner=ana}\n"
        "- text ending in {braces} stays text\n- {#bare}\n- x {#a b}\n\n"
        "Paragraph with an id {#para-1}\nsecond line {#not-an-id}\n"
    )
    pad = read(text).pad
    p3, braces, bare, notid, para = pad.entries
    assert (p3.id, p3.op, p3.derived_from, p3.text) == ("p3", "merge", ("p1", "p2"), "merged step")
    assert p3.raw["owner"] == "ana" and p3.as_dict()["owner"] == "ana"
    assert (braces.id, braces.text) == (None, "text ending in {braces} stays text")
    assert (bare.id, bare.text) == ("bare", "")
    assert (notid.id, notid.text, notid.label) == (None, "x {#a b}", "#3")
    assert (para.id, para.text) == ("para-1", "Paragraph with an id\nsecond line {#not-an-id}")


def test_front_matter_settings() -> None:
    pad = read(
        "---\nbudget_tokens: '1200'  # tokens\nencoding: o200k_base\nother: 1\n---\n## Plan\n"
    ).pad
    assert (pad.budget_tokens, pad.encoding, pad.entries) == (1200, "o200k_base", ())
    # not front matter unless it is closed
    assert read("---\nbudget_tokens: 5\n## Plan\n- a\n").pad.budget_tokens is None


def test_every_entry_source_is_its_exact_text_in_the_file() -> None:
    for text in (PAD, crlf(PAD), "\ufeff" + PAD, PAD.rstrip("\n"), SAMPLE.read_text()):
        pf = read(text)
        pos = 0
        for e in pf.pad.entries:
            assert e.source is not None
            at = text.index(e.source, pos)
            pos = at + len(e.source)
        assert formats.render(pf.layout, pf.pad.entries) == text


@pytest.mark.parametrize(
    ("text", "problem", "where"),
    [
        ("## Plan\n- a\n## (sealed)\n- b\n", "must name a kind", "line 3"),
        ("---\nbudget_tokens: lots\n---\n## Plan\n", "budget_tokens", "line 2"),
        ("---\nbudget_tokens: -3\n---\n## Plan\n", "whole number", "line 2"),
        ("  \n\n", "empty file", None),
    ],
)
def test_bad_input_is_one_line_naming_the_file_and_line(
    text: str, problem: str, where: str | None
) -> None:
    with pytest.raises(PadError) as caught:
        read(text, "notes.md")
    line = caught.value.line()
    assert line.startswith("notes.md: ") and problem in line and "\n" not in line
    assert caught.value.where == where


def test_invalid_utf8_names_the_line() -> None:
    with pytest.raises(PadError) as caught:
        formats.parse("notes.md", b"## Plan\n- a\n- \xff\n")
    assert caught.value.line() == "notes.md: line 3, byte 14: not valid UTF-8"


# --- writing ----------------------------------------------------------------------------------


def drop(text: str, *labels: str) -> str:
    pf = read(text)
    return formats.render(pf.layout, [e for e in pf.pad.entries if e.label not in labels])


def test_dropping_takes_one_run_of_blank_lines_with_the_entry() -> None:
    text = "## Notes\n\nP1\n\nP2\n\nP3\n\n## Plan\n\n- a\n- b\n- c\n"
    assert drop(text, "#0") == "## Notes\n\nP2\n\nP3\n\n## Plan\n\n- a\n- b\n- c\n"
    assert drop(text, "#1") == "## Notes\n\nP1\n\nP3\n\n## Plan\n\n- a\n- b\n- c\n"
    assert drop(text, "#2") == "## Notes\n\nP1\n\nP2\n\n## Plan\n\n- a\n- b\n- c\n"
    assert drop(text, "#3", "#5") == "## Notes\n\nP1\n\nP2\n\nP3\n\n## Plan\n\n- b\n"
    assert drop(text, "#0", "#1", "#2") == "## Notes\n\n## Plan\n\n- a\n- b\n- c\n"


def test_dropping_keeps_comments_and_subheadings_around_the_entry() -> None:
    text = "## Notes\n- a\n<!-- keep me -->\n- b\n### Week 2\n\n- c\n"
    assert drop(text, "#1") == "## Notes\n- a\n<!-- keep me -->\n### Week 2\n\n- c\n"
    assert drop(text, "#1", "#2") == "## Notes\n- a\n<!-- keep me -->\n### Week 2\n\n"


@pytest.mark.parametrize(
    "text",
    [
        "## Notes\n- a\n1. b\n2. c\n",
        "## Notes\npara\n1. b\n2. c\n",
        "## Notes\n- a\n1. b\n  2. c\n",
    ],
)
def test_a_drop_that_would_join_two_entries_gets_a_blank_line(text: str) -> None:
    # "2. c" follows "1. b" as the next item of its list, but after "- a" or a paragraph it
    # would be read as a lazy line of them: the joint gets a blank line
    out = drop(text, "#1")
    assert out == text.split("\n")[0] + "\n" + text.split("\n")[1] + "\n\n2. c\n"
    assert [e.text for e in read(out).pad.entries] == [read(text).pad.entries[0].text, "c"]


def test_a_loss_record_goes_to_the_existing_section_wherever_it_is() -> None:
    text = "## Loss records (sealed)\n\n- old record {#loss-0}\n\n## Notes\n\n- n1\n- n2\n"
    pf = read(text)
    record = make_entry("loss_record", "dropped n2", sealed=True, id="loss-1", op="compact")
    out = formats.render(pf.layout, [*pf.pad.entries[:2], record])
    assert out == (
        "## Loss records (sealed)\n\n- old record {#loss-0}\n- dropped n2 {#loss-1 op=compact}\n"
        "\n## Notes\n\n- n1\n"
    )


def test_a_new_section_is_created_at_the_end_of_a_file_without_a_final_newline() -> None:
    pf = read("## Notes\n- n1")
    record = make_entry("loss_record", "r", sealed=True, id="loss-1")
    out = formats.render(pf.layout, [*pf.pad.entries, record])
    assert out == "## Notes\n- n1\n\n## Loss records (sealed)\n\n- r {#loss-1}\n"


def test_the_file_own_bullet_and_seal_marker_are_used() -> None:
    pf = read("## Constraints [sealed]\n* c1\n## Notes\n* n1\n")
    record = make_entry("loss_record", "r", sealed=True)
    out = formats.render(pf.layout, [*pf.pad.entries, record])
    assert out.endswith("\n## Loss records [sealed]\n\n* r\n")


EXTERNALIZE = """# Pad

## Constraints (sealed)

- Never call the billing API. {#c1}

## Constraints

- Do not retry writes after a 5xx. {#c-retry}
  - the write may have landed
- Keep the batch size at 500. {#c-size}

## Notes

- n1
"""


def test_externalize_moves_the_bullet_verbatim_into_the_sealed_section(tmp_path: Path) -> None:
    path = tmp_path / "pad.md"
    path.write_text(EXTERNALIZE)
    snap = store.read(str(path))
    after = sealing.externalize(snap, ["c-retry"])
    assert path.read_text() == EXTERNALIZE.replace(
        "- Do not retry writes after a 5xx. {#c-retry}\n  - the write may have landed\n", ""
    ).replace(
        "- Never call the billing API. {#c1}\n",
        "- Never call the billing API. {#c1}\n"
        "- Do not retry writes after a 5xx. {#c-retry}\n  - the write may have landed\n",
    )
    assert [(e.label, e.sealed) for e in after.pad.entries] == [
        ("c1", True),
        ("c-retry", True),
        ("c-size", False),
        ("#3", False),
    ]
    assert not audit(snap.pad, after.pad, counter_for(None)).findings


def test_externalize_creates_the_sealed_section_before_the_unsealed_one(tmp_path: Path) -> None:
    text = "# Pad\n\n## Plan\n\n- p1\n\n## Negative facts\n\n- tried X, failed {#nf1}\n- nf2\n"
    path = tmp_path / "pad.md"
    path.write_text(text)
    sealing.externalize(store.read(str(path)), ["nf1", "#2"])
    assert path.read_text() == (
        "# Pad\n\n## Plan\n\n- p1\n\n## Negative facts (sealed)\n\n- tried X, failed {#nf1}\n"
        "- nf2\n\n## Negative facts\n\n"
    )


def test_new_entries_from_the_api_go_to_their_section(tmp_path: Path) -> None:
    path = tmp_path / "pad.md"
    path.write_text("## Notes\n\nA paragraph note.\n\n## Plan\n- p1\n")
    snap = store.read(str(path))
    new_note = make_entry("note", "second line\nand more", id="n2", derived_from=["#0"])
    new_plan = make_entry("plan", "p2", op="merge")
    store.commit(snap, [*snap.pad.entries, new_note, new_plan])
    assert path.read_text() == (
        "## Notes\n\nA paragraph note.\n\n- second line {#n2 derived_from=#0}\n  and more\n\n"
        "## Plan\n- p1\n- p2 {op=merge}\n"
    )


@pytest.mark.parametrize(
    "entry",
    [
        make_entry("note", "  leading space"),
        make_entry("note", "carriage\rreturn"),
        make_entry("note", "id with space", id="a b"),
        make_entry("Weird Kind!", "text"),
    ],
)
def test_an_entry_markdown_cannot_hold_is_a_clear_value_error(entry) -> None:
    pf = read("## Notes\n- n1\n")
    with pytest.raises(ValueError, match="Markdown"):
        formats.render(pf.layout, [*pf.pad.entries, entry])


def test_the_journal_rebuilds_every_markdown_version_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "pad.md"
    versions = [PAD, crlf(PAD), "\ufeff" + PAD, PAD.rstrip("\n"), SAMPLE.read_text()]
    journal = Journal(str(tmp_path / "j.jsonl"), str(path))
    for text in versions:
        pf = formats.parse(str(path), text.encode("utf-8"))
        assert _cut(pf, pf.data) is not None  # entries' sources are found: cut, not whole
        journal.append(pf.data, "md", "seen", pf)
    path.write_text(PAD)
    snap = store.read(str(path))
    store.commit(snap, plan(snap.pad, now=NOW), journal=journal)
    rebuilt = [journal.data(v.n) for v in journal.versions()]
    assert rebuilt[: len(versions)] == [v.encode("utf-8") for v in versions]
    assert rebuilt[-1] == path.read_bytes()
    assert all(v.raw is None for v in journal.versions())


# --- properties -------------------------------------------------------------------------------

words = st.sampled_from(["alpha", "beta", "never", "retry", "5xx", "café", "`code`", "x*y"])
line_text = st.lists(words, min_size=1, max_size=6).map(" ".join)
ids = st.one_of(st.none(), st.from_regex(r"[a-z][a-z0-9-]{0,6}", fullmatch=True))


@st.composite
def bullet(draw: st.DrawFn) -> str:
    marker = draw(st.sampled_from(["-", "*", "1.", "2)"]))
    first = draw(line_text)
    id_ = draw(ids)
    out = f"{marker} {first}" + (f" {{#{id_}}}" if id_ else "") + "\n"
    pad = " " * (len(marker) + 1)
    for sub in draw(st.lists(line_text, max_size=2)):
        out += f"{pad}- {sub}\n"
    if draw(st.booleans()):
        out += f"{pad}{draw(line_text)}\n"
    return out


@st.composite
def paragraph(draw: st.DrawFn) -> str:
    lines = draw(st.lists(line_text, min_size=1, max_size=3))
    return "\n".join(lines) + "\n"


glue = st.sampled_from(["\n", "", "<!-- note to self -->\n", "### Sub\n", "\n---\n\n"])


@st.composite
def section(draw: st.DrawFn) -> str:
    title = draw(
        st.sampled_from(
            [
                "Constraints",
                "Negative facts",
                "Plan",
                "Notes",
                "Hypotheses",
                "Loss records",
                "Lessons (updated 2026-04-02)",
                "🚫 NEVER EVER",
                "絶対禁止",
            ]
        )
    )
    sealed = draw(st.sampled_from(["", " (sealed)", " [sealed]"]))
    out = f"## {title}{sealed}\n" + draw(st.sampled_from(["", "\n"]))
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            out += draw(bullet())
        else:
            out += "\n" + draw(paragraph()) + "\n"
        out += draw(glue)
    return out


@st.composite
def md_pads(draw: st.DrawFn) -> str:
    text = ""
    if draw(st.booleans()):
        text += "---\nagent: a7\nbudget_tokens: 50\n---\n"
    if draw(st.booleans()):
        text += "# Title\n\nSome prose before the sections (preamble).\n\n"
        text += draw(st.sampled_from(["", "- a preamble bullet\n\n", "### Sub\n\nmore\n\n"]))
    for _ in range(draw(st.integers(1, 4))):
        text += draw(section())
    if draw(st.booleans()):
        text = text.rstrip("\n")
    if draw(st.booleans()):
        text = crlf(text)
    return text


def nonblank_lines(text: str) -> Counter[str]:
    return Counter(line for line in re.split(r"\r\n|\r|\n", text) if line.strip())


@settings(max_examples=300, deadline=None)
@given(text=md_pads())
def test_any_pad_renders_back_byte_for_byte_and_cuts_for_the_journal(text: str) -> None:
    pf = read(text)
    assert formats.render(pf.layout, pf.pad.entries) == text
    assert _cut(pf, pf.data) is not None


@settings(max_examples=300, deadline=None)
@given(text=md_pads(), data=st.data())
def test_a_drop_and_a_record_change_nothing_else(text: str, data: st.DataObject) -> None:
    pf = read(text)
    entries = list(pf.pad.entries)
    gone = data.draw(st.sets(st.sampled_from(range(len(entries))))) if entries else set()
    kept = [e for e in entries if e.index not in gone]
    record = make_entry("loss_record", "dropped some notes", sealed=True, id="loss-9", op="compact")
    out = formats.render(pf.layout, [*kept, record])
    back = read(out).pad.entries
    assert markdown.same_entries(back, [*kept, record])
    rewritable = [e.text for e in back if not e.sealed]
    assert rewritable == [e.text for e in kept if not e.sealed]  # order kept
    # every line that is not an entry's stays; the dropped entries' lines go; one line comes
    expect = nonblank_lines(text) - sum(
        (nonblank_lines(entries[i].source or "") for i in gone), Counter()
    )
    added = nonblank_lines(out) - expect
    assert not (expect - nonblank_lines(out))
    assert set(added) <= {
        "- dropped some notes {#loss-9 op=compact}",
        "* dropped some notes {#loss-9 op=compact}",
        "## Loss records (sealed)",
        "## Loss records [sealed]",
    }
    again = read(out)
    assert formats.render(again.layout, again.pad.entries) == out


@settings(max_examples=200, deadline=None)
@given(text=md_pads(), data=st.data())
def test_sealing_an_entry_moves_only_it(text: str, data: st.DataObject) -> None:
    pf = read(text)
    entries = list(pf.pad.entries)
    if not entries:
        return
    i = data.draw(st.sampled_from(range(len(entries))))
    entries[i] = entries[i].sealed_copy()
    out = formats.render(pf.layout, entries)
    back = read(out).pad.entries
    assert markdown.same_entries(back, entries)
    added = nonblank_lines(out) - nonblank_lines(text)
    if entries[i].sealed == pf.pad.entries[i].sealed:
        assert out == text
    elif any(markdown.SEAL_MARK in line for line in added):  # sealed where it stands
        removed = nonblank_lines(text) - nonblank_lines(out)
        assert len(out) - len(text) in (len(markdown.SEAL_MARK), len(markdown.SEAL_MARK) + 1)
        assert [line.removesuffix(markdown.SEAL_MARK).rstrip() for line in added] == [
            line.rstrip() for line in removed
        ]
    else:  # moved into the sealed section of its kind
        assert nonblank_lines(out) - nonblank_lines(text) <= Counter(
            {
                markdown.heading_for(entries[i].kind, True, "(sealed)"): 1,
                markdown.heading_for(entries[i].kind, True, "[sealed]"): 1,
            }
        )


LINES = [
    "## Plan",
    "## Notes (sealed)",
    "## Loss records [sealed]",
    "# Title",
    "### sub",
    "- a",
    "- b {#b}",
    "* c",
    "+ d",
    "1. e",
    "2) f",
    "3. g",
    "-",
    "  - nested",
    "    deeper",
    "\t- tabbed",
    "   - three spaces",
    "lazy text",
    "para {#p}",
    "```",
    "~~~~",
    "<!-- c",
    "-->",
    "<!-- one line -->",
    "---",
    "***",
    "> quote",
    "| t |",
    "",
    "   ",
    "x {op=merge}",
    "## ",
]


@st.composite
def line_soup(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=25))
    if draw(st.booleans()):
        lines.insert(0, "## Notes")
    endings = draw(st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=3))
    text = "".join(line + endings[i % len(endings)] for i, line in enumerate(lines))
    return text if draw(st.booleans()) else text.rstrip("\r\n")


@settings(max_examples=500, deadline=None)
@given(text=line_soup(), data=st.data())
def test_any_line_soup_reads_or_is_a_pad_error_and_writes_back_what_it_means(
    text: str, data: st.DataObject
) -> None:
    try:
        pf = read(text)
    except PadError as exc:
        assert "\n" not in exc.line()
        return
    assert formats.render(pf.layout, pf.pad.entries) == text
    assert _cut(pf, pf.data) is not None
    entries = list(pf.pad.entries)
    gone = data.draw(st.sets(st.sampled_from(range(len(entries))))) if entries else set()
    changed = [e for e in entries if e.index not in gone]
    if changed and data.draw(st.booleans()):
        k = data.draw(st.sampled_from(range(len(changed))))
        changed[k] = changed[k].sealed_copy()
    record = make_entry("loss_record", "dropped", sealed=True, id="loss-1", op="compact")
    try:
        out = formats.render(pf.layout, [*changed, record])
    except ValueError as exc:
        # the writer may refuse a layout it cannot rewrite safely (a commit then says so in
        # one line and writes nothing); what it must never do is write something else
        assert "cannot write" in str(exc)
        return
    back = read(out).pad.entries
    assert markdown.same_entries(back, [*changed, record])
    assert [e.text for e in back if not e.sealed] == [e.text for e in changed if not e.sealed]


def test_the_readme_example_reads_as_the_readme_says() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    example = re.search(r"```markdown\n(.*?)```", readme, re.S)
    assert example is not None
    pad = read(example[1]).pad
    assert pad.budget_tokens == 4000
    assert [(e.label, e.kind, e.sealed) for e in pad.entries] == [
        ("#0", "preamble", False),
        ("c-billing", "constraint", True),
        ("p-1", "plan", False),
        ("#3", "note", False),
    ]


# --- memory files as agents keep them: preamble, headings as context, stable kinds -----------

MEMORY = """---
description: What the assistant learned about this repository
globs: src/**/*.ts
alwaysApply: true
---
# Team memory

Read this file before every task; it is kept by the assistant.

## Gotchas (updated 2026-03-14)

- The test database resets at midnight UTC.

### 必ず守ること

- 本番のデータベースに直接接続しない

#### Only on Fridays

- Deploys go out after the standup.

### Tooling ###

- Use `pnpm`, not `npm`.

# Archive

- An old note under a title of its own.

## Status [sealed]

Sprint 9 is done.
"""


def test_every_entry_knows_the_headings_it_sits_under() -> None:
    pad = read(MEMORY, "team.mdc").pad
    top = ("Team memory",)
    gotchas = (*top, "Gotchas (updated 2026-03-14)")
    assert [(e.kind, e.context, e.text) for e in pad.entries] == [
        ("preamble", top, "Read this file before every task; it is kept by the assistant."),
        ("gotchas", gotchas, "The test database resets at midnight UTC."),
        ("gotchas", (*gotchas, "必ず守ること"), "本番のデータベースに直接接続しない"),
        (
            "gotchas",
            (*gotchas, "必ず守ること", "Only on Fridays"),
            "Deploys go out after the standup.",
        ),
        ("gotchas", (*gotchas, "Tooling"), "Use `pnpm`, not `npm`."),
        ("preamble", ("Archive",), "An old note under a title of its own."),
        ("status", ("Archive", "Status [sealed]"), "Sprint 9 is done."),
    ]
    assert pad.entries[-1].sealed
    # the front matter is kept, byte for byte, and is no entry
    assert formats.render(read(MEMORY, "team.mdc").layout, pad.entries) == MEMORY


def test_a_heading_ends_the_headings_of_its_level_and_deeper() -> None:
    text = (
        "Before any heading.\n### Stray sub\n- under the stray sub\n## First\n### A\n#### A1\n"
        "- a1\n## Second\n- second\n### B\n- b\n```\n# not a heading\n```\n"
        "- item\n\n  ### inside the item, no heading\n- after\n"
    )
    assert [(e.context, e.text.split("\n")[0]) for e in read(text).pad.entries] == [
        ((), "Before any heading."),
        (("Stray sub",), "under the stray sub"),
        (("First", "A", "A1"), "a1"),
        (("Second",), "second"),
        (("Second", "B"), "b"),
        (("Second", "B"), "```"),
        (("Second", "B"), "item"),
        (("Second", "B"), "after"),
    ]


@pytest.mark.parametrize(
    ("title", "kind", "sealed"),
    [
        ("Block Metrics (updated 2026-04-02)", "block_metrics", False),
        ("Block Metrics (updated 2026-05-01)", "block_metrics", False),
        ("Block Metrics (as of May)", "block_metrics", False),
        ("Block Metrics — 2026-04-02", "block_metrics", False),
        ("Block Metrics [2026-04-02]", "block_metrics", False),
        ("Block Metrics 2026-04-02", "block_metrics", False),
        ("🚫 Block Metrics ✅", "block_metrics", False),
        ("**Block Metrics:** (updated 2026-04-02) 🔄", "block_metrics", False),
        ("Block Metrics (sealed) (updated 2026-04-02)", "block_metrics", True),
        ("Notes (updated 2026-04-02)", "note", False),
        ("Negative facts — 2026-04-02 [sealed]", "negative_fact", True),
        ("絶対禁止", "絶対禁止", False),
        ("絶対禁止（NEVER）", "絶対禁止_never", False),
        ("Planning & Workflow", "planning_workflow", False),
        ("2026-04-02", "2026_04_02", False),  # a date alone is the title: kept
        ("Python 3.12 quirks", "python_3_12_quirks", False),
    ],
)
def test_a_heading_names_the_same_kind_whatever_its_date_and_decorations(
    title: str, kind: str, sealed: bool
) -> None:
    (e,) = read(f"## {title}\n- x\n").pad.entries
    assert (e.kind, e.sealed) == (kind, sealed)
    assert e.context == (title,)  # the context keeps the title as written
    if not sealed:  # a new section for the kind reads back as the kind
        assert read(markdown.heading_for(kind, False) + "\n- y\n").pad.entries[0].kind == kind


@pytest.mark.parametrize(
    ("front", "headings", "replace"),
    [
        ("rule_headings: [House rules, Gotchas]", ("House rules", "Gotchas"), False),
        (
            "rule_headings: ['Don''t', \"a, b\", c]  # ours\nrule_headings_replace: true",
            ("Don't", "a, b", "c"),
            True,
        ),
        (
            "rule_headings:\n  - House rules\n  - 'Never ever'\nother: 1",
            ("House rules", "Never ever"),
            False,
        ),
        ("rule_headings:\n- flush left\nrule_headings_replace: False", ("flush left",), False),
        ("rule_headings: []\nrule_headings_replace: TRUE", (), True),
        ("rule_headings: ~", (), False),
    ],
)
def test_rule_headings_in_the_front_matter(
    front: str, headings: tuple[str, ...], replace: bool
) -> None:
    pad = read(f"---\n{front}\n---\n## Notes\n- n\n").pad
    assert (pad.rule_headings, pad.rule_headings_replace) == (headings, replace)


@pytest.mark.parametrize(
    ("front", "problem", "where"),
    [
        ("rule_headings: House rules", "must be a list of headings", "line 3"),
        ("rule_headings: [a, [b]]", "each item is a heading's words", "line 3"),
        ("rule_headings: [a, , b]", "each item is a heading's words", "line 3"),
        ("rule_headings: [a, b", "`]` is missing", "line 3"),
        ("rule_headings: ['a, b]", "a quote is never closed", "line 3"),
        ("rule_headings:\n  - a\n  -", "each item is a heading's words", "line 5"),
        ("rule_headings_replace: yes", "must be true or false", "line 3"),
    ],
)
def test_bad_rule_headings_are_one_line_naming_the_line(
    front: str, problem: str, where: str
) -> None:
    with pytest.raises(PadError) as caught:
        read(f"---\nagent: a\n{front}\n---\n## Notes\n", "rules.mdc")
    line = caught.value.line()
    assert line.startswith("rules.mdc: ") and problem in line and "\n" not in line
    assert caught.value.where == where


def test_preamble_entries_are_dropped_and_kept_like_any_other(tmp_path: Path) -> None:
    path = tmp_path / ".cursorrules"
    path.write_text(MEMORY)
    snap = store.read(str(path))
    assert snap.format == "md"
    gone = {"#0", "#5"}  # the two preamble entries, as a seed commit could drop them
    kept = [e for e in snap.pad.entries if e.label not in gone]
    after = store.commit(snap, kept)
    want = MEMORY.replace(
        "Read this file before every task; it is kept by the assistant.\n\n", ""
    ).replace("- An old note under a title of its own.\n\n", "")
    assert path.read_text() == want
    assert [e.text for e in after.pad.entries] == [e.text for e in kept]
    assert after.pad.entries[0].context == ("Team memory", "Gotchas (updated 2026-03-14)")


def test_a_drop_that_would_make_front_matter_of_the_text_is_refused(tmp_path: Path) -> None:
    # without the first paragraph, the lines after it would open the file as front matter
    text = "Intro line.\n---\nbudget_tokens: 9\n---\n## Notes\n- n\n"
    pf = read(text)
    assert [e.text for e in pf.pad.entries] == ["Intro line.", "budget_tokens: 9", "n"]
    with pytest.raises(ValueError, match="cannot write"):
        formats.render(pf.layout, pf.pad.entries[1:])
    path = tmp_path / "pad.md"
    path.write_text(text)
    snap = store.read(str(path))
    with pytest.raises(store.CommitError, match="nothing written"):
        store.commit(snap, list(snap.pad.entries[1:]))
    assert path.read_text() == text


def test_a_loss_record_never_goes_above_the_front_matter() -> None:
    text = "---\nbudget_tokens: 40\n---\nIntro.\n\n# Title\n\nMore intro.\n"
    pf = read(text)
    sealed = pf.pad.entries[1].sealed_copy()  # (a preamble entry, sealed through the API)
    out = formats.render(pf.layout, [pf.pad.entries[0], sealed])
    assert out.startswith("---\nbudget_tokens: 40\n---\nIntro.\n")
    back = read(out).pad
    assert back.budget_tokens == 40
    assert [(e.text, e.sealed) for e in back.entries] == [("Intro.", False), ("More intro.", True)]


def test_the_journal_gives_back_every_entry_with_its_context(tmp_path: Path) -> None:
    path = tmp_path / "team.mdc"
    journal = Journal(str(tmp_path / "j.jsonl"), str(path))
    pf = formats.parse(str(path), MEMORY.encode("utf-8"))
    journal.append(pf.data, "md", "seen", pf)
    again = journal.pad_file(1).pad
    assert [e.context for e in again.entries] == [e.context for e in pf.pad.entries]
    assert again.entries[2].context[-1] == "必ず守ること"


def test_a_new_version_seen_live_keeps_each_entry_s_own_context() -> None:
    from padtui.core.live.inspection import shared

    old = read("## Notes\n### Week 1\n- the same words\n")
    new = read("## Notes\n### Week 2\n- the same words\n")  # the entry moved under another
    (entry,) = shared(old, new).pad.entries
    assert entry.context == ("Notes", "Week 2")
