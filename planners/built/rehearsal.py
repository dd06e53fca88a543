"""Scaling a plan down for a rehearsal on virtual disks.

A rehearsal keeps everything of the plan but the disk sizes: the largest disk becomes
the rehearsal size and the others keep their proportion, so mixed-size effects stay.
Every disk is rounded down to whole MiB, a multiple of any sector size.
"""

from __future__ import annotations

from collections.abc import Sequence

from planners.compute import compute
from planners.errors import PlanError
from planners.models import Plan
from planners.results import VolumeResult
from planners.units import MiB
from planners.versions import ToolVersions

# Rehearsal disk sizes tried in order when none is given: small is quick under emulation,
# but the filesystem must be big enough for mkfs.xfs (300 MiB, more with a stripe).
SIZE_LADDER = tuple(n * MiB for n in (64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048, 4096))
# mkfs.xfs 6.1 wants 300 MiB, and 512 MiB + 4 KiB once a stripe spreads the log over 8 AGs. For btrfs the
# figure is per device: mkfs.btrfs 6.2 refuses a RAID1 device under 125 MiB.
MIN_VOLUME = {"xfs": 600 * MiB, "ext4": 128 * MiB, "ext3": 128 * MiB, "btrfs": 256 * MiB}


def scale_plan(plan: Plan, disk_size: int, devices: Sequence[str] = (), tools: ToolVersions | None = None) -> Plan:
    """The plan with its largest disk at `disk_size` and the others in proportion.

    `devices` (one per disk, in plan order) replace the plan's device paths; `tools`
    replaces the assumed tool versions with the ones the rehearsal really runs.
    """
    largest = max(d.size for d in plan.disks)
    if disk_size < 4 * MiB:
        raise PlanError(f"a rehearsal disk of {disk_size} bytes is too small (4 MiB at least)", "disk_size")
    count = sum(d.count for d in plan.disks)
    if devices and len(devices) != count:
        raise PlanError(f"{count} disks but {len(devices)} rehearsal devices", "devices")
    sets: list[dict[str, object]] = []
    pos = 0
    for d in plan.disks:
        size = max(4 * MiB, d.size * disk_size // largest // MiB * MiB)
        devs = list(devices[pos : pos + d.count]) if devices else []
        pos += d.count
        sets.append({**d.model_dump(), "size": size, "devices": devs})
    data = {**plan.model_dump(), "disks": sets}
    if tools is not None:
        data["tools"] = tools.model_dump()
    return Plan.model_validate(data)


def choose_disk_size(plan: Plan, tools: ToolVersions | None = None) -> int:
    """The smallest ladder size at which the scaled plan computes and every volume is big
    enough for its filesystem to behave as it will at full size."""
    last_error: PlanError | None = None
    for size in SIZE_LADDER:
        try:
            result = compute(scale_plan(plan, size, tools=tools))
        except PlanError as exc:
            last_error = exc
            continue
        if all(_smallest_device(v) >= MIN_VOLUME[plan.filesystem.type] for v in result.volumes):
            return size
    if last_error is not None:
        raise PlanError(
            f"no rehearsal disk size up to 4 GiB makes this plan work: {last_error.message}", last_error.field
        )
    return SIZE_LADDER[-1]


def _smallest_device(volume: VolumeResult) -> int:
    """The bytes of the smallest device the filesystem is made on (btrfs spans several)."""
    return min(volume.btrfs.device_bytes) if volume.btrfs is not None else volume.block_device_bytes
