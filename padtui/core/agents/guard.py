"""A compaction of a conversation judged like a rewrite of a pad (the README's "Guard
Claude Code's compactions"; the audit is core/audit/rewrite.py).

The "before" is the rules in force: the rules of the memory files and the user's own
rule-like messages, one entry a rule, each with where it came from. The "after" is the
summary read as a Markdown pad, plus the memory files as they are now (the agent reads them
again after a compaction, so a rule still in its file is still in force). The audit then says
of each rule: carried, weakened or dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from padtui.core.agents.transcript import Transcript
from padtui.core.audit.findings import FindingCode
from padtui.core.audit.rewrite import Audit, audit
from padtui.core.counting.tokens import TokenCounter
from padtui.core.formats import markdown
from padtui.core.model import Entry, Pad, make_entry
from padtui.core.rules.finder import MEDIUM, RuleMap, find_rules, said_with, wording_kind
from padtui.core.vocabulary import Verdict

LOST_CODES = (FindingCode.CONSTRAINT_DROPPED, FindingCode.CONSTRAINT_WEAKENED)
CARRY_WINDOW = 3  # compactions gone through for rules said before the last one


@dataclass(frozen=True)
class RuleInForce:
    """A rule as the user or a memory file stated it, and where."""

    id: str
    text: str
    source: str  # "CLAUDE.md", ".claude/rules/x.md", "user message, line 12"

    def as_json(self) -> dict[str, str]:
        return {"id": self.id, "text": self.text, "source": self.source}

    @classmethod
    def from_json(cls, obj: Any) -> RuleInForce | None:
        if not isinstance(obj, dict):
            return None
        id_, text, source = (obj.get(k) for k in ("id", "text", "source"))
        if isinstance(id_, str) and isinstance(text, str) and isinstance(source, str):
            return cls(id_, text, source)
        return None


@dataclass(frozen=True)
class Judgement:
    """What a compaction did to the rules in force."""

    verdict: str  # compaction (every rule carried) or corruption (a Verdict)
    carried: tuple[RuleInForce, ...]
    weakened: tuple[tuple[RuleInForce, str], ...]  # (rule, what the summary says instead)
    dropped: tuple[RuleInForce, ...]

    @property
    def lost(self) -> tuple[RuleInForce, ...]:
        return tuple(r for r, _ in self.weakened) + self.dropped

    def as_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "rules": len(self.carried) + len(self.weakened) + len(self.dropped),
            "carried": [r.as_json() for r in self.carried],
            "weakened": [{**r.as_json(), "after": after} for r, after in self.weakened],
            "dropped": [r.as_json() for r in self.dropped],
        }

    @classmethod
    def from_json(cls, obj: Any) -> Judgement | None:
        if not isinstance(obj, dict) or not isinstance(obj.get("verdict"), str):
            return None
        carried = _rules(obj.get("carried"))
        dropped = _rules(obj.get("dropped"))
        weakened: list[tuple[RuleInForce, str]] = []
        for item in obj.get("weakened") or []:
            rule = RuleInForce.from_json(item)
            if rule is not None:
                after = item.get("after")
                weakened.append((rule, after if isinstance(after, str) else ""))
        return cls(obj["verdict"], carried, tuple(weakened), dropped)


def _rules(items: Any) -> tuple[RuleInForce, ...]:
    found = (RuleInForce.from_json(i) for i in (items if isinstance(items, list) else []))
    return tuple(r for r in found if r is not None)


def file_rules(name: str, text: str, rule_map: RuleMap | None = None) -> list[RuleInForce]:
    """The rules of a memory file, read as a Markdown pad."""
    pad, _layout = markdown.parse(name, text)
    out: list[RuleInForce] = []
    for n, rule in enumerate(find_rules(pad, rule_map)):
        out.append(RuleInForce(f"{name}#{n + 1}", rule.text.strip(), name))
    return out


def message_rules(
    messages: Iterable[tuple[int, str, str]], rule_map: RuleMap | None = None
) -> list[RuleInForce]:
    """The rules in the user's messages ``(line, text, source)``, by their own wording (a
    wish for how the work should turn out is not one)."""
    out: list[RuleInForce] = []
    for line, text, source in messages:
        text = own_words(text)
        if not text.strip():
            continue
        pad = Pad.of([make_entry("note", text)])
        for k, rule in enumerate(find_rules(pad, rule_map)):
            if not wish(rule.text):
                out.append(RuleInForce(f"u{line}.{k + 1}", rule.text.strip(), source))
    return out


_FENCE = re.compile(r"^\s*(```|~~~).*?(?:^\s*\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
# a line of pasted output: a log line (a time, a level), a stack frame, a shell prompt, a
# compiler's "file:line:col", a test runner's status
_OUTPUT_LINE = re.compile(
    r"^\s*(?:\[?\d{2,4}[-/.]\d{1,2}[-/.]\d{1,2}[ T]\d|\[?\d{1,2}:\d{2}(?::\d{2})?\b|"
    r"\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL|CRITICAL|E|W|I)\]?[\s:|]|"
    r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|at [\w$.<>]+\(|"
    r"[$#>] \S|PS [A-Z]:\\|npm (?:ERR|WARN)|\S+\.\w+:\d+(?::\d+)?[:\s]|"
    r"(?:PASS|FAIL|FAILED|ERROR|ok|not ok)\b[\s:]|\w*(?:Error|Exception|Warning):\s)",
)
# an answer's first word, not a rule's: "no, I meant the other file", "はい、"
_ANSWER = re.compile(
    r"^\s*(?:no|nope|nah|yes|yeah|yep|ok|okay|sure|nein|ja|non|oui|sí|si|いいえ|はい|不是|是的|不)"
    r"\s*[,.!\u3001\u3002\uff0c]\s*",
    re.IGNORECASE | re.MULTILINE,
)


def own_words(message: str) -> str:
    """A message without what the user pasted into it (code, logs, tool output: what a
    program said, not a rule the user set) and without an answer's "no," or "yes,"."""
    text = _FENCE.sub("\n", message)
    lines = [line for line in text.splitlines() if not _OUTPUT_LINE.match(line)]
    return _ANSWER.sub("", "\n".join(lines))


_SHOULD = re.compile(r"\b(?:should|ought\s+to)\b", re.IGNORECASE)
_BINDING = re.compile(
    r"\b(?:never|always|must|only|not|no|don['\u2019]?t|avoid|every|all|any)\b|n['\u2019]t\b",
    re.IGNORECASE,
)
_SUBJECT = re.compile(r"([^,;:.!?\u2014\u2013()]*?)\b(?:should|ought\s+to)\b", re.IGNORECASE)
_POINTING = frozenset(["they", "it", "there", "this", "that", "these", "those", "he", "she"])
_SPECIFIC = frozenset(["the", "this", "that", "these", "those", "my", "our", "its", "their"])


def wish(text: str) -> bool:
    """Is the claim a wish for the thing being made rather than a rule for the agent: said
    with "should" of something in front of both of them ("they should be shorter", "the
    legend should sit lower", "there should be more of them", "should be https")? The next
    message revises such a wish, and the work itself keeps it; a summary that leaves it out
    loses no rule. Said to the agent ("you should ..."), of a kind of thing ("comments
    should link to an issue"), or with a word that binds ("never", "only", "every"), it stays
    a rule."""
    said = said_with(text)
    if said is None or said[0] != MEDIUM or not _SHOULD.fullmatch(said[1]):
        return False
    if wording_kind(text) != "obligation" or _BINDING.search(text):
        return False
    m = _SUBJECT.search(text)
    words = re.findall(r"[\w'\u2019]+", m.group(1).lower()) if m else []
    return not words or words[-1] in _POINTING or words[0] in _SPECIFIC


def conversation_rules(
    t: Transcript, end: int | None = None, window: int = CARRY_WINDOW
) -> list[RuleInForce]:
    """The rules the user set in the conversation up to line ``end`` that are still in
    force: those said since the last compaction, and those said before it that every
    compaction since carried (a rule a summary already lost is that compaction's loss, not
    this one's). Only the last ``window`` compactions are gone through."""
    done = [c for c in t.compactions() if end is None or c.line < end]
    earlier = done[:-window] if window else done
    start = (earlier[-1].summary_line or earlier[-1].line) if earlier else 0
    rules: list[RuleInForce] = []
    for c in done[len(earlier) :]:
        rules += _said(t, start, c.line)
        if c.summary.strip():
            rules = list(judgement(rules, c.summary).verdict.carried)
        start = c.summary_line or c.line
    return rules + _said(t, start, end)


def _said(t: Transcript, start: int, end: int | None) -> list[RuleInForce]:
    messages = t.messages(start, end)
    return message_rules(
        (m.line, m.text, f"your message, transcript line {m.line}") for m in messages
    )


@dataclass(frozen=True)
class SummaryAudit:
    """A compaction read as a rewrite of a pad: the rules in force before (one entry a
    rule, each naming where it came from), the summary after, the audit of that rewrite and
    what it did to each rule."""

    before: Pad
    after: Pad
    audit: Audit
    verdict: Judgement


def judgement(
    rules: Sequence[RuleInForce],
    summary: str,
    memory_now: Sequence[tuple[str, str]] = (),
    counter: TokenCounter | None = None,
) -> SummaryAudit:
    """The audit of a summary against the rules in force (plus the memory files as they are
    now, ``(name, text)``), and each rule carried, weakened or dropped."""
    # (an entry's derived_from is read on the new side of an audit only: here it says, for
    # whoever looks at the pad, where the rule came from)
    before = Pad.of(make_entry("note", r.text, id=r.id, derived_from=(r.source,)) for r in rules)
    entries: list[Entry] = list(markdown.parse("summary", summary)[0].entries)
    for name, text in memory_now:
        entries += markdown.parse(name, text)[0].entries
    after = Pad.of(entries)
    result = audit(before, after, counter or _Cheap())
    return SummaryAudit(before, after, result, _verdict(rules, result))


def _verdict(rules: Sequence[RuleInForce], result: Audit) -> Judgement:
    by_id = {r.id: r for r in rules}
    weakened: dict[str, str] = {}
    dropped: set[str] = set()
    for f in result.findings:
        if f.code not in LOST_CODES:
            continue
        for label in f.entries:
            if label not in by_id:
                continue
            if f.code == FindingCode.CONSTRAINT_DROPPED:
                dropped.add(label)
            else:
                weakened.setdefault(label, f.after or "")
    carried = tuple(r for r in rules if r.id not in dropped and r.id not in weakened)
    return Judgement(
        Verdict.CORRUPTION if dropped or weakened else Verdict.COMPACTION,
        carried,
        tuple((by_id[i], a) for i, a in weakened.items() if i not in dropped),
        tuple(r for r in rules if r.id in dropped),
    )


class _Cheap(TokenCounter):
    """Tokens counted as a quarter of the characters: the verdict on rules never depends on
    the exact count, and a hook has no time to load an encoding."""

    store = None

    def __init__(self) -> None:
        pass

    def count(self, text: str) -> int:
        return (len(text) + 3) // 4

    def start(self, texts: Iterable[str]) -> Callable[[], list[int]]:
        counts = self.count_many(texts)
        return lambda: counts

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [self.count(t) for t in texts]
