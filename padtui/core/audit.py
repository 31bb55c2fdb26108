"""Audit of one rewrite (SPEC section 4): a declared compaction, or corruption?

Entries of the old version are matched to the new one by ``id``, else by exact kind and
text, else by close text within the same kind. Every loss is then checked against what the
new version declares (``derived_from``, loss records), and every constraint against what it
says (prohibitions, numbers, named objects).

False alarms matter as much as missed ones: a critical finding on an honest rewrite teaches
a person to ignore the alarm. So an entry whose text survives verbatim (a duplicate removed,
an entry folded into another) is not lost; a constraint reworded with its prohibition,
numbers and names intact ("Never retry writes after a 5xx" for "Do not retry writes after a
5xx") is not weakened; and one whose every claim another protected entry carries whole (a
constraint split in two, or re-written under a new id) is not dropped. A prohibition is
checked claim by claim, so a negation elsewhere in a condensed text does not stand in for
the one that was lost.
"""

from __future__ import annotations

import bisect
import heapq
import re
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from padtui.core.claims import pad_claims, split_claims
from padtui.core.model import CAUTION_KINDS, Entry, Pad
from padtui.core.tokens import TokenCounter, counter_for

CRITICAL = "critical"
WARNING = "warning"
SEVERITY = {
    "SEALED_REMOVED": CRITICAL,
    "SEALED_EDITED": CRITICAL,
    "SEALED_UNSEALED": CRITICAL,
    "LOSS_RECORD_EVICTED": CRITICAL,
    "CONSTRAINT_DROPPED": CRITICAL,
    "CONSTRAINT_WEAKENED": CRITICAL,
    "CONSTRAINT_DEMOTED": WARNING,
    "UNDECLARED_LOSS": WARNING,
    "CLAIMS_REDUCED": WARNING,
    "CAUTION_FALLING": WARNING,
}
VERDICTS = ("unchanged", "growth", "compaction", "undeclared_loss", "corruption")
CLOSE_ENOUGH = 0.6  # SequenceMatcher ratio of a small edit
CLOSE_COVERED = 0.85  # ...or this much of the old text kept, in a text at least
CLOSE_FLOOR = 0.4  # this close overall (an entry extended in place)
_CROSS_REGION = 0.1  # penalty on a close pair of a sealed and an unsealed entry
# close matching is not quadratic: an entry's rarest words pick its candidates, looking at
# most at the entries nearest in position for a common word; the candidates sharing most
# words are ranked by word overlap, and only the best few are compared character-wise
_RARE_WORDS = 6
_POSTING_CAP = 400
_CANDIDATES = 24
_TRIES = 4
_TRY_FLOOR = 0.75  # (those with at least this share of the best one's word overlap)


@dataclass(frozen=True)
class Finding:
    """One thing an audit noticed about a transition, with the text before and after."""

    code: str
    entries: tuple[str, ...]
    message: str
    before: str | None = None
    after: str | None = None

    @property
    def severity(self) -> str:
        return SEVERITY[self.code]

    def as_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "entries": list(self.entries),
            "message": self.message,
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True)
class Audit:
    """The findings and verdict of one transition ``old -> new``."""

    verdict: str
    findings: tuple[Finding, ...]
    matches: dict[int, tuple[int, str]]  # old index -> (new index, "id"|"exact"|"close")
    tokens_before: int
    tokens_after: int
    claims_before: int
    claims_after: int

    @property
    def critical(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == CRITICAL)

    @property
    def codes(self) -> list[str]:
        return [f.code for f in self.findings]

    def as_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "findings": [f.as_json() for f in self.findings],
            "tokens": {"before": self.tokens_before, "after": self.tokens_after},
            "claims": {"before": self.claims_before, "after": self.claims_after},
        }


# --- matching ------------------------------------------------------------------------------

_WORD = re.compile(r"\w{3,}")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def match(old: Pad, new: Pad) -> dict[int, tuple[int, str]]:
    """Pair old entries with new ones: by id, then exact kind+text, then close text.

    Close text pairs entries of the same kind only, never two entries that carry different
    ids (an id is the entry's identity), and never unsealed loss records: records of two
    different losses read alike, and a new one must not pass for an old one edited (a sealed
    record edited is reported as such, so sealed ones may pair).
    """
    found: dict[int, tuple[int, str]] = {}
    taken: set[int] = set()
    by_id: dict[str, int] = {}
    for n in new.entries:
        if n.id is not None:
            by_id.setdefault(n.id, n.index)
    for o in old.entries:
        hit = by_id.get(o.id) if o.id is not None else None
        if hit is not None and hit not in taken:
            found[o.index] = (hit, "id")
            taken.add(hit)
    # exact text: first within the same region (a sealed copy is not the unsealed one it
    # duplicates), then across it (an entry sealed or unsealed as it is)
    for region in (True, False):
        exact: dict[tuple[str, str, bool], deque[int]] = defaultdict(deque)
        for n in new.entries:
            if n.index not in taken:
                exact[(n.kind, n.text, n.sealed and region)].append(n.index)
        for o in old.entries:
            if o.index in found:
                continue
            bucket = exact.get((o.kind, o.text, o.sealed and region))
            if bucket:
                hit = bucket.popleft()
                found[o.index] = (hit, "exact")
                taken.add(hit)
    _match_close(old, new, found, taken)
    return found


def _closeness(sm: SequenceMatcher[str], a: str, b: str) -> float:
    """How close ``b`` is to ``a`` as an edit of it (0 when not close enough).

    ``sm`` already has ``a`` as its second sequence (its index is built once per entry).
    """
    sm.set_seq1(b)
    if sm.real_quick_ratio() < CLOSE_FLOOR or sm.quick_ratio() < CLOSE_FLOOR:
        return 0.0
    ratio = sm.ratio()
    if ratio >= CLOSE_ENOUGH:
        return ratio
    kept = sum(block.size for block in sm.get_matching_blocks())
    return ratio if a and ratio >= CLOSE_FLOOR and kept / len(a) >= CLOSE_COVERED else 0.0


def _may_pair(e: Entry) -> bool:
    return e.kind != "loss_record" or e.sealed


def _match_close(old: Pad, new: Pad, found: dict[int, tuple[int, str]], taken: set[int]) -> None:
    index: dict[tuple[str, str], list[int]] = defaultdict(list)
    words: dict[int, set[str]] = {}
    for n in new.entries:
        if n.index not in taken and _may_pair(n):
            words[n.index] = _words(n.text)
            for w in words[n.index]:
                index[(n.kind, w)].append(n.index)
    pairs: list[tuple[float, int, int]] = []
    for o in old.entries:
        if o.index in found or not _may_pair(o):
            continue
        mine = _words(o.text)
        postings = [p for w in mine if (p := index.get((o.kind, w)))]
        shared: dict[int, int] = defaultdict(int)
        for posting in heapq.nsmallest(_RARE_WORDS, postings, key=len):
            if len(posting) > _POSTING_CAP:  # a common word: look near the entry's place
                at = bisect.bisect_left(posting, o.index) - _POSTING_CAP // 2
                posting = posting[max(at, 0) : max(at, 0) + _POSTING_CAP]
            for i in posting:
                shared[i] += 1
        best = heapq.nsmallest(_CANDIDATES, shared, key=lambda i: (-shared[i], i))
        # the few with the most words in common (relative to their size) get a close look
        overlap = {i: len(mine & words[i]) / len(mine | words[i]) for i in best}
        sm: SequenceMatcher[str] = SequenceMatcher(None, autojunk=False)
        sm.set_seq2(o.text)
        tries = heapq.nsmallest(_TRIES, best, key=lambda i: (-overlap[i], i))
        floor = overlap[tries[0]] * _TRY_FLOOR if tries else 0.0
        for i in (i for i in tries if overlap[i] >= floor):
            n = new.entries[i]
            if o.id is not None and n.id is not None and o.id != n.id:
                continue
            score = _closeness(sm, o.text, n.text)
            if score:  # a pair in the same region is likelier the same entry
                pairs.append((score - _CROSS_REGION * (o.sealed != n.sealed), o.index, i))
    for _score, oi, ni in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):
        if oi not in found and ni not in taken:
            found[oi] = (ni, "close")
            taken.add(ni)


# --- what a constraint says ----------------------------------------------------------------

_NEGATION = re.compile(
    r"\b(?:not|never|no|none|nor|neither|nothing|nobody|nowhere|cannot|without|"
    r"avoid\w*|forbid\w*|prohibit\w*|disallow\w*|refus\w*|refrain\w*|ban|bans|banned|"
    r"off-limits|fail\w*|unable|unsuccessful\w*|"
    r"\w+n['\u2019]t|(?:do|does|did|is|are|was|were|ca|could|would|should|must|wo|has|have|"
    r"had|need)nt)\b",
    re.IGNORECASE,
)
_FAILURE = re.compile(r"fail\w*|unable|unsuccessful\w*", re.IGNORECASE)
_FAILURE_RESULT = re.compile(
    r"\b(?:error\w*|broke\w*|crash\w*|time[sd]? out|timeout\w*|reject\w*|invalid|"
    r"unusable|dead|abort\w*)\b",
    re.IGNORECASE,
)
# "no more than 3" says the same as "at most 3": a limit kept in other words
_LIMIT_SOURCE = re.compile(
    r"\b(?:no|not|never)\s+(?:more|longer|later|greater|higher|larger|bigger|over)\b"
    r"|\b(?:not|never|don't|do not)\s+exceed",
    re.IGNORECASE,
)
_LIMIT_RESULT = re.compile(
    r"\b(?:at most|up to|max|maximum|limit\w*|cap|capped|or (?:fewer|less)|within|under|"
    r"below|until)\b|<=|\u2264",
    re.IGNORECASE,
)


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOP = _wordset(
    """a about above after again against all also always am an and any are as at be because
    been before being below both but by can could did do does doing done down during each
    either else even ever every few for from further had has have having he her here hers him
    his how however i if in into is it its itself just may me might more most much must my need
    needs of off ok okay on once only onto or other our ours out over own per please same shall
    she should so some such than that the their theirs them then there these they this those
    through to too under until up upon us very via was we were what when where which while who
    whom why will with would yet you your yours important note notes warning caution todo fyi
    asap nb rule rules always remember etc eg ie vs"""
)
_NEG_WORDS = _wordset(
    """not never no none nor neither nothing nobody nowhere cannot without avoid forbidden
    forbid prohibited prohibit disallowed refuse refrain ban banned don dont"""
)
_UNITS = _wordset("s sec secs ms m min mins h hr hrs d k kb mb gb tb x")
_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        re.findall(
            r"\w+",
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty",
        )
    )
}
_NUMBER_WORDS |= {"thirty": "30", "forty": "40", "fifty": "50", "hundred": "100"}
_NUMBER_WORDS |= {"once": "1", "twice": "2", "thrice": "3", "dozen": "12"}

_NUMBER = re.compile(r"\b\w*\d\w*\b")
_THOUSANDS = re.compile(r"(?<=\d)[,_](?=\d{3}\b)")
_BULLET = re.compile(r"^[ \t]*(?:[-*+\u2022>]+|\d{1,3}[.)]|[a-zA-Z][.)]|#{1,6})[ \t]+", re.M)
_CODE = re.compile(r"`([^`\n]+)`")
_QUOTED = re.compile(r"\"([^\"\n]{2,})\"|\u201c([^\u201d\n]{2,})\u201d")
_CHUNK = re.compile(r"[^\s,;()\[\]{}<>\"'`\u201c\u201d\u2018\u2019]+")
_CHUNK_EDGE = ".,;:!?*~'\u2019"
_PLAIN_SLASHES = re.compile(r"[^\W\d_]+(?:/[^\W\d_]+)+")  # and/or, read/write: not a path
_DOTTED_LETTERS = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]?")  # e.g, i.e, U.S: not a name
_CAPS = re.compile(r"\b[A-Z][A-Z0-9]+[a-z]?\b(?!['\u2019])")  # API, HTTP, SQLs
_CAPITALISED = re.compile(r"\b[A-Z][a-z][\w-]*")
_LABEL = re.compile(r"\W*(?:[A-Z][\w-]*\s+){0,3}[A-Z][\w-]*\W*:")
_STARTS = re.compile(r"(?:^|[:\u2014]\W*\s)\W*(\w+)")  # a claim's first word, and after a colon


def negations(text: str) -> int:
    return len(_NEGATION.findall(text))


def _stems(text: str) -> set[str]:
    """Content words of a text, crudely stemmed (retry, retries, retried -> retr)."""
    out = set()
    for w in re.findall(r"\w+", text.lower()):
        if w in _STOP or w in _NEG_WORDS or _NEGATION.fullmatch(w) or len(w) < 3:
            continue
        out.add(w[:4] if len(w) >= 4 and not any(c.isdigit() for c in w) else w)
    return out


def _clean(text: str) -> str:
    return _THOUSANDS.sub("", _BULLET.sub("", text))


def _numbers(text: str) -> set[str]:
    """Numbers, and words with a digit in them (5xx, v1, S3), bullet numbers left out."""
    return {m.lower() for m in _NUMBER.findall(_clean(text))}


def _names(text: str) -> set[str]:
    """Named objects: code, quoted strings, identifiers and paths, capitalised names."""
    body = _clean(text)
    found: set[str] = set()
    for m in _CODE.findall(body):
        found.add(_norm(m))
    for q in _QUOTED.findall(body):
        quote = _norm("".join(q))
        if not re.fullmatch(r"[a-z]+", quote):  # a single plain word is a scare quote
            found.add(quote)
    for chunk in _CHUNK.findall(body):
        chunk = chunk.strip(_CHUNK_EDGE)
        inner = chunk.strip("/.:")
        if not re.search(r"\w[_/.:]+\w", chunk) or re.fullmatch(r"[\d.,:]+", chunk):
            continue  # not an identifier (a time or a decimal is a number)
        if (_PLAIN_SLASHES.fullmatch(chunk) or _DOTTED_LETTERS.fullmatch(inner)) and not (
            chunk.startswith(("/", "~", "."))
        ):
            continue
        found.add(chunk.lower())
    for claim in split_claims(body):
        if not re.search(r"[a-z]", claim):
            continue  # a shouted line: its capitals are emphasis, not names
        starts = {m.start(1) for m in _STARTS.finditer(claim)}
        label = _LABEL.match(claim)  # "**Response Protocol:** ..." is a heading, not a name
        skip = label.end() if label else 0
        for m in _CAPS.finditer(claim):
            found.add(m.group().lower())
        for m in _CAPITALISED.finditer(claim):
            if m.start() not in starts and m.start() >= skip:
                found.add(m.group().lower())
    return {f for f in found if f and f not in _STOP and f not in _NEG_WORDS}


def salient(text: str) -> set[str]:
    """Numbers and named objects a rewrite of this text must keep."""
    return _numbers(text) | _names(text)


def _plural_forms(word: str) -> set[str]:
    base = {word, word + "s", word + "es", word + "'s", word + "\u2019s"}
    for suffix in ("'s", "\u2019s", "es", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            base.add(word[: -len(suffix)])
    return base


def _keeps_number(number: str, numbers: set[str]) -> bool:
    """Kept as is, or with its unit spelled out ("10s" as "10 seconds")."""
    if number in numbers:
        return True
    digits = re.match(r"\d+", number)
    if digits is None:
        return False
    return number[digits.end() :] in _UNITS and digits.group() in numbers


def _keeps_name(name: str, words: set[str], flat: str) -> bool:
    if re.fullmatch(r"\w+", name):
        return bool(_plural_forms(name) & words)
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", flat) is not None


def _lost_prohibitions(source: str, result: str) -> list[str]:
    """The source's negated claims that no negated claim of the result carries on.

    A claim carries one on when it has a negation and shares a content word with it (or
    with the claim before it, which a pronoun may stand for): a negation elsewhere in a
    condensed text does not keep this one. A limit ("no more than 3") is also kept by a
    limit ("at most 3"), and a failure ("tried and failed") by any word for one ("errored",
    "timed out").
    """
    kept: list[tuple[bool, bool, bool, set[str]]] = []
    before: set[str] = set()  # "... was tried. It failed.": "it" is the claim before
    for claim in split_claims(result):
        stems = _stems(claim)
        neg = bool(_NEGATION.search(claim))
        limit = bool(_LIMIT_RESULT.search(claim))
        failure = bool(_FAILURE_RESULT.search(claim))
        if neg or limit or failure:
            kept.append((neg, limit, failure, stems | before))
        before = stems
    lost = []
    for claim in split_claims(source):
        said = _NEGATION.findall(claim)
        if not said:
            continue
        is_limit = bool(_LIMIT_SOURCE.search(claim))
        is_failure = all(_FAILURE.fullmatch(w) for w in said)
        stems = _stems(claim)
        if not any(
            (neg or (limit and is_limit) or (failure and is_failure))
            and (not stems or stems & other)
            for neg, limit, failure, other in kept
        ):
            lost.append(claim)
    return lost


def weakening(source: str, result: str) -> list[str]:
    """What ``result`` lost of ``source``: its prohibition, numbers or named objects."""
    lost = []
    gone = _lost_prohibitions(source, result)
    if gone:
        every = [c for c in split_claims(source) if _NEGATION.search(c)]
        if len(gone) == len(every):
            said = sorted({w.lower() for c in gone for w in _NEGATION.findall(c)})
            what = "negation" if all(_FAILURE.fullmatch(w) for w in said) else "prohibition"
            lost.append(f"its {what} (" + ", ".join(repr(w) for w in said) + ")")
        else:
            lost.append("the prohibition " + ", ".join(repr(_cut(c)) for c in gone))
    low = result.lower()
    words = set(re.findall(r"[\w'\u2019]+", low)) | set(re.findall(r"\w+", low))
    numbers = _numbers(result) | {_NUMBER_WORDS[w] for w in words if w in _NUMBER_WORDS}
    flat = _norm(_clean(result))
    missing_numbers = sorted(n for n in _numbers(source) if not _keeps_number(n, numbers))
    missing_names = sorted(
        n
        for n in _names(source) - _numbers(source)
        if not _keeps_name(n, words, flat) and n not in numbers
    )
    if missing_numbers:
        lost.append(_list("number", missing_numbers))
    if missing_names:
        lost.append(_list("name", missing_names))
    return lost


def _list(what: str, items: Sequence[str]) -> str:
    return f"{what}{'s' if len(items) > 1 else ''} " + ", ".join(repr(_cut(i)) for i in items)


def _cut(text: str, width: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "\u2026"


# --- declarations --------------------------------------------------------------------------

_OPEN = "\"\u201c'\u2018`\u00ab"
_CLOSE = "\"\u201d'\u2019`\u00bb"
_ELLIPSIS = ("...", "\u2026")
_ID_TOKEN = re.compile(r"[\w-]+")
_MIN_QUOTE = 8  # a cut quote ("Do not retry...") must keep this much of the text


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


class _Record:
    """A loss record, read once: what it names by id, by label and by quoting."""

    def __init__(self, entry: Entry, by_label: bool) -> None:
        self.text = entry.text
        self.flat = _norm(entry.text)
        self.tokens = set(_ID_TOKEN.findall(entry.text))
        drops = entry.raw.get("drops")
        self.drops = {d for d in drops if isinstance(d, str)} if isinstance(drops, list) else set()
        self.by_label = by_label
        self.quotes: dict[str, list[int]] = defaultdict(list)  # first 4 chars -> start
        self.starts: list[int] = []
        for i, c in enumerate(self.flat):
            if c in _OPEN:
                self.quotes[self.flat[i + 1 : i + 5]].append(i + 1)
                self.starts.append(i + 1)

    def names(self, entry: Entry, body: str) -> bool:
        if entry.id is not None:
            if entry.id in self.drops or self._mentions(entry.id):
                return True
        elif self.by_label and entry.label in self.drops:
            return True
        if not body:
            return False
        if len(body) >= 12 and body in self.flat:
            return True
        starts = self.quotes.get(body[:4], []) if len(body) >= 4 else self.starts
        return any(self._quotes_at(at, body) for at in starts)

    def _mentions(self, eid: str) -> bool:
        if eid.isdigit() or len(eid) < 2:
            # a bare number is a count as often as an id: only "#12", "id 12", "12" quoted
            mark = r"(?:#|\bids?\b\s*[:=]?\s*|[\"'`\u201c\u2018])"
            return re.search(rf"{mark}{re.escape(eid)}(?![\w-])", self.text) is not None
        if _ID_TOKEN.fullmatch(eid):
            return eid in self.tokens
        return re.search(rf"(?<![\w-]){re.escape(eid)}(?![\w-])", self.text) is not None

    def _quotes_at(self, at: int, body: str) -> bool:
        flat = self.flat
        if flat.startswith(body, at):
            end = at + len(body)
            if end == len(flat) or flat[end] in _CLOSE or flat.startswith(_ELLIPSIS, end):
                return True
        size = 0
        limit = min(len(body), len(flat) - at)
        while size < limit and flat[at + size] == body[size]:
            size += 1
        return size >= _MIN_QUOTE and flat.startswith(_ELLIPSIS, at + size)


def named_by(entry: Entry, records: Sequence[Entry]) -> bool:
    """Does a loss record name this entry: by its id, by quoting it, or (for an entry
    without an id) by its ``#N`` label in the record's ``drops`` list?"""
    body = _norm(entry.text)
    return any(_Record(r, True).names(entry, body) for r in records)


# --- the audit -----------------------------------------------------------------------------


def audit(old: Pad, new: Pad, counter: TokenCounter | None = None) -> Audit:
    """Findings and verdict of the transition from ``old`` to ``new``."""
    counter = counter or counter_for(new.encoding or old.encoding)
    matches = match(old, new)
    ctx = _Ctx(old, new, matches)
    findings: list[Finding] = []
    for o in old.entries:
        hit = matches.get(o.index)
        n = new.entries[hit[0]] if hit else None
        findings += ctx.sealed(o, n)
        if o.kind in CAUTION_KINDS:
            findings += ctx.caution(o, n)
        elif n is None:
            findings += ctx.lost(o)
    before = _Totals(old, counter)
    after = _Totals(new, counter)
    if _same_content(old, new):
        return Audit(
            "unchanged", (), matches, before.tokens, after.tokens, before.claims, after.claims
        )
    findings += _pad_findings(before, after)
    verdict = _verdict(old, matches, findings, ctx, before, after)
    return Audit(
        verdict, tuple(findings), matches, before.tokens, after.tokens, before.claims, after.claims
    )


@dataclass
class _Totals:
    tokens: int
    caution: int
    claims: int

    def __init__(self, pad: Pad, counter: TokenCounter) -> None:
        costs = counter.count_many(e.text for e in pad.entries)
        self.tokens = sum(costs)
        self.caution = sum(
            c for e, c in zip(pad.entries, costs, strict=True) if e.kind in CAUTION_KINDS
        )
        self.claims = pad_claims(pad.entries)

    @property
    def share(self) -> float:
        return self.caution / self.tokens if self.tokens else 0.0


def _what(e: Entry) -> str:
    return f"{e.kind.replace('_', ' ')} {e.label}"


def _rewritable_elsewhere(entries: Iterable[Entry]) -> bool:
    return all(h.kind not in CAUTION_KINDS and not h.sealed for h in entries)


class _Ctx:
    def __init__(self, old: Pad, new: Pad, matches: dict[int, tuple[int, str]]) -> None:
        self.old, self.new = old, new
        matched = {n: o for o, (n, _) in matches.items()}
        # records that this rewrite wrote: their "#N" labels count old positions
        self.records = [
            _Record(e, e.index not in matched) for e in new.entries if e.kind == "loss_record"
        ]
        self.record_texts = [_norm(e.text) for e in new.entries if e.kind == "loss_record"]
        # where a lost entry's text may live on: new entries, or edited ones, or any entry
        # with the very same text (a duplicate removed)
        self.changed = [
            e
            for e in new.entries
            if e.index not in matched or old.entries[matched[e.index]].text != e.text
        ]
        self.changed_flat = [_norm(e.text) for e in self.changed]
        self.protected_changed = [
            e
            for e in self.changed
            if e.kind in CAUTION_KINDS or (e.sealed and e.kind != "loss_record")
        ]
        self._carrier_index: _Carriers | None = None
        self.same_text: dict[str, list[Entry]] = defaultdict(list)
        for e in new.entries:
            self.same_text[_norm(e.text)].append(e)
        self.derived: dict[str, list[Entry]] = defaultdict(list)
        for n in new.entries:
            for ref in n.derived_from:
                self.derived[ref].append(n)
        self.declared = False  # some loss was declared (derived_from or a loss record)

    def heirs(self, o: Entry, n: Entry | None) -> list[Entry]:
        ref = o.label if o.id is None else o.id
        out = {h.index: h for h in self.derived.get(ref, ()) if h is not n}
        return list(out.values())

    def holders(self, o: Entry) -> list[Entry]:
        """New entries that hold this old entry's text verbatim."""
        body = _norm(o.text)
        if not body:
            return []
        out = {e.index: e for e in self.same_text.get(body, ())}
        for e, flat in zip(self.changed, self.changed_flat, strict=True):
            if body in flat:
                out.setdefault(e.index, e)
        return [out[i] for i in sorted(out)]

    def named(self, o: Entry) -> bool:
        body = _norm(o.text)
        return any(r.names(o, body) for r in self.records)

    def sealed(self, o: Entry, n: Entry | None) -> list[Finding]:
        out = []
        what = f"sealed {_what(o)}"
        if o.sealed and n is None:
            out.append(
                Finding(
                    "SEALED_REMOVED",
                    (o.label,),
                    f"{what} is gone from the append-only region",
                    o.text,
                    None,
                )
            )
        elif o.sealed and n is not None:
            if n.text != o.text:
                out.append(
                    Finding(
                        "SEALED_EDITED",
                        (o.label,),
                        f"{what} was rewritten in the append-only region",
                        o.text,
                        n.text,
                    )
                )
            elif n.kind != o.kind:
                out.append(
                    Finding(
                        "SEALED_EDITED",
                        (o.label,),
                        f"{what} was changed into a {n.kind.replace('_', ' ')}",
                        o.text,
                        n.text,
                    )
                )
            if not n.sealed:
                out.append(
                    Finding(
                        "SEALED_UNSEALED",
                        (o.label,),
                        f"{what} was moved out of the sealed region",
                        o.text,
                        n.text,
                    )
                )
        if o.kind == "loss_record" and n is None and not self._record_kept(o):
            out.append(
                Finding(
                    "LOSS_RECORD_EVICTED",
                    (o.label,),
                    f"loss record {o.label} was evicted: the record of an earlier loss is lost",
                    o.text,
                    None,
                )
            )
        return out

    def _record_kept(self, o: Entry) -> bool:
        """A record folded verbatim into another loss record still says what it said."""
        body = _norm(o.text)
        return bool(body) and any(body in t for t in self.record_texts)

    def caution(self, o: Entry, n: Entry | None) -> list[Finding]:
        heirs = self.heirs(o, n)
        if n is not None:
            out = []
            if n.text != o.text or heirs:
                lost = self._weakened(o, [n, *heirs])
                if lost:
                    into = "" if not heirs else " into " + ", ".join(_what(h) for h in heirs)
                    out.append(
                        Finding(
                            "CONSTRAINT_WEAKENED",
                            (o.label, *(h.label for h in heirs)),
                            f"{_what(o)} was rewritten{into} and lost " + "; ".join(lost),
                            o.text,
                            "\n".join(e.text for e in [n, *heirs]),
                        )
                    )
            if _rewritable_elsewhere([n, *heirs]) and not self._carried_whole(o):
                out.append(_demoted(o, [n, *heirs]))
            return out
        if heirs:
            self.declared = True
            return self._condensed(o, heirs)
        holders = self.holders(o)
        if holders:
            if _rewritable_elsewhere(holders) and not self._carried_whole(o):
                return [_demoted(o, holders)]
            return []
        if self.named(o):
            self.declared = True
            return []
        if self._carried_whole(o):
            return []  # reworded into other protected entries, every claim intact
        return [
            Finding(
                "CONSTRAINT_DROPPED",
                (o.label,),
                f"{_what(o)} is gone and no loss record names it",
                o.text,
                None,
            )
        ]

    def _condensed(self, o: Entry, heirs: list[Entry]) -> list[Finding]:
        into = ", ".join(_what(h) for h in heirs)
        after = "\n".join(h.text for h in heirs)
        out = []
        lost = self._weakened(o, heirs)
        if lost:
            out.append(
                Finding(
                    "CONSTRAINT_WEAKENED",
                    (o.label, *(h.label for h in heirs)),
                    f"{_what(o)} was condensed into {into} and lost " + "; ".join(lost),
                    o.text,
                    after,
                )
            )
        if _rewritable_elsewhere(heirs) and not self._carried_whole(o):
            out.append(_demoted(o, heirs))
        return out

    def _weakened(self, o: Entry, into: Sequence[Entry]) -> list[str]:
        """What the entries ``o`` became lost of it, once claims that other protected
        entries carry whole (a constraint split in two, say) are set aside."""
        after = "\n".join(e.text for e in into)
        lost = weakening(o.text, after)
        if not lost:
            return []
        rest = self._uncarried(o, exclude={e.index for e in into})
        if len(rest) == len(split_claims(o.text)):
            return lost
        return weakening("\n".join(rest), after) if rest else []

    def _carried_whole(self, o: Entry) -> bool:
        return bool(split_claims(o.text)) and not self._uncarried(o)

    def _uncarried(self, o: Entry, exclude: set[int] | frozenset[int] = frozenset()) -> list[str]:
        """The claims of ``o`` that no protected entry new or edited in this version carries
        whole: with its prohibition, every content word, number and name."""
        index = self._carriers()
        return [c for c in split_claims(o.text) if not index.carries(c, exclude)]

    def _carriers(self) -> _Carriers:
        if self._carrier_index is None:
            self._carrier_index = _Carriers(self.protected_changed)
        return self._carrier_index

    def lost(self, o: Entry) -> list[Finding]:
        if o.kind == "loss_record" or o.sealed:
            return []  # reported as LOSS_RECORD_EVICTED / SEALED_REMOVED
        if self.heirs(o, None) or self.named(o):
            self.declared = True
            return []
        if self.holders(o):
            return []
        return [
            Finding(
                "UNDECLARED_LOSS",
                (o.label,),
                f"{_what(o)} is gone with no derived_from pointing at it and no loss "
                "record naming it",
                o.text,
                None,
            )
        ]


class _Carriers:
    """The claims of some entries, indexed by content word, to find one that carries a
    given claim whole (its prohibition, every content word, number and name)."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.claims: list[tuple[int, str, bool]] = []  # entry index, claim, negated
        self.by_stem: dict[str, set[int]] = defaultdict(set)
        for e in entries:
            for claim in split_claims(e.text):
                for stem in _stems(claim):
                    self.by_stem[stem].add(len(self.claims))
                self.claims.append((e.index, claim, bool(_NEGATION.search(claim))))

    def carries(self, source: str, exclude: set[int] | frozenset[int]) -> bool:
        if not self.claims:
            return False
        stems = _stems(source)
        if stems:
            postings = sorted((self.by_stem.get(s, set()) for s in stems), key=len)
            found = set.intersection(*postings)
        else:
            found = set(range(len(self.claims)))
        negated = bool(_NEGATION.search(source))
        for i in sorted(found):
            index, claim, neg = self.claims[i]
            if index in exclude or (negated and not neg):
                continue
            if not weakening(source, claim):
                return True
        return False


def _demoted(o: Entry, holders: Sequence[Entry]) -> Finding:
    where = ", ".join(_what(h) for h in holders)
    return Finding(
        "CONSTRAINT_DEMOTED",
        (o.label, *(h.label for h in holders)),
        f"{_what(o)} now lives only inside rewritable {where}, where the next budget pass "
        "can drop it",
        o.text,
        "\n".join(h.text for h in holders),
    )


def _pad_findings(before: _Totals, after: _Totals) -> list[Finding]:
    out = []
    if after.claims < before.claims:
        out.append(
            Finding(
                "CLAIMS_REDUCED",
                (),
                f"claims fell from {before.claims} to {after.claims} "
                f"(tokens per claim {_per(before)} -> {_per(after)}): claim reduction, where "
                "constraints die, not compression",
                str(before.claims),
                str(after.claims),
            )
        )
    if after.tokens < before.tokens and after.share < before.share:
        out.append(
            Finding(
                "CAUTION_FALLING",
                (),
                f"the pad shrank ({before.tokens} -> {after.tokens} tokens) and the share of "
                f"constraints and negative facts fell ({_pct(before.share, after.share)}): "
                "the agent grows more decisive as its memory degrades",
                f"{before.share:.3f}",
                f"{after.share:.3f}",
            )
        )
    return out


def _pct(a: float, b: float) -> str:
    for digits in (0, 1, 2):
        x, y = f"{a:.{digits}%}", f"{b:.{digits}%}"
        if x != y:
            break
    return f"{x} -> {y}"


def _per(t: _Totals) -> str:
    return f"{t.tokens / t.claims:.1f}" if t.claims else "-"


_DEFAULTS: dict[str, Any] = {"sealed": False, "derived_from": [], "id": None, "op": None}


def _content(e: Entry) -> dict[str, Any]:
    """An entry's content, whatever the file's formatting: defaults written out or left out
    (``"sealed": false``, ``"derived_from": []``) and key order do not count."""
    out = e.as_dict()
    for key, default in _DEFAULTS.items():
        if key in out and (out[key] == default or out[key] is None):
            del out[key]
    return out


def _same_content(old: Pad, new: Pad) -> bool:
    return len(old.entries) == len(new.entries) and all(
        _content(a) == _content(b) for a, b in zip(old.entries, new.entries, strict=True)
    )


def _verdict(
    old: Pad,
    matches: dict[int, tuple[int, str]],
    findings: Sequence[Finding],
    ctx: _Ctx,
    before: _Totals,
    after: _Totals,
) -> str:
    if any(f.severity == CRITICAL for f in findings):
        return "corruption"
    if any(f.code == "UNDECLARED_LOSS" for f in findings):
        return "undeclared_loss"
    removed = len(matches) < len(old.entries)
    if removed or ctx.declared or after.tokens < before.tokens:
        return "compaction"
    return "growth"
