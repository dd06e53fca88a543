"""The IOMMU mode a plan leaves unset, evaluated again under strict (planners.perf.iommu).

The presets assume lazy invalidation, the x86 drivers' default whenever remapping is on. Strict is
as plausible a default on any of the CPU classes: it is arm64's (R. Murphy, "iommu: Clarify default
domain Kconfig", 5.15: the SMMU drivers have always been strict) and RHEL 9's build default from
2024 on x86 too (CentOS Stream 9 merge request 3952, "Enable IOMMU DMA STRICT by default"; an AMD
host's remapping is on wherever its firmware's IVRS table is, an Intel host's where the
distribution builds CONFIG_INTEL_IOMMU_DEFAULT_ON). Strict adds a term of its own (each unmap's
invalidation in its unit's queue) that the lazy figure's terms do not hold, so a spread about the
CPU per request term cannot reach it: the terms are evaluated again with strict stated, as an
unstated flush's are (planners.perf.flush), and the range reaches down to the low end of strict's
own range (its invalidation time and every other input with their spreads), not below it.
Off and passthrough only remove the lazy per-request cost: platform_spread's upward move.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from planners.hardware.machine import REQUEST_SPREAD
from planners.hardware.platform import Platform
from planners.perf.context import PerfCtx
from planners.perf.iommu import NAME, iommu_mode
from planners.perf.roof import MOVES, Term, moved_terms
from planners.perf.spread import Input, figure_range
from planners.perf.workloads import Workload


def iommu_sensitive(ctx: PerfCtx, w: Workload) -> bool:
    """A direct job on drives on their own PCIe link, the mode unstated."""
    nvme = any(ctx.groups[i].disk.pcie_lanes for i in ctx.volume_groups)
    return w.direct and nvme and not iommu_mode(ctx)[1]


def iommu_input(
    ctx: PerfCtx, terms: Mapping[str, float], evaluate: Callable[[PerfCtx], Mapping[str, float]], w: Workload
) -> Input | None:
    """The range's low end with the IOMMU strict: the figure strict's own range would give (its
    invalidation time's spread and every other input's), or None where that is not below."""
    hw = ctx.hardware
    platform = (hw.platform or Platform()).model_copy(update={"iommu": "strict"})
    strict = replace(ctx, hardware=hw.model_copy(update={"platform": platform}))
    other = evaluate(strict)
    best = min(terms.values(), default=0.0)
    if best <= 0 or not other:
        return None
    fall = 1 - min(other.values()) / best
    if fall < MOVES:  # strict moves the figure too little to name: its own range is not needed
        return None
    # Strict's own range: the same inputs as this plan's (their spreads do not depend on the mode)
    # and its invalidation time's (planners.perf.platform_spread), without building them again.
    s = ctx.cpu.request_spread or REQUEST_SPREAD
    invalidation = Input("", "", s, s, False, frozenset({NAME}))
    lo = 1 - figure_range(ctx, [Term(n, v, "") for n, v in other.items()], w, [invalidation]).low / best
    moved = moved_terms(terms, other, best)
    line = (
        f"IOMMU strict: not stated, lazy assumed (the x86 drivers' default); strict (arm64's default, "
        f"RHEL 9's from 2024) moves {', '.join(sorted(moved))}, the figure by -{fall:.0%}, and its own "
        f"range reaches -{lo:.0%}"
    )
    return Input(line, f"IOMMU strict not ruled out -{fall:.0%}", lo, 0.0, True, moved, floor=True)
