"""Real fio on files: progress arrives, steady state is reported, Ctrl+C stops fio and keeps
what it measured, and the suite's file is gone afterwards whatever happened."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from runners.exec import have
from runners.fio.jobs import Timing
from runners.fio.result import parse_output
from runners.validate.guard import GuardError
from runners.validate.suite import validate

MiB = 1024**2
FAST = Timing(runtime_s=2, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=50.0)
ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not have("fio"), reason="fio is not installed")


def _leftovers(d: Path) -> list[str]:
    return [p.name for p in d.iterdir() if p.name.startswith(".podplan")]


def test_directory_suite_reports_files_and_cleans_up(tmp_path):
    data, rep_dir = tmp_path / "data", tmp_path / "report"
    data.mkdir()
    events = []
    rep = validate(
        str(data),
        timing=FAST,
        file_size=32 * MiB,
        report_dir=str(rep_dir),
        on_progress=lambda n, e, t, f: events.append((n, e)),
    )
    assert rep.kind == "file" and not rep.partial
    assert [w.status for w in rep.workloads] == ["done"] * 4
    for i, w in enumerate(rep.workloads, 1):
        assert w.figures.bytes_s > 0 and w.figures.steady is not None
        # named by the order they ran, never by the section (a user's job file names those)
        assert (rep_dir / f"job-{i:02d}.fio").read_text() == w.job_file
        assert parse_output((rep_dir / f"job-{i:02d}.json").read_text()).jobs
        assert (w.name, "start") in events and (w.name, "end") in events
    assert json.loads((rep_dir / "report.json").read_text())["target"] == str(data)
    assert _leftovers(data) == []
    read = _fio_plot_reads(rep_dir, tmp_path / "chart.png")
    # every run, read by fio-plot as fio wrote it (report.json beside them is skipped with a note)
    for i, (name, rw, way, iops) in enumerate(read, 1):
        job = json.loads((rep_dir / name).read_text())["jobs"][0]
        assert (name, rw) == (f"job-{i:02d}.json", job["job options"]["rw"])
        assert iops == job[way]["iops"] and iops > 0
    assert len(read) == 4
    assert (tmp_path / "chart.png").read_bytes().startswith(b"\x89PNG")


# fio-plot (a dev dependency) run on the kept directory: its own reader (fiolib.getdata.get_json_data:
# list_json_files, json.load of each file whole, parse_json_data) for each job's rw, iodepth and numjobs,
# then its command line drawing one IOPS and latency chart (-l) to a PNG.
FIO_PLOT = """
import json, sys
from fio_plot import main
from fio_plot.fiolib import defaultsettings, getdata

directory, png, points = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
read = []
for rw, depth, jobs in points:
    s = {**defaultsettings.get_default_settings(), "input_directory": [directory], "rw": rw}
    s.update(iodepth=[depth], numjobs=[jobs])
    s = getdata.configure_default_settings(s, getdata.get_routing_dict(), "bargraph2d_qd")
    for d in getdata.get_json_data(s):
        read += [[f.rsplit("/", 1)[1], rw, row["type"], row["iops"]] for f, row in zip(d["files"], d["data"])]
print("read:", json.dumps(read), flush=True)
rw, depth, jobs = points[-1]
sys.argv = ["fio-plot", "-i", directory, "-T", "kept", "-l", "-r", rw, "-d", str(depth), "-n", str(jobs), "-o", png]
main()
"""


def _fio_plot_reads(d: Path, png: Path) -> list[list]:
    """[file, rw, direction, IOPS] of each run fio-plot read from a kept directory (one JSON document
    per file, else its json.load exits); the last run's chart drawn to png on the way."""
    points = []
    for name in sorted(os.listdir(d)):
        if name.startswith("job-") and name.endswith(".json"):
            opts = json.loads((d / name).read_text())["jobs"][0]["job options"]
            points.append([opts["rw"], int(opts["iodepth"]), int(opts["numjobs"])])
    p = subprocess.run(
        [sys.executable, "-c", FIO_PLOT, str(d), str(png), json.dumps(points)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(next(ln for ln in p.stdout.splitlines() if ln.startswith("read: "))[6:])


def test_cancel_stops_fio_keeps_partial_figures_and_removes_the_file(tmp_path):
    cancel = threading.Event()
    seen_file = []

    def on_progress(name, event, elapsed, figures):
        if event == "progress" and figures and figures.io_bytes:
            seen_file.extend(_leftovers(tmp_path))
            cancel.set()

    t0 = time.monotonic()
    rep = validate(
        str(tmp_path),
        timing=Timing(runtime_s=30, ss_duration_s=30, ss_ramp_s=0, ss_slope_pct=0.01),
        file_size=32 * MiB,
        on_progress=on_progress,
        cancel=cancel,
    )
    assert time.monotonic() - t0 < 20
    assert seen_file  # the file existed while fio ran...
    assert _leftovers(tmp_path) == []  # ...and is gone
    first = rep.workloads[0]
    assert first.status == "partial" and first.reason == "interrupted" and first.figures.io_bytes > 0
    assert rep.partial and rep.stopped == "interrupted"
    assert all(w.status == "skipped" for w in rep.workloads[1:])


def test_missing_fio_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("runners.exec.which", lambda tool: None)
    monkeypatch.setattr("runners.validate.suite.which", lambda tool: None)
    with pytest.raises(GuardError, match=r"^fio not found: install fio \(apt-get install fio\)$"):
        validate(str(tmp_path), timing=FAST)


def _cli(*args, env=None, timeout=60, **kw):
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        **kw,
    )


def test_cli_one_line_errors(tmp_path):
    out = _cli("validate", str(tmp_path), env={"PATH": str(tmp_path)})
    assert out.returncode == 2 and out.stderr.strip() == "podplan: fio not found: install fio (apt-get install fio)"
    out = _cli("validate", str(tmp_path / "nope"))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "no such device or directory" in out.stderr
    out = _cli("validate", str(tmp_path), "--destroy-data", "/dev/null")
    assert out.returncode == 2 and "is a directory" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.skipif(os.geteuid() != 0 or not have("setpriv"), reason="needs root to drop to an unprivileged user")
def test_cli_permission_error_is_one_line(tmp_path):
    tmp_path.chmod(0o755)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)  # reachable, not writable: the test file cannot be created
    out = subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-m",
            "app.cli.main",
            "validate",
            str(locked),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if "Permission denied" in out.stderr and "python" in out.stderr.lower():
        pytest.skip("the interpreter is not readable by an unprivileged user here")
    if "No module named 'app'" in out.stderr:
        pytest.skip(f"the checkout {ROOT} is not readable by an unprivileged user here (a home directory of mode 700?)")
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "permission denied" in out.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_cli_ctrl_c_removes_the_file_and_exits_130(tmp_path, sig):
    # As a terminal would start it: a parallel test runner's workers ignore SIGINT, and a child inherits that.
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "validate", str(tmp_path), "--full", "--json"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while not _leftovers(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.5)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert _leftovers(tmp_path) == []
    report = json.loads(out)["report"]
    assert report["partial"] and report["workloads"][0]["status"] in ("partial", "failed")
    assert "Traceback" not in err


def test_cli_on_a_loop_device_with_another_plan_says_so_and_measures_without_comparing(tmp_path):
    """The quick suite on a 256 MiB loop device with the 78 TB example plan, as a user might type it:
    podplan says first that the plan is of other storage, measures, and sets no prediction beside it."""
    from runners.probes.loopdev import sparse_loop

    plan = tmp_path / "pod.toml"
    plan.write_text(_cli("example").stdout)
    with sparse_loop(256 * MiB) as dev:
        t0 = time.monotonic()
        out = _cli("validate", dev, "--plan", str(plan), "--destroy-data", dev, "--json", timeout=150)
        took = time.monotonic() - t0
    assert out.returncode == 0, out.stderr
    assert out.stderr.startswith(f"podplan: the plan does not describe {dev}: the target's device is 256.00 MiB")
    doc = json.loads(out.stdout)
    assert doc["prediction"] is False and any("the plan on 45" in m for m in doc["plan_mismatch"])
    rows = {r["workload"]: r for r in doc["side_by_side"]}
    assert list(rows) == ["seq-read", "seq-write", "rand-read-4k", "rand-write-4k"]
    for r in rows.values():
        assert r["steady"] is not None and (r["measured_mb_s"] or 0) > 0, r
        assert r["diff_pct"] is None and r["predicted_mb_s"] is None, r
    print(f"validate --plan on a loop device: {took:.1f} s")
    assert took < 90


def test_cli_validate_records_fio_in_the_transcript_given(tmp_path):
    """`podplan --transcript FILE validate DIR`: each fio run goes into FILE (stopped here once the
    first record is in, to keep the test short), with its argv, start, duration, exit and stderr."""
    data, log = tmp_path / "data", tmp_path / "audit" / "commands.log"
    data.mkdir()
    log.parent.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "--transcript", str(log), "validate", str(data), "--json"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
    )
    deadline = time.monotonic() + 90
    records: list[dict] = []
    while not any(r["argv"][0] == "fio" for r in records) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    fio = [r for r in records if r["argv"][0] == "fio"]
    assert fio, (records, err)
    first = fio[0]
    assert {"argv", "start", "duration_s", "exit", "stderr_tail"} <= set(first)
    assert "--output-format=json" in first["argv"] and first["argv"][-1].endswith("job-01.fio")
    assert first["duration_s"] > 0 and isinstance(first["exit"], int)
    # The default transcript got none of it.
    assert not (tmp_path / "state" / "podplan" / "commands.log").exists()


def test_logs_keeps_fio_s_bw_lat_and_iops_logs_beside_each_run(tmp_path):
    from app.cli.main import main

    data, rep_dir, job = tmp_path / "data", tmp_path / "report", tmp_path / "j.fio"
    data.mkdir()
    job.write_text("[global]\nioengine=psync\n[rr]\nrw=randread\nbs=4k\nsize=4m\n")
    assert main(["validate", str(data), "--job", str(job), "--logs", "--report", str(rep_dir), "--json"]) == 0
    logs = sorted(p.name for p in rep_dir.iterdir() if p.name.endswith(".log"))
    # fio's own names: PREFIX_bw.JOB.log, and for latency clat, lat and slat (write_lat_log writes the three)
    assert {"job-01_bw.1.log", "job-01_iops.1.log", "job-01_lat.1.log", "job-01_clat.1.log"} <= set(logs)
    for name in ("job-01_bw.1.log", "job-01_iops.1.log"):
        rows = [ln.split(",") for ln in (rep_dir / name).read_text().splitlines()]
        assert rows and all(int(r[1]) > 0 for r in rows)  # time (ms), value: a line a second of averages
    assert "write_bw_log=" + str(rep_dir / "job-01") in (rep_dir / "job-01.fio").read_text()


@pytest.mark.parametrize(
    ("argv", "says"),
    [(["--logs"], "--logs keeps fio's logs in the report directory"), (["--logs", "--health"], "--logs goes with")],
)
def test_logs_needs_a_report_dir_and_a_suite(tmp_path, capsys, argv, says):
    from app.cli.main import main

    assert main(["validate", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
