"""Pilot tests of the Sweep screen: the CLI's ranking in a table, sorted, and any row loaded into the form."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import DataTable, Input

import planners.layouts.sweep
from app.shared.figures import SWEEP_COLUMNS, sweep_cells
from app.tui.app import PodplanApp
from app.tui.screens.compare_screen import CompareScreen
from app.tui.screens.plan_screen import PlanScreen
from app.tui.screens.sweep_screen import SweepScreen
from planners.compute import compute
from planners.example import example_pod
from planners.layouts.sweep import sweep
from planners.perf.workloads import PRESETS
from tests.tui_helpers import SIZE, open_screen, text_of

EXAMPLE_SWEEP = sweep(example_pod())


def _cells(table: DataTable, i: int) -> list[str]:
    return [str(c) for c in table.get_row_at(i)]


def _shown(table: DataTable, cells: tuple[str, ...]) -> list[str]:
    """The cells of the columns the screen kept (it drops some where the table would be too wide)."""
    shown = {str(k.value) for k in table.columns}
    return [c for col, c in zip(SWEEP_COLUMNS, cells, strict=True) if col in shown]


async def _open(pilot) -> SweepScreen:  # type: ignore[no-untyped-def]
    return await open_screen(pilot, "f6", SweepScreen)


async def test_table_is_the_cli_ranking_and_enter_loads_a_row_into_the_form() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        table = screen.query_one(DataTable)
        rows = EXAMPLE_SWEEP.rows
        assert table.row_count == len(rows) > 100
        assert [str(c.label) for c in table.columns.values()][:3] == ["# ▾", "layout", "TiB"]
        for i in (0, 1, len(rows) - 1):
            assert _cells(table, i) == _shown(table, sweep_cells(i + 1, rows[i]))
        assert _cells(table, 0)[0].endswith("*") and not _cells(table, len(rows) - 1)[0].endswith("*")
        assert f"{len(rows)} layouts of 45 disks; MB/s for seq-write" in text_of(app, "#sweep-status")

        want = next(i for i, r in enumerate(rows) if r.label == "4x RAID6 11 64K striped")
        table.move_cursor(row=want)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PlanScreen)
        assert app.plan == rows[want].plan and app.error == ""
        assert app.result is not None and app.result.usable_bytes == rows[want].usable_bytes
        assert app.screen.query_one("#groups", Input).value == "4"
        assert app.screen.query_one("#chunk", Input).value == "64K"
        assert app.plan.disks == example_pod().disks and app.plan.filesystem == example_pod().filesystem
        assert any("4x RAID6 11 64K striped" in str(n.message) for n in app._notifications)


async def test_sorts_by_each_ranking_column_and_starts_at_the_top() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        table = screen.query_one(DataTable)
        table.move_cursor(row=5)
        label = _cells(table, 5)[1]
        await pilot.press("s")
        await pilot.pause()
        assert screen.sort_by == "TiB" and "Sorted by TiB" in text_of(app, "#sweep-status")
        tib = [float(_cells(table, i)[2].replace(",", "")) for i in range(table.row_count)]
        assert tib == sorted(tib, reverse=True)
        assert label and table.cursor_row == 0 and table.scroll_y == 0  # a new order is read from its top
        await pilot.press("s")
        await pilot.pause()
        mb_s = [r.mb_s for _, r in screen.ordered()]
        assert screen.sort_by == "MB/s" and mb_s == sorted(mb_s, reverse=True)
        widths = [c.get_render_width(table) for c in table.columns.values()]
        at = [str(k.value) for k in table.columns].index("loss/yr 1-4%")
        await pilot.click("#sweep", offset=(sum(widths[:at]) + 2, 0))  # the loss heading
        await pilot.pause()
        loss = [r.loss.per_year[1] for _, r in screen.ordered()]
        assert screen.sort_by == "loss" and loss == sorted(loss)
        # The rank column keeps the sweep's rank whatever the order, as the CLI numbers it.
        rank, row = screen.ordered()[0]
        assert _cells(table, 0) == _shown(table, sweep_cells(rank, row))
        # Loading follows the sorted order: the row under the cursor is the one loaded.
        table.move_cursor(row=0)
        await pilot.press("l")
        await pilot.pause()
        assert app.plan == row.plan


async def test_another_workload_reranks_and_the_ui_answers_while_the_sweep_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gate = threading.Event()
    real = planners.layouts.sweep.sweep

    def held(*args, **kwargs):  # type: ignore[no-untyped-def]
        assert gate.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(planners.layouts.sweep, "sweep", held)
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f6")
        await pilot.pause()
        assert "Sweeping the layouts of 45 disks for seq-write" in text_of(app, "#sweep-status")
        await pilot.press("l")  # the screen answers keys while the worker computes
        await pilot.pause()
        assert any("still running" in str(n.message) for n in app._notifications)
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("w")  # seq-write -> rand-read-4k
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SweepScreen) and screen.workload == "rand-read-4k"
        assert "MB/s for rand-read-4k" in text_of(app, "#sweep-status")
        expected = real(example_pod(), PRESETS["rand-read-4k"]).rows
        assert [r.label for _, r in screen.ordered()] == [r.label for r in expected]


async def test_reachable_from_compare_and_the_palette_and_back_to_compare() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        assert "Sweep layouts" in {c.title for c in app.get_system_commands(app.screen)}
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        await pilot.press("s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, SweepScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)


async def test_an_invalid_form_sweeps_the_last_valid_plan() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one("#count", Input).value = "x"
        await pilot.pause()
        assert app.error
        await pilot.press("f6")
        # Read before the sweep runs: a notification expires, and a loaded machine sweeps the pod for longer.
        assert any("last valid plan" in str(n.message) for n in app._notifications)
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SweepScreen) and screen.plan == example_pod()
        assert compute(screen.selected().plan).usable_bytes == screen.selected().usable_bytes


async def test_a_btrfs_profile_row_loads_into_the_form() -> None:
    from planners.example import example_btrfs

    plan = example_btrfs()
    rows = sweep(plan).rows
    app = PodplanApp(plan)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        table = screen.query_one(DataTable)
        want = next(i for i, r in enumerate(rows) if r.label == "btrfs raid6/raid1c3")
        assert _cells(table, want) == _shown(table, sweep_cells(want + 1, rows[want]))
        table.move_cursor(row=want)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PlanScreen)
        assert app.plan == rows[want].plan and app.error == ""
        assert app.result is not None and app.result.usable_bytes == rows[want].usable_bytes


async def test_a_priced_plan_shows_price_and_watts_per_tib_and_sorts_by_cost() -> None:
    from pathlib import Path

    from app.shared.cost_view import sweep_cost_cells
    from app.shared.planfile import load_plan

    app = PodplanApp(load_plan(str(Path(__file__).parent / "fixtures" / "plans" / "pod45-priced.toml")))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        table = screen.query_one(DataTable)
        assert [str(k.value) for k in table.columns][-2:] == ["price/TiB", "W/TiB"]
        for _ in range(5):  # rank, TiB, MB/s, loss, rebuild, then cost
            await pilot.press("s")
            await pilot.pause()
        assert screen.sort_by == "cost" and "Sorted by cost" in text_of(app, "#sweep-status")
        ordered = [r for _, r in screen.ordered()]
        safe = [r.cost.per_usable_tib for r in ordered if not r.risky and r.cost]
        assert safe == sorted(safe) and all(r.risky for r in ordered[len(safe) :])
        # The CLI's --rank cost order, row for row.
        cli = sweep_layouts_cost(app.plan)
        assert [r.label for r in ordered] == [r.label for r in cli]
        _, row = screen.ordered()[0]
        assert _cells(table, 0)[-2:] == list(sweep_cost_cells(row.cost))
        await pilot.press("s")
        await pilot.pause()
        assert screen.sort_by == "rank"


def sweep_layouts_cost(plan):  # type: ignore[no-untyped-def]
    from app.usecases.sweep import CpuSource, SweepRequest, sweep_layouts

    return sweep_layouts(SweepRequest(plan, cpu=CpuSource(no_host_cpu=True), rank="cost")).sweep.rows


async def test_without_prices_the_sort_skips_cost() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        assert "price/TiB" not in [str(k.value) for k in screen.query_one(DataTable).columns]
        for _ in range(5):
            await pilot.press("s")
            await pilot.pause()
        assert screen.sort_by == "rank"
