"""Words a user reads beside the figures: each names what the figure is on the plan at hand (a LUN
is not a RAID0 of one member, a plan without md gets no md tuning)."""

from __future__ import annotations

from app.shared.curves import plan_summary
from planners.example import example_pod
from planners.hardware.disks import DiskSpec, Lun
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Filesystem, Lvm, Plan
from planners.units import KiB


def one_disk(lun: Lun | None = None, count: int = 1, fs: str = "ext3") -> Plan:
    return Plan(
        name="lun24",
        disks=[DiskSet(count=count, size=12 * 10**12)],
        groups=[],
        lvm=Lvm(enabled=count > 1, mode="striped"),
        filesystem=Filesystem(type=fs, reserved_percent=0.0),  # type: ignore[arg-type]
        hardware=Hardware(disk=DiskSpec(lun=lun)),  # type: ignore[arg-type]
    )


def test_the_report_describes_a_lun_or_a_disk_as_what_it_is():
    lun = Lun(disks=24, level=10, strip=128 * KiB)  # type: ignore[arg-type]
    assert plan_summary(one_disk(lun))[1] == "disk1: RAID10 LUN of 24 disks"
    assert plan_summary(one_disk(lun, count=3, fs="ext4"))[1] == "disk1, disk2, disk3: RAID10 LUN of 24 disks"
    assert plan_summary(one_disk())[1:3] == ["disk1: one disk, no RAID", "no stripe"]
    assert plan_summary(example_pod())[1] == "md0, md1, md2: RAID6, 15 members"
    assert not any("1 members" in line for p in (one_disk(lun), one_disk()) for line in plan_summary(p))
