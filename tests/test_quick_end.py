"""The test run's output ends with pytest's summary and nothing alarming before it: a worker
ends within execnet's 5 s once it has reported, so no KeyboardInterrupt is sent into it (see
``tests/conftest.py``: ``pytest_sessionfinish``)."""

from __future__ import annotations

import gc
import itertools

import pytest

from tests.conftest import pytest_sessionfinish


def test_after_the_session_the_collector_has_nothing_left_to_walk() -> None:
    kept = [[n] for n in range(200_000)]  # what a session leaves: many live containers
    kept.append(kept)  # (and a cycle)
    garbage = [[] for _ in range(10_000)]
    for a, b in itertools.pairwise(garbage):
        a.append(b)
        b.append(a)
    del garbage
    assert len(gc.get_objects()) > 200_000
    try:
        pytest_sessionfinish(pytest.Session.__new__(pytest.Session))
        # pytest's last collections, after the worker reported, walk only what is new
        assert len(gc.get_objects()) < 5_000
        assert gc.get_freeze_count() > 200_000
    finally:
        gc.unfreeze()
    del kept
