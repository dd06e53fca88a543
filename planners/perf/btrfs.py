"""btrfs's own RAID across raw disks in the bottleneck model.

btrfs lays its data in chunks (1 GiB of data each) over the devices of the data profile, and the
terms of planners.perf.terms are worked out on the array a workload meets in them:
- raid0, raid10, raid5, raid6 stripe every chunk over the devices in 64 KiB elements
  (BTRFS_STRIPE_LEN): md's arithmetic of a 64 KiB chunk, copies and parity; raid10 takes devices in
  pairs, so over an odd count each chunk leaves one out;
- raid1, raid1c3, raid1c4 keep whole copies of a chunk on 2, 3 or 4 devices: a stream meets one
  chunk at a time (its copies' devices), random I/O every device;
- single keeps a chunk on one device, dup twice on the same one.
Reads take one mirror per process: btrfs's default read policy ("pid", fs/btrfs/volumes.c
find_live_mirror) reads copy pid % copies, so one reader of a two-device raid1 or of raid10 uses
half the devices, and jobs of consecutive pids spread over the copies.
A partial-stripe write to raid5/6 reads the whole full stripe first, data and parity, to verify
its checksums ("read all sectors (including data and P/Q)": rmw_read_wait_recover() in
fs/btrfs/raid56.c, since 6.2), never md's cheaper read-modify-write of the changed chunk and parity.
Every data block is checksummed with crc32c on write and verified on read, in btrfs's worker
threads (thread_pool_size: the CPUs + 2, at most 8, fs/btrfs/disk-io.c), as is raid5/6's parity.
btrfs has no md thread, and no stripe_cache_size holding writes back: its cache of full stripes
(RBIO_CACHE_SIZE, 1024) only spares a later write its reads. Its readahead is its own bdi's
(planners.fs.btrfs.btrfs_readahead).
Witnessed on the host's kernel (tests/test_perf_btrfs.py): the readahead window and the pid policy
(one reader of a two-device raid1 reads one device). Witnessed in the lab on throttled disks, kernel 6.1
(tests/test_lab_btrfs_speed.py, docs/calibration.md): direct sequential I/O of raid1 over 2 devices (one
reader at one device's rate, two at both, a writer at one device's rate), of raid0 over 3 (the sum) and
reads of raid10 over 4 (one reader on one device of each pair, two on all).
Unwitnessed: raid1c3/c4, raid5/6 (the lab's 6.1 predates the whole-stripe read), dup, random
I/O, buffered I/O through btrfs's readahead, and the checksums' CPU (far above a throttled disk).
"""

from __future__ import annotations

from dataclasses import replace
from math import ceil

from planners.fs.btrfs import PROFILES
from planners.perf.context import GroupCtx, PerfCtx
from planners.perf.roof import Term, Terms
from planners.perf.workloads import Workload

THREAD_POOL_MAX = 8  # btrfs's thread_pool_size default: min(CPUs + 2, 8)


def pool_threads(ctx: PerfCtx) -> int:
    """btrfs worker threads that can run at once: its pool, no more than the cores."""
    return min(ctx.cpu.cores, ctx.cpu.cores + 2, THREAD_POOL_MAX)


def workload_group(g: GroupCtx, data: str, w: Workload, degraded: int) -> GroupCtx:
    """The array `w` meets in btrfs's chunks of the `data` profile (see the module's words)."""
    copies = PROFILES[data].ncopies
    jobs = max(1, w.numjobs)
    if data in ("single", "dup"):
        one = replace(g, level=0, n=1, members=g.members[:1], data=1.0, chunk=None)
        return replace(g, level=0, chunk=None) if w.is_random else one
    reading = w.is_read and not degraded
    if data == "raid10":
        # A chunk takes the devices in pairs (devs_increment 2): over an odd count a stream meets one
        # device fewer than the set, while random I/O meets every pair as the chunks rotate over them.
        span = float(g.n if w.is_random else g.n - g.n % 2)
        if reading:  # one mirror of each pair per process
            k = min(span, span / 2 * min(copies, jobs))
            n = ceil(k)
            return replace(g, level=0, n=n, members=g.members[:n], near=1, data=k)
        if span < g.n:
            n = int(span)
            return replace(g, n=n, members=g.members[:n], data=span / 2)
    if data.startswith("raid1") and data != "raid10":
        if reading and (not w.is_random or g.n == copies):
            k = min(copies, jobs)
            return replace(g, level=0, n=k, members=g.members[:k], near=1, data=float(k), chunk=None)
        if not w.is_random:  # a stream fills one chunk, written on its copies' devices
            return replace(g, level=1, n=copies, members=g.members[:copies], near=1, data=1.0)
    return g


def btrfs_terms(ctx: PerfCtx, w: Workload, degraded: int, terms: Terms) -> Terms:
    """Adjust the terms worked out on `workload_group`'s array for what btrfs does unlike md."""
    assert ctx.btrfs is not None
    data, _ = ctx.btrfs
    g = ctx.groups[0]
    out = dict(terms)
    if "array failed" in out:
        return out
    disks = out.get("disks")
    if data == "dup" and w.writes and disks:
        disks = out["disks"] = Term("disks", disks.mb_s / 2, disks.note + ", each block written twice (dup)")
    if g.parity and w.is_random and w.writes and disks:
        cols = min(max(1, int(g.data)), ceil(w.bs / (g.chunk or w.bs)))
        if cols < g.data:
            md = min(cols + g.parity, g.data - cols) + cols + g.parity
            full = g.n + cols + g.parity
            disks = out["disks"] = Term(
                "disks",
                disks.mb_s * md / full,
                f"{full:g} disk I/Os per request: btrfs reads the whole stripe ({g.n} x 64 KiB) to check "
                "its checksums before writing a partial one",
            )
    copies = PROFILES[data].ncopies
    if copies > 1 and data != "dup" and w.is_read and not degraded and disks:
        out["disks"] = Term("disks", disks.mb_s, f"{disks.note} (btrfs reads copy pid % {copies}: {w.numjobs} job(s))")
    out.pop("md thread", None)
    threads = pool_threads(ctx)
    if "parity CPU" in out:
        rate = ctx.cpu.raid6_gen_mb_s if g.parity == 2 and w.writes else ctx.cpu.xor_mb_s
        out["parity CPU"] = Term(
            "parity CPU", rate * threads, f"{threads} btrfs worker(s) at {rate:.0f} MB/s of parity each"
        )
    out.pop("stripe cache", None)
    crc = ctx.cpu.crc32c_mb_s
    out["checksums"] = Term(
        "checksums", crc * threads, f"crc32c of every 4 KiB block, {threads} btrfs worker(s) at {crc:.0f} MB/s"
    )
    return out
