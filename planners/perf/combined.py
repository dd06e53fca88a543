"""A whole job's terms: the array's own (planners.perf.terms) with what stands between the job and
the disks, and what the job does besides I/O.

- a read/write mix or a rewrite is its two sides' times added (planners.perf.jobshape.mix);
- a controller's write-back cache acknowledges writes at the host's pace and drains them with a
  deep sorted queue of its own;
- the dirty page cache lifts a buffered writer of a run with a known end above the disks;
- flushes, pauses and ext3's block map add time the array does not see (the factor).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import inf

from planners.perf.clones import share_one_stream, shared_stream_terms, write_the_same_stripes
from planners.perf.context import PerfCtx
from planners.perf.controller import controller_cache
from planners.perf.era import locks_not_counted
from planners.perf.jobshape import job_extras, mix, mixed_rate_cap, rate_cap
from planners.perf.memory import page_cache
from planners.perf.roof import CPU_COPY, Term, Terms, lowest, smallest
from planners.perf.terms import NR_REQUESTS, simple_terms
from planners.perf.workloads import Workload

# Terms that describe the disks' own work: behind a write-back cache they set the drain rate.
DISK_SIDE = ("disks", "queue depth", "stripe cache")


@dataclass(frozen=True, slots=True)
class JobTerms:
    """A whole job's terms, and what the job does besides I/O."""

    terms: Terms
    factor: float = 1.0
    """Multiplies every term: the share of the job's time spent on I/O (1 = all of it)."""
    factor_note: str = ""
    """What the job does besides I/O (flushes, pauses, ext3's block map), '' when nothing."""
    wins_ties: frozenset[str] = frozenset()
    """Names of the terms that win a tie: the side of a read/write mix that takes longer."""
    outside_model: str = ""
    """Why the figure is outside the model ('' when it is not)."""


def _behind_controller_cache(ctx: PerfCtx, workload: Workload, degraded: int, out: Terms, full: bool) -> Terms:
    """Writes a controller's write-back cache acknowledges: the host sees its round trip, the disks
    drain it with a deep queue of their own (`full`: the cache is full when the job starts)."""
    disks = sum(ctx.groups[i].n for i in ctx.volume_groups)
    queue = ctx.controller.drain_queue if ctx.controller else 1
    deep = workload.model_copy(
        update={"numjobs": 1, "iodepth": max(1, queue * disks), "ioengine": "libaio", "direct": True}
    )
    drained = simple_terms(ctx, deep, degraded, sorted_queue=queue)
    side = [term for name, term in drained.items() if name in DISK_SIDE]
    host = {name: term for name, term in out.items() if name not in DISK_SIDE}
    if not side:
        # No disk-side term to drain by (the fuzz test drew such a plan): the cache then changes
        # nothing the model can say, and the terms stand as they are.
        return out
    drain = min(side, key=lambda term: term.mb_s)
    if workload.direct:
        link = ctx.hardware.wiring.link_rate if ctx.hardware.wiring.link != "direct" else inf
        ack_s = ctx.round_trip_s + workload.bs / (link * 1e6)
        if ack_s > 0:  # no round trip and no link to cross: nothing here bounds the requests in flight
            acked = Term(
                "queue depth",
                workload.in_flight * workload.bs / ack_s / 1e6,
                f"{workload.in_flight} requests in flight, each acknowledged by the cache in {ack_s * 1e3:.2f} ms",
            )
            host = lowest(host.values(), [acked])
    if not host:  # nothing on the host's side bounds what the cache takes in
        return out
    ingest = smallest(host)
    rate, note = controller_cache(ctx, workload, ingest, drain.mb_s, full)
    if rate < ingest * (1 - 1e-9):
        host["write cache"] = Term("write cache", rate, f"{note} ({drain.name}: {drain.note})")
    return host


def _through_page_cache(ctx: PerfCtx, workload: Workload, out: Terms) -> tuple[Terms, str]:
    """A buffered writer of a run with a known end: memory absorbs the start of it. Returns the
    terms, and why the figure is outside the model ('' when it is not)."""
    if CPU_COPY not in out or not (workload.runtime_s or workload.run_bytes):
        return out, ""
    copy = out[CPU_COPY].mb_s
    below = [term for name, term in out.items() if name != CPU_COPY]
    if not below:
        return out, ""
    drain = min(below, key=lambda term: term.mb_s)
    rate, note, outside = page_cache(ctx, workload, copy, drain.mb_s)
    if rate <= drain.mb_s * (1 + 1e-9):
        return out, outside
    # Memory lifts the run above the drain; once throttled the writer still waits on the drain,
    # so that term stays the one to blame unless the run never reached the throttle.
    kept = {name: term for name, term in out.items() if term.mb_s >= rate}
    name = CPU_COPY if outside else drain.name
    kept[name] = Term(name, rate, f"{note} ({drain.name}: {drain.note})")
    return kept, outside


def _mixed_terms(ctx: PerfCtx, workload: Workload, degraded: int, capped: bool) -> JobTerms:
    """A rewrite or a read/write mix: its two sides' times added (planners.perf.jobshape.mix);
    the side that takes longer is the one to blame, so its terms win ties."""
    outside = ""
    read_rw, write_rw = ("randread", "randwrite") if workload.is_random else ("read", "write")
    sides = []
    for rw in (read_rw, write_rw):
        side = workload.model_copy(update={"rw": rw})
        # A mix's writes meet a full cache: its reads share the disks with the drain, and fio writes a
        # new file out just before the job (planners.perf.controller).
        whole = workload_terms(ctx, side, degraded, capped=False, cache_full=workload.is_mix)
        side_terms = whole.terms
        if rw == write_rw and not workload.direct:
            # The writes of a mix come at the pace its reads allow, not at memory's: the dirty
            # page cache lifts no part of the run (where that is outside the model, it still is).
            side_terms = simple_terms(ctx, side, degraded)
        if rw == read_rw and not workload.direct:
            side_terms = _copies_between_reads(ctx, workload, side_terms)
        sides.append({name: Term(name, t.mb_s * whole.factor, t.note) for name, t in side_terms.items()})
        outside = outside or whole.outside_model
    read_share, write_share = (1.0, 1.0) if workload.rw == "rewrite" else (workload.read_mix, 1.0 - workload.read_mix)
    out, prefer = mix(sides[0], sides[1], read_share, write_share)
    if workload.is_mix and capped:
        cap = mixed_rate_cap(workload, smallest(sides[0]), smallest(sides[1]), smallest(out))
        if cap:
            # A cap that a side hits changes the mix itself: the figure is the capped one.
            out = {name: term for name, term in out.items() if term.mb_s >= cap[0]}
            out["rate limit"] = Term("rate limit", *cap)
    return JobTerms(out, wins_ties=frozenset(prefer), outside_model=outside)


def _copies_between_reads(ctx: PerfCtx, workload: Workload, reads: Terms) -> Terms:
    """The reads of a buffered job that also writes: its writes' copies into the page cache fall
    between its reads, as the copies out do, so the readahead window waits on both (half of each
    shows: planners.perf.terms' `_buffered`). bonnie++'s ReWrite loop (bonnie++.cpp) reads a chunk,
    dirties a byte, seeks back one chunk and writes it before it reads the next, in one process;
    fio's job issues its mix's reads and writes in turn from one thread."""
    window = reads.get("readahead")
    if window is None:
        return reads
    # Bytes the job writes per byte it reads: a rewrite writes back each byte it reads.
    if workload.rw == "rewrite":
        written = 1.0
    elif 0 < workload.read_mix < 1:
        written = (1 - workload.read_mix) / workload.read_mix
    else:
        return reads
    copy_in = ctx.cpu.buffered_write_mb_s * min(workload.numjobs, ctx.cpu.cores)
    out = dict(reads)
    out["readahead"] = Term(
        "readahead",
        1 / (1 / window.mb_s + written / (2 * copy_in)),
        f"{window.note}, and the same job's copy of {written:.2g} byte(s) per byte read into it at {copy_in:.0f} MB/s",
    )
    return out


def workload_terms(
    ctx: PerfCtx, workload: Workload, degraded: int = 0, capped: bool = True, cache_full: bool = False
) -> JobTerms:
    """All terms for any workload, with what the job does besides I/O (flushes, pauses, ext3's
    block map) as a factor on every term."""
    if workload.rw == "rewrite" or workload.is_mix:
        return _mixed_terms(ctx, workload, degraded, capped)
    outside = write_the_same_stripes(ctx, workload) or locks_not_counted(ctx, workload)
    if share_one_stream(workload):
        out = shared_stream_terms(ctx, workload, degraded)
    else:
        out = simple_terms(ctx, workload, degraded)
    if workload.writes and ctx.write_cache_bytes:
        out = _behind_controller_cache(ctx, workload, degraded, out, cache_full)
    if workload.writes and not workload.direct and not workload.sync_every:
        # (a job that flushes waits for writeback at every flush: memory lifts nothing)
        out, outside = _through_page_cache(ctx, workload, out)
    best = smallest(out)
    # Time the array does not see, in seconds per MB of the group's data: each job pauses on its
    # own while the others go on, so a job's extra time counts once per job.
    parts = [(name, secs / workload.numjobs, why) for name, secs, why in job_extras(ctx, workload)]
    if (
        ctx.fs_type == "ext3"
        and workload.writes
        and not workload.direct
        and workload.target == "file"
        and not workload.is_random
    ):
        parts.append(("ext3 block map", *ext3_indirect_blocks(ctx, degraded)))
    secs = sum(part[1] for part in parts)
    factor, why = 1.0, ""
    if secs and best > 0:
        combined = 1.0 / (1.0 / best + secs)
        notes = "; ".join(part[2] for part in parts)
        if best * secs > 1.0:
            # More of the time goes to it than to the array: it is what limits the job.
            name = max(parts, key=lambda part: part[1])[0]
            out[name] = Term(name, combined, f"{notes}, on top of the array's own time")
        else:
            factor, why = combined / best, f"{notes} (x{combined / best:.3g})"
    # fio's cap applies to what the job then gives: stated before the factor that predict applies.
    cap = rate_cap(workload)
    if cap and capped:
        out = lowest(out.values(), [Term("rate limit", cap[0] / factor, cap[1])])
    return JobTerms(out, factor, why, outside_model=outside)


def ext3_indirect_blocks(ctx: PerfCtx, degraded: int) -> tuple[float, str]:
    """Seconds per MB that ext3's block map costs a streaming writer, and why.

    ext3 maps a file through indirect blocks: one block of block_size/4 four-byte pointers for
    every block_size/4 data blocks (4 MiB of data per 4 KiB block), allocated between the data
    they map. The writeback stream skips them (they are metadata: journalled at commit, written
    in place at checkpoint), so for every span the array also does one small write away from the
    stream (on parity levels a partial stripe too: md's read-modify-write), which costs what a
    random block-sized write costs the array when a checkpoint queues many. ext4 (extents,
    delayed allocation) and XFS keep the map in the inode or in a few extent blocks and pay
    nothing comparable.
    """
    block = ctx.fs_block
    span = block // 4 * block
    # A checkpoint submits all its buffers at once: up to the block layer's queue (nr_requests 128).
    meta = Workload(name="ext3 indirect block", rw="randwrite", bs=block, iodepth=NR_REQUESTS, target="file")
    # The disks' queues hold the stream's own writes: each indirect block is one write away from
    # them, not one of many random writes to sort among themselves.
    small = smallest(simple_terms(ctx, meta, degraded, ncq=False))
    if small <= 0:
        return 0.0, ""
    per_s = small * 1e6 / block
    return 1e6 / span / per_s, (
        f"ext3 writes one indirect block per {span >> 20 or span >> 10}"
        f"{' MiB' if span >> 20 else ' KiB'} of data in place, apart from the stream: "
        f"{1e3 / per_s:.1f} ms each at the array's random {block >> 10} KiB write rate"
    )
