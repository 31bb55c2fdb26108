"""Rules wherever they live: which claims of a pad bind the agent, and with what force.

A claim (a sentence or bullet line, see ``claims.py``) is a *rule* when either holds:

* **by place** -- its entry is of kind ``constraint`` or ``negative_fact``, or sits under a
  heading (a Markdown ``#``/``##``/``###`` heading, a Letta block's label, a heading inside a
  block's text) whose words name rules: ``## User Preferences``, ``## Lessons``,
  ``### 絶対禁止``, a block labelled ``procedures``. :class:`RuleMap` holds those words;
  a user extends or replaces it (``--rule-heading``, ``rule_headings`` in the pad);
* **by wording** -- its own words (or those of a heading above it, inside its section) make it
  a prohibition, an obligation, a restriction or a negative fact, in English, German, French,
  Spanish, Japanese or Chinese.

Each rule carries its *force* (:class:`Force`): what an honest rewrite keeps -- polarity,
modal strength, condition, numbers with their context, and names.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, pairwise
from typing import Any, Protocol, cast

from padtui.core.model import Entry, Pad
from padtui.core.rules.claims import split_claims
from padtui.core.sequences import runs
from padtui.core.sequences.runs import Runs, strings_digest


class _Lazy:
    """A pattern compiled where it is first used, which then takes its place among the
    module's names (so later calls use the pattern itself). Most checks need few of the
    patterns: the finder's quick test spares most texts the search."""

    __slots__ = ("args", "name")

    def __init__(self, pattern: str, flags: int) -> None:
        self.args = (pattern, flags)
        self.name = ""  # set once the module has run (below)

    def __getattr__(self, attr: str) -> Any:
        compiled = re.compile(*self.args)
        if self.name:
            globals()[self.name] = compiled
        return getattr(compiled, attr)


def _compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return cast("re.Pattern[str]", _Lazy(pattern, flags))


# --- the rule map: headings and labels that hold rules ------------------------------------

DEFAULT_RULE_WORDS: tuple[str, ...] = (
    "rule",
    "constraint",
    "guideline",
    "guardrail",
    "policy",
    "protocol",
    "procedure",
    "preference",
    "instruction",
    "convention",
    "requirement",
    "lesson",
    "correction",
    "mistake",
    "important",
    "never",
    "always",
    "do not",
    "don't",
    "dont",
    "must",
    "negative fact",
    "prohibited",
    "forbidden",
    "restriction",
    "decision",
    "feedback",
    "workflow",
    "learning",
    "gotcha",
    "pitfall",
    "caveat",
    "warning",
    # the common forms of other languages (matched inside a heading's text)
    "禁止",
    "必須",
    "重要",
    "ルール",
    "規則",
    "規約",
    "注意",
    "规则",
    "规范",
    "约束",
    "必须",
    "注意事项",
    "教训",
    "教訓",
    "经验",
    "regel",
    "richtlinie",
    "vorgabe",
    "wichtig",
    "niemals",
    "immer",
    "verbot",
    "konvention",
    "präferenz",
    "entscheidung",
    "regeln",
    "wichtige",
    "vorgaben",
    "richtlinien",
    "konventionen",
    "entscheidungen",
    "präferenzen",
    "verbote",
    "arbeitsweise",
    "vorgehen",
    "règle",
    "consigne",
    "préférence",
    "décision",
    "leçon",
    "jamais",
    "toujours",
    "interdit",
    "regla",
    "norma",
    "preferencia",
    "importante",
    "decisión",
    "decisione",
    "lección",
    "leccione",
    "nunca",
    "siempre",
    "prohibido",
    # Russian and Korean (matched inside a heading's text, as Japanese and Chinese are)
    "правил",
    "рекомендаци",
    "требовани",
    "ограничени",
    "соглашени",
    "инструкци",
    "принцип",
    "важн",
    "규칙",
    "규약",
    "정책",
    "원칙",
    "지침",
    "가이드라인",
    "주의",
    "중요",
    "필수",
    "금지",
)

_CJK = _compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff66-\uff9f]")
DATE_TAIL = re.compile(
    r"[\s\-\u2013\u2014:,]*(?:[(\[]\s*(?:updated|as of|last updated|since)?[^)\]]*\d{4}[^)\]]*"
    r"[)\]]|(?:updated|as of)\s+\S+.*|\d{4}-\d{2}-\d{2}.*)$",
    re.IGNORECASE,
)


def _heading_words(heading: str) -> list[str]:
    """A heading's words, lower-cased, separators and emoji forgiven (each word as written
    and in the singular: ``Lessons`` gives lessons, lesson)."""
    plain = DATE_TAIL.sub("", heading)
    plain = re.sub(r"([a-z])([A-Z])", r"\1 \2", plain)  # camelCase labels
    words = re.findall(r"[^\W\d_]+(?:['\u2019][a-z]+)?", plain.lower().replace("_", " "))
    out = []
    for w in words:
        w = w.replace("\u2019", "'")
        out += [w, _singular(w)]
    return out


def _singular(word: str) -> str:
    for plural, single in (("ies", "y"), ("ses", "s"), ("s", "")):
        if word.endswith(plural) and len(word) > len(plural) + 2 and not word.endswith("ss"):
            return word[: -len(plural)] + single
    return word


@dataclass(frozen=True)
class RuleMap:
    """The words of headings and labels that hold rules."""

    words: frozenset[str]

    @classmethod
    def default(cls) -> RuleMap:
        return _DEFAULT_MAP

    def extended(self, words: Iterable[str], *, replace: bool = False) -> RuleMap:
        """This map with more words (``replace``: only those words)."""
        extra = frozenset(" ".join(_heading_words(w)[::2]) or w.strip().lower() for w in words)
        extra = frozenset(w for w in extra if w)
        return RuleMap(extra if replace else self.words | extra)

    def for_pad(self, pad: Pad) -> RuleMap:
        """This map as the pad's own settings change it."""
        if not pad.rule_headings and not pad.rule_headings_replace:
            return self
        return self.extended(pad.rule_headings, replace=pad.rule_headings_replace)

    def names_rules(self, heading: str) -> str | None:
        """The word of ``heading`` that makes it a place of rules, or None."""
        return _names_rules(self.words, heading)


@lru_cache(maxsize=4096)
def _names_rules(words: frozenset[str], heading: str) -> str | None:
    mine = _heading_words(heading)
    joined = " " + " ".join(mine[::2]) + " "
    low = heading.lower()
    for w in sorted(words):
        if _CJK.search(w) or (not w.isascii() and " " not in w and w not in mine):
            if w in low:
                return w
        elif " " in w or "'" in w:
            if f" {w} " in joined:
                return w
        elif w in mine or _singular(w) in mine:
            return w
    return None


_DEFAULT_MAP = RuleMap(frozenset(DEFAULT_RULE_WORDS))
RULE_KINDS = frozenset({"constraint", "negative_fact"})

# --- wording: what makes a claim a rule, and its force -------------------------------------

STRONG, MEDIUM, WEAK = 3, 2, 1
_I = re.IGNORECASE
_APOS = "['\u2019]"


def _words(*alts: str) -> str:
    # (a hyphen joins words: "read-only" says nothing about "only")
    return r"(?<![\w-])(?:" + "|".join(alts) + r")(?![\w-])"


# prohibitions (and the strength they say it with)
_PROHIBIT_STRONG = _compile(
    _words(
        "never",
        r"do\s+not",
        rf"don{_APOS}?t",
        r"must\s+not",
        rf"mustn{_APOS}t",
        r"shall\s+not",
        r"may\s+not",
        "cannot",
        r"can\s+not",
        rf"can{_APOS}t",
        r"not\s+(?:be\s+)?(?:allowed|permitted|acceptable|ok)",
        r"is\s+not\s+to",
        rf"(?:does|do|did)(?:\s+not|n{_APOS}t)\s+(?:want|like|allow|need)",
        "forbidden",
        "prohibited",
        r"under\s+no\s+circumstances",
        r"refrain\s+from",
        "banned",
        "off-limits",
        r"no\s+longer\s+(?:use|allowed|permitted)",
        # German, French, Spanish
        "nie",
        "niemals",
        "verboten",
        "untersagt",
        r"darf\s+nicht",
        r"d[üu]rfen\s+nicht",
        r"kein(?:e|en|er|em|es)?",
        "jamais",
        "interdit",
        "interdite",
        "interdits",
        r"ne\s+\w+\s+pas",
        rf"n{_APOS}\w+\s+pas",
        r"ne\s+pas",
        "nunca",
        "jam[aá]s",
        "prohibido",
        "prohibida",
        # Russian: never, must not, forbidden, a negated imperative ("не используйте")
        "никогда",
        "нельзя",
        r"запрещ\w*",
        r"не\s+\w+(?:йте|ите)",
    ),
    _I,
)
_PROHIBIT_MEDIUM = _compile(
    _words(
        r"avoid\w*",
        r"should\s+not",
        rf"shouldn{_APOS}t",
        r"ought\s+not",
        r"prefer\s+not",
        r"(?:would|'d)\s+rather\s+not",
        r"dislike[sd]?",
        r"hate[sd]?",
        r"discourag\w*",
        "vermeiden",
        "vermeide",
        r"sollte\s+nicht",
        r"[ée]viter",
        r"[ée]vitez",
        "evitar",
        "evita",
        "evite",
        r"не\s+следует",
        r"избега\w*",
    ),
    _I,
)
_PROHIBIT_CJK = _compile(
    r"しない|しません|ないこと|ないように|ないで|するな|禁止|不可|いけない|ならない|禁物|厳禁"
    r"|不要(?![\u3040-\u30ff])|不得|严禁|切勿|不能|不准|绝不|决不|勿|不许|不应"  # (不要な: no rule)
    r"|금지|하지\s?마|하지\s?말|마세요|마십시오|절대|안\s?됩니다|안\s?된다"
    r"|(?:^|\s)[\u274c\U0001f6ab\u26d4]\ufe0f?\s*\S"  # a "don't" list's cross
    r"|[るうくすつぬむぶぐ]な(?=[\u3002\u3001\s!\uff01]|$)"  # Japanese "並べるな": do not line up
    r"|[かがさざただなばまらわ]ない(?=[\u3002\s]|$)"  # "書き込まない": does not write
    r"|[かがさざただなばまらわ]ずに?(?=[\u3001\u3002\s\uff08(]|$)"  # "置かず": without placing
)
_PROHIBIT_CJK_MEDIUM = _compile(r"避け|控え|避免|尽量不")
_NOT_WORD = _compile(
    _words(
        "not",
        "no",
        rf"\w+n{_APOS}t",
        "nicht",
        "pas",
        "nein",
        "without",
        "ohne",
        "sans",
        "sin",
    ),
    _I,
)
# obligations
_OBLIGE_STRONG = _compile(
    _words(
        "always",
        "must",
        r"ha(?:ve|s)\s+to",
        r"need(?:s)?\s+to",
        "required",
        "requires",
        "mandatory",
        "ensure",
        r"make\s+sure",
        r"needs?(?=\s+(?:the|a|an|its|their|your)\b)",
        r"(?:is|are)\s+needed",
        r"brauch(?:t|en)",
        r"benötig(?:t|en)",
        r"be\s+sure\s+to",
        "shall",
        r"every\s+time",
        r"without\s+exception",
        "only",
        "exclusively",
        "solely",
        "muss",
        "müssen",
        "immer",
        "stets",
        "nur",
        "ausschließlich",
        "pflicht",
        "doit",
        "doivent",
        "devez",
        "toujours",
        r"il\s+faut",
        "obligatoire",
        "seulement",
        "uniquement",
        "debe",
        "debes",
        "deben",
        "siempre",
        "obligatorio",
        r"hay\s+que",
        r"tienes\s+que",
        "solo",
        "sólo",
        "únicamente",
        "всегда",
        r"обязательн\w*",
        r"должн\w*",
        "необходимо",
        "нужно",
        "только",
    ),
    _I,
)
_OBLIGE_MEDIUM = _compile(
    _words(
        "should",
        r"ought\s+to",
        r"prefer\w*",
        r"recommend\w*",
        r"it{_APOS}?s\s+best\s+to".replace("{_APOS}", _APOS),
        r"is\s+expected\s+to",
        "sollte",
        "sollten",
        "bevorzug\\w*",
        "devrait",
        "devriez",
        "préf[ée]r\\w*",
        "debería",
        "deberías",
        "deberían",
        "preferir\\w*",
        "prefiere",
    ),
    _I,
)
_OBLIGE_CJK = _compile(
    r"必ず|必須|すること|しなければ|なければならない|常に|絶対|必须|务必|一定要|总是|始终|只能|仅限"
    r"|就要|필수|반드시|항상|해야|하세요|하십시오|할\s?것|せよ|しろ|なさい"
    r"|[えけせてねへめれべぺげぜで]よ(?=[\u3002\u3001\s!\uff01]|$)"  # "進めよ": go ahead
)
_OBLIGE_CJK_MEDIUM = _compile(r"べき|推奨|優先|应该|应当|需要|最好|优先|てください|でください|请")
# words that take the force out of a rule, wherever they stand
_HEDGE = _compile(
    _words(
        r"if\s+possible",
        r"where\s+possible",
        r"when\s+possible",
        r"whenever\s+possible",
        r"if\s+feasible",
        r"when\s+feasible",
        r"where\s+(?:it\s+)?(?:seems\s+|is\s+)?(?:useful|helpful|appropriate|practical|sensible)",
        r"when\s+(?:it\s+)?(?:seems\s+)?(?:useful|helpful|appropriate|practical|sensible)",
        r"as\s+appropriate",
        r"if\s+(?:it\s+)?(?:seems\s+)?(?:useful|helpful|appropriate|needed|convenient)",
        r"be\s+careful",
        r"take\s+care",
        r"try\s+to",
        r"try\s+not\s+to",
        r"consider\w*",
        r"you\s+may\s+want\s+to",
        r"you\s+might\s+want\s+to",
        r"feel\s+free",
        "optional",
        "optionally",
        "ideally",
        "perhaps",
        "maybe",
        r"use\s+(?:your\s+)?(?:best\s+)?judge?ments?",
        r"at\s+your\s+discretion",
        r"to\s+a\s+minimum",
        r"if\s+it\s+can\s+be\s+helped",
        r"as\s+little\s+as",
        r"(?:generally|usually|typically|normally)",
        r"it{_APOS}?s\s+(?:fine|ok|okay)\s+to".replace("{_APOS}", _APOS),
        r"wenn\s+möglich",
        r"nach\s+möglichkeit",
        r"en\s+la\s+medida\s+de\s+lo\s+posible",
        r"möglichst",
        "eventuell",
        r"si\s+possible",
        r"dans\s+la\s+mesure\s+du\s+possible",
        r"si\s+es\s+posible",
        r"en\s+lo\s+posible",
    ),
    _I,
)
_HEDGE_CJK = _compile(
    r"できれば|できるだけ|なるべく|極力|可能なら|可能であれば|検討|場合によって|尽量|尽可能|可以考虑|建议|或许|酌情"
)
_WEAK_MODAL = _compile(
    _words(
        "may",
        "might",
        "can",
        "could",
        "kann",
        "können",
        "könnte",
        "peut",
        "pouvez",
        "pourrait",
        "puede",
        "puedes",
        "podría",
    ),
    _I,
)
_WEAK_CJK = _compile(r"してもよい|しても良い|かもしれない|可以|也许")
# restrictions: limits, conditions, exclusivity
# what confines a rule: "only", "at most N" (its force keeps them, see exclusive())
_CONFINING = (
    "only",
    "exclusively",
    "solely",
    r"at\s+most",
    r"at\s+least",
    r"no\s+more\s+than",
    r"no\s+fewer\s+than",
    r"no\s+less\s+than",
)
_RESTRICT = _compile(
    _words(
        *_CONFINING,
        r"up\s+to",
        "maximum",
        "minimum",
        "max",
        "min",
        "unless",
        r"instead\s+of",
        r"rather\s+than",
        "except",
        r"before\s+\w+ing",
        r"after\s+\w+ing",
    ),
    _I,
)
# negative facts: what failed, does not work, is broken
_NEGATIVE_FACT = _compile(
    _words(
        rf"(?:does|do|did|is|are|was|were|has|have|will)(?:\s+not|n{_APOS}t)\s+"
        r"(?:work\w*|exist\w*|support\w*|help\w*|run\w*|compile\w*|load\w*|apply|available)",
        rf"won{_APOS}t\s+work",
        r"fail(?:s|ed|ing|ure)?(?!\s+(?:on|if|when|fast|closed|open)\b)",
        "broken",
        r"deprecated",
        "obsolete",
        r"not\s+supported",
        "unsupported",
        r"no\s+longer\s+(?:work\w*|exist\w*|available|supported)",
        r"crash(?:es|ed|ing)",
        r"times?\s+out",
        r"timed\s+out",
        r"doesn{_APOS}t\s+work".replace("{_APOS}", _APOS),
        "unavailable",
        r"funktioniert\s+nicht",
        r"ne\s+fonctionne\s+pas",
        r"no\s+funciona",
    ),
    _I,
)
_NEGATIVE_FACT_CJK = _compile(
    r"動かない|動作しない|失敗|使えない|非推奨|壊れ|不工作|失败|无法|不可用|已弃用"
)
CONTRAST = re.compile(
    r",\s*(?:and\s+)?not\s+|\(\s*not\s+|\bnot\s+just\b|\bnot\s+only\b|\brather\s+than\b"
    r"|\binstead\s+of\b",
    _I,
)
_CONDITION = _compile(
    _words(
        "if",
        "when",
        "whenever",
        "unless",
        "until",
        "before",
        "after",
        "while",
        "without",
        "except",
        r"in\s+case",
        r"as\s+long\s+as",
        "wenn",
        "falls",
        "bevor",
        "nachdem",
        "ohne",
        "außer",
        "si",
        "quand",
        "avant",
        "après",
        "sans",
        "sauf",
        "cuando",
        "antes",
        "después",
        "sin",
        "salvo",
        "excepto",
    )
    + r"\s+([^,;:.!?()\n]+)",
    _I,
)
_TRIGGER_CLAUSE = _compile(
    _words("if", "when", "whenever", "while", "wenn", "falls", "si", "quand", "cuando")
    + r"\s+[^,;:.!?()\n]+",
    _I,
)
_EXEMPT = _compile(_words("without", "unless", "except", "ohne", "sans", "sin", "salvo"), _I)


@dataclass(frozen=True)
class Rule:
    """One claim of a pad that binds the agent."""

    entry: int  # the entry's index in the pad
    text: str  # the claim, as written
    kind: str  # prohibition | obligation | restriction | negative_fact | instruction
    place: str | None  # the heading/label word that makes it a rule by place
    heading: str | None  # the nearest heading it sits under (for reporting)
    lent: str | None = None  # a heading inside the section that lends its force


# --- reading an entry's claims with the headings above them --------------------------------

_MD_HEADING = _compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_BOLD_LINE = _compile(r"^\s*\*\*([^*\n]{2,80})\*\*\s*:?\s*$|^\s*([^\W\d_][^:\n]{1,60}):\s*$")
_LEAD = _compile(r"^\s*(?:[>*+\-\u2022]\s+)*(?:\d{1,3}[.)]\s+)?(?:\[[ xX]\]\s*)?")
_LABEL = _compile(r"^\*\*([^*\n]{1,80})\*\*\s*[:\u2014\-]?\s*|^__([^_\n]{1,80})__\s*:?\s*")


# "e.g. inserts" is one claim, not two: a claim never ends on an abbreviation
_ABBREVIATION = _compile(r"\b(e\.g|i\.e|etc|vs|cf|approx|incl|esp|resp|ca|No)\.\s+", _I)


# German, French and Spanish abbreviations written with a space ("z. B.", "d. h.", "p. ex.")
_SPACED_ABBREVIATION = _compile(r"\b(z|d|u|p|s)\.\s(B|h|a|ex|o)\.", _I)


def _unbreak_spaced(m: re.Match[str]) -> str:
    return f"{m.group(1)}\u2024 {m.group(2)}\u2024"


def _unbreak(m: re.Match[str]) -> str:
    return m.group(1) + "\u2024" + m.group()[len(m.group(1)) + 1 :]  # (a dot that ends nothing)


_CJK_STOP = _compile(r"(?<=[\u3002\uff01\uff1f])")


def _cjk_sentences(claim: str) -> list[str]:
    """A claim cut after each Japanese or Chinese full stop (which no space follows)."""
    if not _CJK.search(claim):
        return [claim]
    return [p for p in _CJK_STOP.split(claim) if p.strip()]


@dataclass(frozen=True)
class Claim:
    """A claim of an entry, with the headings inside the entry's text above it."""

    text: str
    body: str  # the claim without its bullet mark and bold label
    label: str  # its bold label ("**Use tools actively**:"), or ""
    headings: tuple[str, ...]  # headings inside the entry above it (outermost first)
    position: int  # its place among the entry's claims


# a line that opens a block of its own: a bullet, a number, a heading, a table row, a quote,
# a fence, a bold label
_BLOCK_START = _compile(r"^\s*(?:[-*+\u2022>|#]|\d{1,3}[.)]\s|```|~~~|\*\*|__|\[[ xX]\])")
# the words a hard-wrapped sentence breaks after ("... leveraging ES module\nsyntax")
_OPEN_END = _compile(
    r"(?:[,;(\u2014\u2013-]|\b(?:a|an|the|and|or|to|of|with|for|in|on|by|that|which|is|are|be|"
    r"not|as|from|than|when|if|unless|before|after|while|into|your|its|their|can|should|must|"
    r"will|may|would|could|do|does)\b)\s*$",
    _I,
)


def _unwrap(lines: list[str]) -> list[str]:
    """Lines with a hard-wrapped sentence joined again ("While a\ntype is unknown, ...": one
    claim), so a claim is never a line's fragment of a sentence."""
    out: list[str] = []
    for line in lines:
        text = line.strip()
        prev = out[-1].rstrip() if out else ""
        joins = (
            text
            and prev
            and not _BLOCK_START.match(line)
            and not _MD_HEADING.match(prev)
            and not _BOLD_LINE.match(prev)
            and not re.fullmatch(r"\s*(\*\*|__)[^*_\n]+\1\s*:?\s*", prev)
            and not prev.endswith((".", ":", "!", "?", "\u3002", "\uff01", "\uff1f", "|", "```"))
            and (text[0].islower() or _OPEN_END.search(prev))
        )
        if joins:
            out[-1] = f"{prev} {text}"
        else:
            out.append(line)
    return out


_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_EMPHASIS = re.compile(r"(?<![\w*`/\\])(\*{1,3}|~~)(?=[^\s*])(.+?)(?<=[^\s*\\])\1(?![\w*])")
_WIDE = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F) if chr(c - 0xFEE0).isalnum()}
_WIDE[0x3000] = 0x20  # an ideographic space
_CJK_CHAR = "\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af\uff01-\uff0f\uff1a-\uff20"
_CJK_GAP = re.compile(
    rf"(?<=[{_CJK_CHAR}])[ \t]*(?=[A-Za-z0-9`])|(?<=[A-Za-z0-9%`])[ \t]*(?=[{_CJK_CHAR}])"
)


def _link(m: re.Match[str]) -> str:
    """A link as its text, its target aside in parentheses (a sample, see
    ``wording.examples``: a changed target is no evidence)."""
    target = re.sub(r"^\S*\(|\)$", "", m.group(0)[m.group(0).index("](") + 1 :])
    return f"{m.group(1)} ({target.strip('()')})" if target.strip("()") else m.group(1)


# a line that only points elsewhere: a table of contents' links, an "@path" import, a bare
# path or address: no rule, whatever words its link text holds ("[Mandatory Skill Usage]")
_POINTER = _compile(
    r"\W{0,3}(?:\d{1,3}[.)]\s*)?(?:(?:!?\[[^\]\n]*\]\([^)\s]*\)|@[\w./~-]+|<?https?://\S+>?)"
    r"[\s,;|\u00b7\u2022/-]*)+"
)


def pointer(text: str) -> bool:
    """Does the line only point elsewhere (links, imports, addresses)?"""
    return bool(_POINTER.fullmatch(text.strip()))


def plain_markup(text: str) -> str:
    """A claim's words without what only formats them: a link's target (its text kept),
    emphasis ("do **not**" says "do not"), full-width letters and digits, and the spaces an
    autoformatter puts between Japanese or Chinese and Latin (read as one: "第1原則" and
    "第 1 原則" are both "第 1 原則")."""
    if "[" in text and "](" in text:
        text = _LINK.sub(_link, text)
    if "*" in text or "~~" in text:
        for _ in range(2):  # ("***bold italic***", "**not *ever***")
            text = _EMPHASIS.sub(r"\2", text)
    if not text.isascii():
        text = _CJK_GAP.sub(" ", text.translate(_WIDE))
    return text


@lru_cache(maxsize=65536)
def entry_claims(text: str) -> tuple[Claim, ...]:
    """The claims of an entry's text, headings inside the text not counted as claims but
    lent to the claims under them."""
    out: list[Claim] = []
    stack: list[tuple[int, str]] = []
    if ". " in text:
        text = _SPACED_ABBREVIATION.sub(_unbreak_spaced, text)
    for line in _unwrap(_ABBREVIATION.sub(_unbreak, text).splitlines()):
        h = _MD_HEADING.match(line)
        bold = None if h else _BOLD_LINE.match(line)
        if h or bold:
            level = len(h.group(1)) if h else 7
            title = h.group(2) if h else (bold.group(1) or bold.group(2) or "")  # type: ignore[union-attr]
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title.strip().rstrip(":").strip()))
            continue
        for piece in (p for part in split_claims(line) for p in _cjk_sentences(part)):
            lead = _LEAD.match(piece)
            body = piece[lead.end() :] if lead else piece
            label = ""
            m = _LABEL.match(body)
            if m:
                label = (m.group(1) or m.group(2) or "").strip()
                body = body[m.end() :]
            if not re.search(r"\w", body):
                if label:  # a bold label alone is a heading
                    while stack and stack[-1][0] >= 7:
                        stack.pop()
                    stack.append((7, label))
                continue
            piece, body = piece.replace("\u2024", "."), plain_markup(body.replace("\u2024", "."))
            out.append(Claim(piece, body.strip(), label, tuple(t for _, t in stack), len(out)))
    return tuple(out)


# --- the finder ------------------------------------------------------------------------------


_JA_OBLIGE = _compile(r"な(?:けれ|く)(?:ば|ては)(?:なら|いけ)ない|ないといけない")
_LIMIT = _compile(
    r"\b(?:no|not|never)\s+(?:more|longer|later|greater|higher|larger|bigger|fewer|less|"
    r"earlier|sooner)\s+than\b|\b(?:do\s+not|don['\u2019]t|never|must\s+not|not\s+to)\s+"
    r"exceed\b",
    _I,
)


# "must" that guesses rather than binds: "I think it must be the cache", "it must have been"
_EPISTEMIC_MUST = _compile(
    r"(\b(?:I|we)\s+(?:think|guess|suspect|bet|believe|reckon|suppose)\b[^.;!?\n]{0,40}?)"
    r"\bmust\b|\bmust(?=(?:\s+have|['\u2019]ve)\s+been\s+(?:the|a|an|that|this|some|my|our|your)\b)",
    _I,
)


@lru_cache(maxsize=65536)
def _plain(text: str) -> str:
    """The text with contrasts ("X, not Y"), limits ("no more than 3": at most 3), a guessing
    "must" and Japanese double negatives set aside."""
    text = _EPISTEMIC_MUST.sub(r"\1", text) if "must" in text.lower() else text
    return _JA_OBLIGE.sub("必須", _LIMIT.sub(" at most ", CONTRAST.sub(" ", text)))


def markers(text: str) -> list[str]:
    """The words that make a claim a prohibition or a negative fact ("never", "failed")."""
    plain = _CONDITION.sub(" ", _plain(text))
    found = []
    for pattern in (
        _PROHIBIT_STRONG,
        _PROHIBIT_MEDIUM,
        _NEGATIVE_FACT,
        _PROHIBIT_CJK,
        _PROHIBIT_CJK_MEDIUM,
        _NEGATIVE_FACT_CJK,
        _NOT_WORD,
        _NO_START,
    ):
        found += [" ".join(m.group().lower().split()) for m in pattern.finditer(plain)]
    return list(dict.fromkeys(found))


# The words that open a rule word or phrase of the patterns above (a word that opens one
# only with the next, "at most", is a pair; words are runs of letters, so "n't" is looked
# for as it is): a text with none of them holds no rule word, told by one search in an
# ASCII text (below), else by one split (the patterns, searched at every position, cost 50
# times more)
_MARK_WORDS = frozenset(
    re.findall(
        r"\S+",
        """never dont cannot forbidden prohibited refrain banned not no nothing always must
    required requires mandatory ensure shall only exclusively solely should ought unless
    instead rather except maximum minimum max min broken deprecated obsolete unsupported
    unavailable crashes crashed crashing timed needed expected faut pas nie niemals darf
    dürfen durfen muss müssen immer stets nur sollte sollten pflicht jamais doit doivent
    devez toujours seulement uniquement devrait devriez obligatoire nunca jamás jamas debe
    debes deben siempre solo sólo únicamente debería deberías deberían obligatorio
    funktioniert fonctionne funciona ne aucun aucune ningún ninguna nada никогда нельзя
    всегда необходимо нужно только не statt anstatt lieu lugar""",
    )
)
_MARK_PREFIXES = (
    "avoid",
    "forbid",
    "prohibit",
    "disallow",
    "discourag",
    "prefer",
    "recommend",
    "dislike",
    "hate",
    "fail",
    "kein",
    "interdit",
    "bevorzug",
    "brauch",
    "benötig",
    "préfér",
    "preferir",
    "prefier",
    "prohibid",
    "evit",
    "évit",
    "vermeid",
    "verbot",
    "untersag",
    "ausschließ",
    "запрещ",
    "обязательн",
    "должн",
    "избега",
)
_MARK_PAIRS = frozenset(
    {
        ("at", "most"),
        ("at", "least"),
        ("up", "to"),
        ("have", "to"),
        ("has", "to"),
        ("need", "to"),
        ("needs", "to"),
        ("need", "the"),
        ("need", "a"),
        ("need", "an"),
        ("need", "its"),
        ("need", "their"),
        ("need", "your"),
        ("needs", "the"),
        ("needs", "a"),
        ("needs", "an"),
        ("needs", "its"),
        ("needs", "their"),
        ("needs", "your"),
        ("make", "sure"),
        ("be", "sure"),
        ("every", "time"),
        ("times", "out"),
        ("time", "out"),
        ("hay", "que"),
        ("tienes", "que"),
        ("under", "no"),
        ("off", "limits"),
    }
)
_LETTERS = _compile(r"[^\W\d_]+")


def _may_mark(text: str) -> bool:
    """Could the text hold a rule word? (False is sure; True is checked by the patterns.)"""
    # "n't" and French "n'" ("n'utilisez pas") wherever they stand; "IMPORTANT", "CRITICAL",
    # "NOTE" bind only in capitals, opening a claim (see wording_kind): in lower case ("a
    # note on the cache") they are no rule word, and common
    if "n'" in text or "N'" in text or "NOTE" in text or "IMPORTANT" in text:
        return True
    if "CRITICAL" in text:
        return True
    if text.isascii():
        return _may_mark_ascii(text)
    if "n\u2019" in text or "N\u2019" in text:
        return True
    if _PROHIBIT_CJK.search(text) or _OBLIGE_CJK.search(text) or _CJK.search(text):
        return True
    return _any_mark_word(text)


def _any_mark_word(text: str) -> bool:
    """Does the text hold a word of _MARK_WORDS, a word that opens with one of
    _MARK_PREFIXES, a pair of _MARK_PAIRS, or "before"/"after" and a word ending in "ing"?"""
    words = _LETTERS.findall(text.lower())
    if not _MARK_WORDS.isdisjoint(words) or any(w.startswith(_MARK_PREFIXES) for w in words):
        return True
    if any(w in ("before", "after") and n.endswith("ing") for w, n in pairwise(words)):
        return True
    return not _MARK_PAIRS.isdisjoint(pairwise(words))


# An ASCII text's words, each a run of letters in lower case (as _any_mark_word reads them),
# split out in bulk: its bytes with every letter lowered and every other byte a space
_LOWER_LETTERS = bytes(
    c | 0x20 if 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A else 0x20 for c in range(256)
)
_PAIR_FIRSTS = frozenset(a.encode() for a, _b in _MARK_PAIRS if a.isascii())
_ASCII_PAIRS = frozenset((a.encode(), b.encode()) for a, b in _MARK_PAIRS if (a + b).isascii())
# words met that are no rule word, open with no rule prefix and are not "before" or "after"
# (a pair's first word may be one): most texts hold only such words, told by one set test
_QUIET: set[bytes] = set()
_QUIET_LIMIT = 200_000


def _may_mark_ascii(text: str) -> bool:
    """``_any_mark_word`` of an ASCII text, in bulk where its words are all known quiet."""
    words = text.encode("ascii").translate(_LOWER_LETTERS).split()
    quiet = _QUIET
    if not quiet.issuperset(words):
        new = set(words).difference(quiet)
        loud = {w.decode() for w in new}
        loud = {w for w in loud if w in _MARK_WORDS or w.startswith(_MARK_PREFIXES)}
        if loud or not _BEFORE_AFTER.isdisjoint(new):
            return _any_mark_word(text)
        if len(quiet) + len(new) > _QUIET_LIMIT:
            quiet.clear()
        quiet.update(new)
    if _PAIR_FIRSTS.isdisjoint(words):
        return False
    return not _ASCII_PAIRS.isdisjoint(pairwise(words))


_BEFORE_AFTER = frozenset({b"before", b"after"})


@lru_cache(maxsize=65536)
def wording_kind(text: str) -> str | None:
    """What a claim's own words make it: a prohibition, an obligation, a restriction or a
    negative fact (None: none of these)."""
    if not _may_mark(text):
        return None  # (most claims of a large pad: one search instead of a dozen)
    return _kind_of(text)


# a guess, not a rule: "smaller batches might avoid them", "they probably landed"
_SPECULATE = _compile(
    _words(
        "might",
        "probably",
        "likely",
        "possibly",
        "perhaps",
        "presumably",
        "apparently",
        r"I\s+(?:think|guess|suspect)",
        r"seems?\s+to",
        r"could\s+be",
        "vermutlich",
        "wahrscheinlich",
        "vielleicht",
        "peut-être",
        "probablement",
        "quizás",
        "probablemente",
    )
    + r"|かもしれ|たぶん|多分|おそらく|恐らく|也许|大概|或许|可能会",
    _I,
)
# a positive restriction: "use yarn, not npm", "X instead of Y", "rather than"
_INSTEAD = _compile(
    r",\s*(?:and\s+)?not\s+(?!just\b|only\b|always\b|necessarily\b)\w|\binstead\s+of\b"
    r"|\brather\s+than\b|\bover\b(?=.*\bprefer)|\bprefer\w*\b.*\bover\b|\bnicht\s+\w+\s*$"
    r"|\bstatt\b|\banstatt\b|\bau\s+lieu\s+de\b|\ben\s+lugar\s+de\b|而不是|而非|ではなく",
    _I,
)


# a choice the agent is told to make: "use yarn, not npm" binds, "it is slow, not broken" is a fact
_CHOOSE = _compile(
    r"\b(?:use|using|prefer\w*|choose|pick|go\s+with|stick\s+to|write|call|verwende\w*|"
    r"nutze\w*|benutze\w*|utilise[rz]?|utilisez|usa|usar|utiliza\w*)\b",
    _I,
)


def _kind_of(text: str) -> str | None:
    """``wording_kind`` without the quick test: every pattern searched."""
    kind = _kind_read(text)
    if kind is not None and kind != "negative_fact" and _SPECULATE.search(text):
        strong = _plain(text)
        if not (_PROHIBIT_STRONG.search(strong) or _OBLIGE_STRONG.search(strong)):
            return None  # a guess binds nobody
        if re.search(r"\b(?:only|solely|exclusively)\b", strong, _I) and not re.search(
            r"\b(?:must|never|always|do\s+not|don't)\b", strong, _I
        ):
            return None
    told = kind is None and (imperative(text) or _CHOOSE.search(text) or not text.isascii())
    if told and _INSTEAD.search(text) and not _SPECULATE.search(text):
        return "restriction"  # "use yarn, not npm": the other is excluded
    return kind


_CHECKBOX = _compile(r"\s*(?:[-*+]\s+)?\[[ xX]\]\s+\S")
_CHECKBOX_LINE = _compile(r"^\s*(?:[-*+]\s+)?\[[ xX]\]\s+\S", re.MULTILINE)


def kind_is_guess(text: str) -> bool:
    """Does the claim guess rather than bind ("we will likely use X", "probably landed")?"""
    if not _SPECULATE.search(text):
        return False
    plain = _plain(text)
    return not (_PROHIBIT_STRONG.search(plain) or _OBLIGE_STRONG.search(plain))


def _kind_read(text: str) -> str | None:
    plain = _plain(text)
    main = _CONDITION.sub(" ", plain)  # "if the build fails, roll back" is an instruction
    failed = _NEGATIVE_FACT.search(main) or _NEGATIVE_FACT_CJK.search(main)
    if failed and (not _PROHIBIT_STRONG.search(plain) or re.search(r"\bfail", plain, _I)):
        return "negative_fact"
    prohibits = (_PROHIBIT_STRONG, _PROHIBIT_MEDIUM, _PROHIBIT_CJK, _PROHIBIT_CJK_MEDIUM)
    if any(p.search(plain) for p in prohibits) or _starts_with_no(plain):
        return "prohibition"
    obliges = (_OBLIGE_STRONG, _OBLIGE_MEDIUM, _OBLIGE_CJK, _OBLIGE_CJK_MEDIUM)
    if any(p.search(plain) for p in obliges) or re.match(
        r"\s*(?:IMPORTANT|CRITICAL|NOTE|MUST|NEVER|ALWAYS)\b", text
    ):
        if _RESTRICT.search(plain) and re.search(r"\b(?:only|exclusively|solely)\b", plain, _I):
            return "restriction"
        return "obligation"
    if _RESTRICT.search(plain):
        return "restriction"
    return None


_NO_START = _compile(r"^\W*(?:no|keine?|aucun\w*|ningún|ninguna|nada\s+de)\s+\w+", _I)


def _starts_with_no(text: str) -> bool:
    return bool(_NO_START.match(text))


# padtui's own kinds that are no place of rules by their name: an entry of one of them that
# sits under no heading has no place (``place_of``)
_PLACELESS_KINDS = frozenset({"note", "plan", "hypothesis", "loss_record"})


def place_of(entry: Entry, rule_map: RuleMap) -> tuple[str | None, str | None]:
    """The word that makes the entry's place hold rules (or None), and the nearest heading
    the entry sits under."""
    heading = entry.context[-1] if entry.context else None
    if entry.kind in RULE_KINDS:
        return entry.kind, heading or entry.kind
    for title in reversed(entry.context):
        word = rule_map.names_rules(title)
        if word is not None:
            return word, heading
    if not entry.context and entry.kind not in _PLACELESS_KINDS:
        word = rule_map.names_rules(entry.kind.replace("_", " "))
        if word is not None:
            return word, entry.kind
    return None, heading


def entry_rules(entry: Entry, rule_map: RuleMap | None = None) -> list[Rule]:
    """The rules of one entry."""
    rule_map = rule_map or RuleMap.default()
    if entry.kind == "loss_record":
        return []
    place, heading = place_of(entry, rule_map)
    return [
        Rule(entry.index, text, kind, where_place, where, lent)
        for text, kind, where_place, where, lent in _rules_of(
            entry.text, entry.context, place, heading, rule_map
        )
    ]


@lru_cache(maxsize=65536)
def _rules_of(
    text: str,
    context: tuple[str, ...],
    place: str | None,
    heading: str | None,
    rule_map: RuleMap,
) -> tuple[tuple[str, str, str | None, str | None, str | None], ...]:
    out = []
    claims = entry_claims(text)
    # an open question ("Open question: should X? Waiting on Y.") holds no rules by place
    asks = bool(claims) and claims[0].body.rstrip().endswith(("?", "\uff1f"))
    for c in claims:
        if c.body.rstrip().endswith(("?", "\uff1f")):
            continue  # a question binds nobody
        if pointer(_LEAD.sub("", c.text, count=1)):
            continue  # a table of contents' line, an import: it points, it binds nobody
        if kind_is_guess(c.body):
            continue  # "we will likely use X": a guess binds nobody, wherever it sits
        kind = wording_kind(c.body)
        if kind is None and _CHECKBOX.match(c.text):
            kind = "obligation"  # a checklist item binds, even phrased as a state
        lent = None
        inner_place = None if asks else place
        if c.label and kind is None:
            lent_kind = wording_kind(c.label)
            if lent_kind is not None:
                kind, lent = lent_kind, c.label
        for title in reversed(context + c.headings):
            if kind is None:
                lent_kind = wording_kind(title)
                if lent_kind is not None:
                    kind, lent = lent_kind, title
            if inner_place is None and not asks:
                inner_place = rule_map.names_rules(title)
        if kind is None and inner_place is None:
            continue
        where = c.headings[-1] if c.headings else heading
        out.append((c.text, kind or "instruction", inner_place, where, lent))
    return tuple(out)


def lent_by(claim: Claim, context: tuple[str, ...]) -> str | None:
    """The heading or bold label that lends its wording to a claim without any of its own."""
    if wording_kind(claim.body) is not None:
        return None
    for title in (claim.label, *reversed(context + claim.headings)):
        if title and wording_kind(title) is not None:
            return title
    return None


def may_hold_rules(entry: Entry, rule_map: RuleMap) -> bool:
    """Could the entry hold a rule? False only when nothing could make one: no rule place,
    no heading that lends wording, and not one rule word or heading in its text."""
    if entry.kind == "loss_record":
        return False
    if entry.context or entry.kind not in _PLACELESS_KINDS:  # (else it has no place)
        if place_of(entry, rule_map)[0] is not None:
            return True
        if entry.context and any(_lends(title) for title in entry.context):
            return True
    text = entry.text
    if "#" in text or "**" in text or "__" in text or _LINE_HEADING.search(text):
        return True  # (a heading or a bold label inside the text, see entry_claims)
    if "]" in text and _CHECKBOX_LINE.search(text):
        return True  # (a checklist item)
    return _may_mark(text)


# a line that ends with a colon, which may be a heading ("Rules:", see _BOLD_LINE)
_LINE_HEADING = _compile(r":\s*(?:[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]|\Z)")


@lru_cache(maxsize=4096)
def _lends(title: str) -> bool:
    return wording_kind(title) is not None


# An entry's rules, as a memo keeps them: (text, kind, place, heading, lent) each.
RuleRows = tuple[tuple[str, str, str | None, str | None, str | None], ...]


class RuleMemo(Protocol):
    """Rules found before, by a key of what they depend on (see ``rule_key``); and those of
    a list of entries asked for before, by its runs (see ``entry_runs``)."""

    def get(self, key: bytes) -> RuleRows | None: ...
    def put(self, key: bytes, rows: RuleRows) -> None: ...
    def runs(self) -> Runs | None: ...
    def found_again(
        self, before: Runs, again: list[tuple[int, int, int]], n: int
    ) -> tuple[list[bytes | None], list[RuleRows | None]]: ...
    def keep_order(self, runs: Runs, keys: list[bytes]) -> None: ...


def find_rules(
    pad: Pad,
    rule_map: RuleMap | None = None,
    memo: RuleMemo | None = None,
    *,
    sealed: bool = True,
) -> list[Rule]:
    """Every rule of a pad, in file order (``sealed`` False: those of unsealed entries); an
    entry's found in ``memo`` if it is there (a count cache keeps them between runs: finding
    them is most of a large pad's check)."""
    rule_map = (rule_map or RuleMap.default()).for_pad(pad)
    out: list[Rule] = []
    entries = pad.entries if sealed else [e for e in pad.entries if not e.sealed]
    if memo is None:
        for e in entries:
            if may_hold_rules(e, rule_map):
                out += entry_rules(e, rule_map)
        return out
    stamp, get, put = _rules_stamp(rule_map.words), memo.get, memo.put
    seed, lengths, digest = entry_runs(entries, stamp)
    before = memo.runs()
    if before is None:
        now = runs.of(seed, lengths, digest)
        keys: list[bytes | None] = [None] * len(entries)
        found: list[RuleRows | None] = [None] * len(entries)
    else:  # (the runs of entries an earlier run had too: their keys and rules kept)
        now, again = runs.match(seed, lengths, digest, before)
        keys, found = memo.found_again(before, again, len(entries))
    quiet = False
    for i in [i for i, k in enumerate(keys) if k is None] if None in keys else ():
        e = entries[i]
        if not may_hold_rules(e, rule_map):  # (most entries: told apart faster than hashed)
            keys[i], found[i], quiet = QUIET, (), True
            continue
        key = keys[i] = rule_key(e, stamp)
        rows = get(key)
        if rows is None:
            got = entry_rules(e, rule_map)
            rows = tuple((r.text, r.kind, r.place, r.heading, r.lent) for r in got)
            put(key, rows)
        found[i] = rows
    if quiet:  # (kept even if known: the file then keeps these entries' order too)
        put(QUIET, ())
    for e, rows in zip(entries, found, strict=True):
        if rows:
            out += [Rule(e.index, *row) for row in rows]
    memo.keep_order(now, cast(list[bytes], keys))
    return out


# The key of every entry that cannot hold a rule (``may_hold_rules``): its rules are none,
# whatever its text, so it is not hashed. (A hash of 16 zero bytes is not met by chance.)
QUIET = bytes(16)


def rule_key(entry: Entry, stamp: Any) -> bytes:
    """What an entry's rules depend on, hashed: its kind, text and headings, with ``stamp``
    (``_rules_stamp``: the rule map's words and the code that finds rules)."""
    h = stamp.copy()
    data = f"{len(entry.kind)}:{entry.kind}{len(entry.text)}:{entry.text}"
    if entry.context:
        data += "".join(f"{len(p)}:{p}" for p in entry.context)
    h.update(data.encode("utf-8", "surrogatepass"))
    digest: bytes = h.digest()
    return digest


def entry_runs(entries: Sequence[Entry], stamp: Any) -> tuple[bytes, list[int], runs.Digest]:
    """How a list of entries is cut into runs and hashed (see ``padtui.core.sequences.runs``): by
    what their rules depend on, each one's kind, text and headings, with ``stamp`` (see
    ``rule_key``)."""
    kinds = [e.kind for e in entries]
    texts = [e.text for e in entries]
    contexts = [e.context for e in entries]
    if not any(contexts):  # (no entry under a heading: a list's runs hash less)

        def plain(h: Any, start: int, end: int) -> None:
            h.update(b"p")
            strings_digest(h, kinds[start:end] + texts[start:end])

        return stamp.digest(), list(map(len, texts)), plain

    def digest(h: Any, start: int, end: int) -> None:
        around = contexts[start:end]
        h.update(b"c" + array("Q", [end - start, *map(len, around)]).tobytes())
        strings_digest(h, kinds[start:end] + texts[start:end] + list(chain.from_iterable(around)))

    return stamp.digest(), list(map(len, texts)), digest


@lru_cache(maxsize=64)
def _rules_stamp(words: frozenset[str]) -> Any:
    """A hash begun with the rule map's words and the code that finds rules (this module
    and the claims'): a rule kept by another version of either, or found with other words,
    is not used."""
    import hashlib

    from padtui.core.rules import claims

    h = hashlib.blake2b(digest_size=16)
    for module in (__file__, claims.__file__):
        with open(module, "rb") as f:
            h.update(f.read())
    h.update("\0".join(sorted(words)).encode("utf-8", "surrogatepass") + b"\1")
    return h


# --- force ------------------------------------------------------------------------------------

# a number with what is glued to it: 3.12, 5xx, v1, 4,000, 10s (libpython3.12 is not 3.12)
_NUMBER = _compile(r"(?<![\w.])(?=[\w.,:]*?\d)\w+(?:[.,:]\w+)*%?")
_THOUSANDS = _compile(r"(?<=\d),(?=\d{3}(?!\d))")
_UNITS = {
    "s": "second",
    "sec": "second",
    "secs": "second",
    "ms": "millisecond",
    "m": "minute",
    "min": "minute",
    "mins": "minute",
    "h": "hour",
    "hr": "hour",
    "hrs": "hour",
    "d": "day",
    "k": "thousand",
    "x": "time",
}
_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    )
}
_NUMBER_WORDS |= {"twenty": "20", "thirty": "30", "hundred": "100", "once": "1", "twice": "2"}
_WORD = _compile(r"[^\W\d_]{2,}")


_EXCLUSIVE = _compile(
    _words(
        *_CONFINING,
        r"nothing\s+but",
        "nur",
        "ausschließlich",
        "höchstens",
        "mindestens",
        "seulement",
        "uniquement",
        r"au\s+plus",
        "solo",
        "sólo",
        "únicamente",
        r"como\s+máximo",
    )
    + r"|のみ|だけ|只能|仅|最多|至少",
    _I,
)


def exclusive(text: str) -> str | None:
    """The word that confines a rule ("only", "at most"), if it has one."""
    m = _EXCLUSIVE.search(CONTRAST.sub(" ", text))
    return " ".join(m.group().lower().split()) if m else None


def hedged(text: str) -> bool:
    """Does the text take the force out of what it says ("where possible", "try to")?"""
    plain = _plain(text)
    return bool(_HEDGE.search(plain) or _HEDGE_CJK.search(plain) or _WEAK_CJK.search(plain))


def strength(text: str, lent: str | None = None) -> int:
    """The modal strength a claim says its rule with (a hedge anywhere weakens it)."""
    said = stated(text)
    if said is None:
        return strength(lent) if lent else STRONG  # a bare instruction is an instruction
    return said


def weak_modal(text: str) -> bool:
    """Does the text say something with "can", "may", "might" or "could"?"""
    return bool(_WEAK_MODAL.search(_plain(text)) or _WEAK_CJK.search(text))


def stated(text: str) -> int | None:
    """The modal strength the text's own words say (None: it says none)."""
    said = said_with(text)
    return None if said is None else said[0]


def said_with(text: str) -> tuple[int, str] | None:
    """The modal strength the text's own words say, and the words that say it (a hedge
    anywhere, else the first modal): ``(WEAK, "where possible")``."""
    plain = _plain(text)
    for hedge in (_HEDGE, _HEDGE_CJK, _WEAK_CJK):
        m = hedge.search(plain)
        if m:
            return WEAK, " ".join(m.group().split())
    marks: list[tuple[int, int, str]] = []
    for pattern, level in (
        (_PROHIBIT_STRONG, STRONG),
        (_OBLIGE_STRONG, STRONG),
        (_PROHIBIT_MEDIUM, MEDIUM),
        (_OBLIGE_MEDIUM, MEDIUM),
        (_WEAK_MODAL, WEAK),
        (_NO_START, STRONG),  # "no Redux": a prohibition as strong as "do not add Redux"
        (_PROHIBIT_CJK, STRONG),
        (_OBLIGE_CJK, STRONG),
        (_PROHIBIT_CJK_MEDIUM, MEDIUM),
        (_OBLIGE_CJK_MEDIUM, MEDIUM),
    ):
        m = pattern.search(plain)
        if m:
            marks.append((m.start(), level, " ".join(m.group().split())))
    if not marks:
        return None
    first = min(marks)  # the first modal says how the main clause is meant
    return first[1], first[2]


def negative(text: str) -> bool:
    """Does the claim forbid, or say that something does not hold? (A negation inside its
    trigger, "if it isn't in the guide", does not count; "without reciting" does.)"""
    plain = _TRIGGER_CLAUSE.sub(" ", _plain(text))
    return bool(
        _PROHIBIT_STRONG.search(plain)
        or _PROHIBIT_MEDIUM.search(plain)
        or _PROHIBIT_CJK.search(plain)
        or _PROHIBIT_CJK_MEDIUM.search(plain)
        or _NEGATIVE_FACT.search(plain)
        or _NEGATIVE_FACT_CJK.search(plain)
        or _NOT_WORD.search(plain)
        or _starts_with_no(plain)
    )


PAREN = re.compile(r"\([^()]*\)")


def negates(text: str) -> bool:
    """Does the claim negate its own verb ("do not", "never", "fails")? A noun negated
    ("no raw dicts") or an aside in parentheses does not turn a rule around."""
    plain = _CONDITION.sub(" ", _plain(PAREN.sub(" ", text)))
    return bool(
        _PROHIBIT_STRONG.search(plain)
        or _PROHIBIT_MEDIUM.search(plain)
        or _PROHIBIT_CJK.search(plain)
        or _NEGATIVE_FACT.search(plain)
        or _NEGATIVE_FACT_CJK.search(plain)
        or re.search(r"\bnot\b|n['\u2019]t\b", plain, _I)
    )


def exempt(text: str) -> bool:
    return bool(_EXEMPT.search(text))


def numbers(text: str) -> list[tuple[str, frozenset[str]]]:
    """The numbers of a text (``10s`` read as ``10`` seconds, ``4,000`` as ``4000``), each
    with the words beside it (``Python 3.12``: python)."""
    body = _THOUSANDS.sub("", text)
    out = []
    for m in _NUMBER.finditer(body):
        token = _ordinal(m.group().lower())
        ctx = set()
        unit = re.fullmatch(r"(\d+(?:[.:]\d+)*)([a-z]+)", token)
        if unit and unit.group(2) in _UNITS:
            token = unit.group(1)
            ctx.add(_UNITS[unit.group(2)])
        before = _WORD.findall(body[max(0, m.start() - 30) : m.start()])
        after = _WORD.findall(body[m.end() : m.end() + 30])
        for w in before[-1:] + after[:1]:
            w = w.lower()
            ctx.add(_UNITS.get(w, w).rstrip("s"))
        out.append((token, frozenset(c for c in ctx if c not in _SOFT)))
    return out


_SOFT = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "is",
        "are",
        "be",
        "by",
        "with",
        "than",
        "from",
        "as",
        "per",
        "its",
        "it",
        "this",
        "that",
        "max",
        "min",
        "up",
        "most",
        "least",
        "under",
        "over",
        "times",
        "time",
    ]
)


def led_numbers(text: str) -> dict[str, set[str]]:
    """The numbers of a text by the word right before them ("below 0.5.1.h": below)."""
    body = _THOUSANDS.sub("", text)
    out: dict[str, set[str]] = {}
    for m in _NUMBER.finditer(body):
        before = _WORD.findall(body[max(0, m.start() - 30) : m.start()])
        if before and before[-1].lower() not in _SOFT:
            out.setdefault(before[-1].lower(), set()).add(_ordinal(m.group().lower()))
    return out


_ORDINAL = _compile(r"(\d*(?:1st|2nd|3rd|[04-9]th|1[1-3]th))")


def _ordinal(token: str) -> str:
    """An ordinal read as its number ("4th" as 4: "the 4 tree type" and "the 4th tree type"
    name one type)."""
    return token[:-2] if _ORDINAL.fullmatch(token) else token


def number_words(text: str) -> set[str]:
    return {_NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in _NUMBER_WORDS}


# the words that make a number a bound: a ceiling ("at most 5", "within 10 minutes") or a
# floor ("at least 2"); a bound moved the strict way tightens a rule
_CEILING = _compile(
    r"(?:at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to|max(?:imum)?|under|below|"
    r"within|less\s+than|fewer\s+than|limit(?:ed)?\s+(?:to|of)|cap(?:ped)?\s+at|exceed|"
    r"höchstens|maximal|au\s+plus|como\s+máximo|最多|不超过|以内|以下|まで|"
    r"<=?|\u2264)\W{0,3}$",
    _I,
)
_FLOOR = _compile(
    r"(?:at\s+least|no\s+(?:less|fewer)\s+than|min(?:imum)?|more\s+than|over|above|"
    r"mindestens|au\s+moins|como\s+mínimo|至少|不少于|以上|>=?|\u2265)\W{0,3}$",
    _I,
)
CEILING, FLOOR = "ceiling", "floor"


def bound(text: str, number: str) -> str | None:
    """Is ``number`` a ceiling or a floor in ``text`` (by the words right before it)?"""
    body = _THOUSANDS.sub("", text)
    for m in _NUMBER.finditer(body):
        if _ordinal(m.group().lower()) != number and m.group().lower() != number:
            continue
        lead = body[max(0, m.start() - 24) : m.start()]
        if _CEILING.search(lead):
            return CEILING
        if _FLOOR.search(lead):
            return FLOOR
    return None


def _amount(number: str) -> float | None:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\D{0,3}", number)
    return float(m.group(1)) if m else None


def stricter(kind: str, was: str, now: str) -> bool:
    """Is a bound moved from ``was`` to ``now`` stricter (a lower ceiling, a higher floor)?"""
    a, b = _amount(was), _amount(now)
    if a is None or b is None:
        return False
    return b < a if kind == CEILING else b > a


# a caution ("be careful with X", "watch out for X"): a soft prohibition, which "never X"
# makes stricter, not the other way round
_CAUTION = _compile(
    r"\b(?:be\s+(?:very\s+)?(?:careful|cautious)|take\s+care|watch\s+out|beware)\b"
    r"|vorsicht|attention\s+(?:à|aux?)|cuidado\s+con|注意|小心|気をつけ",
    _I,
)


def caution(text: str) -> bool:
    return bool(_CAUTION.search(text))


# the verbs an instruction opens with ("Use it verbatim", "Spawn a subagent for ..."), and
# the imperative endings of Russian and Korean: a claim that tells the agent to do something
_IMPERATIVE_VERBS = frozenset(
    re.findall(
        r"\S+",
        """use run add keep write read follow check update create make call test commit document
    put place name return handle store include wrap import export log validate prefer spawn
    ask tell start stop let set give show send push pull install remove delete build deploy
    review verify confirm mention say respond reply answer explain treat mark open close save
    load apply reference refer link cite list group sort split merge leave move rename format
    lint type annotate comment describe report notify wait retry fix implement refactor look
    search find query fetch pin lock limit track record remember stick default prefix suffix
    append prepend escape quote sign tag label assume skip ignore drop replace migrate upgrade
    downgrade reuse extract inline configure enable disable register print output emit
    raise throw catch await batch cache clear reset restart rebase squash pair summarize
    translate respect honor obey consult study prioritize focus match mirror define declare""",
    )
)
_IMPERATIVE_END = _compile(r"^\W*[^\W\d_]+(?:йте|ите)\b|(?:하세요|하십시오|할\s?것)")


def imperative(text: str) -> bool:
    """Does the claim open with a verb that tells the agent what to do ("Use ...")?"""
    m = re.match(r"\W*([^\W\d_]+)", text)
    if m and m.group(1).lower() in _IMPERATIVE_VERBS and not m.group(1).isupper():
        return True
    return bool(_IMPERATIVE_END.search(text))


_TRIGGER = _compile(
    _words("if", "when", "whenever", "while", "once", "wenn", "falls", "si", "quand", "cuando"), _I
)


_ESCAPE = _compile(_words("unless", "except", "außer", "sauf", "salvo", "excepto"), _I)


def escape(condition: str) -> bool:
    """Is this condition a way out of the rule ("unless there is a good reason")?"""
    return bool(_ESCAPE.match(condition))


_ORDER = _compile(
    _words("before", "after", "until", "bevor", "nachdem", "avant", "après", "antes", "después"), _I
)
_ORDER_WORDS = _compile(
    _words(
        "first",
        "then",
        "before",
        "after",
        "beforehand",
        "prior",
        "afterwards",
        "zuerst",
        "d'abord",
        "primero",
    ),
    _I,
)


def ordering(condition: str) -> bool:
    """Is this condition an order ("before deploying"), which "first" can also say?"""
    return bool(_ORDER.match(condition))


def orders(text: str) -> bool:
    return bool(_ORDER_WORDS.search(text))


def trigger(condition: str) -> bool:
    """Is this condition a trigger ("if X", "when X"), not a limit ("unless", "before")?"""
    return bool(_TRIGGER.match(condition))


def conditions(text: str) -> list[str]:
    """The conditions of a claim, as written ("after a 5xx", "unless explicitly asked")."""
    return [m.group(0).strip() for m in _CONDITION.finditer(text)]


for _name, _value in list(globals().items()):
    if isinstance(_value, _Lazy):
        _value.name = _name
del _name, _value
