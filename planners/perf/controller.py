"""What a RAID adapter or an array's controller does to a job besides its round trip: its write-back
cache in steady state, and the commands a second its firmware processes.

- write cache. It acknowledges a write once it is in its (battery or flash backed) memory and
  drains to the disks in the background with a deep, sorted queue. It takes writes at the host's
  pace (its acceptance rate) until the share of it that holds writes (all of it, or an HPE Smart
  Array's cache ratio) is full: with writes arriving at `in` and draining at `drain`, that comes
  after size / (in - drain) seconds, the knee. A job that runs longer than that sees the drain rate,
  what the disks behind the cache absorb for the job's pattern; a run of known length gets the
  average of the two phases (fio reports the average); a run of no stated length is steady, the
  drain. A read/write mix sees the drain from its first write: its reads share the disks with the
  drain, so the cache never gets ahead of them (and on a new file fio lays the file out, writing it
  whole, just before the job: filesetup.c, for any job that reads). Each figure's note says which
  rate it is and when the knee comes.
- command rate. Each request that reaches a device behind the controller is one command its
  firmware processes; small direct requests (random, or sequential ones the block layer does not
  merge: planners.perf.request_cpu.device_requests) are bounded by the commands a second, whatever
  their bytes. The figure (planners.hardware.controllers) is the vendor's small-block IOPS.
  Buffered I/O reaches the devices as readahead windows and writeback's large requests: not
  counted.

The lab VM cannot witness either: its disks are virtio and virtio-scsi devices with no RAID
controller, no cache and no firmware in front of them. The figures rest on the published sources in
planners.hardware.controllers and docs/calibration.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from planners.perf.context import GroupCtx, PerfCtx
from planners.perf.memory import absorb
from planners.perf.roof import MOVES, Term
from planners.perf.workloads import Workload

COMMANDS = "controller commands"
WRITE_CACHE = "write cache"
# An input's spread as the range module takes it: line, brief, down, up, terms.
Spread = tuple[str, str, float, float, frozenset[str]]


def _size(n: int) -> str:
    return f"{n / 2**30:.3g} GiB" if n >= 2**30 else f"{n >> 20} MiB"


def controller_cache(ctx: PerfCtx, w: Workload, ingest: float, drain: float, full: bool = False) -> tuple[float, str]:
    """Writes behind a controller's write-back cache: (MB/s, note saying which rate it is and when
    the knee comes). `full`: the cache holds the writes of what ran just before (see the module)."""
    cap = ctx.write_cache_bytes
    c = ctx.controller
    share = c.write_share if c else 1.0
    what = f"{_size(cap)} of writes" + (
        f" ({share:.0%} of the {_size(c.cache_bytes)} cache)" if c and share < 1 else ""
    )
    queue = f"{c.drain_queue if c else 0} sorted writes per disk"
    if ingest <= drain:
        return ingest, f"{what} takes {ingest:.0f} MB/s and never fills: the disks drain {drain:.0f} MB/s ({queue})"
    if full:
        return drain, (
            f"{what} is full: the mix's reads share the disks with its drain (and fio writes a new file out "
            f"just before the job): the drain rate, {drain:.0f} MB/s with {queue}, not the {ingest:.0f} MB/s it accepts"
        )
    knee = cap / ((ingest - drain) * 1e6)
    rate, unfilled = absorb(ingest, drain, cap, 0.0, w)
    head = f"{what} accepts {ingest:.0f} MB/s for {knee:.3g} s (size / (in - drain)), then the disks drain {drain:.0f}"
    if not (w.runtime_s or w.run_bytes):
        return rate, f"{head} MB/s with {queue}: steady (no run length given), the drain rate"
    if unfilled:
        return rate, f"{head} MB/s with {queue}: the run ends before the knee, the acceptance rate"
    if w.ramp_s >= knee:
        return rate, f"{head} MB/s with {queue}: fio's {w.ramp_s:g} s ramp_time outlasts the knee, the drain rate"
    after = f" from the end of fio's {w.ramp_s:g} s ramp_time" if w.ramp_s else ""
    return rate, f"{head} MB/s with {queue}: the run's average past the knee{after}"


def command_term(ctx: PerfCtx, w: Workload, requests: list[tuple[GroupCtx, float, float]]) -> Term | None:
    """The controller's command rate, MB/s of the volume; None without a figure or for buffered I/O.

    `requests`: (group, share of the requests, device requests per workload request there)."""
    c = ctx.controller
    if c is None or not c.command_iops or not w.direct:
        return None
    per_request = sum(n for _, _, n in requests)
    if per_request <= 0:
        return None
    ops = c.command_iops / per_request
    return Term(
        COMMANDS,
        ops * w.bs / 1e6,
        f"the controller's firmware processes {c.command_iops:,.0f} commands/s; {per_request:.3g} per "
        f"{w.bs >> 10} KiB request reach its devices: {ops:,.0f} requests/s",
    )


def controller_spreads(ctx: PerfCtx) -> list[Spread]:
    """The controller's inputs left to a preset that move a term: its command rate (a vendor's best,
    through FastPath: the cached path takes about twice as long a command)."""
    c = ctx.controller
    if c is None or not c.command_iops or not c.command_spread:
        return []
    s = c.command_spread
    kind = ctx.hardware.controller.kind if ctx.hardware.controller else "?"
    line = (
        f"controller command rate: the {kind} preset, its vendor's FastPath figure (the firmware's "
        f"cache path about half of it, -{s:.0%})"
    )
    return [(line, f"controller commands {kind} preset -{s:.0%}", s, 0.0, frozenset({COMMANDS}))]


def split_spread(
    ctx: PerfCtx, w: Workload, figures: Mapping[str, float], evaluate: Callable[[PerfCtx], Mapping[str, float]]
) -> Spread | None:
    """The cache's write share left to a kind that ships with several (a generic RAID adapter: a
    MegaRAID's whole cache or a Smart Array's 75 %): the write cache term at the lowest, where the run
    ends before the cache fills (past the knee the share moves nothing). A steady run (no length) and
    a mix (the cache starts full) see the drain whatever the share: not evaluated again."""
    c = ctx.controller
    if c is None or c.split_low >= c.write_share or WRITE_CACHE not in figures:
        return None
    if not (w.runtime_s or w.run_bytes) or w.is_mix:
        return None
    low = evaluate(replace(ctx, controller=c.model_copy(update={"write_share": c.split_low})))
    now = figures[WRITE_CACHE]
    down = 1 - low.get(WRITE_CACHE, now) / now if now else 0.0
    if down < MOVES:
        return None
    kind = ctx.hardware.controller.kind if ctx.hardware.controller else "?"
    line = (
        f"controller cache's write share: the {kind} preset's {c.write_share:.0%}; an HPE Smart Array ships "
        f"with {c.split_low:.0%} (its cache ratio), -{down:.0%}"
    )
    return line, f"cache write share {kind} preset -{down:.0%}", down, 0.0, frozenset({WRITE_CACHE})
