"""`podplan compare`: a real fio run's JSON output beside the plan's prediction for the same jobs,
the jobs read from the options fio wrote into its output, as `predict --job` predicts the job file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from app.cli.main import main
from app.shared.planfile import load_plan
from planners.perf.concurrent import predict_job_file
from planners.perf.jobfile import parse_job_file
from planners.perf.predict import geometry_for_speed
from runners.exec import have
from runners.fio.result import objects

PLAN = str(Path(__file__).parent / "fixtures" / "plans" / "pod45-priced.toml")
pytestmark = pytest.mark.skipif(not have("fio"), reason="fio is not installed")


def _job(tmp_path: Path) -> str:
    return (
        f"[global]\nfilename={tmp_path / 'f.dat'}\nsize=8m\nioengine=psync\ntime_based=1\nruntime=1\n"
        "[rr]\nrw=randread\nbs=4k\n[sw]\nstonewall\nrw=write\nbs=1m\n"
    )


def test_a_fio_output_beside_the_plan_s_prediction_for_its_own_jobs(tmp_path, capsys) -> None:
    job = tmp_path / "j.fio"
    job.write_text(_job(tmp_path))
    out = tmp_path / "out.json"
    # a --status-interval stream, as validate's runs and many scripts write it: its last object is read
    subprocess.run(
        ["fio", "--output-format=json", f"--output={out}", "--status-interval=1", str(job)],
        check=True,
        capture_output=True,
    )
    fio = objects(out.read_text())[-1]
    plan = load_plan(PLAN)
    preds = {p.workload: p for p in predict_job_file(plan, geometry_for_speed(plan), parse_job_file(job.read_text()))}
    for extra in ([], ["--job", str(job)]):
        assert main(["compare", PLAN, "--fio", str(out), *extra]) == 0
        said = capsys.readouterr().out
        rr, sw = (next(j for j in fio["jobs"] if j["jobname"] == n) for n in ("rr", "sw"))
        # measured as fio reported it; predicted as `predict --job` predicts the job file that ran
        assert f"{rr['read']['iops']:,.0f} IOPS" in said and f"{preds['rr'].iops:,.0f} IOPS" in said
        assert f"{rr['read']['iops'] / preds['rr'].iops * 100 - 100:+.0f} %" in said
        mb = sw["write"]["bw_bytes"] / 1e6
        fmt = ",.0f" if mb >= 100 else ",.1f"  # as validate's table: a decimal under 100 MB/s
        assert f"{mb:{fmt}} MB/s" in said and f"{preds['sw'].mb_s:{fmt}} MB/s" in said
        assert preds["rr"].binding in said


def test_what_is_not_fio_output_is_one_line(tmp_path, capsys) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("fio: some note\n")
    assert main(["compare", PLAN, "--fio", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "no fio JSON output in it" in err and err.count("\n") == 1
    assert main(["compare", PLAN, "--fio", str(tmp_path / "absent.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_client_server_output_adds_up_its_hosts(tmp_path, capsys) -> None:
    from tests.test_validate_hosts import servers

    job = tmp_path / "j.fio"
    job.write_text(
        f"[global]\ndirectory={tmp_path}\nsize=8m\nioengine=psync\ntime_based=1\nruntime=1\n[rr]\nrw=randread\nbs=4k\n"
    )
    out = tmp_path / "out.json"
    with servers(None, None) as ports:
        # each --client is followed by the job file it runs
        clients = [a for p in ports for a in (f"--client=ip:127.0.0.1,{p}", str(job))]
        subprocess.run(["fio", "--output-format=json", f"--output={out}", *clients], check=True, capture_output=True)
    fio = objects(out.read_text())[-1]
    hosts = [j for j in fio["client_stats"] if j["jobname"] == "rr"]
    assert len(hosts) == 2
    assert main(["compare", PLAN, "--fio", str(out)]) == 0
    said = capsys.readouterr().out
    # the array serves both hosts at once: the figure set beside the plan is their sum
    assert f"{sum(h['read']['iops'] for h in hosts):,.0f} IOPS" in said
    assert "no prediction" not in said  # the jobs read from the options fio recorded for the hosts


def test_a_job_the_job_file_lacks_is_read_at_its_own_request_size(tmp_path, capsys) -> None:
    ran = tmp_path / "ran.fio"
    ran.write_text(_job(tmp_path))
    only_sw = tmp_path / "sw.fio"
    only_sw.write_text(_job(tmp_path).replace("[rr]\nrw=randread\nbs=4k\n", ""))
    out = tmp_path / "out.json"
    subprocess.run(["fio", "--output-format=json", f"--output={out}", str(ran)], check=True, capture_output=True)
    rr = next(j for j in objects(out.read_text())[-1]["jobs"] if j["jobname"] == "rr")
    assert main(["compare", PLAN, "--fio", str(out), "--job", str(only_sw)]) == 0
    said = capsys.readouterr().out
    # 4 KiB reads in IOPS, as a predicted one would be, though nothing is set beside them
    assert f"{rr['read']['iops']:,.0f} IOPS" in said and "no prediction" in said
    assert f"rr: not predicted: {only_sw} has no such job section" in said
