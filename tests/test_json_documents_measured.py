"""The measuring side's --json documents against their schemas (see test_json_documents): validate on a
directory with the quick suite shortened, its --scale, check, --health and --burn-in on a loop device, the
hosts document and rehearse's three from constructed outcomes (one needs hosts over ssh, the other a VM)."""

from __future__ import annotations

import os

import pytest

from app.shared.planfile import plan_to_toml
from planners.compute import compute
from runners.exec import have, run, which
from runners.probes.loopdev import mounted, sparse_loops
from tests.test_direct import MiB, _plain
from tests.test_json_documents import JOB, _holds, _run
from tests.test_validate_scale import TINY

GiB = 1024 * MiB
needs_fio = pytest.mark.skipif(which("fio") is None, reason="fio is not installed")
LOOPS = os.geteuid() == 0 and have("losetup") and have("smartctl")
needs_loops = pytest.mark.skipif(not LOOPS, reason="needs root, losetup and smartctl (smartmontools) for a loop device")


@needs_fio
def test_validate_and_its_scale_sweep_print_what_their_schemas_say(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("runners.fio.jobs.QUICK", TINY)  # the quick suite's timing, shortened for the test
    target = tmp_path / "t"
    target.mkdir()
    job = tmp_path / "j.fio"
    job.write_text(JOB)
    # 1: fio stopped a workload before it was steady (partial), which the document says.
    doc = _holds(_run(["validate", str(target), "--job", str(job), "--json"], capsys, (0, 1)), "validate", capsys)
    assert doc["report"]["workloads"] and "baseline" not in doc
    argv = ["validate", str(target), "--job", str(job), "--scale", "numjobs=1", "--json"]
    doc = _holds(_run(argv, capsys, (0, 1)), "validate-scale", capsys)
    assert doc["scale"]["points"][0]["point"] == {"numjobs": 1}


@needs_loops
def test_check_health_and_burn_in_on_a_loop_device_print_what_their_schemas_say(tmp_path, capsys, monkeypatch):
    if not have("mkfs.xfs"):
        pytest.skip("needs mkfs.xfs to build the filesystem check reads")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the burn-in's state file
    with sparse_loops([700 * MiB]) as (dev,):
        plan = _plain(1, 700 * MiB, fs="xfs", physical=512, devices=[dev])
        v = compute(plan).volumes[0]
        assert v.xfs is not None
        run(["mkfs.xfs", "-q", "-f", "-K", *v.xfs.mkfs_options, dev])
        # A plan of another size: the document holds differences, not an empty list.
        path = tmp_path / "one.toml"
        path.write_text(plan_to_toml(_plain(1, 800 * MiB, fs="xfs", physical=512, devices=[dev])))
        with mounted(dev):
            doc = _holds(_run(["check", dev, "--plan", str(path), "--json"], capsys, (1,)), "check", capsys)
        assert doc["differences"]
        doc = _holds(_run(["validate", dev, "--health", "--json"], capsys), "validate-health", capsys)
        assert doc["health"][0]["device"] == dev
    with sparse_loops([4 * MiB]) as (dev,):
        doc = _holds(_run(["validate", dev, "--burn-in", "--json"], capsys), "validate-burn-in", capsys)
    assert doc["disks"][0]["done_bytes"] == 4 * MiB and doc["disks"][0]["before"]["device"] == dev


def test_validate_on_hosts_prints_what_its_schema_says(capsys, monkeypatch):
    """The hosts document from an outcome (a host that failed the pre-flight): a real run needs hosts over ssh."""
    from app.cli.validate import run_validate_hosts
    from app.usecases.validate_hosts import HostResult, HostsOutcome
    from runners.validate.hosts import HostReport, HostsReport

    host = HostReport(host="pod2", status="skipped", reason="fio is not installed there")
    done = HostsOutcome(HostsReport(target="/srv/pod", hosts=(host,), duration_s=1.5), (HostResult(host, None, ()),))
    monkeypatch.setattr("app.usecases.validate_hosts.validate_hosts_session", lambda req, said: done)
    capsys.readouterr()
    assert run_validate_hosts(
        "/srv/pod", "pod2", plan=None, full=False, as_json=True, report_dir=None, destroy_data=None
    ) in (0, 1)
    doc = _holds(capsys.readouterr().out, "validate-hosts", capsys)
    assert doc["hosts"][0]["status"] == "skipped" and doc["hosts"][0]["report"] is None


def test_rehearse_prints_what_its_schemas_say(capsys):
    """Each kind's document from a recorded outcome: a real rehearsal boots a VM (tests/test_lab_rehearse.py)."""
    from app.cli.rehearse import render_build
    from app.cli.rehearse_fail import render_failure
    from app.cli.rehearse_grow import render_growth
    from app.shared.console import cli_console
    from app.usecases.rehearse import Rehearsal
    from runners.lab.failure import FailureCheck
    from runners.lab.rehearse import Check

    err = cli_console(stderr=True)
    same = Check(layer="md", figure="md0 array size (bytes)", predicted=2_143_288_320, actual=2_143_288_320)
    vm = {"kernel": "6.1.0-28-amd64", "disk_bytes": (GiB, GiB, GiB, GiB), "script_exit_status": 0}
    build = Rehearsal("build", "collect", checks=(same,), boot_s=4.2, script_s=11.0, **vm)  # type: ignore[arg-type]
    rebuilt = FailureCheck(figure="rebuild time (s)", predicted=270.0, low=240.0, actual=262.0, tolerance=0.2)
    facts = {"group": "md0", "failed": 1, "disk_bytes_per_s": 4_000_000}
    fail = Rehearsal("fail", "collect", checks=(rebuilt,), script_s=300.0, facts=facts, **vm)  # type: ignore[arg-type]
    grow = Rehearsal("grow", "collect", checks=(same,), facts={"mode": "reshape", "grow_s": "12.5"}, **vm)  # type: ignore[arg-type]
    for render, out, name in (
        (render_build, build, "rehearse"),
        (render_failure, fail, "rehearse-failure"),
        (render_growth, grow, "rehearse-growth"),
    ):
        capsys.readouterr()
        render(out, err, True)
        doc = _holds(capsys.readouterr().out, name, capsys)
        assert doc["all_match"] and doc["checks"][0]["match"]


@needs_fio
def test_compare_prints_what_its_schema_says(tmp_path, capsys):
    """A real fio output (two jobs, one of them run as two clones) beside the plan: the figures are fio's,
    added up over the clones, and the prediction is predict --job's on the job options fio recorded."""
    import json
    from pathlib import Path

    from tests.test_compare import PLAN

    job = tmp_path / "j.fio"
    job.write_text(
        f"[global]\ndirectory={tmp_path}\nsize=8m\nioengine=psync\ntime_based=1\nruntime=1\n"
        "[rr]\nrw=randread\nbs=4k\nnumjobs=2\n[sw]\nstonewall\nrw=write\nbs=1m\n"
    )
    out = tmp_path / "out.json"
    run(["fio", "--output-format=json", f"--output={out}", str(job)], timeout=60)
    fio = json.loads(out.read_text())
    doc = _holds(_run(["compare", PLAN, "--fio", str(out), "--json"], capsys), "compare", capsys)
    predicted = json.loads(_run(["predict", PLAN, "--job", str(job), "--json"], capsys))["predictions"]
    rr, sw = doc["jobs"]
    clones = [j for j in fio["jobs"] if j["jobname"] == "rr"]
    assert (rr["job"], rr["metric"], rr["entries"], rr["figures"]) == ("rr", "IOPS", 2, None)
    assert rr["measured"] == sum(j["read"]["iops"] for j in clones)
    assert rr["predicted"] == next(p["iops"] for p in predicted if p["workload"] == "rr")
    assert rr["diff_pct"] == (rr["measured"] - rr["predicted"]) / rr["predicted"] * 100
    assert any(n.startswith("rr: 2 entries") for n in doc["notes"])
    one = next(j for j in fio["jobs"] if j["jobname"] == "sw")
    assert (sw["metric"], sw["entries"], sw["measured"]) == ("MB/s", 1, one["write"]["bw_bytes"] / 1e6)
    assert sw["figures"]["lat_p99_us"] == one["write"]["clat_ns"]["percentile"]["99.000000"] / 1000
    assert doc["fio_version"] == fio["fio version"] and doc["report"] is None and Path(doc["fio"]) == out
