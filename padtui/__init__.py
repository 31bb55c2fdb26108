"""padtui: tell a declared compaction of an agent's scratchpad from a corrupting rewrite.

The Python API for scripts, CI and agents themselves::

    import padtui
    pf = padtui.load("pad.json")              # read a pad (bad input raises PadError)
    p = padtui.plan(pf.pad, budget=4000)      # a trial compaction; never raises
    report = padtui.audit(old_pad, new_pad)   # compaction or corruption?

``padtui.compact(scratchpad, budget_tokens, tokenize)`` is the seed document's reference
function, with its ``UnrecoverableCompactionError``.

Writing a pad safely (an agent can use this for its own saves too)::

    with padtui.lock("pad.json"):             # the lock padtui's commits take
        snap = padtui.read("pad.json")        # the pad with its version stamp
        p = padtui.plan(snap.pad, budget=4000)
        padtui.commit(snap, p)                # compare-and-swap; journaled; raises Conflict
                                              # if the pad is no longer snap's version

``padtui.externalize(snap, ids)`` seals protected entries the same way, and
``padtui.restore(path, n)`` writes a journaled version back (``padtui.Journal``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from padtui.core.audit.findings import Finding
    from padtui.core.audit.rewrite import Audit, audit
    from padtui.core.compaction.plan import Plan, compact, plan
    from padtui.core.compaction.sealing import externalize
    from padtui.core.counting.tokens import TokenCounter, counter_for
    from padtui.core.errors import EncodingUnavailable, PadError, UnrecoverableCompactionError
    from padtui.core.formats import PadFile, load, load_pad
    from padtui.core.model import Entry, Pad, make_entry
    from padtui.core.storage.journal import Journal
    from padtui.core.storage.store import (
        CommitError,
        Conflict,
        LockTimeout,
        Refused,
        Snapshot,
        Stamp,
        WriteFailed,
        commit,
        lock,
        read,
        restore,
    )

# The API is imported on first use, so that ``padtui check`` (and an agent that only plans)
# does not pay for the audit, the journal and the safe-write machinery at start-up.
_HOME = {
    "padtui.core.audit.findings": ("Finding",),
    "padtui.core.audit.rewrite": ("Audit", "audit"),
    "padtui.core.compaction.plan": ("Plan", "compact", "plan"),
    "padtui.core.errors": ("EncodingUnavailable", "PadError", "UnrecoverableCompactionError"),
    "padtui.core.formats": ("PadFile", "load", "load_pad"),
    "padtui.core.storage.journal": ("Journal",),
    "padtui.core.model": ("Entry", "Pad", "make_entry"),
    "padtui.core.compaction.sealing": ("externalize",),
    "padtui.core.storage.store": (
        "CommitError",
        "Conflict",
        "LockTimeout",
        "Refused",
        "Snapshot",
        "Stamp",
        "commit",
        "lock",
        "read",
        "WriteFailed",
        "restore",
    ),
    "padtui.core.counting.tokens": ("TokenCounter", "counter_for"),
}
_WHERE = {name: module for module, names in _HOME.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'padtui' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__version__ = "0.1.0"

__all__ = [
    "Audit",
    "CommitError",
    "Conflict",
    "EncodingUnavailable",
    "Entry",
    "Finding",
    "Journal",
    "LockTimeout",
    "Pad",
    "PadError",
    "PadFile",
    "Plan",
    "Refused",
    "Snapshot",
    "Stamp",
    "TokenCounter",
    "UnrecoverableCompactionError",
    "WriteFailed",
    "__version__",
    "audit",
    "commit",
    "compact",
    "counter_for",
    "externalize",
    "load",
    "load_pad",
    "lock",
    "make_entry",
    "plan",
    "read",
    "restore",
]
