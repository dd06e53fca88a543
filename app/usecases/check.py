"""`podplan check`: the array as built against its plan, every difference with what it costs."""

from __future__ import annotations

import os
from dataclasses import dataclass

from planners.built.asbuilt import Difference as Difference
from planners.built.asbuilt import differences
from planners.compute import compute
from planners.errors import PlanError
from planners.models import Plan


@dataclass(frozen=True)
class CheckRequest:
    """The built target (md device, LV or mount point) and the plan it was built from."""

    target: str
    plan: Plan | None


@dataclass(frozen=True)
class CheckOutcome:
    """What was found at the target, how many figures were compared and those that differ."""

    target: str
    found: str
    compared: int
    differences: tuple[Difference, ...]


def check_collection(plan: Plan, collection) -> tuple[int, list[Difference]]:
    """(figures compared, differences) of a plan against what a system reported."""
    from runners.lab.rehearse import compare

    checks = compare(plan, compute(plan), collection)
    return len(checks), differences((c.layer, c.figure, c.predicted, c.actual) for c in checks)


def check_built(req: CheckRequest) -> CheckOutcome:
    """This machine's md arrays, LVM and filesystems read (as root) and set against the plan."""
    target, plan = req.target, req.plan
    if plan is None:
        raise PlanError("check needs the plan the array was built from (--plan PLAN.toml)")
    from planners.lvm.volumes import one_volume_only

    one_volume_only(plan, "check")
    if not os.path.exists(target):
        raise PlanError(f"{target}: no such device or directory")
    if os.geteuid() != 0:
        raise PlanError("check reads md superblocks and filesystem headers: run it as root")
    from runners.host.inventory import collect_host
    from runners.host.stack import kernel_name
    from runners.lab.collect import parse_collection
    from runners.validate.contents import describe_device
    from runners.validate.shape import mount_of

    directory = os.path.isdir(target)
    mount = mount_of(target) if directory else None
    # Only the stack under the target is read and compared: another filesystem, array or VG on this host
    # is not what the plan built.
    top = kernel_name(mount[0] if mount else target)
    collection = collect_host(top) if top else parse_collection({})
    found = describe_target(target, collection, mount, None if directory else describe_device(target))
    compared, diffs = check_collection(plan, collection)
    return CheckOutcome(target, found, compared, tuple(diffs))


def describe_target(
    target: str, collection, mount: tuple[str, str, str] | None = None, device: str | None = None
) -> str:
    """What the target is, as found: 'XFS on /dev/md0, 1 md array (raid6), no LVM'.

    `mount` (source, type, mount point) is the filesystem a directory target is on, and `device`
    what a block device target holds (runners.validate.contents): what is said when that is not an md
    or dm device podplan reads (a plain disk, a loop device, an md member).
    """
    real = os.path.realpath(target)
    fs = next((f for f in collection.filesystems if f.mountpoint and os.path.realpath(f.mountpoint) == real), None)
    fs = fs or next((f for f in collection.filesystems if f.device == os.path.basename(real)), None)
    if fs is not None and device is not None and not fs.device.startswith(("md", "dm-")):
        fs = None  # a filesystem straight on the disk: what blkid reads there (label, mount) says more
    if fs is None and mount is not None:
        source, fstype, mountpoint = mount
        where = "" if os.path.realpath(mountpoint) == real else f", mounted on {mountpoint}"
        stacked = source.startswith(("/dev/md", "/dev/mapper/", "/dev/dm-"))
        return f"{target}: {fstype.upper()} on {source}{where}, " + (
            "which podplan could not read" if stacked else "not on md or LVM"
        )
    if fs is None and device is not None:
        return f"{target}: {device}; no md array or LVM volume there"
    if fs is None:
        return f"{target}: no filesystem or array that podplan can read there"
    block = collection.block.get(fs.device)
    parts = [f"{fs.fstype.upper()} on /dev/{fs.device}" + (f" ({block.dm_name})" if block and block.dm_name else "")]
    arrays = collection.md
    if arrays:
        levels = sorted({a.level for a in arrays})
        parts.append(f"{len(arrays)} md array{'s' if len(arrays) > 1 else ''} ({', '.join(levels)})")
    else:
        parts.append("no md")
    parts.append(
        f"LVM: {len(collection.lvs)} LV{'s' if len(collection.lvs) != 1 else ''}" if collection.lvs else "no LVM"
    )
    return f"{target}: " + ", ".join(parts)
