"""What a constraint says, and what a loss record declares.

A rewrite of a constraint must keep its prohibitions (checked claim by claim), its numbers and
its named objects; a loss record names an entry by its id or by quoting it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence

from padtui.core.model import Entry
from padtui.core.rules.claims import split_claims

# --- what a constraint says ----------------------------------------------------------------

NEGATION = re.compile(
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
# (an identifier ends where Japanese, Chinese or Korean begins: "とし、CLAUDE.md" names CLAUDE.md)
_CHUNK = re.compile(
    r"[^\s,;()\[\]{}<>\"'`\u201c\u201d\u2018\u2019"
    r"\u3000-\u30ff\u3400-\u9fff\uac00-\ud7af\uff00-\uffef]+"
)
_CHUNK_EDGE = ".,;:!?*~'\u2019"
_PLAIN_SLASHES = re.compile(r"[^\W\d_]+(?:/[^\W\d_]+)+")  # and/or, read/write: not a path
_DOTTED_LETTERS = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]?")  # e.g, i.e, U.S: not a name
# (a Latin name ends where Japanese or Chinese begins: "Reactを使う" names React)
_LATIN_WORD = "A-Za-z0-9\u00c0-\u024f_"
_CAPS = re.compile(rf"(?<![{_LATIN_WORD}])[A-Z][A-Z0-9]+[a-z]?(?![{_LATIN_WORD}'\u2019])")
_CAPITALISED = re.compile(rf"(?<![{_LATIN_WORD}])[A-Z][a-z][{_LATIN_WORD}-]*")
_LABEL = re.compile(r"\W*(?:[A-Z][\w-]*\s+){0,3}[A-Z][\w-]*\W*:")
_STARTS = re.compile(r"(?:^|[:\u2014]\W*\s)\W*(\w+)")  # a claim's first word, and after a colon


def word_stems(text: str) -> set[str]:
    """Content words of a text, crudely stemmed (retry, retries, retried -> retr)."""
    out = set()
    for w in re.findall(r"\w+", text.lower()):
        if w in _STOP or w in _NEG_WORDS or NEGATION.fullmatch(w) or len(w) < 3:
            continue
        out.add(w[:4] if len(w) >= 4 and not any(c.isdigit() for c in w) else w)
    return out


def _clean(text: str) -> str:
    return _THOUSANDS.sub("", _BULLET.sub("", text))


_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)")


def _numbers(text: str) -> set[str]:
    """Numbers, and words with a digit in them (5xx, v1, S3), bullet numbers left out; an
    ordinal read as its number (4th: 4)."""
    found = (m.lower() for m in _NUMBER.findall(_clean(text)))
    return {m[:-2] if _ORDINAL.fullmatch(m) else m for m in found}


def _names(text: str) -> set[str]:
    """Named objects: code, quoted strings, identifiers and paths, capitalised names."""
    ids, proper = name_kinds(text)
    return ids | proper


def name_kinds(text: str) -> tuple[set[str], set[str]]:
    """A text's identifiers (code, quoted strings, paths, dotted names) and its proper names
    (capitalised words that do not start a sentence, acronyms)."""
    body = _clean(text)
    ids = {f for f in _identifiers(body) if f and f not in _STOP and f not in _NEG_WORDS}
    proper = {f for f in _proper(body) if f and f not in _STOP and f not in _NEG_WORDS}
    return ids, proper - ids


def _identifiers(body: str) -> Iterator[str]:
    """Code, quoted strings (not a single plain word: a scare quote), identifiers and
    paths."""
    for m in _CODE.findall(body):
        yield normalize(m)
    for q in _QUOTED.findall(body):
        quote = normalize("".join(q))
        if not re.fullmatch(r"[a-z]+", quote):  # a single plain word is a scare quote
            yield quote
    for chunk in _CHUNK.findall(body):
        chunk = chunk.strip(_CHUNK_EDGE)
        if _identifier(chunk):
            yield chunk.lower()


def _identifier(chunk: str) -> bool:
    """A dotted, slashed or colon-joined name; not a time or a decimal (a number), nor
    plain words with slashes or letters with dots ("and/or", "e.g."), unless a path."""
    inner = chunk.strip("/.:")
    if not re.search(r"\w[_/.:]+\w", chunk) or re.fullmatch(r"[\d.,:]+", chunk):
        return False
    plain = _PLAIN_SLASHES.fullmatch(chunk) or _DOTTED_LETTERS.fullmatch(inner)
    return not plain or chunk.startswith(("/", "~", "."))


def _proper(body: str) -> Iterator[str]:
    """Acronyms and capitalised words that do not start a sentence, of each claim not
    shouted, after its bold label."""
    for claim in split_claims(body):
        if not re.search(r"[a-z]", claim):
            continue  # a shouted line: its capitals are emphasis, not names
        starts = {m.start(1) for m in _STARTS.finditer(claim)}
        label = _LABEL.match(claim)  # "**Response Protocol:** ..." is a heading, not a name
        skip = label.end() if label else 0
        for m in _CAPS.finditer(claim):
            yield m.group().lower()
        for m in _CAPITALISED.finditer(claim):
            if m.start() not in starts and m.start() >= skip:
                yield m.group().lower()


# who a rule speaks to ("Cline MUST update", "Claude should never", "Clineは必ず"): not
# what it is about, so not a name a rewrite must keep
_ADDRESSEE = re.compile(
    rf"(?<![{_LATIN_WORD}])([A-Z][{_LATIN_WORD}-]*(?:\s+Code)?)\s*(?:"
    r"(?:MUST|must|SHALL|shall|should|SHOULD|will|ALWAYS|always|NEVER|never|needs?\s+to|"
    r"has\s+to|is\s+(?:required|expected|not\s+allowed)\s+to|may\s+not|cannot|can't|"
    r"does\s+not|doesn't)(?![\w-])|は|が|必须|应该|应当|需要|务必|必ず)"
)
# what introduces an example: the names and quotes after it, or in parentheses, are
# samples of what the rule means, which a rewrite may swap for others
_EXAMPLE = re.compile(
    r"\(([^()]*)\)|(?:\b(?:e\.g\.?|eg|i\.e\.?|for\s+(?:example|instance)|such\s+as|like|say|"
    r"z\.\s?B\.|p\.\s?ex\.|por\s+ejemplo|zum\s+Beispiel|par\s+exemple)|例えば|例如|比如|如)"
    r"[:,]?\s*((?:\"[^\"\n]*\"|\u201c[^\u201d\n]*\u201d|`[^`\n]*`|[^.;!?\n\u3002\"\u201c`])*)",
    re.IGNORECASE,
)


def addressees(text: str) -> set[str]:
    """The names a rule is addressed to ("Cline" in "Cline MUST update the memory bank")."""
    return {m.group(1).lower() for m in _ADDRESSEE.finditer(text)}


def examples(text: str) -> set[str]:
    """The names and quoted phrases a rule gives as examples (in parentheses, after
    "e.g.", "such as", "like"): samples, not the objects a rule is about."""
    out: set[str] = set()
    for m in _EXAMPLE.finditer(text):
        part = m.group(1) if m.group(1) is not None else m.group(2)
        if part and part.strip():
            ids, proper = name_kinds(part)
            out |= ids | proper
    return out


def names_in(text: str) -> list[str]:
    """The named objects of a claim a rewrite must keep: code, quoted strings, paths,
    identifiers, proper nouns (a heading's words and a sentence's first word are not)."""
    return sorted(_names(text) - _numbers(text))


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
        stems = word_stems(claim)
        neg = bool(NEGATION.search(claim))
        limit = bool(_LIMIT_RESULT.search(claim))
        failure = bool(_FAILURE_RESULT.search(claim))
        if neg or limit or failure:
            kept.append((neg, limit, failure, stems | before))
        before = stems
    lost = []
    for claim in split_claims(source):
        said = NEGATION.findall(claim)
        if not said:
            continue
        is_limit = bool(_LIMIT_SOURCE.search(claim))
        is_failure = all(_FAILURE.fullmatch(w) for w in said)
        stems = word_stems(claim)
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
        every = [c for c in split_claims(source) if NEGATION.search(c)]
        if len(gone) == len(every):
            said = sorted({w.lower() for c in gone for w in NEGATION.findall(c)})
            what = "negation" if all(_FAILURE.fullmatch(w) for w in said) else "prohibition"
            lost.append(f"its {what} (" + ", ".join(repr(w) for w in said) + ")")
        else:
            lost.append("the prohibition " + ", ".join(repr(cut(c)) for c in gone))
    low = result.lower()
    words = set(re.findall(r"[\w'\u2019]+", low)) | set(re.findall(r"\w+", low))
    numbers = _numbers(result) | {_NUMBER_WORDS[w] for w in words if w in _NUMBER_WORDS}
    flat = normalize(_clean(result))
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
    return f"{what}{'s' if len(items) > 1 else ''} " + ", ".join(repr(cut(i)) for i in items)


def cut(text: str, width: int = 40) -> str:
    """The text on one line, its white space folded, cut to ``width`` with an ellipsis
    after a whole word (a word longer than half the width is cut inside)."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    head = flat[: width - 1]
    if flat[width - 1].isalnum() and head[-1:].isalnum():
        space = head.rfind(" ")
        if space >= width // 2:
            head = head[:space]
    return head.rstrip(" ,;:") + "\u2026"


# --- declarations --------------------------------------------------------------------------

_OPEN = "\"\u201c'\u2018`\u00ab"
_CLOSE = "\"\u201d'\u2019`\u00bb"
_ELLIPSIS = ("...", "\u2026")
_ID_TOKEN = re.compile(r"[\w-]+")
_MIN_QUOTE = 8  # a cut quote ("Do not retry...") must keep this much of the text


def normalize(text: str) -> str:
    return " ".join(text.lower().split())


class RecordNames:
    """A loss record, read once: what it names by id, by label and by quoting."""

    def __init__(self, entry: Entry, by_label: bool) -> None:
        self.text = entry.text
        self.flat = normalize(entry.text)
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
    body = normalize(entry.text)
    return any(RecordNames(r, True).names(entry, body) for r in records)
