"""Hostile text for the tests that no control character of a pad, a file name or a journal
reaches a terminal: the sequences a terminal obeys, in every place padtui shows text from."""

from __future__ import annotations

import json
import re
from pathlib import Path

from padtui.core.counting.tokens import counter_for

PAYLOADS = {
    "OSC 0 (window title)": "\x1b]0;pwned\x07",
    "OSC 52 (clipboard)": "\x1b]52;c;dG91Y2ggcHduZWQ=\x07",
    "OSC 8 (link)": "\x1b]8;;https://example.invalid/\x1b\\click\x1b]8;;\x1b\\",
    "CSI": "\x1b[2J\x1b[31m",
    "DCS": "\x1bP1$r0m\x1b\\",
    "C1": "\x9b2J\x9d0;c1\x9c\x90q\x9c\x85",
    "DEL": "a\x7fb",
    "bidi": "\u202eevil\u202c \u2066x\u2069 \u2067\u2068\u200f\u061c\u200e",
    "C0": "\x00\x08\x0b\x0c\r",
}
HOSTILE = "".join(PAYLOADS.values())
# a file name cannot hold "/" or NUL; it can hold what else HOSTILE holds, and a byte that is
# not UTF-8 (0x9B, CSI on an 8-bit terminal), which Python names by a lone surrogate
IN_NAME = HOSTILE.replace("/", "_").replace("\x00", "") + "\udc9b"

# what must never reach a terminal, written out here (not the code's own list): C0 controls
# but tab and newline, DEL, C1, the bidirectional controls, lone surrogates (undecodable bytes)
FORBIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)

# ids a shell would act on if a suggested command did not quote them
SHELL_IDS = ["c-2;touch${IFS}pwned", "$(touch subst)", "`touch tick`", "-rf"]


def forbidden(text: str) -> list[str]:
    """The forbidden characters in ``text`` (empty: safe for a terminal)."""
    return FORBIDDEN.findall(text)


def hostile_entries() -> list[dict[str, object]]:
    """A pad's entries with hostile text everywhere: ids, kinds, texts; sealed and not;
    unsealed constraints named by ids a shell would act on, an id-less one, two with the
    same id, one whose id holds controls."""
    entries: list[dict[str, object]] = [
        {"kind": "constraint", "id": "s" + HOSTILE, "sealed": True, "text": "Never X " + HOSTILE},
        {"kind": "loss_record", "id": "lr" + HOSTILE, "sealed": True, "text": "lost " + HOSTILE},
        {"kind": "note" + HOSTILE, "id": "n" + HOSTILE, "text": "note " + HOSTILE},
        {"kind": "plan", "text": "plan " + HOSTILE, "derived_from": ["s" + HOSTILE]},
    ]
    for i in SHELL_IDS:
        entries.append({"kind": "constraint", "id": i, "text": f"Never do {i} " + HOSTILE})
    entries += [
        {"kind": "negative_fact", "text": "Tried Y, it failed " + HOSTILE},  # no id: #N
        {"kind": "constraint", "id": "dup", "text": "Never A (the first dup)"},
        {"kind": "constraint", "id": "dup", "text": "Never B (the second dup)"},
        {"kind": "constraint", "id": "ctl" + PAYLOADS["OSC 0 (window title)"], "text": "C"},
    ]
    return entries


def hostile_pad(folder: Path, name: str = "pad" + IN_NAME + ".json") -> Path:
    """A JSON pad of ``hostile_entries`` whose budget holds its sealed region and no more:
    a pass would drop every unsealed constraint (a refusal with a way out)."""
    entries = hostile_entries()
    count = counter_for().count_many
    sealed = sum(count(str(e["text"]) for e in entries if e.get("sealed")))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps({"budget_tokens": sealed, "entries": entries}), encoding="utf-8")
    return path
