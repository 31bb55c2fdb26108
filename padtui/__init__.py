"""padtui: tell a declared compaction of an agent's scratchpad from a corrupting rewrite.

The Python API for scripts, CI and agents themselves::

    import padtui
    pf = padtui.load("pad.json")              # read a pad (bad input raises PadError)
    p = padtui.plan(pf.pad, budget=4000)      # a trial compaction; never raises
    report = padtui.audit(old_pad, new_pad)   # compaction or corruption?

``padtui.compact(scratchpad, budget_tokens, tokenize)`` is the seed document's reference
function, with its ``UnrecoverableCompactionError``.
"""

from padtui.core.audit import Audit, Finding, audit
from padtui.core.compaction import Plan, compact, plan
from padtui.core.errors import EncodingUnavailable, PadError, UnrecoverableCompactionError
from padtui.core.formats import PadFile, load
from padtui.core.model import Entry, Pad, make_entry
from padtui.core.tokens import TokenCounter, counter_for

__version__ = "0.1.0"

__all__ = [
    "Audit",
    "EncodingUnavailable",
    "Entry",
    "Finding",
    "Pad",
    "PadError",
    "PadFile",
    "Plan",
    "TokenCounter",
    "UnrecoverableCompactionError",
    "__version__",
    "audit",
    "compact",
    "counter_for",
    "load",
    "make_entry",
    "plan",
]
