"""What `df -B1` shows after growing a mounted filesystem: xfs_growfs and resize2fs.

A grown filesystem is not a freshly made bigger one. xfs_growfs keeps the AG size, fills
the old last AG, adds whole AGs and a shorter last one (dropped under 64 blocks, as the
kernel's xfs_growfs_data_private does); the log stays where and as big as it was, and the
reserve pool keeps the size it got at mount. resize2fs adds block groups with the same
inodes per group; new descriptor blocks come out of the reserved GDT blocks, and a last
group too small for its own metadata is left off. Online (the mounted case the grow script
uses) the kernel gives the new groups the old reserve's whole percent, and keeps the
hold-back (s_resv_clusters) it computed at mount; offline resize2fs scales the reserve by
its exact ratio and the next mount recomputes the hold-back.
"""

from __future__ import annotations

from dataclasses import replace

from planners.errors import PlanError
from planners.fs.ext4.df import RESV_CLUSTERS_MAX, ext4_df, shape_of
from planners.fs.ext4.geometry import PAGE_SIZE, Ext4Geometry
from planners.fs.ext4.layout import has_super
from planners.fs.xfs.df import xfs_df_breakdown
from planners.fs.xfs.model import XfsGeometry
from planners.versions import Version

XFS_MIN_AG_BLOCKS = 64  # the kernel drops a new last AG shorter than this
EXT4_FLEX_BATCH = 16  # online resize adds groups one flex group (mke2fs -G 16) at a time


class GrownXfs(XfsGeometry):
    """An XFS geometry after xfs_growfs: the internal log stays in the AG mkfs chose."""

    old_agcount: int

    @property
    def log_agno(self) -> int:
        return self.old_agcount // 2


def xfs_grown(old: XfsGeometry, device_bytes: int) -> GrownXfs:
    """The geometry xfs_growfs gives `old` on a device of `device_bytes`."""
    bs = old.block_size
    blocks = device_bytes // bs
    if blocks < old.data_blocks:
        raise PlanError(
            f"the device ({device_bytes} bytes) is smaller than the XFS filesystem on it "
            f"({old.data_blocks * bs} bytes): XFS cannot shrink",
            "filesystem",
        )
    agcount, rest = divmod(blocks, old.agsize_blocks)
    if rest >= XFS_MIN_AG_BLOCKS:
        agcount += 1
    else:
        blocks = agcount * old.agsize_blocks
    if blocks <= old.data_blocks:  # too little to add even a minimal AG: xfs_growfs changes nothing
        agcount, blocks = old.agcount, old.data_blocks
    return GrownXfs(**{**old.model_dump(), "agcount": agcount, "data_blocks": blocks}, old_agcount=old.agcount)


def xfs_grown_df(old: XfsGeometry, grown: GrownXfs, *, kernel: Version) -> tuple[int, int]:
    """(size, available) `df -B1` shows right after xfs_growfs, nothing written in between.

    The reserve pool was sized at mount from the old size and growfs does not resize it.
    """
    df = xfs_df_breakdown(grown, kernel=kernel)
    kept = min(old.data_blocks // 20, 8192) * old.block_size
    return df.size_bytes, max(0, df.avail_bytes + df.reserve_pool_bytes - kept)


def ext4_grown(old: Ext4Geometry, device_bytes: int, *, online: bool = True) -> Ext4Geometry:
    """The geometry resize2fs gives `old` on a device of `device_bytes` (online: mounted)."""
    if old.meta_bg or "resize_inode" not in old.features:
        raise PlanError(
            "podplan models ext4 growth only through the reserved GDT blocks (resize_inode); this filesystem has none",
            "filesystem",
        )
    bs, fdb, bpg = old.block_size, old.first_data_block, old.blocks_per_group
    blocks = device_bytes // bs
    if bs < PAGE_SIZE:
        blocks &= ~(PAGE_SIZE // bs - 1)
    if blocks < old.block_count:
        raise PlanError(
            f"the device ({device_bytes} bytes) is smaller than the {old.fs_type} filesystem on it "
            f"({old.size_bytes} bytes): podplan plans growth only",
            "filesystem",
        )
    per_block = bs // old.desc_size
    while True:
        groups = -(-(blocks - fdb) // bpg)
        desc = -(-groups // per_block)
        rsv = old.reserved_gdt_blocks - (desc - old.desc_blocks)
        if rsv < 0:
            raise PlanError(
                f"growing to {groups} block groups needs more descriptor blocks than the "
                f"{old.reserved_gdt_blocks} mke2fs reserved: the kernel would convert to meta_bg, "
                "which podplan does not model",
                "filesystem",
            )
        last = groups - 1
        rem = (blocks - fdb) % bpg
        sb = (1 + desc + rsv) if has_super(last) else 0
        if groups > old.block_groups and rem:
            if online and fdb + last * bpg + sb + 2 + old.inode_table_blocks + 1 >= blocks:
                blocks = fdb + last * bpg  # ext4_resize_fs: the last group could not hold its metadata
                continue
            if not online and rem < sb + 2 + old.inode_table_blocks + 50:
                blocks -= rem  # resize2fs's adjust_fs_info keeps mke2fs's rule
                continue
        break
    if online:
        reserved = _online_reserve(old, blocks)
    else:
        reserved = int(old.reserved_blocks * 100.0 / old.block_count * blocks / 100.0)
    return old.model_copy(
        update={
            "block_count": blocks,
            "device_blocks": device_bytes // bs,
            "reserved_gdt_blocks": rsv,
            "reserved_blocks": reserved,
        }
    )


def _online_reserve(old: Ext4Geometry, blocks: int) -> int:
    """The kernel (ext4_update_super) gives each batch of new groups the reserve's whole percent."""
    bpg, fdb = old.blocks_per_group, old.first_data_block
    now = min(blocks, fdb + old.block_groups * bpg)  # the old last group is filled first, reserve unchanged
    reserved = old.reserved_blocks
    group = old.block_groups
    batch = max(old.flex_bg_size, 1) if old.flex_bg_size else 1
    while now < blocks:
        last = group | (batch - 1)
        end = min(blocks, fdb + (last + 1) * bpg)
        added = end - now
        reserved += reserved * 100 // now * added // 100
        now, group = end, last + 1
    return reserved


def ext4_grown_df(old: Ext4Geometry, grown: Ext4Geometry, *, online: bool = True) -> tuple[int, int]:
    """(size, available) `df -B1` shows after resize2fs, nothing written in between."""
    before = ext4_df(old)
    shape_old = shape_of(old)
    shape_new = replace(
        shape_old,
        blocks=grown.block_count,
        groups=grown.block_groups,
        desc_blocks=grown.desc_blocks,
        reserved_gdt=grown.reserved_gdt_blocks,
    )
    overhead_old = old.first_data_block + shape_old.metadata_total() + old.journal_blocks
    overhead_new = old.first_data_block + shape_new.metadata_total() + old.journal_blocks
    added = grown.block_count - old.block_count
    free = before.free_blocks + added - (overhead_new - overhead_old)
    held = before.kernel_reserved_blocks
    if not online and "extent" in old.features:
        held = min(grown.block_count // 50, RESV_CLUSTERS_MAX)
    avail = max(free - grown.reserved_blocks - held, 0)
    return (grown.block_count - overhead_new) * old.block_size, avail * old.block_size
