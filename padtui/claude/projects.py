"""Where Claude Code keeps a project's transcripts: ``~/.claude/projects/<name>/*.jsonl``
(``$CLAUDE_CONFIG_DIR/projects`` when that is set), one file a session.

The folder's name is the project's path with every character but an ASCII letter or digit
made ``-`` (``/home/me/my_app`` is ``-home-me-my-app``); a name longer than 200 characters
is cut there and given a hash of the path, which padtui does not compute: it takes the one
folder whose name starts so.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass

from padtui.core.errors import PadError

MAX_NAME = 200  # Claude Code cuts a project folder's name here (and adds a hash)
CONFIG_ENV = "CLAUDE_CONFIG_DIR"  # Claude Code's own: where its ~/.claude lives instead


def folder_name(project: str) -> str:
    """The name of a project's folder under ``projects/`` (without the hash of a long one).
    Claude Code counts UTF-16 units: a character beyond the BMP (an emoji) is two ``-``."""
    return "".join(
        c if c.isascii() and c.isalnum() else "--" if ord(c) > 0xFFFF else "-" for c in project
    )


def projects_dir() -> str:
    config = os.environ.get(CONFIG_ENV)
    base = config if config else os.path.join(os.path.expanduser("~"), ".claude")
    return os.path.join(base, "projects")


def transcripts_folder(project: str) -> str:
    """The folder of a project's transcripts; PadError naming where it was looked for."""
    base = projects_dir()
    tried: list[str] = []
    for path in dict.fromkeys((os.path.realpath(project), os.path.abspath(project))):
        name = folder_name(path)
        if len(name) <= MAX_NAME:
            here = os.path.join(base, name)
            if os.path.isdir(here):
                return here
            tried.append(here)
            continue
        found = sorted(
            glob.glob(os.path.join(glob.escape(base), glob.escape(name[:MAX_NAME]) + "-*"))
        )
        if len(found) == 1:
            return found[0]
        tried.append(os.path.join(base, name[:MAX_NAME] + "-…"))
    raise PadError(
        tried[0],
        f"no Claude Code transcripts for {project} (no such folder; has Claude Code run "
        "there? --transcripts DIR names the folder)",
    )


@dataclass(frozen=True)
class SessionFile:
    """One session's transcript."""

    path: str
    id: str  # its name without .jsonl: the session id
    mtime: float
    size: int


def sessions(folder: str) -> list[SessionFile]:
    """The transcripts in a folder, the newest (last written) first; PadError naming the
    folder when it is missing or holds none."""
    if not os.path.isdir(folder):
        raise PadError(folder, "no such folder")
    out: list[SessionFile] = []
    for path in glob.glob(os.path.join(glob.escape(folder), "*.jsonl")):
        try:
            st = os.stat(path)
        except OSError:
            continue
        if os.path.isfile(path):
            name = os.path.basename(path)[: -len(".jsonl")]
            out.append(SessionFile(path, name, st.st_mtime, st.st_size))
    if not out:
        raise PadError(folder, "no transcript (*.jsonl) in this folder")
    return sorted(out, key=lambda s: (-s.mtime, s.id))


def choose(found: list[SessionFile], wanted: str | None, folder: str) -> SessionFile:
    """The session named ``wanted`` (its id, or the start of it), else the newest."""
    if wanted is None:
        return found[0]
    exact = [s for s in found if s.id == wanted]
    hits = exact or [s for s in found if s.id.startswith(wanted)]
    if len(hits) == 1:
        return hits[0]
    some = ", ".join(s.id for s in (hits or found)[:3])
    problem = "more than one session starts so" if hits else "no such session"
    raise PadError(folder, f"{problem}: {wanted} (the newest: {some})")
