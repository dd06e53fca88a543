"""ext3's block map as a cost the array pays, and the CPU class presets' ranges."""

from __future__ import annotations

import pytest

from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Cpu, Hardware
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.predict import predict
from planners.perf.workloads import Workload
from planners.units import KiB

STREAM = Workload(name="w", rw="write", bs=1 << 20, direct=False, target="file", ioengine="sync")


def plan(
    fs: str,
    level: int,
    n: int,
    disk: str = "hdd7200",
    cpu: Cpu | None = None,
    block: int = 4096,
    size: int = 1_000_204_886_016,
) -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=n, size=size)],
        groups=[MdGroup(name="md0", level=level, members=n, chunk=512 * KiB, bitmap="none")],
        filesystem=Filesystem(type=fs, block_size=block),
        hardware=Hardware(disk=DiskSpec(disk_class=disk), cpu=cpu or Cpu()),
    )


def one(p: Plan, w: Workload = STREAM):
    (r,) = predict(p, workloads=[w])
    return r


def ext3_cost(p3: Plan) -> float:
    """ext3's figure over the same array's ext4 figure."""
    p4 = p3.model_copy(update={"filesystem": p3.filesystem.model_copy(update={"type": "ext4"})})
    return one(p3).mb_s / one(p4).mb_s


def test_ext3_pays_one_small_write_per_indirect_block_span():
    p3 = plan("ext3", 6, 8)
    e3 = one(p3)
    e4 = one(p3.model_copy(update={"filesystem": Filesystem(type="ext4")}))
    # The stream's own time plus one random block write (a checkpoint's deep queue) per 4 MiB mapped,
    # each a positioning of its own among the stream's writes (no sorting of them by the disks).
    from planners.perf.context import build_ctx
    from planners.perf.predict import geometry_for_speed
    from planners.perf.terms import simple_terms

    meta = Workload(name="m", rw="randwrite", bs=4096, iodepth=128, target="file")
    small = min(t.mb_s for t in simple_terms(build_ctx(p3, geometry_for_speed(p3)), meta, 0, ncq=False).values())
    per_mb = 1 / (small * 1e6 / 4096) / ((4 << 20) / 1e6)
    assert e3.mb_s == pytest.approx(1 / (1 / e4.mb_s + per_mb))
    note = e3.factor_note or next(t.note for t in e3.terms if t.name == "ext3 block map")
    assert "4 MiB" in note


def test_ext3_cost_follows_the_array_not_a_fixed_ratio():
    raid6 = ext3_cost(plan("ext3", 6, 8))
    raid0 = ext3_cost(plan("ext3", 0, 8))
    ssd = ext3_cost(plan("ext3", 6, 8, disk="ssd-sata"))
    assert raid6 < raid0 < 1.0  # parity arrays pay read-modify-write for the scattered block
    assert ssd > 0.9  # flash writes a scattered block for little
    # A smaller block maps less data per indirect block: 1 KiB blocks map 256 KiB each.
    small_disks = 100_030_242_816
    assert ext3_cost(plan("ext3", 6, 8, block=1024, size=small_disks)) < ext3_cost(plan("ext3", 6, 8, size=small_disks))


def test_ext3_direct_and_random_writes_are_left_alone():
    direct = STREAM.model_copy(update={"direct": True, "ioengine": "libaio"})
    rand = STREAM.model_copy(update={"rw": "randwrite", "bs": 4096})
    for w in (direct, rand):
        e3 = plan("ext3", 6, 8)
        e4 = e3.model_copy(update={"filesystem": Filesystem(type="ext4")})
        assert one(e3, w).mb_s == one(e4, w).mb_s


def test_cpu_class_figures_carry_a_range_until_stated():
    raid6 = plan("xfs", 6, 24, disk="ssd-sata")
    w = STREAM.model_copy(update={"size": None})
    p = one(raid6, w)
    assert p.binding in ("md thread", "CPU copy", "parity CPU")
    assert p.mb_s_low < p.mb_s < p.mb_s_high
    assert "CPU server preset" in p.assumption
    assert any("CPU figures from the server class preset" in line for line in p.range_from) and not p.inputs_stated
    stated = Cpu(
        md_thread_mb_s=1400,
        buffered_write_mb_s=1800,
        buffered_read_mb_s=4900,
        reclaim_us=0.54,
        raid6_gen_mb_s=12000,
        xor_mb_s=20000,
    )
    q = one(plan("xfs", 6, 24, disk="ssd-sata", cpu=stated), w)
    assert q.mb_s == pytest.approx(p.mb_s)
    assert "CPU" not in q.assumption


def test_a_kernel_df_does_not_know_still_gets_speed_figures():
    from planners.perf.predict import geometry_for_speed
    from planners.versions import ToolVersions

    old = plan("xfs", 6, 8).model_copy(update={"tools": ToolVersions(kernel="2.6.32")})
    geometry_for_speed(old)  # df's accounting does not know 2.6.32; the arrays' geometry does
    w = STREAM.model_copy(update={"size": 100 * 10**9})
    (p,) = predict(old, workloads=[w])
    assert "before 3.2" in p.outside_model
