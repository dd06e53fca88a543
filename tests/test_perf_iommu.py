"""The IOMMU in an NVMe drive's DMA (planners.perf.iommu): each request's map and unmap on its core, and
strict mode's invalidations one at a time per remapping unit. No lab witness: the lab VM has no IOMMU."""

from __future__ import annotations

import pytest

from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Cpu, Hardware, Wiring
from planners.hardware.platform import DMA_MAP_US, INVALIDATION_US, Platform
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.iommu import NAME
from planners.perf.predict import predict
from planners.perf.request_cpu import NAME as REQUEST_CPU
from planners.perf.workloads import Workload


def plan(n: int, mode: str | None, cores: int = 64, lanes: int = 4, sockets: int = 1) -> Plan:
    disk = DiskSpec(disk_class="nvme", rand_read_iops=2_000_000, seq_outer_mb_s=13000, seq_inner_mb_s=13000)
    return Plan(
        name="t",
        disks=[DiskSet(count=n, size=3_840_000_000_000)],
        groups=[MdGroup(name="md0", level=0, members=n, chunk=512 * 1024, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(
            disk=disk.model_copy(update={"pcie_lanes": lanes}),
            wiring=Wiring(link="direct"),
            cpu=Cpu(cores=cores, sockets=sockets),
            platform=Platform(iommu=mode),  # type: ignore[arg-type]
        ),
    )


def rand(jobs: int = 64) -> Workload:
    return Workload(name="r", rw="randread", bs=4096, ioengine="io_uring", numjobs=jobs, iodepth=64)  # type: ignore[arg-type]


def one(p: Plan, w: Workload | None = None):
    (r,) = predict(p, workloads=[w or rand()])
    return r


def term(r, name: str) -> float | None:
    return next((t.mb_s for t in r.terms if t.name == name), None)


def test_each_request_pays_its_map_and_unmap_on_its_core():
    off, lazy, strict = (term(one(plan(4, m, cores=4), rand(jobs=4)), REQUEST_CPU) for m in ("off", "lazy", "strict"))
    assert off and lazy and strict and strict < lazy < off
    # io_uring 1.2 + fio 0.1 + 3.3/64 + md's remap 0.5 + one device request 1.2 us, and the mode's own
    base = 1.2 + 0.1 + 3.3 / 64 + 0.5 + 1.2
    assert off / lazy == pytest.approx((base + DMA_MAP_US["lazy"]) / base)
    assert off / strict == pytest.approx((base + DMA_MAP_US["strict"]) / base)


def test_strict_invalidations_queue_one_at_a_time_per_x16_of_drives():
    r = one(plan(8, "strict"))
    assert r.binding == NAME
    # 8 drives x4 = two x16 root ports' worth: two remapping units, one unmap per 4 KiB read
    assert r.iops == pytest.approx(2 / (INVALIDATION_US * 1e-6))
    assert term(one(plan(8, "lazy")), NAME) is None and term(one(plan(8, "passthrough")), NAME) is None


def test_a_ram_disk_or_a_sata_drive_maps_nothing_here():
    sata = plan(4, "strict", lanes=0)
    assert term(one(sata), NAME) is None


def test_the_unstated_mode_widens_the_range_from_off_to_strict():
    left = one(plan(8, None, cores=4), rand(jobs=4))
    stated = one(plan(8, "lazy", cores=4), rand(jobs=4))
    assert left.mb_s == pytest.approx(stated.mb_s)  # the presets assume lazy
    assert left.binding == REQUEST_CPU
    assert any(line.startswith("IOMMU: not stated") for line in left.range_from)
    assert left.mb_s_low < stated.mb_s_low and left.mb_s_high > stated.mb_s_high
    assert not any(line.startswith("IOMMU") for line in stated.range_from)


def test_drives_fewer_than_the_sockets_pass_one_unit_each_not_one_per_socket():
    """Two drives on a four-socket host: each sits behind one remapping unit of its own socket's, and
    the other two sockets' units see none of their unmaps."""
    r = one(plan(2, "strict", sockets=4))
    assert r.binding == NAME
    assert r.iops == pytest.approx(2 / (INVALIDATION_US * 1e-6))
    # ten x4 drives on two sockets: five a socket, 20 lanes, two x16 root ports' worth on each
    assert one(plan(10, "strict", sockets=2)).iops == pytest.approx(4 / (INVALIDATION_US * 1e-6))


def test_an_unstated_mode_reaches_down_to_strict_where_strict_binds():
    """Eight drives and the mode unstated: strict (arm64's default, RHEL 9's from 2024) adds the
    invalidation term the lazy figure has no term for. Before, the range stopped at the CPU per
    request term's spread (9.5-17.6 M for 16 M), far above strict's 1.63 M; now it reaches strict's
    own low end, and stating lazy or strict narrows it again."""
    left, lazy, strict = (one(plan(8, m)) for m in (None, "lazy", "strict"))
    assert left.mb_s == pytest.approx(lazy.mb_s) and strict.binding == NAME
    assert left.mb_s_low == pytest.approx(strict.mb_s_low) and left.mb_s_high == pytest.approx(lazy.mb_s_high)
    assert any(line.startswith("IOMMU strict: not stated") for line in left.range_from)
    assert lazy.mb_s_low > 5 * left.mb_s_low
    assert not any(line.startswith("IOMMU strict") for line in lazy.range_from + strict.range_from)
