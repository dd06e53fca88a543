"""The capacity waterfall: from the raw disks to what the filesystem holds, one row per layer's cost.

Each row's bytes are derived from the layers' exact figures, and the rows add up to the usable figure
(a mismatch is a bug, raised): a user reads where every byte went.
"""

from __future__ import annotations

from planners.fs.btrfs import PROFILES
from planners.fs.btrfs_geometry import BtrfsGeometry
from planners.fs.ext4.df import kernel_holdback_blocks
from planners.models import Plan
from planners.results import CapacityStep, GroupResult, VolumeResult


def fits(v: VolumeResult) -> int:
    """What a volume holds: df's available, but for btrfs what a fill stores until ENOSPC (df's available there is
    the kernel's estimate, far under it over mixed sizes)."""
    return v.btrfs.fits_bytes if v.btrfs else v.df_available_bytes


def lvm_alignment_bytes(v: VolumeResult, units: list[int]) -> int:
    """Bytes a volume's LVM leaves unused for alignment: on each PV whose extent is a whole number
    of its write unit (full stripe or chunk, `al.write_unit` of the array or LUN under it), the
    whole units past its last extent."""
    lvg = v.lvm
    if lvg is None:
        return 0
    out = 0
    for unit, size, extents in zip(units, lvg.pv_bytes, lvg.pv_extents, strict=True):
        if unit and lvg.extent_bytes % unit == 0:
            tail = size // 512 * 512 - lvg.pe_start_bytes - extents * lvg.extent_bytes
            out += tail - tail % unit
    return out


def vg_free(plan: Plan, volumes: list[VolumeResult]) -> int:
    """Bytes an LV of a given size leaves in its VG (0 when the LV takes all: LVM's rounding is overhead)."""
    lvs = [v.lvm for v in volumes if v.lvm]
    if not lvs or (plan.lvm.lv_size in (None, "rest") and not plan.lvm.volumes):
        return 0
    return (lvs[0].vg_extents - sum(g.lv_extents for g in lvs)) * lvs[0].extent_bytes


def waterfall(
    raw: int,
    unassigned: int,
    spare: int,
    groups: list[GroupResult],
    array: int,
    aligned: int,
    volumes: list[VolumeResult],
    vg_free: int = 0,
) -> list[CapacityStep]:
    member_raw = sum(g.member_raw_bytes for g in groups)
    offsets = sum(sum(g.md.member_reserved_bytes) for g in groups)
    components = sum(sum(g.md.member_used_bytes) for g in groups) if groups else array
    remainder = member_raw - offsets - components if groups else 0
    block = sum(v.block_device_bytes for v in volumes)
    fs_bytes = sum(v.fs_bytes for v in volumes)
    df_size = sum(v.df_size_bytes for v in volumes)
    avail = sum(fits(v) for v in volumes)
    # btrfs keeps its copies and parity in the filesystem, in the data chunks a fill to ENOSPC ends with; what
    # no chunk holds then is stranded, and what it stores is the end of the waterfall, not df's estimate.
    fills = [v.btrfs for v in volumes if v.btrfs]
    copies = sum(b.fill_copies_bytes for b in fills)
    parity = sum(b.fill_parity_bytes for b in fills)
    stranded = sum(b.stranded_bytes for b in fills)
    steps = [
        ("raw", "raw disks", raw, "sum of every disk's size"),
        ("unassigned", "disks in no group", unassigned, "disks after the last group's members and spares"),
        ("spares", "hot spares", spare, "spare disks hold no data until a member fails"),
        ("md_metadata", "md data offset", offsets, "superblock, bitmap and headroom before the data on each member"),
        ("md_remainder", "md rounding", remainder, "members cut to the smallest member, in whole chunks"),
        ("md_redundancy", "parity / mirrors", components - array + copies, "md array size = data disks x component"),
        ("lvm", "LVM overhead", array - block - aligned - vg_free, "pe_start and what is left under one extent"),
        *(
            [("vg_free", "free in the VG", vg_free, "extents no LV takes (lvm.lv_size): room to grow it")]
            if vg_free
            else []
        ),
        (
            "lvm_align",
            "LVM extent tail",
            aligned,
            "whole full stripes past each PV's last extent: too little for one more extent",
        ),
        ("fs_size", "fs rounding", block - fs_bytes, "mkfs uses whole blocks (and whole AGs / groups)"),
        (
            "fs_metadata",
            "fs metadata",
            fs_bytes - df_size - copies,
            "log or journal, AG headers, bitmaps, inode tables",
        ),
        ("reserved", _held_back(volumes), df_size - avail, _held_back_note(volumes)),
    ]
    if fills:
        steps[-2:] = _btrfs_steps(fills, fs_bytes - copies - parity - stranded - avail, parity, stranded)
    out: list[CapacityStep] = []
    remaining = raw
    for i, (key, label, removed, note) in enumerate(steps):
        if i == 0:
            out.append(CapacityStep(key=key, label=label, removed_bytes=0, remaining_bytes=raw, note=note))
            continue
        remaining -= removed
        out.append(CapacityStep(key=key, label=label, removed_bytes=removed, remaining_bytes=remaining, note=note))
    if remaining != avail:  # the steps must add up; a mismatch is a bug in this module
        raise AssertionError(f"waterfall ends at {remaining}, available is {avail}")
    # A step of a layer the stack does not have is left out, not shown empty (one that removes bytes never is).
    md, lvm = bool(groups), any(v.lvm for v in volumes)
    applies = dict.fromkeys(("unassigned", "spares", "md_metadata", "md_remainder"), md)
    applies |= {"md_redundancy": md or bool(copies), "lvm": lvm, "lvm_align": lvm}
    return [s for s in out if s.removed_bytes or applies.get(s.key, True)]


def _btrfs_steps(
    fills: list[BtrfsGeometry], metadata: int, parity: int, stranded: int
) -> list[tuple[str, str, int, str]]:
    """The waterfall's last rows for btrfs, which ends at what a fill stores: its parity (raid5/6 only), its
    metadata and system chunks, and what no chunk can take."""
    parity_row = ("parity", "btrfs parity", parity, "the data chunks' parity stripes (raid5 one a chunk, raid6 two)")
    return [
        *([parity_row] if any(PROFILES[b.data_profile].nparity for b in fills) else []),
        ("fs_metadata", "fs metadata", metadata, "btrfs metadata and system chunks, every copy"),
        (
            "stranded",
            "stranded",
            stranded,
            "device bytes no chunk can take once a fill reaches ENOSPC (each device's first MiB included)",
        ),
    ]


def _ext_parts(volumes: list[VolumeResult]) -> tuple[int, int] | None:
    """Root reserve and kernel hold-back, in bytes, over ext3/ext4 volumes; None if any volume is not ext."""
    exts = [v.ext4 for v in volumes]
    if not all(exts):
        return None
    reserve = sum(e.reserved_blocks * e.block_size for e in exts if e)
    return reserve, sum(kernel_holdback_blocks(e) * e.block_size for e in exts if e)


def _held_back(volumes: list[VolumeResult]) -> str:
    """The last step's name: on ext3/ext4 with no root reserve and no hold-back (ext3 -m 0) it holds
    only what df counts as Used right after mkfs."""
    return "in use after mkfs" if _ext_parts(volumes) == (0, 0) else "reserved"


def _held_back_note(volumes: list[VolumeResult]) -> str:
    used = "df's Used after mkfs (root directory, lost+found, the resize inode's and journal's mapping blocks)"
    parts = _ext_parts(volumes)
    if parts is None:
        return "root reserve, kernel hold-back, XFS reserve pool and set-aside"
    reserve, hold = parts
    named = [w for w, n in (("root reserve (-m)", reserve), ("kernel hold-back (2 %, at most 4096 blocks)", hold)) if n]
    return ", ".join(named) + f" and {used}" if named else used
