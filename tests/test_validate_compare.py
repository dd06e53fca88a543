"""Measured beside predicted: the percent, the binding term, and reasons only past 20 %."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from planners.example import example_pod
from runners.fio.jobs import QUICK, ArrayShape, Target, suite
from runners.fio.result import JobFigures, Steady
from runners.validate.compare import Conditions, likely_reasons, load_predictions, model_workloads, side_by_side
from runners.validate.suite import ValidateReport, WorkloadReport


def _report(mb_s=100.0, iops=1000.0, steady=True, direct=True) -> ValidateReport:
    target = Target(path="/dev/md0", kind="device", size_bytes=1 << 30)
    shape = ArrayShape(full_stripe_bytes=13 * 512 * 1024, disks=15)
    rows = []
    for w in suite(target, shape, QUICK):
        f = JobFigures(
            name=w.name,
            read_bytes_s=int(mb_s * 1e6),
            write_bytes_s=0,
            read_iops=iops,
            write_iops=0,
            read_p99_us=1.0,
            write_p99_us=None,
            runtime_ms=5000,
            io_bytes=1,
            error=0,
            steady=Steady(criterion="bw_slope:2%", attained=steady, window_s=5, measured="1%"),
        )
        rows.append(
            WorkloadReport(
                name=w.name,
                status="done",
                block_bytes=w.block_bytes,
                in_flight=w.in_flight,
                figures=f,
                job_file=w.job.text,
            )
        )
    return ValidateReport(
        target="/dev/md0",
        kind="device",
        mode="quick",
        size_bytes=1 << 30,
        shape=shape,
        direct=direct,
        workloads=tuple(rows),
        duration_s=30.0,
        partial=False,
    )


def _pred(name, mb_s, iops, binding="disks"):
    return SimpleNamespace(workload=name, mb_s=mb_s, iops=iops, binding=binding)


def test_within_20_percent_gives_no_reasons_beyond_gives_some():
    preds = [
        _pred("seq-read", 110.0, 0),
        _pred("seq-write", 200.0, 0),
        _pred("rand-read-4k", 0, 1000.0),
        _pred("rand-write-4k", 0, 500.0),
    ]
    rows = {r.workload: r for r in side_by_side(_report(), preds)}
    assert round(rows["seq-read"].diff_pct) == -9 and rows["seq-read"].reasons == ()
    assert rows["seq-write"].diff_pct == -50 and rows["seq-write"].reasons
    assert rows["rand-read-4k"].diff_pct == 0 and rows["rand-write-4k"].diff_pct == 100
    assert rows["seq-read"].binding == "disks"


def test_no_model_means_no_prediction():
    rows = side_by_side(_report(), None)
    assert all(r.predicted_mb_s is None and r.diff_pct is None for r in rows)
    assert rows[0].measured_mb_s == 100.0


def test_reasons_name_the_conditions():
    cond = Conditions(
        resync="resync",
        stripe_cache_size=256,
        slow_disks=("/dev/sdc",),
        readahead_bytes=128 * 1024,
        full_stripe_bytes=6 * 512 * 1024,
    )
    r = likely_reasons("seq-write", -40.0, cond, steady=False, direct=True)
    assert any("resync" in x for x in r) and any("/dev/sdc" in x for x in r)
    assert any("stripe_cache_size" in x for x in r) and any("never found the workload steady" in x for x in r)
    r = likely_reasons("seq-read", -40.0, cond, steady=True, direct=False)
    assert any("readahead 128 KiB is below two full stripes" in x for x in r)
    assert likely_reasons("seq-read", 40.0, Conditions(), True, True)[0].startswith("faster than the model")
    # Far faster reads than the disks can give: the blocks were likely never written.
    assert any("never written" in x for x in likely_reasons("seq-read", 300.0, Conditions(), True, True))
    assert not any("never written" in x for x in likely_reasons("seq-write", 300.0, Conditions(), True, True))


def test_the_model_is_asked_about_the_workloads_that_ran():
    report = _report()
    ws = model_workloads(report)
    assert [w.name for w in ws] == [w.name for w in report.workloads]
    rr = ws[2]
    assert rr.bs == 4096 and rr.numjobs * rr.iodepth == report.workloads[2].in_flight
    preds = load_predictions(example_pod(), report)
    assert [p.workload for p in preds] == [w.name for w in report.workloads]
    assert all(p.mb_s > 0 and p.binding for p in preds)


def test_a_plan_of_the_same_size_differs_only_in_what_it_stands_on():
    """plan_mismatch names each way the plan is not the target, and only those."""
    from runners.exec import have
    from runners.probes.loopdev import sparse_loop
    from runners.validate.shape import plan_mismatch

    if not have("losetup") or os.geteuid() != 0:
        pytest.skip("needs root and losetup for a loop device")
    from planners.compute import compute
    from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan

    plan = Plan(
        name="pair",
        disks=[DiskSet(count=2, size=256 * 1024**2)],
        groups=[MdGroup(name="md0", level=1, members=2)],
        lvm=Lvm(enabled=False),
        filesystem=Filesystem(type="ext4"),
    )
    size = compute(plan).volumes[0].block_device_bytes
    with sparse_loop(size) as dev:
        found = plan_mismatch(dev, plan)
    assert len(found) == 1 and found[0].startswith("the target stands on 1 disk (loop"), found
    assert found[0].endswith("the plan on 2")


def test_a_loop_device_is_named_as_the_reason_a_read_is_too_fast():
    why = likely_reasons("seq-read", 20000.0, Conditions(loop=True), True, True)
    assert why[0].startswith("the target is a loop device") and "measure the real disks" in why[0]
    assert not any("write the target once" in w for w in why)


def test_sections_that_ran_together_are_compared_with_their_shared_prediction():
    """validate --job ran two sections in one fio run: the model shares the array between them."""
    from planners.perf.jobfile import parse_job_file
    from runners.fio.jobs import user_phase

    target = Target(path="/dev/md0", kind="device", size_bytes=1 << 40)
    jf = parse_job_file("[global]\nrw=read\nbs=1m\ndirect=1\nioengine=libaio\niodepth=64\n[a]\n[b]\n")
    ran = user_phase(jf.workloads, target, QUICK)
    rows = tuple(
        WorkloadReport(
            name=w.name,
            status="done",
            block_bytes=w.block_bytes,
            in_flight=w.in_flight,
            job_file=w.job.text,
            run=w.job.name,
        )
        for w in ran
    )
    report = _report().model_copy(update={"workloads": rows})
    together = load_predictions(example_pod(), report)
    alone = load_predictions(example_pod(), report.model_copy(update={"workloads": rows[:1]}))
    assert [p.binding for p in together] == ["sections at once"] * 2
    assert together[0].mb_s < alone[0].mb_s


@pytest.mark.root
@pytest.mark.parametrize("dio", ["on", "off"])
def test_a_loop_device_with_direct_io_is_not_blamed_on_the_page_cache(tmp_path, dio):
    """losetup --direct-io=on reads the backing file with O_DIRECT: nothing of it sits in the page cache
    (/sys/block/loopN/loop/dio says 1). The backing file is on a disk filesystem, which takes O_DIRECT."""
    import subprocess

    from runners.validate.compare import gather_conditions

    if os.geteuid() != 0:
        pytest.skip("loop devices need root")
    image = tmp_path / "backing.img"
    image.write_bytes(b"")
    os.truncate(image, 64 << 20)
    dev = subprocess.run(
        ["losetup", "-f", "--show", f"--direct-io={dio}", str(image)], capture_output=True, text=True, check=True
    ).stdout.strip()
    try:
        with open(f"/sys/block/{os.path.basename(dev)}/loop/dio") as f:
            if f.read().strip() != ("1" if dio == "on" else "0"):
                pytest.skip(f"the filesystem under {tmp_path} does not take O_DIRECT: dio stays off")
        cond = gather_conditions(dev)
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)
    assert cond.loop is (dio == "off") and not cond.stacked
    why = likely_reasons("seq-read", 200.0, cond, True, True)
    assert any("page cache" in w for w in why) is (dio == "off")


def test_a_slow_plain_disk_is_not_sent_to_the_baseline():
    """The per-disk baseline reads md members and PVs only: a plain disk is pointed at its class instead."""
    plain = likely_reasons("rand-read-4k", -40.0, Conditions(stacked=False), True, True)
    assert not any("baseline" in w for w in plain) and "the disk's class in the plan" in plain[0]
    md = likely_reasons("rand-read-4k", -40.0, Conditions(), True, True)
    assert "per-disk baseline (--baseline)" in md[0]
