"""fio's clones of one job on one file or device: where they meet, and what that does to the figure.

fio starts every clone of a job (numjobs) at the same offset of a target they share (a device, or
a file a `filename` names; without one each clone gets a file of its own), unless
`offset_increment` moves clone k that many bytes further per k (fio's HOWTO, "offset_increment";
`get_start_offset()` in fio's filesetup.c adds `offset_increment * subjob number`). Random
clones draw their own offsets (fio seeds each clone's generator apart), so only sequential
clones meet.

- **Buffered readers share one stream of pages.** The clones ask for the same pages at about the
  same time: the first one's miss starts the read (and readahead), the others find the pages in
  the page cache or wait on them while they are read. The disks read each page once, and fio
  counts it once for every clone, so the job reports numjobs times what the array gives one
  stream. What each clone does on its own, its copy out of the page cache and its memory
  traffic, stays per clone. The lab shows it: RAID0 of four throttled disks gave one buffered
  reader 16.3 MB/s and four clones 66.2 MB/s (docs/calibration.md, scaling sweeps).
- **Direct readers share nothing** (O_DIRECT skips the page cache): each clone's requests reach
  the disks.
- **Direct writers of the same stripes on parity RAID** meet in md's stripe cache: a stripe that
  one clone's write left partial may be completed by another's before md reads for it, so fewer
  stripes pay a read-modify-write than the model counts. How many depends on the clones'
  timing, which the model does not know: the figure is marked outside the model.
"""

from __future__ import annotations

from planners.perf.context import PerfCtx
from planners.perf.roof import CPU_COPY, Term, Terms
from planners.perf.terms import simple_terms
from planners.perf.workloads import Workload

# Work each clone does on its own, whatever the others read: the copy out of the page cache, its
# system calls, and the memory traffic of both.
PER_CLONE = (CPU_COPY, "CPU per request", "memory")

SHARED_STRIPES = (
    "fio starts the {n} clones at one offset: their writes meet in md's stripe cache, and how many "
    "stripes that spares a read-modify-write depends on their timing, which the model does not know"
)


def share_one_stream(workload: Workload) -> bool:
    """Clones that read one stream of pages: buffered, sequential, one shared target, one start."""
    return (
        workload.numjobs > 1
        and not workload.direct
        and workload.rw == "read"
        and workload.files == 1
        and not workload.clone_step
    )


def write_the_same_stripes(ctx: PerfCtx, workload: Workload) -> str:
    """Why a job of direct sequential clones writing one start of parity RAID is outside the model ('')."""
    if workload.numjobs < 2 or not workload.direct or workload.rw != "write" or workload.files != 1:
        return ""
    if workload.clone_step or not any(ctx.groups[i].parity for i in ctx.volume_groups):
        return ""
    return SHARED_STRIPES.format(n=workload.numjobs)


def shared_stream_terms(ctx: PerfCtx, workload: Workload, degraded: int) -> Terms:
    """The terms of clones reading one stream of pages: the array's terms for one stream, each page
    counted by every clone; the clones' own work (copy, calls, memory) from all of them."""
    n = workload.numjobs
    one = simple_terms(ctx, workload.model_copy(update={"numjobs": 1}), degraded)
    every = simple_terms(ctx, workload, degraded)
    out: Terms = {
        name: Term(
            name,
            term.mb_s * n,
            f"{term.note}; read once for {n} clones that start at one offset, each page counted by each",
        )
        for name, term in one.items()
        if name not in PER_CLONE
    }
    out.update({name: term for name, term in every.items() if name in PER_CLONE})
    return out
