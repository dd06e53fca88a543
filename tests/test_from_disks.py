"""A first plan from found disks: one set per kind of disk, a default layout by count and kind."""

from __future__ import annotations

import pathlib

import pytest

from planners.compute import compute
from planners.errors import PlanError
from planners.example import TWO_TB_DRIVE, example_pod
from planners.layouts.from_disks import FoundDisk, default_groups, disk_sets, plan_from_disks
from runners.host.disks import whole_disks
from runners.host.inventory import parse_lsblk

FIX = pathlib.Path(__file__).parent / "fixtures"
FOUR_TB = 4000787030016


def disk(i: int, size: int = TWO_TB_DRIVE, rotational: bool = True, model: str = "HDD", **kw: object) -> FoundDisk:
    return FoundDisk(device=f"/dev/disk/by-id/ata-{model}_{i}", size=size, rotational=rotational, model=model, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("count", "rotational", "want"),
    [
        (2, True, [(1, None, 2, 0)]),
        (2, False, [(1, None, 2, 0)]),
        (3, True, [(5, None, 3, 0)]),
        (3, False, [(5, None, 3, 0)]),
        (5, True, [(5, None, 5, 0)]),
        (4, False, [(10, "n2", 4, 0)]),
        (5, False, [(10, "n2", 4, 1)]),
        (6, True, [(6, None, 6, 0)]),
        (15, True, [(6, None, 15, 0)]),
        (16, True, [(6, None, 8, 0)] * 2),
        (45, True, [(6, None, 15, 0)] * 3),
        (47, False, [(6, None, 11, 0)] * 4),
        (60, True, [(6, None, 15, 0)] * 4),
    ],
)
def test_default_layout_by_count_and_kind(count: int, rotational: bool, want: list[tuple]) -> None:
    groups = default_groups(count, rotational, 512 * 1024)
    assert [(g.level, g.layout, g.members, g.spares) for g in groups] == want
    assert [g.name for g in groups] == [f"md{i}" for i in range(len(want))]
    assert all(g.level != 0 for g in groups)  # never RAID0, whatever the count
    assert sum(g.disks for g in groups) > count - len(groups)  # fewer left over than there are arrays
    assert all((g.chunk is None) == (g.level == 1) for g in groups)


def test_one_disk_is_refused_with_a_reason() -> None:
    with pytest.raises(PlanError, match="at least two disks"):
        plan_from_disks([disk(0)], example_pod())


def test_mixed_disks_make_one_set_per_kind_largest_first() -> None:
    found = [
        disk(0),
        disk(1, FOUR_TB, model="BIG"),
        disk(2),
        disk(3, FOUR_TB, model="BIG"),
        disk(4, rotational=False, model="HDD"),
        disk(5, physical_sector=512),
    ]
    sets = disk_sets(found)
    assert [(s.count, s.size, s.model, s.rotational, s.physical_sector) for s in sets] == [
        (2, FOUR_TB, "BIG", True, 4096),
        (2, TWO_TB_DRIVE, "HDD", True, 4096),
        (1, TWO_TB_DRIVE, "HDD", False, 4096),
        (1, TWO_TB_DRIVE, "HDD", True, 512),
    ]
    assert sets[0].devices == ["/dev/disk/by-id/ata-BIG_1", "/dev/disk/by-id/ata-BIG_3"]
    assert sets[1].devices == ["/dev/disk/by-id/ata-HDD_0", "/dev/disk/by-id/ata-HDD_2"]


def test_new_plan_takes_lvm_filesystem_and_tools_from_the_defaults() -> None:
    defaults = example_pod()
    plan = plan_from_disks([disk(i) for i in range(45)], defaults)
    assert plan.name == "pod45" and plan.filesystem.label == "pod45" and plan.filesystem.mount_point == "/srv/pod45"
    assert (plan.lvm, plan.tuning, plan.tools) == (defaults.lvm, defaults.tuning, defaults.tools)
    assert plan.filesystem.type == defaults.filesystem.type and plan.hardware is None
    # The example pod is exactly this: 45 two-terabyte disks in three RAID6 arrays of 15.
    assert compute(plan).usable_bytes == compute(defaults).usable_bytes
    assert plan.disk_list()[7].device == "/dev/disk/by-id/ata-HDD_7"


def test_a_model_longer_than_a_plan_keeps_is_cut() -> None:
    (s,) = disk_sets([disk(0, model="M" * 80), disk(1, model="M" * 80)])
    assert s.model == "M" * 64 and s.count == 2


def test_plan_from_the_disks_a_lab_guest_reported() -> None:
    """The free disks of a recorded guest (eight of 64 MiB, one of 256 MiB) through the real parser."""
    found = whole_disks(parse_lsblk((FIX / "inventory" / "lab_lsblk.json").read_text()))
    free = [d.found() for d in found if d.free and d.big_enough]
    plan = plan_from_disks(free, example_pod())
    assert [(s.count, s.size, s.rotational, s.model) for s in plan.disks] == [
        (1, 256 * 2**20, True, ""),
        (8, 64 * 2**20, True, "QEMU HARDDISK"),
    ]
    assert plan.disks[1].devices == [f"/dev/sd{c}" for c in "ijklmnop"]
    assert [(g.level, g.members) for g in plan.groups] == [(6, 9)]
    # md sizes every member to the smallest disk: the 256 MiB disk counts as 64 MiB.
    (g,) = compute(plan.model_copy(update={"filesystem": plan.filesystem.model_copy(update={"type": "ext4"})})).groups
    assert g.md.component_bytes < 64 * 2**20 and g.md.member_unused_bytes[0] == 192 * 2**20
