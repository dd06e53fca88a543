"""Growing btrfs across raw disks: `btrfs device add`, then a balance that spreads every chunk over all the disks
(and converts the profiles the request changes), with the figures before and after.

After the balance, the size statvfs reports and `btrfs filesystem usage`'s Free (estimated) are exact
(planners.fs.btrfs_grow), once a balance with usage=0 has dropped the spare empty chunks a conversion can leave
until the kernel's cleaner runs; the available bytes statvfs reports are not given: which chunks the kernel
allocated before its cleaner ran decides where the rest lie, and with it what statvfs can still pair.
"""

from __future__ import annotations

import shlex

from pydantic import BaseModel, ConfigDict, Field

from planners.compute import compute
from planners.errors import PlanError
from planners.fs.btrfs import btrfs_layout
from planners.fs.btrfs_grow import grown_layout
from planners.grow.model import GrowRequest, Step
from planners.grow.target import _added, _disk_sets
from planners.models import Plan

CLEANUP = ("-dusage=0", "-musage=0")  # balance only the chunks with nothing in them


class BtrfsGrowth(BaseModel):
    """A btrfs across raw disks grown by added disks and a balance, exact to the byte where the kernel is."""

    model_config = ConfigDict(frozen=True)

    plan_name: str = Field(description="The plan's name.")
    mount_point: str = Field(description="Where the filesystem is mounted.")
    devices_before: tuple[str, ...] = Field(description="The filesystem's disks before (paths; '' where unknown).")
    added_devices: tuple[str, ...] = Field(description="Paths of the added disks (placeholders where unknown).")
    added_disks: tuple[tuple[int, int, int], ...] = Field(
        description="Each added disk: bytes, logical and physical sector size in bytes."
    )
    data_profile: tuple[str, str] = Field(description="Data profile before and after.")
    metadata_profile: tuple[str, str] = Field(description="Metadata (and system) profile before and after.")
    df_size_bytes_before: int = Field(description="statvfs size before, bytes.")
    df_size_bytes_after: int = Field(description="statvfs size after the balance, bytes.")
    df_available_bytes_before: int = Field(description="statvfs available before (fresh filesystem), bytes.")
    free_estimated_bytes_before: int = Field(description="`btrfs filesystem usage -b` Free (estimated) before, bytes.")
    free_estimated_bytes_after: int = Field(description="Free (estimated) after the balance (empty filesystem), bytes.")
    balance: tuple[str, ...] = Field(description="`btrfs balance start` filters.")
    cleanup: tuple[str, ...] = Field(description="Filters of the balance that then drops the chunks left empty.")
    steps: tuple[Step, ...] = Field(description="The ordered steps.")
    notes: tuple[str, ...] = Field(description="Anything else the user must know, one sentence each.")


def _check_raw(plan: Plan) -> None:
    if plan.groups or plan.lvm.enabled:
        raise PlanError(
            "growing a btrfs on md or LVM is growing that layer first (then btrfs filesystem resize max); "
            "podplan plans btrfs growth across raw disks",
            "groups",
        )


def btrfs_target_plan(plan: Plan, req: GrowRequest) -> Plan:
    """The plan with the added disks after the others and the profiles the request names."""
    _check_raw(plan)
    if req.to_level is not None or req.group is not None or req.mode is not None:
        raise PlanError("a btrfs grows by --add-disks and --data-profile/--metadata-profile, not md options", "mode")
    fs = plan.filesystem
    update = {k: v for k, v in (("data_profile", req.data_profile), ("metadata_profile", req.metadata_profile)) if v}
    if req.add_disks == 0 and not update:
        raise PlanError("nothing to grow: give the disks to add (--add-disks) or a new profile", "add_disks")
    old = compute(plan).volumes[0].btrfs
    assert old is not None
    # the profiles mkfs chose stay what they are unless the request changes them
    fs = fs.model_copy(update={"data_profile": old.data_profile, "metadata_profile": old.metadata_profile, **update})
    disks = plan.disk_list()
    added = _added(plan, req, disks[-1])
    return plan.model_copy(update={"disks": _disk_sets([*disks, *added]), "filesystem": fs})


def btrfs_growth(old: Plan, new: Plan) -> BtrfsGrowth:
    """Everything growing `old` into `new` does: the same filesystem over more disks, new profiles."""
    _check_raw(old)
    _check_raw(new)
    before = compute(old).volumes[0].btrfs
    assert before is not None
    compute(new)  # the new plan is one btrfs could be made as (enough devices for its profiles)
    disks, grown_disks = old.disk_list(), new.disk_list()
    if grown_disks[: len(disks)] != disks:
        raise PlanError("a grown btrfs keeps its disks, in order, and adds others after them", "disks")
    added = grown_disks[len(disks) :]
    data = new.filesystem.data_profile or before.data_profile
    meta = new.filesystem.metadata_profile or before.metadata_profile
    lay = btrfs_layout(before.device_bytes, data_profile=before.data_profile, metadata_profile=before.metadata_profile)
    after = grown_layout(lay, [d.size for d in added], data, meta)
    paths = tuple(d.device or f"/dev/disk/by-id/FILL-IN-added-{i + 1}" for i, d in enumerate(added))
    mnt = old.filesystem.mount_point
    balance = (f"-dconvert={data}", f"-mconvert={meta}")
    steps = (
        Step(
            title=f"add {len(added)} disk(s) to the filesystem",
            why="btrfs takes a disk while mounted; the new disks are empty until a balance moves chunks onto them",
            commands=(shlex.join(["btrfs", "device", "add", *paths, mnt]),),
        ),
        Step(
            title=f"balance every chunk over all {len(grown_disks)} disks, as data {data} and metadata {meta}",
            why="existing chunks stay where they are until relocated; the convert filters also keep btrfs-progs "
            "from waiting 10 seconds before a filterless balance",
            commands=(shlex.join(["btrfs", "balance", "start", *balance, mnt]),),
        ),
        Step(
            title="drop the chunks the balance left empty",
            why="a converting balance can leave a spare empty data or metadata chunk until the kernel's cleaner "
            "runs, and Free (estimated) counts it as used; usage=0 touches only empty chunks. On a filesystem "
            "that holds no data at all the kernel first allocates a new data chunk, and stops with 'No space left "
            "on device' where the disks have no room for one: nothing is lost, and its cleaner drops the empty "
            "chunks later",
            commands=(shlex.join(["btrfs", "balance", "start", *CLEANUP, mnt]),),
        ),
    )
    notes = [
        (
            "a balance rewrites every byte stored: on a full pod it runs for hours and may be paused and resumed "
            "(btrfs balance pause/resume); the filesystem stays mounted and usable"
        ),
        (
            "df available after the balance depends on where the kernel places each chunk, fixed only once its cleaner "
            "has removed the empty chunks a conversion leaves: btrfs filesystem usage -b shows it"
        ),
    ]
    if (data, meta) != (before.data_profile, before.metadata_profile):
        notes.append(
            f"the profiles change: data {before.data_profile} -> {data}, metadata {before.metadata_profile} -> {meta}"
        )
    return BtrfsGrowth(
        plan_name=old.name,
        mount_point=mnt,
        devices_before=tuple(d.device for d in disks),
        added_devices=paths,
        added_disks=tuple((d.size, d.logical_sector, d.physical_sector) for d in added),
        data_profile=(before.data_profile, data),
        metadata_profile=(before.metadata_profile, meta),
        df_size_bytes_before=before.df_size_bytes,
        df_size_bytes_after=after.df_size_bytes,
        df_available_bytes_before=before.df_available_bytes,
        free_estimated_bytes_before=before.free_estimated_bytes,
        free_estimated_bytes_after=after.free_estimated_bytes,
        balance=balance,
        cleanup=CLEANUP,
        steps=steps,
        notes=tuple(notes),
    )
