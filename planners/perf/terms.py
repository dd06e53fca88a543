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
- md locks: the cache lines every submitting core writes for each request (md's counters, its
  barrier's locks), which move between cores one transfer at a time (planners.perf.md_locks).
- link (NVMe), host PCIe, memory, socket link: each NVMe drive's own PCIe link, the sockets' lanes
  and memory bandwidth, the links between sockets (planners.perf.host); IOMMU: strict mode's
  invalidations, one at a time per remapping unit (planners.perf.iommu).
- CPU copy: one buffered reader or writer is bounded by the CPU copying its bytes out of or into
  the page cache, and its bookkeeping (named for the copy: the cache itself is rarely what is short);
  a buffered write of known length is lifted above the disks by the dirty page cache
  (planners.perf.memory).
- write cache: a controller's write-back cache takes writes at the host's rate until full,
  then at the rate the disks drain it with a deep sorted queue; a declared ingest rate
  (write_cache_mb_s) caps writes.
The caches in front of the disks, mixes and what a job does besides I/O are combined with these
in planners.perf.combined.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, replace
from math import ceil, inf

from planners.perf.bitmap import stream_rate
from planners.perf.btrfs import btrfs_terms, workload_group
from planners.perf.context import (
    PAGE,
    GroupCtx,
    PerfCtx,
    positioning_s,
    seq_mb_s,
)
from planners.perf.controller import command_term
from planners.perf.era import md_thread_mb_s, md_threads
from planners.perf.host import drive_links, host_roofs, pcie_drives
from planners.perf.iommu import iommu_term
from planners.perf.md_locks import md_locks_term
from planners.perf.memory import kernel_before
from planners.perf.placement import shares
from planners.perf.random_io import GroupTerms, random_terms, span_of
from planners.perf.reclaim import reader_copy_mb_s
from planners.perf.request_cpu import device_requests, merged_bytes, request_cpu_term
from planners.perf.roof import CPU_COPY, Term, Terms, lowest
from planners.perf.workloads import Workload

NR_REQUESTS = 128  # the block layer's default queue (queue/nr_requests)
# From 4.10 ("mm: don't cap request size based on read-ahead setting") a read() larger than the
# readahead window is read ahead in requests up to the device's max_sectors_kb.
LARGE_READS_WIDEN = (4, 10)


@dataclass(frozen=True, slots=True)
class _DiskWork:
    """What a sequential workload keeps the disks doing."""

    disks_worth: float
    """Disks' worth of streaming the workload keeps busy."""
    amplification: float
    """Disk bytes per byte of the workload."""
    terms: list[Term]


def readahead(ctx: PerfCtx, workload: Workload) -> int:
    """One readahead window of a buffered sequential reader, in bytes; two of them are in flight.

    The kernel's ondemand readahead grows the window to the device's read_ahead_kb and marks
    its first page; a reader reaching that page starts the next window while the current one
    is still arriving, so a reader that waits on the disks has two windows in flight.
    POSIX_FADV_SEQUENTIAL (fio's default fadvise_hint) doubles the window. A read() larger than
    the window widens it up to the largest request the device takes (max_sectors_kb: one chunk
    on md RAID0), no further; kernels before 4.10 capped it at the readahead setting.
    tests/test_lab_readahead.py measured all three on 6.1.
    """
    window = (workload.readahead or ctx.readahead) * (2 if workload.fadvise_sequential else 1)
    if kernel_before(ctx, LARGE_READS_WIDEN):
        return window
    return max(window, min(workload.bs, ctx.request_cap()))


def piece_rate(group: GroupCtx, workload: Workload, request: float, rate: float, write: bool) -> float:
    """A flash member's sequential rate, MB/s, at the size of the requests it receives.

    md splits a request (`request` bytes reaching the group) at chunk boundaries, so each member
    sees chunk-sized pieces, or the request itself if smaller, which its scheduler may merge
    again at depth (request_cpu.merged_bytes). A datasheet's sequential rate is measured with
    large requests (128 KiB and up); flash serves small ones at its request rate, the random
    rating times the request, whichever is less. A spinning disk streams adjacent pieces at its
    media rate (its look-ahead reads the track ahead of them).
    """
    disk = group.disk
    if disk.rpm or disk.measured:
        return rate
    piece = min(group.chunk or request, request)
    iops = (disk.rand_write_iops if write else disk.rand_read_iops) * disk.spindles
    return min(rate, iops * merged_bytes(group, workload, piece) / 1e6)


def _sequential(ctx: PerfCtx, group: GroupCtx, workload: Workload, share: float, degraded: int) -> GroupTerms:
    """Ceilings of one group for a sequential workload, in MB/s of the group.

    `degraded` counts the missing members (False/True read as 0/1).
    """
    write = not workload.is_read
    alive = group.n - int(degraded)
    span = span_of(workload, group, share)
    far_read = group.far > 1 and not write  # only RAID10's far layouts keep far copies
    # fio's offset moves the span inwards, where the tracks are shorter.
    start = min(1.0, workload.offset * share / group.array_bytes)
    rate = seq_mb_s(group.disk, span / group.far if far_read else span, write, start)
    if workload.direct:
        in_flight = workload.in_flight * workload.bs * share
    else:
        in_flight = inf if write else workload.numjobs * 2 * readahead(ctx, workload) * share
    rate = piece_rate(
        group, workload, workload.bs * share if workload.direct else readahead(ctx, workload), rate, write
    )
    marked = ""
    if write and group.bitmap_chunk:
        rate, marked = stream_rate(group, workload, span, rate, start)
    chunks = max(float(workload.numjobs), in_flight / group.chunk) if group.chunk else float(workload.numjobs)
    if not write:
        work = _seq_reads(group, workload, degraded, alive, chunks, rate)
    elif group.scheme.striped_only:
        work = _DiskWork(group.n, 1.0, [Term("disks", group.n * rate, f"{group.n} disks writing at {rate:.0f} MB/s")])
    elif group.scheme.mirrored:
        disks_worth = alive / group.copies
        note = f"every byte written {group.copies} times over {alive} disks at {rate:.0f} MB/s"
        work = _DiskWork(disks_worth, float(group.copies), [Term("disks", disks_worth * rate, note)])
    else:
        work = _seq_parity_writes(group, in_flight, alive, rate)
    terms = list(work.terms)
    if marked:
        terms = [Term(t.name, t.mb_s, t.note + marked) if t.name == "disks" else t for t in terms]
    if group.parity and (write or degraded):
        full_stripes = work.amplification * group.data <= alive + 1e-9  # no reads before the writes
        terms += _md_cpu(ctx, group, write, full_stripes)
    if in_flight != inf:
        terms.append(_in_flight(ctx, group, workload, in_flight, min(work.disks_worth, chunks), rate))
    return GroupTerms(terms, work.amplification)


def _seq_reads(group: GroupCtx, workload: Workload, degraded: int, alive: int, chunks: float, rate: float) -> _DiskWork:
    """The disks a sequential read keeps busy (more disk bytes per byte when degraded parity rebuilds)."""
    amplification = 1.0
    if group.scheme.mirrors_every_member:
        disks_worth: float = min(alive, workload.numjobs)  # md keeps one sequential reader on one mirror
    elif group.far > 1:
        disks_worth = alive
    elif group.scheme.mirrored and group.disk.rpm:
        # raid10's read_balance sends a read to the copy whose head is nearest: a stream's next
        # piece is where its last one ended, so each stream stays on one disk of each mirror set.
        sets = alive / group.copies
        disks_worth = min(alive, workload.numjobs * sets, max(sets, chunks))
    elif group.scheme.mirrored:
        disks_worth = min(alive, max(alive / group.copies, chunks))  # flash: the least busy copy
    elif degraded and group.parity:
        # whole stripes are read to rebuild the missing chunks
        disks_worth, amplification = group.data, alive / group.data
    else:
        # A spinning disk turns past the parity chunks it skips, so only the data disks' worth
        # of time moves data; flash (and a throttled virtual disk) skips them for free.
        disks_worth = group.data if group.disk.rpm else float(alive)
    note = f"{disks_worth:g} disks' worth of reads at {rate:.0f} MB/s each"
    return _DiskWork(disks_worth, amplification, [Term("disks", disks_worth * rate, note)])


def _seq_parity_writes(group: GroupCtx, in_flight: float, alive: int, rate: float) -> _DiskWork:
    """Sequential writes to parity RAID: full stripes, or partial ones md must read first; and the stripe cache."""
    cache_bytes = group.cache_entries * PAGE
    cover = min(1.0, in_flight / group.stripe_bytes, cache_bytes / group.chunk) if group.chunk else 1.0
    if cover >= 1.0:
        disks_worth, amplification = group.data, (alive / group.data)
        how = "full-stripe writes"
    else:
        written = min(group.data, max(1.0, cover * group.data))
        reads = min(written + group.parity, group.data - written)
        amplification = (reads + written + group.parity) / written
        disks_worth = alive / amplification
        how = f"partial stripes ({cover:.0%} covered): md reads {reads:g} chunks per {written:g} written " + (
            "(read-modify-write)" if reads == written + group.parity else "(reconstruct-write)"
        )
    positioning = positioning_s(group.disk)
    per_disk = cache_bytes / (cache_bytes / (rate * 1e6) + positioning) / 1e6
    terms = [
        Term("disks", disks_worth * rate, f"{how}, {disks_worth:.3g} disks' worth at {rate:.0f} MB/s"),
        Term(
            "stripe cache",
            min(disks_worth, group.data) * per_disk,
            f"stripe_cache_size {group.cache_entries}: {cache_bytes >> 10} KiB per member in flight, "
            f"{positioning * 1e3:.1f} ms positioning per batch",
        ),
    ]
    return _DiskWork(disks_worth, amplification, terms)


def _md_cpu(ctx: PerfCtx, group: GroupCtx, write: bool, full_stripes: bool) -> list[Term]:
    """The md stripe threads and the parity arithmetic, for writes and degraded reads of parity RAID."""
    threads = md_threads(ctx)
    parity = ctx.cpu.raid6_gen_mb_s if (group.parity == 2 and write) else ctx.cpu.xor_mb_s
    rate, era = md_thread_mb_s(ctx, full_stripes and write)
    return [
        Term(
            "md thread",
            rate * threads,
            f"{threads} md stripe thread(s) at {rate:.0f} MB/s" + (f"; {era}" if era else ""),
        ),
        Term(
            "parity CPU",
            parity * threads,
            ("raid6 gen()" if group.parity == 2 and write else "xor") + f" at {parity:.0f} MB/s per thread",
        ),
    ]


def _in_flight(ctx: PerfCtx, group: GroupCtx, workload: Workload, in_flight: float, busy: float, rate: float) -> Term:
    """What the data in flight (queue depth, or readahead windows) keeps busy, by Little's law per disk.

    Every stack alike: each request (a readahead window, or a direct one) reaches the group cut at
    its request unit (md's chunk, a striped LV's stripe, else the top device's largest request),
    and each piece is a round trip to the device behind it: its transfer on the disks it covers (a
    piece smaller than a LUN's full stripe moves on the LUN's disks it covers only) plus what every
    request pays besides (a controller's round trip, flash's access time). A queue of two pieces
    or more hides that cost behind the next transfer."""
    name = "queue depth" if workload.direct else "readahead"
    request = workload.bs if workload.direct else readahead(ctx, workload)
    what = (
        f"{workload.in_flight} x {workload.bs >> 10} KiB in flight"
        if workload.direct
        else f"two readahead windows of {request >> 10} KiB per stream"
    )
    piece = min(ctx.request_unit(group), request)
    disk = group.disk
    covered = min(disk.data_disks, ceil(piece / disk.strip)) if disk.strip else disk.data_disks
    transfer_s = piece / (rate * 1e6 * covered / disk.data_disks)
    overhead_s = ctx.round_trip_s + disk.latency_us * 1e-6
    kept = (
        min(1.0, in_flight / busy / (transfer_s + overhead_s) / (rate * 1e6))
        if busy and (overhead_s or covered < disk.data_disks)
        else 1.0
    )
    extra = f", {overhead_s * 1e3:.2f} ms per request besides the transfer" if kept < 1.0 and overhead_s else ""
    if group.chunk or group.n > 1:
        busy_text = f"{busy * kept:.3g} of {group.n} disks"
    elif disk.lun is not None:
        busy_text = f"{busy * kept * disk.data_disks:.3g} of the LUN's {disk.data_disks} data disks"
    else:
        busy_text = f"the disk {busy * kept:.0%} of the time"
    return Term(name, busy * rate * kept, f"{what} keeps {busy_text} busy{extra}")


def _links(ctx: PerfCtx, traffic: dict[int, float]) -> list[Term | None]:
    """The SATA links, port multipliers and host adapters the disks share, and each NVMe drive's own link.

    traffic: disk position -> bytes that disk moves per byte of the workload."""
    wiring = ctx.hardware.wiring
    drives = pcie_drives(ctx)
    terms = [drive_links(ctx, traffic, drives)]
    per_link = _loads(ctx.links, traffic, drives)
    if not per_link:
        return terms
    if wiring.link != "direct" or wiring.link_mb_s:
        busiest = max(per_link.values())
        terms.append(
            Term(
                "link",
                wiring.link_rate / busiest,
                f"{wiring.link} link at {wiring.link_rate:.0f} MB/s shared by {wiring.disks_per_link} disk(s)",
            )
        )
    if wiring.hbas:  # most plans name none: their disks' loads are not summed by HBA
        busiest = max(_loads(ctx.hbas, traffic, drives).values())
        terms.append(
            Term(
                "HBA",
                wiring.hba_rate / busiest,
                f"{wiring.hbas} HBA(s) at {wiring.hba_rate:.0f} MB/s "
                + ("(as the plan states)" if wiring.hba_mb_s else f"(PCIe gen{wiring.pcie_gen} x{wiring.pcie_lanes})"),
            )
        )
    return terms


def _loads(index: tuple[int, ...], traffic: dict[int, float], drives: Container[int]) -> dict[int, float]:
    """Bytes per byte of the workload through each link (or HBA) of `index`: the disk positions'
    traffic summed, the drives on a PCIe link of their own left out (not the wiring's)."""
    out: dict[int, float] = {}
    for position, load in traffic.items():
        if position not in drives:
            key = index[position]
            out[key] = out.get(key, 0.0) + load
    return out


def _survives(group: GroupCtx) -> int:
    """Failed members the array outlives whichever they are: parity count, or one short of every copy."""
    return group.scheme.failures_tolerated(group.n, group.copies)


def _failed(group: GroupCtx, degraded: int) -> Term | None:
    """The zero term of an array that does not survive `degraded` missing members, or None."""
    if degraded and group.scheme.striped_only:
        return Term("array failed", 0.0, f"{group.name}: RAID0 does not survive a failed member")
    if degraded > _survives(group):
        return Term(
            "array failed",
            0.0,
            f"{group.name}: RAID{group.level} survives {_survives(group)} failed member(s) for certain, "
            f"not {int(degraded)}",
        )
    return None


def _buffered(ctx: PerfCtx, workload: Workload, terms: Terms) -> Terms:
    """A buffered reader or writer: the CPU's copy out of or into the page cache, which a reader
    also pays between readahead windows."""
    cpu = ctx.cpu
    jobs = min(workload.numjobs, cpu.cores)
    rate, reclaim = reader_copy_mb_s(ctx, workload) if workload.is_read else (cpu.buffered_write_mb_s, "")
    way = "out of" if workload.is_read else "into"
    note = f"{jobs} buffered stream(s) at {rate:.0f} MB/s: the CPU copying {way} the page cache, and its bookkeeping"
    note += f"; {reclaim}" if reclaim else ""
    out = lowest(terms.values(), [Term(CPU_COPY, rate * jobs, note)])
    if "readahead" in out:
        # The next window starts only when the reader reaches the current one, so while it
        # copies a window out the disks have one window to do instead of two: per window,
        # a fetch of two windows' time plus one window's copy, shared by the two in flight.
        window = out["readahead"]
        out["readahead"] = Term(
            "readahead",
            1 / (1 / window.mb_s + 1 / (2 * rate * jobs)),
            f"{window.note}, less the reader's copy of each window",
        )
    return out


def _shape(group: GroupCtx) -> dict[str, object]:
    """The group but its name and its members' places: a group's own terms read neither (its name
    prefixes their notes here, its places are the links' and the host's)."""
    return vars(group) | _PLACE


_PLACE = {"name": "", "members": ()}


def simple_terms(ctx: PerfCtx, workload: Workload, degraded: int, sorted_queue: int = 0, ncq: bool = True) -> Terms:
    """Every term for a read, write, randread or randwrite workload, in MB/s of the volume.

    `ncq`: each spinning disk sorts the random requests queued on it (False: each pays a
    positioning of its own, as a write among a stream's does).

    `sorted_queue`: the disks are fed that many requests each, served nearest first (a
    controller draining its cache)."""
    if ctx.btrfs is not None:  # btrfs's own RAID: the terms of the array the workload meets in its chunks
        view = workload_group(ctx.groups[0], ctx.btrfs[0], workload, degraded)
        inner = replace(ctx, groups=(view,), volume_groups=(0,), btrfs=None)
        return btrfs_terms(ctx, workload, degraded, simple_terms(inner, workload, degraded, sorted_queue, ncq))
    placed = [(ctx.groups[index], share) for index, share in shares(ctx, workload).items()]
    for group, _ in placed:
        failed = _failed(group, degraded)
        if failed:
            return {failed.name: failed}
    found: list[Term] = []
    traffic: dict[int, float] = {}
    requests: list[tuple[GroupCtx, float, float]] = []
    several = len(ctx.volume_groups) > 1
    # A striped LV's arrays are mostly alike: one like the one before has its terms, which `lowest`
    # would not take (the first of equal terms stays), and its requests.
    last: tuple[tuple[dict[str, object], float], GroupTerms, float] | None = None
    for group, share in placed:
        shape = (_shape(group), share)
        if last is None or last[0] != shape:
            part = (
                random_terms(ctx, group, workload, share, degraded, sorted_queue, ncq)
                if workload.is_random
                else _sequential(ctx, group, workload, share, degraded)
            )
            last = shape, part, device_requests(group, workload, share, part.amplification)
            for term in lowest(part.terms).values():
                note = f"{group.name}: {term.note}" if several else term.note
                found.append(Term(term.name, term.mb_s / share, note))
        _, part, requested = last
        alive = group.members[: group.n - int(degraded)]
        if alive:
            traffic.update(dict.fromkeys(alive, share * part.amplification / len(alive)))
        requests.append((group, share, requested))
    out = lowest(
        found,
        _links(ctx, traffic),
        host_roofs(ctx, workload, traffic),
        [
            request_cpu_term(ctx, workload, requests),
            md_locks_term(ctx, workload, requests, degraded),
            command_term(ctx, workload, requests),
            iommu_term(ctx, workload, requests),
        ],
    )
    if not workload.direct:
        out = _buffered(ctx, workload, out)
    if workload.writes and ctx.hardware.write_cache_mb_s:
        cache = Term("write cache", ctx.hardware.write_cache_mb_s, "declared write-back cache's ingest rate")
        out = lowest(out.values(), [cache])
    return out
