"""XFS: the geometry mkfs.xfs builds and what `df` shows on it, to the block.

xfs_geometry() follows mkfs.xfs (xfsprogs 5.19 to 6.4; Debian 12 ships 6.1) and
xfs_df() the kernel's free-space accounting (Linux 6.1 to 6.18). Other versions change
defaults that move these figures (xfsprogs 6.5 turns on the reverse-mapping btree, 6.8
uses more AGs on non-rotational devices, before 5.19 small filesystems and logs were
allowed), so they are refused rather than guessed.
"""

from planners.fs.xfs.df import MODELLED_KERNELS, xfs_df, xfs_df_breakdown
from planners.fs.xfs.mkfs import xfs_geometry
from planners.fs.xfs.model import MODELLED_XFSPROGS, XfsDf, XfsGeometry, xfs_mkfs_options

__all__ = [
    "MODELLED_KERNELS",
    "MODELLED_XFSPROGS",
    "XfsDf",
    "XfsGeometry",
    "xfs_df",
    "xfs_df_breakdown",
    "xfs_geometry",
    "xfs_mkfs_options",
]
