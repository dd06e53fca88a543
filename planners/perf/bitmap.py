"""md's write-intent bitmap: what a write pays when its bitmap chunk is clean.

How the kernel keeps it (drivers/md/md-bitmap.c; the same counters from 2.6 to 6.x):
- Every bitmap chunk (mdadm's --bitmap-chunk; 64 MiB when none is asked) has a counter.
  md_bitmap_startwrite: a write to a chunk whose counter is 0 sets the chunk's bit in its bitmap
  page and marks the page dirty; a counter of 1 (the bit still set on disk, on its way to clean)
  goes back to 2 with no I/O at all. md_bitmap_endwrite only counts down: no I/O.
- md_bitmap_unplug writes every dirty page before the data goes down: write_page -> write_sb_page
  -> md_super_write to every active member (REQ_PREFLUSH | REQ_FUA | REQ_SYNC, and REQ_IDLE |
  REQ_META since 6.8 and the 6.1-6.7 stable series, which only keeps wbt from throttling them),
  then md_super_wait sleeps until all of them complete. A page is 4 KiB; the last one is rounded
  to the logical block (a 512-byte block gives 1.5 KiB, 3.5 KiB: a read-modify-write inside a
  drive whose write unit is 4 KiB), to io_opt from 6.4 where the space allows
  (J. Derrick, "md: Use optimal I/O size for last bitmap page"). That drive-side cost is not
  priced: no plan input says a drive's write unit exceeds its logical block.
- Who runs it: a RAID1/10 write submitted with no plug held (fio submits one request per call by
  default; psync and a one-request io_submit hold none) is queued on conf->pending_bio_list and md's
  thread (raid1d/raid10d) is woken; flush_pending_writes runs md_bitmap_unplug, then sends the
  bios. Before 6.5 every RAID1/10 write took that path; from 6.5 (Yu Kuai, "md/raid1-10: submit
  write io directly if bitmap is not enabled") only those of an array with a bitmap do. A submitter
  holding a plug does the same in its unplug callback. RAID4/5/6 hold such stripes
  (STRIPE_BIT_DELAY) until raid5d's next unplug.
- The flags: a drive with no volatile write cache (power-loss protected flash) has both dropped by
  the block layer (submit_bio_noacct); one with a cache gets a flush before the page write and the
  write forced to media (FUA, or a second flush where the device has none): the drive's flush_us.
- The daemon wakes every daemon_sleep (5 s unless mdadm --delay says otherwise) and takes each
  idle chunk's counter from 2 to 1, then from 1 to 0, clearing its bit; the page is written at
  the next pass (or by the next unplug), lazily: nobody waits for it, at most one write per page
  per pass. A chunk is clean again one to two periods after its last write.

So a write waits for a bitmap write when its chunk saw no write for the last D (1 + U) seconds,
D the daemon period and U uniform on [0, 1]. With the chunks of the span written at random at a
rate a each, that chance is E[exp(-a D (1 + U))] = exp(-a D) (1 - exp(-a D)) / (a D), a the rate
the requests actually get (their own time at their depth, host and hand-off included). A random
workload over a span much wider than what it writes in ten seconds pays one for nearly every
write (the worst case: small synchronous writes at depth 1, twice the disk work on a mirror); a
stream pays one per chunk it enters; a bigger chunk means fewer chunks to go clean.

What such a write waits (page_write_s): one member write (the members side by side), a flush
where the drive has a volatile cache, md's thread woken when the last page write completes
(wake_s: the core's idle-state exit, Cpu.idle_exit_us, and one context switch, half of wait_us),
and the block layer's submission of the n page writes on that thread. Every write of a RAID1/10
with a bitmap (and before 6.5 without one) also waits one wake of md's thread (handoff_s).

A bitmap write is one small write on each member, beside the superblock: at the start of the
member with metadata 1.1 and 1.2 (mdadm's super1.c: 4 KiB after a superblock at 0 or 4 KiB
when created with the array, 1 KiB when --grow adds it), at its end with 1.0 and 0.90 (the
0.90 superblock in the last 64 KiB, the bitmap in the 60 KiB after it: md.c super_90_validate,
"bitmap can use 60 K after the 4K superblocks"; 1.0's just before its superblock). On a spinning
disk (hdd_page_s) the head seeks there from where it works, the page write waits for its sector
on every member (md_super_wait returns when the last completes: of n uniform rotational waits the
longest, n/(n+1) of a revolution), and the data that waited seeks back. The seek over a share D
of the stroke is settle + a sqrt(D), a scaled so that the mean over two uniform places is the
rated average seek (planners.perf.positioning's law). The flush before
the page finds only writes the model already prices as reaching the platter (the stream's, each
random write's positioning), so a spinning disk's flush_us stays 0; the page write itself is
forced to the platter (FUA, or the second flush where the drive takes none), which is the
rotational wait above.
"""

from __future__ import annotations

from math import exp, sqrt

from planners.hardware.machine import ResolvedCpu
from planners.perf.context import PAGE, SETTLE_S, GroupCtx, PerfCtx, rand_iops
from planners.perf.positioning import MEAN_SQRT_DISTANCE
from planners.perf.workloads import Workload

# md-bitmap.c: "Choosing daemon_sleep default (5 sec)"; mdadm's --delay default is the same.
DAEMON_SLEEP_S = 5.0
# Linux 6.5 (Yu Kuai, "md/raid1-10: submit write io directly if bitmap is not enabled"): from here
# RAID1/10 hand a write to md's thread only when the array has a bitmap.
DIRECT_WRITES = (6, 5)
# Linux 6.4 (J. Derrick, "md: Use optimal I/O size for last bitmap page"): the last bitmap page is
# written io_opt long where the space allows, not rounded to the logical block (not priced here).
IO_OPT_LAST_PAGE = (6, 4)


def kernel_at_least(kernel: str, version: tuple[int, int]) -> bool:
    parts = tuple(int(x) for x in kernel.split(".")[:2] if x.isdigit())
    return parts >= version


def wake_s(cpu: ResolvedCpu) -> float:
    """A sleeping md thread woken on an idle core, until it runs, seconds: the core's idle-state
    exit and one context switch (half of the sleep-and-wake pair wait_us prices)."""
    return (cpu.idle_exit_us + cpu.wait_us / 2) * 1e-6


def handoff_s(ctx: PerfCtx, g: GroupCtx, w: Workload) -> float:
    """What md's thread hand-off adds to each direct write of a RAID1/10 group, seconds: a write
    submitted with no plug held (fio submits one request per call by default, below the block
    layer's plugging threshold) goes to conf->pending_bio_list and md's thread is woken to send it
    (flush_pending_writes); with a bitmap in every kernel, without one before 6.5."""
    if not g.scheme.mirrored or w.is_read or not w.direct:
        return 0.0
    if not g.bitmap_chunk and kernel_at_least(ctx.kernel, DIRECT_WRITES):
        return 0.0
    return wake_s(ctx.cpu)


def page_write_s(ctx: PerfCtx, g: GroupCtx, write_s: float) -> float:
    """How long a write that dirtied a bitmap page waits before its data goes down, seconds: the
    page written to every member at once (page_io_s), md's thread woken when the last completes,
    and the block layer's submission of the n page writes on that one thread."""
    cpu = ctx.cpu
    return page_io_s(g, write_s) + wake_s(cpu) + g.n * cpu.block_request_us * 1e-6


def page_io_s(g: GroupCtx, write_s: float) -> float:
    """The members' part of a page write, seconds: on spinning disks hdd_page_s (a measured disk:
    one write's time), on flash one write, each with the drive's cache flush."""
    page = hdd_page_s(g, None) if g.disk.rpm and not g.disk.measured else write_s
    return page + g.disk.flush_us * 1e-6


def _seek_s(g: GroupCtx, distance: float) -> float:
    """A spinning member's seek over `distance` (a share of its stroke), seconds."""
    d = g.disk
    average = max(1.0 / d.rand_write_iops - 30.0 / d.rpm, SETTLE_S)
    return SETTLE_S + (average - SETTLE_S) / MEAN_SQRT_DISTANCE * sqrt(min(1.0, max(0.0, distance)))


def hdd_page_s(g: GroupCtx, place: float | None) -> float:
    """What a bitmap page write takes from the data on spinning members, seconds: the seek to the
    bitmap (the member's start, or its end with metadata 1.0 / 0.90) from `place` (a share of the
    stroke; None: a random write's place, uniform), the longest of the n members' rotational waits,
    and the data's way back: from the stream's place for a stream; for a random write the extra
    of a seek from the bitmap's edge over one from a uniform place (E[sqrt D] 2/3 against 8/15)."""
    revolution = 60.0 / g.disk.rpm
    slowest = g.n / (g.n + 1.0) * revolution
    if place is None:
        edge = 2.0 / 3.0
        to, back = _seek_s(g, edge**2), _seek_s(g, edge**2) - _seek_s(g, MEAN_SQRT_DISTANCE**2)
        return to + slowest + back
    distance = 1.0 - place if g.bitmap_at_end else place
    return 2.0 * _seek_s(g, distance) + slowest + revolution / 2.0


def array_bytes_per_chunk(g: GroupCtx) -> int:
    """Array bytes one bitmap bit covers: the bitmap counts member sectors on RAID1/4/5/6 (a bit
    covers the same stretch of every member) and array sectors on RAID10 (resync_max_sectors)."""
    if g.scheme.bitmap_counts_array:
        return g.bitmap_chunk
    return int(g.bitmap_chunk * (g.data if g.parity else 1))


def clean_chance(per_chunk_rate: float, sleep_s: float = DAEMON_SLEEP_S) -> float:
    """Chance that a write finds its chunk clean, its chunk written at random `per_chunk_rate` times a second."""
    x = per_chunk_rate * sleep_s
    if x < 1e-9:
        return 1.0
    return exp(-x) * (1.0 - exp(-x)) / x


def random_writes(
    ctx: PerfCtx,
    g: GroupCtx,
    w: Workload,
    share: float,
    span: float,
    ios: float,
    rate: float,
    alone_s: float,
    write_s: float,
) -> tuple[float, float, str]:
    """What the bitmap adds to each random write: member I/Os, seconds of waiting, and why.

    `ios` is the member I/Os a request costs without the bitmap, `rate` the requests per second
    the group's disks serve busy without it, `alone_s` a request's own time at its depth without
    it (its share of the disks, the controller's round trip, the host's CPU, md's hand-off) and
    `write_s` one member write's time alone (flash: its write latency, not its rate's inverse).
    A write that finds its chunk clean waits for a page write on every member (page_write_s)
    before its data goes down. Each such write pays its own: a submitter that plugs writes the
    page in its own unplug (md_bitmap_unplug from the plug callback) and submits nothing else
    meanwhile; the lab's RAID1 at 16 in flight measured 0.81 bitmap writes per write where 0.79
    of the writes found their chunk clean (tests/test_lab_bitmap.py). RAID4/5/6 hold every such
    stripe (STRIPE_BIT_DELAY) until raid5d's next unplug, so there the writes that dirty bits
    while one page write (one member write's time) is under way share the next one, up to the
    others in flight (not witnessed in the lab). The chance depends on the rate the requests get,
    which depends on the chance: iterated from "every write pays", which falls to the fixed
    point from above.
    """
    chunks = max(1.0, span * g.array_bytes / array_bytes_per_chunk(g))
    q = max(1.0, w.in_flight * share)
    clean_s = page_write_s(ctx, g, write_s)
    p, batch = 1.0, 1.0
    for _ in range(16):
        own = alone_s + p / batch * clean_s
        served = min(rate * ios / (ios + g.n * p / batch), q / own if own > 0 else rate) if rate > 0 else 0.0
        nxt = clean_chance(served / chunks)
        if g.parity:
            batch = 1.0 + min(q - 1.0, served * nxt * page_io_s(g, write_s))
        done = abs(nxt - p) < 1e-4
        p = nxt
        if done:
            break
    extra = p / batch
    if extra < 1e-3:
        return 0.0, 0.0, ""
    shared = f" (one per {batch:.3g} such writes)" if batch > 1.005 else ""
    return (
        g.n * extra,
        extra * clean_s,
        (
            f"; {p:.0%} of writes find their {_size(g.bitmap_chunk)} bitmap chunk clean and wait "
            f"{_duration(clean_s)} for a bitmap write on every member first{shared}"
        ),
    )


def stream_rate(g: GroupCtx, w: Workload, span: float, rate: float, start: float = 0.0) -> tuple[float, str]:
    """A member's rate for a sequential writer with the bitmap's writes in its way, MB/s, and why.

    Each bitmap chunk the stream enters costs every member one bitmap write: on a spinning disk
    a seek to the bitmap from the stream's place (`start` plus half its `span`, shares of the
    stroke) and back (hdd_page_s), on flash one small write; either pays the drive's cache flush.
    A stream comes back to a chunk only when a time-based job loops over its span; it finds the
    chunk clean when a lap takes more than the daemon's one to two periods.
    """
    member = g.bitmap_chunk * (g.copies / g.n if g.scheme.bitmap_counts_array else 1.0)
    lap = span * g.component_bytes / (rate * 1e6) if rate > 0 else 0.0
    p = min(1.0, max(0.0, lap / DAEMON_SLEEP_S - 1.0)) if w.time_based else 1.0
    d = g.disk
    if d.rpm and not d.measured:
        cost = hdd_page_s(g, min(1.0, start + span / 2.0))
    else:  # measured: a random write's time each way; flash: one page write among the drive's others
        cost = (2.0 if d.rpm else 1.0) / rand_iops(d, 1.0, PAGE, True)
    cost += d.flush_us * 1e-6
    stream = member / (rate * 1e6)
    kept = stream / (stream + p * cost)
    if kept > 0.999:
        return rate, ""
    return rate * kept, (
        f"; a bitmap write per {_size(g.bitmap_chunk)} bitmap chunk on every member "
        f"({cost * p * 1e3:.1f} ms each, {1 - kept:.0%} of the stream)"
    )


def _duration(s: float) -> str:
    return f"{s * 1e3:.3g} ms" if s >= 1e-3 else f"{s * 1e6:.3g} us"


def _size(n: int) -> str:
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return f"{n} B"
