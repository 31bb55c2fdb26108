"""The settle rule of live reads (``store.read`` with ``quiet``): a version is taken only once
every look at the file over the settle interval found the same file with the same bytes. Each
writer here acts between two looks (in the read's pause), so every case is exact, not a
race."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from padtui.core.errors import PadError
from padtui.core.storage import store

QUIET = 0.02

CONSTRAINT = {"kind": "constraint", "id": "c1", "text": "Never force-push main.", "sealed": True}


def lines(*texts: str) -> bytes:
    notes = [{"kind": "note", "id": f"n{i}", "text": t} for i, t in enumerate(texts)]
    return "".join(json.dumps(e) + "\n" for e in [*notes, CONSTRAINT]).encode()


@pytest.fixture
def during_pauses(monkeypatch: pytest.MonkeyPatch) -> Callable[[Iterator[None]], list[float]]:
    """Run one step of a writer in each pause of the read (then pause for real)."""

    def install(writer: Iterator[None]) -> list[float]:
        pauses: list[float] = []
        sleep = store.time.sleep

        def pause(seconds: float) -> None:
            pauses.append(seconds)
            next(writer, None)
            sleep(seconds)

        monkeypatch.setattr(store.time, "sleep", pause)
        return pauses

    return install


def test_a_jsonl_prefix_that_parses_is_not_taken_while_the_save_goes_on(
    tmp_path: Path, during_pauses: Callable[[Iterator[None]], list[float]]
) -> None:
    pad = tmp_path / "pad.jsonl"
    whole = lines("first", "second", "third")
    prefix = whole[: whole.index(b"\n") + 1]  # one whole line: a pad that parses, alone
    with open(pad, "wb") as f:  # the save has begun: O_TRUNC, a first chunk
        f.write(prefix)
    assert store.read(str(pad)).pad.entries[0].text == "first"  # an unsettled read takes it

    def rest() -> Iterator[None]:
        with open(pad, "r+b") as f:
            f.seek(len(prefix))
            for i in range(len(prefix), len(whole), 40):
                f.write(whole[i : i + 40])
                f.flush()
                yield

    pauses = during_pauses(rest())
    snap = store.read(str(pad), quiet=QUIET)
    assert snap.data == whole
    assert [e.id for e in snap.pad.entries] == ["n0", "n1", "n2", "c1"]
    # (a look each interval: the first pause is what the parse of the first look left of
    # it, the last what the quiet interval had left)
    step = QUIET / store.SETTLE_LOOKS
    assert len(pauses) > 2 and set(pauses[1:-1]) == {step}
    assert 0 <= pauses[0] <= step and 0 <= pauses[-1] <= step


def test_a_file_left_alone_is_taken_when_the_quiet_interval_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pad = tmp_path / "pad.jsonl"
    pad.write_bytes(lines("first"))
    micros, pauses = [0], []  # (a clock in whole microseconds: no rounding drift)
    overrun = [12_000]  # the first pause overruns, as a large pad's first parse does

    def pause(seconds: float) -> None:
        pauses.append(seconds)
        micros[0] += round(seconds * 1e6) + (overrun.pop() if overrun else 0)

    monkeypatch.setattr(store.time, "monotonic", lambda: micros[0] / 1e6)
    monkeypatch.setattr(store.time, "sleep", pause)
    assert store.read(str(pad), quiet=QUIET).pad.entries[0].text == "first"
    # the last look is made when the interval ends, not a whole step after it
    step = QUIET / store.SETTLE_LOOKS
    assert pauses == [pytest.approx(step), pytest.approx(QUIET - step - 0.012)]


def test_a_same_size_rewrite_with_the_same_mtime_is_told_by_its_bytes(
    tmp_path: Path, during_pauses: Callable[[Iterator[None]], list[float]]
) -> None:
    pad = tmp_path / "pad.jsonl"
    old, new = lines("alpha", "bravo"), lines("gamma", "delta")
    assert len(old) == len(new)
    pad.write_bytes(old)
    st = os.stat(pad)

    def rewrite() -> Iterator[None]:  # r+: no truncation, the size never changes
        with open(pad, "r+b") as f:
            f.write(new[: len(new) // 2])
        os.utime(pad, ns=(st.st_atime_ns, st.st_mtime_ns))  # within one timestamp tick
        yield
        with open(pad, "r+b") as f:
            f.seek(len(new) // 2)
            f.write(new[len(new) // 2 :])
        os.utime(pad, ns=(st.st_atime_ns, st.st_mtime_ns))

    during_pauses(rewrite())
    assert store.read(str(pad), quiet=QUIET).data == new


def test_a_pad_deleted_and_written_anew_within_the_interval_is_not_gone(
    tmp_path: Path, during_pauses: Callable[[Iterator[None]], list[float]]
) -> None:
    pad = tmp_path / "pad.jsonl"
    pad.unlink(missing_ok=True)

    def write_anew() -> Iterator[None]:
        pad.write_bytes(lines("back"))
        yield

    during_pauses(write_anew())
    assert store.read(str(pad), quiet=QUIET).pad.entries[0].text == "back"
    pad.unlink()
    with pytest.raises(PadError, match="no such file"):
        store.read(str(pad), quiet=QUIET)  # gone at both looks: gone


def test_a_file_that_never_settles_is_still_being_written_not_a_version(
    tmp_path: Path, during_pauses: Callable[[Iterator[None]], list[float]]
) -> None:
    pad = tmp_path / "pad.jsonl"
    pad.write_bytes(lines("0"))

    def forever() -> Iterator[None]:
        n = 0
        while True:
            n += 1
            pad.write_bytes(lines(str(n)))
            yield

    pauses = during_pauses(forever())
    with pytest.raises(PadError, match="still being written"):
        store.read(str(pad), quiet=QUIET, limit=0.2)
    assert len(pauses) <= 0.2 / (QUIET / store.SETTLE_LOOKS) + 1  # bounded by the limit


def test_a_settled_torn_file_is_unreadable_and_named(tmp_path: Path) -> None:
    pad = tmp_path / "pad.json"
    pad.write_text('{"entries": [', encoding="utf-8")
    with pytest.raises(PadError, match="invalid JSON"):
        store.read(str(pad), quiet=QUIET)


def test_no_pad_file_is_refused_at_once_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pad.json"
    os.mkfifo(fifo)  # no writer: an open without O_NONBLOCK would wait forever
    with pytest.raises(PadError, match="not a regular file"):
        store.read(str(fifo), quiet=QUIET)
    with pytest.raises(PadError, match="not a regular file"):
        store.read(str(fifo))


def test_a_settled_read_of_the_version_given_is_that_version_not_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watch's first look at a large pad finds the version on screen: no parse."""
    path = tmp_path / "pad.json"
    path.write_text(json.dumps([{"kind": "note", "text": "One."}]), "utf-8")
    first = store.read(str(path), quiet=0.01)
    parsed: list[str] = []
    real = store.parse

    def counting(*args: object, **kwargs: object) -> object:
        parsed.append(str(args[0]))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "parse", counting)
    again = store.read(str(path), quiet=0.01, previous=first.file)
    assert again.file is first.file and parsed == []
    path.write_text(json.dumps([{"kind": "note", "text": "Two."}]), "utf-8")
    changed = store.read(str(path), quiet=0.01, previous=first.file)
    assert changed.pad.entries[0].text == "Two." and parsed == [str(path)]


def test_bytes_parsed_while_the_rule_waits_are_not_taken_once_they_changed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    during_pauses: Callable[[Iterator[None]], list[float]],
) -> None:
    """The first bytes seen are parsed while the rule waits; a save after that look is
    parsed again, and what settles is the save's."""
    path = tmp_path / "pad.json"
    path.write_text(json.dumps([{"kind": "note", "text": "One."}]), "utf-8")
    parsed: list[bytes] = []
    real = store.parse

    def counting(*args: object, **kwargs: object) -> object:
        parsed.append(bytes(args[1]))  # type: ignore[call-overload]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "parse", counting)
    first = path.read_bytes()
    saved = json.dumps([{"kind": "note", "text": "Two."}]).encode()

    def save() -> Iterator[None]:
        path.write_bytes(saved)
        yield

    during_pauses(save())
    snap = store.read(str(path), quiet=QUIET)
    assert snap.data == saved and snap.pad.entries[0].text == "Two."
    assert parsed == [first, saved]  # (each parsed once: the first while the rule waited)
