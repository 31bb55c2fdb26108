"""Pads too large to read: a 1 GB file is refused from its size before a byte is read;
a pad of millions of tiny entries from its line count before it is parsed. One line each,
exit 2, at once."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from padtui.cli import main
from padtui.core.formats import MAX_PAD_LINES


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, float]:
    started = time.monotonic()
    code = main(list(argv))
    took = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1, err
    return err, took


@pytest.mark.parametrize("command", [["check"], ["compact", "--write"], ["audit"]])
def test_a_1_gb_pad_is_refused_in_one_line_within_a_second(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    pad = tmp_path / "pad.json"
    pad.write_bytes(b'{"entries": [')
    os.truncate(pad, 2**30)  # (sparse: no gigabyte written)
    argv = [*command, str(pad)] + ([str(pad)] if command == ["audit"] else [])
    err, took = _refused(capsys, *argv)
    assert "pad.json: file is 1024.0 MiB; padtui reads pads up to 64 MiB" in err
    assert took < 1.0


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("tiny.md", b"# notes\n" + b"- a\n" * 10_000_000),
        ("tiny.jsonl", b'{"text": "a"}\n' * 2_000_000),
        ("tiny.json", b'{"entries": [' + b'{"text": "a"},' * 2_000_000 + b'{"text": "a"}]}'),
    ],
    ids=["10M markdown entries", "2M JSON lines", "2M objects on one line"],
)
def test_millions_of_tiny_entries_are_refused_before_they_are_parsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: bytes
) -> None:
    pad = tmp_path / name
    pad.write_bytes(data)
    err, _took = _refused(capsys, "check", str(pad))
    assert f"padtui reads pads of up to {MAX_PAD_LINES:,}" in err
    assert name in err
