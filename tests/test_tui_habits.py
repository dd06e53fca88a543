"""Pilot tests of the TUI's everyday habits: keys, marks, dialogs and files, at fixed terminal sizes."""

from __future__ import annotations

import os
import re
from pathlib import Path

from textual.widgets import Input

from app.shared.planfile import load_plan, plan_to_toml
from app.tui.app import PodplanApp
from app.tui.screens.dialogs import PathPrompt, QuitDialog
from planners.compute import compute
from planners.example import example_pod
from planners.models import Plan
from planners.units import format_bytes_binary as tib
from planners.units import format_bytes_decimal as tb
from tests.tui_helpers import rendered, text_of


async def test_a_check_box_shows_its_state_without_colour() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lvm = app.screen.query_one("#lvm")
        assert lvm.render().plain.startswith("▐X▌")
        lvm.value = False
        await pilot.pause()
        assert lvm.render().plain.startswith("▐ ▌")


async def test_the_tib_column_says_its_unit_beside_the_tb_column() -> None:
    """Beside '90.02 TB' in every row, '81.87' alone read as another count of TB."""
    app = PodplanApp(example_pod())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        shown = rendered(app, "#waterfall", 118)
        for step in compute(app.plan).capacity:
            assert re.search(
                rf"{re.escape(tb(step.remaining_bytes))} +{re.escape(tib(step.remaining_bytes))}\b", shown
            ), (step.key, shown)


async def _answer_path(pilot, path: Path) -> None:
    assert isinstance(pilot.app.screen, PathPrompt)
    pilot.app.screen.query_one("#path", Input).value = str(path)
    await pilot.press("enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_a_plan_saved_from_the_tui_is_readable_as_any_new_file(tmp_path) -> None:
    old = os.umask(0o022)
    try:
        app = PodplanApp(example_pod())
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            await pilot.press("ctrl+s")
            await pilot.pause()
            await _answer_path(pilot, tmp_path / "pod.toml")
        assert load_plan(tmp_path / "pod.toml") == example_pod()
        assert oct((tmp_path / "pod.toml").stat().st_mode & 0o7777) == oct(0o644)  # mkstemp's 0600 before
    finally:
        os.umask(old)


async def test_a_count_out_of_bounds_says_the_range_under_the_form() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one("#count", Input).value = "4548"
        await pilot.pause()
        assert text_of(app, "#form-error") == "count: Disk count must be from 1 to 1024, not 4548."
        assert "1024, not 4548." in app.export_screenshot().replace("&#160;", " ")  # whole at 80x24


async def test_the_plan_name_the_build_script_asks_for_is_a_form_field() -> None:
    from app.tui.screens.script_screen import ScriptScreen

    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        name = app.screen.query_one("#name", Input)
        assert name.value == "pod45" and name.region.y < 5  # at the top, in view
        name.value = "pod 7; rm -rf /"
        await pilot.pause()
        assert name.has_class("-error") and app.error.startswith("Plan name 'pod 7; rm -rf /' is not allowed")
        name.value = "archive7"
        await pilot.pause()
        assert app.plan.name == "archive7" and not app.error
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, ScriptScreen) and "PLAN_NAME=archive7" in app.screen.script
        await pilot.press("escape", "ctrl+s")
        await pilot.pause()
        assert app.screen.query_one("#path", Input).value == "archive7.toml"


async def test_the_loss_odds_are_in_view_on_the_perf_tab_at_120x40() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("alt+4")
        await pilot.pause()
        scroll = app.screen.query_one("#tab-performance .result-scroll")
        lines = rendered(app, "#perf", scroll.scrollable_content_region.width).splitlines()
        odds = next(i for i, line in enumerate(lines) if "loss within a year" in line)
        assert odds < scroll.scrollable_content_region.height and scroll.scroll_y == 0, lines[: odds + 1]


async def _edit_then_quit(pilot, field: str, value: str) -> Plan:
    """Type `value` into a field, press ctrl+q; the form's plan then (the last valid one)."""
    await pilot.pause()
    pilot.app.screen.query_one(f"#{field}", Input).value = value
    await pilot.pause()
    await pilot.press("ctrl+q")
    await pilot.pause()
    return pilot.app.plan


async def test_quitting_with_changes_can_save_them_first(tmp_path) -> None:
    """Never saved: 's' asks where, writes the plan atomically, then quits."""
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        edited = await _edit_then_quit(pilot, "groups", "5")
        assert isinstance(app.screen, QuitDialog)
        assert "Save and quit" in app.export_screenshot().replace("&#160;", " ")
        await pilot.press("s")
        await pilot.pause()
        await _answer_path(pilot, tmp_path / "five.toml")
        assert not app.is_running
    assert load_plan(tmp_path / "five.toml") == edited


async def test_save_and_quit_writes_to_the_plans_own_file_without_asking(tmp_path) -> None:
    path = tmp_path / "pod.toml"
    path.write_text(plan_to_toml(example_pod()))
    app = PodplanApp(load_plan(path), path)
    async with app.run_test(size=(80, 24)) as pilot:
        edited = await _edit_then_quit(pilot, "groups", "5")
        await pilot.press("enter")  # the focused answer: save and quit
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.is_running
    assert load_plan(path) == edited and not list(tmp_path.glob(".*.tmp"))


async def test_save_and_quit_stays_when_the_plan_cannot_be_saved() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        await _edit_then_quit(pilot, "count", "4548")
        await pilot.press("s")
        await pilot.pause()
        assert app.is_running and not isinstance(app.screen, (QuitDialog, PathPrompt))
        assert any("Not saved" in str(n.message) for n in app._notifications)


async def test_one_key_puts_the_arrows_and_page_keys_into_the_figures() -> None:
    """ctrl+f, not 22 tabs: the figures scroll from the keyboard; f8 keeps the keys there; ctrl+f goes back."""
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        size = app.screen.query_one("#size", Input)
        size.focus()
        await pilot.press("ctrl+f")
        await pilot.pause()
        scroll = app.screen.query_one("#tab-capacity .result-scroll")
        assert app.screen.focused is scroll and scroll.max_scroll_y > 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > 0
        await pilot.press("f8", "f8")  # Findings: its own scroll takes the keys
        await pilot.pause()
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one("#tab-findings .result-scroll")
        await pilot.press("ctrl+f")
        await pilot.pause()
        assert app.screen.focused is size
        await pilot.press("ctrl+p", *"Scroll the figures", "enter")
        await pilot.pause()
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one("#tab-findings .result-scroll")


async def footer_keys(size: tuple[int, int]) -> str:
    app = PodplanApp(example_pod())
    async with app.run_test(size=size) as pilot:
        # The footer lays its keys out after the first refresh; on a loaded machine that can take
        # more than one pause, so read it until two reads agree.
        shown, previous = "", None
        for _ in range(40):
            await pilot.pause(0.05)
            shown = " ".join(
                f"{k.key_display} {k.description}"
                for k in app.screen.query("PodplanFooter FooterKey")
                if k.display and k.region.width
            )
            if shown and shown == previous:
                break
            previous = shown
        return shown


async def test_a_wide_footer_shows_grow_figures_and_the_palette() -> None:
    wide, narrow = await footer_keys((120, 40)), await footer_keys((80, 24))
    for key in ("f9 Grow", "^f Figures", "^p palette"):
        assert key in wide and key not in narrow, (wide, narrow)
    assert "^s Save" in narrow  # what 80 columns held stays
