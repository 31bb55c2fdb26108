"""Trial compaction (SPEC section 3): the seed's reference policy and the strict policy.

``plan()`` never raises: it returns a :class:`Plan` that says what a pass would keep and
drop, the loss record it would append, and whether it is refused (with a code and the way
out). ``compact()`` is the seed document's function, same signature, same behaviour.
"""

from __future__ import annotations

import shlex
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from itertools import accumulate
from typing import Any

from padtui.core.claims import pad_claims
from padtui.core.errors import UnrecoverableCompactionError
from padtui.core.model import PROTECTED_KINDS, Entry, Pad, make_entry
from padtui.core.tokens import TokenCounter, counter_for

DEFAULT_BUDGET = 4000
POLICIES = ("strict", "seed")

SEALED_OVER_BUDGET = "SEALED_OVER_BUDGET"
NO_LOSS_RECORD = "NO_LOSS_RECORD"
PROTECTED_KIND_WOULD_DROP = "PROTECTED_KIND_WOULD_DROP"
RECORD_WOULD_NOT_FIT = "RECORD_WOULD_NOT_FIT"
REFUSAL_CODES = (
    SEALED_OVER_BUDGET,
    NO_LOSS_RECORD,
    PROTECTED_KIND_WOULD_DROP,
    RECORD_WOULD_NOT_FIT,
)


@dataclass(frozen=True)
class Plan:
    """What one compaction pass would do to one version of a pad."""

    policy: str
    budget: int
    encoding: str
    verdict: str  # "fits", "compactable" or "refused"
    code: str | None
    message: str
    way_out: str | None
    source: Pad
    kept: tuple[Entry, ...]  # in the policy's result order (seed: sealed, then kept)
    dropped: tuple[Entry, ...]  # in file order
    loss_record: Entry | None
    costs: Mapping[int, int] = field(repr=False)  # entry index -> tokens
    claims_before: int  # claims of the pad as it is
    record_tokens: int = 0

    def way_out_for(self, path: str) -> str | None:
        """The way out of a refusal, with the pad's path filled in (shell-quoted)."""
        if self.way_out is None:
            return None
        return self.way_out.replace("PATH", shlex.quote(path), 1)

    @property
    def refused(self) -> bool:
        return self.verdict == "refused"

    @property
    def tokens_sealed(self) -> int:
        return sum(self.costs[e.index] for e in self.source.sealed)

    @property
    def tokens_total(self) -> int:
        return sum(self.costs.values())

    @property
    def tokens_rewritable(self) -> int:
        return self.tokens_total - self.tokens_sealed

    @property
    def tokens_after(self) -> int:
        """Tokens of the pad once committed (a refused plan changes nothing)."""
        if self.refused:
            return self.tokens_total
        return sum(self.costs[e.index] for e in self.kept) + self.record_tokens

    @property
    def tokens_dropped(self) -> int:
        return sum(self.costs[e.index] for e in self.dropped)

    @cached_property
    def claims_after(self) -> int:
        """Claims of the pad a commit would write (a pad's claims are its entries' sum)."""
        if self.refused:
            return self.claims_before
        record = (self.loss_record,) if self.loss_record is not None else ()
        return self.claims_before - pad_claims(self.dropped) + pad_claims(record)

    def as_json(self) -> dict[str, Any]:
        """The plan as ``check --json`` prints it (SPEC section 5)."""
        return {
            "verdict": self.verdict,
            "code": self.code,
            "policy": self.policy,
            "budget": self.budget,
            "encoding": self.encoding,
            "tokens": {
                "total": self.tokens_total,
                "sealed": self.tokens_sealed,
                "rewritable": self.tokens_rewritable,
                "after": self.tokens_after,
                "dropped": self.tokens_dropped,
                "loss_record": self.record_tokens,
            },
            "kept": [e.label for e in self.kept],
            "dropped": [e.label for e in self.dropped],
            "dropped_kinds": [e.kind for e in self.dropped],
            "loss_record": self.loss_record.text if self.loss_record is not None else None,
            "claims": {"before": self.claims_before, "after": self.claims_after},
            "message": self.message,
            "way_out": self.way_out,
        }

    def result(self) -> tuple[Entry, ...]:
        """The entries a commit writes: the file's order minus the drops, plus the record."""
        gone = {e.index for e in self.dropped}
        kept = tuple(e for e in self.source.entries if e.index not in gone)
        return kept + ((self.loss_record,) if self.loss_record is not None else ())


@dataclass(frozen=True)
class _Pass:
    kept: list[int]  # indices of kept rewritable entries, file order
    dropped: list[int]


class _FirstFit:
    """First fit over the rewritable entries, in file order, for any room.

    The strict policy runs a pass per size of its loss record, each over every rewritable
    entry; on a large pad most of a pass is the same long run of entries that all fit, then
    a tail that cannot. So the run that fits whole is found by bisecting running totals, and
    the tail is dropped at once when the room left is below every cost still to come: a pass
    walks only the entries where its decisions are made.
    """

    def __init__(self, entries: Sequence[Entry], costs: Mapping[int, int]) -> None:
        self.indices = [e.index for e in entries]
        self.costs = [costs[i] for i in self.indices]
        self.totals = list(accumulate(self.costs))  # totals[k]: cost of entries 0..k
        self.least_from = list(accumulate(reversed(self.costs), min))[::-1]  # min of k..

    def __call__(self, room: int) -> _Pass:
        """Take entries while they fit ``room``; drop the others."""
        indices, costs, least_from = self.indices, self.costs, self.least_from
        whole = bisect_right(self.totals, room)  # entries 0..whole-1 fit together
        kept = indices[:whole]
        dropped: list[int] = []
        if whole:
            room -= self.totals[whole - 1]
        for k in range(whole, len(indices)):
            if least_from[k] > room:  # nothing from here on fits
                dropped += indices[k:]
                break
            if costs[k] <= room:
                kept.append(indices[k])
                room -= costs[k]
            else:
                dropped.append(indices[k])
        return _Pass(kept, dropped)


def compact(
    scratchpad: Sequence[dict[str, Any]],
    budget_tokens: int,
    tokenize: Callable[[str], Sequence[Any]],
) -> list[dict[str, Any]]:
    """The seed document's ``compact()``: sealed items, then rewritable ones first-fit.

    Raises :class:`UnrecoverableCompactionError` when the sealed region alone is over the
    budget, or when a protected kind would be dropped and no sealed loss record exists.
    """
    sealed = [s for s in scratchpad if s["sealed"]]
    rewritable = [s for s in scratchpad if not s["sealed"]]
    sealed_cost = sum(len(tokenize(s["text"])) for s in sealed)
    if sealed_cost > budget_tokens:
        raise UnrecoverableCompactionError(
            f"sealed region costs {sealed_cost} tokens, budget is {budget_tokens}; "
            "refusing to compact sealed constraints"
        )
    room = budget_tokens - sealed_cost
    kept: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    for item in rewritable:
        cost = len(tokenize(item["text"]))
        if cost <= room:
            kept.append(item)
            room -= cost
        else:
            dropped.append(item)
    if any(d["kind"] in PROTECTED_KINDS for d in dropped) and not any(
        s["kind"] == "loss_record" for s in sealed
    ):
        raise UnrecoverableCompactionError(
            "compaction dropped a constraint or negative fact but no sealed loss_record "
            "exists to make the loss declarable; externalize before compacting"
        )
    return sealed + kept


def plan(
    pad: Pad,
    budget: int | None = None,
    policy: str = "strict",
    counter: TokenCounter | None = None,
    now: datetime | None = None,
) -> Plan:
    """A trial compaction of ``pad``. Never raises for any pad; refusals carry a code."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    counter = counter or counter_for(pad.encoding)
    budget = resolve_budget(pad, budget)
    entries = pad.entries
    counting = counter.start(e.text for e in entries)
    claims = pad_claims(entries)  # while the encoder counts tokens (a large pad's both take long)
    costs = dict(zip((e.index for e in entries), counting(), strict=True))
    ctx = _Ctx(pad, budget, counter, policy, costs, claims)
    if policy == "seed":
        return _seed(ctx)
    return _strict(ctx, now or datetime.now(UTC))


def resolve_budget(pad: Pad, budget: int | None) -> int:
    """``--budget`` if given, else the file's ``budget_tokens``, else 4000."""
    if budget is not None:
        return budget
    return pad.budget_tokens if pad.budget_tokens is not None else DEFAULT_BUDGET


@dataclass(frozen=True)
class _Ctx:
    pad: Pad
    budget: int
    counter: TokenCounter
    policy: str
    costs: dict[int, int]
    claims: int

    @property
    def sealed_cost(self) -> int:
        return sum(self.costs[e.index] for e in self.pad.sealed)

    def entries(self, indices: Sequence[int]) -> tuple[Entry, ...]:
        return tuple(self.pad.entries[i] for i in indices)

    def make(
        self,
        kept: Sequence[Entry],
        dropped: Sequence[Entry],
        code: str | None = None,
        message: str = "",
        way_out: str | None = None,
        record: Entry | None = None,
        record_tokens: int | None = None,
    ) -> Plan:
        if code is not None:
            verdict = "refused"
        elif dropped:
            verdict = "compactable"
        else:
            verdict = "fits"
        if record_tokens is None:
            record_tokens = self.counter.count(record.text) if record is not None else 0
        plan = Plan(
            self.policy,
            self.budget,
            self.counter.encoding,
            verdict,
            code,
            message,
            way_out,
            self.pad,
            tuple(kept),
            tuple(dropped),
            record,
            self.costs,
            claims_before=self.claims,
            record_tokens=record_tokens,
        )
        if not message:
            plan = _with_message(plan)
        return plan


def _with_message(plan: Plan) -> Plan:
    from dataclasses import replace

    if plan.verdict == "fits":
        msg = f"{plan.tokens_total} of {plan.budget} tokens, nothing to drop"
    else:
        msg = (
            f"would drop {len(plan.dropped)} "
            f"{'entry' if len(plan.dropped) == 1 else 'entries'} "
            f"({plan.tokens_dropped} tokens): {plan.tokens_total} -> {plan.tokens_after} "
            f"of {plan.budget}"
        )
        if plan.loss_record is not None:
            msg += f", appending a sealed loss record ({plan.record_tokens} tokens)"
    return replace(plan, message=msg)


def _seed(ctx: _Ctx) -> Plan:
    pad, budget = ctx.pad, ctx.budget
    if ctx.sealed_cost > budget:
        return _sealed_over(ctx)
    p = _FirstFit(pad.rewritable, ctx.costs)(budget - ctx.sealed_cost)
    kept = pad.sealed + ctx.entries(p.kept)
    dropped = ctx.entries(p.dropped)
    lost = [e for e in dropped if e.protected]
    if lost and not any(e.kind == "loss_record" for e in pad.sealed):
        names = " ".join(e.label for e in lost)
        return ctx.make(
            kept,
            dropped,
            NO_LOSS_RECORD,
            f"would drop {_describe(lost)} and no sealed loss_record exists to make the "
            "loss declarable",
            f"externalize before compacting: padtui externalize PATH {names}",
        )
    return ctx.make(kept, dropped)


def _sealed_over(ctx: _Ctx) -> Plan:
    return ctx.make(
        ctx.pad.entries,
        (),
        SEALED_OVER_BUDGET,
        f"the sealed region alone costs {ctx.sealed_cost} tokens, over the budget of "
        f"{ctx.budget}; compaction never drops sealed entries",
        f"halt and surface: raise the budget to at least {ctx.sealed_cost} (--budget), or "
        "have a person consolidate the sealed region",
    )


def _strict(ctx: _Ctx, now: datetime) -> Plan:
    pad, budget = ctx.pad, ctx.budget
    sealed_cost = ctx.sealed_cost
    if sealed_cost > budget:
        return _sealed_over(ctx)
    first_fit = _FirstFit(pad.rewritable, ctx.costs)
    protected = {e.index for e in pad.rewritable if e.protected}
    names: dict[int, str] = {}  # each dropped entry's part of the record, written once
    reserve = 0
    while True:
        p = first_fit(budget - sealed_cost - reserve)
        if not p.dropped:
            return ctx.make(pad.entries, ())
        dropped = ctx.entries(p.dropped)
        if not protected.isdisjoint(p.dropped):
            lost = [e for e in dropped if e.protected]
            names_lost = " ".join(e.label for e in lost)
            return ctx.make(
                _kept(pad, p),
                dropped,
                PROTECTED_KIND_WOULD_DROP,
                f"this pass would drop {_describe(lost)}: constraints, negative facts and "
                "loss records cannot be rebuilt from the plan",
                "externalize them into the sealed region first: padtui externalize PATH "
                + names_lost,
            )
        for e in dropped:
            if e.index not in names:
                names[e.index] = _record_name(e, ctx.costs[e.index])
        head = _record_head(dropped, ctx.costs, budget, now)
        parts = [names[e.index] for e in dropped]
        cost = record_cost(ctx.counter, head, parts)
        if sealed_cost + cost > budget:
            return ctx.make(
                _kept(pad, p),
                dropped,
                RECORD_WOULD_NOT_FIT,
                f"the pass cannot afford the record of its own loss: sealed "
                f"{sealed_cost} + loss record {cost} tokens > budget {budget}",
                "halt and surface: raise the budget, or have a person consolidate the "
                "sealed region",
            )
        if cost <= reserve:
            record = _record_entry(pad, dropped, head + "; ".join(parts), now)
            return ctx.make(_kept(pad, p), dropped, record=record, record_tokens=cost)
        reserve = cost  # grows strictly and is bounded by the budget, so this ends


def _kept(pad: Pad, p: _Pass) -> tuple[Entry, ...]:
    """strict's result order is the commit's: the file's order, sealed entries included."""
    gone = set(p.dropped)
    return tuple(e for e in pad.entries if e.index not in gone)


def _describe(entries: Sequence[Entry]) -> str:
    return ", ".join(f"{e.kind.replace('_', ' ')} {e.label}" for e in entries)


def _quote(text: str, words: int = 6) -> str:
    parts = text.split()
    short = " ".join(parts[:words])
    return f'"{short}{"..." if len(parts) > words else ""}"'


def loss_record(
    pad: Pad,
    dropped: Sequence[Entry],
    costs: Mapping[int, int],
    budget: int,
    now: datetime,
) -> Entry:
    """The sealed loss record a strict pass appends: what it dropped, and when.

    Entries with an id are named by it; those without are named by position and quoted,
    so that an audit of the next version can recognise what the record declares.
    """
    parts = [_record_name(e, costs[e.index]) for e in dropped]
    return _record_entry(
        pad, dropped, _record_head(dropped, costs, budget, now) + "; ".join(parts), now
    )


def _record_head(
    dropped: Sequence[Entry], costs: Mapping[int, int], budget: int, now: datetime
) -> str:
    stamp = now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    total = sum(costs[e.index] for e in dropped)
    return (
        f"compaction at {stamp} (strict, budget {budget}) dropped {len(dropped)} "
        f"{'entry' if len(dropped) == 1 else 'entries'}, {total} tokens: "
    )


def _record_name(e: Entry, cost: int) -> str:
    name = f"{e.label} ({e.kind}, {cost} tokens"
    return name + (")" if e.id is not None else f", {_quote(e.text)})")


def _record_entry(pad: Pad, dropped: Sequence[Entry], text: str, now: datetime) -> Entry:
    base = "loss-" + now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    ids = {e.id for e in pad.entries if e.id is not None}
    rid, n = base, 1
    while rid in ids:
        n += 1
        rid = f"{base}-{n}"
    return make_entry(
        "loss_record", text, sealed=True, id=rid, op="compact", drops=[e.label for e in dropped]
    )


# Encodings whose pre-tokenizer ends a piece at a mark (";", ":") followed by a space: a text
# cut just after such a mark costs the sum of its pieces' costs (BPE never merges across a
# piece boundary). cl100k_base's pattern, for one, has no look-behind, and its punctuation
# run `` ?[^\s\p{L}\p{N}]++[\r\n]*+`` stops at the space.
_CUTS_AFTER_MARKS = frozenset({"cl100k_base", "o200k_base", "p50k_base", "p50k_edit", "r50k_base"})


def record_cost(counter: TokenCounter, head: str, parts: Sequence[str]) -> int:
    """Tokens of ``head + "; ".join(parts)`` (``head`` ends with ``": "``), counted part by
    part: each part's cost is cached, so the passes of a strict plan, whose records grow by
    a few names each, cost only their new names (a record naming thousands of entries would
    otherwise be tokenized whole on every pass)."""
    if counter.encoding not in _CUTS_AFTER_MARKS or not head.endswith(": ") or not parts:
        return counter.count(head + "; ".join(parts))
    pieces = [head[:-1], *(f" {part};" for part in parts[:-1]), " " + parts[-1]]
    return sum(counter.count_many(pieces))
