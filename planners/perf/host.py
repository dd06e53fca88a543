"""The host's own bandwidth: each NVMe drive's PCIe link, the sockets' PCIe lanes and their memory.

Drives x datasheet speed overstates an array of many NVMe drives: every byte a drive moves
crosses its own PCIe link (x4 at the host's generation), then a root port of the socket (the
socket's lanes are all the drives, NICs and HBAs get together), then memory, which a direct
transfer crosses once (the drive's DMA) and a buffered one three times (the DMA, then the copy
out of or into the page cache reads and writes it). md RAID5/6 copies each written page into
its stripe cache as well. Figures: planners.hardware's CPU class presets (lanes, generation,
memory per socket, with sources) or the plan's [hardware.cpu].
"""

from __future__ import annotations

from planners.hardware.disks import ResolvedDisk
from planners.hardware.machine import PCIE_LANE_MB_S
from planners.perf.context import PerfCtx
from planners.perf.roof import Term
from planners.perf.workloads import Workload

HOST_PCIE = "host PCIe"
MEMORY = "memory"


def pcie_drives(ctx: PerfCtx) -> dict[int, ResolvedDisk]:
    """Disk position -> figures, for the drives on a PCIe link of their own."""
    return {i: g.disk for g in ctx.groups for i in g.members if g.disk.pcie_lanes}


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


def host_roofs(ctx: PerfCtx, workload: Workload, traffic: dict[int, float]) -> list[Term]:
    """The sockets' PCIe lanes and memory bandwidth as ceilings, MB/s of the volume."""
    total = sum(traffic.values())
    if total <= 0:
        return []
    cpu = ctx.cpu
    lanes = cpu.sockets * cpu.pcie_lanes
    pcie = lanes * PCIE_LANE_MB_S[cpu.pcie_gen]
    copies = 0.0 if workload.direct else 2.0
    if workload.writes and any(ctx.groups[i].parity for i in ctx.volume_groups):
        copies += 2.0
    mem = cpu.sockets * cpu.memory_mb_s
    how = "DMA and copies" if copies else "DMA"
    return [
        Term(
            HOST_PCIE,
            pcie / total,
            f"{cpu.sockets} socket(s) x {cpu.pcie_lanes} PCIe gen{cpu.pcie_gen} lanes "
            f"({pcie:,.0f} MB/s) carry {total:.3g} bytes of disk traffic per byte",
        ),
        Term(
            MEMORY,
            mem / (total + copies),
            f"{cpu.sockets} socket(s) x {cpu.memory_mb_s:,.0f} MB/s of memory, "
            f"{total + copies:.3g} bytes crossing it per byte ({how})",
        ),
    ]
