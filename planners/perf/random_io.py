"""A random workload's ceilings on one md group: what each request costs the disks (copies,
read-modify-write), how far the requests in flight keep them busy (Little's law, with what each
request waits besides: a controller's round trip, a bitmap write, the host's CPU), and md's
stripe thread for parity writes. planners.perf.terms gathers them with the other terms."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from planners.perf.bitmap import handoff_s, random_writes
from planners.perf.context import (
    NCQ_TAGS,
    PAGE,
    GroupCtx,
    PerfCtx,
    busy_fraction,
    queued_iops,
    rand_iops,
    single_request_s,
    sorted_iops,
)
from planners.perf.era import md_thread_mb_s, md_threads
from planners.perf.request_cpu import path_us
from planners.perf.roof import Term
from planners.perf.workloads import Workload


@dataclass(frozen=True, slots=True)
class GroupTerms:
    """One md group's terms for a workload, in MB/s of the group."""

    terms: list[Term]
    amplification: float
    """Bytes the group's disks move per byte of the workload (copies, parity, reads before writes)."""


@dataclass(frozen=True, slots=True)
class _RandomCost:
    """What one random request costs a group's disks."""

    disk_ios: float
    """Disk I/Os per request."""
    phases: int
    """Rounds of them in turn (2: md reads, then writes)."""
    disks: float
    """Disks' worth serving them."""
    how: str


def span_of(workload: Workload, group: GroupCtx, share: float) -> float:
    return min(1.0, workload.size * share / group.array_bytes) if workload.size else 1.0


def _random_cost(group: GroupCtx, degraded: int, write: bool, alive: int, chunks_per_request: int) -> _RandomCost:
    """Disk I/Os per random request, in how many rounds, and how many disks' worth serve them."""
    phases = 1
    disks = float(alive)
    if not write:
        disk_ios = float(chunks_per_request)
        if degraded and group.parity:
            # a read of a missing disk reads the rest of its row
            disk_ios = chunks_per_request * (1 + int(degraded) * (group.data - 1) / group.n)
        if degraded and group.level in (1, 10) and group.copies > 1:
            disks = group.n * (group.copies - 1) / group.copies  # the failed disk's partner takes its reads too
        how = f"{disk_ios:.3g} disk reads per request"
    elif group.level == 0:
        disk_ios, how = float(chunks_per_request), "one disk write per request"
    elif group.level in (1, 10):
        disk_ios = float(group.copies * chunks_per_request if group.level == 10 else alive)
        how = f"{disk_ios:g} disk writes per request (copies)"
    else:
        reads = min(chunks_per_request + group.parity, group.data - chunks_per_request)
        disk_ios = reads + chunks_per_request + group.parity
        phases = 2 if reads else 1
        how = (
            f"{disk_ios:g} disk I/Os per request ("
            + ("read-modify-write" if reads == chunks_per_request + group.parity else "reconstruct-write")
            + ")"
        )
    return _RandomCost(disk_ios, phases, disks, how)


def _request_waits(
    ctx: PerfCtx, group: GroupCtx, workload: Workload, disk_ios: float, free_iops: float, requests: float
) -> tuple[float, float]:
    """What a request waits besides the disks, seconds: the host's CPU in its path and md's thread
    hand-off; none beside a spinning disk's milliseconds (under 1 % of a request's time)."""
    host_s = path_us(ctx, workload, disk_ios) * 1e-6 if workload.direct else 0.0
    handoff = handoff_s(ctx, group, workload)
    if not free_iops or not requests or (host_s + handoff) * free_iops / requests < 0.01:
        return 0.0, 0.0
    return host_s, handoff


def random_terms(
    ctx: PerfCtx,
    group: GroupCtx,
    workload: Workload,
    share: float,
    degraded: int,
    sorted_queue: int = 0,
    ncq: bool = True,
) -> GroupTerms:
    """Ceilings of one group for a random workload, in MB/s of the group."""
    write = not workload.is_read
    alive = group.n - int(degraded)
    span = span_of(workload, group, share)
    chunks_per_request = min(max(1, int(group.data)), ceil(workload.bs / group.chunk)) if group.chunk else 1
    # md splits a request at its chunks, and the chunks one member receives from it lie side by side on
    # that member (chunk k and k + data disks are neighbours there): the block layer merges them, so the
    # member positions once and moves its share of the request, not the whole of it once per chunk.
    piece = ceil(workload.bs / chunks_per_request)
    iops = (
        sorted_iops(group.disk, span, piece, sorted_queue, write)
        if sorted_queue
        else rand_iops(group.disk, span, piece, write)
    )
    cost = _random_cost(group, degraded, write, alive, chunks_per_request)
    how = cost.how
    to_mb = workload.bs / 1e6
    outstanding = workload.in_flight * share
    if write and group.parity:
        outstanding = min(outstanding, group.cache_entries / ceil(workload.bs / PAGE))
    per_disk = outstanding * cost.disk_ios / cost.phases / alive
    if ncq and not sorted_queue and group.disk.rpm and per_disk > 1:
        # Each disk sorts the requests the array queues on it (NCQ): shorter positioning.
        iops = queued_iops(group.disk, span, piece, per_disk, write)
        how += f", {min(per_disk, NCQ_TAGS):.3g} queued per disk"
    if write and group.level in (1, 10):
        # A mirrored write keeps all its copies busy at once: requests land on sets of disks, not on disks.
        disks, landing = max(1, round(alive / cost.disk_ios)), outstanding / cost.phases
    else:
        disks, landing = alive, outstanding * cost.disk_ios / cost.phases
    bs = workload.bs
    busy_share = busy_fraction(group.disk, disks, landing, write, bs=bs)
    busy_iops = cost.disks * iops * busy_share / cost.disk_ios
    # What the requests would get with room to spare: their own time, no queueing.
    free_iops = cost.disks * iops * busy_fraction(group.disk, disks, landing, write, False, bs) / cost.disk_ios
    requests = workload.in_flight * share
    host_s, handoff = _request_waits(ctx, group, workload, cost.disk_ios, free_iops, requests)
    alone = (requests / free_iops if free_iops else 0.0) + ctx.round_trip_s + host_s + handoff
    added, wait, marked = 0.0, 0.0, ""
    if write and group.bitmap_chunk:
        write_s = single_request_s(group.disk, True, iops, bs)
        added, wait, marked = random_writes(ctx, group, workload, share, span, cost.disk_ios, busy_iops, alone, write_s)
    note = f"{alive} disks at {iops:.0f} IOPS, {how}{marked}"
    terms = [Term("disks", cost.disks * iops / (cost.disk_ios + added) * to_mb, note)]
    busy_mb_s = busy_iops * to_mb
    busy = f"{outstanding:.3g} requests in flight keep {busy_share:.0%} of the disks busy"
    round_trip = ctx.round_trip_s
    if (round_trip or wait or host_s or handoff) and busy_mb_s:
        # Each request also waits out the controller's round trip, md's thread hand-off, its bitmap
        # write and the host's CPU on its way down and back (flash at low depth feels it): Little's
        # law, N = X (R0 + rt + handoff + wait + cpu).
        mb_s = min(busy_mb_s, requests * to_mb / (alone + wait))
        paying = f", each also paying a {round_trip * 1e3:.2f} ms controller round trip" if round_trip else ""
        if host_s:
            paying += f", {host_s * 1e6:.1f} us of host CPU in each request's path"
        if handoff:
            paying += f", {handoff * 1e6:.1f} us waking md's thread to send it"
        terms.append(Term("queue depth", mb_s, busy + paying + marked))
    else:
        terms.append(Term("queue depth", busy_mb_s, busy))
    if write and group.parity:
        threads = md_threads(ctx)
        rate, era = md_thread_mb_s(ctx, full_stripes=False)
        heads = rate * 1e6 * threads / (PAGE * group.data)
        note = f"{threads} md stripe thread(s): {heads:.0f} stripes/s" + (f"; {era}" if era else "")
        terms.append(Term("md thread", heads / ceil(workload.bs / PAGE) * to_mb, note))
    return GroupTerms(
        terms, cost.disk_ios * (workload.bs / chunks_per_request if group.chunk else workload.bs) / workload.bs
    )
