"""Job files are data: shapes that keep every disk busy, and text plain fio accepts as it is."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planners.perf.workloads import MAX_DEPTH_PER_JOB, RANDOM_DEPTH_PER_DISK
from runners.exec import have, run
from runners.fio.jobs import (
    QUICK,
    WORKLOADS,
    ArrayShape,
    Target,
    Timing,
    fio_argv,
    random_depth,
    seq_shape,
    suite,
)

KiB, MiB = 1024, 1024**2
DEV = Target(path="/dev/md0", kind="device", size_bytes=10 * 1024**3)


@given(
    stripe=st.sampled_from([0, 64 * KiB, 512 * KiB, 13 * 512 * KiB, 3 * MiB, 64 * MiB]),
    stripes=st.integers(1, 8),
    logical=st.sampled_from([512, 4096]),
)
def test_seq_keeps_two_full_stripes_in_flight_per_array(stripe, stripes, logical):
    bs, depth = seq_shape(ArrayShape(full_stripe_bytes=stripe, stripes=stripes, logical_block=logical))
    assert bs % logical == 0 and bs > 0
    assert depth >= 2
    assert bs * depth >= 2 * stripe * stripes


def test_seq_block_is_one_full_stripe_when_known():
    # 13 data disks x 512 KiB: md writes whole stripes and computes parity without reading back.
    assert seq_shape(ArrayShape(full_stripe_bytes=13 * 512 * KiB)) == (13 * 512 * KiB, 2)
    assert seq_shape(ArrayShape()) == (MiB, 2)


@given(disks=st.integers(1, 400))
def test_random_depth_covers_every_disk(disks):
    jobs, depth = random_depth(ArrayShape(disks=disks))
    assert jobs * depth >= RANDOM_DEPTH_PER_DISK * disks
    assert depth <= MAX_DEPTH_PER_JOB
    assert jobs * depth < RANDOM_DEPTH_PER_DISK * disks + jobs + 16  # not wildly more either


def test_suite_names_order_and_writes():
    ws = suite(DEV, ArrayShape(disks=45))
    assert [w.name for w in ws] == list(WORKLOADS)
    assert [w.writes for w in ws] == [False, True, False, True]
    rr = ws[2]
    assert "numjobs=3" in rr.job.text and "iodepth=60" in rr.job.text and rr.in_flight == 180
    assert "steadystate=iops_slope:2%" in rr.job.text and "steadystate=bw_slope:2%" in ws[0].job.text


def test_file_target_keeps_its_file_for_podplan_to_remove():
    ws = suite(Target(path="/srv/x/.podplan-fio-1.dat", kind="file", size_bytes=64 * MiB), ArrayShape())
    assert all("unlink=0" in w.job.text for w in ws)
    assert "unlink" not in suite(DEV, ArrayShape())[0].job.text


def test_argv_streams_json_to_its_own_file():
    assert fio_argv("a.fio", "a.json") == [
        "fio",
        "--output-format=json",
        "--output=a.json",
        "--status-interval=1",
        "a.fio",
    ]
    assert fio_argv("a.fio", "a.json", status_interval=0)[-2] == "--output=a.json"


@pytest.mark.skipif(not have("fio"), reason="fio is not installed")
@pytest.mark.parametrize("kind", ["device", "file"])
def test_plain_fio_parses_every_job_file(tmp_path, kind):
    target = DEV if kind == "device" else Target(path=str(tmp_path / "f.dat"), kind="file", size_bytes=64 * MiB)
    for w in suite(target, ArrayShape(full_stripe_bytes=6 * 512 * KiB, disks=8), QUICK):
        path = tmp_path / f"{w.name}.fio"
        path.write_text(w.job.text)
        out = run(["fio", "--parse-only", str(path)], timeout=30)
        assert out.returncode == 0, out.stderr


@given(
    stripe=st.sampled_from([0, 64 * KiB, 512 * KiB, 13 * 512 * KiB, 3 * MiB, 64 * MiB]),
    stripes=st.integers(1, 8),
    disks=st.integers(1, 300),
    logical=st.sampled_from([512, 4096]),
)
def test_the_model_predicts_the_jobs_validate_runs(stripe, stripes, disks, logical):
    from planners.perf.workloads import VALIDATION, for_plan

    shape = ArrayShape(full_stripe_bytes=stripe, stripes=stripes, disks=disks, logical_block=logical)
    ran = {w.name: dict(w.job.jobs[0][1]) for w in suite(DEV, shape)}
    for preset in VALIDATION:
        w = for_plan(preset, stripe, stripes=stripes, disks=disks, logical_block=logical)
        opts = ran[w.name]
        assert (w.rw, w.bs, w.iodepth, w.numjobs) == (
            opts["rw"],
            int(opts["bs"]),
            int(opts["iodepth"]),
            int(opts["numjobs"]),
        )


def test_each_job_file_names_its_target_once():
    # fio adds a job's filename to the one [global] gave: the same device named twice is two
    # files served in turn at the same offsets, and md merges the repeated writes.
    for w in suite(DEV, ArrayShape(full_stripe_bytes=MiB, disks=6)):
        assert w.job.text.count("filename=") == 1, w.job.text


def test_no_job_asks_fio_for_a_zero_steady_state_ramp():
    # fio 3.33 divides by the milliseconds since a job began at its first steady-state check when
    # the ramp is zero; a check in that first millisecond killed fio with SIGFPE on a loaded host.
    none = Timing(runtime_s=2, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=50.0)
    for timing, ramp in ((none, "1ms"), (QUICK, str(QUICK.ss_ramp_s))):
        for w in suite(DEV, ArrayShape(disks=4), timing):
            assert f"steadystate_ramp_time={ramp}\n" in w.job.text
            assert "steadystate_ramp_time=0\n" not in w.job.text
