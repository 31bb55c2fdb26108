"""A persistent count cache: the tokens and claims of each distinct text of one pad (and the
rules at risk of each entry), kept between runs in one file, so that a re-run pays only for
the texts it has not seen.

One file per pad (and encoding) in ``$XDG_CACHE_HOME/padtui/`` (else ``~/.cache/padtui/``).
A text is found by a hash of its bytes; the file's header names what the counts depend on
(the encoding, tiktoken's version, padtui's claim rules, the cut of long runs), and a file
that names anything else, or fails its checksum, or cannot be read, is passed over as if
absent. The checksum is keyed by a secret of the user's kept outside the cache folder
(:func:`cache_key`), so a file padtui did not write is passed over too; only a regular file
is read, never through a symlink. Writing is by atomic replace, and a failure to write (a
full disk, a read-only folder) is passed over too: the cache can only make a command
faster, never fail it. The files are safe to delete at any time.

The file also keeps the order of the pad's texts, and of its entries, as last asked for,
cut into runs with a hash of each (``sequences.runs``): a re-run on a pad as it was finds
every row in place by its long runs, and one on a pad that changed in a few places finds the
rows of the runs it had too, hashing only the texts of the runs that changed to find theirs.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import sys
import threading
from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, repeat
from typing import Any, cast

from padtui.core.counting.tokens import DEFAULT_ENCODING, MAX_RUN, TokenCounter
from padtui.core.rules.claims import CLAIM_RULES
from padtui.core.rules.finder import RuleRows
from padtui.core.sequences import runs
from padtui.core.sequences.runs import Runs
from padtui.core.storage import fsio

FORMAT = 5
_MAGIC = b"padtui-counts\n"
_KEY = 16  # bytes of a text's hash
_SUM = 32  # bytes of the file's checksum (BLAKE2b of all that precedes it)
LIMIT = 250_000  # texts (and entries' rules) kept in one file: about 6 MiB (and 4 MiB)
_MAX_RULES = 16 << 20  # bytes of the rules found (as JSON): more are not kept
# (and the order of the texts last asked for, and of the entries whose rules were: a row each)
# (and each order's runs: a run holds at least a quarter of its size of items, but the last
# of a list, and the last short run of each long one)
_MAX_RUNS = 8 + (LIMIT // (runs.RUN // 4) + 2 * (LIMIT // (runs.LONG // 4)) + 8) * (4 + _KEY)
_MAX_FILE = len(_MAGIC) + 4096 + LIMIT * (_KEY + 8 + _KEY + 8) + 2 * _MAX_RUNS + _MAX_RULES + _SUM
UNKNOWN = 0xFFFFFFFF  # a count not known (a text whose tokens, or claims, were not asked)
_ZEROS = bytes.maketrans(b"123456789", b"000000000")
# an ASCII digit beside a character that may be a numeral of another script: "1٣" is one
# piece of numerals whose tokens depend on which digit it holds
_MIXED_DIGITS = re.compile(r"[0-9][^\x00-\x7f]|[^\x00-\x7f][0-9]")


def cache_folder() -> str:
    """``$XDG_CACHE_HOME/padtui``, else ``~/.cache/padtui`` (a relative XDG_CACHE_HOME is
    ignored, as the XDG specification says)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "padtui")


KEY_FILE = "count-cache.key"
_KEY_BYTES = 32
_keys: dict[str, bytes | None] = {}  # the key of each state folder, once read


def cache_key() -> bytes | None:
    """The secret the count cache's files are checksummed with: 32 random bytes in
    ``count-cache.key`` in padtui's state folder (not the cache folder), made on first use,
    mode 0600. None where it cannot be read or made as such (another user's, open to
    others, not a regular file): no count cache is read or written then."""
    from padtui.core.storage.journal import state_dir

    path = os.path.join(state_dir(), KEY_FILE)
    if path not in _keys:
        key = _read_key(path)
        if key is None and not os.path.lexists(path):
            with contextlib.suppress(OSError):
                os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
                fd = os.open(path, flags, 0o600)
                try:
                    os.write(fd, secrets.token_bytes(_KEY_BYTES))
                finally:
                    os.close(fd)
            key = _read_key(path)
        _keys[path] = key
    return _keys[path]


def _read_key(path: str) -> bytes | None:
    try:
        fd, st = fsio.open_regular(path, follow=False)
    except OSError:
        return None
    try:
        if st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
            return None
        key = os.read(fd, _KEY_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return key if len(key) == _KEY_BYTES else None


def _checksum(body: bytes, key: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=_SUM, key=key).digest()


def tiktoken_version() -> str:
    """tiktoken's version, read from its package without importing it (an import costs
    more than a whole re-run that finds every count cached)."""
    from padtui.core.counting.modules import module_file

    origin = module_file("tiktoken")
    if origin is None:
        return "?"
    try:
        with open(origin, encoding="utf-8") as f:
            found = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", f.read(), re.M)
    except OSError:
        return "?"
    return found.group(1) if found else "?"


def digits_uniform(enc: Any) -> bool:
    """Does every text cost the same tokens whatever its ASCII digits are, where none is
    next to a character beyond ASCII (such a text's digits then need no place in its hash: a
    loss record's time stamp changes on every run, and its count must not make a re-run
    load the encoder, nor its text the cache file be written again)?

    True when the encoding's pre-tokenizer puts digits only in pieces of one to three
    numerals (``\\p{N}{1,3}``, cl100k_base's and o200k_base's), where its piece boundaries
    depend on characters' classes alone, and each of the 1,110 strings of one to three ASCII
    digits is one token."""
    pattern = getattr(enc, "_pat_str", None)
    if not isinstance(pattern, str):
        return False
    rest = re.sub(r"\(\?[=!][^()]*\)", "", pattern)  # look-aheads consume nothing
    rest = re.sub(r"\[\^[^\]]*\\p\{N\}[^\]]*\]", "", rest)  # classes that exclude numerals
    if rest.count(r"\p{N}") != 1 or r"\p{N}{1,3}" not in rest:
        return False
    if any(s in rest for s in ("[^", ".", r"\S", r"\w", r"\W", r"\d", r"\D", r"\P", "0-9")):
        return False
    numbers = [f"{n:0{width}d}" for width in (1, 2, 3) for n in range(10**width)]
    try:
        return all(len(enc.encode_ordinary(s)) == 1 for s in numbers)
    except Exception:  # an encoder that cannot say: no
        return False


@functools.lru_cache(maxsize=8)
def _digits_of(enc: Any) -> bool:
    """``digits_uniform``, asked once of each encoder (a fleet's every pad asks it: 5 ms)."""
    return digits_uniform(enc)


_ZERO_DIGITS = str.maketrans("123456789", "000000000")


def digit_shape(text: str) -> str:
    """``text`` with every ASCII digit a 0 where none is next to a character beyond ASCII,
    else ``text`` itself: what a count cache keys a text by when its encoding's counts
    do not depend on such digits (see :func:`digits_uniform` and ``CountCache.key``)."""
    return text.translate(_ZERO_DIGITS) if _shaped(text) else text


def _shaped(text: str) -> bool:
    """Are ``text``'s digits put in their shape (no digit beside a character beyond ASCII)?"""
    return text.isascii() or _MIXED_DIGITS.search(text) is None


def digit_shapes(texts: Sequence[str]) -> list[str]:
    """The :func:`digit_shape` of each text (texts all of ASCII, in one pass)."""
    joined = "\0".join(texts)
    if joined.isascii():
        shapes = joined.translate(_ZERO_DIGITS).split("\0")
        if len(shapes) == len(texts):  # (else a text holds the joint)
            return shapes
    return list(map(digit_shape, texts))


def digits_free(counter: TokenCounter) -> bool:
    """Does ``counter`` count every text as it counts its :func:`digit_shape`? Its count
    cache says (the file's, or the encoder's answer), else its encoder if it is loaded; False
    where neither can say."""
    store = counter.store
    if store is not None and store.digits is not None:
        return store.digits
    enc = counter.loaded_encoder
    return enc is not None and _digits_of(enc)


class CountCache:
    """The counts of one pad's texts with one encoding: those read from its file, and those
    learnt in this run, written back by :meth:`save`.

    ``path`` None keeps nothing between runs. ``digits`` (see :func:`digits_uniform`) is the
    file's, else unknown (None) until the encoder is loaded: ``learn_encoder`` sets it.

    Threads may share one (the inspector examines versions in a worker while its screen's
    thread plans a trial): each method holds the cache's lock."""

    def __init__(self, path: str | None, encoding: str) -> None:
        self.path = path
        self.encoding = encoding
        self.digits: bool | None = None
        self._meta = {
            "format": FORMAT,
            "encoding": encoding,
            "tiktoken": tiktoken_version(),
            "claims": CLAIM_RULES,
            "max_run": MAX_RUN,
        }
        self._old_rows: dict[bytes, tuple[int, int]] | None = {}  # (None: not made yet)
        self._keys: list[bytes] = []  # the file's rows: their keys, tokens and claims
        self._tokens, self._claims = array("I"), array("I")
        # the texts the file's largest lookup asked for: their runs, and each one's row
        self._order: tuple[Runs, array[int]] | None = None
        # this run's largest lookup: its texts, each one's key (None: the file's order's
        # keys) with whether digits were kept out of them, and the texts' runs
        self._asked: tuple[Sequence[str], list[bytes | None] | None, bool, Runs | None] | None
        self._asked = None
        self._keyed: dict[str, bytes] = {}  # texts hashed ahead of ``save`` (see ``prepare``)
        self._keyed_digits = False
        self._hit: dict[bytes, tuple[int, int]] = {}
        # the tokens, and the claims, of texts learnt in this run (a dict each: most puts
        # give one of the two for many texts, taken in at once)
        self._new_tokens: dict[str, int] = {}
        self._new_claims: dict[str, int] = {}
        self._lock = threading.RLock()
        self._saving = threading.Lock()
        self.rules = RuleTable(self._lock)
        self._puts = 0  # calls of put so far ...
        self._saved: tuple[int, int] = (0, 0)  # ... and of put and rules.put when last saved
        self._key = cache_key() if path is not None else None
        if self._key is None:
            self.path = None
        elif path is not None:
            self._read(path)

    @classmethod
    def for_pad(cls, pad_path: str, encoding: str, folder: str | None = None) -> CountCache:
        """The cache of the pad at ``pad_path`` (its file named after the pad's absolute
        path and the encoding)."""
        return cls(os.path.join(folder or cache_folder(), file_name(pad_path, encoding)), encoding)

    @property
    def warm(self) -> bool:
        """Were counts read from a file (so a run may well not need the encoder)?"""
        return bool(self._keys)

    @property
    def _old(self) -> dict[bytes, tuple[int, int]]:
        """The file's counts by key, made when first asked for (a re-run of a pad as it was
        finds its rows in place and never asks)."""
        if self._old_rows is None:
            rows = zip(self._tokens, self._claims, strict=True)
            self._old_rows = dict(zip(self._keys, rows, strict=True))
        return self._old_rows

    @property
    def changed(self) -> bool:
        """Has this run learnt anything the file does not hold (not saved since)?"""
        with self._lock:
            fresh = (self._puts, self.rules.puts) != self._saved
            return fresh and bool(self._new_tokens or self._new_claims or self.rules.new)

    def learn_encoder(self, enc: Any) -> None:
        """The encoder has been loaded: what it says of digits, if the file did not."""
        with self._lock:
            if self.digits is None:
                self.digits = _digits_of(enc)

    def key(self, text: str, digits: bool) -> bytes:
        data = text.encode("utf-8", "surrogatepass")
        if digits and _shaped(text):  # (as digit_shape does; bytes translate faster)
            data = data.translate(_ZEROS)
        return hashlib.blake2b(data, digest_size=_KEY).digest()

    def lookup(self, texts: Sequence[str]) -> list[tuple[int | None, int | None]]:
        """(tokens, claims) of each text, None where not known."""
        with self._lock:
            return self._lookup(texts)

    def _lookup(self, texts: Sequence[str]) -> list[tuple[int | None, int | None]]:
        new_tokens, new_claims, hit = self._new_tokens, self._new_claims, self._hit
        new = new_tokens or new_claims
        digits = bool(self.digits)
        largest = self._asked is None or len(texts) >= len(self._asked[0])
        now: Runs | None = None
        again: list[tuple[int, int, int]] = []
        if not new and self._order is not None:
            before = self._order[0]
            lengths, digest = list(map(len, texts)), runs.texts_digest(texts)
            now, again = runs.match(b"texts", lengths, digest, before)
            if now is before and len(texts) == len(self._order[1]):
                rows = self._in_order()
                if rows is not None:  # (the texts an earlier run asked for: no text hashed)
                    if largest:
                        self._asked = (texts, None, digits, now)
                    return rows
        if not self._keys:  # (no file: what this run learnt is found by the text itself)
            if largest:
                self._asked = (texts, [None] * len(texts), digits, now)
            if not new:
                return [(None, None)] * len(texts)
            return list(zip(map(new_tokens.get, texts), map(new_claims.get, texts), strict=True))
        old = self._old
        got: list[tuple[int | None, int | None]] = [(None, None)] * len(texts)
        keys: list[bytes | None] = [None] * len(texts)
        blake, zeros, shaped = hashlib.blake2b, _ZEROS, _shaped
        for i in self._found_again(again, got, keys) if again else range(len(texts)):
            text = texts[i]
            if new and (text in new_tokens or text in new_claims):
                got[i] = (new_tokens.get(text), new_claims.get(text))
                continue
            data = text.encode("utf-8", "surrogatepass")
            if digits and shaped(text):
                data = data.translate(zeros)
            k = keys[i] = blake(data, digest_size=_KEY).digest()
            row = old.get(k)
            if row is not None:
                hit[k] = row
                got[i] = _known(*row) if UNKNOWN in row else row
        if largest:
            self._asked = (texts, keys, digits, now)
        return got

    def _found_again(
        self,
        again: list[tuple[int, int, int]],
        got: list[tuple[int | None, int | None]],
        keys: list[bytes | None],
    ) -> list[int]:
        """Fill ``got`` and ``keys`` for the runs of texts the file's order had too, where
        each row holds both counts; the places of the texts left."""
        assert self._order is not None
        at, done = self._order[1], 0
        left: list[int] = []
        for start, end, was in again:
            rows = at[was : was + end - start]
            tokens = array("I", map(self._tokens.__getitem__, rows))
            claims = array("I", map(self._claims.__getitem__, rows))
            if UNKNOWN in tokens or UNKNOWN in claims:
                continue
            left += range(done, start)
            got[start:end] = zip(tokens, claims, strict=True)
            keys[start:end] = map(self._keys.__getitem__, rows)
            done = end
        left += range(done, len(got))
        return left

    def _in_order(self) -> list[tuple[int | None, int | None]] | None:
        """The rows of the file's order, if each holds both counts."""
        if self._order is None:
            return None
        at = self._order[1]
        tokens = array("I", map(self._tokens.__getitem__, at))
        claims = array("I", map(self._claims.__getitem__, at))
        if UNKNOWN in tokens or UNKNOWN in claims:
            return None
        return list(zip(tokens, claims, strict=True))

    def put(
        self, texts: Iterable[str], tokens: Iterable[int | None], claims: Iterable[int | None]
    ) -> None:
        """Remember counts of texts (None: not known; a known count is never forgotten).
        Counts the file holds already are not new (a re-run that learns nothing else does
        not write it)."""
        texts, tokens, claims = list(texts), list(tokens), list(claims)  # (before the lock)
        if not len(texts) == len(tokens) == len(claims):
            raise ValueError("put: as many texts as counts of each kind are needed")
        with self._lock:
            if self._old:
                rows = zip(texts, tokens, claims, strict=True)
                new = [i for i, row in enumerate(rows) if self._new_to_file(*row)]
                if len(new) < len(texts):
                    texts = [texts[i] for i in new]
                    tokens = [tokens[i] for i in new]
                    claims = [claims[i] for i in new]
            if not texts:  # (a put that learns nothing leaves the file as it was)
                return
            _learn(self._new_tokens, texts, tokens)
            _learn(self._new_claims, texts, claims)
            self._puts += 1

    def _new_to_file(self, text: str, n: int | None, c: int | None) -> bool:
        """Are these counts of ``text`` not the file's (learnt in this run, or not held)?
        Those it holds are marked found (``_hit``)."""
        if text in self._new_tokens or text in self._new_claims:
            return True
        k = self.key(text, bool(self.digits))
        had = self._hit.get(k) or self._old.get(k)
        if had is not None and n in (None, had[0]) and c in (None, had[1]):
            self._hit[k] = had
            return False
        return True

    def prepare(self, texts: Sequence[str], until: Callable[[], bool]) -> None:
        """Hash ``texts`` as ``save`` will, a few at a time until ``until()`` says stop: what
        a thread that waits for the encoder may do meanwhile."""
        with self._lock:
            digits = bool(self.digits)
            if digits != self._keyed_digits:
                self._keyed, self._keyed_digits = {}, digits
            keyed = self._keyed
        for at in range(0, len(texts), 256):
            if until():
                return
            chunk = texts[at : at + 256]
            keys = [self.key(t, digits) for t in chunk]
            with self._lock:
                if keyed is self._keyed:
                    keyed.update(zip(chunk, keys, strict=True))
        with self._lock:
            asked = self._asked
        if asked is not None and asked[3] is None and not until():
            now = text_runs(asked[0])  # (for the file)
            with self._lock:
                if self._asked is asked:
                    self._asked = (*asked[:3], now)

    def save(self) -> bool:
        """Write the file if this run learnt anything; never raises. False when it could
        not be written (the counts are then simply counted again next time)."""
        if self.path is None:
            return True
        with self._saving:  # (one write at a time: they share a temporary file's name)
            with self._lock:
                if not self.changed:
                    return True
                try:
                    data = self._encode()
                except (ValueError, OverflowError):
                    return False
                assert self._key is not None  # (no key: no path)
                data += _checksum(data, self._key)
                saved = self._puts, self.rules.puts
            try:  # (written with the lock let go: the other threads count on meanwhile)
                _replace(self.path, data)
            except OSError:
                return False
            with self._lock:
                self._saved = saved  # (what they learnt meanwhile is saved next time)
            return True

    # --- the file ---------------------------------------------------------------------------

    def _encode(self) -> bytes:
        digits = bool(self.digits)
        if self._keyed_digits != digits:
            self._keyed, self._keyed_digits = {}, digits
        keyed = self._keyed  # (the keys hashed here are kept too: a later save needs them)
        new_tokens, new_claims = self._new_tokens, self._new_claims
        # (a first run's: every text whose claims were counted had its tokens counted too;
        # a loss record's pieces, their tokens alone)
        if new_claims.keys() <= new_tokens.keys():
            texts = list(new_tokens)
        else:
            texts = list(dict.fromkeys(chain(new_tokens, new_claims)))
        keys = list(map(keyed.get, texts))
        if None in keys:
            for i, text in enumerate(texts):
                if keys[i] is None:
                    keys[i] = keyed[text] = self.key(text, digits)
        learnt_tokens = list(map(new_tokens.get, texts, repeat(UNKNOWN)))
        learnt_claims = list(map(new_claims.get, texts, repeat(UNKNOWN)))
        asked = self._order_keys(keyed, digits)
        if not (self._hit or self._old) and len(set(keys)) == len(keys) <= LIMIT:
            # a first run's (no counts of an earlier one, each text its own key): the rows
            # as learnt, in columns
            row_keys = cast(list[bytes], keys)
            tokens, claims = array("I", learnt_tokens), array("I", learnt_claims)
        else:
            rows = self._rows(cast(list[bytes], keys), learnt_tokens, learnt_claims, asked)
            row_keys = list(rows)
            counts = list(zip(*rows.values(), strict=True)) or [(), ()]
            tokens, claims = array("I", counts[0]), array("I", counts[1])
        order = b""
        if self._asked is not None and asked is not None:
            now = self._asked[3] or text_runs(self._asked[0])
            order = _order_bytes(now, asked, row_keys)
        kept = self.rules.kept()
        none_keys = [k for k, found in kept.items() if not found]
        some = [[k.hex(), found] for k, found in kept.items() if found]
        found_json = json.dumps(some, ensure_ascii=False).encode("utf-8", "surrogatepass")
        rules_order = b""
        if len(found_json) > _MAX_RULES:  # (those entries' rules are found again next time)
            found_json = b"[]"
        elif self.rules.order is not None:
            table = [*none_keys, *(k for k, found in kept.items() if found)]
            rules_order = _order_bytes(*self.rules.order, table)
        meta = dict(self._meta, digits=digits, n=len(row_keys), order=sys.byteorder)
        meta.update(rules_none=len(none_keys), rules_json=len(found_json))
        meta.update(asked=len(order), rules_asked=len(rules_order))
        head = _MAGIC + json.dumps(meta, sort_keys=True).encode() + b"\n"
        body = b"".join(
            [head, *row_keys, tokens.tobytes(), claims.tobytes(), *none_keys, found_json]
        )
        return body + order + rules_order  # (the checksum is added by ``save``)

    def _rows(
        self,
        keys: list[bytes],
        learnt_tokens: list[int],
        learnt_claims: list[int],
        asked: list[bytes] | None,
    ) -> dict[bytes, tuple[int, int]]:
        """The file's rows, by key: what an earlier run's file held merged with what this
        run learnt (a text's count learnt now over one it held), up to the limit."""
        new = zip(keys, zip(learnt_tokens, learnt_claims, strict=True), strict=True)
        rows: dict[bytes, tuple[int, int]]
        if not (self._hit or self._old):  # (no counts of an earlier run: each as learnt)
            rows = dict(new)
        else:
            rows = {}
            for k, (n, c) in new:
                before = self._hit.get(k) or self._old.get(k)
                if before is not None:  # (counts asked in this run and in an earlier one)
                    n = before[0] if n == UNKNOWN else n
                    c = before[1] if c == UNKNOWN else c
                rows[k] = (n, c)
        if len(rows) + len(self._old) <= LIMIT:  # (all kept: the file's, then this run's)
            return {**self._old, **rows}
        # this run's first, then those it found, those it asked for, the others
        for k, row in self._hit.items():
            rows.setdefault(k, row)
        for k in asked or ():
            if k in self._old:
                rows.setdefault(k, self._old[k])
        for k, row in self._old.items():
            if len(rows) >= LIMIT:
                break
            rows.setdefault(k, row)
        if len(rows) > LIMIT:
            rows = dict(list(rows.items())[:LIMIT])
        return rows

    def _order_keys(self, keyed: dict[str, bytes], digits: bool) -> list[bytes] | None:
        """The key of each text of this run's largest lookup (None: there was none, or
        it was too long to keep)."""
        if self._asked is None or not 0 < len(self._asked[0]) <= LIMIT:
            return None
        texts, keys, was, _runs = self._asked
        if keys is None and self._order is not None:  # (the file's order, found again)
            return [self._keys[i] for i in self._order[1]]
        if keys is None or was != digits:
            keys = list(map(keyed.get, texts))
        elif None in keys:
            keys = [k if k is not None else keyed.get(t) for t, k in zip(texts, keys, strict=True)]
        if None in keys:
            keys = [
                k if k is not None else self.key(t, digits)
                for t, k in zip(texts, keys, strict=True)
            ]
        return cast(list[bytes], keys)

    def _read(self, path: str) -> None:
        """The counts of the file, if it is whole and made for what this run counts."""
        try:
            fd, st = fsio.open_regular(path, follow=False)  # (not a FIFO, not a symlink)
        except OSError:
            return
        try:
            data = b"" if st.st_size > _MAX_FILE else os.read(fd, _MAX_FILE + 1)
        except OSError:
            return
        finally:
            os.close(fd)
        if len(data) > _MAX_FILE or len(data) < len(_MAGIC) + _SUM:
            return
        body, digest = data[:-_SUM], data[-_SUM:]
        if self._key is None or not body.startswith(_MAGIC):
            return
        if not hmac.compare_digest(_checksum(body, self._key), digest):
            return
        end = body.find(b"\n", len(_MAGIC))
        try:
            meta = json.loads(body[len(_MAGIC) : end])
        except ValueError:
            return
        if not isinstance(meta, dict) or any(meta.get(k) != v for k, v in self._meta.items()):
            return
        digits = meta.get("digits")
        sizes = [meta.get("n"), meta.get("rules_none"), meta.get("rules_json")]
        if meta.get("order") != sys.byteorder or type(digits) is not bool:
            return
        if not all(type(x) is int and x >= 0 for x in sizes):
            return
        sizes += [meta.get("asked"), meta.get("rules_asked")]
        if not all(type(x) is int and x >= 0 for x in sizes):
            return
        n, none, found_len, asked, rules_asked = cast(list[int], sizes)
        rows = body[end + 1 :]
        if len(rows) != n * (_KEY + 8) + none * _KEY + found_len + asked + rules_asked:
            return
        keys = [rows[i : i + _KEY] for i in range(0, n * _KEY, _KEY)]
        tokens, claims = array("I"), array("I")
        tokens.frombytes(rows[n * _KEY : n * (_KEY + 4)])
        claims.frombytes(rows[n * (_KEY + 4) : n * (_KEY + 8)])
        at = n * (_KEY + 8)
        at_order = at + none * _KEY + found_len
        found = _rule_rows(rows[at + none * _KEY : at_order])
        if found is None:
            return
        none_keys = [rows[i : i + _KEY] for i in range(at, at + none * _KEY, _KEY)]
        table = none_keys + list(found)
        try:
            order = _read_order(rows[at_order : at_order + asked], n)
            rules_order = _read_order(rows[at_order + asked :], len(table))
        except ValueError:
            return
        self._keys, self._tokens, self._claims, self._order = keys, tokens, claims, order
        self._old_rows = None
        self.rules.old = dict.fromkeys(none_keys, ())
        self.rules.old.update(found)
        if rules_order is not None:
            self.rules.order = (rules_order[0], list(map(table.__getitem__, rules_order[1])))
        self.digits = digits


class PadCounters:
    """The token counters of one pad, one per encoding, each with the pad's count cache of
    that encoding (its file read when it is first asked for): what a live view of the pad
    counts with, from any of its threads. ``save`` writes back what they learnt."""

    def __init__(self, pad_path: str, folder: str | None = None) -> None:
        self.pad_path = pad_path
        self.folder = folder
        self._counters: dict[str, TokenCounter] = {}
        self._lock = threading.Lock()

    def counter(self, encoding: str | None = None) -> TokenCounter:
        """The counter of ``encoding`` (the default one if None); raises
        ``EncodingUnavailable`` as ``counter_for`` does, when it must load the encoder."""
        name = encoding or DEFAULT_ENCODING
        with self._lock:
            counter = self._counters.get(name)
            if counter is None:
                store = CountCache.for_pad(self.pad_path, name, self.folder)
                counter = self._counters[name] = TokenCounter(name, store)
            return counter

    def save(self) -> bool:
        """Write each cache that learnt something; never raises (False: one could not be
        written, and its counts are counted again next time)."""
        with self._lock:
            counters = list(self._counters.values())
        return all([c.store.save() for c in counters if c.store is not None])


class RuleTable:
    """The rules of entries (``padtui.core.rules.finder.find_rules``'s memo), by ``rule_key``;
    ``lock``: its count cache's."""

    def __init__(self, lock: threading.RLock | None = None) -> None:
        self.old: dict[bytes, RuleRows] = {}
        self.hit: dict[bytes, RuleRows] = {}
        self.new: dict[bytes, RuleRows] = {}
        self.puts = 0
        # the entries last asked for at once (``find_rules``): their runs, and each one's key
        self.order: tuple[Runs, list[bytes]] | None = None
        self._order_here = 0  # the entries of the longest list asked for in this run
        self._order_hit = False  # (found again: its rows are kept before the others)
        self._lock = lock if lock is not None else threading.RLock()

    def get(self, key: bytes) -> RuleRows | None:
        with self._lock:
            rows = self.new.get(key)
            if rows is None:
                rows = self.old.get(key)
                if rows is not None:
                    self.hit[key] = rows
            return rows

    def put(self, key: bytes, rows: RuleRows) -> None:
        with self._lock:
            self.puts += 1
            self.new[key] = rows

    def runs(self) -> Runs | None:
        """The runs of the entries last asked for at once."""
        with self._lock:
            return None if self.order is None else self.order[0]

    def found_again(
        self, before: Runs, again: list[tuple[int, int, int]], n: int
    ) -> tuple[list[bytes | None], list[RuleRows | None]]:
        """The key and rules of each of ``n`` entries in the runs ``again`` that the entries
        last asked for had too (``before``, their runs: ``sequences.runs.match``), None for
        the others, and for all if another list was asked for since."""
        keys: list[bytes | None] = [None] * n
        found: list[RuleRows | None] = [None] * n
        with self._lock:
            if self.order is None or self.order[0] is not before:
                return keys, found
            kept, new, old = self.order[1], self.new, self.old
            for start, end, was in again:
                these = kept[was : was + end - start]
                rows = [new[k] if k in new else old.get(k) for k in these]
                if None not in rows:
                    keys[start:end], found[start:end] = these, rows
                    self._order_hit = True
            return keys, found

    def keep_order(self, runs: Runs, keys: list[bytes]) -> None:
        """The entries just asked for: their ``entry_runs`` and each one's ``rule_key``.
        The longest list asked for in this run is kept (a live view asking again for a few
        changed entries leaves the whole pad's order to the next run)."""
        with self._lock:
            if self._order_here <= len(keys) <= LIMIT:
                self.order, self._order_here = (runs, keys), len(keys)

    def kept(self) -> dict[bytes, RuleRows]:
        """What the file keeps: this run's, then earlier ones, up to the limit."""
        with self._lock:
            if len(self.new) + len(self.old) <= LIMIT:
                return {**self.old, **self.new}
            out = dict(self.new)
            hit = list(self.hit.items())
            if self._order_hit and self.order is not None:
                hit += [(k, self.old[k]) for k in self.order[1] if k in self.old]
            for k, rows in (*hit, *self.old.items()):
                if len(out) >= LIMIT:
                    break
                out.setdefault(k, rows)
            return out


def _rule_rows(data: bytes) -> dict[bytes, RuleRows] | None:
    """The entries' rules as written (``[[key, [[text, kind, place, heading, lent], ...]],
    ...]``); None unless every one is so."""
    try:
        found = json.loads(data.decode("utf-8", "surrogatepass")) if data else []
        out: dict[bytes, RuleRows] = {}
        for key, rows in found:
            got = []
            for text, kind, place, heading, lent in rows:
                if not (isinstance(text, str) and isinstance(kind, str)):
                    return None
                if not all(x is None or isinstance(x, str) for x in (place, heading, lent)):
                    return None
                got.append((text, kind, place, heading, lent))
            out[bytes.fromhex(key)] = tuple(got)
    except (ValueError, TypeError):
        return None
    return out


def text_runs(texts: Sequence[str]) -> Runs:
    """The runs of a list of texts (see ``padtui.core.sequences.runs``)."""
    return runs.of(b"texts", list(map(len, texts)), runs.texts_digest(texts))


def _order_bytes(order: Runs, keys: Sequence[bytes], rows: Sequence[bytes]) -> bytes:
    """An order as the file keeps it: how many long and short runs, where each ends, each
    one's hash, then the row of each key among ``rows`` (the rows' keys as written);
    nothing when one is not among them."""
    n = len(keys)
    if n <= len(rows) and rows[:n] == keys:  # (a first run's: the rows in its order)
        at: Sequence[int | None] = range(n)
    else:
        where = dict(zip(rows, range(len(rows)), strict=True))
        at = list(map(where.get, keys))
    if not at or None in at or not order.valid(len(at)):
        return b""
    counts = [len(order.ends), len(order.short_ends)]
    return b"".join(
        [
            array("I", [*counts, *order.ends, *order.short_ends]).tobytes(),
            *order.digests,
            *order.short_digests,
            array("I", cast(Sequence[int], at)).tobytes(),
        ]
    )


def _read_order(data: bytes, n: int) -> tuple[Runs, array[int]] | None:
    """An order as written (see ``_order_bytes``), None for none; raises ValueError for one
    that is not (runs that do not tile its rows, a row beyond the ``n`` written)."""
    if not data:
        return None
    counts = array("I")
    counts.frombytes(data[:8])
    if len(counts) != 2:
        raise ValueError("not an order")
    long, short = counts
    ends = array("I")
    ends.frombytes(data[8 : 8 + 4 * (long + short)])
    at = 8 + 4 * (long + short)
    digests = [data[i : i + _KEY] for i in range(at, at + _KEY * (long + short), _KEY)]
    at += _KEY * (long + short)
    if len(ends) != long + short or len(data) < at or (len(data) - at) % 4:
        raise ValueError("not an order")
    rows = array("I")
    rows.frombytes(data[at:])
    order = Runs(ends[:long], digests[:long], ends[long:], digests[long:])
    if not rows or max(rows) >= n or not order.valid(len(rows)):
        raise ValueError("not an order")
    return order, rows


def _learn(learnt: dict[str, int], texts: list[str], counts: list[int | None]) -> None:
    """Take in the known ``counts`` of ``texts`` (None: not known, nothing taken)."""
    if None not in counts:  # (most puts: in one call)
        learnt.update(zip(texts, cast(list[int], counts), strict=True))
    elif counts.count(None) < len(counts):  # (else none known: a put of the other kind)
        learnt.update((t, n) for t, n in zip(texts, counts, strict=True) if n is not None)


def _known(n: int, c: int) -> tuple[int | None, int | None]:
    return (None if n == UNKNOWN else n, None if c == UNKNOWN else c)


def file_name(pad_path: str, encoding: str) -> str:
    """The cache file of a pad: its name (readable, shortened) and a hash of its absolute
    path and the encoding."""
    where = os.path.abspath(pad_path)
    digest = hashlib.blake2b(
        f"{where}\0{encoding}".encode("utf-8", "surrogatepass"), digest_size=8
    ).hexdigest()
    name = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(where))[:40].lstrip(".")
    return f"{name or 'pad'}-{digest}.counts"


def _replace(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` by atomic replace: a temporary file (0600) in the same
    folder, renamed over it (a reader sees the old file or the new, never a part)."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    tmp = f"{path}.{secrets.token_hex(4)}.tmp"  # (made anew: never one planted there)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, 0o600)
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
