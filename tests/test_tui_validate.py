"""Pilot tests of the Validate screen: real fio against a directory, a bad target, a cancelled run.

The suite's timing and file size are shrunk through the runner's own parameters so a whole
run takes a few seconds; everything else (guards, fio, parsing, the model) is the real path.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

import app.usecases.validate as validate_session
from app.tui.app import PodplanApp
from app.tui.screens.validate_screen import ValidateScreen, bar_chart
from planners.example import example_pod
from runners.exec import which
from runners.fio.jobs import WORKLOADS, Timing
from runners.validate.compare import SideBySide
from runners.validate.suite import validate
from tests.tui_helpers import SIZE, text_of

MiB = 1024**2
FAST = Timing(runtime_s=2, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=50.0)
# Never steady and long: the first workload is surely still running when the test cancels it.
SLOW = Timing(runtime_s=30, ss_duration_s=30, ss_ramp_s=0, ss_slope_pct=0.01)

needs_fio = pytest.mark.skipif(which("fio") is None, reason="fio is not installed")


def _shrink(monkeypatch: pytest.MonkeyPatch, timing: Timing) -> None:
    monkeypatch.setattr(validate_session, "validate", functools.partial(validate, timing=timing, file_size=16 * MiB))


def _messages(app: PodplanApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def _open_and_start(pilot, target: str, destroy: str = "") -> ValidateScreen:
    await pilot.press("f5")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ValidateScreen)
    screen.query_one("#target", Input).value = target
    screen.query_one("#destroy", Input).value = destroy
    await pilot.press("ctrl+r")
    await pilot.pause()
    return screen


async def _start_the_loaded_job(pilot, target: Path) -> ValidateScreen:  # type: ignore[no-untyped-def]
    """The validate screen opened, its suite set to the job file loaded with ctrl+j, started on `target`."""
    from app.tui.widgets.choice import Choice

    await pilot.press("f5")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ValidateScreen)
    screen.query_one("#mode", Choice).value = "job"
    screen.query_one("#target", Input).value = str(target)
    await pilot.press("ctrl+r")
    await pilot.pause()
    return screen


async def wait_for_fio(pilot, target: Path) -> None:  # type: ignore[no-untyped-def]
    """Until the screen says a workload runs and fio's file is on the target directory."""
    for _ in range(150):
        if "running" in text_of(pilot.app, "#validate-progress") and any(target.glob(".podplan-fio-*")):
            return
        await pilot.pause(0.1)
    pytest.fail("fio never started on the directory")


@needs_fio
async def test_quick_suite_on_a_directory_fills_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _shrink(monkeypatch, FAST)
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_and_start(pilot, str(tmp_path))
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = screen.query_one("#validate-table", DataTable)
        assert [table.get_row_at(i)[0] for i in range(table.row_count)] == list(WORKLOADS)
        for i in range(table.row_count):
            workload, status, mb_s, iops, _steady, predicted, diff, _binding, _why = table.get_row_at(i)
            assert status == "done", workload
            assert float(mb_s.replace(",", "")) > 0 and float(iops.replace(",", "")) > 0
            # The example plan is of 45 disks, not of this directory: measured, not compared.
            assert predicted == "no prediction" and diff == ""
        chart = text_of(app, "#validate-chart")
        assert chart.count("measured") == 4 and "█" in chart
        assert "not compared: the current plan does not describe this target" in text_of(app, "#validate-notes")
        assert all(line.rstrip().endswith("done") for line in text_of(app, "#validate-progress").splitlines())
        assert any(m.startswith(f"Validated {tmp_path}") for m in _messages(app))
        assert list(tmp_path.iterdir()) == []
        assert not screen.query_one("#start").disabled and screen.query_one("#cancel").disabled


async def test_bad_target_is_a_notification(tmp_path: Path) -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        missing = tmp_path / "no-such-array"
        screen = await _open_and_start(pilot, str(missing))
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, ValidateScreen)
        assert any(str(missing) in m and ("no such" in m or "fio not found: install fio" in m) for m in _messages(app))
        assert "Not run" in text_of(app, "#validate-progress")
        assert screen.query_one("#validate-table", DataTable).row_count == 0
        assert not screen.query_one("#start").disabled


async def test_a_plan_of_other_storage_is_said_before_fio_and_shapes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 45-disk example against a directory: said at once, and its stripe does not pick fio's block sizes."""
    import threading

    from runners.validate.guard import GuardError

    go, seen = threading.Event(), {}

    def held(target, *, plan_shape=None, **_kw):  # type: ignore[no-untyped-def]
        seen["shape"] = plan_shape
        go.wait(10)
        raise GuardError("stopped by the test")

    monkeypatch.setattr(validate_session, "validate", held)
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await _open_and_start(pilot, str(tmp_path))
        for _ in range(50):
            await pilot.pause(0.05)
            if "not compared" in text_of(app, "#validate-notes"):
                break
        said_first = text_of(app, "#validate-notes")
        go.set()
        await app.workers.wait_for_complete()
        assert "does not describe this target" in said_first and "the plan on 45" in said_first
        assert any("does not describe this target" in m for m in _messages(app))
        assert "shape" in seen and seen["shape"] is None


async def test_destroy_data_naming_another_device_runs_nothing(tmp_path: Path) -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_and_start(pilot, str(tmp_path), destroy="/dev/loop1")
        assert not screen.running and not app.workers
        # the runner's guard said it, before anything ran
        assert any(m.startswith("Destroy data: --destroy-data names a device") for m in _messages(app))


@pytest.mark.skipif(os.geteuid() != 0 or which("losetup") is None, reason="needs root and losetup for a loop device")
async def test_destroy_data_may_name_the_target_through_a_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A /dev/disk/by-id link and the kernel name are one device: the runner's guard compares devices,
    so the screen lets the run start, with the name as typed (the old screen compared the strings)."""
    from runners.probes.loopdev import sparse_loop
    from runners.validate.guard import GuardError

    seen: dict[str, object] = {}

    def held(target, *, destroy_data=None, **_kw):  # type: ignore[no-untyped-def]
        seen["destroy"] = destroy_data
        raise GuardError("stopped by the test")

    monkeypatch.setattr(validate_session, "validate", held)
    with sparse_loop(8 * MiB) as dev:
        link = tmp_path / "ata-DISK_SERIAL"
        link.symlink_to(dev)
        app = PodplanApp(example_pod())
        async with app.run_test(size=SIZE) as pilot:
            await _open_and_start(pilot, dev, destroy=str(link))
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert not any(m.startswith("Destroy data") for m in _messages(app))
            assert seen == {"destroy": str(link)}
            assert "stopped by the test" in text_of(app, "#validate-progress")


async def test_a_job_file_with_nothing_to_predict_is_refused_in_the_session_s_words(tmp_path: Path) -> None:
    from planners.perf.jobfile import parse_job_file

    job = parse_job_file("[t]\nrw=randtrim\nbs=4k\n", source="trim.fio")
    app = PodplanApp(example_pod())
    app.loaded_job = (job, "trim.fio")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _start_the_loaded_job(pilot, tmp_path)
        assert not screen.running and not app.workers
        why = validate_session.nothing_to_run((job,))
        assert why and any(m.startswith(why) for m in _messages(app))


@needs_fio
async def test_cancel_mid_run_stops_fio_and_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _shrink(monkeypatch, SLOW)
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_and_start(pilot, str(tmp_path))
        await wait_for_fio(pilot, tmp_path)
        await pilot.press("f8")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert list(tmp_path.iterdir()) == []
        table = screen.query_one("#validate-table", DataTable)
        statuses = [table.get_row_at(i)[1] for i in range(table.row_count)]
        assert statuses[0] in ("partial", "failed") and statuses[1:] == ["skipped"] * 3
        assert any(m.startswith("Stopped early: interrupted") for m in _messages(app))


def test_bar_chart_scales_each_unit_to_its_largest_figure() -> None:
    rows = [
        SideBySide(
            workload="seq-read",
            measured_mb_s=500.0,
            measured_iops=1.0,
            steady=True,
            predicted_mb_s=1000.0,
            predicted_iops=2.0,
        ),
        SideBySide(workload="rand-read-4k", measured_mb_s=1.0, measured_iops=300.0, steady=None),
    ]
    lines = bar_chart(rows, width=10).splitlines()
    assert lines[0].split()[2] == "█████░░░░░" and lines[1].split()[1] == "██████████"
    assert lines[2].split()[2] == "██████████" and lines[3].rstrip().endswith("no prediction")


@needs_fio
async def test_the_results_are_in_view_at_80x24(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _shrink(monkeypatch, FAST)
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_and_start(pilot, str(tmp_path))
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = screen.query_one("#validate-table", DataTable)
        body = screen.query_one("#validate-body")
        assert table.row_count == 4
        # Every row of the table lies inside the visible part of the screen.
        assert body.region.contains_region(table.region.intersection(body.region)) and table.region.height >= 5
        assert table.region.y >= body.region.y and table.region.bottom <= body.region.bottom


def test_live_figures_are_grouped_as_the_tables_write_them() -> None:
    """The running line and the table beside it spell 73,062 IOPS the same way, in the TUI and the CLI."""
    import io

    from rich.console import Console

    from app.cli.validate import Live
    from app.tui.screens.validate_screen import progress_line
    from runners.fio.result import JobFigures

    figures = JobFigures(
        name="rand-read-4k",
        read_bytes_s=1_230_400_000,
        write_bytes_s=0,
        read_iops=73_062.0,
        write_iops=0.0,
        read_p99_us=None,
        write_p99_us=None,
        runtime_ms=8300,
        io_bytes=1,
        error=0,
        steady=None,
    )
    line = progress_line("rand-read-4k", "end", 8.3, figures, 10.0)
    assert "1,230.4 MB/s" in line and "73,062 IOPS" in line
    out = io.StringIO()
    live = Live(Console(file=out, width=120, force_terminal=False), 10)
    live("rand-read-4k", "start", 0.0, None)
    live("rand-read-4k", "end", 8.3, figures)
    live.progress.stop()
    assert "1,230.4 MB/s" in out.getvalue() and "73,062 IOPS" in out.getvalue()


@needs_fio
async def test_the_loaded_job_file_runs_its_sections_as_fio_groups_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job file loaded with ctrl+j, on the validate screen: the same grouping as `validate --job`."""
    from planners.perf.jobfile import parse_job_file

    _shrink(monkeypatch, FAST)
    app = PodplanApp(example_pod())
    app.loaded_job = (
        parse_job_file("[global]\nrw=randread\nbs=4k\n[a]\n[b]\n[c]\nstonewall\n[d]\nrw=randtrim\n", source="mine.fio"),
        "mine.fio",
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await _start_the_loaded_job(pilot, tmp_path)
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = screen.query_one("#validate-table", DataTable)
        assert [table.get_row_at(i)[0] for i in range(table.row_count)] == ["a", "b", "c"]
        notes = " ".join(text_of(app, "#validate-notes").split())
        assert "sections run together: a, b; then c, d (stonewall)" in notes
        # the refused section is named, not run
        assert "not run: [d] mine.fio:9: [d] rw=randtrim refused: trims are not modelled" in notes
        assert list(tmp_path.iterdir()) == []


@needs_fio
async def test_a_job_file_whose_sections_bear_the_suite_s_names_is_called_a_job_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ran is what was asked (the session says it), not guessed from the sections' names."""
    from planners.perf.jobfile import parse_job_file

    _shrink(monkeypatch, FAST)
    app = PodplanApp(example_pod())
    app.loaded_job = (parse_job_file("[seq-read]\nrw=read\nbs=1M\n", source="mine.fio"), "mine.fio")
    async with app.run_test(size=SIZE) as pilot:
        await _start_the_loaded_job(pilot, tmp_path)
        await app.workers.wait_for_complete()
        await pilot.pause()
        first = text_of(app, "#validate-notes").splitlines()[0]
        assert f"{tmp_path}: the job file's sections," in first and "suite" not in first
