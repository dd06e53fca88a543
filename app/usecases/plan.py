"""The plan's outputs: its figures and findings (`podplan plan`, the TUI's form) and its build script
(`podplan script`, the TUI's script screen)."""

from __future__ import annotations

from dataclasses import dataclass

from planners.cost import Cost
from planners.errors import PlanError
from planners.layouts.groups import MAX_GROUPS as MAX_GROUPS
from planners.layouts.groups import members_per_group as members_per_group
from planners.models import Plan
from planners.names import system_directory
from planners.results import PlanReport, PlanResult


@dataclass(frozen=True)
class PlanRequest:
    """A plan as the user gave it: a file, flags on top, or the form."""

    plan: Plan
    mount_over: tuple[str, ...] = ()
    """System directories the user named (`script --mount-over DIR`) as meant to be mounted over."""


@dataclass(frozen=True)
class PlanOutcome:
    """The plan's figures with every finding, the loss odds' among them."""

    plan: Plan
    result: PlanResult
    cost: Cost | None = None
    """Price, power and replacements, when the plan gives a price or watts (planners.cost)."""

    @property
    def has_errors(self) -> bool:
        """A finding of severity error: the plan cannot be built as it stands."""
        return any(f.severity == "error" for f in self.result.findings)

    def report(self) -> PlanReport:
        """What `podplan plan --json` prints (see `podplan schema`)."""
        return PlanReport.build(self.plan, self.result, self.cost)


@dataclass(frozen=True)
class ScriptOutcome:
    """The build script's text, and how many disks it names by placeholder (it refuses to run then)."""

    text: str
    unnamed: int


def plan_outputs(req: PlanRequest) -> PlanOutcome:
    """The plan computed and checked: capacity, alignment, mkfs geometry and the findings, loss odds included."""
    from planners.compute import compute
    from planners.reliability.loss import with_loss_findings

    result = with_loss_findings(req.plan, compute(req.plan))
    return PlanOutcome(req.plan, result, cost_of(req.plan, result))


def cost_of(plan: Plan, result: PlanResult) -> Cost | None:
    """The plan's cost figures over its headline usable bytes and the loss model's failure rate; None
    (and no reliability worked out) when the plan gives no price or watts."""
    from planners.cost import plan_cost, priced
    from planners.reliability.formulas import AFR_RANGE
    from planners.reliability.loss import reliability

    if not priced(plan):
        return None
    afr = reliability(plan, result).afr_nominal
    return plan_cost(plan, result.usable_bytes, afr, AFR_RANGE)


def build_script(req: PlanRequest, result: PlanResult | None = None) -> ScriptOutcome:
    """The guarded build script; `result` when the plan is already computed (the TUI keeps it). A volume
    mounted over a system directory the request does not name is refused (PlanError)."""
    from planners.compute import compute
    from planners.script.build import build_script as script_text
    from planners.script.build import placeholders

    result = compute(req.plan) if result is None else result
    for v in result.volumes:
        if (why := system_directory(v.mount_point)) and v.mount_point not in req.mount_over:
            raise PlanError(
                f"mount point {why}; give another, or --mount-over {v.mount_point} if that is truly meant",
                "filesystem.mount_point",
            )
    return ScriptOutcome(script_text(req.plan, result), placeholders(result))
