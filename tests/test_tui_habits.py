"""Pilot tests of the TUI's everyday habits: keys, marks, dialogs and files, at fixed terminal sizes."""

from __future__ import annotations

import re

from app.tui.app import PodplanApp
from planners.compute import compute
from planners.example import example_pod
from planners.units import format_bytes_binary as tib
from planners.units import format_bytes_decimal as tb
from tests.tui_helpers import rendered


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
            assert re.search(rf"{re.escape(tb(step.remaining_bytes))} +{re.escape(tib(step.remaining_bytes))}\b",
                             shown), (step.key, shown)
