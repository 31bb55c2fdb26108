"""The rewrite being audited: its two versions, how their entries were matched, and what
the checks look up in them (the loss records this rewrite wrote and what they name, the
entries it wrote or edited, where an old claim is looked for). Read only: what the checks
find is what they return."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from functools import cached_property, lru_cache
from operator import attrgetter, itemgetter

from padtui.core.audit.carry import ClaimIndex, NewClaim, OldClaim, keeps_name, stems
from padtui.core.audit.wording import RecordNames, normalize
from padtui.core.model import CAUTION_KINDS, Entry, Pad
from padtui.core.rules.finder import DATE_TAIL, Rule, RuleMap, entry_claims, imperative
from padtui.core.rules.finder import place_of as rules_place

# Words of a loss record that say *that* something went, not *what* went.
_RECORD_WORDS = frozenset(
    stems(
        "removed remove dropped drop deleted delete obsolete outdated stale old lesson lessons "
        "rule rules entry entries merged merge condensed condense consolidated consolidation "
        "summarized summary record records loss losses block blocks note notes section "
        "sections item items bullet bullets line lines no longer needed redundant duplicate "
        "replaced superseded folded into pruned trimmed cleaned"
    )
)


_DERIVED_FROM = attrgetter("derived_from")


class Rewrite:
    """The two sides of the rewrite being audited, and what the checks look up in them."""

    def __init__(
        self,
        old: Pad,
        new: Pad,
        matches: dict[int, tuple[int, str]],
        old_map: RuleMap,
        new_map: RuleMap,
        ends: tuple[int, int] = (0, 0),
        *,
        count_lost: bool = True,
    ) -> None:
        self.old, self.new = old, new
        self.matches, self.ends = matches, ends
        # claims carried nowhere matter only when the version holds fewer claims than before
        self.count_lost = count_lost
        self.old_map, self.new_map = old_map, new_map
        matched = dict(zip(map(itemgetter(0), matches.values()), matches, strict=True))
        self.back = matched
        # records that this rewrite wrote: their "#N" labels count old positions
        records = [e for e in new.entries if e.kind == "loss_record"]
        self.records = [RecordNames(e, e.index not in matched) for e in records]
        self.record_texts = [normalize(e.text) for e in records]
        # only a record this rewrite wrote (or edited) can declare its losses by describing
        # them or naming their section: an old record about a section declares nothing new
        written = [
            e
            for e in records
            if e.index not in matched or old.entries[matched[e.index]].text != e.text
        ]
        self.new_record_texts = [normalize(e.text) for e in written]
        self.record_stems = [stems(e.text) - _RECORD_WORDS for e in written]
        # the new entries this rewrite wrote or edited: where a changed claim went, mostly
        # (those at the two ends paired with themselves, the very objects, are neither)
        a, t = ends
        self.changed = [
            e
            for e in new.entries[a : len(new.entries) - t]
            if e.index not in matched
            or old.entries[matched[e.index]].text != e.text
            or old.entries[matched[e.index]].context != e.context
        ]
        self.derived: dict[str, list[Entry]] = defaultdict(list)
        if any(map(_DERIVED_FROM, new.entries)):  # (most pads: none, looked for in C)
            for n in new.entries:
                for ref in n.derived_from:
                    self.derived[ref].append(n)

    def pairs(self) -> Iterator[tuple[Entry, Entry | None]]:
        """Each old entry the checks look at, with the new entry it was matched to (none:
        it went). The very entries kept where they were (a live pad's most) say nothing,
        unless some new entry is derived from another."""
        a, t = self.ends
        olds = self.old.entries
        for o in olds if self.derived else olds[a : len(olds) - t]:
            hit = self.matches.get(o.index)
            n = self.new.entries[hit[0]] if hit else None
            if n is o and not self.derived:
                continue
            yield o, n

    def heirs(self, o: Entry, n: Entry | None) -> list[Entry]:
        if not self.derived:
            return []
        ref = o.label if o.id is None else o.id
        out = {h.index: h for h in self.derived.get(ref, ()) if h is not n}
        return list(out.values())

    def named(self, o: Entry) -> bool:
        body = normalize(o.text)
        return any(r.names(o, body) for r in self.records)

    def heading_named(self, o: Entry) -> bool:
        """Does a loss record name the section the entry sat in ("removed the "Flaky test
        handling" section")? Then everything under that heading went on the record."""
        title = o.context[-1] if o.context else o.kind.replace("_", " ")
        flat = normalize(DATE_TAIL.sub("", title)).strip(" #*:")
        if len(flat) < 8 or " " not in flat:
            return False  # a one-word heading ("Notes") names nothing in particular
        return any(flat in t for t in self.new_record_texts)

    def described(self, text: str) -> bool:
        """Does a loss record describe this text by its own words ("removed the obsolete
        seaborn style-name lesson")? Two of its content words, one of them rare in the old
        version (a word every entry shares names none of them)."""
        if not self.record_stems:
            return False
        mine = stems(text)
        for words in self.record_stems:
            shared = mine & words
            if len(shared) >= 2 and any(self.df.get(w, 0) <= 2 for w in shared):
                return True
        return False

    @cached_property
    def df(self) -> dict[str, int]:
        """In how many old entries each content word stands."""
        df: dict[str, int] = defaultdict(int)
        for e in self.old.entries:
            for w in stems(e.text):
                df[w] += 1
        return df

    @cached_property
    def _flat(self) -> str:
        return normalize("\n".join(e.text for e in self.new.entries))

    def anywhere(self, name: str) -> bool:
        """Does the new version still say this name, anywhere?"""
        return keeps_name(name, self._flat)

    def stood(self, c: NewClaim) -> bool:
        """Did this new claim stand in the old version as it stands now (in the entry its
        entry was matched to)? Then it is a rule of its own, not where another one went."""
        o = self.back.get(c.entry)
        if o is None:
            return False
        old = self.old.entries[o]
        if old.text == self.new.entries[c.entry].text:
            return True
        return normalize(c.body) in _bodies(old.text)

    def places(self, own: ClaimIndex, declared: bool) -> Iterator[ClaimIndex]:
        """Where an old claim is looked for, in turn: where its entry went, the entries this
        rewrite wrote or edited, then (for a loss not declared) the whole version, whose
        index is built only when a claim gets that far (most rewrites of a large pad change
        a few entries, and their claims are found among those)."""
        yield own
        yield self.changed_index
        if not declared:
            yield self.whole

    @cached_property
    def changed_index(self) -> ClaimIndex:
        return ClaimIndex(self.changed)

    @cached_property
    def whole(self) -> ClaimIndex:
        """The claims of the whole new version (built only when a claim is looked for
        there)."""
        return ClaimIndex(self.new.entries)

    def record_kept(self, o: Entry) -> bool:
        """A record folded verbatim into another loss record still says what it said."""
        body = normalize(o.text)
        return bool(body) and any(body in t for t in self.record_texts)

    def placed(self, o: Entry, rule: Rule, c: OldClaim) -> bool:
        """A rule only by the title of the whole file ("# Claude Code Instructions" over
        "## Claude-Specific" and "MCP servers: memory, 4da (31 tools)"): its own words, its
        section's heading and what lends it force bind nobody. Losing or changing one is no
        strong evidence: the audit says so as a warning, not as corruption."""
        if rule.kind != "instruction" or rule.lent is not None or len(o.context) < 2:
            return False
        label = c.label or c.body.split(":", 1)[0] if ":" in c.body[:40] else c.label
        if imperative(c.body) or (label and self.old_map.names_rules(label)):
            return False  # "Use it verbatim ...", "Subagent rules: spawn for ..."
        if o.kind in CAUTION_KINDS or _slug(o.context[0]) == o.kind:
            return False  # (the outer heading is the entry's own section)
        if len(self._titles) > 1:
            return False  # one of several "#" sections ("# Lessons"), not the file's title
        inner = [*o.context[1:], *(h for c in entry_claims(o.text) for h in c.headings)]
        return all(self.old_map.names_rules(t) is None for t in inner)

    def translated(self, text: str) -> bool:
        """Was the pad rewritten into another script than this rule's (English into
        Japanese)? A rule restated in another language is carried; the audit cannot match
        it word for word, so its loss is uncertain, not corruption."""
        was, now = self._script_shares
        mine = _script(text)
        if mine is None or not now:
            return False  # (an empty version moved into no other script)
        return was.get(mine, 0) >= 0.6 and now.get(mine, 0) <= 0.3

    @cached_property
    def _titles(self) -> set[str]:
        return {e.context[0] for e in self.old.entries if e.context}

    @cached_property
    def _script_shares(self) -> tuple[dict[str, float], dict[str, float]]:
        return _scripts(_all_text(self.old)), _scripts(_all_text(self.new))

    def other(self, o: Entry, n: Entry | None, heirs: Sequence[Entry], c: NewClaim) -> bool:
        """Is the entry a weakened rule was found in another entry than the one ``o``
        became (an entry of another id, while ``o``'s own is gone)?"""
        if n is not None or heirs or o.id is None:
            return False
        e = self.new.entries[c.entry]
        return e.id is not None and e.id != o.id

    def ruled_place(self, e: Entry) -> bool:
        return rules_place(e, self.new_map)[0] is not None


_SCRIPTS = (
    ("cjk", re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")),
    ("hangul", re.compile(r"[\uac00-\ud7af]")),
    ("cyrillic", re.compile(r"[\u0400-\u04ff]")),
    ("latin", re.compile(r"[A-Za-z\u00c0-\u024f]")),
)


def _scripts(text: str) -> dict[str, float]:
    """The share of a text's letters written in each script (a Japanese or Chinese character
    counts for three letters of English: it says about as much), code left out."""
    prose = re.sub(r"```.*?```|`[^`\n]*`", " ", text, flags=re.S)
    counts = {name: len(p.findall(prose)) * (3 if name == "cjk" else 1) for name, p in _SCRIPTS}
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()} if total else {}


def _script(text: str) -> str | None:
    """The script most of a text's letters are written in."""
    shares = _scripts(text)
    return max(shares, key=lambda k: shares[k]) if shares else None


def _all_text(pad: Pad) -> str:
    return "\n".join(e.text for e in pad.entries)


def _slug(title: str) -> str:
    return "_".join(re.findall(r"\w+", DATE_TAIL.sub("", title).lower()))


@lru_cache(maxsize=4096)
def _bodies(text: str) -> frozenset[str]:
    return frozenset(normalize(c.body) for c in entry_claims(text))
