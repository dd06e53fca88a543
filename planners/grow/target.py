"""From a plan and a growth request to the plan of the grown layout (what `grow --save` writes)."""

from __future__ import annotations

from planners.errors import PlanError
from planners.grow.model import GrowMode, GrowRequest
from planners.grow.reshape import reshape_refusal
from planners.lvm.volumes import one_volume_only
from planners.models import Disk, DiskSet, MdGroup, Plan
from planners.schemes import md_scheme


def _group_index(plan: Plan, name: str | None) -> int:
    if name is None:
        return len(plan.groups) - 1
    for i, g in enumerate(plan.groups):
        if g.name == name:
            return i
    raise PlanError(
        f"the plan has no md array named {name!r} (it has {', '.join(g.name for g in plan.groups)})", "group"
    )


def _added(plan: Plan, req: GrowRequest, like: Disk) -> list[Disk]:
    if req.add_disks == 0:
        return []
    if req.devices and len(req.devices) != req.add_disks:
        raise PlanError(f"{req.add_disks} disks to add but {len(req.devices)} device paths given", "devices")
    taken = {d.device for d in plan.disk_list() if d.device}
    if clash := taken.intersection(req.devices):
        raise PlanError(f"{sorted(clash)[0]} is already one of the plan's disks", "devices")
    size = req.size if req.size is not None else like.size
    if size % like.logical_sector:
        raise PlanError(
            f"an added disk of {size} bytes is not a whole number of {like.logical_sector}-byte sectors", "size"
        )
    paths = req.devices or [""] * req.add_disks
    return [Disk(size, like.logical_sector, like.physical_sector, like.rotational, like.model, p) for p in paths]


def _disk_sets(disks: list[Disk]) -> list[DiskSet]:
    """Consecutive alike disks as one DiskSet (a set has device paths for all its disks or none)."""
    sets: list[tuple[tuple[int, int, int, bool, str, bool], list[str]]] = []
    for d in disks:
        key = (d.size, d.logical_sector, d.physical_sector, d.rotational, d.model, bool(d.device))
        if sets and sets[-1][0] == key:
            sets[-1][1].append(d.device)
        else:
            sets.append((key, [d.device]))
    return [
        DiskSet(
            count=len(paths),
            size=k[0],
            logical_sector=k[1],
            physical_sector=k[2],
            rotational=k[3],
            model=k[4],
            devices=paths if k[5] else [],
        )
        for k, paths in sets
    ]


def _rebuilt(plan: Plan, groups: list[MdGroup], extra: dict[int, list[Disk]], tail: list[Disk]) -> Plan:
    """The plan with `extra` disks inserted after the members of group i and `tail` after every group."""
    disks: list[Disk] = []
    for i, (_, members, spares) in enumerate(plan.group_disks()):
        disks += members + extra.get(i, []) + spares
    disks += tail + plan.unassigned_disks()
    return plan.model_copy(update={"disks": _disk_sets(disks), "groups": groups})


def reshaped_plan(plan: Plan, req: GrowRequest) -> Plan:
    """The plan after reshaping one array to more members (and RAID5 -> RAID6 if asked)."""
    i = _group_index(plan, req.group)
    g, members, _ = plan.group_disks()[i]
    to_level = req.to_level if req.to_level is not None else g.level
    if req.add_disks == 0 and to_level == g.level:
        raise PlanError("nothing to grow: give the disks to add (--add-disks) or a new level (--to-level)", "add_disks")
    why = reshape_refusal(g.level, g.layout, to_level, g.members, g.members + req.add_disks)
    if why:
        raise PlanError(f"{g.name}: {why}", "group")
    if md_scheme(to_level).parity > g.scheme.parity and req.add_disks < 1:
        raise PlanError(
            f"{g.name}: RAID5 -> RAID6 needs at least one added disk for the second parity, "
            "else the array would shrink",
            "to_level",
        )
    added = _added(plan, req, members[-1])
    new_group = g.model_copy(update={"members": g.members + req.add_disks, "level": to_level})
    groups = [new_group if j == i else x for j, x in enumerate(plan.groups)]
    return _rebuilt(plan, groups, {i: added}, [])


def new_array_plan(plan: Plan, req: GrowRequest) -> Plan:
    """The plan with one more array, shaped like the last one, from the added disks, under LVM."""
    if not plan.lvm.enabled:
        raise PlanError(
            "a new array can grow the filesystem only under LVM (the plan has no LVM): without it "
            "the new array would be a separate filesystem; reshape an array instead",
            "mode",
        )
    if plan.lvm.mode == "striped":
        raise PlanError(
            "a striped LV cannot take a new array as one more stripe (lvextend would add a linear "
            "segment, not widen the stripe); reshape an array instead",
            "mode",
        )
    if req.to_level is not None:
        raise PlanError(
            "a level change reshapes an existing array; a new array takes the last array's level", "to_level"
        )
    last = plan.groups[-1] if req.group is None else plan.groups[_group_index(plan, req.group)]
    if req.add_disks != last.disks:
        raise PlanError(
            f"a new array like {last.name} takes {last.disks} disks ({last.members} members"
            + (f" + {last.spares} spares" if last.spares else "")
            + f"), not {req.add_disks}",
            "add_disks",
        )
    like = next(m for g, m, _ in plan.group_disks() if g.name == last.name)[-1]
    added = _added(plan, req, like)
    names = {g.name for g in plan.groups}
    n = len(plan.groups)
    while f"md{n}" in names:
        n += 1
    new_group = last.model_copy(update={"name": f"md{n}"})
    return _rebuilt(plan, [*plan.groups, new_group], {}, added)


NO_MD_GROWTH = (
    "growing a plan without md (LVM straight on the disks, or a filesystem on one disk) is not planned "
    "yet: add the disks with pvcreate, vgextend and lvextend, then grow the filesystem"
)
# The growth figures after a reshape are those of growing XFS or ext4 (xfs_growfs, resize2fs); a btrfs on md
# or LVM grows by `btrfs filesystem resize max`, whose chunk figures are not modelled after a reshape.
BTRFS_ON_MD_GROWTH = (
    "growing a btrfs on md or LVM is not planned yet: grow the array (mdadm --grow, then pvresize and lvextend "
    "with LVM), then run btrfs filesystem resize max on the mount point; podplan plans btrfs growth across raw disks"
)


def growable(plan: Plan) -> None:
    """PlanError unless podplan plans this pod's growth: md under XFS or ext4, one LV taking all of its VG."""
    if not plan.groups:
        raise PlanError(NO_MD_GROWTH, "groups")
    if plan.filesystem.type == "btrfs":
        raise PlanError(BTRFS_ON_MD_GROWTH, "filesystem")
    one_volume_only(plan, "grow")
    if plan.lvm.enabled and (plan.lvm.volumes or plan.lvm.lv_size not in (None, "rest")):
        raise PlanError(
            "podplan grows an LV that takes all of its VG; this plan's LV has a size of its own (lvm.lv_size): "
            "grow it with lvextend by hand",
            "lvm.lv_size",
        )


def possible_modes(plan: Plan, req: GrowRequest) -> dict[GrowMode, Plan | PlanError]:
    """Each mode with the plan it gives, or the reason it cannot."""
    growable(plan)
    out: dict[GrowMode, Plan | PlanError] = {}
    for mode, fn in (("reshape", reshaped_plan), ("new-array", new_array_plan)):
        try:
            out[mode] = fn(plan, req)  # type: ignore[index]
        except PlanError as exc:
            out[mode] = exc  # type: ignore[index]
    return out


def target_plan(plan: Plan, req: GrowRequest) -> Plan:
    """The layout after growth. mode None: reshape when md can, else a new array when LVM can take one."""
    growable(plan)
    if req.mode == "reshape":
        return reshaped_plan(plan, req)
    if req.mode == "new-array":
        return new_array_plan(plan, req)
    options = possible_modes(plan, req)
    first = options["reshape"]
    if isinstance(first, Plan):
        return first
    second = options["new-array"]
    if isinstance(second, Plan):
        return second
    raise first
