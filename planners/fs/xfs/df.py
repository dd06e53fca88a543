"""What `df -B1` shows for a freshly made, freshly mounted, empty XFS filesystem.

The kernel reports f_blocks = data blocks - internal log, and f_bavail = the free-block
counter less what it holds back (xfs_fs_statfs). The free-block counter starts at what
mkfs left free and loses, at mount, the reserve pool and the unused part of every
per-AG metadata reservation (finobt and refcount btrees may grow into it):

    avail = dblocks - log - mkfs metadata                   (free blocks on disk)
            - min(dblocks / 20, 8192)                       (reserve pool)
            - sum over AGs of (max btree size - root block) (per-AG reservations)
            - agcount * 8                                   (AGFL refill set-aside)
"""

from __future__ import annotations

from planners.errors import PlanError
from planners.fs.xfs.model import INODES_PER_CHUNK, XfsDf, XfsGeometry, ag_header_blocks
from planners.versions import Version, format_version

MODELLED_KERNELS: tuple[Version, Version] = ((6, 1), (6, 19))
"""Kernels whose XFS space accounting this module follows: [first, last)."""

BTREE_BLOCK_HEADER = 56  # short-form v5 btree block header
RESERVE_POOL_MAX_BLOCKS = 8192
SET_ASIDE_PER_AG = 4 + 4  # an empty AGFL's refill plus a bmap btree split


def _btree_blocks(records: int, leaf_recs: int, node_recs: int) -> int:
    """Blocks of a btree holding `records` with half-full blocks (the worst case)."""
    leaf_min, node_min = leaf_recs // 2, node_recs // 2
    level = -(-records // leaf_min)
    total = level
    while level > 1:
        level = -(-level // node_min)
        total += level
    return total


def _ag_reservation(geo: XfsGeometry, ag_blocks: int) -> int:
    """Blocks a per-AG metadata reservation hides from the free count in one AG."""
    payload = geo.block_size - BTREE_BLOCK_HEADER
    ask = used = 0
    if geo.reflink:
        # refcount records are 12 bytes; keys and pointers 4 + 4.
        ask += _btree_blocks(ag_blocks, payload // 12, payload // 8)
        used += 1
    if geo.finobt:
        # One inobt record (16 bytes) per 64 inodes, as if the AG held only inodes.
        inodes_per_block = geo.block_size // geo.inode_size
        ask += _btree_blocks(ag_blocks * inodes_per_block // INODES_PER_CHUNK, payload // 16, payload // 8)
        used += 1
    return max(ask, used) - used


def mkfs_metadata_blocks(geo: XfsGeometry) -> int:
    """Blocks mkfs leaves in use outside the log: per-AG headers and btree roots, and
    the root directory's inode chunk."""
    per_ag = ag_header_blocks(geo.block_size, geo.sector_size) + geo.btree_roots
    inode_chunk = INODES_PER_CHUNK * geo.inode_size // geo.block_size
    return geo.agcount * per_ag + max(inode_chunk, 1)


def check_kernel(kernel: Version) -> None:
    low, high = MODELLED_KERNELS
    if not low <= tuple(kernel[:2]) < high:
        raise PlanError(
            f"Linux {format_version(kernel)} is not modelled for XFS free space: podplan knows "
            f"{format_version(low)} up to (not including) {format_version(high)}.",
            field="kernel",
        )


def xfs_df(geo: XfsGeometry, *, kernel: Version = (6, 1)) -> tuple[int, int]:
    """(size, available) bytes `df -B1` shows for `geo` right after mkfs.xfs and mount."""
    df = xfs_df_breakdown(geo, kernel=kernel)
    return df.size_bytes, df.avail_bytes


def xfs_df_breakdown(geo: XfsGeometry, *, kernel: Version = (6, 1)) -> XfsDf:
    """`df -B1` of `geo` right after mkfs.xfs and mount, with where the rest went."""
    check_kernel(kernel)
    if geo.rmapbt or not geo.crc:
        raise PlanError(
            "XFS free space is modelled only for v5 filesystems without the reverse-mapping btree.",
            field="xfs",
        )
    blocks = geo.data_blocks - geo.log_blocks
    metadata = mkfs_metadata_blocks(geo)
    reserve = min(geo.data_blocks // 20, RESERVE_POOL_MAX_BLOCKS)
    ag_resv = sum(n * _ag_reservation(geo, length) for length, n in _ag_lengths_for_btrees(geo).items())
    set_aside = geo.agcount * SET_ASIDE_PER_AG
    avail = max(0, blocks - metadata - reserve - ag_resv - set_aside)
    bs = geo.block_size
    return XfsDf(
        size_bytes=blocks * bs,
        avail_bytes=avail * bs,
        metadata_bytes=metadata * bs,
        reserve_pool_bytes=reserve * bs,
        ag_reservation_bytes=ag_resv * bs,
        set_aside_bytes=set_aside * bs,
    )


def _ag_blocks_for_btrees(geo: XfsGeometry, agno: int) -> int:
    # The log never frees up, so the kernel sizes the log AG's btrees without it.
    length = geo.last_ag_blocks if agno == geo.agcount - 1 else geo.agsize_blocks
    return length - geo.log_blocks if agno == geo.log_agno else length


def _ag_lengths_for_btrees(geo: XfsGeometry) -> dict[int, int]:
    """{AG length for btree sizing: how many AGs have it}. All AGs but the last and the
    log's are alike, so a 1 PiB filesystem costs three reservation sums, not thousands."""
    special = {geo.agcount - 1, geo.log_agno}
    counts: dict[int, int] = {}
    for agno in special:
        length = _ag_blocks_for_btrees(geo, agno)
        counts[length] = counts.get(length, 0) + 1
    plain = geo.agcount - len(special)
    if plain:
        counts[geo.agsize_blocks] = counts.get(geo.agsize_blocks, 0) + plain
    return counts
