"""A whole job's terms: the array's own (planners.perf.terms) with what stands between the job and
the disks, and what the job does besides I/O.

- a read/write mix or a rewrite is its two sides' times added (planners.perf.jobshape.mix);
- a controller's write-back cache acknowledges writes at the host's pace and drains them with a
  deep sorted queue of its own;
- the dirty page cache lifts a buffered writer of a run with a known end above the disks;
- flushes, pauses and ext3's block map add time the array does not see (the factor).
"""

from __future__ import annotations

from math import inf

from planners.perf.context import PerfCtx
from planners.perf.jobshape import job_extras, mix, mixed_rate_cap, rate_cap
from planners.perf.memory import controller_cache, page_cache
from planners.perf.terms import NR_REQUESTS, Limits, put, simple_terms
from planners.perf.workloads import Workload

# Terms that describe the disks' own work: behind a write-back cache they set the drain rate.
DISK_SIDE = ("disks", "queue depth", "stripe cache")


def _behind_controller_cache(ctx: PerfCtx, workload: Workload, degraded: int, out: Limits) -> Limits:
    """Writes a controller's write-back cache acknowledges: the host sees its round trip, the disks
    drain it with a deep queue of their own."""
    disks = sum(ctx.groups[i].n for i in ctx.volume_groups)
    queue = ctx.controller.drain_queue if ctx.controller else 1
    deep = workload.model_copy(
        update={"numjobs": 1, "iodepth": max(1, queue * disks), "ioengine": "libaio", "direct": True}
    )
    drained = simple_terms(ctx, deep, degraded, sorted_queue=queue)
    side = {k: v for k, v in drained.items() if k in DISK_SIDE}
    host = {k: v for k, v in out.items() if k not in DISK_SIDE}
    if not side:
        # No disk-side term to drain by (the fuzz test drew such a plan): the cache then changes
        # nothing the model can say, and the terms stand as they are.
        return out
    name, (drain, why) = min(side.items(), key=lambda kv: kv[1][0])
    if workload.direct:
        link = ctx.hardware.wiring.link_rate if ctx.hardware.wiring.link != "direct" else inf
        ack_s = ctx.round_trip_s + workload.bs / (link * 1e6)
        if ack_s > 0:  # no round trip and no link to cross: nothing here bounds the requests in flight
            put(
                host,
                "queue depth",
                workload.in_flight * workload.bs / ack_s / 1e6,
                f"{workload.in_flight} requests in flight, each acknowledged by the cache in {ack_s * 1e3:.2f} ms",
            )
    if not host:  # nothing on the host's side bounds what the cache takes in
        return out
    ingest = min(v for v, _ in host.values())
    rate, note = controller_cache(ctx, workload, ingest, drain)
    if rate < ingest * (1 - 1e-9):
        host["write cache"] = (rate, f"{note} ({name}: {why})")
    return host


def _through_page_cache(ctx: PerfCtx, workload: Workload, out: Limits) -> tuple[Limits, str]:
    """A buffered writer of a run with a known end: memory absorbs the start of it."""
    if "page cache" not in out or not (workload.runtime_s or workload.run_bytes):
        return out, ""
    copy = out["page cache"][0]
    below = {k: v for k, v in out.items() if k != "page cache"}
    if not below:
        return out, ""
    name, (drain, why) = min(below.items(), key=lambda kv: kv[1][0])
    rate, note, outside = page_cache(ctx, workload, copy, drain)
    if rate <= drain * (1 + 1e-9):
        return out, outside
    # Memory lifts the run above the drain; once throttled the writer still waits on the drain,
    # so that term stays the one to blame unless the run never reached the throttle.
    kept = {k: v for k, v in out.items() if v[0] >= rate}
    kept["page cache" if outside else name] = (rate, f"{note} ({name}: {why})")
    return kept, outside


def workload_terms(
    ctx: PerfCtx, workload: Workload, degraded: int = 0, capped: bool = True
) -> tuple[Limits, float, str, set[str], str]:
    """All terms for any workload, the factor for what the job does besides I/O (flushes,
    pauses, ext3's block map), a note on it, the terms that win a tie, and why the figure is
    outside the model ('' when it is not).

    A rewrite or a read/write mix is its two sides' times added (planners.perf.jobshape.mix);
    the side that takes longer is the one to blame, so its terms win ties.
    """
    prefer: set[str] = set()
    outside = ""
    if workload.rw == "rewrite" or workload.is_mix:
        read_rw, write_rw = ("randread", "randwrite") if workload.is_random else ("read", "write")
        sides = []
        for rw in (read_rw, write_rw):
            side = workload.model_copy(update={"rw": rw})
            side_terms, side_factor, _, _, why = workload_terms(ctx, side, degraded, capped=False)
            if rw == write_rw and not workload.direct:
                # The writes of a mix come at the pace its reads allow, not at memory's: the dirty
                # page cache lifts no part of the run (where that is outside the model, it still is).
                side_terms = simple_terms(ctx, side, degraded)
            sides.append({k: (v * side_factor, note) for k, (v, note) in side_terms.items()})
            outside = outside or why
        read_share, write_share = (
            (1.0, 1.0) if workload.rw == "rewrite" else (workload.read_mix, 1.0 - workload.read_mix)
        )
        out, prefer = mix(sides[0], sides[1], read_share, write_share)
        if workload.is_mix and capped:
            best = [min(v for v, _ in side.values()) for side in sides]
            cap = mixed_rate_cap(workload, best[0], best[1], min(v for v, _ in out.values()))
            if cap:
                # A cap that a side hits changes the mix itself: the figure is the capped one.
                out = {k: v for k, v in out.items() if v[0] >= cap[0]}
                out["rate limit"] = cap
        return out, 1.0, "", prefer, outside
    out = simple_terms(ctx, workload, degraded)
    if workload.writes and ctx.write_cache_bytes:
        out = _behind_controller_cache(ctx, workload, degraded, out)
    if workload.writes and not workload.direct and not workload.sync_every:
        # (a job that flushes waits for writeback at every flush: memory lifts nothing)
        out, outside = _through_page_cache(ctx, workload, out)
    best = min(v for v, _ in out.values())
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
    secs = sum(p[1] for p in parts)
    factor, why = 1.0, ""
    if secs and best > 0:
        combined = 1.0 / (1.0 / best + secs)
        notes = "; ".join(p[2] for p in parts)
        if best * secs > 1.0:
            # More of the time goes to it than to the array: it is what limits the job.
            name = max(parts, key=lambda p: p[1])[0]
            out[name] = (combined, f"{notes}, on top of the array's own time")
        else:
            factor, why = combined / best, f"{notes} (x{combined / best:.3g})"
    # fio's cap applies to what the job then gives: stated before the factor that predict applies.
    cap = rate_cap(workload)
    if cap and capped:
        put(out, "rate limit", cap[0] / factor, cap[1])
    return out, factor, why, prefer, outside


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
    small = min(v for v, _ in simple_terms(ctx, meta, degraded, ncq=False).values())
    if small <= 0:
        return 0.0, ""
    per_s = small * 1e6 / block
    return 1e6 / span / per_s, (
        f"ext3 writes one indirect block per {span >> 20 or span >> 10}"
        f"{' MiB' if span >> 20 else ' KiB'} of data in place, apart from the stream: "
        f"{1e3 / per_s:.1f} ms each at the array's random {block >> 10} KiB write rate"
    )
