"""What one request costs besides its bytes: a member's positioning for the chunks of a large request
it receives side by side, the filesystem's direct-I/O path, the block layer's merging at depth."""

from __future__ import annotations

import pytest

from planners.hardware.disks import DISK_CLASSES, DiskSpec
from planners.hardware.machine import Cpu, Hardware
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.context import queued_iops
from planners.perf.predict import predict
from planners.perf.workloads import Workload
from planners.units import KiB, MiB

TB16 = 16_000_000_000_000


def raid0(n: int, chunk: int) -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=n, size=TB16)],
        groups=[MdGroup(name="md0", level=0, members=n, chunk=chunk, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(disk=DiskSpec(disk_class="hdd7200")),
    )


def rand_1m(p: Plan, depth: int) -> float:
    w = Workload(name="rr", rw="randread", bs=MiB, ioengine="libaio", iodepth=depth, direct=True)
    (r,) = predict(p, workloads=[w])
    return r.mb_s


def test_a_large_random_read_positions_each_member_once_for_its_share():
    """1 MiB at 64 KiB chunks over 4 members: each receives 4 chunks that lie side by side on it,
    merged into one 256 KiB read: one positioning and 256 KiB moved per member, not 1 MiB per chunk."""
    disk = DISK_CLASSES["hdd7200"]
    queued = 32 * 4 / 4  # 32 requests in flight, each on all 4 members
    want = queued_iops(disk, 1.0, 256 * KiB, queued, False) * MiB / 1e6  # MB/s over the 4 members
    assert rand_1m(raid0(4, 64 * KiB), 32) == pytest.approx(want, rel=1e-6)


def test_more_members_under_a_large_random_read_give_more_not_less():
    # Before: 94 MB/s on four members at 64 KiB chunks, below the 173 of a two-disk mirror.
    two, four = rand_1m(raid0(2, 64 * KiB), 32), rand_1m(raid0(4, 64 * KiB), 32)
    assert four > two
    assert rand_1m(raid0(4, 64 * KiB), 32) <= rand_1m(raid0(4, 1 * MiB), 32)


def nvme_raid0(fs: str = "xfs") -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=4, size=3_840_000_000_000)],
        groups=[MdGroup(name="md0", level=0, members=4, chunk=512 * KiB, bitmap="none")],
        filesystem=Filesystem(type=fs),
        hardware=Hardware(disk=DiskSpec(disk_class="nvme"), cpu=Cpu(cores=1)),
    )


def cpu_term(p: Plan, target: str) -> float:
    w = Workload(name="rr", rw="randread", bs=4096, ioengine="io_uring", iodepth=128, target=target)  # type: ignore[arg-type]
    (r,) = predict(p, workloads=[w])
    return next(t for t in r.terms if t.name == "CPU per request").iops


@pytest.mark.parametrize("fs", ["xfs", "ext4"])
def test_a_direct_request_to_a_file_pays_the_filesystems_path(fs: str):
    """F. Chang (LKML, 2026): one core, 4 KiB random reads, 3.2 M IOPS raw, 1.92 M on a file on ext4 and
    on XFS alike: the filesystem's path is 1/1.92 M - 1/3.2 M = 0.21 us a request, the same for both."""
    raw, file = cpu_term(nvme_raid0(fs), "raw"), cpu_term(nvme_raid0(fs), "file")
    assert 1e6 / file - 1e6 / raw == pytest.approx(1 / 1.92 - 1 / 3.2, rel=0.01)
