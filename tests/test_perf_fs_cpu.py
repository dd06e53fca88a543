"""ext3's block map as a cost the array pays, and the CPU class presets' ranges."""

from __future__ import annotations

import pytest

from planners.hardware import Cpu, DiskSpec, Hardware
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.predict import predict
from planners.perf.workloads import Workload
from planners.units import KiB

STREAM = Workload(name="w", rw="write", bs=1 << 20, direct=False, target="file", ioengine="sync")


def plan(fs: str, level: int, n: int, disk: str = "hdd7200", cpu: Cpu | None = None, block: int = 4096,
         size: int = 1_000_204_886_016) -> Plan:
    return Plan(name="t", disks=[DiskSet(count=n, size=size)],
                groups=[MdGroup(name="md0", level=level, members=n, chunk=512 * KiB, bitmap="none")],
                filesystem=Filesystem(type=fs, block_size=block),
                hardware=Hardware(disk=DiskSpec(disk_class=disk), cpu=cpu or Cpu()))


def one(p: Plan, w: Workload = STREAM):
    (r,) = predict(p, workloads=[w])
    return r


def test_ext3_pays_one_small_write_per_indirect_block_span():
    e3, e4 = one(plan("ext3", 6, 8)), one(plan("ext4", 6, 8))
    assert e4.factor == 1.0 and e3.factor < 1.0
    # The factor is the stream's time plus one random block write per 4 MiB mapped.
    small = one(plan("ext3", 6, 8), Workload(name="m", rw="randwrite", bs=4096, iodepth=128, target="file"))
    per_byte = 1 / (small.mb_s * 1e6 / 4096) / (4 << 20)
    stream = e3.mb_s / e3.factor
    assert e3.factor == pytest.approx(1 / (1 + per_byte * stream * 1e6))
    assert "4 MiB" in e3.factor_note


def test_ext3_cost_follows_the_array_not_a_fixed_ratio():
    raid6 = one(plan("ext3", 6, 8)).factor
    raid0 = one(plan("ext3", 0, 8)).factor
    ssd = one(plan("ext3", 6, 8, disk="ssd-sata")).factor
    assert raid6 < raid0 < 1.0  # parity arrays pay read-modify-write for the scattered block
    assert ssd > 0.95  # flash writes a scattered block almost for free
    # A larger block maps more data per indirect block: 16x the span for 4x the block size.
    small_disks = 100_030_242_816
    assert (one(plan("ext3", 6, 8, block=1024, size=small_disks)).factor
            < one(plan("ext3", 6, 8, size=small_disks)).factor)


def test_ext3_direct_and_random_writes_are_left_alone():
    direct = STREAM.model_copy(update={"direct": True, "ioengine": "libaio"})
    assert one(plan("ext3", 6, 8), direct).factor == 1.0
    rand = STREAM.model_copy(update={"rw": "randwrite", "bs": 4096})
    assert one(plan("ext3", 6, 8), rand).factor == 1.0


def test_cpu_class_figures_carry_a_range_until_stated():
    raid6 = plan("xfs", 6, 24, disk="ssd-sata")
    w = STREAM.model_copy(update={"size": None})
    p = one(raid6, w)
    assert p.binding in ("md thread", "page cache", "parity CPU")
    assert p.mb_s_low < p.mb_s < p.mb_s_high
    assert "CPU figures from the class preset" in p.assumption
    stated = Cpu(md_thread_mb_s=1400, buffered_write_mb_s=1800, buffered_read_mb_s=3500,
                 raid6_gen_mb_s=12000, xor_mb_s=20000)
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
