"""What a job does besides moving data: read/write mixes, fio's rate caps, think time and flushes,
as the job file says them and as the model prices them."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Controller, Hardware
from planners.models import DiskSet, MdGroup, Plan
from planners.perf.jobfile import parse_job_file
from planners.perf.predict import predict
from planners.perf.workloads import Workload
from planners.units import KiB


def job(text: str) -> Workload:
    [w] = parse_job_file(text).workloads
    return w


def test_mix_caps_pauses_and_flushes_are_read_as_fio_reads_them():
    w = job("[a]\nrw=randrw\nrwmixread=70\n")
    assert (w.rw, w.read_mix, w.is_random, w.writes, w.is_mix) == ("randrw", 0.7, True, True, True)
    assert job("[a]\nrw=rw\n").rw == "readwrite" and job("[a]\nrw=readwrite\n").read_mix == 0.5  # fio's 50
    # Given both, the later line wins (fio lets the latter override the former).
    assert job("[a]\nrw=randrw\nrwmixread=70\nrwmixwrite=10\n").read_mix == pytest.approx(0.9)
    assert job("[a]\nrw=randrw\nrwmixwrite=10\nrwmixread=70\n").read_mix == pytest.approx(0.7)
    # rate takes fio's sizes (k = 1024 by default) for reads,writes; one value caps both.
    assert job("[a]\nrate=500k\n").rate_bytes_s == (500 * 1024, 500 * 1024)
    assert job("[a]\nrate=,1m\n").rate_bytes_s == (None, 1024**2)
    assert job("[a]\nkb_base=1000\nrate=2m,1m\n").rate_bytes_s == (2 * 10**6, 10**6)
    assert job("[a]\nrate_iops=300,\n").rate_iops == (300, None)
    # thinktime: a bare number is microseconds.
    assert job("[a]\nthinktime=20\n").thinktime_us == 20
    w = job("[a]\nthinktime=5ms\nthinktime_blocks=4\n")
    assert (w.thinktime_us, w.thinktime_blocks) == (5000, 4)
    # Flushes: fsync commits metadata, fdatasync data alone; sync=1 (O_SYNC) flushes every write.
    w = job("[a]\nrw=write\nfsync=8\n")
    assert (w.sync_every, w.sync_metadata) == (8, True)
    assert (job("[a]\nfdatasync=1\n").sync_metadata, job("[a]\nsync=dsync\n").sync_metadata) == (False, False)
    assert job("[a]\nsync=1\n").sync_every == 1 and job("[a]\nsync=0\n").sync_every == 0


def test_what_the_job_file_says_comes_back_from_the_job_podplan_writes():
    text = (
        "[a]\nrw=randrw\nrwmixread=70\nbs=8k\nrate=1m,2m\nrate_iops=,300\nthinktime=50\n"
        "thinktime_blocks=2\nfdatasync=4\n"
    )
    w = job(text)
    again = job(w.fio_job(filename="/dev/x"))
    for field in (
        "rw",
        "read_mix",
        "rate_bytes_s",
        "rate_iops",
        "thinktime_us",
        "thinktime_blocks",
        "sync_every",
        "sync_metadata",
        "bs",
    ):
        assert getattr(again, field) == getattr(w, field), field


def raid10(n: int = 8, controller: Controller | None = None) -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=n, size=1_000_204_886_016)],
        groups=[MdGroup(name="md0", level=10, members=n, chunk=512 * KiB, bitmap="none")],
        hardware=Hardware(disk=DiskSpec(disk_class="hdd7200"), controller=controller),
    )


def one(p: Plan, w: Workload):
    (r,) = predict(p, workloads=[w])
    return r


RAND = Workload(name="r", rw="randread", bs=8 * KiB, iodepth=16)


def test_a_mix_takes_the_time_of_its_reads_and_its_writes():
    p = raid10()
    r = one(p, RAND).mb_s
    w = one(p, RAND.model_copy(update={"rw": "randwrite"})).mb_s
    for f in (0.0, 0.3, 0.7, 1.0):
        m = one(p, RAND.model_copy(update={"rw": "randrw", "read_mix": f}))
        assert min(r, w) * 0.999 <= m.mb_s <= max(r, w) * 1.001
        assert m.mb_s == pytest.approx(1 / (f / r + (1 - f) / w), rel=0.02)
    assert one(p, RAND.model_copy(update={"rw": "randrw", "read_mix": 1.0})).mb_s == pytest.approx(r)


def test_fio_rate_is_a_ceiling_of_its_own():
    w = RAND.model_copy(update={"numjobs": 2, "rate_iops": (100, None)})
    p = one(raid10(), w)
    assert p.binding == "rate limit" and p.iops == pytest.approx(200)
    # In a mix, fio keeps the capped side at its cap and issues the other side in its place (its
    # rate_ddir): writes at 50/s, reads in the time the writes leave.
    mixed = RAND.model_copy(update={"rw": "randrw", "read_mix": 0.5, "rate_iops": (None, 50)})
    r = one(raid10(), RAND).iops
    w_ = one(raid10(), RAND.model_copy(update={"rw": "randwrite"})).iops
    m = one(raid10(), mixed)
    assert m.binding == "rate limit" and m.iops == pytest.approx(50 + r * (1 - 50 / w_), rel=0.01)
    # A cap the mix never reaches changes nothing.
    loose = mixed.model_copy(update={"rate_iops": (None, 10**6)})
    assert one(raid10(), loose).iops == pytest.approx(
        one(raid10(), mixed.model_copy(update={"rate_iops": (None, None)})).iops
    )


def test_a_flush_per_write_costs_a_revolution_on_spinning_disks():
    w = Workload(name="log", rw="write", bs=8 * KiB, ioengine="psync", sync_every=1, sync_metadata=False)
    p = one(raid10(), w)
    assert p.binding == "flush"
    assert p.iops == pytest.approx(7200 / 60, rel=0.02)  # one write per turn of a 7200 rpm platter
    # On a file, fsync also commits the journal: a seek and half a turn more.
    f = one(raid10(), w.model_copy(update={"target": "file", "sync_metadata": True}))
    assert f.iops < p.iops * 0.7
    # A battery-backed controller cache answers the flush in its round trip.
    cached = one(raid10(controller=Controller(kind="raid")), w)
    assert cached.iops > 10 * p.iops


def test_think_time_adds_to_each_request():
    qd1 = RAND.model_copy(update={"iodepth": 1, "ioengine": "psync"})
    base = one(raid10(), qd1)
    paused = one(raid10(), qd1.model_copy(update={"thinktime_us": 10_000}))
    assert 1 / paused.iops == pytest.approx(1 / base.iops + 0.010, rel=0.01)


def test_io_size_ends_a_run_that_spans_more():
    w = job("[a]\nrw=write\nsize=100g\nio_size=2g\nnumjobs=2\n")
    assert (w.size, w.io_bytes, w.run_bytes) == (200 * 2**30, 4 * 2**30, 4 * 2**30)
    assert job("[a]\nbs=1m\nnumber_ios=10\n").io_bytes == 10 * 2**20
    again = job(w.fio_job(filename="/srv/x/f"))
    assert again.io_bytes == w.io_bytes


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (scripts/dev.sh setup installs it)")
def test_fio_fills_a_capped_direction_of_a_mix_with_the_other(tmp_path):
    """The witness of mixed_rate_cap's rule: fio keeps writes at their cap and reads take the rest,
    not the 50/50 ratio (which would hold reads to the writes' 100/s)."""
    jf = tmp_path / "m.fio"
    jf.write_text(
        f"[m]\nfilename={tmp_path / 'f'}\nsize=16m\nrw=randrw\nrwmixread=50\nbs=4k\nioengine=psync\n"
        "rate_iops=,100\nruntime=2\ntime_based\n"
    )
    out = subprocess.run(["fio", "--output-format=json", str(jf)], capture_output=True, text=True, check=True)
    job = json.loads(out.stdout[out.stdout.index("{") :])["jobs"][0]
    assert job["write"]["iops"] == pytest.approx(100, rel=0.1)
    assert job["read"]["iops"] > 5 * job["write"]["iops"]
