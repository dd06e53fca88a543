"""The HTML report opened in a real headless browser (Debian's chromium driven by Playwright):
no console errors, no network, each chart with its curves' points, and it prints to PDF."""

from __future__ import annotations

import os
import shutil

import pytest

from app.cli.scale import curves_doc
from app.shared.curves import Measured, curves, point_key
from app.shared.report_html import render
from planners.example import example_pod
from planners.perf.jobfile import parse_job_file
from planners.perf.predict import geometry_for_speed
from planners.perf.scale import parse_scale, sweep_job
from tests.test_perf_scale import JOB  # the scaling tests' job: random reads, then sequential writes

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (scripts/dev.sh installs it)"
)


def _doc() -> dict:
    plan = example_pod()
    result = geometry_for_speed(plan)
    axes = [parse_scale("numjobs=1..1024x2")]  # the random reads flatten past 256 jobs
    preds = sweep_job(plan, result, parse_job_file(JOB), axes)
    # two measured points on the random reads, as validate --scale would keep them
    measured = {
        point_key("randread", {"numjobs": n}): Measured(
            mb_s=1.0 * n,
            iops=250.0 * n,
            cpu_s_per_gb=2.0,
            cpu_s_per_k_ios=0.01,
            window=True,
            window_s=5,
            run_mb_s=1.2 * n,
            run_iops=300.0 * n,
            sigma_iops=12.5 * n,
            low_iops=230.0 * n,
            high_iops=270.0 * n,
            lat_mean_us=400.0 * n,
            lat_p50_us=380.0 * n,
            lat_p99_us=900.0 * n,
            lat_p99_9_us=1500.0 * n,
        )
        for n in (1, 8)
    }
    return curves_doc(
        "pod45 </script> scaling", ["plan pod45"], [a.model_dump() for a in axes], curves(preds, "numjobs", measured)
    )


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-background-networking"]
        )
        yield b
        b.close()


def test_the_report_opens_offline_with_every_point_and_prints(browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    page_file = tmp_path / "report.html"
    page_file.write_text(render(_doc()), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    problems: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: requests.append(r.url) if not r.url.startswith("file:") else None)
    page.goto(page_file.as_uri())
    page.wait_for_function("() => window.Chart && document.querySelectorAll('canvas').length === 3")
    assert problems == []
    assert requests == []  # self-contained: nothing fetched
    charts = page.evaluate("""() => [...document.querySelectorAll('canvas')].map(c => {
        const ch = Chart.getChart(c);
        return {w: c.width, h: c.height,
                sets: ch.data.datasets.map(d => [d.kind, d.data.length]),
                ticks: ch.scales.x.ticks.map(t => t.label)};
    })""")
    rr, sw, lat = charts
    assert rr["sets"] == [["predicted", 11], ["measured", 2], ["knee", 1]]
    # IOPS against latency along the numjobs sweep: a point per measured numjobs, mean and p99
    assert lat["sets"] == [["latency-mean", 2], ["latency-p99", 2]]
    assert sw["sets"] == [["predicted", 11], ["knee", 1]]
    assert rr["ticks"] == ["1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024"]
    assert all(c["w"] > 300 and c["h"] > 150 for c in charts)
    # the title's text stays text (escaped), the table has a row per point
    assert page.title() == "pod45 </script> scaling"
    assert page.locator("table:not(.points) tbody tr").count() == 22  # 11 points of each section
    # each measured point: the compared figure named, fio's whole run, the window's spread, latency
    cells = page.locator("table.points tbody tr").nth(1).locator("td").all_inner_texts()
    assert cells == [
        "randread",
        "numjobs=8",
        "steady window 2,000 IOPS",
        "whole run 2,400 IOPS",
        "\u03c3 100, 1,840-2,160 IOPS over 5 s",
        "3.20 msec",
        "3.04 msec",
        "7.20 msec",
        "12.00 msec",
    ]
    colours = page.evaluate("""() => Chart.getChart(document.querySelector('canvas')).data.datasets
        .map(d => d.borderColor)""")
    assert colours[0] != colours[1]  # predicted and measured each in a colour, not only a marker
    assert page.locator("tr.knee").count() == 2
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    pdf = page.pdf()
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    page.close()


def _suite_report():  # type: ignore[no-untyped-def]
    """A quick suite's report as validate keeps it (figures as fio gave them on a small array)."""
    from runners.fio.jobs import ArrayShape
    from runners.fio.result import JobFigures
    from runners.validate.suite import ValidateReport, WorkloadReport

    shapes = {
        "seq-read": ("read", 1 << 20, 1, 2, 900e6),
        "seq-write": ("write", 1 << 20, 1, 2, 450e6),
        "rand-read-4k": ("randread", 4096, 1, 16, 8e6),
        "rand-write-4k": ("randwrite", 4096, 1, 16, 2e6),
    }
    out = []
    for name, (rw, bs, jobs, depth, bw) in shapes.items():
        side = "read" if "read" in rw else "write"
        fig = JobFigures(
            name=name,
            read_bytes_s=int(bw) if side == "read" else 0,
            write_bytes_s=int(bw) if side == "write" else 0,
            read_iops=bw / bs if side == "read" else 0,
            write_iops=bw / bs if side == "write" else 0,
            read_p99_us=None,
            write_p99_us=None,
            runtime_ms=2000,
            io_bytes=int(2 * bw),
            error=0,
            steady=None,
            cpu_s=0.4,
            total_ios=int(2 * bw / bs),
        )
        job = f"[{name}]\nrw={rw}\nbs={bs}\ndirect=1\nioengine=libaio\niodepth={depth}\nnumjobs={jobs}\n"
        out.append(
            WorkloadReport(name=name, status="done", block_bytes=bs, in_flight=jobs * depth, figures=fig, job_file=job)
        )
    return ValidateReport(
        target="/dev/md0",
        kind="device",
        mode="quick",
        size_bytes=10**12,
        shape=ArrayShape(),
        direct=True,
        workloads=tuple(out),
        duration_s=8.0,
        partial=False,
    )


def _kept_and_opened(browser, tmp_path, canvases: int = 0):  # type: ignore[no-untyped-def]
    """The report a validate run kept in tmp_path, drawn again by `podplan report DIR` (the same page from
    what the run kept), then opened: every chart drawn (`canvases` of them, or any), no console error."""
    from app.cli.main import main

    again = tmp_path / "again.html"
    assert main(["report", str(tmp_path), "-o", str(again)]) == 0
    assert again.read_text() == (tmp_path / "report.html").read_text()
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto((tmp_path / "report.html").as_uri())
    count = f"=== {canvases}" if canvases else "> 0"
    page.wait_for_function(f"() => window.Chart && document.querySelectorAll('canvas').length {count}")
    assert problems == []
    return page


def test_a_validate_report_draws_bars_baseline_and_curves(browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from app.shared.validate_report import validate_doc, write_report
    from runners.fio.baseline import Baseline, DiskBaseline
    from runners.validate.compare import Conditions, load_predictions, side_by_side

    plan = example_pod()
    report = _suite_report()
    # a gap the terminal explains (a loop device read through the page cache, a slow member) ...
    rows = side_by_side(report, load_predictions(plan, report), Conditions(loop=True, slow_disks=("/dev/sdc",)))
    base = Baseline(
        disks=tuple(
            DiskBaseline(
                device=f"/dev/sd{c}",
                outer_mb_s=140.0 if c == "c" else 200.0,
                inner_mb_s=100.0,
                rand_read_iops=150.0,
                slow=("outer",) if c == "c" else (),
            )
            for c in "abcd"
        ),
        medians={"outer": 200.0},
        job_file="",
        partial=False,
    )
    write_report(str(tmp_path), validate_doc("/dev/md0", plan, report, rows, base))
    page = _kept_and_opened(browser, tmp_path, 7)
    sets = page.evaluate("""() => [...document.querySelectorAll('canvas')].map(c =>
        Chart.getChart(c).data.datasets.map(d => [d.kind, d.data.length]))""")
    # MB/s bars, IOPS bars (measured beside predicted), the baseline, then a curve per workload
    assert sets[:3] == [[["measured", 2], ["predicted", 2]], [["measured", 2], ["predicted", 2]], [["baseline", 4]]]
    for curve in sets[3:]:
        assert curve[0][0] == "predicted" and curve[1] == ["measured", 1]
    colours = page.evaluate(
        "() => Chart.getChart(document.querySelectorAll('canvas')[2]).data.datasets[0].backgroundColor"
    )
    assert colours[2] != colours[0]  # the slow disk stands out
    assert "slow, more than 20 % below the median: /dev/sdc (outer)" in page.content()
    # ... is explained on the page, in the terminal's words
    said = page.locator("ul.notes li").all_inner_texts()
    reasons = [f"{r.workload} differs by {r.diff_pct:+.0f} %: {why}" for r in rows for why in r.reasons]
    assert reasons and set(reasons) <= set(said)
    assert any("page cache" in x for x in reasons) and any("/dev/sdc" in x for x in reasons)
    assert page.pdf().startswith(b"%PDF")
    page.close()


def test_a_priced_plan_s_report_has_its_cost_table(browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    from app.shared.planfile import load_plan
    from app.shared.validate_report import validate_doc, write_report
    from runners.validate.compare import load_predictions, side_by_side

    plan = load_plan(str(Path(__file__).parent / "fixtures" / "plans" / "pod45-priced.toml"))
    report = _suite_report()
    write_report(
        str(tmp_path),
        validate_doc("/dev/md0", plan, report, side_by_side(report, load_predictions(plan, report)), None),
    )
    page = _kept_and_opened(browser, tmp_path)
    assert page.locator("h2", has_text="Cost (USD)").count() == 1
    rows = page.evaluate("""() => [...document.querySelectorAll('table.cost tr')].map(
        tr => [...tr.querySelectorAll('td')].map(td => td.textContent))""")
    assert (
        ["total", "7,867.00"] in rows and ["per usable TiB", "111.66"] in rows and ["per usable TB", "101.56"] in rows
    )
    assert ["disks at work", "522.0 W"] in rows and ["at work per usable TiB", "7.41 W"] in rows
    page.close()
    # A plan without prices: no cost table, and the page as before.
    assert 'table class="cost"' not in render(_doc()) and "<h2>Cost" not in render(_doc())


def test_a_measured_only_curve_that_peaks_gets_its_knee_and_the_legend_says_only_what_is_drawn(
    browser, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    from planners.perf.scale import PointPrediction

    ys = {1: 100.0, 2: 180.0, 4: 200.0, 8: 190.0}  # flat past 2 jobs (+11 % then less): knee at 4
    preds = [
        PointPrediction(
            workload="randread",
            block_bytes=4096,
            mb_s=0.0,
            iops=0.0,
            binding="",
            runner_up="",
            headroom=1.0,
            terms=[],
            point={"numjobs": n},
        )
        for n in ys
    ]
    measured = {point_key("randread", {"numjobs": n}): Measured(mb_s=y * 4096 / 1e6, iops=y) for n, y in ys.items()}
    cs = curves(preds, "numjobs", measured)
    assert [p.x for p in cs[0].points if p.knee] == [4]
    assert cs[0].knee.knee_cause == "measured peak: more numjobs (up to 8) loses at least 5%"
    html = render(curves_doc("measured", ["no plan given: measured only"], [], cs))
    assert "Knee: the triangle" in html and "Measured: diamonds" in html
    assert "Predicted: the line" not in html and "outside the model" not in html


def test_a_plan_refused_for_its_target_is_said_so_not_no_plan_given() -> None:
    from app.shared.validate_report import validate_doc
    from runners.validate.compare import side_by_side

    report = _suite_report()
    why = ("/dev/md0 holds 1,000,000,000,000 bytes, the plan's volume 96 TB",)
    doc = validate_doc("/dev/md0", None, report, side_by_side(report, None), None, mismatch=why)
    assert doc["summary"][0] == "the plan given was not set beside these figures: it does not describe this target"
    assert "not compared: the plan does not describe this target (" + why[0] + ")" in doc["notes"]
    assert "no plan given" not in render(doc)
