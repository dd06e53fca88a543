"""CPU per request: at hundreds of thousands of requests a second the host's cores bind before flash does.

Every request costs CPU in each layer it passes, whatever its size:
- the job's own thread: the I/O engine's system call and fio's bookkeeping (psync, libaio and
  io_uring differ), plus a sleep and a wake-up whenever the thread waits for a completion (every
  request with psync; once per batch reaped with an async engine at depth);
- md and dm: each passes the bio on to its members (a remap, a split at chunk boundaries);
- the block layer and the driver: submission, completion and interrupt of every request to a
  device (and, for a drive on its own PCIe link, the IOMMU's map and unmap: planners.perf.iommu), so a request md turns into several member I/Os pays it several times, and adjacent
  small requests a spinning disk's scheduler merges pay it once (merged_bytes);
- md's raid5/6 thread(s): a small write's stripe is handled there, each member I/O of its
  read-modify-write or reconstruct-write in turn; that work runs on 1 + group_thread_cnt threads
  whatever the job does. A sequential write's stripes are md's thread term (MB/s) instead.

The job's part runs on the cores its threads can use: min(numjobs, cores). The figures (per
request, per layer, per engine) are in planners.hardware with their sources; the host's own
measurement is benchmarks/bench_request_cpu.py. Buffered I/O is the CPU copy term's (planners.perf.terms).
"""

from __future__ import annotations

from math import ceil

from planners.perf.context import MAX_SECTORS_BYTES, GroupCtx, PerfCtx
from planners.perf.era import md_threads
from planners.perf.iommu import dma_map_us
from planners.perf.roof import Term
from planners.perf.workloads import Workload

FIO_US = 0.1  # fio with ioengine=null, per request (benchmarks/bench_request_cpu.py: 0.09-0.16 us)
SYNC_ENGINES = ("psync", "sync", "pvsync", "pvsync2", "vsync")
NAME = "CPU per request"


def device_requests(g: GroupCtx, w: Workload, share: float, amp: float) -> float:
    """Requests group g's members receive per request of the workload, given the disk bytes it
    moves per byte asked (amp): a random request splits at chunk boundaries, a sequential one
    into pieces of a chunk (md RAID) or of the block layer's largest request."""
    if w.is_random:
        cols = min(max(1, int(g.data)), ceil(w.bs / g.chunk)) if g.chunk else 1
        return share * amp * cols
    piece = min(g.chunk or MAX_SECTORS_BYTES, MAX_SECTORS_BYTES, w.bs)
    return share * amp * max(1.0, w.bs * share / piece) * piece / merged_bytes(g, w, piece)


def merged_bytes(g: GroupCtx, w: Workload, piece: float) -> float:
    """Size of the requests a member receives from a sequential stream of `piece`-sized pieces.

    A device takes up to its queue depth (SATA NCQ: 32 tags) at once; a stream with more in
    flight than that leaves the rest waiting in the kernel's scheduler (mq-deadline, the default
    for a device with one hardware queue: SATA and SAS disks, spinning or flash), which merges
    adjacent ones: each request dispatched then carries depth / queue depth pieces (the depth on
    each member: the stream's requests over the members its bytes in flight span), up to the
    block layer's largest request (max_sectors_kb) and never across md's chunk boundary. Up to
    the queue depth nothing waits and nothing merges (the lab: 32 x 4 KiB in flight on a
    device taking 128 reached it as 4 KiB requests, tests/test_lab_merging.py). NVMe's many
    queues get "none", which merges only what one submission call plugs together, and fio
    submits one request at a time by default.
    """
    stream = w.in_flight // w.numjobs
    # The stream's requests in flight are spread over the members its bytes in flight cover.
    members = max(1.0, min(float(g.n), stream * piece / g.chunk)) if g.chunk else 1.0
    depth = stream / members
    if g.disk.pcie_lanes or depth <= g.disk.queue_depth or piece >= MAX_SECTORS_BYTES:
        return piece
    return min(depth / g.disk.queue_depth * piece, MAX_SECTORS_BYTES, g.chunk or MAX_SECTORS_BYTES)


def engine_us(ctx: PerfCtx, w: Workload) -> tuple[float, str]:
    """The job thread's own CPU per request: engine, fio, and its share of a sleep for completions."""
    cpu = ctx.cpu
    depth = w.in_flight // w.numjobs
    if w.ioengine in SYNC_ENGINES:
        own, depth = cpu.psync_us, 1
    else:
        own = cpu.io_uring_us if w.ioengine == "io_uring" else cpu.libaio_us
    return own + FIO_US + cpu.wait_us / max(1, depth), f"{w.ioengine} at depth {depth}"


def path_us(ctx: PerfCtx, w: Workload, member_ios: float) -> float:
    """CPU time in one direct request's own path, microseconds: its engine call and wake-up, md's
    remap (and LVM's) and the block layer's work for each member I/O. A request waits for it as
    it waits for its device, so at low depth it adds to the device's time."""
    own, _ = engine_us(ctx, w)
    lvm = ctx.cpu.bio_remap_us if ctx.lvm_mode != "none" else 0.0
    dma = max((dma_map_us(ctx, ctx.groups[i]) for i in ctx.volume_groups), default=0.0)
    return own + fs_us(ctx, w) + lvm + ctx.cpu.bio_remap_us + member_ios * (ctx.cpu.block_request_us + dma)


def fs_us(ctx: PerfCtx, w: Workload) -> float:
    """The filesystem's direct-I/O path for one request to a file, microseconds (none on the device).

    XFS and ext4 both go through iomap (ext4 since 5.5) and cost the same there: the published
    figure (planners.hardware.machine) is the two alike. ext4 before 5.5 took the older buffer-head
    path, for which no published per-request figure was found: it gets iomap's, an assumption."""
    return ctx.cpu.fs_dio_us if w.target == "file" and ctx.fs_type != "btrfs" else 0.0


def request_cpu_term(ctx: PerfCtx, w: Workload, groups: list[tuple[GroupCtx, float, float]]) -> Term | None:
    """The CPU's ceiling on a direct workload, MB/s of the volume; None for buffered I/O.

    `groups`: (group, share of the requests, member requests per workload request there).
    """
    if not w.direct:
        return None
    cpu = ctx.cpu
    own, how = engine_us(ctx, w)
    layers = cpu.bio_remap_us * (1 if ctx.lvm_mode != "none" else 0)
    stripe_ios = 0.0
    member_ios = 0.0
    for g, share, ios in groups:
        layers += share * cpu.bio_remap_us + ios * dma_map_us(ctx, g)
        if g.parity and w.is_random and not w.is_read:
            stripe_ios += ios
        else:
            member_ios += ios
    job_us = own + fs_us(ctx, w) + layers + member_ios * cpu.block_request_us
    cores = min(w.numjobs, cpu.cores)
    rate = cores / (job_us * 1e-6)
    src = "stated" if "cores" in cpu.stated else "the CPU class preset"
    note = (
        f"{job_us:.2f} us of CPU a request ({how}, {member_ios:.3g} device request(s)): "
        f"{1e3 / job_us:,.0f}k requests/s per core x {cores} core(s) ({w.numjobs} job(s), "
        f"{cpu.cores} cores from {src})"
    )
    if stripe_ios:
        threads = md_threads(ctx)
        md_us = stripe_ios * (cpu.md_stripe_io_us + cpu.block_request_us)
        md_rate = threads / (md_us * 1e-6)
        if md_rate < rate:
            rate = md_rate
            note = (
                f"md's stripe thread(s): {md_us:.2f} us a request ({stripe_ios:.3g} member I/Os): "
                f"{1e3 / md_us:,.0f}k requests/s per thread x {threads} thread(s) (1 + group_thread_cnt)"
            )
    return Term(NAME, rate * w.bs / 1e6, note)
