"""A sweep: every layout of a plan's disks ranked by usable space, speed and loss odds (`podplan
sweep`, the TUI's sweep screen), with the parity CPU figures taken from one place for both."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from planners.cost import cost_rank as cost_rank
from planners.layouts.sweep import MAX_LOSS_PER_YEAR as MAX_LOSS_PER_YEAR
from planners.layouts.sweep import Sweep as Sweep
from planners.layouts.sweep import SweepRow as SweepRow
from planners.models import Plan
from planners.perf.parity_log import CpuOrigin
from planners.reliability.loss import MAX_REBUILD_LOSS as MAX_REBUILD_LOSS


@dataclass(frozen=True)
class CpuSource:
    """Where the parity CPU figures come from where the plan states none (its hardware.cpu wins)."""

    kernel_log: str | None = None
    """A kernel log saved on the machine the plan is for (dmesg > FILE there)."""
    no_host_cpu: bool = False
    """Leave this host's kernel log unread: the CPU class preset (to predict for another machine)."""
    cpu_class: str | None = None
    """A CPU class preset was chosen: this host's kernel log is not read either."""


@dataclass(frozen=True)
class SweepRequest:
    """The plan whose disks are swept, and what ranks its layouts."""

    plan: Plan
    workload: str = "seq-write"
    """The preset workload the speed column is for."""
    max_loss: float = MAX_LOSS_PER_YEAR
    """Yearly odds of losing data (a fraction) above which a layout is risky: ranked last."""
    max_rebuild_loss: float = MAX_REBUILD_LOSS
    """Share of rebuilds losing data to an unreadable sector above which a layout is risky."""
    cpu: CpuSource = field(default_factory=CpuSource)
    rank: Literal["front", "cost"] = "front"
    """front: the Pareto front first, then by usable bytes; cost: by price per usable TiB (planners.cost)."""


@dataclass(frozen=True)
class SweepOutcome:
    sweep: Sweep
    cpu: CpuOrigin
    """Where each parity CPU figure came from."""
    rank: Literal["front", "cost"] = "front"
    """How `sweep.rows` are ordered."""

    @property
    def priced(self) -> bool:
        """Some layout has cost figures: the plan gives a price or watts."""
        return any(r.cost is not None for r in self.sweep.rows)


def sweep_layouts(req: SweepRequest) -> SweepOutcome:
    """Every layout of the disks the tools would accept, Pareto front first."""
    import planners.layouts.sweep as layouts
    from app.shared.host_cpu import with_cpu_source
    from planners.cost import cost_rank
    from planners.errors import PlanError
    from planners.perf.workloads import preset

    plan, cpu = with_cpu_source(req.plan, req.cpu)
    swept = layouts.sweep(plan, preset(req.workload), max_loss=req.max_loss, max_rebuild_loss=req.max_rebuild_loss)
    if req.rank == "cost":
        if not any(r.cost is not None and r.cost.total is not None for r in swept.rows):
            raise PlanError(
                "ranking by cost needs prices: give price on [hardware.disk] (or on each [hardware.models.NAME])",
                "rank",
            )
        # Stable: layouts of one price per TiB keep the sweep's order, the Pareto front ahead.
        swept = swept.model_copy(update={"rows": sorted(swept.rows, key=lambda r: cost_rank(r.risky, r.cost))})
    return SweepOutcome(swept, cpu, req.rank)
