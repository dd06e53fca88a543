"""validate's lines under its table: each workload's figure named (steady window or whole run), fio's
whole-run figure, the window's spread and latency, whole at 80 columns; read from a real fio output."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from app.cli.validate import print_report
from app.shared.curves import figure
from planners.example import example_pod
from runners.fio.jobs import ArrayShape
from runners.fio.result import parse_output
from runners.validate.compare import load_predictions, side_by_side
from runners.validate.suite import ValidateReport, WorkloadReport

FIX = Path(__file__).parent / "fixtures" / "fio"


def test_each_point_names_its_figures_with_spread_and_latency_whole_at_80_columns() -> None:
    fig = parse_output((FIX / "single.json").read_text()).jobs[0]  # a steady sequential read
    w = WorkloadReport(
        name="seq-read",
        status="done",
        block_bytes=1 << 20,
        in_flight=2,
        figures=fig,
        job_file="[seq-read]\nrw=read\nbs=1048576\niodepth=2\nnumjobs=1\n",
    )
    report = ValidateReport(
        target="/srv/data",
        kind="file",
        mode="quick",
        size_bytes=1 << 30,
        shape=ArrayShape(),
        direct=True,
        workloads=(w,),
        duration_s=6.0,
        partial=False,
    )
    buf = io.StringIO()
    plan = example_pod()
    rows = side_by_side(report, load_predictions(plan, report))
    print_report(Console(file=buf, width=80), report, rows, have_plan=True)
    out = buf.getvalue().splitlines()
    # the table fits: its p99 and steady columns give way (the lines under it say both), no figure cut
    assert all(len(ln) <= 80 for ln in out) and "\u2026" not in buf.getvalue()
    row = next(ln for ln in out if ln.startswith("\u2502 seq-read"))
    assert f"{fig.bytes_s / 1e6:,.1f}" in row and f"{rows[0].predicted_mb_s:,.0f} MB/s" in row
    assert f"{rows[0].diff_pct:+.0f} %" in row
    lines = out[max(i for i, ln in enumerate(out) if ln.startswith("\u2514")) + 1 :]
    assert lines and all(len(ln) <= 80 and "\u2026" not in ln for ln in lines)
    ss, lat = fig.steady.bytes_s_spread, fig.read_latency
    said = " ".join(" ".join(lines).split())  # a long line wraps between words, never inside a figure
    words = {w for ln in lines for w in ln.split()}
    for text in (
        f"steady window {fig.read_bytes_s / 1e6:,.0f} MB/s",
        f"whole run {fig.run_bytes_s / 1e6:,.0f} MB/s",
        f"\u03c3 {figure(ss.sigma / 1e6, 'MB/s')},",
        f"{ss.low / 1e6:,.0f}-{ss.high / 1e6:,.0f} MB/s over {fig.steady.window_s} s",
        f"latency mean {lat.mean_us:,.0f} usec, p50 {lat.p50_us:,.0f} usec, p99 {lat.p99_us:,.0f} usec",
    ):
        assert text in said, (text, said)
        assert all(w in words for w in text.split() if any(ch.isdigit() for ch in w))


def test_a_workload_fio_found_not_steady_is_named_by_its_whole_run_and_its_last_window_said_so() -> None:
    from app.shared.curves import measured_from, spread_texts

    fig = parse_output((FIX / "status_interval_steady.json").read_text()).jobs[0]
    assert fig.steady is not None and not fig.steady.attained
    named, whole, spread = spread_texts(measured_from(fig, "done", 1 << 20), "MB/s")
    assert named == f"whole run {figure(fig.bytes_s / 1e6, 'MB/s')} MB/s" and whole == ""
    assert spread.startswith("the last window fio judged (not steady): \u03c3 ")
