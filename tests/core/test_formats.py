"""Pad files (the README's "The pad file"): JSON (bare array or object) and JSON Lines, read and
written back so that a write changes nothing but what the operation means to change."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from padtui.core import formats
from padtui.core.formats import jsonscan, parse, render
from padtui.core.model import Entry, Pad, make_entry
from padtui.core.sequences import ends

BOM = "\ufeff"


def read(name: str, text: str) -> formats.PadFile:
    return parse(name, text.encode("utf-8"))


def raws(text: str, name: str) -> list[dict[str, Any]]:
    """The entry objects of a pad text, read with nothing but the json module."""
    body = text.removeprefix(BOM)
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in re.split(r"\r\n|\r|\n", body) if line.strip()]
    doc = json.loads(body)
    return doc if isinstance(doc, list) else doc.get("entries", [])


# --- strategies: entries with unknown fields, laid out in many ways ---------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
unknown = st.dictionaries(
    st.text(max_size=8).filter(
        lambda k: k not in {"kind", "text", "sealed", "id", "derived_from", "op"}
    ),
    values,
    max_size=3,
)
texts = st.text(max_size=40) | st.sampled_from(["café ☕", 'say "no"\\', "a\u2028b\x85c", "\t\n"])


@st.composite
def entry_objects(draw: st.DrawFn) -> dict[str, Any]:
    """An entry object as an agent may write it: our fields in any order, and others."""
    fields: dict[str, Any] = {
        "kind": draw(st.sampled_from(["constraint", "note", "plan", "loss_record", "x-odd"])),
        "text": draw(texts),
    }
    if draw(st.booleans()):
        fields["sealed"] = draw(st.booleans())
    if draw(st.booleans()):
        fields["id"] = draw(st.text(min_size=1, max_size=6))
    if draw(st.booleans()):
        fields["derived_from"] = draw(st.lists(st.text(max_size=4), max_size=2))
    if draw(st.booleans()):
        fields["op"] = draw(st.sampled_from(["merge", "summarize"]))
    fields.update(draw(unknown))
    order = draw(st.permutations(list(fields)))
    return {k: fields[k] for k in order}


ws = st.text(alphabet=" \t\n\r", max_size=3)
layouts_json = st.sampled_from(["dumps", "spaced"])


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    """A .json pad: a bare array or an object form, dumped or spaced out by hand."""
    objs = draw(st.lists(entry_objects(), max_size=5))
    ascii_ = draw(st.booleans())
    if draw(st.booleans()):
        top = {"budget_tokens": draw(st.integers(0, 10_000)), "entries": objs}
        top.update(
            draw(
                unknown.filter(
                    lambda d: (
                        "budget_tokens" not in d and "entries" not in d and "encoding" not in d
                    )
                )
            )
        )
        order = draw(st.permutations(list(top)))
        doc: Any = {k: top[k] for k in order}
    else:
        doc = objs
    if draw(layouts_json) == "dumps":
        indent = draw(st.sampled_from([None, 0, 1, 2, 4, "\t"]))
        seps = draw(st.sampled_from([None, (",", ":"), (", ", ": ")]))
        text = json.dumps(doc, indent=indent, separators=seps, ensure_ascii=ascii_)
    else:

        def dump(v: Any) -> str:
            return json.dumps(v, ensure_ascii=ascii_)

        def array(items: list[Any]) -> str:
            if not items:
                return "[" + draw(ws) + "]"
            inner = ""
            for i, item in enumerate(items):
                if i:
                    inner += draw(ws) + "," + draw(ws)
                inner += dump(item)
            return "[" + draw(ws) + inner + draw(ws) + "]"

        if isinstance(doc, list):
            text = array(doc)
        else:
            parts = []
            for k, v in doc.items():
                value = array(v) if k == "entries" else dump(v)
                parts.append(draw(ws) + dump(k) + draw(ws) + ":" + draw(ws) + value + draw(ws))
            text = "{" + ",".join(parts) + "}"
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return draw(st.sampled_from(["", BOM])) + draw(ws) + text + draw(ws)


@st.composite
def jsonl_texts(draw: st.DrawFn) -> str:
    """A .jsonl pad: one object a line, blank lines anywhere, LF, CRLF or CR, open last line."""
    objs = draw(st.lists(entry_objects(), min_size=1, max_size=5))
    nl = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    lines = []
    for obj in objs:
        lines.extend(draw(st.lists(st.sampled_from(["", "  ", "\t"]), max_size=2)))
        lines.append(draw(st.sampled_from(["", " "])) + json.dumps(obj, ensure_ascii=False))
    text = nl.join(lines)
    if draw(st.booleans()):
        text += nl + draw(st.sampled_from(["", nl, " " + nl]))
    return draw(st.sampled_from(["", BOM])) + text


pad_texts = st.one_of(
    json_texts().map(lambda t: ("pad.json", t)), jsonl_texts().map(lambda t: ("pad.jsonl", t))
)


# --- round trips ----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(case=pad_texts)
def test_an_unchanged_pad_renders_byte_for_byte(case: tuple[str, str]) -> None:
    name, text = case
    pf = read(name, text)
    assert [e.as_dict() for e in pf.pad.entries] == raws(text, name)
    assert render(pf.layout, pf.pad.entries) == text


@settings(max_examples=200, deadline=None)
@given(case=pad_texts, data=st.data())
def test_removing_and_appending_keeps_every_other_entry_and_field(
    case: tuple[str, str], data: st.DataObject
) -> None:
    name, text = case
    pf = read(name, text)
    entries = list(pf.pad.entries)
    gone = data.draw(st.sampled_from(range(len(entries)))) if entries else None
    if gone is not None:
        del entries[gone]
    new = make_entry(
        "loss_record", "dropped #1 (note)", sealed=True, id="loss-1", drops=["#1"], meta={"k": [1]}
    )
    out = render(pf.layout, [*entries, new])

    expect = [e.as_dict() for e in entries] + [new.as_dict()]
    assert raws(out, name) == expect
    again = read(name, out)
    assert [e.as_dict() for e in again.pad.entries] == expect
    for e in entries:  # untouched entries keep their exact source text
        assert e.source is not None and e.source in out
    assert out.startswith(BOM) == text.startswith(BOM)
    if name.endswith(".json") and not text.removeprefix(BOM).lstrip().startswith("["):
        before = json.loads(text.removeprefix(BOM))
        after = json.loads(out.removeprefix(BOM))
        assert {k: v for k, v in after.items() if k != "entries"} == {
            k: v for k, v in before.items() if k != "entries"
        }
        assert list(after) == list(before) + ([] if "entries" in before else ["entries"])


@settings(max_examples=100, deadline=None)
@given(case=pad_texts, data=st.data())
def test_sealing_one_entry_changes_only_its_sealed_flag(
    case: tuple[str, str], data: st.DataObject
) -> None:
    name, text = case
    pf = read(name, text)
    if not pf.pad.entries:
        return
    i = data.draw(st.sampled_from(range(len(pf.pad.entries))))
    entries = list(pf.pad.entries)
    entries[i] = entries[i].sealed_copy()
    out = render(pf.layout, entries)
    before, after = raws(text, name), raws(out, name)
    assert after[i] == {**before[i], "sealed": True}
    assert list(after[i])[: len(before[i])] == list(before[i])  # key order kept
    assert after[:i] + after[i + 1 :] == before[:i] + before[i + 1 :]
    for j, e in enumerate(pf.pad.entries):
        if j != i:
            assert e.source is not None and e.source in out


# --- by hand ----------------------------------------------------------------------------------

OBJECT_PAD = """{
  "budget_tokens": 4000,
  "agent": {"name": "billing-bot", "version": 7},
  "entries": [
    {
      "kind": "constraint",
      "text": "Do not retry writes after a 5xx.",
      "sealed": true,
      "id": "c1",
      "priority": 1
    },
    {
      "id": "p1",
      "kind": "plan",
      "text": "Reconcile the ledger, then   email finance.",
      "x-source": ["turn 4"]
    },
    {
      "kind": "note",
      "text": "café ☕"
    }
  ],
  "schema": 2
}
"""


def test_a_commit_changes_nothing_but_the_drop_and_the_record() -> None:
    pf = read("pad.json", OBJECT_PAD)
    c1, _p1, note = pf.pad.entries
    record = make_entry("loss_record", "dropped p1", sealed=True, id="loss-1", drops=["p1"])
    out = render(pf.layout, [c1, note, record])
    assert out == (
        """{
  "budget_tokens": 4000,
  "agent": {"name": "billing-bot", "version": 7},
  "entries": [
    {
      "kind": "constraint",
      "text": "Do not retry writes after a 5xx.",
      "sealed": true,
      "id": "c1",
      "priority": 1
    },
    {
      "kind": "note",
      "text": "café ☕"
    },
    {
      "kind": "loss_record",
      "text": "dropped p1",
      "sealed": true,
      "id": "loss-1",
      "drops": [
        "p1"
      ]
    }
  ],
  "schema": 2
}
"""
    )


def test_sealed_copy_flips_only_sealed() -> None:
    pf = read("pad.json", OBJECT_PAD)
    p1 = pf.pad.entries[1]
    sealed = p1.sealed_copy()
    assert sealed.sealed and not p1.sealed
    assert (sealed.kind, sealed.text, sealed.id, sealed.index) == (
        p1.kind,
        p1.text,
        p1.id,
        p1.index,
    )
    assert sealed.as_dict() == {**p1.as_dict(), "sealed": True}
    assert list(sealed.as_dict()) == ["id", "kind", "text", "x-source", "sealed"]
    assert p1.raw.get("sealed") is None  # the original is not touched
    out = render(pf.layout, [pf.pad.entries[0], sealed, pf.pad.entries[2]])
    assert out == OBJECT_PAD.replace(
        """    {
      "id": "p1",
      "kind": "plan",
      "text": "Reconcile the ledger, then   email finance.",
      "x-source": ["turn 4"]
    },""",
        """    {
      "id": "p1",
      "kind": "plan",
      "text": "Reconcile the ledger, then   email finance.",
      "x-source": [
        "turn 4"
      ],
      "sealed": true
    },""",
    )
    # an entry that says "sealed": false keeps the key where it was
    flag = read("p.json", '[{"sealed": false, "kind": "note", "text": "t"}]').pad.entries[0]
    assert list(flag.sealed_copy().as_dict().items()) == [
        ("sealed", True),
        ("kind", "note"),
        ("text", "t"),
    ]


def test_bare_array_round_trip_and_unknown_fields() -> None:
    text = '[{"kind":"note","text":"a","z":1}, {"kind":"plan","text":"b","meta":{"n":[1,2]}}]\n'
    pf = read("pad.json", text)
    assert pf.pad.budget_tokens is None and pf.pad.encoding is None
    assert render(pf.layout, pf.pad.entries) == text
    out = render(pf.layout, [pf.pad.entries[1], make_entry("note", "c", tag="t")])
    # each entry keeps its own source, white space before it included; a new one copies it
    assert out == (
        '[ {"kind":"plan","text":"b","meta":{"n":[1,2]}},'
        ' {"kind": "note", "text": "c", "tag": "t"}]\n'
    )


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ('[{"kind": "note", "text": "caf\\u00e9"}, {"kind": "note", "text": "b"}]', True),
        ('[{"kind": "note", "text": "b"}, {"kind": "note", "text": "caf\\u00e9"}]', True),
        ('{"name": "caf\\u00e9", "entries": [{"kind": "note", "text": "b"}]}', True),
        ('{"entries": [{"kind": "note", "text": "b"}], "name": "caf\\u00e9"}', True),
        ('[{"kind": "note", "text": "café"}, {"kind": "note", "text": "caf\\u00e9"}]', False),
        ('{"name": "café", "entries": [{"kind": "note", "text": "caf\\u00e9"}]}', False),
        ('[{"kind": "note", "text": "b"}]', False),
    ],
)
def test_a_new_entry_escapes_non_ascii_as_the_file_does(text: str, escaped: bool) -> None:
    """A file that escapes its non-ASCII text (ASCII alone, with an escape anywhere: an
    entry, before the entries or after them) has a new entry's escaped too; any other file
    has it written as UTF-8."""
    pf = read("pad.json", text)
    out = render(pf.layout, [*pf.pad.entries, make_entry("note", "déjà vu")])
    assert ("d\\u00e9j\\u00e0 vu" in out) == escaped
    assert ("déjà vu" in out) != escaped
    assert [e.text for e in read("pad.json", out).pad.entries][-1] == "déjà vu"


def test_white_space_before_a_comma_is_kept() -> None:
    text = '[\n  {"kind": "note", "text": "a"}\n  , {"kind": "note", "text": "b"}\n]\n'
    pf = read("pad.json", text)
    assert render(pf.layout, pf.pad.entries) == text


def test_empty_array_and_object_with_empty_entries_take_new_entries() -> None:
    for text in ["[]", "[\n]\n", '{"entries": []}', '{\n  "entries": [\n  ]\n}\n']:
        pf = read("pad.json", text)
        assert pf.pad.entries == ()
        out = render(pf.layout, [make_entry("note", "n", id="a")])
        assert raws(out, "pad.json") == [{"kind": "note", "text": "n", "id": "a"}]


@pytest.mark.parametrize(
    "text", ['{"budget_tokens": 10, "agent": "x"}', BOM + '{"budget_tokens": 10}', "{}"]
)
def test_an_object_without_entries_is_bad_input_not_an_empty_pad(text: str) -> None:
    with pytest.raises(formats.PadError) as caught:
        read("pad.json", text)
    line = caught.value.line()
    assert line.startswith("pad.json: no entries array") and "\n" not in line


def test_object_settings_are_read() -> None:
    pf = read("pad.json", '{"encoding": "o200k_base", "budget_tokens": 0, "entries": []}')
    assert (pf.pad.budget_tokens, pf.pad.encoding) == (0, "o200k_base")


@pytest.mark.parametrize("name", ["pad.json", "pad.jsonl"])
def test_a_lone_surrogate_in_an_unknown_field_survives_a_rewrite(name: str) -> None:
    # the file is UTF-8 with non-ASCII text, and one unknown field holds a "\\ud800" escape:
    # a rewritten entry must still be writable as UTF-8, and read back the same
    line = '{"kind": "note", "text": "café", "x": "a\\ud800b"}'
    text = line + "\n" if name.endswith(".jsonl") else "[" + line + "]"
    pf = read(name, text)
    out = render(pf.layout, [pf.pad.entries[0].sealed_copy(), make_entry("note", "thé")])
    again = parse(name, formats.to_bytes(out))
    assert [e.raw for e in again.pad.entries] == [
        {"kind": "note", "text": "café", "x": "a\ud800b", "sealed": True},
        {"kind": "note", "text": "thé"},
    ]


# --- JSON Lines -------------------------------------------------------------------------------


def test_crlf_jsonl() -> None:
    text = '{"kind": "note", "text": "a"}\r\n\r\n{"kind": "plan", "text": "b", "x": 1}\r\n'
    pf = read("pad.jsonl", text)
    assert [e.text for e in pf.pad.entries] == ["a", "b"]
    assert pf.pad.entries[1].raw["x"] == 1
    assert render(pf.layout, pf.pad.entries) == text
    out = render(pf.layout, [pf.pad.entries[1], make_entry("note", "c")])
    assert out == '\r\n{"kind": "plan", "text": "b", "x": 1}\r\n{"kind": "note", "text": "c"}\r\n'


def test_cr_jsonl() -> None:
    text = '{"kind": "note", "text": "a"}\r{"kind": "plan", "text": "b"}\r'
    pf = read("pad.jsonl", text)
    assert [e.text for e in pf.pad.entries] == ["a", "b"]
    assert render(pf.layout, pf.pad.entries) == text
    out = render(pf.layout, [pf.pad.entries[1], make_entry("note", "c")])
    assert out == '{"kind": "plan", "text": "b"}\r{"kind": "note", "text": "c"}\r'


def test_jsonl_without_final_newline_stays_so() -> None:
    text = '{"kind": "note", "text": "a"}\n{"kind": "note", "text": "b"}'
    pf = read("pad.jsonl", text)
    assert render(pf.layout, pf.pad.entries) == text
    out = render(pf.layout, [*pf.pad.entries, make_entry("note", "c")])
    assert out == text + '\n{"kind": "note", "text": "c"}'


def test_jsonl_text_may_hold_line_separators() -> None:
    # json.dumps(ensure_ascii=False) leaves U+2028, U+2029 and U+0085 unescaped: they are
    # not line ends in JSON Lines, so such a pad (padtui writes them too) must read back
    tricky = "one\u2028two\u2029three\x85four\x0bfive\x0csix"
    line = json.dumps({"kind": "note", "text": tricky}, ensure_ascii=False)
    pf = read("pad.jsonl", line + "\n" + line + "\n")
    assert [e.text for e in pf.pad.entries] == [tricky, tricky]
    out = render(pf.layout, [make_entry("plan", tricky)])
    assert [e.text for e in read("pad.jsonl", out).pad.entries] == [tricky]


@pytest.mark.parametrize("name", ["pad.json", "pad.jsonl"])
def test_byte_order_mark(name: str) -> None:
    body = '{"kind": "note", "text": "a"}\n'
    text = BOM + (body if name.endswith(".jsonl") else "[" + body + "]\n")
    pf = read(name, text)
    assert [e.text for e in pf.pad.entries] == ["a"]
    assert render(pf.layout, pf.pad.entries) == text
    assert render(pf.layout, [*pf.pad.entries, make_entry("note", "b")]).startswith(BOM)


# --- labels and fields --------------------------------------------------------------------------


def test_entries_without_an_id_are_named_by_position() -> None:
    text = (
        '[{"kind": "note", "text": "a"}, {"kind": "plan", "text": "b", "id": "p"},'
        ' {"kind": "note", "text": "c"}]'
    )
    pad = read("pad.json", text).pad
    assert [e.label for e in pad.entries] == ["#0", "p", "#2"]
    assert pad.find("#2") is pad.entries[2]
    assert pad.find("p") is pad.entries[1]
    assert pad.find("#3") is None and pad.find("q") is None
    lines = "\n".join(json.dumps(json.loads(text)[i]) for i in range(3))
    assert [e.label for e in read("pad.jsonl", lines).pad.entries] == ["#0", "p", "#2"]
    # Pad.of numbers entries by their new position
    assert [e.label for e in Pad.of([pad.entries[2], pad.entries[0]]).entries] == ["#0", "#1"]


def test_entry_fields() -> None:
    text = json.dumps(
        [
            {
                "kind": "plan",
                "text": "t",
                "sealed": True,
                "id": "x",
                "derived_from": ["a", "b"],
                "op": "merge",
            },
            {"kind": "hypothesis", "text": ""},
        ]
    )
    first, second = read("pad.json", text).pad.entries
    assert first == Entry("plan", "t", True, "x", ("a", "b"), "merge", 0)
    assert not first.protected
    assert second == Entry("hypothesis", "", index=1)
    assert make_entry("negative_fact", "n").protected


def test_load_reads_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pad.JSONL"  # the extension is case-forgiven
    data = b'{"kind": "note", "text": "caf\xc3\xa9"}\n'
    path.write_bytes(data)
    pf = formats.load(str(path))
    assert pf.data == data
    assert pf.path == str(path)
    assert pf.pad.entries[0].text == "café"
    assert formats.to_bytes(render(pf.layout, pf.pad.entries)) == data


# --- which format a name says ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("pad.json", "json"),
        ("pad.JSONL", "jsonl"),
        ("notes.md", "md"),
        ("rules/learned.mdc", "md"),
        (".cursorrules", "md"),
        ("project/.clinerules", "md"),
        (".windsurfrules", "md"),
        ("agent.AF", "af"),
    ],
)
def test_a_name_says_its_format(name: str, fmt: str) -> None:
    assert formats.format_of(name) == fmt
    assert formats.format_for_name(name) == fmt


@pytest.mark.parametrize("name", ["pad.txt", "Makefile", "notes.md.bak", "x.cursorrules~"])
def test_a_name_that_says_no_format_is_one_line_that_offers_format(name: str) -> None:
    with pytest.raises(formats.PadError) as caught:
        formats.format_of(name)
    line = caught.value.line()
    assert line.startswith(f"{name}: unsupported format") and "\n" not in line
    assert ".cursorrules" in line and "--format md|json|jsonl" in line


def test_a_chosen_format_reads_any_name(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY"
    path.write_text("## Notes\n- n1\n")
    assert formats.format_of(str(path), "md") == "md"
    assert [e.text for e in formats.load(str(path), "md").pad.entries] == ["n1"]
    assert [e.text for e in formats.load_pad(str(path), "md").entries] == ["n1"]
    odd = tmp_path / "pad.md"  # a chosen format wins over the name
    odd.write_text('[{"kind": "note", "text": "j"}]')
    assert [e.text for e in formats.load(str(odd), "json").pad.entries] == ["j"]
    with pytest.raises(formats.PadError, match="unknown format 'af'"):
        formats.format_of(str(path), "af")  # an agent file is known by its name only


# --- memory exports and settings ---------------------------------------------------------------

MEMORIES = """{
  "memories": [
    {"id": "mem-01", "memory": "Prefers answers in French", "score": 0.9},
    {"id": 17, "content": "Runs Debian on the build box"},
    "Plain string memory",
    {"text": "Third shape", "created_at": "2026-03-01"},
    {"value": "Fourth shape"},
    {"data": "Fifth shape", "memory": 3}
  ],
  "budget_tokens": 9
}
"""


def test_a_memory_export_reads_as_notes_with_its_ids() -> None:
    pf = read("export.json", MEMORIES)
    pad = pf.pad
    assert [(e.kind, e.text, e.label) for e in pad.entries] == [
        ("note", "Prefers answers in French", "mem-01"),
        ("note", "Runs Debian on the build box", "#1"),  # an id that is not a string: none
        ("note", "Plain string memory", "#2"),
        ("note", "Third shape", "#3"),
        ("note", "Fourth shape", "#4"),
        ("note", "Fifth shape", "#5"),  # the first key holding a string
    ]
    assert pad.budget_tokens == 9
    assert pad.entries[0].raw["score"] == 0.9
    for e in pad.entries:  # each memory's exact text, for the journal
        assert e.source is not None and e.source in MEMORIES
    with pytest.raises(ValueError, match="memory export read-only"):
        render(pf.layout, pad.entries)


@pytest.mark.parametrize(
    "text",
    [
        '["remember the milk", "the cat is called Io"]',
        '[{"memory": "remember the milk"}, {"content": "the cat is called Io"}]',
    ],
)
def test_a_bare_array_of_memories_reads_as_notes(text: str) -> None:
    pad = read("mem.json", text).pad
    assert [(e.kind, e.text) for e in pad.entries] == [
        ("note", "remember the milk"),
        ("note", "the cat is called Io"),
    ]


def test_an_array_with_a_kind_is_a_pad_of_entries_not_memories() -> None:
    pad = read("pad.json", '[{"kind": "plan", "text": "p", "memory": "m"}]').pad
    assert [(e.kind, e.text) for e in pad.entries] == [("plan", "p")]
    with pytest.raises(formats.PadError, match='missing "kind"'):
        read("pad.json", '[{"memory": "m"}, {"kind": "plan", "text": "p"}]')


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"memories": [\n"a",\n42]}', "memory 1 (line 3): a memory must be a string"),
        ('["a", {"memory": null}]', "memory 1 (line 1): a memory object needs its text"),
        ('{"memories": "a"}', '"memories" must be an array, got a string'),
        ('{"memories": [], "rule_headings": "Lessons"}', '"rule_headings" must be an array'),
        ('{"entries": [], "rule_headings": ["a", 1]}', "item 1 is a number"),
        ('{"entries": [], "rule_headings_replace": "yes"}', "must be true or false"),
    ],
)
def test_bad_memory_exports_and_settings_are_one_line(text: str, problem: str) -> None:
    with pytest.raises(formats.PadError) as caught:
        read("mem.json", text)
    line = caught.value.line()
    assert line.startswith("mem.json: ") and problem in line and "\n" not in line


def test_a_memory_export_is_never_written(tmp_path: Path) -> None:
    from padtui.core.storage import store

    path = tmp_path / "export.json"
    path.write_text(MEMORIES)
    snap = store.read(str(path))
    with pytest.raises(formats.PadError) as caught:
        store.commit(snap, list(snap.pad.entries[1:]))
    assert caught.value.line() == f"{path}: {formats.MEMORY_READ_ONLY}"
    assert path.read_text() == MEMORIES
    with pytest.raises(formats.PadError, match="read-only"):
        formats.check_writable(str(path), "json", snap.file.layout)


def test_rule_heading_settings_are_read_and_survive_every_way_of_reading(tmp_path: Path) -> None:
    doc = {
        "rule_headings": ["House rules", "Gotchas"],
        "rule_headings_replace": True,
        "entries": [{"kind": "note", "text": "a"}, {"kind": "note", "text": "b"}],
    }
    text = json.dumps(doc, indent=2)
    full = read("pad.json", text)
    assert full.pad.rule_headings == ("House rules", "Gotchas")
    assert full.pad.rule_headings_replace is True
    path = tmp_path / "pad.json"
    path.write_text(text)
    fast = formats.load_pad(str(path))
    edited = text.replace('"text": "b"', '"text": "b2"')
    after = parse("pad.json", edited.encode(), previous=full)  # read against the one before
    for pad in (fast, after.pad):
        assert (pad.rule_headings, pad.rule_headings_replace) == (("House rules", "Gotchas"), True)
    plain = read("pad.json", '{"entries": []}').pad
    assert (plain.rule_headings, plain.rule_headings_replace) == ((), False)


def test_entries_read_fast_are_entries_field_for_field() -> None:
    """The reader builds entries without the dataclass's __init__: the same entry."""
    import dataclasses

    from padtui.core.formats.objects import fast_entry
    from padtui.core.model import Entry

    values = ("note", "text", True, "e-1", ("a", "b"), "merge", 3, {"kind": "note"}, "{}")
    names = [f.name for f in dataclasses.fields(Entry)]
    fast, slow = fast_entry(*values), Entry(*values)
    assert names == list(vars(fast))  # every field, in order: none missing, none added
    for name in names:
        assert getattr(fast, name) == getattr(slow, name)
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)


json_values = st.recursive(
    scalars | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
entry_like = st.fixed_dictionaries(
    {"kind": st.sampled_from(["note", "plan", "constraint"]), "text": st.text(max_size=10)},
    optional={"sealed": st.booleans(), "id": st.text(max_size=4), "extra": json_values},
)
documents = st.one_of(
    st.lists(entry_like, max_size=4),
    st.fixed_dictionaries(
        {"entries": st.lists(entry_like, max_size=4)},
        optional={"budget_tokens": st.integers(0, 10**6), "other": json_values},
    ),
    json_values,
)


def writable(entry: dict[str, Any]) -> bool:
    """No lone surrogate (from a damaged escape) in a field padtui reads."""
    try:
        json.dumps(
            [entry.get(k) for k in ("kind", "text", "id", "op")], ensure_ascii=False
        ).encode()
    except UnicodeEncodeError:
        return False
    return True


@settings(max_examples=1500, deadline=None)
@given(
    doc=documents,
    indent=st.sampled_from([None, 1, 2, "\t"]),
    cut=st.integers(min_value=0, max_value=400),
    garble=st.sampled_from(["", ",", "]", "}", " x", '"', "\ufeff", "[", "{"]),
)
def test_the_one_pass_reader_accepts_what_json_accepts(
    doc: Any, indent: Any, cut: int, garble: str
) -> None:
    """The reader walks a JSON pad once (json's own scanner for every value): it must accept
    exactly the texts json.loads accepts, and read the same entries from them."""
    text = json.dumps(doc, indent=indent)
    if garble:  # a damaged text: something inserted somewhere
        at = cut % (len(text) + 1)
        text = text[:at] + garble + text[at:]
    try:
        want = json.loads(text.removeprefix(BOM))
    except ValueError:
        want = ValueError
    try:
        got = read("pad.json", text)
    except formats.PadError:
        got = None
    if want is ValueError:
        assert got is None
        return
    if isinstance(want, dict | list):  # read in one pass, not by the fallback to json.loads
        start = jsonscan.skip(text, len(BOM) if text.startswith(BOM) else 0)
        assert jsonscan.scan_document(text, start)[0] == want
    if isinstance(want, dict) and "entries" not in want:
        assert got is None  # an object without entries is bad input (the README's "The pad file")
        return
    texts = memory_texts(want)
    if texts is not None:  # a memory tool's export: read-only notes
        if got is None:
            assert not all(writable({"text": t}) for t in texts)
            return
        assert [(e.kind, e.text) for e in got.pad.entries] == [("note", t) for t in texts]
        with pytest.raises(ValueError, match="read-only"):
            render(got.layout, got.pad.entries)
        return
    items = want.get("entries") if isinstance(want, dict) else want
    good = (
        isinstance(items, list)
        and all(
            isinstance(e, dict)
            and isinstance(e.get("kind"), str)
            and e["kind"]
            and isinstance(e.get("text"), str)
            and writable(e)
            for e in items
        )
        and not (
            isinstance(want, dict)
            and "budget_tokens" in want
            and not isinstance(want["budget_tokens"], int)
        )
    )
    if not (isinstance(want, dict | list)) or (
        isinstance(want, dict) and "entries" in want and not isinstance(items, list)
    ):
        assert got is None
        return
    if got is None:
        assert not good
        return
    assert [e.raw for e in got.pad.entries] == (items or [])
    assert render(got.layout, got.pad.entries) == text  # and it writes back byte for byte


MEMORY_KEYS = ("memory", "content", "text", "value", "data")


def memory_texts(doc: Any) -> list[str] | None:
    """The texts of a bare array that reads as a memory tool's export (the README's "The pad
    file"): no object with a "kind", and every item a string or an object with a string under
    one of the memory keys (the first found); None for any other document."""
    if not isinstance(doc, list) or not doc:
        return None
    if any(isinstance(x, dict) and "kind" in x for x in doc):
        return None
    texts = []
    for x in doc:
        if isinstance(x, str):
            texts.append(x)
            continue
        found = [x[k] for k in MEMORY_KEYS if isinstance(x, dict) and isinstance(x.get(k), str)]
        if not found:
            return None
        texts.append(found[0])
    return texts


edits = st.lists(
    st.tuples(
        st.sampled_from(["edit", "insert", "delete", "move", "space", "head", "tail", "break"]),
        st.integers(min_value=0, max_value=50),
        st.text(max_size=6),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=600, deadline=None)
@given(
    doc=st.one_of(
        st.lists(entry_like, min_size=1, max_size=6),
        st.fixed_dictionaries(
            {"entries": st.lists(entry_like, min_size=1, max_size=6)},
            optional={"budget_tokens": st.integers(0, 10**6), "other": json_values},
        ),
    ),
    indent=st.sampled_from([None, 1, 2, "\t"]),
    changes=edits,
)
def test_a_version_read_against_the_one_before_is_read_as_in_full(
    doc: Any, indent: Any, changes: list[tuple[str, int, str]]
) -> None:
    """A live pad is read against its previous version (only what changed is parsed): the
    result must be what a full read gives, entry for entry and byte for byte, and bad JSON
    must be refused just the same."""
    old_text = json.dumps(doc, indent=indent)
    previous = read("pad.json", old_text)
    items = doc["entries"] if isinstance(doc, dict) else doc
    text = old_text
    for what, n, word in changes:
        items = list(items)
        i = n % len(items) if items else 0
        if what == "edit" and items:
            items[i] = dict(items[i], text=items[i]["text"] + word)
        elif what == "insert":
            items.insert(i, {"kind": "note", "text": word})
        elif what == "delete" and items:
            del items[i]
        elif what == "move" and items:
            items.append(items.pop(i))
        new_doc = dict(doc, entries=items) if isinstance(doc, dict) else items
        text = json.dumps(new_doc, indent=indent)
        if what == "space":  # the same entries, laid out otherwise
            text = text.replace(",", " ,", 1 + n % 3)
        elif what == "head":
            text = " " + text
        elif what == "tail":
            text = text + "\n"
        elif what == "break":  # a torn or bad write
            text = text[: n % (len(text) + 1)] + word
    try:
        full = read("pad.json", text)
    except formats.PadError as exc:
        with pytest.raises(formats.PadError) as info:
            parse("pad.json", text.encode("utf-8"), previous=previous)
        assert str(info.value) == str(exc)
        return
    assert_read_as_in_full(text, previous, full)


def assert_read_as_in_full(text: str, previous: formats.PadFile, full: formats.PadFile) -> None:
    """``text`` read against ``previous`` is ``full``, its read alone: entry for entry (their
    fields, sources and places) and byte for byte when written back."""
    got = parse("pad.json", text.encode("utf-8"), previous=previous)
    assert got.layout == full.layout
    assert got.pad == full.pad
    for a, b in zip(got.pad.entries, full.pad.entries, strict=True):
        assert (a.raw, a.source, a.index) == (b.raw, b.source, b.index)
    assert render(got.layout, got.pad.entries) == text


# a few entries, so that versions repeat them: the runs two versions share at their start
# and end then meet entries that look alike (where a walk must not be fooled by the text)
few_entries = st.sampled_from(
    [
        {"kind": "note", "text": "a"},
        {"kind": "note", "text": "b"},
        {"kind": "note", "text": "a,b"},
        {"kind": "note", "text": "a"},  # (the first again: an entry twice)
        {"kind": "rule", "text": "a", "sealed": True},
    ]
)


@settings(max_examples=600, deadline=None)
@given(
    old=st.lists(few_entries, min_size=1, max_size=10),
    new=st.lists(few_entries, min_size=1, max_size=10),
    keep=st.integers(0, 10),
    indent=st.sampled_from([None, 1, 2]),
    wrap=st.booleans(),
    commas=st.lists(
        st.tuples(st.sampled_from(["", " ", "\n"]), st.sampled_from(["", " ", "\n"])),
        min_size=2,
        max_size=2,
    ),
    laid_out=st.lists(st.integers(-1, 3), min_size=2, max_size=2),
)
def test_a_version_that_shares_its_ends_with_the_one_before_is_read_as_in_full(
    old: list[Any],
    new: list[Any],
    keep: int,
    indent: Any,
    wrap: bool,
    commas: list[tuple[str, str]],
    laid_out: list[int],
) -> None:
    """The entries in the text two versions share at their start and end are taken over
    without a walk: what is read must still be what a full read gives, however alike the
    entries around the change are, and however the white space around their commas moved."""
    new = old[: keep % (len(old) + 1)] + new  # (a change after a shared start, or none)

    def text_of(items: list[Any], version: int) -> str:
        text = json.dumps({"entries": items} if wrap else items, indent=indent)
        before, after = commas[version]  # (around the first few commas, or all: -1)
        return text.replace("},", "}" + before + "," + after, laid_out[version])

    previous = read("pad.json", text_of(old, 0))
    text = text_of(new, 1)
    assert_read_as_in_full(text, previous, read("pad.json", text))


@given(
    old=st.text(alphabet="ab", max_size=40),
    new=st.text(alphabet="ab", max_size=40),
    block=st.integers(1, 8),
)
def test_the_text_two_versions_share_at_their_ends_is_found_block_by_block(
    old: str, new: str, block: int
) -> None:
    """The shared start and end of two texts, found by whole blocks and then halving, are
    what comparing them character by character finds (the two never overlap)."""
    n = min(len(old), len(new))
    a = next((i for i in range(n) if old[i] != new[i]), n)
    t = next((i for i in range(n - a) if old[-1 - i] != new[-1 - i]), n - a)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ends, "_BLOCK", block)
        assert ends.common_text_ends(old, new) == (a, t)


_OBJECTS = [object() for _ in range(3)]


@given(
    old=st.lists(st.sampled_from(_OBJECTS), max_size=12),
    new=st.lists(st.sampled_from(_OBJECTS), max_size=12),
)
def test_the_objects_two_sequences_share_at_their_ends_are_found(
    old: list[object], new: list[object]
) -> None:
    """The very objects two sequences share at their start, then at their end (the two
    runs never overlapping), as comparing them one by one finds them."""
    n = min(len(old), len(new))
    a = next((i for i in range(n) if old[i] is not new[i]), n)
    t = next((i for i in range(n - a) if old[-1 - i] is not new[-1 - i]), n - a)
    assert ends.common_ends(old, new) == ends.common_ends(tuple(old), tuple(new)) == (a, t)


@settings(max_examples=600, deadline=None)
@given(
    doc=documents,
    indent=st.sampled_from([None, 2]),
    cut=st.integers(min_value=0, max_value=400),
    garble=st.sampled_from(["", "", ",", "]", "}", '"', "\ufeff"]),
)
def test_a_pad_read_only_to_be_read_is_the_pad_load_reads(
    tmp_path_factory: pytest.TempPathFactory, doc: Any, indent: Any, cut: int, garble: str
) -> None:
    """``check`` and ``audit`` read a pad without the layout a write needs: the same pad,
    entry for entry and field for field, and the same one-line error for bad input."""
    text = json.dumps(doc, indent=indent)
    if garble:
        at = cut % (len(text) + 1)
        text = text[:at] + garble + text[at:]
    path = tmp_path_factory.mktemp("pad") / "pad.json"
    path.write_text(text, "utf-8")
    try:
        want: Any = formats.load(str(path)).pad
    except formats.PadError as exc:
        want = str(exc)
    try:
        got: Any = formats.load_pad(str(path))
    except formats.PadError as exc:
        got = str(exc)
    assert got == want
    if isinstance(want, Pad):
        assert [e.raw for e in got.entries] == [e.raw for e in want.entries]
        assert all(e.source is None for e in got.entries)  # nothing to write back from


def test_each_format_is_read_by_its_own_module_alone(tmp_path: Path) -> None:
    """Which format a file is comes from what the registry knows of every format, without
    its module; a read imports that format's module, never the others' (a check of a JSON
    pad has no use for the Markdown reader: it is a start-up cost of every run)."""
    import subprocess
    import sys

    pads = {
        "json_pad": ("pad.json", '[{"kind": "note", "text": "n"}]'),
        "json_lines": ("pad.jsonl", '{"kind": "note", "text": "n"}\n'),
        "markdown": ("pad.md", "## Notes\n- n\n"),
    }
    for module, (name, text) in pads.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        code = (
            "import sys\nfrom padtui.core import formats\n"
            f"assert formats.format_of({name!r}) and formats.names_text() and formats.chosen()\n"
            f"formats.load({str(tmp_path / name)!r})\n"
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m in "
            "{'padtui.core.formats.' + f for f in ('json_pad', 'json_lines', 'markdown', "
            "'letta')}))\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        assert done.stdout.split() == [f"[{module!r}]"]


def test_what_the_registry_knows_of_a_format_is_what_its_module_says() -> None:
    from padtui.core.formats import known, registry

    for spec in (known.MARKDOWN, known.JSON, known.JSONL, known.LETTA):
        fmt = spec.load()
        assert (fmt.name, fmt.suffixes, fmt.choosable) == (spec.name, spec.suffixes, spec.choosable)
        assert fmt.names_text() == spec.names_text()
        assert registry.named(spec.name) is fmt
    stale = registry.Deferred("padtui.core.formats.json_pad", "json", (".jsn",))
    with pytest.raises(RuntimeError, match="not the format registered"):
        stale.load()
