"""The state of one inspection of a live pad: the versions seen, the trial, the alarms.

The inspector (``padtui.tui``) is a view over this; everything it decides lives here so that
it can be tested without a terminal.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from operator import attrgetter
from typing import NamedTuple, Protocol, TypedDict, Unpack

from padtui.core.audit.matching import Pairs
from padtui.core.audit.rewrite import Audit, audit
from padtui.core.audit.totals import totals
from padtui.core.compaction.plan import POLICIES, Plan, plan, resolve_budget
from padtui.core.counting.countcache import PadCounters
from padtui.core.counting.tokens import TokenCounter, counter_for
from padtui.core.errors import PadError
from padtui.core.formats import Layout, PadFile, named
from padtui.core.model import Entry, Pad
from padtui.core.rules.claims import pad_claims
from padtui.core.rules.finder import RuleMap
from padtui.core.sequences.ends import common_ends
from padtui.core.storage.fsio import Stamp
from padtui.core.storage.journal import OWN_ORIGINS, Journal
from padtui.core.storage.journal import Version as JournalVersion  # (a version as journaled)
from padtui.core.storage.store import JournalArg, Snapshot, journal_of, snapshot_of

BUDGET_STEP = 0.10  # [ and ] change the budget by 10 % of the budget they started from
# who made a version: the journal's "seen" is a write padtui did not make (an agent's); any
# other origin is padtui's own write, the user's own action (never an alarm)
OWN = frozenset({"padtui", *OWN_ORIGINS})


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class InJournal:
    """A version's reading without its bytes, which its journal holds (version ``n``):
    what an older version keeps. Its parse stays (shared with its neighbours'); its bytes
    come back from the journal when asked for, checked against their digest."""

    path: str
    target: str
    pad: Pad
    layout: Layout
    stamp: Stamp
    journal: Journal
    n: int
    digest: str

    @classmethod
    def of(cls, snapshot: Snapshot, journal: Journal, n: int, key: str) -> InJournal:
        f = snapshot.file
        if f.path != snapshot.path:  # (never so: a snapshot is read by its pad file's name)
            raise ValueError(f"{snapshot.path}: read as {f.path}")
        return cls(snapshot.path, snapshot.target, f.pad, f.layout, snapshot.stamp, journal, n, key)

    def snapshot(self) -> Snapshot:
        """The version as read, its bytes read back from the journal (PadError when the
        journal no longer holds them: damaged, or another pad's)."""
        data = self.journal.data(self.n)
        if digest(data) != self.digest:
            raise PadError(
                self.journal.path, f"version {self.n} there is not the version seen as it"
            )
        f = PadFile(self.path, self.pad, self.layout, data)
        return Snapshot(self.path, self.target, f, self.stamp)


@dataclass(frozen=True, kw_only=True)
class SeenVersion:
    """One version of the pad as it was seen, with the audit of the rewrite that made it.

    The current version holds its bytes (a commit compares against them); an older one that
    its journal holds keeps only its parse, and reads its bytes back from there on demand
    (``snapshot``, ``pad_file``): memory per version is what changed, not the pad's size."""

    number: int  # its number in the journal (counted from 1 here when there is no journal)
    seen_at: datetime
    read: Snapshot | InJournal  # as read; an older version's without its bytes
    digest: str
    origin: str  # "initial", "agent" or "padtui" (a commit made here)
    tokens: int
    sealed_tokens: int
    claims: int
    caution_share: float
    audit: Audit | None  # against the version before; None for the first
    journal: Journal | None = None  # the journal that holds it as version ``number``

    @property
    def verdict(self) -> str:
        return self.audit.verdict if self.audit is not None else "initial"

    @property
    def pad(self) -> Pad:
        return self.read.pad

    @property
    def layout(self) -> Layout:
        return self.read.layout if isinstance(self.read, InJournal) else self.read.file.layout

    @property
    def stamp(self) -> Stamp:
        return self.read.stamp

    @property
    def holds_bytes(self) -> bool:
        return isinstance(self.read, Snapshot)

    @property
    def snapshot(self) -> Snapshot:
        """The version as read (an older one's bytes read back from its journal)."""
        return self.read if isinstance(self.read, Snapshot) else self.read.snapshot()

    @property
    def pad_file(self) -> PadFile:
        return self.snapshot.file

    def without_bytes(self) -> SeenVersion:
        """This version, its bytes let go when its journal holds them (else as it is)."""
        if self.journal is None or not isinstance(self.read, Snapshot):
            return self
        return replace(self, read=InJournal.of(self.read, self.journal, self.number, self.digest))


class Parsed(Protocol):
    """A version parsed: a :class:`PadFile`, or a :class:`SeenVersion` (whose bytes may be in
    its journal only)."""

    @property
    def pad(self) -> Pad: ...

    @property
    def layout(self) -> Layout: ...


_SOURCE = attrgetter("source")


def shared(old: Parsed, new: PadFile) -> PadFile:
    """``new``, its unchanged entries (and the text between them) being ``old``'s own objects.

    A live pad is mostly the same from one version to the next: keeping a thousand versions
    then costs a thousand copies of the bytes, not a thousand parsed pads (and an audit
    knows an entry that is the very same object for unchanged at a glance).
    """
    # in some formats an entry is what its source text says: the same text, the same entry
    # (elsewhere, a Markdown bullet's kind comes from its section: compare the entries)
    fmt = named(new.layout.format)
    by_source = fmt is not None and fmt.entry_is_source and new.layout.format == old.layout.format
    olds, news = old.pad.entries, new.pad.entries
    # (a read against the version before takes its unchanged entries over already: those at
    # the two ends that are its very objects are passed over at C speed)
    a, t = common_ends(olds, news)
    moved: dict[str, Entry] | None = None  # old entries by source, if some moved
    looked = False  # (the old sources looked through once already)
    entries = list(news[:a])
    for i in range(a, len(news) - t):
        e = news[i]
        o = olds[i] if i < len(olds) else None
        if o is None or o.source != e.source:  # not in its place: elsewhere, perhaps
            o = None
            if e.source is not None and moved is None:
                # (an edit's text is nowhere in the old version: one look in C for the first,
                # the map of the old sources made for a second, or once one is found)
                if looked or e.source in map(_SOURCE, olds):
                    moved = {x.source: x for x in olds if x.source is not None}
                looked = True
            if moved is not None and e.source is not None:
                o = moved.get(e.source)
        if (
            o is None
            or e.source is None
            or (not by_source and (o != e or o.raw != e.raw or o.context != e.context))
        ):
            entries.append(e)
        elif o.index == e.index:
            entries.append(o)
        else:  # moved: a new entry, made of the old one's parts
            entries.append(replace(o, index=e.index))
    entries += news[len(news) - t :]
    before, after = old.layout.pieces, new.layout.pieces
    a, t = common_ends(before, after)
    pieces = [
        *after[:a],
        *(
            before[i] if i < len(before) and before[i] == after[i] else after[i]
            for i in range(a, len(after) - t)
        ),
        *after[len(after) - t :],
    ]
    layout = replace(new.layout, pieces=tuple(pieces))
    return replace(new, pad=replace(new.pad, entries=tuple(entries)), layout=layout)


def journal_origin(origin: str, first: bool = False) -> str:
    """Who made a journaled version, as an inspection says it."""
    if origin == "seen":
        return "initial" if first else "agent"
    if origin in ("compact", "externalize"):  # a commit (from the inspector, most often)
        return "padtui"
    return origin  # "restore", "write": padtui's own too, by their own name


@dataclass(frozen=True)
class Alarm:
    """A transition whose audit found corruption or undeclared loss."""

    version: SeenVersion
    audit: Audit
    before: str  # the digest of the version it was audited against (a restore of it undoes it)

    @property
    def critical(self) -> bool:
        return self.audit.verdict == "corruption"


@dataclass(frozen=True)
class Observed:
    """What a new reading of the file changed."""

    version: SeenVersion
    alarm: Alarm | None
    trial_invalidated: bool


class Arrival(TypedDict, total=False):
    """Where a version taken in comes from, when the caller knows (a replayed journal, a
    version journaled before it is taken in); each left out is found."""

    now: datetime | None  # when it was seen (else the inspection's clock's now)
    origin: str | None  # who made it (else: initial, padtui for its own writes, agent)
    number: int | None  # its number in the journal (else the one after the version before)
    # the journal holding it as that number: once it is not the current version, its bytes
    # are let go, and read back from there on demand
    journal: Journal | None


@dataclass(frozen=True, kw_only=True)
class Examined:
    """A reading worked out against the version before it, not yet taken in
    (:meth:`Inspection.examine`)."""

    snapshot: Snapshot  # its parse shared with the version before's
    digest: str
    after: str | None  # the digest of the version it was examined against (None: the first)
    tokens: int
    sealed_tokens: int
    claims: int
    caution: int
    audit: Audit | None
    parsed: PadFile | None = None  # its parse as read (see Inspection.look_ahead)


class Journaled(NamedTuple):
    """Where a version seen was journaled (all None: it was not)."""

    number: int | None
    origin: str | None  # who made it when padtui did (a commit or a restore), else None
    journal: Journal | None


def journal_seen(snapshot: Snapshot, journal: JournalArg, since: int | None = None) -> Journaled:
    """Journal a version seen: its number in the journal, who made it when padtui did (a
    commit or a restore, from the inspector or the command line), and the journal.
    ``since``: the journal's number of the version seen before it (see ``Journal.append``).
    Raises ``OSError`` or ``PadError`` when the journal cannot be written."""
    j = journal_of(snapshot.path, journal)
    if j is None:
        return Journaled(None, None, None)
    n = j.append(snapshot.data, snapshot.format, "seen", snapshot.file, since=since)
    return _journaled(j, j.version(n))


def journaled_already(snapshot: Snapshot, key: str, journal: JournalArg) -> Journaled:
    """Where a version seen is journaled already, found without writing anything: the
    journal's newest version when it holds these very bytes (``key``, their digest), as
    padtui's own commit or restore journals what it has written; else all None. (A version
    shown before it is journaled is known for a restore by this, so never an alarm.)
    Raises ``OSError`` or ``PadError`` when the journal cannot be read."""
    j = journal_of(snapshot.path, journal)
    newest = j.latest() if j is not None else None
    if j is None or newest is None or newest.sha256 != key:
        return Journaled(None, None, None)
    return _journaled(j, newest)


def _journaled(j: Journal, v: JournalVersion) -> Journaled:
    origin = journal_origin(v.origin)
    return Journaled(v.n, origin if origin in OWN else None, j)


@dataclass
class Inspection:
    """One person watching one pad."""

    path: str
    policy: str = "strict"
    budget_override: int | None = None
    encoding: str | None = None
    versions: list[SeenVersion] = field(default_factory=list)
    alarms: list[Alarm] = field(default_factory=list)
    trial: Plan | None = None
    step: int = 0  # how many of the trial's drops the preview shows
    status: str = "waiting"  # "live", "unreadable" or "deleted"
    status_detail: str = ""
    own_writes: set[str] = field(default_factory=set)
    clock: Callable[[], datetime] = utc_now  # when versions are seen, loss records stamped
    keep_versions: int | None = None  # keep only the newest N versions in memory (None: all)
    rule_map: RuleMap | None = None  # the headings that hold rules (None: padtui's own)
    released: int = 0  # older versions let go of (the journal still holds them)
    # [ and ] walk a ladder of budgets: (the budget it starts from, steps taken from it)
    ladder: tuple[int, int] | None = None
    acknowledged: set[int] = field(default_factory=set)  # versions whose alarm was seen to
    undone: set[int] = field(default_factory=set)  # versions whose alarm a restore undid
    # the pad's counters, with its count cache kept between runs (None: the process's own)
    counters: PadCounters | None = None
    # a version examined while the settle rule waited on it (see look_ahead)
    _ahead: Examined | None = field(default=None, repr=False)

    @property
    def counter(self) -> TokenCounter:
        """The counter of the version on screen (see :meth:`counter_of`)."""
        return self.counter_of(self.current.pad if self.versions else None)

    def counter_of(self, pad: Pad | None) -> TokenCounter:
        """The counter of ``pad``'s tokens: the encoding asked for, else the one the pad
        names, else cl100k_base. Raises EncodingUnavailable for one not here."""
        encoding = self.encoding or (pad.encoding if pad else None)
        if self.counters is not None:
            return self.counters.counter(encoding)
        return counter_for(encoding)

    @property
    def current(self) -> SeenVersion:
        return self.versions[-1]

    @property
    def budget(self) -> int:
        return resolve_budget(self.current.pad, self.budget_override)

    # --- readings ------------------------------------------------------------------------

    @property
    def outstanding(self) -> list[Alarm]:
        """The alarms the user has not dealt with (acknowledged, or undone by a restore)."""
        done = self.acknowledged | self.undone
        return [a for a in self.alarms if a.version.number not in done]

    def acknowledge(self, numbers: set[int]) -> None:
        self.acknowledged |= numbers

    def observe(self, snapshot: Snapshot, **arrival: Unpack[Arrival]) -> Observed | None:
        """Take in a reading of the file (:meth:`examine`, then :meth:`take_in`); None if
        it is the version already on screen."""
        self.status, self.status_detail = "live", ""
        examined = self.examine(snapshot)
        if examined is None:
            return None
        return self.take_in(examined, **arrival)

    def look_ahead(self, pad_file: PadFile) -> None:
        """Examine a parse of the pad that has not settled yet, while the settle rule waits
        on it (a watch's worker thread, idle otherwise): :meth:`examine` of a reading of
        these very bytes, parsed so, is then made already. (Nothing else is changed here;
        a failure is passed over, and met again by :meth:`examine` if they settle.)"""
        try:
            snapshot = snapshot_of(pad_file)
            self._ahead = self.examine(snapshot)
        except Exception:  # (see the docstring)
            self._ahead = None

    def examine(self, snapshot: Snapshot) -> Examined | None:
        """The costly half of observing a reading, which changes nothing here (a worker
        thread does it while the screen goes on drawing): the new version's parse shared
        with the one before, its totals and its audit. None if it is the version already
        taken in."""
        previous = self.versions[-1] if self.versions else None
        ahead, self._ahead = self._ahead, None
        if (
            ahead is not None
            and ahead.parsed is snapshot.file
            and ahead.after == (previous.digest if previous is not None else None)
        ):  # (examined as it settled: the very parse, against the same version)
            return replace(ahead, snapshot=replace(snapshot, file=ahead.snapshot.file))
        key = digest(snapshot.file.data)
        if previous is not None and previous.digest == key:
            return None
        parsed = snapshot.file
        if previous is not None:
            snapshot = replace(snapshot, file=shared(previous, snapshot.file))
        pad = snapshot.file.pad
        counter = self.counter_of(pad)  # (a first version's own encoding, not the default)
        counted = totals(pad, counter)
        result = None
        if previous is not None:
            result = audit(previous.pad, pad, counter, self.rule_map)
            result = replace(result, matches=Pairs(result.matches))  # (kept: kept small)
        return Examined(
            snapshot=snapshot,
            parsed=parsed,
            digest=key,
            after=previous.digest if previous is not None else None,
            tokens=counted.tokens,
            sealed_tokens=counted.sealed,
            claims=counted.claims,
            caution=counted.caution,
            audit=result,
        )

    def take_in(self, examined: Examined, **arrival: Unpack[Arrival]) -> Observed | None:
        """The cheap half: the examined version becomes the current one, audited, numbered,
        and an alarm raised if its rewrite lost what it should not have. A version examined
        against one that is no longer the current (another came in meanwhile) is examined
        again first."""
        origin, number = arrival.get("origin"), arrival.get("number")
        journal = arrival.get("journal")
        self.status, self.status_detail = "live", ""
        previous = self.versions[-1] if self.versions else None
        if (previous.digest if previous is not None else None) != examined.after:
            again = self.examine(examined.snapshot)
            if again is None:
                return None
            examined = again
        key = examined.digest
        if origin is not None:
            pass
        elif previous is None:
            origin = "initial"
        elif key in self.own_writes:
            origin = "padtui"
        else:
            origin = "agent"
        if number is None:
            number = previous.number + 1 if previous is not None else 1
        tokens = examined.tokens
        result = examined.audit
        version = SeenVersion(
            number=number,
            seen_at=arrival.get("now") or self.clock(),
            read=examined.snapshot,
            digest=key,
            origin=origin,
            tokens=tokens,
            sealed_tokens=examined.sealed_tokens,
            claims=examined.claims,
            caution_share=examined.caution / tokens if tokens else 0.0,
            audit=result,
            journal=journal,
        )
        if previous is not None:
            self.versions[-1] = previous.without_bytes()
        self.versions.append(version)
        if self.keep_versions is not None and len(self.versions) > max(self.keep_versions, 1):
            gone = len(self.versions) - max(self.keep_versions, 1)
            del self.versions[:gone]
            self.released += gone
        alarm = None
        # the bytes of a version an alarm was audited against, back (a restore, or the file
        # copied back by hand): that alarm is undone, whoever wrote them
        self.undone |= {a.version.number for a in self.alarms if a.before == key}
        if origin in OWN:
            pass
        elif (
            previous is not None
            and result is not None
            and result.verdict in ("corruption", "undeclared_loss")
        ):
            alarm = Alarm(version, result, previous.digest)
            self.alarms.append(alarm)
        invalidated = self.trial is not None
        self.trial = None
        self.step = 0
        return Observed(version, alarm, invalidated)

    def journaled_before(self, key: str) -> int | None:
        """The journal's number of the version taken in just before the newest version
        ``key``, when the journal holds it (None: the first, or not journaled)."""
        for i in range(len(self.versions) - 1, 0, -1):
            if self.versions[i].digest == key:
                before = self.versions[i - 1]
                return before.number if before.journal is not None else None
        return None

    def journaled(
        self, key: str, number: int, origin: str | None = None, journal: Journal | None = None
    ) -> bool:
        """The journal's number for the version ``key``, taken in before it was journaled (a
        version is on screen before the append), and padtui as who made it when the journal
        says so (a restore journaled meanwhile): its alarm is then withdrawn. ``journal``:
        the journal that holds it so (its bytes are let go once it is not the current
        version). Returns whether what is shown of it changed (its number, who made it)."""
        for i in range(len(self.versions) - 1, -1, -1):
            v = self.versions[i]
            if v.digest != key:
                continue
            own = origin if origin is not None and origin in OWN else None
            shown = v.number != number or (own is not None and own != v.origin)
            if not shown and (journal is None or v.journal is journal):
                return False
            new = replace(v, number=number, origin=own or v.origin, journal=journal or v.journal)
            if i < len(self.versions) - 1:
                new = new.without_bytes()
            self.versions[i] = new
            alarms = [a for a in self.alarms if a.version is not v]
            if own is None:
                alarms += [replace(a, version=new) for a in self.alarms if a.version is v]
            else:  # (as taking it in as padtui's own would have: see take_in)
                self.undone |= {a.version.number for a in alarms if a.before == key}
            self.alarms = sorted(alarms, key=lambda a: a.version.number)
            return shown
        return False

    def open_journal(self, journal: Journal, recent: int, most_bytes: int | None = None) -> int:
        """Take in the newest ``recent`` versions of the journal, audited and numbered as it
        numbers them, with the alarms the user acknowledged there (before the file itself is
        read: a version written while padtui was closed is then audited against the last one
        journaled). Fewer when they hold more than ``most_bytes`` in all (each costs a parse,
        a count and an audit), but never fewer than two (the last rewrite journaled, audited).
        Returns how many were taken in. Versions lost to damage or that did not parse are
        passed over."""
        self.acknowledged |= journal.acknowledged()
        wanted = [v for v in journal.versions() if v.parsed][-max(recent, 1) :]
        if most_bytes is not None:
            while len(wanted) > 2 and sum(v.size for v in wanted) > most_bytes:
                del wanted[0]
        return self._take_journaled(journal, wanted)

    def _take_journaled(self, journal: Journal, wanted: list[JournalVersion]) -> int:
        """Take in the journaled versions ``wanted``, in order; returns how many."""
        taken = 0
        for v in wanted:
            previous = self.current.snapshot.file if self.versions else None
            try:
                pad_file = journal.pad_file(v.n, previous)
            except PadError:
                continue
            try:
                seen = datetime.fromisoformat(v.at.replace("Z", "+00:00"))
            except ValueError:
                seen = datetime.fromtimestamp(v.time_ns / 1e9, UTC)
            origin = journal_origin(v.origin, first=v.n == 1)
            snapshot = snapshot_of(pad_file)
            if self.observe(snapshot, now=seen, origin=origin, number=v.n, journal=journal):
                taken += 1
        return taken

    def earlier(self, journal: Journal, count: int, oldest: int | None = None) -> list[SeenVersion]:
        """The history before what was taken in on opening: up to ``count`` journaled
        versions older than version ``oldest`` (by default the oldest one here), each
        audited against the one before it, followed by version ``oldest`` audited against
        the last of them (taken in on opening, it had nothing to be audited against).
        Changes nothing here; empty when the journal holds nothing older."""
        if oldest is None:
            if not self.versions:
                return []
            oldest = self.versions[0].number
        listed = [v for v in journal.versions() if v.parsed and v.n <= oldest]
        if len(listed) < 2 or listed[-1].n != oldest:
            return []
        wanted = listed[-(count + 2) :]  # (one more, that the first returned is audited too)
        past = Inspection(
            self.path,
            policy=self.policy,
            budget_override=self.budget_override,
            encoding=self.encoding,
            clock=self.clock,
            rule_map=self.rule_map,
            counters=self.counters,
        )
        past._take_journaled(journal, wanted)
        found = past.versions
        return found[1:] if len(wanted) == count + 2 and len(found) > 1 else found

    def unreadable(self, detail: str) -> None:
        """The file cannot be read right now; the last good version stays on screen."""
        self.status, self.status_detail = "unreadable", detail

    def deleted(self) -> None:
        self.status, self.status_detail = "deleted", "the pad file is gone"

    # --- the trial -----------------------------------------------------------------------

    def start_trial(self) -> Plan:
        self.trial = plan(
            self.current.pad,
            self.budget_override,
            self.policy,
            self.counter,
            now=self.clock(),
            fmt=self.current.layout.format,
            rule_map=self.rule_map,
        )
        self.step = len(self.trial.dropped)
        return self.trial

    def end_trial(self) -> None:
        self.trial = None
        self.step = 0

    def step_forward(self) -> bool:
        if self.trial is None or self.step >= len(self.trial.dropped):
            return False
        self.step += 1
        return True

    def step_back(self) -> bool:
        if self.trial is None or self.step <= 0:
            return False
        self.step -= 1
        return True

    @property
    def previewed_drops(self) -> tuple[Entry, ...]:
        """The drops the preview shows at the current step, in file order."""
        return self.trial.dropped[: self.step] if self.trial is not None else ()

    @property
    def preview_tokens(self) -> int:
        """Tokens of the pad as the preview shows it at the current step."""
        if self.trial is None:
            return self.current.tokens
        gone = sum(self.trial.costs[e.index] for e in self.previewed_drops)
        record = self.trial.record_tokens if self.step else 0
        return self.current.tokens - gone + record

    @property
    def preview_claims(self) -> int:
        """Claims of the pad as the preview shows it at the current step: the drops made so
        far gone, the loss record there from the first drop on (as its tokens are)."""
        trial = self.trial
        if trial is None:
            return self.current.claims
        if self.step >= len(trial.dropped):
            return trial.claims_after
        if not self.step or trial.refused:
            return trial.claims_before
        record = (trial.loss_record,) if trial.loss_record is not None else ()
        return trial.claims_before - pad_claims(self.previewed_drops) + pad_claims(record)

    @property
    def halted(self) -> bool:
        """Is the sealed region alone over the budget (no pass can help: halt and surface)?
        Not for a pad whose format has no token budget (a Letta agent file)."""
        if not self.versions:
            return False
        fmt = named(self.current.layout.format)
        if fmt is None or not fmt.token_budget:
            return False
        return self.current.sealed_tokens > self.budget

    # --- settings ------------------------------------------------------------------------

    def set_budget(self, budget: int) -> None:
        self.budget_override = max(0, budget)
        self._replan()

    def scale_budget(self, up: bool) -> None:
        """One step up or down a ladder of budgets 10 % of its start apart: ``[`` then ``]``
        comes back to the very budget it left. A budget set otherwise starts a new ladder."""
        stepped = self.stepped_budget(up)
        if stepped is None:
            return  # (the ladder ends at 0)
        budget, self.ladder = stepped
        self.set_budget(budget)

    def stepped_budget(self, up: bool) -> tuple[int, tuple[int, int]] | None:
        """The budget one step up or down the ladder would set, and the ladder then (None:
        none below 0). Up from under the sealed region (a halt), where steps of 10 % of a
        tiny budget would take a hundred presses, the ladder starts at the sealed region's
        size: a step that would not lift the halt lifts it."""
        start, steps = self.ladder if self.ladder is not None else (self.budget, 0)
        if self.budget != start + steps * max(1, round(start * BUDGET_STEP)):
            start, steps = self.budget, 0  # (typed, or the pad's own changed)
        change = max(1, round(start * BUDGET_STEP))
        steps += 1 if up else -1
        if up and self.halted and start + steps * change < self.current.sealed_tokens:
            start, steps = max(self.current.sealed_tokens, 1), 1
            change = max(1, round(start * BUDGET_STEP))
        if start + steps * change < 0:
            return None
        return start + steps * change, (start, steps)

    def switch_policy(self) -> str:
        self.policy = POLICIES[(POLICIES.index(self.policy) + 1) % len(POLICIES)]
        self._replan()
        return self.policy

    def _replan(self) -> None:
        if self.trial is not None:
            self.start_trial()

    def note_own_write(self, data: bytes) -> None:
        """Remember bytes this inspector wrote, so that reading them back is not an agent write.

        The folder watch may read the new file before the commit returns: a version already
        taken for the agent's is then relabelled as the inspector's own.
        """
        key = digest(data)
        self.own_writes.add(key)
        if self.versions and self.current.digest == key and self.current.origin == "agent":
            self.versions[-1] = replace(self.current, origin="padtui")
