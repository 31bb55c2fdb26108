"""Pad text is untrusted: what may reach a terminal of it.

Every path to a terminal goes through ``clean`` (or ``one_line``, built on it), and every JSON
document through ``escape_controls``; the command line's writer and the inspector's line
filter apply them to all they show, so that no output path has to remember to.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence

# C0 controls but tab and newline, DEL, and C1 controls (U+009B alone starts a control sequence
# on some terminals): none of them may reach a terminal; nor may the bidirectional controls
# (embeddings, overrides, isolates, marks), which reorder what a terminal shows after them
# ("Trojan Source")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# lone surrogates: a file name's undecodable bytes (os.fsdecode); written with
# surrogateescape they would be those raw bytes again (0x9B among them), written strictly
# they fail the write
_SURROGATES = re.compile(r"[\ud800-\udfff]")


def clean(text: str) -> str:
    """The text with every control character but newline and tab removed, bidirectional
    controls included, and an undecodable byte of a file name shown as U+FFFD."""
    return _SURROGATES.sub("\ufffd", _CONTROLS.sub("", text))


def escape_controls(json_text: str) -> str:
    """JSON text with the characters ``json.dumps`` leaves as they are (DEL, C1, the
    bidirectional controls, lone surrogates) written as ``\\uXXXX`` escapes: the same JSON
    value, and no such character reaches a terminal. (They occur only inside strings, where
    an escape means the same character.)"""
    return re.sub(_UNESCAPED, lambda m: f"\\u{ord(m.group()):04x}", json_text)


# (compiled on first use, by re's own cache: ~5 ms, and only JSON output needs it)
_UNESCAPED = r"[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"


def one_line(text: str, width: int | None = None) -> str:
    """Clean text folded onto one line (newlines shown as ``⏎``), cut to ``width``."""
    flat = " ⏎ ".join(part.strip() for part in clean(text).splitlines() if part.strip())
    flat = flat.replace("\t", " ")
    if width is not None and len(flat) > width:
        flat = flat[: max(width - 1, 0)] + "…"
    return flat


def shell_word(word: str) -> str:
    """``word`` as one shell word that a terminal shows as it is and that a shell reads back
    as exactly ``word``: ``shlex.quote`` when the word shows as it is; else (controls in a
    file name) an ANSI-C ``$'...'`` word, every byte of the name that is not printable ASCII
    written as ``\\xHH`` (bash, zsh, ksh and POSIX.1-2024 shells read it; the bytes are the
    file system's, so an undecodable byte comes back as itself)."""
    if one_line(word) == word:
        return shlex.quote(word)
    out = []
    for byte in os.fsencode(word):
        ch = chr(byte)
        if ch in "\\'":
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\x{byte:02x}")
    return "$'" + "".join(out) + "'"


def shown_command(way_out: str, path: str, options: Sequence[str] = ()) -> str:
    """A way out whose command names the pad as ``PATH``, with the path filled in so that
    the command works pasted into a shell from any folder: made absolute (a relative path
    names another file elsewhere; an absolute one never starts with ``-``, which would read
    as an option), one shell word, followed by ``options`` (each a shell word)."""
    words = [shell_word(os.path.abspath(path)), *map(shell_word, options)]
    return way_out.replace(" PATH", " " + " ".join(words), 1)
