"""Pad text is untrusted: markup in it is shown, never obeyed; escape sequences never reach the
terminal. Hostile text in entries' text, ids and kinds (and the pad's file name), clicked on
with the mouse, acted on with the keys that echo it back in notices."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets._toast import Toast

from padtui.core.counting.tokens import counter_for
from padtui.core.text import clean
from tests.tui.conftest import Harness, inspector

PAYLOADS = [
    "[@click=app.quit]x",
    "[ @click=app.quit]y",
    "[/bold]",
    "x[/]y",
    "\x1b]0;T\x1b\\",  # OSC: set the terminal's title
]
SHOWN = [clean(p) for p in PAYLOADS]  # "\x1b]0;T\x1b\\" is shown as "]0;T\\"


def hostile_pad(tmp_path: Path) -> Path:
    folder = tmp_path / "pads"
    folder.mkdir()
    entries = []
    for i, p in enumerate(PAYLOADS):
        entries.append({"kind": "constraint", "id": f"c{i}{p}", "sealed": True, "text": f"<{p}>"})
        entries.append({"kind": f"note{p}", "id": f"n{i}{p}", "text": f"({p})"})
    entries.append({"kind": "constraint", "id": "c[/]unsealed", "text": "never [b]this[/b]"})
    # a budget that holds the sealed region and nothing more: a pass would drop the constraint
    sealed = sum(counter_for().count_many(str(e["text"]) for e in entries if e.get("sealed")))
    path = folder / "pad[@click=app.quit]q.json"
    path.write_text(json.dumps({"budget_tokens": sealed, "entries": entries}), encoding="utf-8")
    return path


def all_rows(h: Harness) -> str:
    return "\n".join(h.rows("sealed") + h.rows("rewritable"))


async def click_on(h: Harness, text: str) -> int:
    """Click every place ``text`` is on screen; returns how many places."""
    places = [
        (x, y)
        for y, line in enumerate(h.screen_text().splitlines())
        for x in range(len(line))
        if line.startswith(text, x)
    ]
    for x, y in places:  # (markup would draw a link's text where the tag starts)
        await h.pilot.click(offset=(x, y))
        assert h.app.is_running, f"a click on {text!r} quit the app"
        assert h.app.screen is h.app.screen_stack[0], f"a click on {text!r} opened a screen"
    return len(places)


async def test_hostile_text_is_shown_literally_and_clicks_do_nothing(tmp_path: Path) -> None:
    pad = hostile_pad(tmp_path)
    async with inspector(pad, watch=False) as h:
        shown = all_rows(h)
        for text in SHOWN:
            assert f"<{text}>" in shown  # text, sealed
            assert f"({text})" in shown  # text, rewritable
            assert f"note{text}" in shown  # kind
        assert "never [b]this[/b]" in shown
        assert "\x1b" not in shown
        assert "pad[@click=app.quit]q.json" in h.topbar

        clicked = [await click_on(h, text) for text in SHOWN[:4]]
        assert all(n >= 2 for n in clicked)  # in both panes, in texts, kinds and ids
        assert await click_on(h, "pad[@click=app.quit]q.json") == 1

        # what the terminal is sent: literal text, no escape sequence
        screen = h.screen_text()
        assert "\x1b" not in screen
        for text in ("<[@click=app.quit]x>", "<[/bold]>", "<x[/]y>", "<]0;T\\>"):
            assert text in screen
        assert "pad[@click=app.quit]q.json" in screen


async def test_notices_that_echo_pad_text_show_it_literally(tmp_path: Path) -> None:
    pad = hostile_pad(tmp_path)
    async with inspector(pad, watch=False, toasts=True) as h:
        rewritable = h.pane("rewritable")
        for target in ("n2[/bold]", "n0[@click=app.quit]x", "n4]0;T\\"):
            while clean(rewritable.selected_row.entry.label) != target:
                await h.pilot.press("down")
            await h.pilot.press("x")  # not externalized: the notice names the entry
            await h.pilot.pause()
            assert h.app.is_running
            assert h.noted(f"{target} is a note")
        await h.pilot.press("tab", "x")  # a sealed entry: "... is already sealed"
        await h.pilot.pause()
        assert h.noted("c0[@click=app.quit]x is already sealed")

        toasts = list(h.app.screen.query(Toast))
        assert toasts
        rendered = "\n".join(str(t.render()) for t in toasts)
        assert "n2[/bold] is a note[/bold]" in rendered
        assert "n0[@click=app.quit]x is a note[@click=app.quit]x" in rendered
        assert "\x1b" not in rendered
        for toast in toasts:  # the link that markup would make is not there to click
            await h.pilot.click(toast)
        assert h.app.is_running

        # the way out of a refusal names the entry too, and writes it literally
        await h.pilot.press("c")  # (the refusal dialog: its message names the entry)
        assert "c[/]unsealed" in h.dialog_text()
        await h.pilot.press("x")
        await h.settle()
        await h.until(lambda: h.app.inspection.current.number == 2, "the externalize")
        assert h.noted("sealed c[/]unsealed")
        assert "c[/]unsealed" in h.labels("sealed")
