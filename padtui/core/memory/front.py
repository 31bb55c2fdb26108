"""The front matter that says when a rules file loads: Claude Code's and Cline's ``paths:``,
Cursor's ``alwaysApply:``/``globs:``/``description:``, Copilot's ``applyTo:``, Windsurf's
``trigger:``. Only the few keys these read, line by line (a file is never refused for its
front matter: what cannot be read leaves the file loaded always, the safe side for rules).
"""

from __future__ import annotations

import re

from padtui.core.vocabulary import Scope

_FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)^---[ \t]*$", re.M | re.S)
_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")
_ITEM = re.compile(r"^[ \t]+-[ \t]*(.*?)[ \t]*$")


def front_matter(text: str) -> dict[str, list[str]]:
    """Each key of the front matter with its values (a list, inline or as ``- item`` lines,
    gives several; quotes taken off). Empty when the text opens with none."""
    m = _FRONT.match(text)
    if m is None:
        return {}
    out: dict[str, list[str]] = {}
    key: str | None = None
    for line in m.group(1).splitlines():
        item = _ITEM.match(line)
        if item is not None and key is not None:
            out[key] += _values(item.group(1))
            continue
        kv = _KEY.match(line)
        if kv is None:
            key = None
            continue
        key = kv.group(1)
        out[key] = _values(kv.group(2))
    return out


def _values(raw: str) -> list[str]:
    raw = re.sub(r"[ \t]+#.*$", "", raw).strip()
    if raw.startswith("[") and raw.endswith("]"):
        raw = raw[1:-1]
    parts = split_list(raw) if "," in raw else [raw]
    return [v for v in (p.strip().strip("'\"").strip() for p in parts) if v]


def split_list(text: str) -> list[str]:
    """``a, "b,c", {x,y}/*.ts``: commas split, but not inside quotes or braces."""
    out, depth, quote, word = [], 0, "", ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            out.append(word)
            word = ""
            continue
        word += ch
    return [*out, word]


_EVERYTHING = frozenset({"**", "**/*", "*", "**/*.*"})


def scope_of(reader: str, text: str) -> tuple[Scope, str]:
    """The scope a file's front matter gives it, read the way ``reader`` names, and why."""
    front = front_matter(text)
    if reader == "paths":
        paths = front.get("paths", [])
        if paths:
            return Scope.PATHS, f"for paths {', '.join(paths)}"
        return Scope.ALWAYS, "no paths: loaded at start"
    if reader == "cursor":
        if _true(front.get("alwaysApply")):
            return Scope.ALWAYS, "alwaysApply: true"
        globs = front.get("globs", [])
        if globs and not _EVERYTHING.issuperset(globs):
            return Scope.PATHS, f"for files matching {', '.join(globs)}"
        if globs:
            return Scope.ALWAYS, f"globs {', '.join(globs)}: every file"
        if front:
            return Scope.ON_DEMAND, "no alwaysApply nor globs: applied when the agent asks for it"
        return Scope.ALWAYS, "no front matter: applied always"
    if reader == "copilot":
        apply = front.get("applyTo", [])
        if apply and not _EVERYTHING.issuperset(apply):
            return Scope.PATHS, f"applyTo {', '.join(apply)}"
        if apply:
            return Scope.ALWAYS, f"applyTo {', '.join(apply)}: every file"
        return Scope.ON_DEMAND, "no applyTo: attached by hand"
    if reader == "windsurf":
        trigger = (front.get("trigger") or ["always_on"])[0].lower()
        if trigger == "glob":
            globs = front.get("globs", [])
            return Scope.PATHS, f"trigger: glob {', '.join(globs)}".rstrip()
        if trigger in ("manual", "model_decision"):
            return Scope.ON_DEMAND, f"trigger: {trigger}"
        return Scope.ALWAYS, f"trigger: {trigger}"
    return Scope.ALWAYS, "loaded always"


def _true(values: list[str] | None) -> bool:
    return bool(values) and values is not None and values[0].lower() == "true"
