"""Where a workload's bytes land among the arrays of a volume, and so how its requests divide.

A striped LV deals every stripe_size to the next array: any I/O reaches all of them evenly.
A linear LV is the arrays one after another, so what matters is where on the LV the I/O is:

- A raw device job with a size (fio `size=`, no offset: offsets are refused) covers the first
  `size` bytes of the LV; without one, the whole LV.
- Files of a new job land at the start of the filesystem, packed one after another, when they
  sit in the filesystem's root directory (podplan's validate file does; a job file's
  `directory=` is taken to be the root too: where another directory lies is not in the plan,
  because new directories are spread on purpose: XFS deals them to the AGs in turn (the
  m_agirotor in `xfs_dialloc`), ext4's Orlov allocator puts a top-level directory in a flex
  group with more free space than average (ialloc.c `find_group_orlov`)).
  XFS puts a regular file's inode in its parent directory's allocation group (xfsprogs/kernel
  xfs_ialloc.c `xfs_dialloc`: only new directories rotate over the AGs), its first extent near
  that inode, and moves to the next AG only when the AG's longest free extent cannot hold the
  request (xfs_bmap.c `xfs_bmap_btalloc`, xfs_alloc.c `xfs_alloc_vextent_start_ag`). The root's
  AG is AG 0, the start of the LV. ext4 puts a file's inode in its parent's flex group
  (ialloc.c `find_group_other`), aims its blocks at that flex group's second block group
  (extents.c `ext4_inode_to_goal_block`), and mballoc fills onward from there. fio lays the
  files out one after another before the jobs start (create_serialize=1, fallocate), so no two
  allocations race for an AG. Seen on a real kernel (tests/test_placement_real.py): 8 files of
  20 MiB all in AG 0 of an XFS of four 256 MiB AGs; 4 x 100 MiB filled AG 0, then AG 1; on
  ext4 the same four files lay end to end from the first block group.
- So random I/O over a span lands on each array in proportion to how much of the span it
  holds; each sequential stream (a clone reading or writing its own file, or all clones
  starting at the start of one shared file or device) stays on the array where it starts:
  an array holds terabytes, a run moves gigabytes.

The model ignores the few blocks of filesystem metadata ahead of the files (the XFS log sits in
the middle AG, ext4's inode tables in each flex group's first groups): megabytes against arrays
of terabytes.
"""

from __future__ import annotations

from planners.perf.context import PerfCtx
from planners.perf.workloads import Workload


def array_spans(ctx: PerfCtx) -> list[tuple[int, int, int]]:
    """(group index, first byte, end byte) of each array on a linear LV, in LV order."""
    out, at = [], 0
    for i in ctx.volume_groups:
        size = ctx.groups[i].array_bytes
        out.append((i, at, at + size))
        at += size
    return out


def file_ranges(total: int, files: int) -> list[tuple[int, int]]:
    """(first byte, end byte) on the volume of each of a new job's files: end to end from the start."""
    n = max(1, files)
    return [(k * total // n, (k + 1) * total // n) for k in range(n)]


def shares(ctx: PerfCtx, w: Workload) -> dict[int, float]:
    """Fraction of the workload's bytes (random) or streams (sequential) that reach each array."""
    vg = ctx.volume_groups
    if ctx.lvm_mode != "linear" or len(vg) == 1:
        return ctx.shares(not w.is_random)
    spans = array_spans(ctx)
    end = min(w.size, spans[-1][2]) if w.size else spans[-1][2]
    if w.is_random:
        covered = {i: max(0, min(hi, end) - lo) for i, lo, hi in spans}
        return {i: b / end for i, b in covered.items() if b > 0}
    # Sequential: each stream where its file (or the shared start) begins.
    streams = [lo for lo, _ in file_ranges(end, w.files)] if w.files > 1 else [0] * w.numjobs
    out: dict[int, float] = {}
    for start in streams:
        i = next(i for i, lo, hi in spans if lo <= start < hi)
        out[i] = out.get(i, 0.0) + 1 / len(streams)
    return out
