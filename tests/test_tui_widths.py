"""Pilot tests: the Sweep screen at 80x24 and the Compare screen at 120x40 show every figure whole.

A DataTable wider than the screen scrolls sideways, so its last column stands cut at the
screen's edge ("1/468k-1/7.3" read as "1/468k-1/7."). Each test reads the screen as drawn and
finds every shown cell whole on its row's line.
"""

from __future__ import annotations

import re

from textual.widgets import DataTable

from app.shared.figures import SWEEP_COLUMNS, sweep_cells
from app.tui.app import PodplanApp
from app.tui.screens.compare_screen import CompareScreen
from app.tui.screens.sweep_screen import SweepScreen
from planners.example import example_pod
from planners.models import DiskSet
from tests.tui_helpers import open_screen


def screen_lines(app: PodplanApp) -> list[str]:
    """The screen as drawn, one string per line."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


POD60 = example_pod().model_copy(update={"disks": [DiskSet(count=60, size=18 * 10**12)]})


async def test_sweep_at_80x24_shows_each_shown_column_whole() -> None:
    for plan in (example_pod(), POD60):
        app = PodplanApp(plan)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_screen(pilot, "f6", SweepScreen)
            assert screen.result is not None
            shown = [str(k.value) for k in screen.query_one(DataTable).columns]
            # The figures that rank a layout stay; only what explains a figure may go.
            assert {"#", "layout", "TiB", "MB/s", "loss/yr 1-4%"} <= set(shown)
            checked = 0
            for line in screen_lines(app):
                m = re.match(r"\s+(\d+)[*!~ ]\s", line)
                if not m:
                    continue
                rank = int(m.group(1))
                cells = dict(zip(SWEEP_COLUMNS, sweep_cells(rank, screen.result.rows[rank - 1]), strict=True))
                for col in shown:
                    assert cells[col] in line, f"{col} {cells[col]!r} not whole in {line!r}"
                checked += 1
            assert checked >= 10


async def test_compare_at_120x40_shows_three_variants_whole() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for groups in ("1", "5"):
            await pilot.press("f4")
            app.screen.query_one("#groups").value = groups
            await pilot.pause()
        await pilot.press("f3")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen) and len(screen.columns()) == 3
        table = screen.query_one(DataTable)
        lines = screen_lines(app)
        for i in range(table.row_count):
            label, *cells = (str(c) for c in table.get_row_at(i))
            line = next(line for line in lines if line.startswith(f" {label} "))
            for v, cell in zip(screen.columns(), cells, strict=True):
                assert cell in line, f"{v.name}: {label} {cell!r} not whole in {line!r}"
