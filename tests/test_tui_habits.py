"""Pilot tests of the TUI's everyday habits: keys, marks, dialogs and files, at fixed terminal sizes."""

from __future__ import annotations

from app.tui.app import PodplanApp
from planners.example import example_pod


async def test_a_check_box_shows_its_state_without_colour() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lvm = app.screen.query_one("#lvm")
        assert lvm.render().plain.startswith("▐X▌")
        lvm.value = False
        await pilot.pause()
        assert lvm.render().plain.startswith("▐ ▌")
