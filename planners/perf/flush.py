"""A flash drive's write cache, when the plan does not say what a cache flush costs on it.

The flash presets are power-loss protected drives (planners.hardware.disks): a flush finds nothing
volatile to write, so it costs nothing (flush_us 0). A drive without that protection keeps
acknowledged writes in a volatile cache, and a flush (md's REQ_PREFLUSH | REQ_FUA bitmap and
superblock writes, fsync, fdatasync, O_SYNC) waits until the cache is written out. Published
per-flush times of such client drives, one write and its flush at a time:
- Samsung 960 Pro (NVMe): fsync 3.5 ms, ~300 a second (P. Zaitsev, "Why Consumer SSD Reviews are
  Useless for Database Performance Use Case", Percona blog, Jul 2018);
- Samsung 990 Pro 2 TB (NVMe, "write back" cache): pg_test_fsync one 8 kB write and fdatasync
  1,643 us, O_DSYNC (FUA) writes 4,007 us (T. Poder, "Using Postgres pg_test_fsync tool for
  testing low latency writes", May 2025);
- Samsung 990 Pro: 16 KiB O_DIRECT writes each with fsync ~891 us, where the power-loss protected
  Intel D7-P5520 and Samsung PM9A3 took 12-58 us (M. Callaghan, "SSDs, power loss protection and
  fsync latency", smalldatum, Jan 2026).
Each is a whole sync (the write, its access and the flush together), not one flush: one fsync or
fdatasync on ext4 or XFS sends one cache flush (planners.perf.jobshape.flush_s). So a flash drive
the plan leaves to its class may take anything from its access time (protected, the preset) to
3.5 ms (the slowest client figure above) for one sync. No client SATA SSD's figure was found: the
SATA class takes the NVMe drives' range, an assumption. A spinning disk's flush is already priced
(planners.perf.bitmap, planners.perf.jobshape), so its classes carry none.

Where a figure rests on flushes (a write to an array with a write-intent bitmap, or a job that
syncs) on such a drive, the terms are evaluated again with every such drive's flush_us set so one
sync (one bitmap page write) costs the slow end's whole 3.5 ms, and
each term that moves by more than MOVES widens the range downwards by what it lost (its spread
multiplies the others', planners.perf.spread.Input.apart). Stating `flush_us` (0 for a protected
drive) keeps the range to the other inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from planners.perf.context import GroupCtx, PerfCtx
from planners.perf.jobshape import flush_s
from planners.perf.roof import MOVES, moved_terms
from planners.perf.spread import Input
from planners.perf.workloads import Workload

# The slowest published flush of a client drive of the class, microseconds (the module's sources).
CLIENT_FLUSH_US = {"nvme": 3500.0, "ssd-sata": 3500.0}


def _unstated(g: GroupCtx) -> bool:
    return g.disk.disk_class in CLIENT_FLUSH_US and "flush_us" not in g.disk.stated and not g.disk.rpm


def flush_sensitive(ctx: PerfCtx, w: Workload) -> bool:
    """Whether the figure rests on flushes of a flash drive whose flush cost the plan left out."""
    if not w.writes:
        return False
    groups = [ctx.groups[i] for i in ctx.volume_groups]
    if not any(_unstated(g) for g in groups):
        return False
    return bool(w.sync_every) or any(g.bitmap_chunk and _unstated(g) for g in groups)


def _slow_flush_us(ctx: PerfCtx, w: Workload) -> float:
    """The flush_us at which one sync (or, without one, one bitmap page write) costs the published
    whole time: the figures above are whole fsyncs and forced writes, their write and access inside."""
    whole = max(CLIENT_FLUSH_US[ctx.groups[i].disk.disk_class] for i in ctx.volume_groups if _unstated(ctx.groups[i]))
    if w.sync_every:
        rest = flush_s(ctx, w)[0] * 1e6  # the sync on the preset's protected drives: no cache flush
    else:
        rest = max(ctx.groups[i].disk.latency_us for i in ctx.volume_groups)
    return max(0.0, whole - rest)


def flush_input(
    ctx: PerfCtx, terms: Mapping[str, float], evaluate: Callable[[PerfCtx], Mapping[str, float]], w: Workload
) -> Input | None:
    """Each term again with every unstated flash drive at its class's slowest published whole sync.
    That end is a whole published figure, the drive's access in it: the disks' own spread is not
    charged again there (planners.perf.spread.Input.whole)."""
    flush_us = _slow_flush_us(ctx, w)
    slow = tuple(
        replace(g, disk=g.disk.model_copy(update={"flush_us": flush_us})) if _unstated(g) else g for g in ctx.groups
    )
    other = evaluate(replace(ctx, groups=slow))
    best = min(terms.values(), default=0.0)
    if best <= 0 or not other:
        return None
    # The figure's own move (a flush may bind as a term of its own: planners.perf.combined), taken
    # by the terms that bind now and by each that falls itself: none then ends the range below it.
    lo = 1 - min(other.values()) / best
    if lo <= MOVES:
        return None
    moved = moved_terms(terms, other, best)
    classes = sorted({ctx.groups[i].disk.disk_class for i in ctx.volume_groups if _unstated(ctx.groups[i])})
    flush_ms = max(CLIENT_FLUSH_US[c] for c in classes) / 1e3
    line = (
        f"drive's cache flush (flush_us): not stated, {', '.join(classes)} class preset (power-loss "
        f"protected, 0); a client drive's volatile cache, up to {flush_ms:g} ms a whole sync (published "
        f"fsync figures), moves {', '.join(sorted(moved))} by -{lo:.0%}"
    )
    return Input(line, f"flush_us not stated -{lo:.0%}", lo, 0.0, True, moved, apart=True, whole=True)
