"""What the kernel a plan states changes in md's raid4/5/6 write path.

- Stripe threads: until 3.12 every stripe is handled by the array's one mdX_raid5/6 thread (raid5d);
  "raid5: offload stripe handle to workqueue" (S. Li, 851c30c9badf, 3.12) added the worker groups
  that md/group_thread_cnt sizes. A group_thread_cnt stated for an older kernel names a file that
  does not exist there: one thread does the work.
- Full stripes in batches: until 4.1 even adjacent full-stripe writes went through the stripe state
  machine one 4 KiB stripe head at a time; "RAID5: batch adjacent full stripe write" (S. Li,
  59fc630b8b5f, 4.1) runs a batch of them through handle_stripe once, "around 30 %" more throughput
  where raid5d bound (160 KiB random writes to a RAID5 of six PCIe SSDs, 32 KiB chunks, in the
  commit). The md thread preset (md_thread_mb_s) was measured after it (S. Li, 2016), so a full-
  stripe writer on an older kernel gets it / 1.3. Partial stripes were not batched before or after.
- Readahead before 2.6.23 (the "current" and "ahead" windows of mm/readahead.c, replaced by Wu
  Fengguang's on-demand readahead) also submitted the next window when a sequential reader entered
  the one in flight, so one reader kept two windows in flight there too: planners.perf.terms'
  readahead holds for it unchanged. The 4.10 change (a read() larger than the window widens it) is
  planners.perf.terms.LARGE_READS_WIDEN.
- Locks not counted (planners.perf.md_locks): RAID1 before 4.11 took conf->resync_lock in every
  request's wait_barrier and allow_barrier (C. Li's barrier buckets removed it in 4.11), and raid4/5/6
  took the "highly contended" conf->device_lock for every stripe a request touched before S. Li's
  "raid5: relieve lock contention in get_active_stripe()" (566c09c53455, 3.13). Where such an array
  of flash serves several submitting cores directly, the figure leaves that lock out: it is marked
  outside the model, an upper bound. Spinning disks' milliseconds hide it.
"""

from __future__ import annotations

from planners.perf.context import PerfCtx
from planners.perf.memory import kernel_before
from planners.perf.workloads import Workload

GROUP_THREADS_SINCE = (3, 12)
FULL_STRIPE_BATCH_SINCE = (4, 1)
BATCH_GAIN = 1.3  # the batch commit's "around 30 %"


def md_threads(ctx: PerfCtx) -> int:
    """Threads handling an array's stripes: raid5d, and the group threads of kernels that have them."""
    extra = 0 if kernel_before(ctx, GROUP_THREADS_SINCE) else ctx.hardware.md.group_thread_cnt
    return max(1, min(ctx.cpu.cores, 1 + extra))


def md_thread_mb_s(ctx: PerfCtx, full_stripes: bool) -> tuple[float, str]:
    """One stripe thread's rate for this write path, MB/s, and what the kernel changed of it ('' none)."""
    rate = ctx.cpu.md_thread_mb_s
    said = []
    if full_stripes and kernel_before(ctx, FULL_STRIPE_BATCH_SINCE):
        rate /= BATCH_GAIN
        said.append(f"kernel {ctx.kernel} handles full stripes one 4 KiB stripe head at a time (batched from 4.1)")
    if ctx.hardware.md.group_thread_cnt and kernel_before(ctx, GROUP_THREADS_SINCE):
        said.append(f"kernel {ctx.kernel} has no group_thread_cnt (3.12): raid5d alone")
    return rate, "; ".join(said)


RAID1_BARRIER_BUCKETS = (4, 11)
RAID5_HASH_LOCKS = (3, 13)


def locks_not_counted(ctx: PerfCtx, w: Workload) -> str:
    """Why a figure leaves out a lock the stated kernel takes for every request ('' when none)."""
    if not w.direct or min(w.numjobs, ctx.cpu.cores) < 2 or ctx.btrfs is not None:
        return ""
    for i in ctx.volume_groups:
        g = ctx.groups[i]
        if g.disk.rpm:
            continue
        if g.level == 1 and kernel_before(ctx, RAID1_BARRIER_BUCKETS):
            return (
                f"kernel {ctx.kernel}'s RAID1 takes conf->resync_lock for every request (until 4.11), "
                "a lock the model does not count: the figure is an upper bound"
            )
        if g.parity and w.writes and kernel_before(ctx, RAID5_HASH_LOCKS):
            return (
                f"kernel {ctx.kernel}'s raid4/5/6 takes conf->device_lock for every stripe (until 3.13), "
                "a lock the model does not count: the figure is an upper bound"
            )
    return ""
