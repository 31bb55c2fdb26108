"""Which files under a root are an agent's memory, and when the agent loads each: the table
of patterns per agent (the README's "Your memory is many files" shows it), which a user
extends or replaces (``.padtui.toml``, ``--pattern``).

A pattern is a glob relative to the root (``/`` between folders, ``**/`` any folders, ``*``
any name, ``{a,b}`` either). The first pattern a file matches says why it is in and its
scope; a scope of None is read from the file's front matter (``front``); a pattern marked
``nested`` gives a file below the root folder at most ``paths`` (a subfolder's ``AGENTS.md``
holds for work in that folder). ``beside``: the file counts only next to a file of that
name (an auto-memory folder's topic files, next to its ``MEMORY.md``).
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from padtui.core.errors import PadError
from padtui.core.vocabulary import Scope

CONFIG_NAME = ".padtui.toml"
MEMORY_LINES = 200  # of an auto-memory MEMORY.md, Claude Code loads this many lines at start


@dataclass(frozen=True)
class Pattern:
    """Files of one agent's memory: ``glob`` under the root, loaded with ``scope`` (None:
    as its front matter says, read by the ``front`` reader of that name)."""

    agent: str
    glob: str
    scope: Scope | None
    why: str
    front: str | None = None
    nested: bool = False
    beside: str | None = None
    lines: int | None = None  # only this many lines are loaded at the scope; the rest on demand

    def matches(self, path: str) -> bool:
        return glob_re(self.glob).match(path) is not None


A, P, D = Scope.ALWAYS, Scope.PATHS, Scope.ON_DEMAND
CC, CUR, WS, CL, CP = "Claude Code", "Cursor", "Windsurf", "Cline", "GitHub Copilot"
AG = "AGENTS.md (Codex, Amp, Jules, Cursor, ...)"

DEFAULT_PATTERNS: tuple[Pattern, ...] = (
    Pattern(CC, "CLAUDE.md", A, "Claude Code's project memory, loaded at start"),
    Pattern(CC, "CLAUDE.local.md", A, "Claude Code's local project memory, loaded at start"),
    Pattern(CC, ".claude/CLAUDE.md", A, "Claude Code's project memory, loaded at start"),
    Pattern(CC, ".claude/rules/**/*.md", None, "a Claude Code rules file", front="paths"),
    Pattern(CC, ".claude/skills/*/SKILL.md", D, "a Claude Code skill, loaded when it is used"),
    Pattern(
        "Agent Skills (Codex, Claude Code, ...)",
        "**/skills/*/SKILL.md",
        D,
        "a skill, loaded when it is used",
    ),
    Pattern(
        CC,
        "**/MEMORY.md",
        A,
        "Claude Code's auto-memory index, its first 200 lines loaded at start",
        lines=MEMORY_LINES,
    ),
    Pattern(
        CC,
        "**/*.md",
        D,
        "a topic file of Claude Code's auto-memory, read when needed",
        beside="MEMORY.md",
    ),
    Pattern(
        CC,
        "**/CLAUDE.md",
        P,
        "a subfolder's CLAUDE.md, loaded when Claude Code reads a file there",
        nested=True,
    ),
    Pattern(CC, "**/CLAUDE.local.md", P, "a subfolder's CLAUDE.local.md", nested=True),
    Pattern(AG, "AGENTS.md", A, "AGENTS.md at the root, loaded at start"),
    Pattern(AG, "AGENTS.override.md", A, "Codex's AGENTS.override.md, loaded at start"),
    Pattern(AG, "AGENT.md", A, "AGENT.md at the root, loaded at start"),
    Pattern(AG, "**/AGENTS.md", P, "a subfolder's AGENTS.md, for work in that folder", nested=True),
    Pattern(AG, "**/AGENTS.override.md", P, "a subfolder's AGENTS.override.md", nested=True),
    Pattern("Gemini CLI", "GEMINI.md", A, "Gemini CLI's context file, loaded at start"),
    Pattern(
        "Gemini CLI",
        "**/GEMINI.md",
        P,
        "a subfolder's GEMINI.md, for work in that folder",
        nested=True,
    ),
    Pattern(CUR, ".cursorrules", A, "Cursor's legacy rules file, loaded always"),
    Pattern(CUR, "**/.cursor/rules/**/*.{mdc,md}", None, "a Cursor rule", "cursor", nested=True),
    Pattern(WS, ".windsurfrules", A, "Windsurf's rules file, loaded always"),
    Pattern(WS, ".windsurf/rules/**/*.md", None, "a Windsurf rule", front="windsurf"),
    Pattern(CL, ".clinerules", A, "Cline's rules file, loaded always"),
    Pattern(CL, ".clinerules/**/*.{md,txt}", None, "a Cline rules file", front="paths"),
    Pattern(CL, "memory-bank/*.md", A, "Cline's memory bank, read at the start of every task"),
    Pattern(CL, "memory-bank/**/*.md", D, "a file of Cline's memory bank, read when needed"),
    Pattern(CP, ".github/copilot-instructions.md", A, "Copilot's repository instructions"),
    Pattern(
        CP,
        ".github/instructions/**/*.instructions.md",
        None,
        "a Copilot instructions file",
        front="copilot",
    ),
    Pattern(CP, "**/*.instructions.md", None, "a Copilot instructions file", front="copilot"),
    Pattern(CP, "**/*.prompt.md", D, "a Copilot prompt file, run when asked for"),
    Pattern(CP, "**/*.chatmode.md", D, "a Copilot chat mode, used when chosen"),
    Pattern("Letta", "system/**/*.md", A, "a Letta MemFS block in the system prompt"),
    Pattern("Letta", "**/memory/system/**/*.md", A, "a Letta MemFS block in the system prompt"),
)

_SCOPES = {s.value: s for s in Scope} | {"on-demand": D, "ondemand": D, "path": P}


def glob_re(pattern: str) -> re.Pattern[str]:
    return _glob_re(pattern)


@lru_cache(maxsize=512)
def _glob_re(pattern: str) -> re.Pattern[str]:
    out, i = "", 0
    pattern = pattern.removeprefix("./")
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
            continue
        if pattern.startswith("**", i):
            out, i = out + ".*", i + 2
            continue
        if ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "{" and (end := pattern.find("}", i)) > i:
            alts = pattern[i + 1 : end].split(",")
            out += "(?:" + "|".join(re.escape(a) for a in alts) + ")"
            i = end + 1
            continue
        else:
            out += re.escape(ch)
        i += 1
    # a file's extension in any case (AGENTS.MD, written on a case-blind file system, is
    # loaded there as AGENTS.md); the name itself keeps its case (docs/agents.md is a doc)
    out = out.replace(r"\.md", r"\.(?i:md)").replace(r"\.mdc", r"\.(?i:mdc)")
    return re.compile(out + r"\Z")


def scope_named(name: str, where: str, place: str) -> Scope:
    """The scope a user names (``always``, ``paths``, ``on_demand``), or a PadError."""
    found = _SCOPES.get(name.strip().lower().replace(" ", "_"))
    if found is None:
        raise PadError(where, f"unknown scope {name!r}: always, paths or on_demand", place)
    return found


def from_option(value: str) -> Pattern:
    """A pattern given on the command line: ``GLOB`` (loaded always) or ``GLOB=SCOPE``."""
    glob, _eq, scope = value.partition("=")
    if not glob.strip():
        raise PadError("--pattern", f"{value!r} names no files: GLOB or GLOB=SCOPE")
    found = scope_named(scope, "--pattern", value) if scope else A
    return Pattern("yours", glob.strip(), found, "named by --pattern")


def from_config(path: str, data: bytes) -> tuple[tuple[Pattern, ...], bool]:
    """The patterns of a ``.padtui.toml`` (``[[memory.pattern]]`` tables with ``glob`` and
    optional ``scope``, ``agent``, ``why``) and whether they replace padtui's own
    (``[memory] replace = true``). Bad input: a PadError naming the place."""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PadError(path, f"not valid TOML: {exc}") from None
    memory = doc.get("memory", {})
    if not isinstance(memory, dict):
        raise PadError(path, "[memory] must be a table")
    replace_ = memory.get("replace", False)
    if not isinstance(replace_, bool):
        raise PadError(path, "memory.replace must be true or false")
    items = memory.get("pattern", [])
    if not isinstance(items, list):
        raise PadError(path, "memory.pattern must be an array of tables ([[memory.pattern]])")
    out = []
    for n, item in enumerate(items, 1):
        place = f"memory.pattern #{n}"
        if not isinstance(item, dict) or not isinstance(item.get("glob"), str):
            raise PadError(path, "each [[memory.pattern]] needs a glob (a string)", place)
        fields = {k: item.get(k) for k in ("scope", "agent", "why")}
        if any(v is not None and not isinstance(v, str) for v in fields.values()):
            raise PadError(path, "scope, agent and why must be strings", place)
        scope = scope_named(fields["scope"], path, place) if fields["scope"] else A
        out.append(
            Pattern(
                fields["agent"] or "yours",
                item["glob"],
                scope,
                fields["why"] or f"named in {CONFIG_NAME}",
            )
        )
    return tuple(out), replace_


def table(extra: Iterable[Pattern] = (), replace_own: bool = False) -> tuple[Pattern, ...]:
    """The patterns in force: the user's first (they win), then padtui's unless replaced."""
    mine = tuple(extra)
    return mine if replace_own else (*mine, *DEFAULT_PATTERNS)


def first_match(patterns: Sequence[Pattern], path: str, present: Container[str]) -> Pattern | None:
    """The first pattern that takes ``path`` (``present``: the paths of the tree, for a
    pattern that takes a file only ``beside`` another)."""
    for p in patterns:
        if not p.matches(path):
            continue
        if p.beside is not None:
            folder, name = posixpath.split(path)
            if name == p.beside or posixpath.join(folder, p.beside) not in present:
                continue
        return p
    return None


def is_nested(p: Pattern, path: str) -> bool:
    """Is the file below the root's own folder for a pattern marked ``nested`` (its glob
    without the leading ``**/`` does not take it)?"""
    return p.nested and p.glob.startswith("**/") and not glob_re(p.glob[3:]).match(path)
