"""A model-based test: an agent and padtui take turns on one pad, in any order hypothesis picks.

The agent writes (by rename, in place, or in place with the same size and mtime, which only
the content hash tells apart); padtui reads, commits plans made from old or current reads,
externalizes, and restores journaled versions. Invariants after every step:

* the file holds exactly what the model says the last successful write left;
* no acknowledged content is lost: every version padtui ever saw or wrote is on disk now
  or comes back, byte for byte, from the journal.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
)

from padtui.core.compaction import sealing
from padtui.core.compaction.plan import plan
from padtui.core.counting.tokens import counter_for
from padtui.core.errors import PadError
from padtui.core.model import make_entry
from padtui.core.storage import store
from padtui.core.storage.journal import Journal

KINDS = ["constraint", "negative_fact", "loss_record", "plan", "note", "hypothesis", "note"]
WORDS = ["never", "retry", "the", "billing", "API", "step", "done", "5xx", "staging", "plan"]

entry = st.builds(
    lambda kind, words, sealed, n, extra: {
        "kind": kind,
        "text": " ".join(words),
        "id": f"e{n}",
        **({"sealed": True} if sealed else {}),
        **({"x-extra": extra} if extra is not None else {}),
    },
    st.sampled_from(KINDS),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12),
    st.booleans(),
    st.integers(0, 40),
    st.none() | st.integers(0, 9),
)
entries = st.lists(entry, max_size=8, unique_by=lambda e: e["id"])


class AgentAndPadtui(RuleBasedStateMachine):
    snapshots = Bundle("snapshots")

    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.mkdtemp(prefix="padtui-stateful-")
        self.old_state = os.environ.get("XDG_STATE_HOME")
        os.environ["XDG_STATE_HOME"] = os.path.join(self.dir, "state")  # never the real one
        self.path = os.path.join(self.dir, "pad.json")
        self.jpath = os.path.join(self.dir, "journal.jsonl")
        self.journal = Journal(self.jpath, self.path)
        self.disk = self._doc([{"kind": "plan", "text": "start", "id": "e0"}], 2)
        Path(self.path).write_bytes(self.disk)
        self.acknowledged: set[bytes] = set()  # every version padtui read or wrote

    def teardown(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
        if self.old_state is None:
            os.environ.pop("XDG_STATE_HOME", None)
        else:
            os.environ["XDG_STATE_HOME"] = self.old_state

    @staticmethod
    def _doc(items: list[dict], indent: int | None, filler: str = "") -> bytes:
        doc: dict = {"budget_tokens": 120, "entries": items}
        if filler:
            doc["x-filler"] = filler
        return json.dumps(doc, indent=indent).encode()

    # --- the agent ------------------------------------------------------------------------

    @rule(items=entries, indent=st.sampled_from([None, 2]))
    def agent_renames(self, items, indent):
        data = self._doc(items, indent)
        Path(self.path + ".agent").write_bytes(data)
        os.replace(self.path + ".agent", self.path)
        self.disk = data

    @rule(items=entries)
    def agent_rewrites_in_place(self, items):
        data = self._doc(items, None)
        with open(self.path, "wb") as f:
            f.write(data)
        self.disk = data

    @rule(items=entries)
    def agent_rewrites_same_size_same_mtime(self, items):
        """Same inode, same size, same mtime: only the bytes differ (if they do)."""
        size = len(self.disk)
        data = self._doc(items, None)
        if len(data) + 20 > size:
            return
        data = self._doc(items, None, "x" * (size - len(data) - 16))
        data += b" " * (size - len(data))
        assert len(data) == size
        before = os.stat(self.path)
        with open(self.path, "r+b") as f:
            f.write(data)
        os.utime(self.path, ns=(before.st_atime_ns, before.st_mtime_ns))
        event("same size, same mtime rewrite")
        after = os.stat(self.path)
        assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
            before.st_size,
            before.st_mtime_ns,
            before.st_ino,
        )
        self.disk = data

    # --- padtui ---------------------------------------------------------------------------

    @rule(target=snapshots)
    def padtui_reads(self):
        snap = store.read(self.path, journal=self.jpath)
        assert snap.data == self.disk
        self.acknowledged.add(snap.data)
        return snap

    def _write(self, snap, attempt) -> None:
        """Run a write made from ``snap``; check it against the model."""
        before = self.disk
        current = store.Stamp.of(os.stat(self.path), before)
        try:
            after = attempt()
        except store.Conflict:
            assert not snap.stamp.matches(current), "refused although nothing changed"
            event("compare-and-swap miss" + (" (bytes same)" if snap.data == before else ""))
            return
        if after.data == snap.data:  # nothing to change: nothing written
            event("nothing to write")
            return
        event("written")
        # written: so the pad was exactly the version it was made from
        assert snap.data == before, "a commit replaced a version it did not plan from"
        self.acknowledged |= {before, after.data}
        self.disk = after.data

    @rule(
        snap=snapshots,
        share=st.floats(0.2, 1.0),
        policy=st.sampled_from(["strict", "seed"]),
    )
    def padtui_commits_a_plan(self, snap, share, policy):
        total = sum(counter_for().count_many(e.text for e in snap.pad.entries))
        p = plan(snap.pad, budget=int(total * share), policy=policy)
        if p.refused:
            try:
                store.commit(snap, p, journal=self.jpath)
            except store.Refused:
                event("refused plan not written")
                return
            raise AssertionError("a refused plan was committed")
        self._write(snap, lambda: store.commit(snap, p, journal=self.jpath))

    @rule(snap=snapshots, words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=6))
    def padtui_writes_an_entry(self, snap, words):
        new = make_entry("note", " ".join(words), id=f"n{len(snap.pad.entries)}")
        self._write(snap, lambda: store.commit(snap, [*snap.pad.entries, new], journal=self.jpath))

    @rule(
        share=st.floats(0.2, 1.0),
        words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
        data=st.data(),
    )
    def padtui_reads_and_writes_at_once(self, share, words, data):
        """The common case: a fresh read, then one of padtui's writes made from it."""
        snap = self.padtui_reads()
        what = data.draw(st.sampled_from(["plan", "entry", "externalize"]))
        if what == "plan":
            self.padtui_commits_a_plan(snap, share, "strict")
        elif what == "entry":
            self.padtui_writes_an_entry(snap, words)
        else:
            self.padtui_externalizes(snap, data)

    @rule(snap=snapshots, data=st.data())
    def padtui_externalizes(self, snap, data):
        candidates = [e.label for e in snap.pad.entries if e.protected and not e.sealed]
        if not candidates:
            return
        labels = data.draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=3))
        self._write(snap, lambda: sealing.externalize(snap, labels, journal=self.jpath))

    @precondition(lambda self: os.path.exists(self.jpath))
    @rule(data=st.data())
    def padtui_restores(self, data):
        versions = [v.n for v in self.journal.versions() if v.parsed]
        if not versions:
            return
        n = data.draw(st.sampled_from(versions))
        before = self.disk
        try:
            after = store.restore(self.path, n, journal=self.jpath)
        except PadError:
            return
        event("restored")
        assert after.data == self.journal.data(n)
        self.acknowledged |= {before, after.data}
        self.disk = after.data

    # --- invariants -----------------------------------------------------------------------

    @invariant()
    def the_file_is_what_the_last_write_left(self):
        assert Path(self.path).read_bytes() == self.disk

    @invariant()
    def no_acknowledged_content_is_lost(self):
        for version in self.acknowledged:
            if version == self.disk:
                continue
            n = self.journal.find(version)
            assert n is not None, "a version padtui saw or wrote is gone"
            assert self.journal.data(n) == version

    @invariant()
    def no_temporary_file_is_left(self):
        assert not [n for n in os.listdir(self.dir) if store.TMP_TAG in n]


AgentAndPadtui.TestCase.settings = settings(
    max_examples=50,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_no_acknowledged_content_is_lost = AgentAndPadtui.TestCase
