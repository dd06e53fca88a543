"""A buffered reader on a full page cache pays for the pages it pushes out.

Each page a buffered reader brings in needs a free page. While memory has some, the reader's copy
ceiling is the CPU class's `buffered_read_mb_s` (copy out, allocation, insertion); once the page
cache holds all of it, every page read has another reclaimed, by kswapd and by the reader itself
(direct reclaim, and the LRU locks both take), and the reader slows by `reclaim_us` a page: 4.9 GB/s
a reader while the cache had room, 3.0 once it was full (J. Axboe's 32 buffered readers, sources in
planners.hardware.machine). The memory the cache may fill is taken as the whole of the plan's
`memory_bytes`: a host whose cache is already full of older pages reclaims from the first page, so
this is the figure's upper end.
"""

from __future__ import annotations

from planners.perf.context import PAGE, PerfCtx
from planners.perf.workloads import Workload


def reader_copy_mb_s(ctx: PerfCtx, w: Workload) -> tuple[float, str]:
    """One buffered reader's copy ceiling over the run, MB/s, and what reclaim took ('' nothing)."""
    empty = ctx.cpu.buffered_read_mb_s
    full = 1 / (1 / empty + ctx.cpu.reclaim_us / PAGE)  # us per byte = s per MB
    memory = ctx.hardware.memory_bytes
    jobs = min(w.numjobs, ctx.cpu.cores)
    read = _run_bytes(w, empty * jobs)
    if read is not None and read <= memory:
        return empty, ""
    note = (
        f"once the page cache fills the {memory / 2**30:.3g} GiB of memory, each page read has another "
        f"reclaimed ({ctx.cpu.reclaim_us:.2f} us a page): {full:.0f} MB/s a reader"
    )
    if read is None:
        return full, note + " (steady)"
    seconds = memory / (empty * 1e6) + (read - memory) / (full * 1e6)
    return read / seconds / 1e6, note + f", {memory / read:.0%} of the run before it"


def _run_bytes(w: Workload, rate_mb_s: float) -> float | None:
    """Distinct bytes the job's reads bring into the page cache over its run, None when the run has no
    end the model knows. Clones on one file (no offset step between them) bring its pages in once."""
    apart = 1 if (w.files == 1 and not w.clone_step) else w.numjobs
    span = float(w.size) * apart if w.size else None
    if w.run_bytes and not w.time_based:
        read: float | None = float(w.run_bytes) * apart
    elif w.runtime_s:
        read = rate_mb_s * 1e6 * w.runtime_s
    else:
        read = None
    if span is not None:
        return span if read is None else min(read, span)
    return read
