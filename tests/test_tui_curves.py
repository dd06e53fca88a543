"""The Perf tab's scaling curves at 80x24: a chart per section, the knee marked, measured points
once validate has run."""

from __future__ import annotations

import itertools

import pytest

from app.shared.curves import measured_of
from app.tui.app import PodplanApp
from app.tui.widgets.curve import CurvePlot, nice_ticks
from planners.example import example_pod
from runners.fio.jobs import ArrayShape
from runners.fio.result import JobFigures
from runners.validate.suite import ValidateReport, WorkloadReport


def _plot_text(plot: CurvePlot) -> str:
    return plot.render().plain  # type: ignore[union-attr]


async def _perf_plots(pilot) -> list[CurvePlot]:  # type: ignore[no-untyped-def]
    """The Perf tab's charts, once it is shown."""
    await pilot.pause()
    await pilot.press("alt+4")
    await pilot.pause()
    await pilot.pause()
    return list(pilot.app.screen.query(CurvePlot))


async def test_each_section_has_a_readable_chart_at_80x24() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        plots = await _perf_plots(pilot)
        assert [p.curves[0].section for p in plots] == ["seq-read", "seq-write", "rand-read-4k", "rand-write-4k"]
        scroll = app.screen.query_one("#tab-performance .result-scroll")
        plot = plots[2]
        plot.scroll_visible(animate=False, top=True)
        await pilot.pause()
        # the whole chart is in view at once, and wide enough for its axis
        assert plot.size.height <= scroll.scrollable_content_region.height
        assert plot.size.width >= 40
        text = _plot_text(plot)
        c = plot.curves[0]
        knee = c.knee
        assert knee is not None
        # title, whole: the section, what the y axis is, the knee and the part that causes it
        assert f"rand-read-4k IOPS, knee {knee.x}: {knee.knee_cause.split(':')[0]}" in text
        assert "K" in text  # the knee's mark on the curve
        # every doubling labelled (1 job to 4 per core of the example's 16-core preset)
        assert [p.x for p in c.points] == [1, 2, 4, 8, 16, 32, 64]
        assert text.splitlines()[-1].split() == ["1", "2", "4", "8", "16", "32", "64"]
        # y labels are round figures up to the top of the curve
        top = max(p.iops for p in c.points)
        labels = [line.split("┤")[0].strip() for line in text.splitlines() if "┤" in line]
        assert f"{nice_ticks(top)[-1]:,.0f}" in labels and "0" in labels
        for p in plots:  # and no two labels on adjacent rows, where they read as one figure
            rows = [i for i, line in enumerate(_plot_text(p).splitlines()) if "┤" in line]
            assert all(b - a > 1 for a, b in itertools.pairwise(rows)), _plot_text(p)


async def test_measured_points_join_the_curves_once_validate_has_run() -> None:
    job = "[rand-read-4k]\nfilename=/dev/md0\nrw=randread\nbs=4096\ndirect=1\nioengine=libaio\niodepth=60\nnumjobs=3\n"
    fig = JobFigures(
        name="rand-read-4k",
        read_bytes_s=12_000_000,
        write_bytes_s=0,
        read_iops=2930.0,
        write_iops=0.0,
        read_p99_us=None,
        write_p99_us=None,
        runtime_ms=12000,
        io_bytes=144_000_000,
        error=0,
        steady=None,
        cpu_s=0.5,
        total_ios=35160,
    )
    report = ValidateReport(
        target="/dev/md0",
        kind="device",
        mode="quick",
        size_bytes=10**12,
        shape=ArrayShape(),
        direct=True,
        workloads=(
            WorkloadReport(
                name="rand-read-4k", status="done", block_bytes=4096, in_flight=180, figures=fig, job_file=job
            ),
        ),
        duration_s=12.0,
        partial=False,
    )
    app = PodplanApp(example_pod())
    app.measured = measured_of(report)
    async with app.run_test(size=(80, 24)) as pilot:
        plot = (await _perf_plots(pilot))[2]
        c = plot.curves[0]
        # the numjobs validate ran with is a point of the curve, measured beside predicted
        (seen,) = [p for p in c.points if p.measured is not None]
        assert seen.x == 3 and seen.measured.iops == 2930.0  # type: ignore[union-attr]
        assert seen.measured.cpu_s_per_k_ios == 0.5 / 35.16  # type: ignore[union-attr]
        assert "o" in _plot_text(plot).split("\n", 1)[1]  # the measured mark, below the title


def test_nice_ticks_are_round_and_cover_the_top() -> None:
    assert nice_ticks(3593) == [0, 2000, 4000]
    assert nice_ticks(1400) == [0, 500, 1000, 1500]
    assert nice_ticks(780) == [0, 500, 1000]
    assert nice_ticks(3593, steps=4) == [0, 1000, 2000, 3000, 4000]
    assert nice_ticks(0.9) == [0, 0.5, 1.0]
    assert nice_ticks(0) == [0.0, 1.0]


async def _random_read_curve(pilot) -> None:  # type: ignore[no-untyped-def]
    from tests.tui_helpers import no_blink

    no_blink(pilot.app)
    await pilot.app.workers.wait_for_complete()  # this host's kernel log, read after the first paint
    plots = await _perf_plots(pilot)
    plots[2].scroll_visible(animate=False, top=True)
    await pilot.pause()
    await pilot.pause()


@pytest.fixture
def no_host_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """The picture must not depend on this host's kernel log, nor on whether an earlier test of the same
    process read it, nor on when the read lands."""
    monkeypatch.setattr(PodplanApp, "_read_host_parity", lambda self: None)


def test_the_random_read_curve_at_80x24(snap_compare, no_host_cpu) -> None:  # type: ignore[no-untyped-def]
    """The random reads' curve in view: its title with the knee, the red knee line, the doubling axis."""
    assert snap_compare(PodplanApp(example_pod()), terminal_size=(80, 24), run_before=_random_read_curve)
