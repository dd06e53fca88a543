"""What a job does besides moving data: flushes, pauses and rate caps, and how a read/write mix
shares the array.

Each is time a job spends that no term of the array counts, or a ceiling fio itself sets:
- flush (fio fsync / fdatasync / sync=1): the writes since the last flush must be on stable
  media before the job goes on. A spinning disk's volatile cache holds them: for a sequential
  stream the platter has just turned past the spot where the next write lands, so each flush
  waits about one revolution (the classic one synchronous write per turn); a random write
  already paid its positioning. Flash pays its access time, and a drive with a volatile cache
  its flush (flush_us; planners.perf.flush widens the range where the plan leaves it out), once a
  sync: the journal's commit carries the one flush. A controller's battery-backed cache
  acknowledges the flush in its round trip. On a filesystem, fsync (and O_SYNC) also commits the
  journal: one more write away from the data, a seek and half a revolution. md and
  LVM pass a flush to every member at once, so it costs what one member's costs.
- think time (fio thinktime): the job pauses, and the array waits for it.
- rate caps (fio rate / rate_iops): fio holds each job to its cap, per direction.
- mix (fio rw=readwrite / randrw with rwmixread): the job's requests take turns, so each
  term's time per byte is the reads' share at the read rate plus the writes' share at the
  write rate (bonnie++'s rewrite is the same sum with each byte read and written once).
"""

from __future__ import annotations

from math import inf

from planners.perf.context import PerfCtx, positioning_s
from planners.perf.roof import Term, Terms, smallest
from planners.perf.workloads import Workload


def flush_s(ctx: PerfCtx, w: Workload) -> tuple[float, str]:
    """Seconds one flush costs the job beyond its writes, and why."""
    journal = w.sync_metadata and w.target == "file"
    if ctx.write_cache_bytes:
        n = 2 if journal else 1
        return n * ctx.round_trip_s, (
            f"{n} controller round trip(s) per flush: its battery-backed cache holds the writes"
        )
    disks = [ctx.groups[i].disk for i in ctx.volume_groups]
    spinning = [d for d in disks if d.rpm]
    if spinning:
        rpm = min(d.rpm for d in spinning)
        data = 0.0 if w.is_random else 60.0 / rpm
        log = max(positioning_s(d) for d in spinning) if journal else 0.0
        what = (
            "a random write already paid its positioning"
            if w.is_random
            else f"the platter turns once ({data * 1e3:.1f} ms) before the next write lands"
        )
    else:
        # One cache flush a sync, journal or not: ext4's fsync commits with one REQ_PREFLUSH | REQ_FUA
        # commit block, which writes out the data and the journal before it, and issues its own
        # flush only where no commit carries one (ext4_sync_file, jbd2_trans_will_send_data_barrier);
        # XFS's fsync forces its log (a REQ_PREFLUSH | REQ_FUA log write), or flushes the device where the
        # force had nothing to write (xfs_file_fsync).
        lat = max(d.latency_us for d in disks) * 1e-6
        cache = max(d.flush_us for d in disks) * 1e-6
        data = lat + cache
        log = lat if journal else 0.0
        what = f"flash access {lat * 1e6:.0f} us" + (f" and its cache flush {cache * 1e6:.0f} us" if cache else "")
    t = data + log + ctx.round_trip_s * (2 if journal else 1)
    extra = f", plus the journal's commit {log * 1e3:.3g} ms" if journal else ""
    return t, f"{what}{extra}"


def job_extras(ctx: PerfCtx, w: Workload) -> list[tuple[str, float, str]]:
    """(term name, seconds per MB of one job's data, why) for the time a job spends flushing or
    pausing, which the array does not see."""
    out = []
    if w.sync_every and w.writes:
        t, how = flush_s(ctx, w)
        kind = "fsync" if w.sync_metadata else "fdatasync"
        out.append(
            (
                "flush",
                t / (w.sync_every * w.bs / 1e6),
                f"{kind} after every {w.sync_every} write(s) costs {t * 1e3:.2f} ms ({how})",
            )
        )
    if w.thinktime_us:
        out.append(
            (
                "think time",
                w.thinktime_us * 1e-6 / (w.thinktime_blocks * w.bs / 1e6),
                f"each job pauses {w.thinktime_us:g} us every {w.thinktime_blocks} request(s)",
            )
        )
    return out


def _cap(w: Workload, side: int) -> float:
    """fio's cap on one direction (0 reads, 1 writes) for the job group, MB/s (inf = none)."""
    c = inf
    rate, iops = w.rate_bytes_s[side], w.rate_iops[side]
    if rate is not None:
        c = min(c, rate / 1e6)
    if iops is not None:
        c = min(c, iops * w.bs / 1e6)
    return c * w.numjobs


def rate_cap(w: Workload) -> tuple[float, str] | None:
    """fio's own ceiling on a one-direction job group, MB/s, or None."""
    total = _cap(w, 0 if w.rw in ("read", "randread") else 1)
    if total == inf:
        return None
    return total, f"fio holds the {w.numjobs} job(s) to their rate / rate_iops"


def mixed_rate_cap(w: Workload, read_best: float, write_best: float, mixed: float) -> tuple[float, str] | None:
    """fio's ceiling on a read/write mix, MB/s over both directions, or None.

    fio keeps each direction to its own cap, and when one direction is ahead of its rate it
    issues the other if that one is not (fio's rate_ddir): a capped side runs at its cap and the
    other takes the array's time that is left, so the mix's ratio gives way.
    """
    f = w.read_mix
    caps = (_cap(w, 0), _cap(w, 1))
    if caps == (inf, inf):
        return None
    flows = (f * mixed, (1 - f) * mixed)
    bound = [flows[i] > caps[i] for i in (0, 1)]
    if not any(bound):
        return None
    best = (read_best, write_best)
    if all(bound):
        total = caps[0] + caps[1]
    else:
        held = 0 if bound[0] else 1
        # The held side's cap uses that share of the array's time; the free side fills the rest.
        left = max(0.0, 1.0 - caps[held] / best[held])
        total = caps[held] + min(caps[1 - held], best[1 - held] * left)
    return total, (
        f"fio holds the {w.numjobs} job(s) to their rate / rate_iops per direction; the other "
        "direction takes the time left"
    )


def mix(read: Terms, write: Terms, a: float, b: float) -> tuple[Terms, set[str]]:
    """Terms of a job that moves a bytes read and b bytes written per byte it reports, and the
    names of the terms of the side that takes longer (they win ties).

    The two sides' times add, so each term becomes 1/(a/read + b/write); a term only one side
    has stands for that side's best at the other (no term there is faster than its own limit).
    """
    read_best = smallest(read)
    write_best = smallest(write)
    out: Terms = {}
    for name in {*read, *write}:
        read_mb_s = read[name].mb_s if name in read else read_best
        write_mb_s = write[name].mb_s if name in write else write_best
        note = " / ".join(side[name].note for side in (read, write) if name in side)
        mb_s = 0.0 if min(read_mb_s, write_mb_s) <= 0 else 1.0 / (a / read_mb_s + b / write_mb_s)
        out[name] = Term(name, mb_s, note)
    slower = read if a / max(read_best, 1e-12) >= b / max(write_best, 1e-12) else write
    return out, set(slower)
