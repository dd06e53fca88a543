"""The host's bandwidth: each NVMe drive's PCIe link, the sockets' lanes and memory, and a flash
drive's sequential rate at the size of the pieces md sends it."""

from __future__ import annotations

import pytest

from planners.hardware.disks import DiskSpec
from planners.hardware.machine import PCIE_LANE_MB_S, Cpu, Hardware
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.predict import predict
from planners.perf.workloads import Workload
from planners.units import KiB, MiB


def nvme(n: int, cpu: Cpu | None = None, chunk: int = 512 * KiB, level: int = 0, seq: float = 7000) -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=n, size=3_840_000_000_000)],
        groups=[MdGroup(name="md0", level=level, members=n, chunk=chunk, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(disk=DiskSpec(disk_class="nvme", seq_outer_mb_s=seq, seq_inner_mb_s=seq), cpu=cpu or Cpu()),
    )


def seq(rw: str = "read", bs: int = 4 * MiB, jobs: int = 8, depth: int = 16, direct: bool = True) -> Workload:
    return Workload(name="s", rw=rw, bs=bs, numjobs=jobs, iodepth=depth, direct=direct)  # type: ignore[arg-type]


def one(p: Plan, w: Workload):
    (r,) = predict(p, workloads=[w])
    return r


def term(r, name: str) -> float:
    return next(t.mb_s for t in r.terms if t.name == name)


def test_nvme_drives_sit_on_their_own_pcie_link_not_a_sata_one():
    r = one(nvme(4), seq())
    assert term(r, "link") == pytest.approx(4 * 4 * PCIE_LANE_MB_S[4])  # gen4 x4 each, four of them
    old = one(nvme(4, Cpu(pcie_gen=3)), seq())
    assert term(old, "link") == pytest.approx(4 * 4 * PCIE_LANE_MB_S[3])


def test_many_nvme_drives_meet_the_sockets_lanes_before_their_datasheet_sum():
    r = one(nvme(24), seq())
    assert r.binding == "host PCIe"
    assert r.mb_s == pytest.approx(64 * PCIE_LANE_MB_S[4])
    two = one(nvme(24, Cpu(sockets=2)), seq())
    assert two.binding != "host PCIe" and two.mb_s > r.mb_s


def test_memory_binds_a_buffered_stream_that_crosses_it_three_times():
    r = one(nvme(24, Cpu(sockets=4, memory_mb_s=20000)), seq(direct=False, jobs=16))
    mem = term(r, "memory")
    assert mem == pytest.approx(4 * 20000 / 3)  # the DMA, then the copy's read and write
    d = one(nvme(24, Cpu(sockets=4, memory_mb_s=20000)), seq())
    assert term(d, "memory") == pytest.approx(4 * 20000)


def test_small_chunks_hold_a_flash_member_to_its_request_rate():
    big = one(nvme(4, chunk=512 * KiB), seq(bs=2 * MiB))
    small = one(nvme(4, chunk=4 * KiB), seq(bs=16 * KiB, depth=64))
    assert term(big, "disks") == pytest.approx(4 * 7000)
    assert term(small, "disks") == pytest.approx(4 * 600000 * 4096 / 1e6)  # 600k requests/s x 4 KiB each


def test_a_sata_ssds_scheduler_merges_a_small_sequential_stream_back_to_its_datasheet_rate():
    sata = Plan(
        name="t",
        disks=[DiskSet(count=4, size=960_000_000_000)],
        groups=[MdGroup(name="md0", level=0, members=4, chunk=512 * KiB, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(disk=DiskSpec(disk_class="ssd-sata")),
    )
    deep = one(sata, seq(bs=4096, jobs=1, depth=256))
    # 256 x 4 KiB span two members: 128 on each, 32 in the disk, the rest merged: 16 KiB requests
    assert term(deep, "disks") == pytest.approx(4 * 540)
    shallow = one(sata, seq(bs=4096, jobs=1, depth=1))
    assert term(shallow, "disks") == pytest.approx(4 * 90000 * 4096 / 1e6)  # one 4 KiB request at a time
    nv = one(nvme(4), seq(bs=4096, jobs=1, depth=256))  # "none": no merging, the request rate holds it
    assert term(nv, "disks") == pytest.approx(4 * 600000 * 4096 / 1e6)
