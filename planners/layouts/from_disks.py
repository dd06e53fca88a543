"""A first plan for disks found on a machine: disk sets from what each disk reports, a default layout.

The layout is a starting point to edit, not a recommendation engine (the sweep is that):
mirrors for two disks, single parity for a few spinning disks, mirrors for a few flash
disks (fast rebuilds, no parity read-modify-write wearing them), RAID6 beyond, in arrays
no wider than the example pod's. RAID0 is never a default: losing one disk loses all.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PlanError
from planners.models import DiskSet, MdGroup, Plan, RaidLevel
from planners.schemes import md_scheme

Frozen = ConfigDict(frozen=True)
WIDEST_RAID6 = 15  # the example pod's arrays; wider ones rebuild longer with more disks at risk meanwhile
MODEL_CHARS = 64  # DiskSet.model's limit


class FoundDisk(BaseModel):
    """One whole disk as the machine reports it."""

    model_config = Frozen

    device: str = Field(description="Stable path: /dev/disk/by-id/... when there is one, else /dev/NAME.")
    size: int = Field(description="Capacity, in bytes.")
    logical_sector: int = Field(512, description="Logical sector size, in bytes.")
    physical_sector: int = Field(4096, description="Physical sector size, in bytes.")
    rotational: bool = Field(True, description="True for a spinning disk.")
    model: str = Field("", description="Model string ('' unknown).")

    @property
    def kind(self) -> tuple[int, int, int, bool, str]:
        """Disks of one kind form one DiskSet."""
        return (self.size, self.logical_sector, self.physical_sector, self.rotational, self.model)


def disk_sets(disks: Sequence[FoundDisk]) -> list[DiskSet]:
    """One set per kind of disk, largest disks first (so arrays of the big ones come first), in the
    order found within a set. Raises PlanError if a disk cannot be an md member."""
    kinds: dict[tuple[int, int, int, bool, str], list[FoundDisk]] = {}
    for d in disks:
        kinds.setdefault(d.kind, []).append(d)
    ordered = sorted(kinds.values(), key=lambda ds: -ds[0].size)  # stable: equal sizes keep their order
    return [
        DiskSet(
            count=len(ds),
            size=ds[0].size,
            logical_sector=ds[0].logical_sector,
            physical_sector=ds[0].physical_sector,
            rotational=ds[0].rotational,
            model=ds[0].model[:MODEL_CHARS],
            devices=[d.device for d in ds],
        )
        for ds in ordered
    ]


def default_groups(count: int, rotational: bool, chunk: int | None = None) -> list[MdGroup]:
    """The default md arrays for `count` disks (names md0, md1, ...)."""
    if count < 2:
        raise PlanError("select at least two disks: every redundant md level needs two", "disks")
    level: RaidLevel
    if count == 2:
        level, layout, groups, spares = 1, None, 1, 0
    elif count < 6 and (rotational or count == 3):
        level, layout, groups, spares = 5, None, 1, 0
    elif count < 6:
        level, layout, groups, spares = 10, "n2", 1, count % 2  # the odd one out waits as a spare
    else:
        level, layout, groups, spares = 6, None, -(-count // WIDEST_RAID6), 0
    members = count // groups - spares
    return [
        MdGroup(
            name=f"md{i}",
            level=level,
            layout=layout,
            members=members,
            spares=spares,
            chunk=chunk if md_scheme(level).chunked else None,
        )
        for i in range(groups)
    ]


def plan_from_disks(disks: Sequence[FoundDisk], defaults: Plan) -> Plan:
    """A new plan for `disks`; LVM, filesystem, tuning and tools come from `defaults`.

    Named podN after the disk count, as the example is, with the label and mount point to match.
    """
    sets = disk_sets(disks)
    count = sum(s.count for s in sets)
    groups = default_groups(count, any(s.rotational for s in sets), defaults.groups[0].chunk)
    name = f"pod{count}"
    fs = defaults.filesystem.model_copy(update={"label": name, "mount_point": f"/srv/{name}"})
    return Plan(
        name=name,
        disks=sets,
        groups=groups,
        lvm=defaults.lvm,
        filesystem=fs,
        tuning=defaults.tuning,
        tools=defaults.tools,
    )
