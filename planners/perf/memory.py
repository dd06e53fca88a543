"""Memory that takes writes faster than the disks do: the host's page cache and a controller's
write-back cache.

Both absorb writes at their own ingest rate until they hold as much as they may, then the
writer runs at the rate the disks drain them. Over a run of known length or size the figure
is the average of the two phases; a run with no end in sight gets the drain rate. Why each
threshold is what it is:
- page cache: writeback starts when dirty pages reach vm.dirty_background_ratio of available
  memory, and since 3.2 (IO-less dirty throttling) the kernel lets a writer run unthrottled
  up to the "freerun" point halfway between that and vm.dirty_ratio; past it the writer is
  held to the rate writeback achieves. fio's end_fsync (dd's conv=fdatasync) adds the time to
  write back what is still dirty when the last write returns.
- controller cache: it acknowledges a write once it is in its (battery or flash backed)
  memory and drains to the disks in the background with a deep, sorted queue; random writes
  it holds are reordered by position, which is why it drains faster than the host could write.
"""

from __future__ import annotations

from functools import lru_cache

from planners.perf.context import PerfCtx
from planners.perf.workloads import Workload

# Kernels before this did dirty throttling by making the writer write back pages itself.
IO_LESS_THROTTLING = (3, 2)


def dirty_thresholds(ctx: PerfCtx) -> tuple[int, int]:
    """(background, limit) in bytes: the vm.dirty_* ratios of the host's memory.

    The kernel takes the ratios of *available* memory (free plus reclaimable page cache); on a
    host that runs little else that is close to all of it, so these are upper figures.
    """
    mem = ctx.hardware.memory_bytes
    return int(mem * ctx.hardware.dirty_background_ratio / 100), int(mem * ctx.hardware.dirty_ratio / 100)


def absorb(ingest: float, drain: float, capacity: float, start: float, w: Workload) -> tuple[float, bool]:
    """(MB/s over what fio counts, True if the run ended before the cache filled).

    ingest: MB/s the cache takes writes at; drain: MB/s the disks empty it at, once `start`
    bytes are in it; capacity: bytes it holds before the writer is held to `drain`.

    fio counts from the end of the job's ramp_time: a runtime starts there, while the job's size
    counts every byte from its start, the ramp's too (fio 3.33: 256 MiB at 64 MiB/s with a 1 s ramp
    reports 191 MiB over 2.97 s). A ramp that outlasts the cache leaves only the drain counted.
    """
    if ingest <= drain:
        return ingest, False
    t_start = start / (ingest * 1e6)
    t_full = t_start + max(0.0, capacity - start) / ((ingest - drain) * 1e6)
    full_bytes = ingest * 1e6 * t_full

    def bytes_by(t: float) -> float:
        return ingest * 1e6 * t if t <= t_full else full_bytes + drain * 1e6 * (t - t_full)

    ramp = w.ramp_s
    limits = []
    if w.timed_end_s:
        limits.append(w.timed_end_s)
    if w.run_bytes and not w.time_based:
        s = float(w.run_bytes)
        limits.append(s / (ingest * 1e6) if s <= full_bytes else t_full + (s - full_bytes) / (drain * 1e6))
    if not limits:
        return drain, False
    t = min(limits)
    if t <= ramp:  # the job's bytes are done within its ramp: fio counts nothing, the rate then is given
        return (ingest, True) if t <= t_full else (drain, False)
    written = bytes_by(t)
    if w.end_fsync:
        drained = drain * 1e6 * max(0.0, t - t_start)
        t += max(0.0, written - drained) / (drain * 1e6)
    return (written - bytes_by(ramp)) / (t - ramp) / 1e6, t <= t_full and not w.end_fsync


def kernel_before(ctx: PerfCtx, version: tuple[int, int]) -> bool:
    parts = _kernel_parts(ctx.kernel)
    return parts is not None and parts < version


@lru_cache(maxsize=32)
def _kernel_parts(kernel: str) -> tuple[int, ...] | None:
    """The kernel's major and minor numbers, None where they are not numbers: parsed once, not
    the dozens of times a predict asks."""
    try:
        return tuple(int(x) for x in kernel.split(".")[:2])
    except ValueError:
        return None


def _writes_back(w: Workload, background: int, copy: float) -> bool:
    """Whether the run dirties more than the background threshold, where writeback begins."""
    if (w.size is not None and w.size <= background) or (w.io_bytes and w.io_bytes <= background):
        return False
    if w.timed_end_s and (w.time_based or w.run_bytes is None):
        return copy * 1e6 * w.timed_end_s > background
    return True


def page_cache(ctx: PerfCtx, w: Workload, copy: float, drain: float) -> tuple[float, str, str]:
    """A buffered writer: (MB/s over the run, note, why it is outside the model or '')."""
    background, limit = dirty_thresholds(ctx)
    freerun = (background + limit) / 2
    if w.size is not None and w.size <= freerun and copy > drain and not w.end_fsync:
        # Rewriting pages that are already dirty adds nothing: a file smaller than the throttle
        # point never reaches it, however long the run loops over it.
        rate, unthrottled = copy, True
    else:
        rate, unthrottled = absorb(copy, drain, freerun, background, w)
    note = (
        f"page cache takes {copy:.0f} MB/s until {freerun / 1e9:.2g} GB are dirty (vm.dirty_* of "
        f"{ctx.hardware.memory_bytes / 2**30:.3g} GiB), writeback drains {drain:.0f} MB/s"
    )
    why = ""
    if unthrottled:
        why = (
            f"the run never has {freerun / 1e9:.2g} GB dirty, where the kernel starts throttling: it measures "
            "memory copies and the kernel's dirty accounting, not the disks"
        )
    elif kernel_before(ctx, IO_LESS_THROTTLING) and _writes_back(w, background, copy):
        why = (
            f"kernel {ctx.kernel} has a writer past vm.dirty_background_ratio write back pages itself "
            "(before 3.2): its time between copying and writing back is not modelled; the model's "
            "throttling is the IO-less one"
        )
    return rate, note, why
