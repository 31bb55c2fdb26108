"""Trial compaction: the seed's reference policy and the strict policy (the README's
"Policies").

``plan()`` never raises: it returns a :class:`Plan` that says what a pass would keep and
drop, the loss record it would append, and whether it is refused (with a code and the way
out). ``compact()`` is the seed document's function, same signature, same behaviour.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from copy import copy
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property
from itertools import accumulate, compress
from operator import attrgetter
from typing import Any, cast

from padtui.core.counting.countcache import digit_shapes, digits_free
from padtui.core.counting.tokens import TokenCounter, counter_for
from padtui.core.errors import UnrecoverableCompactionError
from padtui.core.formats import named
from padtui.core.model import PROTECTED_KINDS, Entry, Pad, make_entry
from padtui.core.rules.claims import pad_claims
from padtui.core.rules.finder import Rule, RuleMap, RuleMemo, find_rules
from padtui.core.text import one_line, shell_word, shown_command
from padtui.core.vocabulary import Fit, Policy, RefusalCode

DEFAULT_BUDGET = 4000
POLICIES = tuple(Policy)

SEALED_OVER_BUDGET = RefusalCode.SEALED_OVER_BUDGET
NO_LOSS_RECORD = RefusalCode.NO_LOSS_RECORD
PROTECTED_KIND_WOULD_DROP = RefusalCode.PROTECTED_KIND_WOULD_DROP
RULE_WOULD_DROP = RefusalCode.RULE_WOULD_DROP
RECORD_WOULD_NOT_FIT = RefusalCode.RECORD_WOULD_NOT_FIT
REFUSAL_CODES = tuple(RefusalCode)


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What one compaction pass would do to one version of a pad."""

    policy: Policy
    budget: int
    encoding: str
    verdict: Fit
    code: RefusalCode | None
    message: str
    way_out: str | None
    source: Pad
    kept: tuple[Entry, ...]  # in the policy's result order (seed: sealed, then kept)
    dropped: tuple[Entry, ...]  # in file order
    loss_record: Entry | None
    costs: Mapping[int, int] = field(repr=False)  # entry index -> tokens
    claims_before: int  # claims of the pad as it is
    record_tokens: int = 0
    # how the loss record's text names what it drops (RECORD_FORMS): "each" entry (kind,
    # tokens, a quote), "names" or "ranges" of labels per kind, "counts" per kind (None: no
    # record)
    record_form: str | None = None
    # a refusal on the budget (SEALED_OVER_BUDGET, RECORD_WOULD_NOT_FIT): a budget at which a
    # strict pass of this pad goes through
    fits_at: int | None = None
    # the headings that hold rules, for the rules at risk (None: padtui's own); the pad's
    # own settings extend or replace it
    rule_map: RuleMap | None = field(default=None, repr=False)
    # entry index -> claims, when known (else the claims of the dropped are counted anew)
    claim_counts: Mapping[int, int] | None = field(default=None, repr=False, compare=False)
    # where the rules at risk are looked up before they are found (a count cache's)
    rule_memo: RuleMemo | None = field(default=None, repr=False, compare=False)
    # the rules of the pad's unsealed entries (``find_rules``), when the plan found them already
    found_rules: tuple[Rule, ...] | None = field(default=None, repr=False, compare=False)
    # a refusal for what strict protects (PROTECTED_KIND_WOULD_DROP, RULE_WOULD_DROP): the
    # unsealed entries its way out seals, in file order, and the tokens of the sealed region
    # with every unsealed entry that strict protects (what the rules alone need: below it no
    # strict pass goes through)
    to_seal: tuple[Entry, ...] = field(default=(), repr=False)
    rules_need: int | None = None

    def way_out_for(
        self,
        path: str,
        *,
        fmt: str | None = None,
        encoding: str | None = None,
        rule_headings: Sequence[str] = (),
        only_rule_headings: bool = False,
    ) -> str | None:
        """The way out of a refusal as a command that works pasted into a shell from any
        folder: the pad's path made absolute, one shell word (see ``shell_word``), followed
        by the options the pad was read with that its command takes (``--format``, the rule
        headings, and for a check ``--encoding``), each quoted."""
        if self.way_out is None:
            return None
        options: list[str] = ["--format", fmt] if fmt else []
        if encoding and "padtui check PATH" in self.way_out:
            options += ["--encoding", encoding]
        for word in rule_headings:
            options += ["--rule-heading", word]
        if only_rule_headings and rule_headings:
            options.append("--only-rule-headings")
        return shown_command(self.way_out, path, options)

    @property
    def refused(self) -> bool:
        return self.verdict == Fit.REFUSED

    @property
    def tokens_sealed(self) -> int:
        return sealed_tokens(self.source, self.costs)

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
        return _summed(self.costs, self.kept) + self.record_tokens

    @property
    def tokens_dropped(self) -> int:
        return _summed(self.costs, self.dropped)

    @property
    def overrun(self) -> int:
        """Tokens the pad is over its budget (0 when it fits)."""
        return max(self.tokens_total - self.budget, 0)

    @property
    def tokens_needed(self) -> int:
        """What the pass had to free: the overrun, and room for its own loss record."""
        return self.overrun + self.record_tokens

    @property
    def over_dropping(self) -> bool:
        """Does the pass drop far more than it had to free (more than twice as much, and
        more than 50 tokens more)? First fit does, when a big entry no longer fits. (A
        refused pass drops nothing.)"""
        if self.refused or not self.dropped:
            return False
        need, dropped = self.tokens_needed, self.tokens_dropped
        return dropped > 2 * need and dropped - need > OVER_DROP_SLACK

    def over_dropping_line(self) -> str | None:
        """One line saying so, or None."""
        if not self.over_dropping:
            return None
        biggest = max(self.dropped, key=lambda e: self.costs[e.index])
        record = f" + {self.record_tokens} for its loss record" if self.record_tokens else ""
        return (
            f"over-dropping: the pass drops {self.tokens_dropped} tokens to free "
            f"{self.tokens_needed} ({self.overrun} over the budget{record}): first fit drops "
            f"every entry that no longer fits, whatever its size (the largest, "
            f"{one_line(biggest.label, 40)}, is {self.costs[biggest.index]} tokens)"
        )

    @cached_property
    def rules_at_risk(self) -> tuple[RuleAtRisk, ...]:
        """Every rule (``rules.find_rules``) in an unsealed entry, wherever it lives: a pass may
        drop it, and this pass drops those marked ``dropped``."""
        if self.found_rules is not None:
            gone = {e.index for e in self.dropped}
            return _unsealed(self.source, self.found_rules, gone)
        return rules_at_risk(self, self.rule_map, self.rule_memo)

    @cached_property
    def claims_after(self) -> int:
        """Claims of the pad a commit would write (a pad's claims are its entries' sum)."""
        if self.refused:
            return self.claims_before
        record = (self.loss_record,) if self.loss_record is not None else ()
        known = self.claim_counts
        if known is not None and self.dropped and self.dropped[0].index in known:
            dropped = sum(known[e.index] for e in self.dropped)
        else:
            dropped = pad_claims(self.dropped)
        return self.claims_before - dropped + pad_claims(record)

    def as_json(self) -> dict[str, Any]:
        """The plan as ``check --json`` prints it (the README's ``padtui check``)."""
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
            # how the record's text names the drops (each, names, ranges, counts), and the
            # labels its drops field lists (what the next audit reads as declared)
            "loss_record_form": self.record_form,
            "loss_record_drops": (
                list(self.loss_record.raw.get("drops", ())) if self.loss_record is not None else []
            ),
            "fits_at": self.fits_at,
            "rules_need": self.rules_need,
            "to_seal": [e.label for e in self.to_seal],
            "claims": {"before": self.claims_before, "after": self.claims_after},
            "message": self.message,
            "way_out": self.way_out,
            "over_dropping": (
                {
                    "dropped": self.tokens_dropped,
                    "needed": self.tokens_needed,
                    "overrun": self.overrun,
                }
                if self.over_dropping
                else None
            ),
            "rules_at_risk": [r.as_json() for r in self.rules_at_risk],
        }

    def result(self) -> tuple[Entry, ...]:
        """The entries a commit writes: the file's order minus the drops, plus the record."""
        gone = {e.index for e in self.dropped}
        kept = tuple(e for e in self.source.entries if e.index not in gone)
        return kept + ((self.loss_record,) if self.loss_record is not None else ())


OVER_DROP_SLACK = 50  # tokens a pass may drop beyond twice what it had to free


@dataclass(frozen=True)
class RuleAtRisk:
    """A rule in an unsealed entry: what a compaction may drop."""

    entry: Entry
    kind: str  # prohibition, obligation, restriction, negative_fact or instruction
    text: str  # the claim
    heading: str | None  # the heading it sits under
    dropped: bool  # this pass drops its entry

    @property
    def where(self) -> str | None:
        """The heading as words: a Markdown section's kind (its heading's slug) read back."""
        if self.heading is None:
            return None
        return kind_words(self.heading) if self.heading == self.entry.kind else self.heading

    def as_json(self) -> dict[str, Any]:
        return {
            "entry": self.entry.label,
            "entry_kind": self.entry.kind,
            "kind": self.kind,
            "text": self.text,
            "heading": self.heading,
            "dropped": self.dropped,
        }


def rules_at_risk(
    plan: Plan, rule_map: RuleMap | None = None, memo: RuleMemo | None = None
) -> tuple[RuleAtRisk, ...]:
    """The rules of the plan's pad in unsealed entries, in file order, each marked when the
    plan drops its entry. ``rule_map``: the headings that hold rules (padtui's own by
    default; the pad's own settings extend or replace it)."""
    return unsealed_rules(plan.source, rule_map, {e.index for e in plan.dropped}, memo)


def unsealed_rules(
    pad: Pad,
    rule_map: RuleMap | None = None,
    gone: Collection[int] = (),
    memo: RuleMemo | None = None,
) -> tuple[RuleAtRisk, ...]:
    """The rules of ``pad`` in unsealed entries, in file order: what any pass may drop
    (those in the entries at the indices ``gone`` marked dropped)."""
    return _unsealed(pad, find_rules(pad, rule_map, memo, sealed=False), gone)


def _unsealed(pad: Pad, rules: Sequence[Rule], gone: Collection[int]) -> tuple[RuleAtRisk, ...]:
    return tuple(
        RuleAtRisk(e, r.kind, r.text, r.heading, r.entry in gone)
        for r in rules
        for e in (pad.entries[r.entry],)
        if not e.sealed
    )


@dataclass(frozen=True)
class _Pass:
    """A first fit's pass: the rewritable entries it keeps and those it drops."""

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
        self.least_from = _suffix_minima(self.costs)  # least_from[k]: min of costs k..
        self.passes: dict[int, _Pass] = {}  # by room (each form's first pass has the same)

    def __call__(self, room: int) -> _Pass:
        """Take entries while they fit ``room``; drop the others."""
        got = self.passes.get(room)
        if got is None:
            got = self.passes[room] = self._fit(room)
        return got

    def _fit(self, room: int) -> _Pass:
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


def _suffix_minima(costs: Sequence[int]) -> list[int]:
    """The least of ``costs[k:]`` for each k (a loop: ``accumulate`` calling ``min`` on each
    pair takes five times as long)."""
    least: list[int] = []
    low = None
    for cost in reversed(costs):
        if low is None or cost < low:
            low = cost
        least.append(low)
    least.reverse()
    return least


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
    *,
    fmt: str | None = None,
    rule_map: RuleMap | None = None,
    find_rules_now: bool = False,
) -> Plan:
    """A trial compaction of ``pad``. Never raises for any pad; refusals carry a code.

    ``fmt`` is the format the pad is written back in (``formats.format_of``): a strict
    pass of a JSON or JSONL pad may write a record that names ranges or counts, as those
    formats keep the record's ``drops`` field; any other (Markdown, or None: not known)
    gets a record whose text alone names every entry it drops. ``rule_map``: the headings
    that hold rules, for ``Plan.rules_at_risk`` (padtui's own by default), which are found
    here, while the encoder counts, with ``find_rules_now`` (for a report that lists them).
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    policy = Policy(policy)
    counter = counter or counter_for(pad.encoding)
    budget = resolve_budget(pad, budget)
    entries = pad.entries
    # the claims (and the rules) are found while the encoder counts tokens (a large pad's
    # both take long)
    counting = counter.start_with_claims(e.text for e in entries)
    memo = counter.store.rules if counter.store is not None else None
    rules = tuple(find_rules(pad, rule_map, memo, sealed=False)) if find_rules_now else None
    tokens, claims = counting()
    indices = [e.index for e in entries]
    costs = dict(zip(indices, tokens, strict=True))
    ctx = _Planning(
        pad=pad,
        budget=budget,
        total=sum(costs.values()),
        sealed_cost=sealed_tokens(pad, costs),
        costs=costs,
        claims=sum(claims),
        counter=counter,
        policy=policy,
        forms=record_forms(fmt),
        rules=_Rules(pad, rule_map, memo, rules),
    )
    made = _seed(ctx) if policy == Policy.SEED else _strict(ctx, now or datetime.now(UTC))
    claim_counts = dict(zip(indices, claims, strict=True))
    if counter.store is not None and made.loss_record is not None:
        # (the record is an entry of the pad a commit writes: a check of it finds its count)
        counter.store.put([made.loss_record.text], [made.record_tokens], [None])
    return replace(
        made,
        rule_map=rule_map,
        claim_counts=claim_counts,
        rule_memo=memo,
        found_rules=ctx.rule_holders.found if ctx.rule_holders.found is not None else rules,
    )


class _Rules:
    """Which unsealed entries of a pad hold a rule (``rules.find_rules``: by place or by
    wording): what strict keeps, besides the protected kinds. Found once, when a pass first
    drops something (a pad within its budget never asks)."""

    def __init__(
        self,
        pad: Pad,
        rule_map: RuleMap | None,
        memo: RuleMemo | None,
        found: tuple[Rule, ...] | None,
    ) -> None:
        self.pad, self.rule_map, self.memo = pad, rule_map, memo
        self.found = found
        self._holders: frozenset[int] | None = None

    @property
    def holders(self) -> frozenset[int]:
        """The indices of the unsealed entries that hold a rule."""
        if self._holders is None:
            if self.found is None:
                self.found = tuple(find_rules(self.pad, self.rule_map, self.memo, sealed=False))
            self._holders = frozenset(r.entry for r in self.found)
        return self._holders

    def of(self, indices: Collection[int]) -> list[Rule]:
        """The rules of the entries at ``indices``, in file order."""
        self.holders  # noqa: B018
        assert self.found is not None
        return [r for r in self.found if r.entry in indices]


def sealed_tokens(pad: Pad, costs: Mapping[int, int]) -> int:
    """The tokens of the pad's sealed region (``costs``: each entry's, by its index)."""
    return _summed(costs, pad.sealed)


_index = attrgetter("index")


def _summed(costs: Mapping[int, int], entries: Sequence[Entry]) -> int:
    """The tokens of ``entries`` (``costs``: each entry's, by its index)."""
    return sum(map(costs.__getitem__, map(_index, entries)))


def resolve_budget(pad: Pad, budget: int | None) -> int:
    """``--budget`` if given, else the file's ``budget_tokens``, else 4000."""
    if budget is not None:
        return budget
    return pad.budget_tokens if pad.budget_tokens is not None else DEFAULT_BUDGET


@dataclass(frozen=True, kw_only=True)
class _Planning:
    """What a pass is planned from: the pad, its budget and each entry's tokens."""

    pad: Pad
    budget: int
    counter: TokenCounter
    policy: Policy
    costs: dict[int, int]
    total: int  # the pad's tokens
    sealed_cost: int  # its sealed region's
    claims: int
    forms: tuple[str, ...]  # the forms its loss record may take (record_forms)
    # the entries that hold rules, which strict keeps (None: found when first asked, by
    # padtui's own rule map)
    rules: _Rules | None = None

    def __post_init__(self) -> None:
        if self.rules is None:
            object.__setattr__(self, "rules", _Rules(self.pad, None, None, None))

    @property
    def rule_holders(self) -> _Rules:
        assert self.rules is not None
        return self.rules

    def entries(self, indices: Sequence[int]) -> tuple[Entry, ...]:
        return tuple(map(self.pad.entries.__getitem__, indices))

    def sealing(self, chosen: Collection[int]) -> _Planning:
        """The same pad with the entries at ``chosen`` sealed (what a way out would make)."""
        entries = tuple(e.sealed_copy() if e.index in chosen else e for e in self.pad.entries)
        more = sum(self.costs[i] for i in chosen if not self.pad.entries[i].sealed)
        return replace(
            self, pad=replace(self.pad, entries=entries), sealed_cost=self.sealed_cost + more
        )

    def make(
        self,
        kept: Sequence[Entry],
        dropped: Sequence[Entry],
        code: RefusalCode | None = None,
        message: str = "",
        way_out: str | None = None,
        record: Entry | None = None,
        record_tokens: int | None = None,
    ) -> Plan:
        if code is not None:
            verdict = Fit.REFUSED
        elif dropped:
            verdict = Fit.COMPACTABLE
        else:
            verdict = Fit.FITS
        if record_tokens is None:
            record_tokens = self.counter.count(record.text) if record is not None else 0
        plan = Plan(
            policy=self.policy,
            budget=self.budget,
            encoding=self.counter.encoding,
            verdict=verdict,
            code=code,
            message=message,
            way_out=way_out,
            source=self.pad,
            kept=tuple(kept),
            dropped=tuple(dropped),
            loss_record=record,
            costs=self.costs,
            claims_before=self.claims,
            record_tokens=record_tokens,
        )
        if not message:
            plan = _with_message(plan)
        return plan


def _with_message(plan: Plan) -> Plan:
    if plan.verdict == Fit.FITS:
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


def _seed(ctx: _Planning, advise: bool = True) -> Plan:
    pad, budget = ctx.pad, ctx.budget
    if ctx.sealed_cost > budget:
        return _sealed_over(ctx, _fits_at(ctx) if advise else None)
    p = _FirstFit(pad.rewritable, ctx.costs)(budget - ctx.sealed_cost)
    kept = pad.sealed + ctx.entries(p.kept)
    dropped = ctx.entries(p.dropped)
    lost = [e for e in dropped if e.protected]
    if lost and not any(e.kind == "loss_record" for e in pad.sealed):
        return ctx.make(
            kept,
            dropped,
            NO_LOSS_RECORD,
            f"would drop {_describe(lost)} and no sealed loss_record exists to make the "
            "loss declarable",
            f"externalize before compacting: padtui externalize PATH {_shell_words(pad, lost)}",
        )
    return ctx.make(kept, dropped)


def _shell_words(pad: Pad, entries: Sequence[Entry]) -> str:
    """The entries' names as shell words, each quoted (``#4`` bare would start a comment, an
    id ``a;b`` run ``b``), each naming its entry alone (see ``Pad.name_of``)."""
    return " ".join(shell_word(pad.name_of(e)) for e in entries)


def _sealed_over(ctx: _Planning, fits_at: int | None) -> Plan:
    sealed = ctx.pad.sealed
    if sealed:
        way_out = (
            f"halt and surface: the sealed region ({len(sealed)} "
            f"{'entry' if len(sealed) == 1 else 'entries'}, {ctx.sealed_cost} tokens) is "
            "what no pass may touch: a person consolidates it, or the budget goes up"
        )
    else:
        way_out = "halt and surface: the budget is below zero"
    way_out += _budget_advice(ctx, fits_at)
    plan = ctx.make(
        ctx.pad.entries,
        (),
        SEALED_OVER_BUDGET,
        f"the sealed region alone costs {ctx.sealed_cost} tokens, over the budget of "
        f"{ctx.budget}; compaction never drops sealed entries",
        way_out,
    )
    return replace(plan, fits_at=fits_at)


def _budget_advice(ctx: _Planning, fits_at: int | None) -> str:
    """The part of a way out that names a budget at which a pass goes through."""
    if fits_at is None:
        return ""
    seed = " --policy seed" if ctx.policy == Policy.SEED else ""
    check = f"padtui check PATH --budget {fits_at}{seed}"
    if fits_at >= ctx.total:
        return (
            f"; below the pad's own size no {ctx.policy} pass goes through: at a budget of "
            f"{fits_at} nothing is dropped: {check}"
        )
    return f"; at a budget of {fits_at} a {ctx.policy} pass goes through: {check}"


# How a loss record's text names what it drops, most detailed first. The record's ``drops``
# field lists every dropped entry's label whatever the text says, and the audit of the next
# version reads it; but a Markdown pad has nowhere to keep that field, so there the text
# itself must name each entry (by its id, or by a quote of its text) for the loss to stay
# declared: the ranges and counts are for formats that keep the field (JSON, JSONL).
EACH = "each"  # every entry: its label, kind, tokens, and a quote when it has no id
NAMES = "names"  # per kind: how many, then each one's id or a short quote of it
RANGES = "ranges"  # per kind: how many, their ids and ranges of #N labels (across the kinds,
# once, when the kinds take turns)
COUNTS = "counts"  # per kind: how many
RECORD_FORMS = (EACH, NAMES, RANGES, COUNTS)
TEXT_FORMS = (EACH, NAMES)  # the forms whose text alone declares every entry


def record_forms(fmt: str | None) -> tuple[str, ...]:
    """The forms a strict pass may write its record in, for a pad written back in ``fmt``:
    all of them where the format keeps the record's ``drops`` field, else those whose text
    declares (``None``: not known)."""
    found = named(fmt) if fmt is not None else None
    return RECORD_FORMS if found is not None and found.keeps_fields else TEXT_FORMS


@dataclass(frozen=True)
class _Outcome:
    """Where the passes of one record form settled: a refusal, a fit, or a stable pass."""

    form: str
    p: _Pass | None = None  # None: the pad fits, nothing to drop
    code: str | None = None
    head: str = ""
    parts: tuple[str, ...] = ()
    cost: int = 0  # the record's tokens
    dropped_tokens: int = 0

    @property
    def refused(self) -> bool:
        return self.code is not None


class _Strict:
    """The strict policy's passes over one pad, for one budget."""

    def __init__(self, ctx: _Planning, now: datetime) -> None:
        self.ctx, self.now = ctx, now
        self.sealed_cost = ctx.sealed_cost
        rewritable = ctx.pad.rewritable
        self.first_fit = _FirstFit(rewritable, ctx.costs)
        self.protected = {e.index for e in rewritable if e.protected}
        self.rules = ctx.rule_holders
        # every entry a pass may drop has an id: a record of ranges then names each by its id,
        # word for word the record of names, and its passes are those of the names
        self.ranges_are_names = None not in map(attrgetter("id"), rewritable)
        self.names: dict[int, str] = {}  # each dropped entry's part of an "each" record
        self.quotes: dict[int, str] = {}  # and its name in a "names" record
        # the tokens of each piece of a record (``record_cost``), by its text: a pass's
        # record repeats most of the last one's
        self.pieces: dict[str, int] = {}
        # ... and of each entry's piece in the middle of a record of each or of names, by the
        # entry's index (see ``summed_cost``)
        self.inner: dict[str, dict[int, int]] = {EACH: {}, NAMES: {}}

    def at(self, ctx: _Planning) -> _Strict:
        """The same passes for another budget (``ctx``), sharing what does not depend on it."""
        other = copy(self)
        other.ctx = ctx
        return other

    def goes_through(self) -> bool:
        """Is some pass not refused? (The policy takes one then: the same question as
        ``outcome().refused``, answered by the smallest records first.)"""
        if self.sealed_cost > self.ctx.budget:
            return False
        return any(not self.settle(f).refused for f in reversed(self._forms()))

    def _forms(self) -> tuple[str, ...]:
        """The forms whose passes differ (those of ranges are those of names, see above)."""
        forms = self.ctx.forms
        if self.ranges_are_names and NAMES in forms:
            return tuple(f for f in forms if f != RANGES)
        return forms

    def room(self, reserve: int) -> int:
        return self.ctx.budget - self.sealed_cost - reserve

    def parts(self, form: str, dropped: Sequence[Entry]) -> tuple[str, ...]:
        if form == EACH:
            names = self._named(EACH, dropped)
            return tuple([names[e.index] for e in dropped])
        if form == NAMES:
            self._named(NAMES, dropped)
        return _group_parts(dropped, self.ctx.costs, form, self.quotes)

    def _named(self, form: str, dropped: Sequence[Entry]) -> dict[int, str]:
        """How a record of each (of names) names each entry, by its index, with the
        ``dropped`` ones' names made."""
        if form == EACH:
            names, costs = self.names, self.ctx.costs
            for e in dropped:
                if e.index not in names:
                    names[e.index] = _record_name(e, costs[e.index])
            return names
        quotes = self.quotes
        for e in dropped:
            if e.index not in quotes:
                quotes[e.index] = _name(e)
        return quotes

    def cost(self, form: str, head: str, dropped: Sequence[int]) -> int:
        """The tokens of the record of the entries ``dropped`` (their indices) in ``form``:
        ``record_cost`` of its parts, summed without writing the record where it can be
        (``summed_cost``)."""
        summed = self.summed_cost(form, head, dropped)
        if summed is not None:
            return summed
        parts = self.parts(form, self.ctx.entries(dropped))
        return record_cost(self.ctx.counter, head, parts, self.pieces)

    def summed_cost(self, form: str, head: str, dropped: Sequence[int]) -> int | None:
        """``record_cost`` of a record of each or of names, summed from the very pieces it
        cuts the record into. Most pieces are an entry's own name and a mark: those are
        counted once a plan, by the entry's index (``inner``), and a pass sums them. The
        passes of a plan, each naming thousands of entries, then count only their new names
        and the record's ends. None where ``record_cost`` counts the record otherwise."""
        counter = self.ctx.counter
        inner = self.inner.get(form)
        if inner is None or not dropped or counter.encoding not in _CUTS_AFTER_MARKS:
            return None
        if not head.endswith(": "):
            return None
        mark = ";" if form == EACH else ","
        new = sorted(set(dropped).difference(inner))
        names = self._named(form, self.ctx.entries(new))
        if new:
            pieces = [f" {names[i]}{mark}" for i in new]
            inner.update(zip(new, _piece_counts(counter, pieces, self.pieces), strict=True))
        # every entry's piece summed, then those at the ends of the record (of each kind's
        # part, in a record of names) taken back and cut as record_cost cuts them
        total = sum(map(inner.__getitem__, dropped))
        ends = [head[:-1]]
        if form == EACH:
            last = dropped[-1]
            total -= inner[last]
            ends.append(" " + names[last])
        else:
            costs = self.ctx.costs
            kinds = list(map(attrgetter("kind"), self.ctx.entries(dropped)))
            counts = Counter(kinds)  # each kind's part, in the order the kinds first come
            final = len(counts) - 1
            for k, (kind, n) in enumerate(counts.items()):
                # (the part ``_group_parts`` writes of a kind, as ``_Part`` cuts it)
                if final:
                    of_kind = list(compress(dropped, map(kind.__eq__, kinds)))
                    tail = f", {sum(map(costs.__getitem__, of_kind))} tokens"
                    first, last = of_kind[0], of_kind[-1]
                else:
                    tail, first, last = "", dropped[0], dropped[-1]
                before = f" {_group_phrase(kind, n)} ("
                end = f"){tail}" + (";" if k < final else "")
                if n == 1:
                    total -= inner[first]
                    ends.append(before + names[first] + end)
                    continue
                total -= inner[first] + inner[last]
                ends += [f"{before}{names[first]},", f" {names[last]}{end}"]
        return total + sum(_piece_counts(counter, ends, self.pieces))

    def settle(self, form: str) -> _Outcome:
        """Passes with this form of record, each leaving room for the last one's record,
        until the record of a pass fits the room it was given."""
        ctx = self.ctx
        reserve = 0
        while True:
            p = self.first_fit(self.room(reserve))
            if not p.dropped:
                return _Outcome(form)
            if not self.protected.isdisjoint(p.dropped):
                return _Outcome(form, p, PROTECTED_KIND_WOULD_DROP)
            if not self.rules.holders.isdisjoint(p.dropped):
                return _Outcome(form, p, RULE_WOULD_DROP)
            lost = sum(map(ctx.costs.__getitem__, p.dropped))
            head = _record_head(len(p.dropped), lost, ctx.budget, self.now)
            cost = self.cost(form, head, p.dropped)  # (the record written once it is taken)
            if self.sealed_cost + cost > ctx.budget:
                parts = self.parts(form, ctx.entries(p.dropped))
                return _Outcome(form, p, RECORD_WOULD_NOT_FIT, head, parts, cost)
            if cost <= reserve:
                parts = self.parts(form, ctx.entries(p.dropped))
                return _Outcome(form, p, None, head, parts, cost, lost)
            reserve = cost  # grows strictly and is bounded by the budget, so this ends

    def outcome(self) -> _Outcome:
        """The pass the policy takes.

        Each form of record but the counts settles its own pass (first fit is not monotone
        in its room: a smaller record may keep a bigger entry and drop two small ones); of
        those that go through, the one that drops the fewest tokens is taken, the more
        detailed on a tie. The counts are the last resort, when no pass that names its
        entries fits. The text is then told in the most detailed form that keeps exactly
        the same entries: detail is written when it costs no entry.
        """
        forms = self.ctx.forms
        tried = [self.settle(f) for f in self._forms() if f != COUNTS]
        passed = [o for o in tried if not o.refused]
        if not passed and COUNTS in forms:
            tried.append(self.settle(COUNTS))
            passed = [o for o in tried[-1:] if not o.refused]
        if not passed:
            return tried[-1]  # the refusal of the smallest record any pass could have
        got = min(passed, key=lambda o: (o.dropped_tokens, forms.index(o.form)))
        if got.p is None:
            return got
        dropped = self.ctx.entries(got.p.dropped)
        for form in forms[: forms.index(got.form)]:
            cost = self.cost(form, got.head, got.p.dropped)
            if self.sealed_cost + cost > self.ctx.budget:
                continue
            if self.first_fit(self.room(cost)).dropped == got.p.dropped:
                return replace(got, form=form, parts=self.parts(form, dropped), cost=cost)
        return got


def _strict(ctx: _Planning, now: datetime, advise: bool = True) -> Plan:
    pad, budget = ctx.pad, ctx.budget
    sealed_cost = ctx.sealed_cost
    if sealed_cost > budget:
        return _sealed_over(ctx, _fits_at(ctx, now) if advise else None)
    got = _Strict(ctx, now).outcome()
    if got.p is None:
        return ctx.make(pad.entries, ())
    kept, dropped = _kept(pad, got.p), ctx.entries(got.p.dropped)
    if got.code in (PROTECTED_KIND_WOULD_DROP, RULE_WOULD_DROP):
        return _keeps_protected(ctx, kept, dropped, now, advise)
    if got.code == RECORD_WOULD_NOT_FIT:
        fits_at = _fits_at(ctx, now) if advise else None
        n = len(dropped)
        way_out = (
            f"halt and surface: a record of the {n} {'entry' if n == 1 else 'entries'} this "
            f"pass drops needs {got.cost} tokens"
        )
        if got.form in TEXT_FORMS and COUNTS not in ctx.forms:
            way_out += " (this format keeps no drops field: its text names each entry)"
        if pad.sealed and got.cost <= budget:
            short = sealed_cost + got.cost - budget
            way_out += (
                f"; or a person consolidates the sealed region ({len(pad.sealed)} "
                f"{'entry' if len(pad.sealed) == 1 else 'entries'}, {sealed_cost} tokens) "
                f"by {short} tokens"
            )
        # (the command ends the line: pasted from "padtui" on, nothing else comes with it)
        way_out += _budget_advice(ctx, fits_at)
        plan = ctx.make(
            kept,
            dropped,
            RECORD_WOULD_NOT_FIT,
            f"the pass cannot afford the record of its own loss: sealed "
            f"{sealed_cost} + loss record {got.cost} tokens > budget {budget}",
            way_out,
            record_tokens=0,
        )
        return replace(plan, fits_at=fits_at)
    record = _record_entry(pad, dropped, got.head + "; ".join(got.parts), now)
    plan = ctx.make(kept, dropped, record=record, record_tokens=got.cost)
    return replace(plan, record_form=got.form)


# rounds of sealing what a pass at the budget would still drop, before a way out seals every
# entry that strict keeps
_WAY_OUT_ROUNDS = 8
# rules a refusal's message names (the report lists them one a line)
_NAMED = 3


def _keeps_protected(
    ctx: _Planning, kept: Sequence[Entry], dropped: Sequence[Entry], now: datetime, advise: bool
) -> Plan:
    """A pass refused because it would drop what strict keeps: an unsealed constraint,
    negative fact or loss record (PROTECTED_KIND_WOULD_DROP), or an entry holding a rule
    (RULE_WOULD_DROP). Its way out is one command that seals them where they stand: those
    this pass drops, and those a pass at the same budget would drop once they are sealed
    (the sealed region grows, and a pass has less room), so that a compaction after it goes
    through, or says that the rules alone are over the budget."""
    pad, budget = ctx.pad, ctx.budget
    keep = {e.index for e in pad.rewritable if e.protected} | ctx.rule_holders.holders
    lost = [e for e in dropped if e.index in keep]
    chosen = _to_seal(ctx, {e.index for e in lost}, keep, now)
    to_seal = ctx.entries(sorted(chosen))
    rules_need = ctx.sealed_cost + sum(ctx.costs[i] for i in keep)
    fits_at = None
    if advise:
        then = ctx.sealing(chosen)
        if not _Strict(then, now).goes_through():
            fits_at = _fits_at(then, now)
    words = _shell_words(pad, to_seal)
    need = f"the rules alone need {rules_need} tokens" + (
        f", over the budget of {budget}" if rules_need > budget else ""
    )
    after = f" (then a strict pass goes through at a budget of {fits_at})" if fits_at else ""
    if fits_at is not None and fits_at >= ctx.total:
        after = (
            f" (then no strict pass goes through below the pad's own size, {ctx.total} tokens: "
            "the rules and the record of what a pass drops fill it)"
        )
    protected = [e for e in lost if e.protected]
    if protected:
        way_out = "externalize them into the sealed region first"
        sealed_then = ctx.sealing(chosen).sealed_cost
        if sealed_then > budget:
            way_out += (
                f" (sealed, they make the sealed region {sealed_then} tokens, over the budget "
                f"of {budget}: raise the budget too)"
            )
        # (the command ends the line: pasted from "padtui" on, nothing else comes with it)
        way_out += ": padtui externalize PATH " + words
        rules = [e for e in lost if not e.protected]
        also = f", and {_count(len(rules), 'entry')} holding rules" if rules else ""
        plan = ctx.make(
            kept,
            dropped,
            PROTECTED_KIND_WOULD_DROP,
            f"this pass would drop {_describe(protected)}{also}: constraints, negative facts "
            "and loss records cannot be rebuilt from the plan",
            way_out,
        )
    else:
        found = ctx.rule_holders.of({e.index for e in lost})
        quoted = "; ".join(_quote(r.text) for r in found[:_NAMED])
        more = f"; and {len(found) - _NAMED} more" if len(found) > _NAMED else ""
        plan = ctx.make(
            kept,
            dropped,
            RULE_WOULD_DROP,
            f"this pass would drop {_count(len(found), 'rule')} in "
            f"{_count(len(lost), 'entry')} ({quoted}{more}): strict keeps every rule, "
            f"wherever it lives; {need}",
            f"seal {'it' if len(to_seal) == 1 else 'them'} where "
            f"{'it stands' if len(to_seal) == 1 else 'they stand'}{after}: "
            f"padtui externalize PATH {words}",
        )
    return replace(plan, to_seal=to_seal, rules_need=rules_need, fits_at=fits_at)


def _to_seal(ctx: _Planning, chosen: set[int], keep: set[int], now: datetime) -> set[int]:
    """``chosen``, with what strict keeps that a pass at the budget would still drop once
    they are sealed, round after round (past a few rounds: all that strict keeps)."""
    for _ in range(_WAY_OUT_ROUNDS):
        then = ctx.sealing(chosen)
        if then.sealed_cost > ctx.budget:
            return chosen  # (over the budget: a pass after it says so, with the budget)
        got = _Strict(then, now).outcome()
        if got.p is None or got.code not in (PROTECTED_KIND_WOULD_DROP, RULE_WOULD_DROP):
            return chosen
        chosen = chosen | keep.intersection(got.p.dropped)
    return set(keep)


def _count(n: int, word: str) -> str:
    plural = "entries" if word == "entry" else word + "s"
    return f"{n} {word if n == 1 else plural}"


def _fits_at(ctx: _Planning, now: datetime | None = None) -> int | None:
    """A budget at which a pass of the policy goes through, for a pad it refuses at
    ``ctx.budget``: found by bisecting between that budget and the pad's whole cost, where
    nothing is dropped (what is returned was tried, or is that whole cost)."""
    lo, hi = ctx.budget, ctx.total
    if hi <= lo:
        return None  # (a pad refused although it is within budget: nothing to advise)
    strict = _Strict(ctx, now or datetime.now(UTC))  # (its first fit serves every budget)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        at = replace(ctx, budget=mid)
        if ctx.policy == Policy.SEED:
            through = not _seed(at, False).refused
        else:
            through = strict.at(at).goes_through()
        if through:
            hi = mid
        else:
            lo = mid
    return hi


def _kept(pad: Pad, p: _Pass) -> tuple[Entry, ...]:
    """strict's result order is the commit's: the file's order, sealed entries included."""
    gone = set(p.dropped)
    return tuple(e for e in pad.entries if e.index not in gone)


def kind_words(kind: str) -> str:
    """A kind as words: ``negative fact``, ``user preferences`` (a Markdown heading's slug)."""
    return " ".join(kind.replace("_", " ").split()) or "(no kind)"


def _describe(entries: Sequence[Entry]) -> str:
    return ", ".join(f"{kind_words(e.kind)} {e.label}" for e in entries)


def _quote(text: str, words: int = 6) -> str:
    parts = text.split()
    short = " ".join(parts[:words])
    return f'"{short}{"..." if len(parts) > words else ""}"'


_PLURAL_KINDS = {
    "constraint": "constraints",
    "negative_fact": "negative facts",
    "loss_record": "loss records",
    "plan": "plans",
    "note": "notes",
    "hypothesis": "hypotheses",
}


def _kind_token(kind: str) -> str:
    """A kind as a record writes it: one word (``user_preferences``, as a Markdown heading's
    kind is), never the heading's own words. The audit takes a record that says a section's
    title ("removed the Session Notes section") to declare every entry under it, in this
    rewrite and in every later one: a record of some entries must not say it."""
    return "_".join(kind.split()) or "(no kind)"


def _group_phrase(kind: str, n: int) -> str:
    """``8 notes``, ``1 plan``, ``3 user_preferences entries``: what a group of ``n`` is."""
    if kind in _PLURAL_KINDS:
        return f"{n} {kind_words(kind) if n == 1 else _PLURAL_KINDS[kind]}"
    return f"{n} {_kind_token(kind)} {'entry' if n == 1 else 'entries'}"


def _id_word(eid: str) -> str:
    """An id as a record writes it: quoted when it is a bare number or a single character
    (the audit does not take "12" in a record for the id 12, a count as often as not)."""
    return f'"{eid}"' if eid.isdigit() or len(eid) < 2 else eid


def _labels(group: Sequence[Entry]) -> list[str]:
    """The group's ids, and its ``#N`` labels with runs of neighbours as one range."""
    out: list[str] = []
    first = last = -2  # the run of neighbours without ids (first -2: none)
    for e in group:
        eid = e.id
        if eid is None and first != -2 and e.index == last + 1:
            last = e.index
            continue
        if first != -2:
            out.append(_run_label(first, last))
            first = -2
        if eid is None:
            first = last = e.index
        else:
            out.append(_id_word(eid))
    if first != -2:
        out.append(_run_label(first, last))
    return out


def _run_label(first: int, last: int) -> str:
    return f"#{first}" if first == last else f"#{first}\u2013#{last}"


_WHOLE = 12  # a text this short is quoted whole
_SHORT = 8  # else its first words, at least this many characters (what the audit matches)


def short_quote(text: str) -> str:
    """The shortest quote of a text by which the audit recognises it: the whole text when
    it is short, else its first words (at least 8 characters) and an ellipsis; a text
    without spaces there is cut after 8 characters. White space is folded (the audit
    folds it, and case)."""
    flat = " ".join(text.split())
    if len(flat) <= _WHOLE:
        return f'"{flat}"'
    cut = flat.find(" ", _SHORT)
    if cut == -1 or cut > 2 * _SHORT:
        cut = _SHORT
        if flat[cut - 1] == " ":
            cut += 1  # a quote ends on a character, not on white space
    while cut < len(flat) and flat[cut] in ".\u2026":
        cut += 1  # the quote's ellipsis must not read as the text's own dots
    if cut >= len(flat):
        return f'"{flat}"'
    return f'"{flat[:cut]}..."'


def _name(e: Entry) -> str:
    """An entry as a record of names names it: its id, else a short quote of its text (a
    blank text, which holds no claim to lose, by its label)."""
    if e.id is not None:
        return _id_word(e.id)
    return short_quote(e.text) if e.text.split() else e.label


def _group_parts(
    dropped: Sequence[Entry],
    costs: Mapping[int, int],
    form: str,
    names: Mapping[int, str] | None = None,
) -> tuple[str, ...]:
    """One part per kind dropped, in the order the kinds first appear (``names``: how the
    names form names each entry, by its index, when known; else ``_name``)."""
    groups: dict[str, list[Entry]] = {}
    for e in dropped:
        groups.setdefault(e.kind, []).append(e)
    labels = {kind: _labels(group) for kind, group in groups.items()} if form == RANGES else {}
    listed = (
        {
            kind: [_name(e) for e in group] if names is None else [names[e.index] for e in group]
            for kind, group in groups.items()
        }
        if form == NAMES
        else labels
    )
    # kinds that take turns (a JSON pad's plans and notes) cut each other's runs: when runs
    # across the kinds halve the labels, they are given once for all of them
    across = _labels(dropped) if len(groups) > 1 and form == RANGES else []
    together = bool(across) and 2 * len(across) < sum(map(len, labels.values()))
    parts: list[str] = []
    for kind, group in groups.items():
        phrase = _group_phrase(kind, len(group))
        tail = f", {sum([costs[e.index] for e in group])} tokens" if len(groups) > 1 else ""
        if kind in listed and not together:
            parts.append(_Part(f"{phrase} (", listed[kind], f"){tail}"))
        else:
            parts.append(phrase + tail)
    if together:
        parts.append(_Part("entries ", across, ""))
    return tuple(parts)


class _Part(str):
    """A part of a record's text that lists items (``before`` + ``a, b, c`` + ``after``),
    with its pieces: cut after each ``", "`` (a mark followed by a space: a piece boundary of
    the encodings ``record_cost`` cuts), so a part listing thousands of items is counted
    item by item, each item's cost cached."""

    pieces: tuple[str, ...]

    def __new__(cls, before: str, items: Sequence[str], after: str) -> _Part:
        part = super().__new__(cls, before + ", ".join(items) + after)
        if not items:
            part.pieces = (before + after,)
            return part
        cut = [f" {item}," for item in items]  # then: "<before>a,", " b,", " c<after>"
        cut[0] = f"{before}{items[0]},"
        cut[-1] = cut[-1][:-1] + after
        part.pieces = tuple(cut)
        return part


def loss_record(
    pad: Pad,
    dropped: Sequence[Entry],
    costs: Mapping[int, int],
    budget: int,
    now: datetime,
    form: str = EACH,
) -> Entry:
    """The sealed loss record a strict pass appends: what it dropped, and when.

    In the ``each`` form, entries with an id are named by it, those without by position and
    a quote, so that an audit of the next version can recognise what the record declares;
    the ``ranges`` and ``counts`` forms group them by kind. In every form the record's
    ``drops`` field lists every dropped entry's label.
    """
    if form == EACH:
        parts: Sequence[str] = [_record_name(e, costs[e.index]) for e in dropped]
    elif form in RECORD_FORMS:
        parts = _group_parts(dropped, costs, form)
    else:
        raise ValueError(f"unknown record form {form!r}; choose one of {RECORD_FORMS}")
    head = _record_head(len(dropped), sum(costs[e.index] for e in dropped), budget, now)
    return _record_entry(pad, dropped, head + "; ".join(parts), now)


def _record_head(n: int, total: int, budget: int, now: datetime) -> str:
    """The record's text before what it names: when, the budget, ``n`` entries dropped of
    ``total`` tokens."""
    stamp = now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        f"compaction at {stamp} (strict, budget {budget}) dropped {n} "
        f"{'entry' if n == 1 else 'entries'}, {total} tokens: "
    )


def _record_name(e: Entry, cost: int) -> str:
    name = f"{e.label if e.id is None else _id_word(e.id)} ({_kind_token(e.kind)}, {cost} tokens"
    return name + (")" if e.id is not None else f", {_quote(e.text)})")


def _record_entry(pad: Pad, dropped: Sequence[Entry], text: str, now: datetime) -> Entry:
    base = "loss-" + now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    ids = set(map(attrgetter("id"), pad.entries))
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


def record_cost(
    counter: TokenCounter,
    head: str,
    parts: Sequence[str],
    memo: dict[str, int] | None = None,
) -> int:
    """Tokens of ``head + "; ".join(parts)`` (``head`` ends with ``": "``), counted part by
    part: each part's cost is cached, so the passes of a strict plan, whose records grow by
    a few names each, cost only their new names (a record naming thousands of entries would
    otherwise be tokenized whole on every pass). ``memo``: the tokens of pieces counted
    before, by their text (and by their ``digit_shape``, where the counter's counts do not
    depend on digits; the passes of one plan share one), filled in here."""
    if counter.encoding not in _CUTS_AFTER_MARKS or not head.endswith(": ") or not parts:
        return counter.count(head + "; ".join(parts))
    last = len(parts) - 1
    if _Part not in set(map(type, parts)):
        pieces = [head[:-1], *[f" {part};" for part in parts[:last]], " " + parts[last]]
    else:
        pieces = [head[:-1]]
        for i, part in enumerate(parts):
            cut = list(part.pieces) if isinstance(part, _Part) else [str(part)]
            cut[0] = " " + cut[0]
            if i < last:
                cut[-1] += ";"
            pieces += cut
    if memo is None:
        return sum(counter.count_many(pieces))
    return sum(_piece_counts(counter, pieces, memo))


def _piece_counts(counter: TokenCounter, pieces: Sequence[str], memo: dict[str, int]) -> list[int]:
    """The tokens of each piece, from ``memo`` (see ``record_cost``), filled in here."""
    counts = list(map(memo.get, pieces))
    if None not in counts:
        return cast(list[int], counts)
    new = [p for p, n in zip(pieces, counts, strict=True) if n is None]
    if digits_free(counter):
        # pieces that differ in their digits alone cost the same (a record's names differ
        # in their ids and tokens): one of each shape is counted, and the shape itself
        # (a text of those same tokens) kept with it
        shapes = digit_shapes(new)
        ask: dict[str, str] = {}
        for shape, p in zip(shapes, new, strict=True):
            if shape not in memo:
                ask.setdefault(shape, p)
        memo.update(zip(ask, counter.count_many(ask.values()), strict=True))
        memo.update(zip(new, map(memo.__getitem__, shapes), strict=True))
    else:
        memo.update(zip(new, counter.count_many(new), strict=True))
    return list(map(memo.__getitem__, pieces))
