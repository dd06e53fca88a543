"""What `df -B1` shows for an empty ext4/ext3 filesystem right after mke2fs and mount.

The kernel (ext4_statfs, Linux >= 5.18 and the stable kernels that took the same fix,
so Debian 12's 6.1 as well as current ones) reports
  size  = (blocks - overhead) * block size, overhead = first data block + superblock
          copies + descriptor and reserved descriptor blocks + both bitmaps and the inode
          table of every group + the journal;
  avail = free - root reserve - min(2% of blocks, 4096 blocks); that last hold-back
          (s_resv_clusters) exists only with the extent feature, so ext3 has none.
Free blocks are what mke2fs leaves: everything but the overhead, the journal's own
mapping blocks, the root directory, lost+found and the resize inode's block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PlanError
from planners.fs.ext4.alloc import Allocator, Unmodelled, extent_tree_blocks
from planners.fs.ext4.layout import Shape, descriptors_per_block, indirect_blocks

if TYPE_CHECKING:
    from planners.fs.ext4.geometry import Ext4Geometry

LOST_FOUND_BYTES = 16384  # mke2fs grows lost+found to this, at least two blocks, < 12 blocks
RESV_CLUSTERS_MAX = 4096


class Ext4Df(BaseModel):
    """An empty filesystem as statfs and `df -B1` see it, plus where the blocks went."""

    model_config = ConfigDict(frozen=True)

    block_size: int = Field(description="Filesystem block size in bytes.")
    overhead_blocks: int = Field(
        description="Blocks the kernel counts as filesystem overhead (not in df size), in blocks."
    )
    total_blocks: int = Field(description="statfs f_blocks: blocks minus overhead, in blocks.")
    free_blocks: int = Field(description="statfs f_bfree: free blocks after mke2fs, in blocks.")
    reserved_blocks: int = Field(description="Root reserve (-m), in blocks.")
    kernel_reserved_blocks: int = Field(
        description="Blocks the kernel holds back from everyone (s_resv_clusters), in blocks."
    )
    avail_blocks: int = Field(description="statfs f_bavail: blocks a normal user can use.")

    @property
    def size_bytes(self) -> int:
        """df -B1 '1B-blocks'."""
        return self.total_blocks * self.block_size

    @property
    def avail_bytes(self) -> int:
        """df -B1 'Available'."""
        return self.avail_blocks * self.block_size

    @property
    def used_bytes(self) -> int:
        """df -B1 'Used'."""
        return (self.total_blocks - self.free_blocks) * self.block_size


def shape_of(geometry: Ext4Geometry) -> Shape:
    g = geometry
    return Shape(
        blocks=g.block_count,
        first_data_block=g.first_data_block,
        blocks_per_group=g.blocks_per_group,
        groups=g.block_groups,
        desc_blocks=g.desc_blocks,
        desc_per_block=descriptors_per_block(g.block_size, "64bit" in g.features),
        reserved_gdt=g.reserved_gdt_blocks,
        meta_bg=g.meta_bg,
        inode_blocks=g.inode_table_blocks,
        flex=g.flex_bg_size,
        block_size=g.block_size,
    )


def lost_found_blocks(block_size: int) -> int:
    """Blocks mke2fs gives lost+found: grown to 16 KiB, at least 2, at most 11 expansions."""
    blocks = 1
    size = 0
    for _ in range(1, 12):
        size += block_size
        if size >= LOST_FOUND_BYTES and size >= 2 * block_size:
            break
        blocks += 1
    return blocks


def journal_map_blocks(geometry: Ext4Geometry) -> int:
    """Blocks the journal inode needs to map its blocks (extent leaf or indirect blocks)."""
    g = geometry
    if not g.journal_blocks:
        return 0
    if "extent" not in g.features:
        return indirect_blocks(g.journal_blocks, g.block_size)
    try:
        alloc = Allocator(
            shape_of(g), lost_found_blocks=lost_found_blocks(g.block_size), resize_inode="resize_inode" in g.features
        )
        extents = alloc.journal_extents(g.journal_blocks)
        return extent_tree_blocks(len(extents), g.block_size)
    except Unmodelled as exc:
        raise PlanError(f"podplan cannot predict this ext4 layout exactly ({exc}).", field="size_bytes") from None


def kernel_holdback_blocks(g: Ext4Geometry) -> int:
    """Blocks the kernel holds back from everyone (s_resv_clusters): min(2 %, 4096 blocks), with extents only."""
    return min(g.block_count // 50, RESV_CLUSTERS_MAX) if "extent" in g.features else 0


def ext4_df(geometry: Ext4Geometry) -> Ext4Df:
    """Predicted statfs figures of `geometry` freshly made and mounted, nothing written."""
    g = geometry
    shape = shape_of(g)
    overhead = g.first_data_block + shape.metadata_total() + g.journal_blocks
    lost_found = lost_found_blocks(g.block_size)
    # lost+found is at most 11 blocks, all direct, in either mapping scheme
    files = 1 + lost_found + (1 if "resize_inode" in g.features else 0)
    free = g.block_count - overhead - journal_map_blocks(g) - files
    resv = kernel_holdback_blocks(g)
    avail = max(free - g.reserved_blocks - resv, 0)
    return Ext4Df(
        block_size=g.block_size,
        overhead_blocks=overhead,
        total_blocks=g.block_count - overhead,
        free_blocks=free,
        reserved_blocks=g.reserved_blocks,
        kernel_reserved_blocks=resv,
        avail_blocks=avail,
    )
