"""What a filesystem's own settings cost, said at plan time: before the disks are bought.

ext3/ext4 only: how far it can grow online before the kernel has to change its layout (which
podplan's grow does not plan), and how much the root reserve keeps from everyone else.
"""

from __future__ import annotations

from planners.fs.ext4.geometry import MAX_U32, Ext4Geometry
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
    # A filesystem straight on one disk or LUN (no md to reshape, no LVM to extend) has no device to
    # grow onto: its online-growth ceiling is never reached.
    grows = any(v.groups or v.lvm is not None for v in volumes)
    out = _growth(fs.type, ext4) if grows else []
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


def _growth(fs_type: str, ext4: list[Ext4Geometry]) -> list[Finding]:
    """How far the filesystem grows online, and what stops it there."""
    out: list[Finding] = []
    each = "each filesystem" if len(ext4) > 1 else "the filesystem"
    first = min(ext4, key=lambda e: e.online_grow_blocks - e.block_count)  # the one with the least room
    room = (first.online_grow_blocks - first.block_count) * first.block_size
    ceiling = first.online_grow_blocks * first.block_size
    limit = f"{ceiling:,} bytes ({format_bytes_decimal(ceiling)}, {room:,} bytes more than made)"
    layout = "past that the kernel converts it to meta_bg for good (ext4_resize_fs), and podplan's grow (f9)"
    if "64bit" not in first.features and first.online_grow_blocks == MAX_U32:
        # Block numbers are 32 bits: no descriptor layout, meta_bg or not, goes past 2^32 - 1 blocks.
        out.append(
            Finding(
                severity="warning",
                layer="filesystem",
                field="filesystem.type",
                message=f"{each.capitalize()} ({fs_type}, without the 64bit feature) can grow to {limit} and no "
                f"further: its block numbers end at 2^32 - 1 ({first.block_size}-byte blocks); only a new "
                "filesystem with 64bit (ext4) goes past that.",
            )
        )
    elif first.meta_bg:
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
                message=f"{each.capitalize()} ({fs_type}) can grow online to {limit}: the {first.reserved_gdt_blocks} "
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
                message=f"{each.capitalize()} ({fs_type}, over 2^32 blocks) gets no reserved descriptor blocks (mke2fs "
                f"drops resize_inode), so it can grow online only to {limit}, where its descriptor blocks are "
                f"full; {layout} plans no growth of it.",
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
