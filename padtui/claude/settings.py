"""``padtui claude install|uninstall``: padtui's hook entries in Claude Code's settings.

The file is the user's: it is read as JSON and never overwritten when it does not parse; our
entries are merged beside the hooks already there, written whole or not at all, and found
again by their command (``... padtui claude <hook>``). Install keeps the file's bytes as they
were (in padtui's state folder), so that uninstall, when the file is as install left it, puts
back exactly those bytes; otherwise it removes only our entries.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import re
import shlex
import sys
from dataclasses import dataclass
from typing import Any

from padtui.claude import files
from padtui.core.errors import PadError
from padtui.core.storage import fsio
from padtui.core.storage.journal import state_dir

HOOKS = (
    ("PreCompact", "manual|auto", "pre-compact"),
    ("PostCompact", "manual|auto", "post-compact"),
    ("SessionStart", "compact", "session-start"),
)
OURS = re.compile(r"padtui\S*\s+claude\s+(pre-compact|post-compact|session-start)\b")
TIMEOUT = 30


def settings_path(project: str | None, user: bool, local: bool = False) -> str:
    """The settings file: the project's ``.claude/settings.json`` (shared: teams commit
    it), its ``.claude/settings.local.json`` (``local``: this machine's, not committed), or
    the user's ``~/.claude/settings.json``."""
    if user:
        return os.path.join(os.path.expanduser("~"), ".claude", "settings.json")
    name = "settings.local.json" if local else "settings.json"
    return os.path.join(os.path.abspath(project or "."), ".claude", name)


def command(hook: str, *, portable: bool = False) -> str:
    """The command line of ``hook`` (its name and options). ``portable`` (a file others use
    too, on their machines): ``padtui`` as their PATH finds it, else the module under the
    ``python3`` their PATH finds; never a path of this machine. Else this very
    interpreter, by its absolute path (it works whatever PATH holds, on this machine
    alone)."""
    if not portable:
        return f"{shlex.quote(sys.executable)} -m padtui claude {hook}"
    return (
        f"command -v padtui >/dev/null 2>&1 && exec padtui claude {hook} "
        f"|| exec python3 -m padtui claude {hook}"
    )


@dataclass(frozen=True)
class Change:
    path: str
    before: bytes | None  # None: the file does not exist
    after: bytes | None  # None: the file is to be removed

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        a = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        b = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        name = self.path
        return "".join(difflib.unified_diff(a, b, f"{name} (now)", f"{name} (after)"))


MAX_SETTINGS_BYTES = 16 << 20


def _read(path: str) -> tuple[bytes | None, dict[str, Any]]:
    try:
        fd, _st = fsio.open_regular(path)  # (a FIFO in its place is refused, never waited on)
        with open(fd, "rb") as f:
            data = f.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise PadError(path, f"{exc.strerror or exc}; left as it is") from None
    if len(data) > MAX_SETTINGS_BYTES:
        raise PadError(path, f"larger than {MAX_SETTINGS_BYTES >> 20} MiB; left as it is")
    try:
        doc = json.loads(data) if data.strip() else {}
    except RecursionError:
        raise PadError(path, "not valid JSON (nested too deep); left as it is") from None
    except ValueError as exc:
        raise PadError(path, f"not valid JSON ({exc}); left as it is") from None
    if not isinstance(doc, dict):
        raise PadError(path, "not a JSON object; left as it is")
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise PadError(path, '"hooks" is not an object; left as it is')
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise PadError(path, f'"hooks.{event}" is not a list; left as it is')
    return data, doc


def _ours(group: object) -> bool:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    cmds = [h.get("command") for h in group["hooks"] if isinstance(h, dict)]
    return bool(cmds) and all(isinstance(c, str) and OURS.search(c) for c in cmds)


def _indent(data: bytes | None) -> str | int:
    """The file's own indent (its first indented line), else 2."""
    m = re.search(rb"\n([ \t]+)\S", data or b"")
    return m.group(1).decode() if m else 2


def _dump(doc: dict[str, Any], data: bytes | None) -> bytes:
    nl = "\r\n" if data and b"\r\n" in data else "\n"
    text = json.dumps(doc, indent=_indent(data), ensure_ascii=False) + "\n"
    return text.replace("\n", nl).encode("utf-8")


def _without_ours(doc: dict[str, Any]) -> dict[str, Any]:
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return doc
    kept: dict[str, Any] = {}
    for event, groups in hooks.items():
        rest = [g for g in groups if not _ours(g)]
        if rest or not any(_ours(g) for g in groups):
            kept[event] = rest
    out = dict(doc)
    if kept:
        out["hooks"] = kept
    else:
        del out["hooks"]
    return out


def _stash_path(path: str) -> str:
    digest = hashlib.sha256(os.fsencode(os.path.abspath(path))).hexdigest()[:32]
    return os.path.join(state_dir(), "claude", f"settings-{digest}.json")


def plan_install(path: str, block: bool = True, portable: bool = False) -> Change:
    """padtui's hooks added to the file at ``path``; those it holds already with another
    command (another machine's path, an older form) take this one."""
    data, doc = _read(path)
    hooks = doc.setdefault("hooks", {})
    added = False
    for event, matcher, hook in HOOKS:
        groups = hooks.setdefault(event, [])
        words = hook + (" --no-block" if hook == "pre-compact" and not block else "")
        cmd = command(words, portable=portable)
        entry = {"type": "command", "command": cmd, "timeout": TIMEOUT}
        ours = [g for g in groups if _ours(g)]
        if ours and all(g["hooks"] == [entry] for g in ours):
            continue
        if ours:
            for g in ours:
                g["hooks"] = [entry]
        else:
            groups.append({"matcher": matcher, "hooks": [entry]})
        added = True
    return Change(path, data, _dump(doc, data) if added else data)


def plan_uninstall(path: str) -> Change:
    data, doc = _read(path)
    stash = files.load_json(_stash_path(path))
    if (
        data is not None
        and stash is not None
        and stash.get("installed") == hashlib.sha256(data).hexdigest()
    ):
        original = stash.get("original")
        if original is None:
            return Change(path, data, None)
        if isinstance(original, str):
            return Change(path, data, original.encode("utf-8", "surrogateescape"))
    if data is None:
        return Change(path, None, None)
    cleaned = _without_ours(doc)
    if cleaned == doc:
        return Change(path, data, data)
    return Change(path, data, _dump(cleaned, data))


def apply(change: Change, installing: bool) -> None:
    """Write the change; a symlinked settings file is written through to its target (the
    link is kept), and a file that changed since it was read is left as it is (PadError)."""
    if not change.changed:
        return
    target = os.path.realpath(change.path)
    now, _doc = _read(change.path)
    if now != change.before or os.path.realpath(change.path) != target:
        raise PadError(change.path, "changed while padtui read it; left as it is (run again)")
    if change.after is None:
        os.unlink(change.path)
    else:
        files.write_atomic(target, change.after)
    stash = _stash_path(change.path)
    if installing and change.after is not None:
        original = (
            None if change.before is None else change.before.decode("utf-8", "surrogateescape")
        )
        record = {
            "path": os.path.abspath(change.path),
            "original": original,
            "installed": hashlib.sha256(change.after).hexdigest(),
        }
        files.write_atomic(stash, json.dumps(record).encode("ascii"), 0o600)
    elif not installing:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(stash)
