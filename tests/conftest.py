"""What every test shares: nothing is written to the user's own cache folders; how many
workers ``-n auto`` starts; and a worker's quick end."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """$XDG_CACHE_HOME and $XDG_STATE_HOME, for the tests and the programs they start, are
    folders of this run (shared by all its tests): nothing a test runs may touch the user's
    own."""
    before = {name: os.environ.get(name) for name in ("XDG_CACHE_HOME", "XDG_STATE_HOME")}
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    # (and the state folder, where the count cache's key is kept, unless a test names one)
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """One worker more than the cores this process may use: many tests spend part of their
    time waiting (on a terminal in tmux, a folder watch, an fsync), and the extra worker keeps
    the cores busy meanwhile (the suite: 2 min 52 s with three on two cores, 3 min 27 s with
    two, at a load under 2)."""
    return len(os.sched_getaffinity(0)) + 1


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Collect the session's garbage now, and set what is left aside from the collector.

    A pytest-xdist worker reports that it has finished after this hook; from then on it has
    5 s to end (execnet's own limit), else execnet interrupts it with SIGINT. What it still
    runs then is mostly pytest's last search for unraisable exceptions: five full garbage
    collections, over every object the session left, 1.5-2 s each on a loaded machine (the
    pads and caches of a thousand tests). The KeyboardInterrupt landed in them and was
    printed, as an "exception ignored" warning and its traceback, just before the summary.
    Collected here, before the report, and frozen, those collections have nothing to walk."""
    gc.collect()
    gc.freeze()
