"""padtui's own formats as the registry knows them before a pad of one is read (see
``registry.Deferred``): each one's name, how its files' names end, whether ``--format`` may
choose it, and its names in words. Each format's module takes these from here."""

from __future__ import annotations

from padtui.core.formats.registry import Deferred

_MARKDOWN = (".md", ".mdc", ".cursorrules", ".clinerules", ".windsurfrules")

# the memory files agents keep as Markdown under other names are read (and written back)
# as Markdown: Cursor's rules (their front matter kept verbatim), Cline's, Windsurf's
MARKDOWN = Deferred(
    "padtui.core.formats.markdown",
    "md",
    _MARKDOWN,
    names=f"{_MARKDOWN[0]}; Markdown memory files {', '.join(_MARKDOWN[1:])}",
)
JSON = Deferred("padtui.core.formats.json_pad", "json", (".json",))
JSONL = Deferred("padtui.core.formats.json_lines", "jsonl", (".jsonl",))
LETTA = Deferred(  # (read-only: see that module)
    "padtui.core.formats.letta", "af", (".af",), choosable=False, names=".af read-only"
)
