"""What a filesystem's own settings cost, said at plan time: before the disks are bought.

ext3/ext4 only: how far it can grow online before the kernel has to change its layout (which
podplan's grow does not plan), and how much the root reserve keeps from everyone else.
"""

from __future__ import annotations

from planners.models import Plan
from planners.names import system_directory
from planners.results import Finding, VolumeResult
from planners.units import format_bytes_decimal


def fs_findings(plan: Plan, volumes: list[VolumeResult]) -> list[Finding]:
    """One finding per cost, for the plan's volumes taken together (they share one recipe)."""
    fs = plan.filesystem
    ext4 = [v.ext4 for v in volumes if v.ext4 is not None]
    if not ext4:
        return []
    out: list[Finding] = []
    each = "each filesystem" if len(ext4) > 1 else "the filesystem"
    first = min(ext4, key=lambda e: e.online_grow_blocks - e.block_count)  # the one with the least room
    room = (first.online_grow_blocks - first.block_count) * first.block_size
    ceiling = first.online_grow_blocks * first.block_size
    limit = f"{ceiling:,} bytes ({format_bytes_decimal(ceiling)}, {room:,} bytes more than made)"
    layout = "past that the kernel converts it to meta_bg for good (ext4_resize_fs), and podplan's grow (f9)"
    if first.meta_bg:
        out.append(
            Finding(
                severity="info",
                layer="filesystem",
                field="filesystem.type",
                message=f"mke2fs makes {each} meta_bg (its descriptors would fill most of a block group): the kernel "
                "grows it online without reserved descriptor blocks, but podplan's grow (f9) does not plan it.",
            )
        )
    elif first.reserved_gdt_blocks:
        out.append(
            Finding(
                severity="warning",
                layer="filesystem",
                field="filesystem.type",
                message=f"{each.capitalize()} ({fs.type}) can grow online to {limit}: the {first.reserved_gdt_blocks} "
                f"descriptor blocks mke2fs reserves (resize_inode) hold no more block groups; {layout} "
                "does not plan that.",
            )
        )
    else:
        out.append(
            Finding(
                severity="warning",
                layer="filesystem",
                field="filesystem.type",
                message=f"{each.capitalize()} ({fs.type}, over 2^32 blocks) gets no reserved descriptor blocks (mke2fs "
                f"drops resize_inode), so it can grow online only to {limit}, where its descriptor blocks are "
                f"full; {layout} plans no growth of it.",
            )
        )
    reserved = sum(e.reserved_blocks * e.block_size for e in ext4)
    if reserved:
        disk = min(d.size for d in plan.disks)
        worth = f", {reserved / disk:.1f} disks' worth" if reserved >= disk else ""
        out.append(
            Finding(
                severity="warning" if reserved >= disk else "info",
                layer="filesystem",
                field="filesystem.reserved_percent",
                message=f"{fs.type} keeps {fs.reserved_percent:g} % of its blocks for root: {reserved:,} bytes "
                f"({format_bytes_decimal(reserved)}{worth}) that df does not count as available; mkfs -m sets it "
                "(the plan's filesystem.reserved_percent, --reserved PCT), tune2fs -m changes it once built.",
            )
        )
    return out


def mount_findings(volumes: list[VolumeResult]) -> list[Finding]:
    """A volume that would be mounted over a system directory: the build script refuses it."""
    return [
        Finding(
            severity="error",
            layer="filesystem",
            field="filesystem.mount_point",
            message=f"{why}. The build script refuses it: give another mount point, or "
            f"`podplan script --mount-over {v.mount_point}` if that is truly meant.",
        )
        for v in volumes
        if (why := system_directory(v.mount_point))
    ]
