"""The IOMMU in an NVMe drive's DMA: each request's map and unmap, and strict mode's invalidations.

With DMA remapping on, the NVMe driver maps a request's pages into the drive's I/O address space
before the command and unmaps them at its completion. That costs the submitting core a little per
request (`dma_map_us`: 0.32 us lazy, 1.55 us strict on a current core, planners.hardware.platform
with its source), added to the CPU per request term and to a request's own path at low depth.
Strict mode also waits, at every unmap, for an IOTLB invalidation that the remapping unit's queue
runs one at a time, so the drives behind one unit share one invalidation's rate whatever the
number of cores (`iommu_term`, named "IOMMU"). Lazy mode batches invalidations (one per flush
queue, not per request) and passthrough and off have none: no such term.

The mode is the plan's `[hardware.platform] iommu`, else the presets' lazy; left unset, the range
spans off on the CPU per request term (planners.perf.platform_spread) to strict evaluated again
(planners.perf.iommu_range). The project's lab VM has no
IOMMU: these terms have no lab witness, only the published cases in tests/test_perf_published.py.
"""

from __future__ import annotations

from math import ceil

from planners.hardware.machine import CPU_CLASSES
from planners.hardware.platform import DEFAULT_IOMMU, DMA_MAP_US, INVALIDATION_US, UNIT_LANES
from planners.perf.context import GroupCtx, PerfCtx
from planners.perf.host import drive_sockets
from planners.perf.roof import Term
from planners.perf.workloads import Workload

NAME = "IOMMU"
_SERVER_BLOCK_US = CPU_CLASSES["server"].block_request_us


def iommu_mode(ctx: PerfCtx) -> tuple[str, bool]:
    """(the mode, whether the plan states it)."""
    platform = ctx.hardware.platform
    if platform is not None and platform.iommu is not None:
        return platform.iommu, True
    return DEFAULT_IOMMU, False


def mode_us(ctx: PerfCtx, mode: str) -> float:
    """One request's map and unmap in `mode` on this CPU, microseconds: the published figure on a
    current core, scaled as the block layer's own per-request figure is for the CPU preset."""
    return DMA_MAP_US[mode] * ctx.cpu.block_request_us / _SERVER_BLOCK_US


def dma_map_us(ctx: PerfCtx, g: GroupCtx) -> float:
    """What each request to one of group g's members costs its core for the IOMMU, microseconds:
    only drives on their own PCIe link (an HBA's scatterlist is mapped per command too, but at a
    SATA/SAS drive's request rate the cost is lost in its other work)."""
    return mode_us(ctx, iommu_mode(ctx)[0]) if g.disk.pcie_lanes else 0.0


def iommu_term(ctx: PerfCtx, w: Workload, groups: list[tuple[GroupCtx, float, float]]) -> Term | None:
    """Strict mode's ceiling, MB/s of the volume: every unmap's invalidation in its unit's queue.

    `groups`: (group, share of the requests, member requests per workload request there)."""
    if iommu_mode(ctx)[0] != "strict" or not w.direct:
        return None
    unmaps = sum(ios for g, _, ios in groups if g.disk.pcie_lanes)
    if unmaps <= 0:
        return None
    nvme = [ctx.groups[i] for i in ctx.volume_groups if ctx.groups[i].disk.pcie_lanes]
    lanes = sum(g.disk.pcie_lanes * g.n for g in nvme)
    # A unit never spans sockets, and a socket with no drive has none in use: two drives on a
    # four-socket host pass two units, not four.
    on = max(1, min(drive_sockets(ctx)[0], sum(g.n for g in nvme)))
    units = on * ceil(lanes / on / UNIT_LANES)
    rate = units / (INVALIDATION_US * 1e-6) / unmaps
    note = (
        f"iommu strict: each unmap waits for an IOTLB invalidation, {INVALIDATION_US} us each in its "
        f"remapping unit's queue; {units} unit(s) (an x16 root port's drives each), {unmaps:.3g} unmap(s) a request"
    )
    return Term(NAME, rate * w.bs / 1e6, note)
