"""Bad input (the README's "Safety"): a one-line error naming the file, the line or entry, and the
problem; exit 2; never a traceback. Then a fuzz of arbitrary bytes and JSON values."""

from __future__ import annotations

import contextlib
import io
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from padtui.cli import main
from padtui.core import formats
from padtui.core.compaction.plan import plan
from padtui.core.counting.tokens import counter_for
from padtui.core.errors import PadError

Setup = Callable[[Path], Path]


def file(name: str, data: bytes | str) -> Setup:
    def make(tmp: Path) -> Path:
        path = tmp / name
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        return path

    return make


def directory(name: str) -> Setup:
    def make(tmp: Path) -> Path:
        path = tmp / name
        path.mkdir()
        return path

    return make


def missing(name: str) -> Setup:
    return lambda tmp: tmp / name


ENTRY = '{"kind": "note", "text": "fine"}'
DEEP = 100_000

# (id, how to make the file, what the one line must also say)
CASES: list[tuple[str, Setup, list[str]]] = [
    (
        "invalid-json",
        file("p.json", f'[{ENTRY},\n {{"kind": "note" "text": "b"}}]'),
        ["invalid JSON", "line 2"],
    ),
    ("trailing-comma", file("p.json", f"[\n{ENTRY},\n]\n"), ["invalid JSON", "line 3"]),
    ("invalid-jsonl-line", file("p.jsonl", f"{ENTRY}\n\n{{oops\n"), ["invalid JSON", "line 3"]),
    ("two-values-on-a-jsonl-line", file("p.jsonl", ENTRY + " " + ENTRY), ["line 1"]),
    ("top-level-string", file("p.json", '"just a string"'), ["a string"]),
    ("top-level-number", file("p.json", "42"), ["a number"]),
    ("top-level-null", file("p.json", "null"), ["null"]),
    ("entries-not-array", file("p.json", '{"entries": {"kind": "note"}}'), ['"entries"']),
    ("entry-not-object", file("p.json", f'[{ENTRY}, "note: hi"]'), ["entry 1"]),
    ("jsonl-entry-not-object", file("p.jsonl", f"{ENTRY}\n[1, 2]\n"), ["line 2", "object"]),
    (
        "missing-kind",
        file("p.json", f'[{ENTRY},\n {{"text": "x"}}]'),
        ['missing "kind"', "entry 1", "line 2"],
    ),
    (
        "missing-text",
        file("p.jsonl", f'{ENTRY}\n{ENTRY}\n{{"kind": "note"}}\n'),
        ['missing "text"', "line 3"],
    ),
    ("kind-number", file("p.json", '[{"kind": 3, "text": "x"}]'), ['"kind"', "entry 0"]),
    ("kind-empty", file("p.json", '[{"kind": "", "text": "x"}]'), ['"kind"', "entry 0"]),
    ("text-null", file("p.json", '[{"kind": "note", "text": null}]'), ['"text"', "entry 0"]),
    ("text-array", file("p.json", '[{"kind": "note", "text": ["a"]}]'), ['"text"', "entry 0"]),
    (
        "sealed-string",
        file("p.json", '[{"kind": "note", "text": "x", "sealed": "yes"}]'),
        ['"sealed"', "entry 0"],
    ),
    ("id-number", file("p.jsonl", '{"kind": "note", "text": "x", "id": 7}'), ['"id"', "line 1"]),
    ("op-object", file("p.json", '[{"kind": "note", "text": "x", "op": {}}]'), ['"op"']),
    (
        "derived-from-string",
        file("p.json", '[{"kind": "note", "text": "x", "derived_from": "a"}]'),
        ['"derived_from"', "entry 0"],
    ),
    (
        "derived-from-numbers",
        file("p.json", '[{"kind": "note", "text": "x", "derived_from": [1]}]'),
        ['"derived_from"'],
    ),
    (
        "budget-string",
        file("p.json", '{"budget_tokens": "lots", "entries": []}'),
        ['"budget_tokens"'],
    ),
    (
        "budget-negative",
        file("p.json", '{"budget_tokens": -1, "entries": []}'),
        ['"budget_tokens"'],
    ),
    (
        "budget-fraction",
        file("p.json", '{"budget_tokens": 10.5, "entries": []}'),
        ['"budget_tokens"'],
    ),
    (
        "budget-boolean",
        file("p.json", '{"budget_tokens": true, "entries": []}'),
        ['"budget_tokens"'],
    ),
    ("encoding-number", file("p.json", '{"encoding": 5, "entries": []}'), ['"encoding"']),
    (
        "lone-surrogate",
        file("p.json", '[{"kind": "note", "text": "a\\ud800b"}]'),
        ["surrogate", "entry 0"],
    ),
    (
        "huge-integer",
        file("p.json", '[{"kind": "note", "text": "x", "n": ' + "9" * 5000 + "}]"),
        ["invalid JSON"],
    ),
    (
        "huge-integer-jsonl",
        file("p.jsonl", '{"kind": "note", "text": "x", "n": ' + "9" * 5000 + "}"),
        ["invalid JSON", "line 1"],
    ),
    ("empty-file", file("p.json", b""), ["empty"]),
    ("empty-jsonl", file("p.jsonl", b""), ["empty"]),
    ("white-space-only", file("p.jsonl", " \n\t\r\n"), ["empty"]),
    ("bom-only", file("p.json", "\ufeff\n"), ["empty"]),
    ("binary", file("p.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ["binary"]),
    ("nul-in-jsonl", file("p.jsonl", ENTRY.encode() + b"\n\x00\n"), ["binary"]),
    ("utf-16", file("p.json", "[]".encode("utf-16")), ["binary"]),
    (
        "latin-1",
        file("p.jsonl", f'{ENTRY}\n{{"kind": "note", "text": "caf\xe9"}}'.encode("latin-1")),
        ["UTF-8", "line 2"],
    ),
    ("truncated-utf-8", file("p.json", '[{"kind": "note", "text": "☕'.encode()[:-1]), ["UTF-8"]),
    ("missing-file", missing("gone.json"), ["no such file"]),
    ("missing-folder", missing("nowhere/gone.jsonl"), ["no such file"]),
    ("directory", directory("pads.json"), ["directory"]),
    ("directory-no-extension", directory("pads"), []),
    ("unsupported-extension", file("p.txt", f"[{ENTRY}]"), ["'.txt'"]),
    ("yaml", file("p.yaml", "- kind: note\n"), ["'.yaml'"]),
    ("no-extension", file("pad", f"[{ENTRY}]"), ["extension"]),
    ("deeply-nested-json", file("p.json", "[" * DEEP + "]" * DEEP), ["nested too deeply"]),
    (
        "deeply-nested-entry",
        file("p.json", '[{"kind": "note", "text": "x", "n": ' + "[" * DEEP + "]" * DEEP + "}]"),
        ["nested too deeply"],
    ),
    (
        "deeply-nested-jsonl",
        file("p.jsonl", f"{ENTRY}\n" + "[" * DEEP + "]" * DEEP),
        ["nested too deeply", "line 2"],
    ),
]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def assert_one_line(err: str) -> str:
    assert err.endswith("\n"), repr(err)
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err.rstrip("\n")


@pytest.mark.parametrize(("setup", "says"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_naming_the_file(
    tmp_path: Path, setup: Setup, says: list[str]
) -> None:
    path = setup(tmp_path)
    code, out, err = run(["check", str(path)])
    assert code == 2
    assert out == ""
    line = assert_one_line(err)
    assert str(path) in line
    for word in says:
        assert word in line
    # the library says the same, as a PadError and nothing else
    with pytest.raises(PadError) as info:
        formats.load(str(path))
    assert info.value.line() in line
    # --json: stdout is still one JSON object, and stderr the same one line
    code, out, err = run(["check", str(path), "--json"])
    assert code == 2
    assert assert_one_line(err) == line
    assert str(path) in json.loads(out)["error"]


def test_huge_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(formats, "MAX_PAD_BYTES", 100)
    path = tmp_path / "big.json"
    path.write_text(json.dumps([{"kind": "note", "text": "x" * 200}]), encoding="utf-8")
    code, out, err = run(["check", str(path)])
    assert code == 2
    assert out == ""
    line = assert_one_line(err)
    assert str(path) in line and "MiB" in line
    small = tmp_path / "small.json"
    small.write_text("[]", encoding="utf-8")
    assert run(["check", str(small)])[0] == 0


def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "locked.json"
    path.write_text("[]", encoding="utf-8")
    path.chmod(0)
    try:
        with open(path, "rb"):
            pytest.skip("running as a user who can read any file")
    except PermissionError:
        pass
    code, _out, err = run(["check", str(path)])
    assert code == 2
    assert "permission denied" in assert_one_line(err)


# --- fuzz -------------------------------------------------------------------------------------

FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def check_any(path: Path) -> None:
    """The contract for any file at all: it loads or it is a PadError; the CLI answers."""
    try:
        pf = formats.load(str(path))
    except PadError as exc:
        assert exc.line().startswith(str(path))
        assert "\n" not in exc.line()
        pf = None
    if pf is not None:
        for policy in ("strict", "seed"):  # a trial never raises
            plan(pf.pad, 50, policy, counter_for("cl100k_base"))

    code, out, err = run(["check", str(path), "--budget", "50"])
    assert code in (0, 1, 2)
    if code == 2:
        assert_one_line(err)
        assert out == ""
    else:
        assert pf is not None, "the CLI read a pad that load() refuses"
        assert err == ""
        assert out
    code_j, out_j, err_j = run(["check", str(path), "--budget", "50", "--json"])
    assert code_j == code
    report = json.loads(out_j)  # one JSON object, nothing else
    assert isinstance(report, dict)
    if code == 2:
        assert set(report) == {"error"}
        assert_one_line(err_j)
    else:
        assert report["verdict"] in ({"refused"} if code == 1 else {"fits", "compactable"})
        assert err_j == ""


VALID = [
    b'[{"kind": "note", "text": "a"}, {"kind": "constraint", "text": "never b", "sealed": true}]',
    b'{"budget_tokens": 5, "entries": [{"kind": "plan", "text": "do c", "id": "p"}]}',
    b'{"kind": "note", "text": "a"}\n{"kind": "negative_fact", "text": "tried d"}\n',
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A valid pad with a few bytes inserted, deleted or replaced."""
    data = bytearray(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(data)))
        how = draw(st.sampled_from(["insert", "delete", "replace"]))
        byte = draw(st.binary(min_size=1, max_size=2))
        if how == "insert":
            data[i:i] = byte
        elif how == "delete":
            del data[i : i + len(byte)]
        else:
            data[i : i + len(byte)] = byte
    return bytes(data)


@FUZZ
@given(data=st.binary(max_size=200) | mutated(), ext=st.sampled_from([".json", ".jsonl"]))
def test_fuzz_arbitrary_bytes(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, ext: str
) -> None:
    path = tmp_path_factory.mktemp("bytes") / f"pad{ext}"
    path.write_bytes(data)
    check_any(path)


KEYS = [
    "kind",
    "text",
    "sealed",
    "id",
    "derived_from",
    "op",
    "entries",
    "budget_tokens",
    "encoding",
]
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and infinities too: json writes them, and reads them back
    st.text(max_size=10),
    st.sampled_from(["note", "constraint", "loss_record", "", "cl100k_base", "o200k_base"]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), inner, max_size=5),
    ),
    max_leaves=12,
)


@FUZZ
@given(value=json_values, ext=st.sampled_from([".json", ".jsonl"]), ascii_=st.booleans())
def test_fuzz_arbitrary_json_values(
    tmp_path_factory: pytest.TempPathFactory, value: Any, ext: str, ascii_: bool
) -> None:
    if ext == ".json":
        text = json.dumps(value, indent=1, ensure_ascii=ascii_)
    else:
        items = value if isinstance(value, list) else [value]
        text = "".join(json.dumps(item, ensure_ascii=ascii_) + "\n" for item in items)
    path = tmp_path_factory.mktemp("values") / f"pad{ext}"
    path.write_text(text, encoding="utf-8")
    check_any(path)


def test_nan_and_infinity_are_kept_as_unknown_values(tmp_path: Path) -> None:
    path = tmp_path / "pad.json"
    path.write_text('[{"kind": "note", "text": "x", "score": NaN, "max": Infinity}]')
    entry = formats.load(str(path)).pad.entries[0]
    assert math.isnan(entry.raw["score"]) and entry.raw["max"] == math.inf
