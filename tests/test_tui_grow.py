"""Pilot tests of the Grow screen (f9): the form drives the figures, nothing is cut at 80x24, the
script and the grown layout save, bad input says why."""

from __future__ import annotations

from pathlib import Path

from rich.syntax import Syntax
from textual.widgets import Input, Static

from app.shared.grow import figures_table
from app.shared.planfile import load_plan
from app.tui.app import PodplanApp
from app.tui.screens.dialogs import PathPrompt
from app.tui.screens.grow_screen import GrowScreen
from app.tui.widgets.choice import Choice
from planners.example import example_pod
from planners.grow import GrowRequest, growth_between, target_plan
from tests.tui_helpers import SIZE, open_screen, rendered


async def _set(pilot, field: str, text: str) -> None:
    widget = pilot.app.screen.query_one(f"#{field}", Input)
    widget.focus()
    await pilot.press("end", *["backspace"] * len(widget.value), *text)
    await pilot.pause()


def _figures(req: GrowRequest) -> list[int]:
    p = example_pod()
    g = growth_between(p, target_plan(p, req))
    return [
        g.arrays[0].array_bytes_after,
        g.lv_bytes_after,
        g.df_size_bytes_after,
        g.df_available_bytes_after,
        g.df_available_bytes_before,
    ]


async def test_f9_shows_every_figure_whole_at_80x24() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "Grow the pod" in {c.title for c in app.get_system_commands(app.screen)}
        screen = await open_screen(pilot, "f9", GrowScreen)
        body = screen.query_one("#grow-body")
        room = body.scrollable_content_region.width
        assert screen.growth is not None
        assert app.console.measure(figures_table(screen.growth)).maximum <= room  # the text wraps; the table cannot
        text = rendered(app, "#grow-result", width=room)
        for v in _figures(GrowRequest(add_disks=1)):
            assert f"{v:,}" in text
        assert "backup file: not needed" in text and "mdadm --grow /dev/md/md2 --raid-devices=16" in text
        # The table and the first figures are in view without scrolling.
        assert screen.query_one("#grow-result").region.y < 24 - 8


async def test_the_form_drives_the_growth_and_bad_input_says_why() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "f9", GrowScreen)
        await _set(pilot, "grow-add", "3")
        assert screen.growth is not None and screen.growth.arrays[0].members_after == 18
        await _set(pilot, "grow-add", "0")
        assert screen.growth is None
        assert "nothing to grow" in rendered(app, "#grow-result")
        await _set(pilot, "grow-add", "15")
        assert "also possible: --mode new-array" in rendered(app, "#grow-result")
        screen.query_one("#grow-mode", Choice).focus()
        await pilot.press("right", "right")  # choose -> reshape -> new array
        await pilot.pause()
        assert screen.growth is not None and screen.growth.mode == "new-array"
        await _set(pilot, "grow-group", "md9")
        assert "no md array named 'md9'" in rendered(app, "#grow-result")
        await _set(pilot, "grow-group", "")
        await _set(pilot, "grow-add", "1")
        await _set(pilot, "grow-size", "1TB")
        assert "a new array like md2 takes 15 disks" in rendered(app, "#grow-result")
        screen.query_one("#grow-mode", Choice).focus()
        await pilot.press("left", "left")  # back to choose: the reshape's reason comes first
        await pilot.pause()
        assert "added disks are too small" in rendered(app, "#grow-result")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, GrowScreen)


async def test_script_view_and_saving_the_script_and_the_layout(tmp_path: Path) -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "f9", GrowScreen)
        await pilot.press("f2")
        await pilot.pause()
        content = screen.query_one("#grow-result", Static).content
        assert isinstance(content, Syntax) and "mdadm --grow /dev/md/md2 --raid-devices=16" in content.code

        async def save(key: str, path: Path) -> None:
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, PathPrompt)
            app.screen.query_one("#path", Input).value = str(path)
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()

        await save("ctrl+s", tmp_path / "grow.sh")
        assert (tmp_path / "grow.sh").read_text() == content.code
        await save("ctrl+l", tmp_path / "grown.toml")
        assert load_plan(tmp_path / "grown.toml").groups[-1].members == 16
