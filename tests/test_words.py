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


def test_the_compare_screen_gives_a_raid0_lun_no_rebuild_time():
    from app.tui.screens.compare_screen import _reliability
    from planners.compute import compute
    from planners.reliability.loss import reliability

    raid0 = one_disk(Lun(disks=24, level=0, strip=128 * KiB))  # type: ignore[arg-type]
    raid10 = one_disk(Lun(disks=24, level=10, strip=128 * KiB))  # type: ignore[arg-type]
    assert _reliability(reliability(raid0, compute(raid0)))[3] == "none"
    assert _reliability(reliability(raid10, compute(raid10)))[3] == "24 h"


def test_the_udev_rule_of_a_plan_without_md_says_readahead_not_md_tuning():
    from planners.compute import compute
    from planners.example import example_pod
    from planners.script.build import build_script

    p = one_disk(Lun(disks=24, level=10, strip=128 * KiB))  # type: ignore[arg-type]
    text = build_script(p, compute(p))
    assert "md tuning" not in text and "stripe cache" not in text
    assert 'step "readahead, now and at every boot (udev rule)"' in text
    assert "'# podplan plan lun24: readahead that survives reboots'" in text
    pod = build_script(example_pod(), compute(example_pod()))
    assert "'# podplan plan pod45: md stripe cache that survives reboots'" in pod  # LVM keeps the readahead


def test_validate_names_the_parity_cpu_only_where_the_plan_computes_parity():
    """'CPU: raid6 gen() ...' says nothing on a single ext4 disk: no parity anywhere."""
    from typing import Any

    from app.shared.host_cpu import apply_parity
    from app.usecases.validate import ValidateOutcome
    from planners.models import MdGroup

    def outcome(p: Plan) -> ValidateOutcome:
        plan, origin = apply_parity(p, None, "", "--no-host-cpu")
        none: Any = None
        # no report, jobs or rows: only the plan and where its parity figures came from matter here
        return ValidateOutcome(none, (), (), (), plan, origin, (), None, None)

    plain = outcome(one_disk(fs="ext4"))
    assert plain.cpu is not None and plain.parity_cpu is None
    raid6 = one_disk(fs="ext4", count=6).model_copy(update={"groups": [MdGroup(level=6, members=6)], "lvm": Lvm()})
    said = outcome(raid6)
    assert said.cpu is not None and said.parity_cpu == said.cpu
