"""Is a claim carried? Finding an old claim anywhere in a new version, and what force it kept.

An old claim is *found* where some new claim (or two neighbouring claims of one entry, for a
sentence split in two) holds most of its content words; a rule found there is *carried* when
it also keeps its force: the same polarity, no weaker modal, its conditions, its numbers in
their context and its names. Every verdict names the words that moved it.
"""

from __future__ import annotations

import heapq
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from padtui.core.audit.wording import addressees, cut, examples, name_kinds, names_in, normalize
from padtui.core.model import Entry
from padtui.core.rules import finder as R
from padtui.core.vocabulary import Reason

_LATIN = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CJK_RUN = re.compile(r"[\u30a0-\u30ff\u3400-\u9fff\uf900-\ufaff\uff66-\uff9f]+")
_STOP = _words(
    """a about above after again against all also always am an and any are as at be because
    been before being below both but by can could did do does doing done down during each
    either else even ever every few for from further get gets got had has have having he her
    here hers him his how however i if in into is it its itself just let lets like make makes
    may me might more most much must my need needs never no nor not of off ok okay on once one
    only onto or other our ours out over own per please same shall she should so some such
    than that the their theirs them then there these they this those through to too under
    until up upon us use used uses using very via was we were what when whenever where which
    while who whom why will with without would yet you your yours thing things way ways etc
    eg ie vs instead rather each new first then also really actually sure want wants
    important note notes rule rules avoid prefer try consider careful ensure always required
    der die das und oder nicht nie niemals immer muss soll sollte kann ein eine einen mit
    von zu im ist sind wenn bei nur kein keine le la les et ou ne pas jamais toujours doit
    un une des du de en au aux pour avec sans sur est sont si el los las y o nunca siempre
    debe con sin por para es son lo un una del al que go ll re ve"""
)
_NEGATION_WORD = re.compile(
    r"not|no|never|none|nor|cannot|\w+n['\u2019]t|(?:do|does|did|is|are|was|were|ca|wo|could|"
    r"would|should|must|has|have|had)nt|nicht|nie|niemals|kein\w*|jamais|nunca|jam[aá]s"
)
_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "ly")


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    """A crude stem, the same for the forms a rewrite uses (use, uses, used, using: us)."""
    w = word.lower().replace("\u2019", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "xes", "zes", "ches", "shes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 2:
            w = w[: -len(suffix)]
            break
    if w.endswith("i") and len(w) > 3:
        w = w[:-1] + "y"  # retried: retry
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiousl":
        w = w[:-1]  # running: run
    if len(w) > 2:
        w = w.rstrip("e") or w
    return w[:5]


def stems(text: str) -> frozenset[str]:
    """The content words of a text, crudely stemmed, and the character pairs of its
    Japanese and Chinese runs (which have no spaces between words)."""
    return _stems(text)


@lru_cache(maxsize=200_000)
def _stems(text: str) -> frozenset[str]:
    out = set()
    for w in _LATIN.findall(text):
        low = w.lower().replace("\u2019", "'")
        if low.endswith("'s"):
            low = low[:-2]
        if low in _STOP or len(low) < 2 or _NEGATION_WORD.fullmatch(low):
            continue
        out.add(_stem(low))
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            out.add(run)
        out.update(run[i : i + 2] for i in range(len(run) - 1))
    return frozenset(out)


# --- the claims of a version, indexed by content word --------------------------------------


@dataclass(frozen=True)
class NewClaim:
    """A claim of the new version, with what its force reads from."""

    entry: int
    position: int
    text: str
    body: str
    stems: frozenset[str]
    lent: str | None  # the heading or label that lends it force, when it has none of its own


def claims_of(e: Entry) -> list[NewClaim]:
    return [
        NewClaim(e.index, position, text, body, words, lent)
        for position, text, body, words, lent, _keys in _claim_parts(e.text, e.context)
    ]


ClaimParts = tuple[int, str, str, frozenset[str], str | None, frozenset[str]]


@lru_cache(maxsize=65536)
def _claim_parts(text: str, context: tuple[str, ...]) -> tuple[ClaimParts, ...]:
    """An entry's claims, read once per text (versions seen live share most of them)."""
    out = []
    for c in R.entry_claims(text):
        words = stems(f"{c.label} {c.body}")
        keys = words | _name_keys(c.body)
        out.append((c.position, c.text, c.body, words, R.lent_by(c, context), keys))
    return tuple(out)


class ClaimIndex:
    """The claims of some entries of a version, found by content word."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.claims: list[NewClaim] = []
        self.by_entry: dict[int, list[NewClaim]] = defaultdict(list)
        self.postings: dict[str, list[int]] = defaultdict(list)
        self.keys: list[frozenset[str]] = []  # each claim's words and names
        self.by_body: dict[str, list[int]] = {}  # the claims that say a text word for word
        for e in entries:
            if e.kind == "loss_record":
                continue  # a record quotes what went: it declares a loss, it carries nothing
            for parts in _claim_parts(e.text, e.context):
                c = NewClaim(e.index, *parts[:5])
                keys = parts[5]
                for s in keys:
                    self.postings[s].append(len(self.claims))
                self.keys.append(keys)
                self.by_entry[e.index].append(c)
                self.by_body.setdefault(normalize(c.body), []).append(len(self.claims))
                self.claims.append(c)

    def candidates(self, want: frozenset[str], limit: int = 6) -> list[tuple[float, NewClaim]]:
        """The claims that hold most of ``want``, best first, with the share they hold.

        A claim that holds the half of ``want`` that :func:`find` asks for holds at least one
        of its rarest ``n - needed + 1`` words, so only their postings are read (and every
        name's, and for a short claim every word's): the common words of a large pad never
        make this quadratic.
        """
        words = [w for w in want if w in self.postings]
        if not words:
            return []
        plain = [w for w in words if not w.startswith("\x00")]
        words.sort(key=lambda w: (len(self.postings[w]), w))
        n = len([w for w in want if not w.startswith("\x00")])
        scan = words if n <= 3 else [w for w in words if w.startswith("\x00")]
        scan += sorted(plain, key=lambda w: (len(self.postings[w]), w))[: n - _needed(n) + 1]
        seen: set[int] = set()
        for w in scan:
            seen.update(self.postings[w])
        # the most held first (a name or number counts twice: it is what tells claims
        # apart), then the first in the version
        marked = {w for w in want if w.startswith("\x00")}
        top = heapq.nlargest(
            limit, ((len(want & self.keys[i]) + len(marked & self.keys[i]), -i) for i in seen)
        )
        plain_want = len(want) - len(marked) or 1
        return [
            (len((want - marked) & self.keys[-minus]) / plain_want, self.claims[-minus])
            for _score, minus in top
        ]

    def same(self, body: str) -> list[tuple[float, NewClaim]]:
        """The claims that say ``body`` word for word (found first, whatever else shares
        its words)."""
        return [(1.0, self.claims[i]) for i in self.by_body.get(normalize(body), ())]

    def window(self, c: NewClaim) -> list[NewClaim]:
        """The claim with its neighbours in its entry (a sentence split in two, a bullet
        joined to the next)."""
        mine = self.by_entry.get(c.entry, [])
        return [n for n in mine if abs(n.position - c.position) <= 1]


# --- carrying ---------------------------------------------------------------------------------


LOOSER, TIGHTER, UNSURE = "looser", "tighter", "unsure"


@dataclass(frozen=True)
class Change:
    """One change of a rule's force: what part (``reason``: polarity, modal, condition,
    number, name), which way (looser, tighter, or unsure: no strong evidence either way),
    and in words."""

    reason: Reason
    way: str
    text: str


@dataclass(frozen=True)
class Carry:
    """Where an old claim went: carried, weakened (with the reasons), or not found."""

    found: NewClaim | None
    lost: tuple[str, ...] = ()  # what the rule lost of its force (empty: carried whole)
    tighter: tuple[str, ...] = ()  # what it gained (carried, and stricter than before)
    unsure: tuple[str, ...] = ()  # what changed that the audit cannot read with confidence
    changes: tuple[Change, ...] = ()  # each of the above, with its reason and direction

    @property
    def carried(self) -> bool:
        return self.found is not None and not self.lost and not self.unsure


_ELSEWHERE = 0.8  # the share of a rule's words a copy elsewhere must hold


def _needed(n: int) -> int:
    return n if n <= 2 else (n + 1) // 2


@dataclass(frozen=True)
class OldClaim:
    """An old claim to look for: a rule (with the heading that lends it force) or not."""

    text: str
    body: str
    rule: bool
    lent: str | None = None
    label: str = ""  # its bold label ("**ORM:** Prisma ..."): the topic, often kept
    around: frozenset[str] = frozenset()  # the content words of the claims beside it
    before: frozenset[str] = frozenset()  # the content words of the claim before it
    whole: str = ""  # the whole claim's body, when this is one of two rules joined in it


def find(
    old: OldClaim,
    indexes: Iterable[ClaimIndex],
    stood: Callable[[NewClaim], bool] = lambda c: False,
    *,
    loose: bool = True,
    anywhere: Callable[[str], bool] = lambda name: False,
) -> Carry:
    """Look for ``old`` in each index in turn (the entry it was matched to, the entries this
    rewrite changed, then the whole version); the first place that carries it wins.

    ``stood(c)``: the new claim ``c`` stood in the old version as it stands now, so it is
    not where another old claim went (it was there all along, a rule of its own).
    """
    sought = _Sought.of(old)
    weakest: Carry | None = None
    best: tuple[bool, float] = (False, 0.0)
    for index in indexes:
        weak_before = weakest is not None
        for share, c in index.same(old.body) + index.candidates(sought.keys):
            if _stood_apart(old, c, stood):
                continue
            if weak_before and share < _ELSEWHERE:
                continue  # weakened where it went: only a near copy elsewhere keeps it
            window = index.window(c)
            held, named = _holds(sought, old, share, window, loose)
            if not held:
                continue
            if not old.rule:
                return Carry(c)
            carry = _carry(old, c, window, anywhere)
            if not carry.lost and not carry.unsure:
                return carry
            rank = (named, share)
            if weakest is None or rank > best:
                weakest, best = carry, rank
    return weakest or Carry(None)


@dataclass(frozen=True)
class _Sought:
    """What tells an old claim in a new version: its content words, those of its core, its
    names, its identifiers and telling numbers."""

    want: frozenset[str]
    core: frozenset[str]
    names: list[str]
    anchors: list[str]
    keys: frozenset[str]  # what the index is asked for

    @staticmethod
    def of(old: OldClaim) -> _Sought:
        want, core = _wanted(old), _core(old)
        keys = want | core | _name_keys(old.body)
        return _Sought(want, core, names_in(old.body), _anchors(old.body), keys)


def _stood_apart(old: OldClaim, c: NewClaim, stood: Callable[[NewClaim], bool]) -> bool:
    """A new claim that stood as it stands now, and is not the old claim's very words."""
    return normalize(c.body) not in (normalize(old.body), normalize(old.whole)) and stood(c)


def _holds(
    sought: _Sought, old: OldClaim, share: float, window: Sequence[NewClaim], loose: bool
) -> tuple[bool, bool]:
    """Does this window hold the old claim (most of its words or of its core, every object
    it names, or for a short claim, a place among what stood beside it)? And does it name
    every object the old claim did?"""
    want, core = sought.want, sought.core
    flat = " ".join(n.body for n in window)
    have = stems(flat)
    held = share * len(want) >= _needed(len(want)) or len(want & have) >= _needed(len(want))
    held = held or (bool(core) and len(core & have) >= _needed(len(core)))
    named = bool(sought.names) and all(keeps_name(n, flat) for n in sought.names)
    if sought.anchors and not named:  # its identifiers and telling numbers, all there
        named = all(keeps_name(a, flat) for a in sought.anchors)
    placed = loose and len(want) <= 3 and share > 0 and _beside(old.around, flat)
    return held or named or placed, named


def _carry(
    old: OldClaim, c: NewClaim, window: Sequence[NewClaim], anywhere: Callable[[str], bool]
) -> Carry:
    """The rule ``old`` found in ``c``: what it lost, gained, or changed unreadably."""
    changes = tuple(compare(old, c, window, anywhere))
    lost = tuple(ch.text for ch in changes if ch.way == LOOSER)
    unsure = tuple(ch.text for ch in changes if ch.way == UNSURE)
    tighter = tuple(ch.text for ch in changes if ch.way == TIGHTER)
    return Carry(c, lost, tighter, unsure, changes)


def _wanted(old: OldClaim) -> frozenset[str]:
    """The content words to look for: the claim's own, and for a claim that says little
    by itself ("do not use them"), those of the claim before it, which it points back to."""
    want = stems(f"{old.label} {old.body}")
    return want if len(want) >= 2 else want | old.before


def _core(old: OldClaim) -> frozenset[str]:
    """The content words of a rule without what a rewrite may leave out or swap and still
    state it: its way out ("unless the release manager asks") and its examples ("e.g.
    \"Great question!\""). Empty when it has neither."""
    core = stems(f"{old.label} {_aside(old.body)}")
    if not core or core == stems(f"{old.label} {old.body}"):
        return frozenset()
    return core if len(core) >= 2 else core | old.before


def _aside(text: str) -> str:
    """The text without its examples and its exceptions."""
    text = _EXAMPLE_PART.sub(" ", text)
    return _ESCAPE_PART.sub(" ", text)


_EXAMPLE_PART = re.compile(
    r"\([^()]*\)|\b(?:e\.\s?g\.?|for\s+(?:example|instance)|such\s+as|z\.\s?B\.|p\.\s?ex\.|"
    r"por\s+ejemplo)[:,]?\s*[^.;!?\n]*|(?:例えば|例如|比如)[^。；\n]*",
    re.IGNORECASE,
)
_ESCAPE_PART = re.compile(
    r"\b(?:unless|except|außer|sauf|salvo|excepto)\b[^.;!?\n]*", re.IGNORECASE
)


def _beside(around: frozenset[str], flat: str) -> bool:
    return bool(around) and len(around & stems(flat)) * 3 >= len(around)


def _anchors(text: str) -> list[str]:
    """What tells a claim apart whatever its wording: its identifiers, and numbers that are
    not small counts (``5.0``, ``3.12``, ``5432``, ``v1``)."""
    ids, _proper = name_kinds(text)
    nums = [n for n, _ in R.numbers(text) if len(n) >= 3 or not n.isdigit()]
    return sorted(ids) + nums if ids or len(nums) >= 1 else []


def _name_keys(text: str) -> frozenset[str]:
    """A claim's names and numbers as index keys (kept apart from its words by a mark no
    word has)."""
    keys = {"\x00" + n for n, _ in R.numbers(text)} if _DIGIT.search(text) else set()
    if _MAYBE_NAME.search(text):
        keys.update("\x00" + n for n in names_in(text))
    return frozenset(keys)


_DIGIT = re.compile(r"\d")
_MAYBE_NAME = re.compile(r"[`\"\u201c/._:]|\w[A-Z]|\b[A-Z]")


_CLAUSE = re.compile(
    r"\s*[()\uff08\uff09]\s*|[\u3001\uff0c\uff1b\uff1a]|[,:;\u2014\u2013]\s+|\s+-\s+|\s+(?:and|but|so|because|which|since|as)\s+",
    re.IGNORECASE,
)


def _clauses(window: Sequence[NewClaim]) -> list[tuple[str, frozenset[str], str | None]]:
    """The clauses of some claims (an aside in parentheses is a clause of its own), each
    with the heading that lends it force."""
    out = []
    for n in window:
        for piece in _CLAUSE.split(n.body):
            if piece.strip():
                out.append((piece, stems(piece), n.lent))
    return out


def _turned(
    old: OldClaim,
    clauses: Sequence[tuple[str, frozenset[str], str | None]],
    related: Sequence[int],
) -> str | None:
    """A rule said in two clauses whose negation moved from one to the other ("this is
    expected, do not roll back for it" -> "this is not expected, roll back when it happens"):
    each old clause against the new clause that says most of its words."""
    parts = [(t, stems(t)) for t in _CLAUSE.split(R.CONTRAST.sub(" ", old.body)) if t.strip()]
    parts = [(t, w) for t, w in parts if w]
    if len(parts) < 2 or not related:
        return None
    lost = gained = None
    for text, words in parts:
        best = max(related, key=lambda i: (len(words & clauses[i][1]), -i))
        if not words & clauses[best][1]:
            continue
        now = R.negates(clauses[best][0])
        if R.negates(text) and not now:
            lost = text
        elif not R.negates(text) and now:
            gained = clauses[best][0]
    if lost and gained:
        return f"its prohibition in {cut(lost)!r} (now on {cut(gained)!r})"
    return None


def _flips(clause: tuple[str, frozenset[str], str | None]) -> bool:
    text, _words, lent = clause
    if R.negates(text):
        return True
    return lent is not None and R.wording_kind(text) is None and R.negates(lent)


def _negative(text: str, lent: str | None) -> bool:
    """Negative by its own words, or (having none) by the heading it sits under."""
    if R.negative(text):
        return True
    return lent is not None and R.wording_kind(text) is None and R.negative(lent)


def _clause_count(claim: NewClaim) -> int:
    return len([p for p in _CLAUSE.split(claim.body) if p.strip()])


def _first_clause(window: Sequence[NewClaim], new: NewClaim) -> int:
    """The index, among the window's clauses, of the first clause of ``new``."""
    count = 0
    for n in window:
        if n is new:
            return count
        count += len([p for p in _CLAUSE.split(n.body) if p.strip()])
    return 0


def weakened(
    old: OldClaim,
    new: NewClaim,
    window: Sequence[NewClaim],
    anywhere: Callable[[str], bool] = lambda name: False,
) -> tuple[Reason, ...]:
    """What part of the force of the rule ``old`` ``new`` (with its neighbours) lost, as
    reasons (``compare`` says each change in words, for a finding's message)."""
    lost = {c.reason for c in compare(old, new, window, anywhere) if c.way == LOOSER}
    return tuple(r for r in Reason if r in lost)


def compare(
    old: OldClaim,
    new: NewClaim,
    window: Sequence[NewClaim],
    anywhere: Callable[[str], bool] = lambda name: False,
) -> list[Change]:
    """How the force of the rule ``old`` changed in ``new`` (with its neighbours).

    Polarity and modal are read clause by clause: a negation elsewhere in a joined sentence
    does not stand in for this rule's (a clause that shares a content word with the rule
    speaks for it, and so does the clause after one that does: "keep replies brief; avoid
    spam"). A hedge anywhere in the new claim ("where possible") weakens it. Direction
    counts: a stronger modal, a lower ceiling, an exception taken away, a caution made a
    prohibition are tighter, never lost.
    """
    same = {normalize(old.body), normalize(old.whole)} if old.whole else {normalize(old.body)}
    if normalize(new.body) in same and old.lent == new.lent:
        return []  # the very words, lent the same force (a heading added above them)
    r = _Reading.of(old, new, window)
    return [
        *_polarity(r),
        *_restriction(r),
        *_modal(r),
        *_conditions(r),
        *_numbers_changed(old.body, r.flat),
        *_names(old, r.flat, anywhere),
    ]


Clause = tuple[str, frozenset[str], str | None]


@dataclass(frozen=True)
class _Reading:
    """The old rule beside the new claim it was found in: the new claim's window read
    clause by clause, and which of them speak for the rule."""

    old: OldClaim
    new: NewClaim
    window: Sequence[NewClaim]
    old_text: str  # the rule with the heading that lends it force
    want: frozenset[str]
    clauses: list[Clause]
    first: int  # the first clause of the new claim
    related: list[int]  # the clauses of the new claim that share a word with the rule
    near: list[int]  # those, and the clause after each
    was_neg: bool
    flat: str  # the window's text

    @staticmethod
    def of(old: OldClaim, new: NewClaim, window: Sequence[NewClaim]) -> _Reading:
        old_text = old.body if not old.lent else f"{old.lent}: {old.body}"
        want = _wanted(old)
        clauses = _clauses(window)
        # what speaks for the rule: the clauses of the claim it was found in that share a
        # word with it, and the clause after each (the claim before is another rule's)
        first = _first_clause(window, new)
        related = [i for i, (_, words, _l) in enumerate(clauses) if words & want and i >= first]
        near = sorted({j for i in related for j in (i, i + 1) if j < len(clauses)})
        flat = " ".join(n.body for n in window)
        return _Reading(
            old, new, window, old_text, want, clauses, first, related, near,
            R.negative(old_text), flat,
        )  # fmt: skip


def _polarity(r: _Reading) -> list[Change]:
    """A way out added ("unless ... reason"), a negation moved between clauses or gone, a
    statement turned into a prohibition (stricter when it was a caution)."""
    escape = [c for i in r.related for c in R.conditions(r.clauses[i][0]) if R.escape(c)]
    if escape and not any(R.escape(c) for c in R.conditions(r.old.body)):
        return [Change(Reason.CONDITION, LOOSER, f"its absoluteness (now {escape[0]!r})")]
    if R.exempt(r.old.body):
        return []
    turned = _turned(r.old, r.clauses, r.related)
    if turned:
        return [Change(Reason.POLARITY, LOOSER, turned)]
    return _negation(r)


def _negation(r: _Reading) -> list[Change]:
    """A prohibition (or negative fact) no clause near the rule says any more, or a
    statement every clause that speaks for it now negates."""
    clauses, related = r.clauses, r.related
    mine = [clauses[i] for i in r.near] or clauses
    if r.was_neg and not any(_negative(t, lent) for t, _w, lent in mine):
        said = R.markers(r.old_text)
        what = "its negation" if _fact(r.old_text) else "its prohibition"
        words = f" ({', '.join(map(repr, said[:3]))})" if said else ""
        return [Change(Reason.POLARITY, LOOSER, what + words)]
    if not r.was_neg and related and all(_flips(clauses[i]) for i in related):
        said = R.markers(" ".join(clauses[i][0] for i in related))
        now = "its polarity (now " + ", ".join(map(repr, said[:3])) + ")"
        # "be careful with X" -> "never X": a caution made a prohibition is stricter
        way = TIGHTER if R.caution(r.old_text) else LOOSER
        return [Change(Reason.POLARITY, way, now)]
    return []


def _restriction(r: _Reading) -> list[Change]:
    """ "only ...": a restriction no clause near the rule keeps."""
    confined = R.exclusive(r.old.body)
    if confined and not any(R.exclusive(r.clauses[i][0]) for i in r.near):
        return [Change(Reason.CONDITION, LOOSER, f"its restriction ({confined!r})")]
    return []


def _modal(r: _Reading) -> list[Change]:
    """The rule's modal before and after: weaker is lost; stronger is stricter only where
    the new words say so ("never", "must"): a bare statement is read as strong, but it may
    be a description ("the template has these sections")."""
    old, new = r.old, r.new
    before = R.strength(old.body, old.lent)
    after, new_words = _strength_now(r)
    explicit = R.stated(new_words) is not None or (new.lent is not None and new.lent != old.lent)
    if not (after < before or (after > before and explicit)):
        return []
    was, now = _said(old.body, old.lent), _said(new_words, new.lent)
    way = LOOSER if after < before else TIGHTER
    force = f"its force ({_STRENGTH[before]}{was} -> {_STRENGTH[after]}{now})"
    return [Change(Reason.MODAL, way, force)]


def _strength_now(r: _Reading) -> tuple[int, str]:
    """The new claim's strength for this rule, and the words that give it."""
    new, clauses, related = r.new, r.clauses, r.related
    if R.hedged(new.body):
        return R.WEAK, new.body
    if not related:
        return R.strength(new.body, new.lent), new.body
    # the modal of the clause that says most of the rule's words; a clause that says
    # none lets a "can" or "may" beside it ("the library can be a good place") speak
    own = stems(r.old.body) or r.want
    best = max(
        related,
        key=lambda i: (
            _negative(clauses[i][0], clauses[i][2]) == r.was_neg,  # "must not be retried"
            len(own & clauses[i][1]),
            len(r.want & clauses[i][1]),
            -i,
        ),
    )
    stated = R.stated(clauses[best][0])
    if stated is not None:
        return stated, clauses[best][0]
    last = r.first + _clause_count(new)  # (the claim's own clauses, not its neighbours')
    mine_only = [i for i in related if i < last] or [best]
    span = " ".join(clauses[i][0] for i in range(mine_only[0], mine_only[-1] + 1))
    if R.weak_modal(span):
        return R.WEAK, span
    return R.strength(clauses[best][0], clauses[best][2]), clauses[best][0]


def _conditions(r: _Reading) -> list[Change]:
    """Each condition of the rule the window no longer says: lost, or (a way out taken
    away) stricter."""
    out = []
    have = stems(r.flat)
    conditioned = any(R.conditions(n.body) for n in r.window)
    for cond in R.conditions(r.old.body):
        words = stems(cond) - _VAGUE
        if not words or len(words & have) * 2 >= len(words):
            continue
        if R.trigger(cond) and conditioned:
            continue  # "if they fail, fix it before review": "they must pass before review"
        if R.ordering(cond) and any(R.orders(r.clauses[i][0]) for i in r.related):
            continue  # "before processing, offer a pause": "offer a pause first"
        if R.escape(cond) and not _escapes(r.window):
            # "never X unless asked" -> "never X": the way out taken away
            out.append(Change(Reason.CONDITION, TIGHTER, f"its exception {cond!r} removed"))
            continue
        out.append(Change(Reason.CONDITION, LOOSER, f"its condition {cond!r}"))
    return out


def _escapes(window: Sequence[NewClaim]) -> bool:
    return any(R.escape(c) for n in window for c in R.conditions(n.body))


def _names(old: OldClaim, flat: str, anywhere: Callable[[str], bool]) -> list[Change]:
    """The names of the rule the window no longer says: lost; a sample ("e.g. `foo`")
    swapped for another is a change the audit cannot be sure of."""
    ids, proper = name_kinds(old.body)
    proper -= addressees(old.body)
    samples = examples(old.body)  # ("e.g. `foo`", "(\"I'll start by...\")"): samples
    gone = [n for n in sorted(ids) if not keeps_name(n, flat)]
    # a proper name left out where the rest of the pad still says it ("Rust" in "MSRV
    # 1.75") is shorthand; one gone from the pad is a change
    lost_proper = [n for n in sorted(proper - ids) if not keeps_name(n, flat)]
    gone += [n for n in lost_proper if not anywhere(n)]
    out = []
    strong = [n for n in gone if n not in samples]
    weak = [n for n in gone if n in samples]
    if strong:
        names = ("names " if len(strong) > 1 else "name ") + ", ".join(map(repr, strong))
        out.append(Change(Reason.NAME, LOOSER, names))
    if weak:
        names = ("names " if len(weak) > 1 else "name ") + ", ".join(map(repr, weak))
        out.append(Change(Reason.NAME, UNSURE, names))
    return out


# words of a condition that only point back ("if that's the case", "when needed")
_VAGUE = frozenset(
    map(_stem, _words("case so needed necessary applicable possible appropriate relevant sense"))
)
_STRENGTH = {R.STRONG: "strong", R.MEDIUM: "medium", R.WEAK: "weak"}


def _said(text: str, lent: str | None) -> str:
    """The words that give a claim its modal (`` 'never'``), for a finding to name."""
    said = R.said_with(text) or (R.said_with(lent) if lent else None)
    return f" {said[1]!r}" if said else ""


def _fact(text: str) -> bool:
    return R.wording_kind(text) == "negative_fact"


def _numbers_changed(old: str, new: str) -> list[Change]:
    """The numbers of ``old`` that ``new`` does not state again. A number is read whole,
    with what is glued to it (``3.12``, ``5xx``, ``v1``): ``Python 3.12`` -> ``3.11`` is a
    change even where ``libpython3.12`` stands. A bound moved the strict way ("at most 5"
    -> "at most 3", "at least 2" -> "at least 3") is tighter; any other change is looser."""
    have = R.numbers(new)
    kept = {n for n, _ in have} | R.number_words(new)
    out: list[Change] = []
    for way, text in [*_moved_after(old, new, kept), *_not_stated(old, new, have, kept)]:
        if all(ch.text != text for ch in out):
            out.append(Change(Reason.NUMBER, way, text))
    return out


def _moved_after(old: str, new: str, kept: set[str]) -> Iterator[tuple[str, str]]:
    """A number still stated, but no longer after the word that led it."""
    led = R.led_numbers(new)
    for word, nums in R.led_numbers(old).items():
        for num in sorted(nums):
            if num in kept and word in led and num not in led[word]:
                now = ", ".join(map(repr, sorted(led[word])[:2]))
                yield LOOSER, f"number {num!r} (now {now} after {word!r})"


def _not_stated(
    old: str, new: str, have: Sequence[tuple[str, frozenset[str]]], kept: set[str]
) -> Iterator[tuple[str, str]]:
    """A number not stated again, with what stands in its place; a bound moved the strict
    way is tighter."""
    for num, ctx in R.numbers(old):
        if num in kept:
            continue
        instead = sorted({n for n, c in have if ctx & c and n != num})
        way = LOOSER
        bound = R.bound(old, num)
        if bound and not instead:
            instead = sorted({n for n, _ in have if R.bound(new, n) == bound})
        if bound and len(instead) == 1 and R.bound(new, instead[0]) == bound:
            way = TIGHTER if R.stricter(bound, num, instead[0]) else LOOSER
        now = f" (now {', '.join(map(repr, instead[:2]))})" if instead else ""
        yield way, f"number {num!r}{now}"


_PATH_TAIL = re.compile(r"[\w.~-]*/[\w./-]*\w|\b[\w-]+\.\w{1,5}\b")


def keeps_name(name: str, flat: str) -> bool:
    """Does the text still name this? A word in any of its plural forms; a path or glob
    whole, or every part of it (``assets/maps/*.tmx``: "`.tmx` files in `assets/maps/`")."""
    low = normalize(flat)
    if re.fullmatch(r"\w+", name):
        forms = {name, name + "s", name + "es", name.rstrip("s")}
        return any(re.search(rf"(?<!\w){re.escape(f)}(?!\w)", low) for f in forms)
    if name in low:
        return True
    if "/" in name and _PATH_TAIL.search(low):  # the same file, its path shortened
        for tail in _PATH_TAIL.findall(low):
            shaped = ("/" in tail or "." in tail) and len(tail) >= 5
            if shaped and name.endswith(("/" + tail.lstrip("./"), tail)):
                return True
    parts = re.findall(r"\w{2,}", name)
    return len(parts) >= 2 and all(
        re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", low) for p in parts
    )


def old_claims(e: Entry, rules: Sequence[R.Rule]) -> list[OldClaim]:
    """The claims of an old entry, rules marked (with what lends them force)."""
    ruled = {r.text for r in rules}
    claims = R.entry_claims(e.text)
    out = []
    for i, c in enumerate(claims):
        lent = R.lent_by(c, e.context) if c.text in ruled else None
        around = frozenset().union(*(stems(n.body) for n in claims[max(0, i - 1) : i + 2]))
        around -= stems(c.body)
        before = stems(claims[i - 1].body) if i else frozenset()
        pieces = _DASHED.split(c.body) if c.text in ruled else [c.body]
        if len(pieces) > 1 and all(len(stems(p)) >= 2 for p in pieces):
            for piece in pieces:  # "do not bypass captchas - mark the store unavailable"
                out.append(OldClaim(c.text, piece, True, lent, c.label, around, before, c.body))
        else:
            out.append(OldClaim(c.text, c.body, c.text in ruled, lent, c.label, around, before))
    return out


_DASHED = re.compile(r"\s+[\u2014\u2013-]\s+")  # two rules in one claim, joined by a dash
