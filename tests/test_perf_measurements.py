"""Every published measurement in the calibration notes is a test: the model, given the published
hardware, names a plausible limiting component and lands within 20 % of the measured median, or
says why the case is outside the model."""

from __future__ import annotations

import statistics

import pytest

from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Cpu, Hardware, Wiring
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan, Tuning
from planners.perf.predict import predict
from planners.perf.workloads import PRESETS
from planners.units import KiB
from planners.versions import ToolVersions

TOLERANCE = 0.20
KB_S = 1024 / 1e6  # bonnie++ reports KB/s of 1024 bytes

# R1: 45 x ST2000DL004 (5400 rpm class, ~140 MB/s outer) behind 9 SATA port multipliers on
# 3 Gb/s links; a 2010 desktop CPU under kernel 2.6.32; md chunk 256 KiB; XFS; one dd stream.
R1_HW = Hardware(
    disk=DiskSpec(disk_class="hdd5400", seq_outer_mb_s=140, seq_inner_mb_s=70),
    wiring=Wiring(link="sata2", disks_per_link=5),
    cpu=Cpu(cpu_class="desktop-2010"),
    memory_bytes=8 * 2**30,
)
R1_DISK = 2_000_398_934_016


def r1_plan(level: int, members: int, spares: int = 0) -> Plan:
    return Plan(
        name=f"r1raid{level}",
        disks=[DiskSet(count=45, size=R1_DISK, model="ST2000DL004")],
        groups=[
            MdGroup(
                name="md0",
                level=level,
                members=members,
                spares=spares,
                chunk=256 * KiB,
                bitmap="none" if spares == 0 else "internal",
                bitmap_chunk=None if spares == 0 else 256 << 20,
            )
        ],
        filesystem=Filesystem(type="xfs"),
        tuning=Tuning(stripe_cache_size=256),
        hardware=R1_HW,
        tools=ToolVersions(kernel="2.6.32"),
    )


R1 = [
    ("raid0 x43", r1_plan(0, 43), [416, 416, 423], {"CPU copy", "link"}),
    ("raid5 x44", r1_plan(5, 44), [416, 424, 433], {"CPU copy", "md thread"}),
    ("raid6 x45", r1_plan(6, 45), [390, 395, 397], {"CPU copy", "md thread"}),
    ("raid6 x43+2", r1_plan(6, 43, 2), [406, 397, 399], {"CPU copy", "md thread"}),
]


@pytest.mark.parametrize("label,plan,measured,plausible", R1, ids=[r[0] for r in R1])
def test_r1_pod_dd_write(label, plan, measured, plausible):
    """R1 is outside the model: one 10 GB dd on 8 GB under 2.6.32, whose writer took part in
    writeback itself. Nothing in R1's published hardware bounds it near 420 MB/s: the one
    writer's copy is 1200-1400 MB/s on such a core, md's thread and the links sit higher still,
    and the SATA cards' wiring was not published. The model must say so, not give a confident
    figure (docs/calibration.md records the miss)."""
    (p,) = predict(plan, workloads=[PRESETS["dd-write"]])
    assert "before 3.2" in p.outside_model
    assert p.binding in plausible, p
    # The naive figure (disks x per-disk speed) is more than ten times the measured one.
    disks = next(t for t in p.terms if t.name == "disks")
    assert disks.mb_s > 10 * statistics.median(measured)


# R2: 3 x ST31500341AS (7200.11: 120 MB/s outer, 8.5 ms seek) in md RAID5 (mdadm's then-default
# 64 KiB chunk), a 10 GB LVM volume, bonnie++ with an 8 GB data set, a Core 2 Duo under 2.6.32.
R2_HW = Hardware(
    disk=DiskSpec(disk_class="hdd7200", seq_outer_mb_s=120, seq_inner_mb_s=60, rand_read_iops=79, rand_write_iops=79),
    cpu=Cpu(cpu_class="desktop-2010"),
    memory_bytes=4 * 2**30,
)


def r2_plan(fs: str) -> Plan:
    return Plan(
        name="r2",
        disks=[DiskSet(count=3, size=1_500_301_910_016, model="ST31500341AS")],
        groups=[MdGroup(name="md0", level=5, members=3, chunk=64 * KiB, bitmap="none")],
        lvm=Lvm(enabled=True),
        filesystem=Filesystem(type=fs),
        tuning=Tuning(readahead=128 * KiB, stripe_cache_size=256),
        hardware=R2_HW,
        tools=ToolVersions(kernel="2.6.32"),
    )


BONNIE = {
    name: PRESETS[f"bonnie-{name}"].model_copy(update={"size": 8 * 10**9})
    for name in ("write", "rewrite", "read", "seeks")
}
# (filesystem, stride set?, block write, rewrite, block read KB/s, seeks/s)
R2_ROWS = [
    ("ext3", False, 104438, 59229, 225689, 384.7),
    ("ext4", False, 141123, 86073, 234220, 397.5),
    ("ext3", True, 105626, 60042, 225419, 369.6),
    ("ext4", True, 144069, 85479, 236243, 394.5),
]
R2_PLAUSIBLE = {
    "write": {"stripe cache", "disks"},
    "rewrite": {"stripe cache", "disks", "readahead"},
    "read": {"readahead", "disks"},
    "seeks": {"queue depth", "disks"},
}
R2 = [(fs, stride, test, value) for fs, stride, *vals in R2_ROWS for test, value in zip(BONNIE, vals, strict=True)]


@pytest.mark.parametrize("fs,stride,test,measured", R2, ids=[f"{r[0]}{'-stride' if r[1] else ''}-{r[2]}" for r in R2])
def test_r2_desktop_raid5_bonnie(fs, stride, test, measured):
    # The stride options change nothing the model sees, as they changed nothing measurable.
    (p,) = predict(r2_plan(fs), workloads=[BONNIE[test]])
    got, want = (p.iops, measured) if test == "seeks" else (p.mb_s, measured * KB_S)
    if p.outside_model:
        # 2.6.32's writer wrote back pages itself: the figure stands, marked as outside the model,
        # with the drain it waited on as the runner-up.
        assert test in ("write", "rewrite") and "before 3.2" in p.outside_model, p
        assert p.runner_up in R2_PLAUSIBLE[test] | {"CPU copy"}, p
    else:
        assert p.binding in R2_PLAUSIBLE[test], p
    assert abs(got - want) / want <= TOLERANCE, (got, want)
