"""The count cache: counts read back equal fresh ones, for any text; a damaged or stale file
is passed over; a failure to write is no failure; an unchanged pad needs no encoder."""

from __future__ import annotations

import errno
import os
import sys
import tempfile
import threading
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from padtui.core.compaction.plan import plan
from padtui.core.counting import countcache
from padtui.core.counting.countcache import CountCache, digits_uniform
from padtui.core.counting.tokens import DEFAULT_ENCODING, TokenCounter, counter_for, encoder_threads
from padtui.core.model import Pad, make_entry
from padtui.core.rules.claims import split_claims
from tests.core.test_runs import EDITS, edited

FRESH = counter_for()
PROPS = settings(max_examples=200, deadline=None)

# texts: any characters, and many of the kinds a pad holds (numbers, stamps, marks, lines)
pieces = st.one_of(
    st.text(max_size=30),
    st.from_regex(r"[0-9]{1,12}", fullmatch=True),
    st.sampled_from(["2026-12-01T00:15:03Z", " ", "\n", ". ", "; ", "1. ", "- ", "٣", "½", "x"]),
    st.sampled_from(["retry", " the", " ledger", " export", "Never", " replica", " hello"]),
    st.text(alphabet="0123456789 .-:TZ\n", max_size=40),
)
texts = st.lists(pieces, max_size=8).map("".join)


def _fresh(text: str) -> tuple[int, int]:
    return FRESH.count(text), len(split_claims(text))


def _cached_counter(folder: str, encoding: str = DEFAULT_ENCODING) -> TokenCounter:
    return TokenCounter(encoding, CountCache(os.path.join(folder, "pad.counts"), encoding))


def _warm(folder: str, texts: list[str]) -> None:
    counter = _cached_counter(folder)
    counter.start_with_claims(texts)()
    assert counter.store is not None and counter.store.save()


def _digits_changed(text: str, seed: int) -> str:
    return "".join(str((int(c) + seed) % 10) if c in "0123456789" else c for c in text)


@PROPS
@given(
    seen=st.lists(texts, min_size=1, max_size=6),
    asked=st.lists(texts, max_size=6),
    seed=st.integers(1, 9),
    swaps=st.lists(st.tuples(st.integers(0), st.sampled_from("0a e.Z٣½ \n")), max_size=6),
)
def test_cached_counts_and_claims_equal_fresh_ones(
    seen: list[str], asked: list[str], seed: int, swaps: list[tuple[int, str]]
) -> None:
    """Texts counted in an earlier run, texts that differ from those only in their digits
    (a loss record's time stamp) or in one character, and texts never seen: each gets its
    fresh counts."""
    with tempfile.TemporaryDirectory() as folder:
        _warm(folder, seen)
        counter = _cached_counter(folder)
        assert counter.store is not None and counter.store.warm
        near = [_swapped(t, at, c) for t, (at, c) in zip(seen, swaps, strict=False) if t]
        wanted = seen + [_digits_changed(t, seed) for t in seen] + near + asked
        tokens, claims = counter.start_with_claims(wanted)()
        assert list(zip(tokens, claims, strict=True)) == [_fresh(t) for t in wanted]
        assert [counter.count(t) for t in wanted] == tokens


@pytest.mark.parametrize("twins", [False, True])
def test_a_first_runs_file_of_a_large_pad_reads_back_every_count(twins: bool) -> None:
    """A first run over more texts than one batch writes its file in columns, each text a
    row; where two texts share a key (they differ in their digits alone), row by row, and a
    text that comes twice has one row. Either way the next run finds every count, the
    encoder not loaded."""

    def word(i: int) -> str:  # (no digits: no two of them share a key)
        return "".join(chr(97 + i // 26**k % 26) for k in range(3))

    texts = [f"Entry {word(i)}: the ledger export, {word(i * 7)} step." for i in range(1500)]
    if twins:
        texts += ["Batch 7 of the export failed.", "Batch 9 of the export failed.", texts[11]]
    with tempfile.TemporaryDirectory() as folder:
        first = _cached_counter(folder)
        first.start_with_claims(texts)()
        assert first.store is not None and first.store.save()
        again = _cached_counter(folder)
        tokens, claims = again.start_with_claims(texts)()
        assert list(zip(tokens, claims, strict=True)) == [_fresh(t) for t in texts]
        assert not again.loaded


@PROPS
@given(
    seen=st.lists(texts, min_size=1, max_size=6),
    moved=st.permutations(range(6)),
    at=st.integers(0),
    c=st.sampled_from("0a e.Z٣½ \n"),
)
def test_the_texts_of_an_earlier_run_in_any_order_get_their_fresh_counts(
    seen: list[str], moved: list[int], at: int, c: str
) -> None:
    """A pad asked for again as it was (its counts found at once), with its entries moved,
    or with one text changed in one character: each text gets its fresh counts, run after
    run."""
    with tempfile.TemporaryDirectory() as folder:
        _warm(folder, seen)
        order = [seen[i] for i in moved if i < len(seen)]
        one = [*seen]
        one[at % len(one)] = _swapped(one[at % len(one)] or "x", at, c)
        for wanted in (seen, order, seen, one, one, seen):
            counter = _cached_counter(folder)
            tokens, claims = counter.start_with_claims(wanted)()
            assert list(zip(tokens, claims, strict=True)) == [_fresh(t) for t in wanted]
            assert counter.store is not None and counter.store.save()


@settings(max_examples=40, deadline=None)
@given(before=st.lists(texts, min_size=1, max_size=200), changes=EDITS)
def test_a_long_list_edited_gets_its_fresh_counts_run_after_run(
    before: list[str], changes: list[tuple[str, int, str]]
) -> None:
    """A pad's texts found again run by run, after texts changed, added, removed or moved
    (and as they were before, and after again): each text gets its fresh counts."""
    after = edited(before, changes)
    with tempfile.TemporaryDirectory() as folder:
        _warm(folder, before)
        for wanted in (after, before, after, after):
            counter = _cached_counter(folder)
            tokens, claims = counter.start_with_claims(wanted)()
            assert list(zip(tokens, claims, strict=True)) == [_fresh(t) for t in wanted]
            assert counter.store is not None and counter.store.save()


@settings(max_examples=40, deadline=None)
@given(
    before=st.lists(
        st.tuples(st.sampled_from(["note", "constraint", "fact"]), texts, st.booleans()),
        min_size=1,
        max_size=150,
    ),
    changes=EDITS,
)
def test_rules_of_a_long_pad_edited_are_those_found_afresh(
    before: list[tuple[str, str, bool]], changes: list[tuple[str, int, str]]
) -> None:
    """An entry's rules found again run by run follow its kind, text and headings: after
    entries changed, added, removed or moved, the rules read back are those found afresh."""
    from padtui.core.rules.finder import find_rules

    def pad_of(rows: list[tuple[str, str, bool]]) -> Pad:
        made = [make_entry(kind, f"Never {text}" if rule else text) for kind, text, rule in rows]
        return Pad.of(replace(e, context=("Lessons",) if i % 5 else ()) for i, e in enumerate(made))

    keyed = {text: row for row in before for text in [row[1]]}
    after = [keyed.get(t, ("note", t, True)) for t in edited([r[1] for r in before], changes)]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "pad.counts")
        for rows in (before, after, before, after):
            cache = CountCache(path, DEFAULT_ENCODING)
            pad = pad_of(rows)
            assert find_rules(pad, memo=cache.rules) == find_rules(pad)
            assert cache.save()


@pytest.mark.parametrize("ahead", ["none", "some", "all"])
def test_texts_hashed_ahead_of_the_save_read_back_as_fresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ahead: str
) -> None:
    """Many new texts encoded in a thread, hashed for the file meanwhile (as many as the
    wait allows): every count read back is the fresh one."""
    from padtui.core.counting import bpe, tokens

    monkeypatch.setattr(tokens, "_BATCH_MIN", 2)
    monkeypatch.setattr(bpe, "SMALL", 0)  # (tiktoken's encoder, in a thread)
    wanted = [f"Step {i}: export page {i * 7} of the ledger; naïve ٣{i} 1٣" for i in range(700)]
    stop = {"none": lambda: True, "some": iter([False, True]).__next__, "all": lambda: False}
    real = CountCache.prepare
    monkeypatch.setattr(
        CountCache, "prepare", lambda self, texts, until: real(self, texts, stop[ahead])
    )
    first = _cached_counter(str(tmp_path))
    first.start_with_claims(wanted)()
    assert first.store is not None and first.store.save()
    again = _cached_counter(str(tmp_path))
    tokens_, claims = again.start_with_claims(wanted[::-1])()
    assert list(zip(tokens_, claims, strict=True)) == [_fresh(t) for t in wanted[::-1]]
    assert not again.loaded


def _swapped(text: str, at: int, c: str) -> str:
    at %= len(text)
    return text[:at] + c + text[at + 1 :]


def test_cl100k_base_digits_cost_the_same_whatever_they_are() -> None:
    assert digits_uniform(FRESH._enc)


def test_an_encoding_that_keeps_digit_runs_whole_is_keyed_by_its_digits() -> None:
    class RunsOfDigits:  # the pre-tokenizer of r50k_base and p50k_base
        _pat_str = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

        def encode_ordinary(self, text: str) -> list[int]:
            return [0]

    assert not digits_uniform(RunsOfDigits())
    store = CountCache(None, "r50k_base")
    store.digits = False
    assert store.key("at 2026-12-01", False) != store.key("at 2026-12-02", False)


# --- damaged and stale files ---------------------------------------------------------------

SEEN = ["export the ledger. Then retry 3 times.", "1. fetch\n2. parse", "2026-12-01T00:15:03Z"]


def _good_file(folder: str) -> bytes:
    _warm(folder, SEEN)
    return Path(folder, "pad.counts").read_bytes()


def _passed_over(folder: str) -> None:
    counter = _cached_counter(folder)
    assert counter.store is not None and not counter.store.warm  # (nothing read)
    tokens, claims = counter.start_with_claims(SEEN)()
    assert list(zip(tokens, claims, strict=True)) == [_fresh(t) for t in SEEN]


@PROPS
@given(at=st.integers(min_value=0), bit=st.integers(min_value=0, max_value=7))
def test_a_flipped_bit_anywhere_is_passed_over(at: int, bit: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        data = bytearray(_good_file(folder))
        data[at % len(data)] ^= 1 << bit
        Path(folder, "pad.counts").write_bytes(bytes(data))
        _passed_over(folder)


@PROPS
@given(keep=st.integers(min_value=0))
def test_a_truncated_file_is_passed_over(keep: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        data = _good_file(folder)
        Path(folder, "pad.counts").write_bytes(data[: keep % len(data)])
        _passed_over(folder)


def test_a_wrong_checksum_or_an_overlong_file_is_passed_over(tmp_path: Path) -> None:
    data = _good_file(str(tmp_path))
    path = tmp_path / "pad.counts"
    path.write_bytes(data[:-32] + bytes(32))
    _passed_over(str(tmp_path))
    path.write_bytes(data + b"\0")
    _passed_over(str(tmp_path))


@pytest.mark.parametrize(
    "damage",
    [
        lambda ends: [*ends[:-1], ends[-1] + 1],  # (beyond the rows)
        lambda ends: [ends[1], ends[0], *ends[2:]],  # (not in order)
        lambda ends: [0, *ends[1:]],  # (an empty run)
    ],
)
def test_an_order_whose_runs_do_not_tile_its_rows_is_passed_over(
    tmp_path: Path, damage: Any
) -> None:
    """A file whose checksum holds but whose order of texts is cut wrongly (as a file of
    another program might be): passed over, its counts found afresh."""
    import json
    from array import array

    many = [f"Step {i}: export the ledger" + " again" * (i % 7) for i in range(300)]
    _warm(str(tmp_path), many)
    body = Path(tmp_path, "pad.counts").read_bytes()[:-32]
    meta = json.loads(body[len(countcache._MAGIC) : body.index(b"\n", len(countcache._MAGIC))])
    at = len(body) - meta["rules_asked"] - meta["asked"]
    long, short = array("I", body[at : at + 8])
    ends = array("I", body[at + 8 : at + 8 + 4 * (long + short)])
    assert long > 1 and ends[long - 1] == ends[-1] == len(many)  # (the long runs', the short)
    ends[:long] = array("I", damage(list(ends[:long])))
    body = body[: at + 8] + ends.tobytes() + body[at + 8 + 4 * (long + short) :]
    key = countcache.cache_key()
    assert key is not None
    Path(tmp_path, "pad.counts").write_bytes(body + countcache._checksum(body, key))
    counter = _cached_counter(str(tmp_path))
    assert counter.store is not None and not counter.store.warm  # (nothing read)
    tokens, claims = counter.start_with_claims(many)()
    assert list(zip(tokens, claims, strict=True)) == [_fresh(t) for t in many]


@pytest.mark.parametrize(
    "stale",
    [
        ("tiktoken_version", lambda: "0.13.0"),
        ("CLAIM_RULES", "0-00000000"),
        ("MAX_RUN", 1024),
        ("FORMAT", 0),
    ],
)
def test_a_file_made_for_other_counting_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stale: tuple[str, Any]
) -> None:
    """A file written with another tiktoken, other claim rules, another cut of long runs
    or another layout (its checksum right) is not read."""
    with monkeypatch.context() as m:
        m.setattr(countcache, stale[0], stale[1])
        _good_file(str(tmp_path))
    _passed_over(str(tmp_path))


def test_a_file_of_another_encoding_is_passed_over(tmp_path: Path) -> None:
    _good_file(str(tmp_path))
    store = CountCache(str(tmp_path / "pad.counts"), "o200k_base")
    assert not store.warm and store.lookup(SEEN) == [(None, None)] * len(SEEN)


# --- writing ---------------------------------------------------------------------------------


def test_the_file_is_private_and_replaced_whole(tmp_path: Path) -> None:
    _good_file(str(tmp_path))
    assert os.listdir(tmp_path) == ["pad.counts"]  # (no temporary file left)
    assert (tmp_path / "pad.counts").stat().st_mode & 0o777 == 0o600


def test_a_full_disk_or_a_folder_that_cannot_be_made_is_no_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    counter = TokenCounter(DEFAULT_ENCODING, CountCache(str(blocked / "pad.counts"), "x"))
    counter.count("some text")
    assert counter.store is not None and counter.store.save() is False

    def full(fd: int, data: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    counter = _cached_counter(str(tmp_path))
    counter.count("some text")
    with monkeypatch.context() as m:
        m.setattr(os, "write", full)
        assert counter.store is not None and counter.store.save() is False
    assert os.listdir(tmp_path) == ["a-file"]  # (the temporary file is removed)


def test_the_file_keeps_at_most_its_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(countcache, "LIMIT", 5)
    _warm(str(tmp_path), [f"old text {c}" for c in "abcdefgh"])
    _warm(str(tmp_path), ["new text"])
    store = CountCache(str(tmp_path / "pad.counts"), DEFAULT_ENCODING)
    found = [n for n, _c in store.lookup(["new text", *(f"old text {c}" for c in "abcdefgh")])]
    assert found[0] is not None and sum(n is not None for n in found) == 5


# --- what it is for ----------------------------------------------------------------------------


def _pad(n: int) -> Pad:
    entries = [make_entry("constraint", "Never write to the replica.", sealed=True)]
    entries.append(make_entry("loss_record", "Nothing dropped yet.", sealed=True, id="loss-0"))
    entries += [
        make_entry("note", f"Note {i}: export page {i * 7} of the ledger.") for i in range(n)
    ]
    return Pad.of(entries, budget_tokens=n * 12)


def test_an_unchanged_pad_is_planned_without_the_encoder(tmp_path: Path) -> None:
    """A re-check of a pad already counted loads no encoder, though its loss record (with
    the time in it) is new text: and it gives the plan a fresh count gives."""
    pad = _pad(300)
    first = _cached_counter(str(tmp_path))
    plan(pad, None, "strict", first, now=datetime(2026, 12, 1, 0, 15, 3, tzinfo=UTC))
    assert first.store is not None and first.store.save()
    later = datetime(2027, 1, 2, 13, 47, 59, tzinfo=UTC)
    again = _cached_counter(str(tmp_path))
    got = plan(pad, None, "strict", again, now=later)
    assert not again.loaded
    fresh = plan(pad, None, "strict", TokenCounter(DEFAULT_ENCODING), now=later)
    assert got.loss_record is not None and got.dropped
    assert (got.message, got.record_tokens, got.claims_before, got.claims_after) == (
        fresh.message,
        fresh.record_tokens,
        fresh.claims_before,
        fresh.claims_after,
    )
    assert got.as_json() == fresh.as_json()


def test_an_unchanged_pad_re_checked_later_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    """Its loss record differs only in the time (its quotes hold characters beyond ASCII):
    nothing new is learnt, and the file is not written again."""
    pad = Pad.of(
        [*_pad(300).entries, make_entry("note", "Café ١٢ naïve… résumé " * 20)],
        budget_tokens=3000,
    )
    first = _cached_counter(str(tmp_path))
    plan(pad, None, "strict", first, now=datetime(2026, 12, 1, 0, 15, 3, tzinfo=UTC))
    assert first.store is not None and first.store.save()
    again = _cached_counter(str(tmp_path))
    got = plan(pad, None, "strict", again, now=datetime(2027, 1, 2, 13, 47, 59, tzinfo=UTC))
    assert got.loss_record is not None and "…" in got.loss_record.text
    assert again.store is not None and not again.store.changed and not again.loaded


@PROPS
@given(text=texts)
def test_a_texts_digit_shape_is_keyed_and_counted_as_the_text(text: str) -> None:
    """What a strict plan counts a record's piece by (``digit_shape``), where its counter's
    counts do not depend on digits: the same key, and the same tokens."""
    store = CountCache(None, DEFAULT_ENCODING)
    shape = countcache.digit_shape(text)
    assert store.key(shape, True) == store.key(text, True)
    assert FRESH.count(shape) == FRESH.count(text)
    assert len(shape) == len(text) and set(shape) - set(text) <= {"0"}
    assert countcache.digit_shapes([text, "e-12 (note, 3 tokens)", text]) == [
        shape,
        "e-00 (note, 0 tokens)",
        shape,
    ]
    assert countcache.digit_shapes([]) == []


def test_whether_counts_depend_on_digits_is_the_cache_files_else_the_encoders() -> None:
    assert countcache.digits_free(FRESH)  # (no count cache: its encoder says)
    store = CountCache(None, DEFAULT_ENCODING)
    counter = TokenCounter(DEFAULT_ENCODING, store)
    assert not counter.loaded and not countcache.digits_free(counter)  # (nothing says yet)
    store.digits = False  # (a file made with an encoding whose counts depend on them)
    assert not countcache.digits_free(counter)
    store.digits = True
    assert countcache.digits_free(counter)


@PROPS
@given(
    asked=st.lists(texts, max_size=8),
    learnt=st.lists(st.tuples(texts, st.integers(0, 99), st.none() | st.integers(0, 9))),
    digits=st.booleans(),
)
def test_a_file_with_nothing_read_before_is_written_as_any_other(
    asked: list[str], learnt: list[tuple[str, int, int | None]], digits: bool
) -> None:
    """With no file read, a file's rows are built at once: the same bytes as row by row."""
    cache = CountCache(None, DEFAULT_ENCODING)
    cache.digits = digits
    cache.lookup(asked)
    cache.prepare(asked[: len(asked) // 2], lambda: False)  # (some texts hashed ahead)
    if learnt:
        cache.put(*zip(*learnt, strict=True))
    cache.put(asked, [len(t) for t in asked], [None] * len(asked))
    at_once = cache._encode()
    cache._hit = {b"\xff" * 16: (0, 0)}  # (as if a row had been found: built row by row)
    assert cache._encode() == at_once


def test_digits_beside_numerals_of_other_scripts_are_keyed_by_their_digits() -> None:
    store = CountCache(None, DEFAULT_ENCODING)
    assert store.key("at 12:05 — naïve", True) == store.key("at 98:76 — naïve", True)
    assert store.key("total 1٣", True) != store.key("total 2٣", True)
    assert store.key("٣1 left", True) != store.key("٣2 left", True)


@pytest.mark.parametrize(
    ("cores", "threads"), [({0}, 1), ({0, 1}, 1), ({0, 1, 2}, 3), (set(range(32)), 8)]
)
def test_one_encoder_thread_unless_more_than_two_cores(
    monkeypatch: pytest.MonkeyPatch, cores: set[int], threads: int
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: cores, raising=False)
    assert encoder_threads() == threads


SAMPLES = Path(__file__).resolve().parents[2] / "sample_pads"


@pytest.mark.parametrize(
    "name", sorted(p.name for p in SAMPLES.iterdir() if p.is_file() and p.suffix != ".af")
)
def test_rules_at_risk_read_back_equal_those_found(tmp_path: Path, name: str) -> None:
    """The rules at risk a plan lists come from the cache on a re-run: the same as found
    afresh, for the rule map they were found with (another map's are found anew)."""
    from padtui.core.formats import load_pad
    from padtui.core.rules.finder import RuleMap

    pad = load_pad(str(SAMPLES / name))
    maps = [None, RuleMap.default().extended(["notes", "plan"], replace=True)]
    for rule_map in maps:
        fresh = plan(pad, None, "strict", FRESH, rule_map=rule_map).rules_at_risk
        at_once = plan(pad, None, "strict", FRESH, rule_map=rule_map, find_rules_now=True)
        assert at_once.rules_at_risk == fresh
        for run in ("found, then kept", "read back"):
            counter = _cached_counter(str(tmp_path))
            now = run == "read back"  # (found with the plan, or when asked for)
            got = plan(
                pad, None, "strict", counter, rule_map=rule_map, find_rules_now=now
            ).rules_at_risk
            assert counter.store is not None
            assert bool(counter.store.rules.new) == (run == "found, then kept")
            assert counter.store.save()
            assert got == fresh


def test_rules_read_back_follow_each_entry_s_kind_and_headings(tmp_path: Path) -> None:
    """The same texts in the same order, one entry of another kind or under another
    heading: its rules are found anew (a rule by place, or none), as afresh."""
    texts = ["Use the staging replica.", "Export page 4 of the ledger.", "Ask Hana first."]

    def pad(kind: str, heading: str) -> Pad:
        entries = [make_entry("note", t) for t in texts]
        entries[0] = make_entry(kind, texts[0])
        entries[2] = replace(entries[2], context=(heading,))
        return Pad.of(entries, budget_tokens=10)

    for kind, heading in [("note", "Notes"), ("constraint", "Notes"), ("note", "Rules")] * 2:
        counter = _cached_counter(str(tmp_path))
        got = plan(pad(kind, heading), None, "strict", counter, find_rules_now=True)
        fresh = plan(pad(kind, heading), None, "strict", FRESH).rules_at_risk
        assert got.rules_at_risk == fresh
        assert counter.store is not None and counter.store.save()
    assert {r.entry.kind for r in fresh} == {"note"} and len(fresh) == 1


def test_the_pad_a_compaction_writes_is_checked_without_the_encoder(tmp_path: Path) -> None:
    """The loss record a plan appends is kept with its count: a check of the pad its commit
    writes (the kept entries and the record) finds every count in the cache, the same as
    counted afresh."""
    first = _cached_counter(str(tmp_path))
    made = plan(_pad(300), None, "strict", first)
    assert made.loss_record is not None and first.store is not None and first.store.save()
    written = Pad.of([*made.kept, made.loss_record], budget_tokens=made.budget)
    again = _cached_counter(str(tmp_path))
    got = plan(written, None, "strict", again)
    assert not again.loaded
    fresh = plan(written, None, "strict", TokenCounter(DEFAULT_ENCODING))
    assert got.as_json() == fresh.as_json() and got.verdict == "fits"


def test_rules_beyond_the_file_s_bound_are_found_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from padtui.core.formats import load_pad

    pad = load_pad(str(SAMPLES / "retry-5xx-under-pressure.json"))
    fresh = plan(pad, None, "strict", FRESH).rules_at_risk
    monkeypatch.setattr(countcache, "_MAX_RULES", 10)
    for run in ("found, then not kept", "found again"):
        counter = _cached_counter(str(tmp_path))
        assert plan(pad, None, "strict", counter, find_rules_now=True).rules_at_risk == fresh
        assert counter.store is not None and counter.store.rules.new, run
        assert counter.store.save() and counter.store.warm == (run == "found again")


def test_threads_share_one_cache_and_lose_no_count(tmp_path: Path) -> None:
    """The inspector's worker counts new versions while its screen's thread plans a trial
    and the cache is written back: every count learnt reaches the file, none raises."""
    path = str(tmp_path / "pad.counts")
    cache = CountCache(path, "cl100k_base")
    cache.digits = False
    failures: list[BaseException] = []
    start = threading.Barrier(4)

    def learn(who: int) -> None:
        try:
            start.wait()
            for i in range(3000):
                text = f"thread {who} text {i}"
                cache.put([text], [i], [who])
                assert cache.lookup([text]) == [(i, who)]
                cache.rules.put(cache.key(text, False), ())
        except BaseException as exc:  # (reported below)
            failures.append(exc)

    learners = [threading.Thread(target=learn, args=(w,)) for w in range(3)]

    def save() -> None:
        try:
            start.wait()
            while any(t.is_alive() for t in learners):
                assert cache.save()
        except BaseException as exc:
            failures.append(exc)

    threads = [*learners, threading.Thread(target=save)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (the threads take turns as often as can be)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []
    assert cache.save()
    again = CountCache(path, "cl100k_base")
    texts = [f"thread {w} text {i}" for w in range(3) for i in range(3000)]
    assert again.lookup(texts) == [(i, w) for w in range(3) for i in range(3000)]
    assert len(again.rules.old) == len(texts)


def test_a_few_entries_asked_for_again_leave_the_whole_pads_order_to_the_next_run(
    tmp_path: Path,
) -> None:
    """The inspector asks for the rules of a version's changed entries alone: the order the
    file keeps is still the whole pad's, so the next run finds the pad by one hash."""
    from padtui.core.rules.finder import find_rules

    pad = Pad.of(make_entry("note", f"Never touch table {i}.") for i in range(40))
    path = str(tmp_path / "counts")
    cache = CountCache(path, DEFAULT_ENCODING)
    whole = find_rules(pad, memo=cache.rules)
    find_rules(replace(pad, entries=pad.entries[3:5]), memo=cache.rules)  # (a few again)
    assert cache.save()
    again = CountCache(path, DEFAULT_ENCODING)
    assert again.rules.order is not None and len(again.rules.order[1]) == len(pad.entries)
    assert find_rules(pad, memo=again.rules) == whole
    assert again.rules._order_hit  # (found by the whole pad's one hash)


def test_runs_found_against_a_list_since_replaced_give_no_rules(tmp_path: Path) -> None:
    """Threads share a cache: runs matched against the entries last asked for, when another
    thread has asked for a longer list since, find nothing (its keys are another list's)."""
    from padtui.core.rules.finder import find_rules

    first = Pad.of(make_entry("note", f"Never touch table {i}.") for i in range(40))
    longer = Pad.of(make_entry("note", f"Always read page {i}.") for i in range(80))
    cache = CountCache(str(tmp_path / "counts"), DEFAULT_ENCODING)
    find_rules(first, memo=cache.rules)
    before = cache.rules.runs()
    assert before is not None
    keys, found = cache.rules.found_again(before, [(0, 40, 0)], 40)
    assert None not in keys and None not in found
    find_rules(longer, memo=cache.rules)
    assert cache.rules.found_again(before, [(0, 40, 0)], 40) == ([None] * 40, [None] * 40)
