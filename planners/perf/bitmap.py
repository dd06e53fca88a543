"""md's write-intent bitmap: what a write pays when its bitmap chunk is clean.

How the kernel keeps it (drivers/md/md-bitmap.c; the same counters from 2.6 to 6.x):
- Every bitmap chunk (mdadm's --bitmap-chunk; 64 MiB when none is asked) has a counter.
  md_bitmap_startwrite: a write to a chunk whose counter is 0 sets the chunk's bit in its bitmap
  page and marks the page dirty; a counter of 1 (the bit still set on disk, on its way to clean)
  goes back to 2 with no I/O at all.
- Before the data is sent down, md_bitmap_unplug writes every dirty page to every active member
  and waits for them (raid1/raid10 in flush_pending_writes or their plug callback, raid5/6
  through STRIPE_BIT_DELAY stripes held until raid5d's unplug). One page write at a time
  (md_super_wait), with a cache flush before it and FUA on it.
- The daemon wakes every daemon_sleep (5 s unless mdadm --delay says otherwise) and takes each
  idle chunk's counter from 2 to 1, then from 1 to 0, clearing its bit; those page writes are
  lazy and nobody waits for them. A chunk is clean again one to two periods after its last write.

So a write waits for a bitmap write when its chunk saw no write for the last D (1 + U) seconds,
D the daemon period and U uniform on [0, 1]. With the chunks of the span written at random at a
rate a each, that chance is E[exp(-a D (1 + U))] = exp(-a D) (1 - exp(-a D)) / (a D). A random
workload over a span much wider than what it writes in ten seconds pays one for nearly every
write (the worst case: small synchronous writes at depth 1, twice the disk work on a mirror); a
stream pays one per chunk it enters; a bigger chunk means fewer chunks to go clean.

A bitmap write is one small write on each member: the bitmap sits beside the superblock at the
start of the member (metadata 1.x), so on a spinning disk it is a seek away from the data.
"""

from __future__ import annotations

from math import exp

from planners.perf.context import PAGE, GroupCtx, rand_iops
from planners.perf.workloads import Workload

# md-bitmap.c: "Choosing daemon_sleep default (5 sec)"; mdadm's --delay default is the same.
DAEMON_SLEEP_S = 5.0


def array_bytes_per_chunk(g: GroupCtx) -> int:
    """Array bytes one bitmap bit covers: the bitmap counts member sectors on RAID1/4/5/6 (a bit
    covers the same stretch of every member) and array sectors on RAID10 (resync_max_sectors)."""
    if g.level == 10:
        return g.bitmap_chunk
    return int(g.bitmap_chunk * (g.data if g.parity else 1))


def clean_chance(per_chunk_rate: float, sleep_s: float = DAEMON_SLEEP_S) -> float:
    """Chance that a write finds its chunk clean, its chunk written at random `per_chunk_rate` times a second."""
    x = per_chunk_rate * sleep_s
    if x < 1e-9:
        return 1.0
    return exp(-x) * (1.0 - exp(-x)) / x


def random_writes(
    g: GroupCtx, w: Workload, share: float, span: float, iops: float, ios: float, rate: float, write_s: float
) -> tuple[float, float, str]:
    """What the bitmap adds to each random write: member I/Os, seconds of waiting, and why.

    `iops` is one member's rate, `ios` the member I/Os a request costs without the bitmap,
    `rate` the requests per second the group serves without it and `write_s` one member write's
    time alone (flash: its write latency, not its rate's inverse). A write that finds its chunk
    clean waits for one bitmap write on every member (one write's time, the members side by
    side) before its data goes down. Each such write pays its own: a submitter that plugs
    writes the page in its own unplug (md_bitmap_unplug from the plug callback) and submits
    nothing else meanwhile; the lab's RAID1 at 16 in flight measured 0.81 bitmap writes per
    write where 0.79 of the writes found their chunk clean (tests/test_lab_bitmap.py). RAID4/5/6
    hold every such stripe (STRIPE_BIT_DELAY) until raid5d's next unplug, so there the writes
    that dirty bits while one page write (one member write's time) is under way share the next
    one, up to the others in flight (not witnessed in the lab). The chance
    depends on the rate, which depends on the chance: iterated from "every write pays", which
    falls to the fixed point from above.
    """
    chunks = max(1.0, span * g.array_bytes / array_bytes_per_chunk(g))
    q = max(1.0, w.in_flight * share)
    p, batch = 1.0, 1.0
    for _ in range(16):
        served = min(rate * ios / (ios + g.n * p / batch), q / (q / rate + p / batch * write_s)) if rate > 0 else 0.0
        nxt = clean_chance(served / chunks)
        if g.parity:
            batch = 1.0 + min(q - 1.0, served * nxt * write_s)
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
        extra * write_s,
        (
            f"; {p:.0%} of writes find their {_size(g.bitmap_chunk)} bitmap chunk clean and wait for a "
            f"bitmap write on every member first{shared}"
        ),
    )


def stream_rate(g: GroupCtx, w: Workload, span: float, rate: float) -> tuple[float, str]:
    """A member's rate for a sequential writer with the bitmap's writes in its way, MB/s, and why.

    Each bitmap chunk the stream enters costs every member one bitmap write: on a spinning disk
    a seek to the bitmap and one back to the stream, on flash one small write. A stream comes back
    to a chunk only when a time-based job loops over its span; it finds the chunk clean when a
    lap takes more than the daemon's one to two periods.
    """
    member = g.bitmap_chunk * (g.copies / g.n if g.level == 10 else 1.0)
    lap = span * g.component_bytes / (rate * 1e6) if rate > 0 else 0.0
    p = min(1.0, max(0.0, lap / DAEMON_SLEEP_S - 1.0)) if w.time_based else 1.0
    d = g.disk
    # A seek to the bitmap and back (HDD), or one page write among the drive's others (flash).
    cost = (2.0 if d.rpm else 1.0) / rand_iops(d, 1.0, PAGE, True)
    stream = member / (rate * 1e6)
    kept = stream / (stream + p * cost)
    if kept > 0.999:
        return rate, ""
    return rate * kept, (
        f"; a bitmap write per {_size(g.bitmap_chunk)} bitmap chunk on every member "
        f"({cost * p * 1e3:.1f} ms each, {1 - kept:.0%} of the stream)"
    )


def _size(n: int) -> str:
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return f"{n} B"
