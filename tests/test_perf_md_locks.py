"""md's shared cache lines per request (planners.perf.md_locks): the counts by level and kernel, one
submitter unchanged, and two published measurements that are not in the held-out set."""

from __future__ import annotations

import pytest

from app.cli.main import main
from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Cpu, Hardware, Wiring
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.concurrent import predict_job_file
from planners.perf.jobfile import parse_job_file
from planners.perf.md_locks import NAME
from planners.perf.predict import WorkloadPrediction, geometry_for_speed, predict
from planners.perf.workloads import Workload
from planners.units import KiB
from planners.versions import ToolVersions
from tests.test_perf_heldout import RAMDISK

# A RAM disk (brd), fast enough never to bind here: the held-out set's, its raw rates as measured.
BRD = RAMDISK
NVME = DiskSpec(disk_class="nvme")


def plan(level: int, n: int, kernel: str, cpu: Cpu, disk: DiskSpec = NVME, size: int = 3_840_000_000_000) -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=n, size=size)],
        groups=[MdGroup(name="md0", level=level, members=n, chunk=None if level == 1 else 512 * KiB, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(disk=disk, wiring=Wiring(link="direct"), cpu=cpu),
        tools=ToolVersions(kernel=kernel),
    )


def rand(rw: str = "randread", jobs: int = 16, depth: int = 64) -> Workload:
    return Workload(name="w", rw=rw, bs=4096, ioengine="libaio", numjobs=jobs, iodepth=depth)  # type: ignore[arg-type]


def locks(p: Plan, w: Workload):
    (r,) = predict(p, workloads=[w])
    return next((t for t in r.terms if t.name == NAME), None)


ONE_SOCKET = Cpu(cores=16)  # the server class: 51 ns a transfer within the socket


@pytest.mark.parametrize(
    ("level", "kernel", "rw", "transfers"),
    [
        (1, "6.5", "randread", 5),  # wait_barrier's lock at allow_barrier
        (1, "6.5", "randwrite", 15),  # and at the end of raid1_write_request and at unplug
        (1, "6.6", "randwrite", 2),  # the wake-ups are conditional: each member's nr_pending is left
        (10, "6.0", "randread", 11),  # resync_lock, raid10_make_request's wake_up, nr_pending
        (10, "6.0", "randwrite", 16),  # and raid10_unplug's wake_up
        (10, "6.1", "randread", 2),  # a seqlock: nr_pending's increment and decrement
        (10, "6.4", "randwrite", 7),  # raid10_unplug's wake_up until 6.5
        (10, "6.5", "randwrite", 2),
        (5, "5.13", "randread", 6),  # device_lock in read_one_chunk, active_aligned_reads under it
        (5, "5.14", "randread", 2),  # the increment and decrement alone (and md core's active_io)
        (0, "6.1", "randread", 2),  # md core's active_io before 6.3
    ],
)
def test_transfers_per_request_by_level_and_kernel(level: int, kernel: str, rw: str, transfers: int) -> None:
    t = locks(plan(level, 4 if level != 1 else 2, kernel, ONE_SOCKET), rand(rw))
    assert t is not None
    assert t.iops == pytest.approx(1e9 / (transfers * 51.0))
    assert f"{transfers:.3g} transfers of" in t.note and "16 submitting cores" in t.note


def test_raid0_from_6_3_shares_nothing_and_one_submitter_is_unchanged() -> None:
    assert locks(plan(0, 4, "6.3", ONE_SOCKET), rand()) is None
    assert locks(plan(1, 2, "5.10", ONE_SOCKET), rand("randwrite", jobs=1)) is None
    (alone,) = predict(plan(1, 2, "5.10", ONE_SOCKET), workloads=[rand(jobs=1)])
    assert NAME not in [t.name for t in alone.terms]


def test_raid1_before_4_11_is_not_derived_beyond_md_core() -> None:
    t = locks(plan(1, 2, "4.9", ONE_SOCKET), rand("randwrite"))
    assert t is not None and "mddev->active_io" in t.note


def test_two_sockets_put_half_the_next_writers_on_the_other_socket() -> None:
    cpu = Cpu(cores=32, sockets=2, line_transfer_ns=50, socket_transfer_ns=150)
    t = locks(plan(10, 4, "6.5", cpu), rand(jobs=32))
    assert t is not None
    remote = (32 - 16) / 31
    assert t.iops == pytest.approx(1e9 / (2 * (remote * 150 + (1 - remote) * 50)))
    assert f"{remote:.0%} of transfers between sockets" in t.note


RANDRW_400 = (
    "[global]\nioengine=libaio\ndirect=1\nreadwrite=randrw\nrwmixread=70\niodepth=64\nfilename=/dev/md0\n"
    "size=1G\nruntime=30\ntime_based\nnorandommap\nbs=4k\nnumjobs=400\ngroup_reporting=1\n[job1]\n"
)


def job(p: Plan, text: str) -> WorkloadPrediction:
    (r,) = predict_job_file(p, geometry_for_speed(p), parse_job_file(text, source="test"))
    return r


def test_published_raid1_ram_disks_on_56_broadwell_threads_before_the_wake_up_fix() -> None:
    # J. Wang, "[PATCHv3] md/raid1: Avoid lock contention from wake_up()", linux-raid, 5 Jul 2023:
    # two RAM disks in RAID1, "Intel Broadwell 56 cores server", the job above: 4621 MB/s read +
    # 1980 MB/s write before the patch (md-next for 6.6, so 6.4 here). Two sockets and the
    # measured Xeon E5-2695 v4's 44 / 118 ns (core-to-core-latency) stated.
    cpu = Cpu(cores=56, sockets=2, line_transfer_ns=44, socket_transfer_ns=118)
    r = job(plan(1, 2, "6.4", cpu, BRD, 2**30), RANDRW_400)
    measured = (4621e6 + 1980e6) / 4096
    assert r.binding == NAME
    assert r.iops == pytest.approx(measured, rel=0.25)


def test_published_raid10_nvme_on_a_xeon_8380_before_the_seqlock() -> None:
    # Y. Kuai, "md/raid10: reduce lock contention for io" v2, linux-raid, Sep 2022: 4 NVMe in
    # RAID10, fio on 16 cores of a Xeon Platinum 8380 (the server class's part), 16 jobs x 256
    # 4 KiB random reads: 7.0 GiB/s before the series (6.0), 9.3 with it (tests/test_perf_published.py).
    before = locks(plan(10, 4, "6.0", ONE_SOCKET), rand(jobs=16, depth=256))
    assert before is not None
    assert before.mb_s == pytest.approx(7.0 * 2**30 / 1e6, rel=0.25)
    (r,) = predict(plan(10, 4, "6.0", ONE_SOCKET), workloads=[rand(jobs=16, depth=256)])
    assert r.binding == NAME


PLAN = """
name = "r10"
[[disks]]
count = 4
size = "3.84TB"
[[groups]]
level = 10
members = 4
[tools]
kernel = "6.0"
[hardware.disk]
disk_class = "nvme"
[hardware.wiring]
link = "direct"
[hardware.cpu]
cores = 16
"""

JOB = "[r]\nfilename=/dev/md0\nrw=randread\nbs=4k\ndirect=1\nioengine=libaio\niodepth=256\nnumjobs=16\n"


def test_cli_names_the_term_with_its_nanoseconds_and_cores(tmp_path, capsys) -> None:
    (tmp_path / "p.toml").write_text(PLAN)
    (tmp_path / "j.fio").write_text(JOB)
    code = main(["predict", "--no-host-cpu", str(tmp_path / "p.toml"), "--job", str(tmp_path / "j.fio")])
    out, err = capsys.readouterr()
    assert code == 0, err
    flat = " ".join(out.split())
    assert "md locks" in flat
    assert "561 ns serialized a request: 11 transfers of" in flat and "16 submitting cores" in flat


def test_the_range_spans_the_next_writer_on_either_socket() -> None:
    """On two sockets the even draw is the middle: every next writer on the same socket gives the
    high end (51 ns a transfer), every one on the other the low end (108 ns); one socket has no such
    spread (its figures stated, nothing lifts the term's high end)."""
    stated = {"line_transfer_ns": 51.0, "socket_transfer_ns": 108.0}
    two = plan(10, 2, "6.6", Cpu(cores=64, sockets=2, **stated), disk=BRD, size=10**11)
    (r,) = predict(two, workloads=[rand(jobs=64)])
    assert r.binding == NAME
    term = next(t for t in r.terms if t.name == NAME)
    mean = 0.5 * 51 + 0.5 * 108  # 32 of 63 other writers on the other socket: about half
    assert r.mb_s_high == pytest.approx(term.mb_s * mean / 51, rel=0.02)
    assert r.mb_s_low == pytest.approx(term.mb_s * mean / 108, rel=0.02)
    assert any("next writer on this socket or the other" in line for line in r.range_from)
    one = plan(10, 2, "6.6", Cpu(cores=64, sockets=1, **stated), disk=BRD, size=10**11)
    (r1,) = predict(one, workloads=[rand(jobs=64)])
    # (its low end is the CPU per request term's spread, which binds just below)
    assert r1.binding == NAME and r1.mb_s_high == r1.mb_s and "next writer" not in " ".join(r1.range_from)
