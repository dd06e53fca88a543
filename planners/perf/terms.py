"""The terms of the bottleneck model: each is a ceiling on one workload's throughput, in MB/s.

Every term is computed per md group as the rate the group could sustain if that term were
the only limit, then divided by the share of the workload's bytes the group receives. The
array does no better than its smallest term; the UI shows all of them as a roofline.

Terms and why each exists:
- disks: every member at its zone's speed (sequential) or its seek-bound IOPS (random),
  divided by the I/O each level does per byte asked (mirror copies, parity, md's choice of
  read-modify-write or reconstruct-write for partial stripes: the one with fewer reads), and
  the write-intent bitmap's own writes (planners.perf.bitmap).
- queue depth / readahead: Little's law. A request in flight keeps one disk busy, so a
  stream with B bytes in flight keeps B/chunk disks busy; buffered reads have only two
  readahead windows in flight. Random requests landing on N disks at random leave some idle.
  Each request also pays what is not the disks' work (a controller's round trip, flash's
  access time), which a queue of two or more per disk hides behind the next transfer.
- stripe cache: md holds at most stripe_cache_size pages per member in flight and frees a
  stripe only when every member wrote it, so each batch pays a half rotation before moving data.
- md thread: one raid4/5/6 thread per array handles every stripe (group_thread_cnt adds more).
- parity CPU: the kernel's measured xor / raid6 gen() speed.
- link / HBA: disks sharing a SATA port multiplier or a host adapter share its bandwidth,
  carrying the traffic the level puts on each disk (parity and copies included).
- CPU per request: each request's CPU in the engine, md, dm and the block layer, over the cores
  the job's threads (or md's stripe threads) can use (planners.perf.request_cpu).
- link (NVMe), host PCIe, memory: each NVMe drive's own PCIe link, the sockets' lanes and memory
  bandwidth (planners.perf.host).
- page cache: one buffered reader or writer is bounded by the CPU's copy and bookkeeping;
  a buffered write of known length is lifted above the disks by the dirty page cache
  (planners.perf.memory).
- write cache: a controller's write-back cache takes writes at the host's rate until full,
  then at the rate the disks drain it with a deep sorted queue; a declared ingest rate
  (write_cache_mb_s) caps writes.
The caches in front of the disks, mixes and what a job does besides I/O are combined with these
in planners.perf.combined.
"""

from __future__ import annotations

from math import ceil, inf

from planners.perf.bitmap import random_writes, stream_rate
from planners.perf.context import (
    NCQ_TAGS,
    PAGE,
    GroupCtx,
    PerfCtx,
    busy_fraction,
    positioning_s,
    queued_iops,
    rand_iops,
    seq_mb_s,
    sorted_iops,
)
from planners.perf.host import drive_links, host_roofs, pcie_drives
from planners.perf.memory import kernel_before
from planners.perf.placement import shares
from planners.perf.request_cpu import NAME as REQUEST_CPU
from planners.perf.request_cpu import device_requests, merged_bytes, request_cpu_term
from planners.perf.workloads import Workload

Limits = dict[str, tuple[float, str]]
NR_REQUESTS = 128  # the block layer's default queue (queue/nr_requests)
# From 4.10 ("mm: don't cap request size based on read-ahead setting") a read() larger than the
# readahead window is read ahead in requests up to the device's max_sectors_kb.
LARGE_READS_WIDEN = (4, 10)


def put(out: Limits, name: str, mb_s: float, note: str) -> None:
    """Set a term, keeping the lower figure where two parts of the model bound the same thing."""
    if name not in out or mb_s < out[name][0]:
        out[name] = (mb_s, note)


def _md_threads(ctx: PerfCtx) -> int:
    return max(1, min(ctx.cpu.cores, 1 + ctx.hardware.md.group_thread_cnt))


def _span(w: Workload, g: GroupCtx, share: float) -> float:
    return min(1.0, w.size * share / g.array_bytes) if w.size else 1.0


def readahead(ctx: PerfCtx, w: Workload) -> int:
    """One readahead window of a buffered sequential reader, in bytes; two of them are in flight.

    The kernel's ondemand readahead grows the window to the device's read_ahead_kb and marks
    its first page; a reader reaching that page starts the next window while the current one
    is still arriving, so a reader that waits on the disks has two windows in flight.
    POSIX_FADV_SEQUENTIAL (fio's default fadvise_hint) doubles the window. A read() larger than
    the window widens it up to the largest request the device takes (max_sectors_kb: one chunk
    on md RAID0), no further; kernels before 4.10 capped it at the readahead setting.
    tests/test_lab_readahead.py measured all three on 6.1.
    """
    window = (w.readahead or ctx.readahead) * (2 if w.fadvise_sequential else 1)
    if kernel_before(ctx, LARGE_READS_WIDEN):
        return window
    return max(window, min(w.bs, ctx.request_cap()))


def piece_rate(g: GroupCtx, w: Workload, request: float, rate: float, write: bool) -> float:
    """A flash member's sequential rate, MB/s, at the size of the requests it receives.

    md splits a request (`request` bytes reaching the group) at chunk boundaries, so each member
    sees chunk-sized pieces, or the request itself if smaller, which its scheduler may merge
    again at depth (request_cpu.merged_bytes). A datasheet's sequential rate is measured with
    large requests (128 KiB and up); flash serves small ones at its request rate, the random
    rating times the request, whichever is less. A spinning disk streams adjacent pieces at its
    media rate (its look-ahead reads the track ahead of them).
    """
    d = g.disk
    if d.rpm or d.measured:
        return rate
    piece = min(g.chunk or request, request)
    iops = (d.rand_write_iops if write else d.rand_read_iops) * d.spindles
    return min(rate, iops * merged_bytes(g, w, piece) / 1e6)


def _sequential(ctx: PerfCtx, g: GroupCtx, w: Workload, share: float, degraded: int, out: Limits) -> float:
    """Ceilings of group g for a sequential workload, in MB/s of the group; returns disk bytes per data byte.

    `degraded` counts the missing members (False/True read as 0/1).
    """
    write = not w.is_read
    alive = g.n - int(degraded)
    span = _span(w, g, share)
    far_read = g.level == 10 and g.far > 1 and not write
    # fio's offset moves the span inwards, where the tracks are shorter.
    start = min(1.0, w.offset * share / g.array_bytes)
    rate = seq_mb_s(g.disk, span / g.far if far_read else span, write, start)
    if w.direct:
        in_flight = w.in_flight * w.bs * share
    else:
        in_flight = inf if write else w.numjobs * 2 * readahead(ctx, w) * share
    rate = piece_rate(g, w, w.bs * share if w.direct else readahead(ctx, w), rate, write)
    marked = ""
    if write and g.bitmap_chunk:
        rate, marked = stream_rate(g, w, span, rate)
    chunks = max(float(w.numjobs), in_flight / g.chunk) if g.chunk else float(w.numjobs)
    amp = 1.0
    if not write:
        eff, amp = _seq_reads(g, w, degraded, alive, chunks, rate, out)
    elif g.level == 0:
        eff = g.n
        put(out, "disks", eff * rate, f"{g.n} disks writing at {rate:.0f} MB/s")
    elif g.level in (1, 10):
        eff, amp = alive / g.copies, float(g.copies)
        put(out, "disks", eff * rate, f"every byte written {g.copies} times over {alive} disks at {rate:.0f} MB/s")
    else:
        eff, amp = _seq_parity_writes(g, in_flight, alive, rate, out)
    if g.parity and (write or degraded):
        _md_cpu(ctx, g, write, out)
    if in_flight != inf and g.chunk:
        _in_flight(ctx, g, w, share, in_flight, min(eff, chunks), rate, out)
    if marked and "disks" in out:
        out["disks"] = (out["disks"][0], out["disks"][1] + marked)
    return amp


def _seq_reads(
    g: GroupCtx, w: Workload, degraded: int, alive: int, chunks: float, rate: float, out: Limits
) -> tuple[float, float]:
    """The disks a sequential read keeps busy, and disk bytes per data byte (more when degraded parity rebuilds)."""
    amp = 1.0
    if g.level == 1:
        eff = min(alive, w.numjobs)  # md keeps one sequential reader on one mirror
    elif g.level == 10:
        eff = alive if g.far > 1 else min(alive, max(alive / g.copies, chunks))
    elif degraded and g.parity:
        eff, amp = g.data, alive / g.data  # whole stripes are read to rebuild the missing chunks
    else:
        # A spinning disk turns past the parity chunks it skips, so only the data disks' worth
        # of time moves data; flash (and a throttled virtual disk) skips them for free.
        eff = g.data if g.disk.rpm else float(alive)
    put(out, "disks", eff * rate, f"{eff:g} disks' worth of reads at {rate:.0f} MB/s each")
    return eff, amp


def _seq_parity_writes(g: GroupCtx, in_flight: float, alive: int, rate: float, out: Limits) -> tuple[float, float]:
    """Sequential writes to parity RAID: full stripes, or partial ones md must read first; and the stripe cache."""
    cache_bytes = g.cache_entries * PAGE
    cover = min(1.0, in_flight / g.stripe_bytes, cache_bytes / g.chunk) if g.chunk else 1.0
    if cover >= 1.0:
        eff, amp = g.data, (alive / g.data)
        how = "full-stripe writes"
    else:
        d = min(g.data, max(1.0, cover * g.data))
        reads = min(d + g.parity, g.data - d)
        amp = (reads + d + g.parity) / d
        eff = alive / amp
        how = f"partial stripes ({cover:.0%} covered): md reads {reads:g} chunks per {d:g} written " + (
            "(read-modify-write)" if reads == d + g.parity else "(reconstruct-write)"
        )
    put(out, "disks", eff * rate, f"{how}, {eff:.3g} disks' worth at {rate:.0f} MB/s")
    t_pos = positioning_s(g.disk)
    per_disk = cache_bytes / (cache_bytes / (rate * 1e6) + t_pos) / 1e6
    put(
        out,
        "stripe cache",
        min(eff, g.data) * per_disk,
        f"stripe_cache_size {g.cache_entries}: {cache_bytes >> 10} KiB per member in flight, "
        f"{t_pos * 1e3:.1f} ms positioning per batch",
    )
    return eff, amp


def _md_cpu(ctx: PerfCtx, g: GroupCtx, write: bool, out: Limits) -> None:
    """The md stripe threads and the parity arithmetic, for writes and degraded reads of parity RAID."""
    threads = _md_threads(ctx)
    put(
        out,
        "md thread",
        ctx.cpu.md_thread_mb_s * threads,
        f"{threads} md stripe thread(s) at {ctx.cpu.md_thread_mb_s:.0f} MB/s",
    )
    parity = ctx.cpu.raid6_gen_mb_s if (g.parity == 2 and write) else ctx.cpu.xor_mb_s
    put(
        out,
        "parity CPU",
        parity * threads,
        ("raid6 gen()" if g.parity == 2 and write else "xor") + f" at {parity:.0f} MB/s per thread",
    )


def _in_flight(
    ctx: PerfCtx, g: GroupCtx, w: Workload, share: float, in_flight: float, busy: float, rate: float, out: Limits
) -> None:
    """What the data in flight (queue depth, or readahead windows) keeps busy, by Little's law per disk."""
    assert g.chunk is not None  # only striped groups are asked
    name = "queue depth" if w.direct else "readahead"
    what = (
        f"{w.in_flight} x {w.bs >> 10} KiB in flight"
        if w.direct
        else f"two readahead windows of {readahead(ctx, w) >> 10} KiB per stream"
    )
    # Little's law per busy disk: each holds q pieces; a piece costs its transfer plus what
    # every request pays besides (controller round trip, flash access), which a queue of two
    # or more hides behind the transfer of the next.
    piece = min(g.chunk, w.bs * share if w.direct else in_flight / w.numjobs)
    # A LUN moves a piece smaller than its full stripe on the disks the piece covers only.
    d = g.disk
    covered = min(d.data_disks, ceil(piece / d.strip)) if d.strip else d.data_disks
    t_x = piece / (rate * 1e6 * covered / d.data_disks)
    t_o = ctx.round_trip_s + d.latency_us * 1e-6
    q = in_flight / piece / busy if busy else 0.0
    kept = min(1.0, q * piece / (t_x + t_o) / (rate * 1e6)) if (t_o or covered < d.data_disks) else 1.0
    extra = f", {t_o * 1e3:.2f} ms per request besides the transfer" if kept < 1.0 else ""
    put(out, name, busy * rate * kept, f"{what} keeps {busy * kept:.3g} of {g.n} disks busy{extra}")


def _random(
    ctx: PerfCtx,
    g: GroupCtx,
    w: Workload,
    share: float,
    degraded: int,
    out: Limits,
    sorted_queue: int = 0,
    ncq: bool = True,
) -> float:
    write = not w.is_read
    alive = g.n - int(degraded)
    span = _span(w, g, share)
    iops = (
        sorted_iops(g.disk, span, w.bs, sorted_queue, write) if sorted_queue else rand_iops(g.disk, span, w.bs, write)
    )
    cols = min(max(1, int(g.data)), ceil(w.bs / g.chunk)) if g.chunk else 1
    phases = 1
    disks = float(alive)
    if not write:
        ios = float(cols)
        if degraded and g.parity:
            ios = cols * (1 + int(degraded) * (g.data - 1) / g.n)  # a read of a missing disk reads the rest of its row
        if degraded and g.level in (1, 10) and g.copies > 1:
            disks = g.n * (g.copies - 1) / g.copies  # the failed disk's partner takes its reads too
        how = f"{ios:.3g} disk reads per request"
    elif g.level == 0:
        ios, how = float(cols), "one disk write per request"
    elif g.level in (1, 10):
        ios = float(g.copies * cols if g.level == 10 else alive)
        how = f"{ios:g} disk writes per request (copies)"
    else:
        reads = min(cols + g.parity, g.data - cols)
        ios = reads + cols + g.parity
        phases = 2 if reads else 1
        how = (
            f"{ios:g} disk I/Os per request ("
            + ("read-modify-write" if reads == cols + g.parity else "reconstruct-write")
            + ")"
        )
    to_mb = w.bs / 1e6
    outstanding = w.in_flight * share
    if write and g.parity:
        outstanding = min(outstanding, g.cache_entries / ceil(w.bs / PAGE))
    per_disk = outstanding * ios / phases / alive
    if ncq and not sorted_queue and g.disk.rpm and per_disk > 1:
        # Each disk sorts the requests the array queues on it (NCQ): shorter positioning.
        iops = queued_iops(g.disk, span, w.bs, per_disk, write)
        how += f", {min(per_disk, NCQ_TAGS):.3g} queued per disk"
    if write and g.level in (1, 10):
        # A mirrored write keeps all its copies busy at once: requests land on sets of disks, not on disks.
        u = busy_fraction(g.disk, max(1, round(alive / ios)), outstanding / phases)
    else:
        u = busy_fraction(g.disk, alive, outstanding * ios / phases)
    x0 = disks * iops * u / ios
    added, wait, marked = (
        random_writes(g, w, share, span, iops, ios, x0) if write and g.bitmap_chunk else (0.0, 0.0, "")
    )
    put(out, "disks", disks * iops / (ios + added) * to_mb, f"{alive} disks at {iops:.0f} IOPS, {how}{marked}")
    x0 *= to_mb
    rt = ctx.round_trip_s
    said = f"{outstanding:.3g} requests in flight keep {u:.0%} of the disks busy"
    if (rt or wait) and x0:
        # Each request also waits out the controller's round trip and its bitmap write: Little's law,
        # N = X (R0 + rt + wait).
        n = w.in_flight * share
        x = n * w.bs / 1e6 / (n * w.bs / 1e6 / x0 + rt + wait)
        paying = f", each also paying a {rt * 1e3:.2f} ms controller round trip" if rt else ""
        put(out, "queue depth", x, said + paying + marked)
    else:
        put(out, "queue depth", x0, said)
    if write and g.parity:
        threads = _md_threads(ctx)
        heads = ctx.cpu.md_thread_mb_s * 1e6 * threads / (PAGE * g.data)
        put(
            out, "md thread", heads / ceil(w.bs / PAGE) * to_mb, f"{threads} md stripe thread(s): {heads:.0f} stripes/s"
        )
    return ios * (w.bs / cols if g.chunk else w.bs) / w.bs


def _links(ctx: PerfCtx, traffic: dict[int, float], out: Limits) -> None:
    """traffic: disk position -> bytes that disk moves per byte of the workload."""
    links, hbas = ctx.links, ctx.hbas
    wiring = ctx.hardware.wiring
    per_link: dict[int, float] = {}
    per_hba: dict[int, float] = {}
    drives = pcie_drives(ctx)
    own = drive_links(ctx, traffic, drives)
    if own:
        put(out, "link", *own)
    for i, f in traffic.items():
        if i in drives:
            continue  # on its own PCIe link, not the wiring's
        per_link[links[i]] = per_link.get(links[i], 0.0) + f
        per_hba[hbas[i]] = per_hba.get(hbas[i], 0.0) + f
    if not per_link:
        return
    if wiring.link != "direct" or wiring.link_mb_s:
        busiest = max(per_link.values())
        put(
            out,
            "link",
            wiring.link_rate / busiest,
            f"{wiring.link} link at {wiring.link_rate:.0f} MB/s shared by {wiring.disks_per_link} disk(s)",
        )
    if wiring.hbas:
        busiest = max(per_hba.values())
        put(
            out,
            "HBA",
            wiring.hba_rate / busiest,
            f"{wiring.hbas} HBA(s) at {wiring.hba_rate:.0f} MB/s "
            + ("(as the plan states)" if wiring.hba_mb_s else f"(PCIe gen{wiring.pcie_gen} x{wiring.pcie_lanes})"),
        )


def _survives(g: GroupCtx) -> int:
    """Failed members the array outlives whichever they are: parity count, or one short of every copy."""
    if g.level == 1:
        return g.n - 1
    return g.parity if g.parity else g.copies - 1


def simple_terms(ctx: PerfCtx, w: Workload, degraded: int, sorted_queue: int = 0, ncq: bool = True) -> Limits:
    """Every term for a read, write, randread or randwrite workload, in MB/s of the volume.

    `ncq`: each spinning disk sorts the random requests queued on it (False: each pays a
    positioning of its own, as a write among a stream's does).

    `sorted_queue`: the disks are fed that many requests each, served nearest first (a
    controller draining its cache)."""
    out: Limits = {}
    traffic: dict[int, float] = {}
    requests: list[tuple[GroupCtx, float, float]] = []
    several = len(ctx.volume_groups) > 1
    for gi, share in shares(ctx, w).items():
        g = ctx.groups[gi]
        if degraded and g.level == 0:
            out["array failed"] = (0.0, f"{g.name}: RAID0 does not survive a failed member")
            return out
        if degraded > _survives(g):
            out["array failed"] = (
                0.0,
                (f"{g.name}: RAID{g.level} survives {_survives(g)} failed member(s) for certain, not {int(degraded)}"),
            )
            return out
        local: Limits = {}
        if w.is_random:
            amp = _random(ctx, g, w, share, degraded, local, sorted_queue, ncq)
        else:
            amp = _sequential(ctx, g, w, share, degraded, local)
        for name, (mb_s, note) in local.items():
            put(out, name, mb_s / share, f"{g.name}: {note}" if several else note)
        alive = g.members[: g.n - int(degraded)]
        for i in alive:
            traffic[i] = share * amp / len(alive)
        requests.append((g, share, device_requests(g, w, share, amp)))
    _links(ctx, traffic, out)
    host_roofs(ctx, w, traffic, out)
    per_request = request_cpu_term(ctx, w, requests)
    if per_request:
        put(out, REQUEST_CPU, *per_request)
    cpu = ctx.cpu
    if not w.direct:
        jobs = min(w.numjobs, cpu.cores)
        rate = cpu.buffered_read_mb_s if w.is_read else cpu.buffered_write_mb_s
        put(out, "page cache", rate * jobs, f"{jobs} buffered stream(s) at {rate:.0f} MB/s (CPU copy and bookkeeping)")
        if "readahead" in out:
            # The next window starts only when the reader reaches the current one, so while it
            # copies a window out the disks have one window to do instead of two: per window,
            # a fetch of two windows' time plus one window's copy, shared by the two in flight.
            v, note = out["readahead"]
            out["readahead"] = (1 / (1 / v + 1 / (2 * rate * jobs)), f"{note}, less the reader's copy of each window")
    if w.writes and ctx.hardware.write_cache_mb_s:
        put(out, "write cache", ctx.hardware.write_cache_mb_s, "declared write-back cache's ingest rate")
    return out
