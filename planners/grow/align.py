"""Alignments a reshape leaves behind: what stays recorded, what a fresh build would get, the cost.

A reshape changes the md full stripe (chunk x data disks) but not what was recorded above it:
XFS keeps sunit/swidth in its superblock, ext4 its stride/stripe_width, and every PV its
pe_start. Decisions: ext4's stripe_width is a superblock hint tune2fs changes on a mounted
filesystem, so the grow script sets it. XFS takes new sunit/swidth only as mount options at a
fresh mount (not a remount), which means taking the pod offline: the script says how and leaves
it to the operator. pe_start cannot move without a new PV.
"""

from __future__ import annotations

import shlex

from planners.grow.model import AlignmentChange, ArrayGrowth
from planners.models import Plan
from planners.results import VolumeResult


def _cmd(*argv: str) -> str:
    return " ".join(shlex.quote(a) for a in argv)


def alignment_changes(
    old: Plan, vol: VolumeResult, vol_new: VolumeResult, reshaped: list[ArrayGrowth]
) -> list[AlignmentChange]:
    if not reshaped:
        return []  # a new array shaped like the others changes no stripe
    a, b = vol.alignment, vol_new.alignment
    rmw = _misaligned_cost(reshaped)
    if (a.fs_stripe_unit_bytes, a.fs_stripe_width_units) == (b.fs_stripe_unit_bytes, b.fs_stripe_width_units):
        out = _width_across_lv(vol, reshaped, rmw)
    else:
        out = [_fs_stripe(old, vol, vol_new, rmw)]
    if vol.lvm is not None:
        out += _pe_starts(vol, reshaped, rmw)
    if old.tuning.readahead is None and a.readahead_sectors != b.readahead_sectors:
        out.append(_readahead(old, vol, vol_new))
    return out


def _misaligned_cost(reshaped: list[ArrayGrowth]) -> str:
    """What a write aligned to the old full stripe costs on the reshaped arrays."""
    parity = any(r.level_after in (4, 5, 6) for r in reshaped)
    return (
        "with parity RAID a write of one new full stripe then straddles two and costs a read-modify-write of "
        "parity; data is safe, only large writes are slower"
        if parity
        else "large writes no longer start on full-stripe boundaries, so they keep fewer disks busy at once"
    )


def _width_across_lv(vol: VolumeResult, reshaped: list[ArrayGrowth], rmw: str) -> list[AlignmentChange]:
    """The filesystem's stripe width stays, but a reshaped array under the same LV now has another."""
    a = vol.alignment
    recorded = a.fs_stripe_unit_bytes * a.fs_stripe_width_units
    off = [r for r in reshaped if recorded and r.chunk_bytes and r.chunk_bytes * _data_disks(r) != recorded]
    if not off:
        return []
    r = off[0]
    return [
        AlignmentChange(
            layer="filesystem",
            figure=f"filesystem stripe width against {r.name}",
            before=f"su {a.fs_stripe_unit_bytes} bytes x sw {a.fs_stripe_width_units}",
            ideal=f"su {r.chunk_bytes} bytes x sw {_data_disks(r)} on {r.name}",
            cost=f"the filesystem has one stripe width for every array under the LV, and {r.name}'s is now "
            f"{(r.chunk_bytes or 0) * _data_disks(r)} bytes: on its extents {rmw}.",
            remedy="grow every array alike to keep one width across the LV; nothing else realigns it.",
        )
    ]


def _fs_stripe(old: Plan, vol: VolumeResult, vol_new: VolumeResult, rmw: str) -> AlignmentChange:
    """The filesystem's recorded stripe against the new one: XFS needs a mount, ext4 takes tune2fs online."""
    a, b = vol.alignment, vol_new.alignment
    su, sw = b.fs_stripe_unit_bytes, b.fs_stripe_width_units
    before = f"su {a.fs_stripe_unit_bytes} bytes x sw {a.fs_stripe_width_units}"
    ideal = f"su {su} bytes x sw {sw}"
    if old.filesystem.type == "xfs":
        opts = f"sunit={su // 512},swidth={su * sw // 512}"
        return AlignmentChange(
            layer="filesystem",
            figure="XFS stripe (sunit/swidth)",
            before=before,
            ideal=ideal,
            cost=f"XFS keeps allocating for the old full stripe of {a.fs_stripe_unit_bytes * a.fs_stripe_width_units} "
            f"bytes, not the new {su * sw}: {rmw}.",
            remedy=f"unmount and mount once with -o {opts} (512-byte sectors): XFS records the new values in its "
            "superblock; a remount does not. The script does not take the pod offline for it.",
            commands=(_cmd("umount", vol.mount_point), _cmd("mount", "-o", opts, vol.device, vol.mount_point)),
        )
    blk = old.filesystem.block_size
    ext = f"stride={su // blk},stripe_width={su // blk * sw}"
    fs = old.filesystem.type
    return AlignmentChange(
        layer="filesystem",
        figure=f"{fs} stride/stripe_width (blocks)",
        before=f"stride={a.ext4_stride_blocks},stripe_width={a.ext4_stripe_width_blocks}",
        ideal=ext,
        cost=_ext_stripe_cost(old, rmw),
        remedy="tune2fs -E changes the hint on the mounted filesystem; new allocations follow it at once "
        "(the script does it).",
        commands=(_cmd("tune2fs", "-E", ext, vol.device),),
        in_script=True,
    )


# Linux 4.3 removed the ext3 driver: from then on the ext4 driver (and its allocator) mounts ext3.
EXT4_DRIVER_FOR_EXT3 = (4, 3)


def _ext_stripe_cost(old: Plan, rmw: str) -> str:
    """What the old stripe width costs: the allocator that reads it is ext4's (mballoc), which mounts
    ext3 too on the kernels that have no ext3 driver; ext3's own driver never read it."""
    if old.filesystem.type == "ext4":
        return f"ext4's allocator aligns large files to the old stripe width: {rmw}."
    if old.tools.v("kernel") >= EXT4_DRIVER_FOR_EXT3:
        return (
            "on the plan's kernel the ext4 driver mounts ext3 (Linux 4.3 and later have no other), and its allocator aligns "
            f"large allocations to the stripe width in the superblock, now the old one: {rmw}."
        )
    return (
        "ext3's own driver (before Linux 4.3) allocates without reading the stripe width, so the old value "
        "costs nothing now; set it anyway for a later kernel, where the ext4 driver mounts ext3 and follows it."
    )


def _pe_starts(vol: VolumeResult, reshaped: list[ArrayGrowth], rmw: str) -> list[AlignmentChange]:
    """The PV data start that no longer falls on a reshaped array's full stripe."""
    assert vol.lvm is not None
    out: list[AlignmentChange] = []
    pe = vol.lvm.pe_start_bytes
    for r in reshaped:
        stripe = (r.chunk_bytes or 0) * _data_disks(r)
        if stripe and pe % stripe:
            out.append(
                AlignmentChange(
                    layer="lvm",
                    figure=f"pe_start on {r.name} (bytes)",
                    before=str(pe),
                    ideal=f"a multiple of {stripe}",
                    cost=f"extents on {r.name} no longer start on a full stripe ({stripe} bytes): {rmw}.",
                    remedy="only a new PV fixes it: pvcreate --dataalignment on a new array and pvmove the extents "
                    "over (online, but it reads and writes everything); most pods live with it.",
                )
            )
    return out


def _readahead(old: Plan, vol: VolumeResult, vol_new: VolumeResult) -> AlignmentChange:
    """Readahead of two new full stripes, where the plan leaves it to podplan."""
    a, b = vol.alignment, vol_new.alignment
    if vol.lvm is not None:
        cmds = (_cmd("lvchange", "-r", str(b.readahead_sectors), f"{old.lvm.vg}/{old.lvm.lv}"),)
        where = "lvchange keeps it in the LVM metadata"
    else:
        cmds = (_cmd("blockdev", "--setra", str(b.readahead_sectors), vol.device),)
        where = "the script also rewrites the udev rule the build script made, so it survives a reboot"
    return AlignmentChange(
        layer="tuning",
        figure="readahead (512-byte sectors)",
        before=str(a.readahead_sectors),
        ideal=str(b.readahead_sectors),
        cost="one buffered sequential reader keeps fewer of the new disks busy than it could.",
        remedy=f"set it to two new full stripes; {where}.",
        commands=cmds,
        in_script=True,
    )


def _data_disks(r: ArrayGrowth) -> int:
    if r.level_after in (4, 5):
        return r.members_after - 1
    if r.level_after == 6:
        return r.members_after - 2
    layout = r.layout_after or ""
    near = int(layout[1:]) if r.level_after == 10 and layout.startswith("n") else 1
    return r.members_after // near if r.members_after % near == 0 else r.members_after
