"""A format added by one module and one registration line: a toy text pad (one entry a
line, ``[sealed] KIND ID: TEXT``) is read, audited and written back through the command line
like any built-in format, and leaves nothing behind when it is taken out again."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from padtui.core import formats
from padtui.core.errors import PadError
from padtui.core.formats.base import Format, Layout, PadFile, split_lines
from padtui.core.model import Entry, Pad, make_entry
from tests.cli.test_commands import run
from tests.cli.test_write_commands import one_error_line

_LINE = re.compile(r"(sealed )?([a-z_]+) ([^\s:]+): (.*)")
_ESCAPES = {"\\": "\\\\", "\n": "\\n"}


@dataclass(frozen=True, kw_only=True)
class TextLayout(Layout):
    tail: str  # the blank lines after the last entry


class TextPad(Format):
    """The toy format: each line an entry; newlines and backslashes in a text escaped."""

    name = "padtxt"
    suffixes = (".pad.txt",)
    empty = "empty file: a text pad holds one entry a line"

    def read(self, path: str, text: str, previous: PadFile | None) -> tuple[Pad, Layout]:
        entries: list[Entry] = []
        pieces: list[str] = []
        pending = ""
        for n, line in enumerate(split_lines(text), start=1):
            if not line.strip():
                pending += line
                continue
            m = _LINE.fullmatch(line.rstrip("\r\n"))
            if m is None:
                raise PadError(path, "expected [sealed] KIND ID: TEXT", f"line {n}")
            sealed, kind, id_, body = m.groups()
            body = re.sub(r"\\(.)", lambda c: "\n" if c[1] == "n" else c[1], body)
            e = make_entry(kind, body, sealed=sealed is not None, id=id_)
            entries.append(replace(e, source=line.rstrip("\r\n")))
            pieces.append(pending + line)
            pending = ""
        return Pad.of(entries), TextLayout(format=self.name, pieces=tuple(pieces), tail=pending)

    def write(self, layout: Layout, entries: Sequence[Entry]) -> str:
        assert isinstance(layout, TextLayout)
        kept = {p.strip(): p for p in layout.pieces}
        out = []
        for e in entries:
            if e.source in kept:
                out.append(kept[e.source])
                continue
            text = "".join(_ESCAPES.get(c, c) for c in e.text)
            out.append(f"{'sealed ' if e.sealed else ''}{e.kind} {e.label}: {text}\n")
        return "".join(out) + layout.tail

    def same_entries(self, a: Sequence[Entry], b: Sequence[Entry]) -> bool:
        def held(e: Entry) -> tuple[str, str, bool, str | None]:
            return (e.kind, e.text, e.sealed, e.id)

        return list(map(held, a)) == list(map(held, b))


class UnsealedTextPad(TextPad):
    """The same lines, in a format that cannot say an entry is sealed."""

    name = "plaintxt"
    suffixes = (".plain.txt",)
    sealing = False


PAD = """\
sealed constraint c1: Never call the billing API.
constraint c2: Ask before deleting a branch.

plan p1: Read the ticket.\\nThen reply to the customer.
""" + "".join(
    f"note n{k}: Call {k} went over the invoices for March, April and May, and the customer "
    "asked once more for a refund of the duplicate charge on the card.\n"
    for k in range(1, 9)
)


@pytest.fixture(autouse=True)
def text_pads() -> Iterator[None]:
    formats.register(TextPad())
    formats.register(UnsealedTextPad())
    try:
        yield
    finally:
        formats.unregister("padtxt")
        formats.unregister("plaintxt")
    assert formats.format_for_name("a.pad.txt") is None  # nothing left for other tests
    assert "padtxt" not in formats.chosen()


def test_the_new_format_is_named_in_help_and_by_the_registry(capsys, tmp_path: Path) -> None:
    assert formats.format_for_name("Agent.PAD.TXT") == "padtxt"
    assert "padtxt" in formats.chosen() and ".pad.txt" in formats.suffixes()
    code, out, err = run(capsys, "check", "--help")
    assert code == 0 and ".pad.txt" in out and "--format md|json|jsonl|padtxt" in out
    other = tmp_path / "notes.md.bak"
    other.write_text(PAD)
    code, out, err = run(capsys, "check", str(other), "--budget", "100000")
    assert code == 2 and ".pad.txt" in err  # the names padtui reads, the new one among them
    code, out, err = run(capsys, "check", str(other), "--format", "padtxt", "--budget", "100000")
    assert (code, err) == (0, "") and "fits" in out


def test_check_reads_it_and_bad_lines_are_one_line_errors(capsys, tmp_path: Path) -> None:
    path = tmp_path / "agent.pad.txt"
    path.write_text(PAD)
    code, out, err = run(capsys, "check", str(path), "--budget", "100000", "--json")
    assert (code, err) == (0, "") and json.loads(out)["verdict"] == "fits"
    bad = tmp_path / "bad.pad.txt"
    bad.write_text(PAD + "no colon here\n")
    code, _out, err = run(capsys, "check", str(bad))
    assert code == 2
    assert one_error_line(err, str(bad)).endswith("line 13: expected [sealed] KIND ID: TEXT")


def test_audit_finds_a_dropped_constraint_between_two_versions(capsys, tmp_path: Path) -> None:
    old, new = tmp_path / "old.pad.txt", tmp_path / "new.pad.txt"
    old.write_text(PAD)
    new.write_text(PAD.replace("constraint c2: Ask before deleting a branch.\n", ""))
    code, out, err = run(capsys, "audit", str(old), str(new))
    assert (code, err) == (1, "")
    assert "c2" in out and "CONSTRAINT_DROPPED" in out
    code, out, err = run(capsys, "audit", str(old), str(old))
    assert (code, err) == (0, "")


def test_compact_and_externalize_write_it_back(capsys, tmp_path: Path) -> None:
    path = tmp_path / "agent.pad.txt"
    path.write_text(PAD)
    code, out, err = run(capsys, "compact", str(path), "--budget", "150", "--write")
    assert (code, err) == (0, ""), out
    lines = path.read_text().splitlines()
    assert lines[:2] == PAD.splitlines()[:2]  # untouched entries keep their bytes
    assert not any(" n8: " in line for line in lines)  # notes dropped
    assert lines[-1].startswith("sealed loss_record ")  # the record, sealed, in the format
    code, out, err = run(capsys, "externalize", str(path), "c2")
    assert (code, err) == (0, "")
    assert "sealed constraint c2: Ask before deleting a branch." in path.read_text()
    code, out, err = run(capsys, "history", str(path))
    assert (code, err) == (0, "") and "externalize" in out  # the journal reads it back too


def test_a_format_without_sealing_refuses_to_seal_in_one_line(capsys, tmp_path: Path) -> None:
    path = tmp_path / "agent.plain.txt"
    path.write_text(PAD)
    code, _out, err = run(capsys, "externalize", str(path), "c2")
    assert code == 2 and "cannot mark an entry sealed" in one_error_line(err, str(path))
    assert path.read_text() == PAD
