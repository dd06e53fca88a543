"""The spreads of the platform inputs a plan leaves unset: where the drives sit among the sockets, and
the IOMMU's mode (planners.perf.host, planners.perf.iommu); planners.perf.spread names them in the range."""

from __future__ import annotations

from planners.hardware.machine import REQUEST_SPREAD
from planners.perf.context import PerfCtx
from planners.perf.host import drive_sockets
from planners.perf.iommu import NAME, iommu_mode, mode_us
from planners.perf.request_cpu import engine_us, fs_us
from planners.perf.workloads import Workload

Spread = tuple[str, str, float, float, bool, frozenset[str]]  # line, brief, down, up, left to a preset, terms


def platform_spreads(ctx: PerfCtx, w: Workload | None) -> list[Spread]:
    """How far the figure may stray for the platform inputs the plan leaves unset (planners.perf.spread):
    - the drives' sockets (more than one socket): every drive on one socket instead of spread over all
      halves the lanes they use on two sockets and doubles the busiest link's share: down 1 - 1/sockets;
    - the IOMMU mode (drives on their own PCIe link, a direct job): off instead of lazy, on one
      request's CPU path (the engine, the filesystem, md's remap, one device request); strict is
      evaluated again as a whole (planners.perf.iommu_range); stated strict, its invalidation time
      carries the per-request figures' spread."""
    out: list[Spread] = []
    sockets = ctx.cpu.sockets
    if sockets > 1 and not drive_sockets(ctx)[1]:
        down = 1 - 1 / sockets
        line = (
            f"drives' sockets: not stated, spread over all {sockets} assumed; all on one socket moves "
            f"host PCIe and socket link by -{down:.0%}"
        )
        out.append(
            (line, f"drives' sockets not stated -{down:.0%}", down, 0.0, True, frozenset({"host PCIe", "socket link"}))
        )
    nvme = any(ctx.groups[i].disk.pcie_lanes for i in ctx.volume_groups)
    mode, stated = iommu_mode(ctx)
    if mode == "strict":  # one published invalidation time, as uncertain as the per-request figures
        s = ctx.cpu.request_spread or REQUEST_SPREAD
        line = (
            f"IOMMU invalidation time: one published single-thread measurement (±{s:.0%}, as the per-request figures)"
        )
        out.append((line, f"IOMMU invalidation ±{s:.0%}", s, s, False, frozenset({NAME})))
    if w is None or not w.direct or not nvme or stated:
        return out
    cpu = ctx.cpu
    path = engine_us(ctx, w)[0] + fs_us(ctx, w) + cpu.bio_remap_us + cpu.block_request_us
    # Strict is evaluated again as a whole (planners.perf.iommu_range): its own term is not here.
    up = mode_us(ctx, "lazy") / path
    line = f"IOMMU: not stated, lazy assumed (the x86 kernels' default); off moves CPU per request by +{up:.0%}"
    out.append((line, f"IOMMU not stated +{up:.0%}", 0.0, up, True, frozenset({"CPU per request"})))
    return out
