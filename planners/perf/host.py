"""The host's own bandwidth: each NVMe drive's PCIe link, the sockets' PCIe lanes, their memory and
the links between them.

Drives x datasheet speed overstates an array of many NVMe drives: every byte a drive moves
crosses its own PCIe link (x4 at the host's generation), then a root port of the socket (the
socket's lanes are all the drives, NICs and HBAs get together), then memory, which a direct
transfer crosses once (the drive's DMA) and a buffered one three times (the DMA, then the copy
out of or into the page cache reads and writes it). md RAID5/6 copies each written page into
its stripe cache as well. Figures: planners.hardware's CPU class presets (lanes, generation,
memory per socket, with sources) or the plan's [hardware.cpu].

On more than one socket each socket has its own: the drives use the root ports of the sockets they
hang off (`[hardware.platform] drive_sockets`, else all of them, as the presets assume), a job's
buffers lie in the memory of the sockets its threads run on (the kernel places a page on the node
of the thread that first touches it), and a transfer between a drive on one socket and a buffer on
another crosses the links between them (UPI, QPI, xGMI: `socket_link_mb_s`, one way, per CPU
preset with sources). The project's lab VM has one NUMA node: it cannot witness these terms.
"""

from __future__ import annotations

from planners.hardware.disks import ResolvedDisk
from planners.hardware.generations import LINK_LANES
from planners.hardware.machine import PCIE_LANE_MB_S
from planners.perf.context import PerfCtx
from planners.perf.roof import Term
from planners.perf.workloads import Workload

HOST_PCIE = "host PCIe"
MEMORY = "memory"
SOCKET_LINK = "socket link"


def drive_sockets(ctx: PerfCtx) -> tuple[int, bool]:
    """(sockets the NVMe drives are spread over, whether the plan states it): unset, every socket."""
    platform = ctx.hardware.platform
    if platform is not None and platform.drive_sockets is not None:
        return min(platform.drive_sockets, ctx.cpu.sockets), True
    return ctx.cpu.sockets, False


def pcie_drives(ctx: PerfCtx) -> dict[int, ResolvedDisk]:
    """Disk position -> figures, for the drives on a PCIe link of their own."""
    # Filtered by group, not by member: a predict asks for every workload and most arrays have none.
    return {i: g.disk for g in ctx.groups if g.disk.pcie_lanes for i in g.members}


def drive_links(ctx: PerfCtx, traffic: dict[int, float], drives: dict[int, ResolvedDisk]) -> Term | None:
    """The busiest NVMe drive's own link as a ceiling on the workload, MB/s, or None."""
    mine = [(load, drives[i].pcie_lanes) for i, load in traffic.items() if i in drives and load > 0]
    if not mine:
        return None
    lane = PCIE_LANE_MB_S[ctx.cpu.pcie_gen]
    rate, lanes = min((lanes * lane / load, lanes) for load, lanes in mine)
    return Term(
        "link", rate, f"each drive on its own PCIe gen{ctx.cpu.pcie_gen} x{lanes} link ({lanes * lane:,.0f} MB/s)"
    )


def socket_lanes(ctx: PerfCtx) -> int:
    """PCIe lanes one socket gives its devices: the preset's, less the lanes a two-socket EPYC's
    links to the other socket take (planners.hardware.generations.LINK_LANES)."""
    cpu = ctx.cpu
    taken = LINK_LANES.get(ctx.hardware.cpu.cpu_class, 0)
    if cpu.sockets > 1 and taken and "pcie_lanes" not in cpu.stated:
        return cpu.pcie_lanes - taken
    return cpu.pcie_lanes


def busiest_crossing(sockets: int, drives_on: int, threads_on: int, read_share: float) -> float:
    """Share of the disk traffic on the busiest one-way path between two sockets.

    The drives are spread evenly over the first `drives_on` sockets, the job's threads (and the
    buffers they touch first, which the kernel places on their own node) over the first
    `threads_on`; a read moves from a drive's socket to a thread's, a write back."""
    d = [1 / drives_on if s < drives_on else 0.0 for s in range(sockets)]
    t = [1 / threads_on if s < threads_on else 0.0 for s in range(sockets)]
    pairs = [(a, b) for a in range(sockets) for b in range(sockets) if a != b]
    return max((read_share * d[a] * t[b] + (1 - read_share) * d[b] * t[a] for a, b in pairs), default=0.0)


def _socket_link(ctx: PerfCtx, workload: Workload, total: float) -> Term | None:
    """The links between sockets, MB/s of the volume, where the drives' DMA crosses them."""
    cpu = ctx.cpu
    if cpu.sockets < 2 or not cpu.socket_link_mb_s:
        return None
    drives_on, _ = drive_sockets(ctx)
    threads_on = max(1, min(cpu.sockets, workload.numjobs, cpu.cores))
    reads = 1.0 if workload.is_read else 0.0 if not workload.is_mix else workload.read_mix
    share = busiest_crossing(cpu.sockets, drives_on, threads_on, reads)
    if share <= 0:
        return None
    return Term(
        SOCKET_LINK,
        cpu.socket_link_mb_s / (total * share),
        f"{share:.0%} of the disk traffic crosses one way between sockets ({drives_on} socket(s) with drives, "
        f"the job's threads on {threads_on}) at {cpu.socket_link_mb_s:,.0f} MB/s",
    )


def host_roofs(ctx: PerfCtx, workload: Workload, traffic: dict[int, float]) -> list[Term]:
    """The sockets' PCIe lanes, their memory and the links between them as ceilings, MB/s of the volume.

    The drives use the lanes of the sockets they hang off (`[hardware.platform] drive_sockets`, else
    every socket); a job's buffers lie in the memory of the sockets its threads run on (one thread:
    one socket's), whatever the drives. The project's lab VM has one NUMA node: no lab witness."""
    total = sum(traffic.values())
    if total <= 0:
        return []
    cpu = ctx.cpu
    drives_on, _ = drive_sockets(ctx)
    lanes = socket_lanes(ctx)
    pcie = drives_on * lanes * PCIE_LANE_MB_S[cpu.pcie_gen]
    copies = 0.0 if workload.direct else 2.0
    if workload.writes and any(ctx.groups[i].parity for i in ctx.volume_groups):
        copies += 2.0
    numa = cpu.sockets > 1 and cpu.socket_link_mb_s > 0  # else one memory every socket shares
    nodes = max(1, min(cpu.sockets, workload.numjobs, cpu.cores)) if numa else cpu.sockets
    mem = nodes * cpu.memory_mb_s
    how = "DMA and copies" if copies else "DMA"
    out = [
        Term(
            HOST_PCIE,
            pcie / total,
            f"{drives_on} socket(s) x {lanes} PCIe gen{cpu.pcie_gen} lanes "
            f"({pcie:,.0f} MB/s) carry {total:.3g} bytes of disk traffic per byte",
        ),
        Term(
            MEMORY,
            mem / (total + copies),
            f"{nodes} socket(s) x {cpu.memory_mb_s:,.0f} MB/s of memory, "
            f"{total + copies:.3g} bytes crossing it per byte ({how})",
        ),
    ]
    link = _socket_link(ctx, workload, total) if numa else None
    return out + ([link] if link else [])
