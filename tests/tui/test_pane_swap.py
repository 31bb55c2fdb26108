"""A new version swaps only the rows of the entries it changed: the others keep their rows
(already wrapped and measured), and the pane's map of lines is the one a fresh layout makes."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
from textual._styles_cache import StylesCache
from textual.geometry import Offset, Region
from textual.scrollbar import ScrollBar
from textual.widgets import OptionList

from padtui.tui import drawing, widgets
from padtui.tui.widgets import EntryPane
from tests.tui.conftest import Harness, inspector, write_atomic


def notes(n: int) -> list[dict[str, object]]:
    return [
        {"kind": "note", "id": f"n-{i}", "text": f"note {i}: the build cache lives in /tmp/c{i}"}
        for i in range(n)
    ]


def save(path: Path, entries: list[dict[str, object]]) -> None:
    write_atomic(path, json.dumps({"budget_tokens": 100_000, "entries": entries}, indent=2))


def pad_of_notes(tmp_path: Path, n: int) -> tuple[Path, list[dict[str, object]]]:
    pad = tmp_path / "pads" / "pad.json"
    pad.parent.mkdir()
    entries = notes(n)
    save(pad, entries)
    return pad, entries


def lines_as_laid_out_afresh(pane: EntryPane) -> list[tuple[int, int]]:
    kept = list(pane._line_cache.lines)
    pane._line_cache.clear()
    while pane.laid_out < pane.option_count:  # (a step at a time: see LAYOUT_STEP)
        pane._laying_out = False
        pane._update_lines()
    fresh = list(pane._line_cache.lines)
    assert fresh  # (laid out: the pane is on screen)
    return kept if kept == fresh else [*kept, ("differs from", fresh)]  # type: ignore[list-item]


async def new_version(h: Harness, path: Path, entries: list[dict[str, object]]) -> None:
    number = h.app.inspection.current.number + 1
    save(path, entries)
    await h.until(lambda: h.app.inspection.current.number == number, f"version {number}")
    await h.pilot.pause()


async def test_a_write_that_changes_one_entry_swaps_that_row_alone(tmp_path: Path) -> None:
    pad, entries = pad_of_notes(tmp_path, 60)
    async with inspector(pad) as h:
        pane = h.pane("rewritable")
        before = list(pane.options)
        entries[30] = {**entries[30], "text": "note 30: the cache moved to /var/cache/c30"}
        await new_version(h, pad, entries)
        after = list(pane.options)
        assert pane.swapped == 1
        assert [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a is not b] == [30]
        assert "/var/cache/c30" in h.row("rewritable", "n-30")
        assert pane.highlighted == 30  # (the pane goes to what changed)
        assert pane._line_cache.lines == lines_as_laid_out_afresh(pane)


async def test_rows_taller_added_and_removed_keep_the_map_of_lines_whole(tmp_path: Path) -> None:
    pad, entries = pad_of_notes(tmp_path, 40)
    async with inspector(pad) as h:
        pane = h.pane("rewritable")
        # taller: the rows after it move down
        entries[5] = {**entries[5], "text": "line one\nline two\nline three\n" + "word " * 80}
        await new_version(h, pad, entries)
        assert pane.swapped == 1
        assert pane._line_cache.lines == lines_as_laid_out_afresh(pane)
        # one added in the middle, then one removed: the rows after it change their places
        entries.insert(20, {"kind": "note", "id": "n-added", "text": "added"})
        await new_version(h, pad, entries)
        assert pane.swapped == 1
        assert h.labels("rewritable")[19:22] == ["n-19", "n-added", "n-20"]
        assert pane._line_cache.lines == lines_as_laid_out_afresh(pane)
        kept = list(pane.options)
        del entries[10]
        await new_version(h, pad, entries)
        assert pane.swapped == 0  # (nothing new: a row taken out)
        assert list(pane.options) == kept[:10] + kept[11:]
        assert "n-10" not in h.labels("rewritable")
        assert pane._line_cache.lines == lines_as_laid_out_afresh(pane)
        assert [pane._option_to_index[o] for o in pane.options] == list(range(len(kept) - 1))
        # what is drawn is the new version's: the cursor on the row after the one removed
        assert pane.selected_row is not None and pane.selected_row.entry.label == "n-11"
        await h.pilot.pause()
        assert "note 11:" in h.screen_text() and "note 10:" not in h.screen_text()


async def test_a_long_pane_is_laid_out_a_step_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(widgets, "LAYOUT_STEP", 10)
    pad, _entries = pad_of_notes(tmp_path, 60)
    async with inspector(pad) as h:
        pane = h.pane("rewritable")
        await h.until(lambda: pane.laid_out == pane.option_count == 60, "the rows laid out")
        assert pane._line_cache.lines == lines_as_laid_out_afresh(pane)
        pane.show(list(reversed(pane.rows)))  # (every row in a new place)
        assert pane.laid_out == 10  # the first step now: the pane is drawn meanwhile
        await h.until(lambda: pane.laid_out == 60, "the rest laid out")
        assert pane._line_cache.lines == lines_as_laid_out_afresh(pane)
        assert pane.virtual_size.height == len(pane._line_cache.lines)


async def test_a_step_that_lays_out_rows_below_the_view_draws_only_the_scroll_bar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The steps of a long pane's layout that only add rows below what it shows leave its
    lines as drawn (a large pad's layout was a frame of the whole pane a step); the scroll
    bar follows each step, and a step that reaches the view draws it."""
    monkeypatch.setattr(widgets, "LAYOUT_STEP", 10)
    pad, _entries = pad_of_notes(tmp_path, 60)
    async with inspector(pad, size=(100, 30)) as h:
        pane = h.pane("rewritable")
        await h.until(lambda: pane.laid_out == 60, "the rows laid out")
        drawn: list[int] = []
        refresh = pane.refresh

        def counted(*regions: object, **kwargs: object) -> object:
            drawn.append(pane.laid_out)
            return refresh(*regions, **kwargs)  # type: ignore[arg-type]

        pane.refresh = counted  # type: ignore[method-assign,assignment]
        heights: list[int] = []
        pane.show(list(reversed(pane.rows)))  # (laid out again, a step at a time)
        assert pane.laid_out == 10
        view = pane.scrollable_content_region.height
        assert len(pane._line_cache.lines) > view  # (the first step fills the view)
        drawn.clear()
        while pane.laid_out < 60:
            laid = pane.laid_out
            await h.until(lambda laid=laid: pane.laid_out > laid, "the next step")  # type: ignore[misc]
            heights.append(pane.vertical_scrollbar.window_virtual_size)
        assert drawn == []  # (no step redrew the pane's lines)
        assert heights[-1] == len(pane._line_cache.lines) == pane.virtual_size.height
        assert heights == sorted(heights) and len(set(heights)) > 1
        # steps whose rows do not fill the view: the next step's rows are in view, drawn
        monkeypatch.setattr(widgets, "LAYOUT_STEP", 2)
        pane.show(list(reversed(pane.rows)))
        assert pane.laid_out == 2 and len(pane._line_cache.lines) < view
        drawn.clear()
        await h.until(lambda: pane.laid_out > 2, "the second step")
        assert 4 in drawn
        pane.refresh = refresh  # type: ignore[method-assign]


async def test_rows_swapped_while_the_pane_is_laid_out_keep_the_steps_laid_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version that comes while a long pane is still being laid out (a large pad just
    opened) measures again only its own rows laid out so far: the steps already taken are
    kept, and the layout goes on to the same map of lines."""
    monkeypatch.setattr(widgets, "LAYOUT_STEP", 10)
    pad, _entries = pad_of_notes(tmp_path, 60)
    async with inspector(pad) as h:
        pane = h.pane("rewritable")
        await h.until(lambda: pane.laid_out == 60, "the rows laid out")
        rows = list(reversed(pane.rows))
        pane.show(rows)  # (every row in a new place: laid out again, a step at a time)
        assert pane.laid_out == 10
        rows[3], rows[4] = rows[4], rows[3]  # rows laid out
        rows[40], rows[41] = rows[41], rows[40]  # and rows not laid out yet
        pane.show(rows)
        assert pane.swapped == 39  # (the run from the first to the last)
        assert pane.laid_out == 10  # (was: laid out again from the first row swapped)
        assert [o for o in pane.options] == [pane._by_entry[id(r.entry)][1] for r in rows]
        await h.until(lambda: pane.laid_out == 60, "the rest laid out")
        assert pane._line_cache.lines == lines_as_laid_out_afresh(pane)
        assert pane.virtual_size.height == len(pane._line_cache.lines)
        await h.pilot.pause()
        assert [r.entry.label for r in pane.rows] == [r.entry.label for r in rows]


async def test_a_large_pad_shows_its_first_rows_then_all_of_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pad of many entries is on screen with the first rows of each region (and the
    regions' whole counts), and the other rows follow once that frame is drawn."""
    from padtui.tui import inspector as screen_module

    monkeypatch.setattr(screen_module, "FIRST_ROWS", 5)
    monkeypatch.setattr(screen_module, "WHOLE_AFTER", 60.0)  # (drawn here, by hand)
    pad, entries = pad_of_notes(tmp_path, 24)
    for e in entries[:12]:
        e["sealed"] = True
    save(pad, entries)
    async with inspector(pad) as h:
        sealed, rewritable = h.pane("sealed"), h.pane("rewritable")
        assert (sealed.option_count, rewritable.option_count) == (12, 5)  # (sealed first)
        assert str(sealed.border_subtitle).startswith("12 entries")
        assert str(rewritable.border_subtitle).startswith("12 entries")
        assert h.labels("rewritable") == [f"n-{i}" for i in range(12, 17)]
        h.view._draw_whole()  # (what the timer does)
        await h.pilot.pause()
        assert (sealed.option_count, rewritable.option_count) == (12, 12)
        assert h.labels("rewritable") == [f"n-{i}" for i in range(12, 24)]
        # from then on, every version shows every row at once
        entries[20]["text"] = "note 20: moved to /var/c20"
        save(pad, entries)
        await h.until(lambda: "moved" in h.row("rewritable", "n-20"), "the new version")
        assert rewritable.option_count == 12


async def test_entries_moved_removed_and_added_keep_each_row_with_its_option(
    tmp_path: Path,
) -> None:
    """However a version reorders the entries, each option shows its row's entry, and an
    entry that only moved keeps its option (its text already wrapped and measured)."""
    pad, entries = pad_of_notes(tmp_path, 30)
    async with inspector(pad) as h:
        pane = h.pane("rewritable")

        def shown() -> list[str]:
            return [o.prompt.row.entry.label for o in pane.options]  # type: ignore[attr-defined]

        by_label = {r.entry.label: o for r, o in zip(pane.rows, pane.options, strict=True)}
        rewrites = [
            [entries[29], *entries[:29]],  # the last first
            [e for i, e in enumerate(entries) if i != 12],  # one gone from the middle
            [*entries[:5], *notes(32)[30:], *entries[5:]],  # two new ones
        ]
        for version in rewrites:
            await new_version(h, pad, version)
            assert shown() == [r.entry.label for r in pane.rows] == [e["id"] for e in version]
            for r, o in zip(pane.rows, pane.options, strict=True):
                if r.entry.label in by_label:
                    assert o is by_label[r.entry.label]  # (moved or kept: the same option)
            by_label = {r.entry.label: o for r, o in zip(pane.rows, pane.options, strict=True)}
            assert pane._line_cache.lines == lines_as_laid_out_afresh(pane)


async def test_a_pane_that_grows_past_its_height_scrolls_to_its_last_row(tmp_path: Path) -> None:
    # (a new height of what the pane scrolls repaints the pane, not the whole screen; a
    # scroll bar that comes or goes still lays the pane out again)
    pad, entries = pad_of_notes(tmp_path, 3)
    async with inspector(pad) as h:
        pane = h.pane("rewritable")
        assert not pane.show_vertical_scrollbar
        entries += notes(80)[3:]
        await new_version(h, pad, entries)
        await h.until(lambda: pane.laid_out == 80, "the rows laid out")
        assert pane.show_vertical_scrollbar
        assert pane.max_scroll_y == pane.virtual_size.height - pane.scrollable_content_region.height
        pane.scroll_end(animate=False, immediate=True)
        await h.pilot.pause()
        assert "note 79:" in h.screen_text()
        del entries[3:]
        await new_version(h, pad, entries)
        await h.until(lambda: not pane.show_vertical_scrollbar, "the scroll bar gone")
        await h.pilot.pause()
        assert pane.scroll_y == 0 and "note 0:" in h.screen_text()


@pytest.mark.parametrize("size", [(160, 45), (61, 20)])
async def test_a_row_is_drawn_line_for_line_as_the_option_list_draws_an_option(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    pad = tmp_path / "pads" / "pad.json"
    pad.parent.mkdir()
    entries: list[dict[str, object]] = [
        {"kind": "constraint", "id": "c-1", "text": "Never retry writes after a 5xx."},
        {"kind": "note", "id": "n-wide", "text": "宽字符的笔记 " * 9 + "\tafter a tab"},
        {"kind": "note", "id": "n-long", "text": "word " * 70 + "unbrokenword" * 12},
        {"kind": "plan", "id": "p-1", "text": "line one\n\n  indented line three   "},
        {"kind": "hypothesis", "id": "h-1", "text": ""},
        {"kind": "loss_record", "id": "l-1", "text": "Dropped: two notes.", "sealed": True},
    ]
    save(pad, entries)
    async with inspector(pad, size=size) as h:
        for name in ("sealed", "rewritable"):
            pane = h.pane(name)
            for classes in (
                ("option-list--option",),
                ("option-list--option", "option-list--option-highlighted"),
            ):
                style = pane.get_visual_style(*classes)
                for option in pane.options:
                    pane._option_render_cache.clear()
                    ours = pane._get_option_render(option, style)
                    pane._option_render_cache.clear()
                    theirs = OptionList._get_option_render(pane, option, style)
                    assert ours == theirs
                    assert [s.cell_length for s in ours] == [s.cell_length for s in theirs]


async def test_a_pane_s_scroll_bar_is_drawn_line_for_line_as_the_scroll_bar_draws_itself(
    tmp_path: Path,
) -> None:
    pad, _entries = pad_of_notes(tmp_path, 300)
    async with inspector(pad, size=(100, 30)) as h:
        pane = h.pane("rewritable")
        bar = pane.vertical_scrollbar
        assert isinstance(bar, drawing.PaneScrollBar)
        drawn = set()
        for target in (0, 1, 7, 150, 299, 298):
            pane.highlighted = target
            await h.pilot.pause()
            for mouse_over, grabbed in ((False, None), (True, None), (False, Offset(0, 3))):
                bar.mouse_over, bar.grabbed = mouse_over, grabbed
                for crop in (bar.size.region, Region(0, 2, bar.size.width, 5), Region(1, 0, 1, 4)):
                    ours = bar.render_lines(crop)
                    bar._styles_cache.clear()
                    bar.refresh()
                    theirs = ScrollBar.render_lines(bar, crop)
                    assert ours == theirs
                    assert len(ours) == crop.height
                    drawn.add(repr([list(s) for s in ours]))
        assert len(drawn) > 10  # (the thumb and its styles did move and change)


@pytest.mark.parametrize("size", [(160, 45), (61, 20)])
async def test_a_pane_s_lines_are_the_lines_the_styles_cache_makes(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    pad, _entries = pad_of_notes(tmp_path, 120)
    async with inspector(pad, size=size) as h:
        for name, other in (("sealed", "rewritable"), ("rewritable", "sealed")):
            pane = h.pane(name)
            for focused in (pane, h.pane(other)):  # (the border's colour changes with focus)
                focused.focus()
                pane.highlighted = 60
                await h.pilot.pause()
                crop = pane.outer_size.region  # (border and padding too)
                ours = pane._styles_cache
                assert isinstance(ours, drawing.PaneLines)
                ours.clear()
                made = pane.render_lines(crop)
                assert ours._edges is not None and ours._edges[1] is not None  # (its own way)
                pane._styles_cache = StylesCache()
                try:
                    expected = pane.render_lines(crop)
                finally:
                    pane._styles_cache = ours
                assert made == expected
                assert [s.cell_length for s in made] == [s.cell_length for s in expected]


async def test_a_line_drawn_again_is_the_strip_drawn_before_until_the_pane_s_edges_change(
    tmp_path: Path,
) -> None:
    """A pane drawn again after a new version (which redraws it whole) gives each line that
    is as it was as the very strip it gave before, so that what Textual keeps on a strip (the
    line filters, the cuts, the terminal's codes) is not done again; the changed row's lines
    are new, and a change of the pane's edges (its border's colour) frames every line anew."""
    pad, entries = pad_of_notes(tmp_path, 40)
    async with inspector(pad, size=(100, 30)) as h:
        pane = h.pane("rewritable")
        pane.focus()
        await h.pilot.pause()
        crop = pane.outer_size.region

        def content(lines: list[object]) -> list[object]:
            return lines[1:-1]  # (the border's own lines are Textual's)

        before = content(pane.render_lines(crop))  # type: ignore[arg-type]
        entries[3] = {**entries[3], "text": "note 3: the cache moved to /var/cache/c3"}
        await new_version(h, pad, entries)
        assert pane.highlighted == 3
        after = content(pane.render_lines(crop))  # type: ignore[arg-type]
        assert len(after) == len(before)
        same = [a is b for a, b in zip(after, before, strict=True)]
        changed = {i for i, s in enumerate(same) if not s}
        assert changed and len(changed) < len(same) // 2  # (the rows of note 3 and the cursor)
        assert any("/var/cache/c3" in line.text for line in after)  # type: ignore[attr-defined]
        h.pane("sealed").focus()  # the rewritable pane's border changes colour
        await h.pilot.pause()
        recoloured = content(pane.render_lines(crop))  # type: ignore[arg-type]
        assert not any(a is b for a, b in zip(recoloured, after, strict=True))
        pane._styles_cache = StylesCache()
        try:
            pane.refresh()
            expected = content(pane.render_lines(crop))  # type: ignore[arg-type]
        finally:
            pane._styles_cache = drawing.PaneLines()
        assert recoloured == expected


async def test_the_garbage_collector_is_held_off_only_until_the_frame_is_drawn(
    tmp_path: Path,
) -> None:
    """A new version is taken in and drawn with the cyclic collector off (its collections
    would cost the frame); it is on again once the frame is drawn, and after the app."""
    pad, entries = pad_of_notes(tmp_path, 40)
    held: list[bool] = []
    async with inspector(pad) as h:
        screen = h.app.inspector
        take = screen._take

        def watched_take(prepared: object) -> None:
            take(prepared)  # type: ignore[arg-type]
            held.append(not gc.isenabled())

        screen._take = watched_take  # type: ignore[method-assign]
        for i in (3, 30):
            entries[i] = {**entries[i], "text": f"note {i}: moved to /var/c{i}"}
            await new_version(h, pad, entries)
            await h.until(gc.isenabled, "the collector on again after the frame")
    assert held == [True, True]
    assert gc.isenabled()
