"""md's serialized work per request: the cache lines every submitting core writes.

The CPU per request term (planners.perf.request_cpu) spreads each request's CPU over the cores as
if they never met. They do: every request through md writes a few words that all submitting
cores share (a counter of requests in flight, a lock), and a cache line has one writer at a time.
Each write by a core that does not hold the line moves it there, one transfer after another, so
a line bounds the array at

    requests/s <= 1 / (transfers of the line per request x one transfer's time)

whatever the number of cores. The busiest line binds (name "md locks").

Transfers per request, counted in the kernel's source (one atomic read-modify-write = 1; a read
of the same line just before it is taken as part of that transfer; a contended queued spinlock
taken and released = 5: the failed fast-path cmpxchg, the waiter's xchg of the queue tail, the
holder's unlocking store, the queue head's read of the free lock and its store taking it;
wake_up() on an empty queue takes its wait queue's lock and touches nothing else):
- md core (md_handle_request, every level): mddev->active_io, an atomic_t incremented and
  decremented around every request, 2, until it became a percpu_ref in 6.3 (X. Ni, "md: Change
  active_io to percpu", 72adae23a72c).
- raid1 from 4.11 (C. Li's barrier buckets, fd76863e37fe and 824e47daddbf: nr_pending is per
  64 MiB bucket, spread over many lines): every wake_up(&conf->wait_barrier) is unconditional.
  A read takes it once (allow_barrier at completion), a write three times (raid1_write_request's
  last line, flush_bio_list at unplug, allow_barrier): 5 and 15. J. Wang's "md/raid1: Avoid lock
  contention from wake_up()" (6.6) calls it only when someone waits: nothing of it is left.
  Before 4.11 wait_barrier and allow_barrier took conf->resync_lock too: not derived here.
- raid10 before 6.1: wait_barrier holds conf->resync_lock (5) around its nr_pending increment,
  raid10_make_request ends with an unconditional wake_up (5), allow_barrier decrements nr_pending
  (1), and a write's raid10_unplug calls wake_up (5): 11 a read, 16 a write. In 6.1 Y. Kuai made
  resync_lock a seqlock and the wake-ups conditional ("md/raid10: convert resync_lock to use
  seqlock", "prevent unnecessary calls to wake_up() in fast path"): 2 a read, and the write's
  unplug 5 more until "raid10: avoid spin_lock from fastpath from raid10_unplug()" (6.5): 2 each.
  These fields lie within 72 bytes of struct r10conf: counted as one line (an assumption).
- raid4/5/6 reads of one chunk (chunk_aligned_read): before 5.14 raid5_read_one_chunk takes
  conf->device_lock (5) and increments active_aligned_reads on another line under it (1 more
  while held), and raid5_align_endio decrements it; G. Ofri's "md/raid5: avoid device_lock in
  read_one_chunk()" (5.14) leaves the increment and decrement: 2. Writes and degraded reads go
  through the stripe cache, whose locks are not counted here (the md thread term stands).
- rdev->nr_pending of each member a raid1/10/5 request reaches: 2 per member I/O, spread over the
  members.
- raid0: nothing shared besides md core's counter.

One transfer's time: a line's next writer is any other submitting core; with the job's threads
(min(numjobs, cores)) spread evenly over the sockets, (T - T/S) / (T - 1) of them are on another
socket. The time is the core-to-core figure within a socket, or between sockets, of the plan's
CPU (planners.hardware: nviennot/core-to-core-latency's medians for the preset's part). A single
submitting thread moves no line: the term is absent for it. Buffered I/O, btrfs and kernels the
counts were not read for are left out.
"""

from __future__ import annotations

from math import ceil

from planners.perf.context import GroupCtx, PerfCtx
from planners.perf.memory import kernel_before
from planners.perf.roof import Term
from planners.perf.workloads import Workload

NAME = "md locks"
LOCK = 5  # line transfers of one contended queued-spinlock acquisition and release
ATOMIC = 1  # line transfers of one atomic read-modify-write


def transfer_ns(ctx: PerfCtx, threads: int) -> tuple[float, float]:
    """(one line transfer's mean time in ns, share of transfers between sockets) for `threads`
    submitters spread evenly over the sockets."""
    cpu = ctx.cpu
    sockets = max(1, min(cpu.sockets, threads))
    remote = (threads - threads / sockets) / (threads - 1) if threads > 1 else 0.0
    return remote * cpu.socket_transfer_ns + (1 - remote) * cpu.line_transfer_ns, remote


def socket_mix(ctx: PerfCtx, w: Workload) -> tuple[float, float]:
    """(share of the rate lost, share gained) if every transfer went between sockets, or every one
    stayed within a socket, instead of the even draw md_locks_term takes; (0, 0) on one socket.

    Which core writes a line next is the scheduler's and the job's placement, which the model is
    not told: the even draw is the middle, and the range spans both ends."""
    threads = min(w.numjobs, ctx.cpu.cores)
    if threads < 2 or min(ctx.cpu.sockets, threads) < 2:
        return 0.0, 0.0
    mean, _ = transfer_ns(ctx, threads)
    return 1 - mean / ctx.cpu.socket_transfer_ns, mean / ctx.cpu.line_transfer_ns - 1


def _barrier(ctx: PerfCtx, g: GroupCtx, read: bool, parity_read: bool) -> tuple[float, str] | None:
    """Transfers of the level's own shared line per md bio, and what it is; None where nothing is
    shared or the count was not derived for the kernel."""

    def before(version: tuple[int, int]) -> bool:
        return kernel_before(ctx, version)

    if g.scheme.mirrors_every_member:  # raid1.c
        if before((4, 11)) or not before((6, 6)):
            return None
        return (LOCK if read else 3 * LOCK), "conf->wait_barrier's lock (wake_up)"
    if g.scheme.mirrored:  # raid10.c
        if before((6, 1)):
            return (2 * LOCK + ATOMIC + (0 if read else LOCK)), "conf->resync_lock, wait_barrier's lock and nr_pending"
        if before((6, 5)) and not read:
            return 2 * ATOMIC + LOCK, "conf->nr_pending and raid10_unplug's wake_up"
        return 2 * ATOMIC, "conf->nr_pending"
    if parity_read:
        if before((5, 14)):
            return LOCK + ATOMIC, "conf->device_lock (read_one_chunk)"
        return 2 * ATOMIC, "conf->active_aligned_reads"
    return None


def md_locks_term(ctx: PerfCtx, w: Workload, groups: list[tuple[GroupCtx, float, float]], degraded: int) -> Term | None:
    """The ceiling the busiest shared line sets, MB/s of the volume; None for one submitter.

    `groups`: (group, share of the requests, member requests per workload request there)."""
    threads = min(w.numjobs, ctx.cpu.cores)
    if threads < 2 or not w.direct or ctx.btrfs is not None:
        return None
    t_ns, remote = transfer_ns(ctx, threads)
    worst: tuple[float, str] | None = None
    for g, share, member_ios in groups:
        pieces = max(1, ceil(w.bs / g.chunk)) if (g.chunk and g.scheme.chunked) else 1
        parity_read = bool(g.parity) and w.is_read and not degraded
        lines: list[tuple[float, str]] = []
        if kernel_before(ctx, (6, 3)):
            lines.append((2 * ATOMIC * pieces, "mddev->active_io"))
        barrier = _barrier(ctx, g, w.is_read, parity_read)
        if barrier:
            lines.append((barrier[0] * pieces, barrier[1]))
        if g.scheme.mirrored or parity_read:
            lines.append((2 * ATOMIC * member_ios / share / max(1, g.n), "each member's rdev->nr_pending"))
        if not lines:
            continue
        count, what = max(lines)
        line = (count * share, f"{g.name}: {what}" if len(groups) > 1 else what)
        worst = max(worst, line) if worst else line
    if not worst:
        return None
    count, what = worst
    ns = count * t_ns
    note = (
        f"{ns:.0f} ns serialized a request: {count:.3g} transfers of {what}'s cache line at {t_ns:.0f} ns "
        f"({threads} submitting cores, {remote:.0%} of transfers between sockets)"
    )
    return Term(NAME, 1e9 / ns * w.bs / 1e6, note)
