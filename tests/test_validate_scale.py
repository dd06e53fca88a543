"""`validate --scale` with real fio on a directory: every point measured behind validate's guards,
with fio's CPU cost, beside the model's point; the report drawn from what was kept."""

from __future__ import annotations

import json
import os

import pytest

from app.cli.main import main
from app.cli.scale import scale_doc
from planners.example import example_pod
from planners.perf.jobfile import parse_job_file
from planners.perf.scale import parse_scale
from runners.exec import which
from runners.fio.jobs import Timing
from runners.fio.result import job_figures
from runners.validate.scale import cpu_cost, predicted_points, validate_scale

pytestmark = pytest.mark.skipif(which("fio") is None, reason="fio is not installed")

TINY = Timing(runtime_s=2, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=50.0)
JOB = "[global]\nioengine=psync\n[rr]\nrw=randread\nbs=4k\n"
MiB = 1024**2


def test_fio_cpu_seconds_are_its_percent_of_every_jobs_runtime() -> None:
    # fio with group_reporting: usr_cpu/sys_cpu are percent of job_runtime, the jobs' runtimes added
    f = job_figures(
        {
            "jobname": "x",
            "usr_cpu": 1.5,
            "sys_cpu": 18.5,
            "job_runtime": 6000,
            "read": {"io_bytes": 2 * 10**9, "total_ios": 500_000, "bw_bytes": 1, "runtime": 2000},
        }
    )
    assert f.cpu_s == pytest.approx(1.2) and f.total_ios == 500_000
    cost = cpu_cost(f, 4096)
    assert cost is not None
    assert cost.s_per_gb == pytest.approx(0.6) and cost.s_per_k_ios == pytest.approx(1.2 / 500)
    assert cost.small and not cpu_cost(f, 1 << 20).small  # type: ignore[union-attr]
    assert cpu_cost(job_figures({"jobname": "x"}), 4096) is None  # an old fio without the fields


def test_each_point_is_a_validate_run_with_its_cpu_cost(tmp_path) -> None:
    target = tmp_path / "t"
    target.mkdir()
    report = tmp_path / "rep"
    jobs = [parse_job_file(JOB)]
    axes = [parse_scale("numjobs=1,2")]
    scale = validate_scale(str(target), jobs, axes, report_dir=str(report), timing=TINY, file_size=8 * MiB)
    assert [p.point for p in scale.points] == [{"numjobs": 1}, {"numjobs": 2}]
    for p in scale.points:
        assert p.report is not None
        (w,) = p.report.workloads
        assert w.status in ("done", "partial") and w.figures and w.figures.iops > 0
        assert f"numjobs={p.point['numjobs']}" in w.job_file  # the point, as fio read it
        cost = cpu_cost(w.figures, w.block_bytes)
        assert cost and cost.cpu_s > 0 and cost.s_per_k_ios and cost.small
    # the directory is left as it was: the podplan file of each run removed
    assert os.listdir(target) == []
    kept = json.loads((report / "scale.json").read_text())
    assert [p["point"] for p in kept["points"]] == [{"numjobs": 1}, {"numjobs": 2}]
    assert sorted(os.listdir(report)) == ["numjobs-1", "numjobs-2", "scale.json"]

    # beside the model's point (the example plan: not this directory, but the arithmetic is the same)
    doc = scale_doc(str(target), example_pod(), scale, predicted_points(example_pod(), scale, jobs))
    (curve,) = doc["curves"]
    assert [p["x"] for p in curve["points"]] == [1, 2]
    for p, run in zip(curve["points"], scale.points, strict=True):
        assert p["binding"] and p["iops"] > 0
        fig = run.report.workloads[0].figures  # type: ignore[union-attr]
        assert p["measured"]["iops"] == pytest.approx(fig.iops)
        assert p["measured"]["cpu_s_per_k_ios"] == pytest.approx(fig.cpu_s / (fig.total_ios / 1000))
        assert p["measured"]["lat_p99_us"] == fig.read_latency.p99_us  # type: ignore[union-attr]

    # measured only, because the plan given does not describe the target: said so, with why
    from app.shared.report_html import render

    alone = scale_doc(str(target), None, scale, [], "a directory, the plan's volume is an LV")
    assert alone["summary"][0].startswith("the plan given was not set beside these figures")
    page = render(alone)
    assert "no plan given" not in page and "Predicted: the line" not in page
    # IOPS against latency along the sweep: a point per numjobs measured, fio's mean and p99 clat
    assert "IOPS against latency, along numjobs" in page
    lat = json.loads(page.split('id="podplan-data">')[1].split("</script>")[0])[-1]
    assert [d["kind"] for d in lat["datasets"]] == ["latency-mean", "latency-p99"]
    runs = [r.report.workloads[0].figures for r in scale.points]  # type: ignore[union-attr]
    assert lat["datasets"][1]["data"] == [
        {"x": f.iops, "y": f.read_latency.p99_us / 1000, "swept": f"numjobs={n}"}
        for n, f in zip((1, 2), runs, strict=True)
    ]


def test_validate_scale_on_the_command_line(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr("runners.fio.jobs.QUICK", TINY)  # the quick suite's timing, shortened for the test
    target = tmp_path / "t"
    target.mkdir()
    job = tmp_path / "j.fio"
    job.write_text(JOB + "size=8m\nruntime=2\n")
    report = tmp_path / "rep"
    rc = main(["validate", str(target), "--job", str(job), "--scale", "numjobs=1", "--report", str(report), "--json"])
    assert rc in (0, 1)  # 1: fio stopped it before it was steady (partial), which says so
    doc = json.loads(capsys.readouterr().out)
    (pt,) = doc["scale"]["points"]
    assert pt["point"] == {"numjobs": 1} and pt["report"]["workloads"][0]["figures"]["cpu_s"] > 0
    assert (report / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert main(["report", str(report), "-o", str(tmp_path / "again.html")]) == 0
    assert (tmp_path / "again.html").read_text() == (report / "report.html").read_text()


def test_validate_scale_without_a_job_sweeps_the_quick_suite(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr("runners.fio.jobs.QUICK", TINY)
    target = tmp_path / "t"
    target.mkdir()
    rc = main(["validate", str(target), "--scale", "numjobs=1,2", "--json"])
    assert rc in (0, 1)  # 1: a point stopped before it was steady (partial), which says so
    doc = json.loads(capsys.readouterr().out)
    suite = ["seq-read", "seq-write", "rand-read-4k", "rand-write-4k"]
    points = doc["scale"]["points"]
    assert [p["point"] for p in points] == [{"numjobs": 1}, {"numjobs": 2}]
    for p in points:
        # each workload of the suite measured at the point, as fio read it, with its CPU cost
        assert [w["name"] for w in p["report"]["workloads"]] == suite
        for w in p["report"]["workloads"]:
            assert f"numjobs={p['point']['numjobs']}" in w["job_file"]
            assert w["figures"]["total_ios"] > 0 and w["figures"]["cpu_s"] is not None
        # (fio rounds a short job's CPU share: one of them may read 0)
        assert sum(w["figures"]["cpu_s"] for w in p["report"]["workloads"]) > 0
    # one curve per workload, each point measured
    assert sorted(c["section"] for c in doc["curves"]) == sorted(suite)
    assert all(p["measured"] for c in doc["curves"] for p in c["points"])
    assert os.listdir(target) == []


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--scale", "numjobs=0"], "numjobs 0 is outside"),
        (["--scale", "numjobs=1", "--baseline"], "without --hosts or --baseline"),
    ],
)
def test_validate_scale_refuses_in_one_line(tmp_path, capsys, argv: list[str], says: str) -> None:
    assert main(["validate", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_validate_report_dir_keeps_a_page_of_the_run(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr("runners.fio.jobs.QUICK", TINY)
    monkeypatch.setattr("runners.validate.suite.QUICK", TINY)
    target = tmp_path / "t"
    target.mkdir()
    report = tmp_path / "rep"
    assert main(["validate", str(target), "--report", str(report), "--json"]) in (0, 1)
    out = json.loads(capsys.readouterr().out)
    kept = json.loads((report / "curves.json").read_text())
    # measured only (no plan): one bar per workload that ran, in validate's units (under a loaded
    # host a workload may end partial, and validate then stops: the page keeps what ran)
    units = {"seq-read": "MB/s", "seq-write": "MB/s", "rand-read-4k": "IOPS", "rand-write-4k": "IOPS"}
    ran = [w["name"] for w in out["report"]["workloads"] if w.get("figures")]
    assert ran and ran == list(units)[: len(ran)]
    assert [(b["workload"], b["metric"]) for b in kept["bars"]] == [(name, units[name]) for name in ran]
    rows = {row["workload"]: row for row in out["side_by_side"]}
    for b in kept["bars"]:
        row = rows[b["workload"]]
        assert b["measured"] == (row["measured_mb_s"] if b["metric"] == "MB/s" else row["measured_iops"])
        assert b["predicted"] is None
    page = (report / "report.html").read_text()
    assert "<canvas" in page
    # each workload fio ran: its figure named, fio's whole run, the window's spread and latency, as
    # fio's own JSON (kept beside the page, one document a run) gives them
    assert "no plan given: measured only" in kept["summary"]
    for i, (p, w) in enumerate(zip(kept["points"], out["report"]["workloads"], strict=False), 1):
        fio = json.loads((report / f"job-{i:02d}.json").read_text())["jobs"][0]
        side = fio["read"] if fio["read"]["total_ios"] else fio["write"]
        m = p["measured"]
        assert p["section"] == w["name"] and m["run_iops"] == side["iops"]
        assert m["lat_mean_us"] == side["clat_ns"]["mean"] / 1000
        assert m["lat_p99_9_us"] == side["clat_ns"]["percentile"]["99.900000"] / 1000
        ss = fio["steadystate"]["data"]
        assert (m["low_iops"], m["high_iops"]) == (min(ss["iops"]), max(ss["iops"]))
        assert f"<td>{p['section']}</td>" in page
    # what validate said under its table is on the page too
    assert "no prediction: pass --plan PLAN.toml" in page and kept["notes"]


def test_a_job_s_own_size_is_the_size_fio_runs_with(tmp_path) -> None:
    from runners.validate.suite import validate

    target, report = tmp_path / "t", tmp_path / "rep"
    target.mkdir()
    jf = parse_job_file("[global]\nioengine=psync\n[rr]\nrw=randread\nbs=4k\nsize=4m\n")
    validate(str(target), jobs=[jf], timing=TINY, file_size=8 * MiB, report_dir=str(report))
    fio = json.loads((report / "job-01.json").read_text())
    # fio's own record of what it ran: the section's 4 MiB, not podplan's 8 MiB file
    assert fio["jobs"][0]["job options"]["size"] == str(4 * MiB)
    assert fio["global options"]["size"] == str(8 * MiB)


def test_the_sweep_is_a_validate_session_that_checks_the_plan_first(tmp_path, monkeypatch) -> None:
    """The use case the command line renders: a plan of other storage said before fio, then not set
    beside the figures; fio's progress as the validate session's own events, each tagged with its point."""
    from app.usecases.validate import PlanMismatched, WorkloadProgressed
    from app.usecases.validate_scale import ValidateScaleRequest, validate_scale_session

    monkeypatch.setattr("runners.fio.jobs.QUICK", TINY)
    target = tmp_path / "t"
    target.mkdir()
    job = tmp_path / "j.fio"
    job.write_text(JOB + "size=8m\n")
    events: list[object] = []
    req = ValidateScaleRequest(str(target), (parse_scale("numjobs=1"),), example_pod(), job_paths=(str(job),))
    out = validate_scale_session(req, events.append)
    assert isinstance(events[0], PlanMismatched) and out.mismatch == events[0].why
    assert out.plan is None and out.predictions == ()
    assert {e.workload for e in events if isinstance(e, WorkloadProgressed)} == {"rr numjobs=1"}
    assert [p.point for p in out.scale.points] == [{"numjobs": 1}] and os.listdir(target) == []
