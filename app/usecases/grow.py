"""A grow plan: what growing the pod built from a plan gives (`podplan grow`, the TUI's grow screen).

Either a request (disks to add, a new RAID level, an array to reshape or a new one) or the target
layout as a plan; the outcome holds the grown plan, the growth step by step, the other ways that
would work and the guarded grow script. A btrfs across raw disks grows its own way (device add and
a balance): `plan_growth` chooses, so the command line and the TUI never choose differently.
"""

from __future__ import annotations

from dataclasses import dataclass

from planners.errors import PlanError
from planners.grow import GrowMode as GrowMode
from planners.grow import GrowRequest as GrowRequest
from planners.grow import Growth as Growth
from planners.grow.btrfs import BtrfsGrowth as BtrfsGrowth
from planners.models import Plan


@dataclass(frozen=True)
class GrowPlanRequest:
    """The pod as built, and how to grow it: a request or the target layout (exactly one)."""

    plan: Plan
    request: GrowRequest | None = None
    target: Plan | None = None


@dataclass(frozen=True)
class GrowPlan:
    """The grown layout and what it takes."""

    plan: Plan
    """The pod as built."""
    target: Plan
    """The layout after growing."""
    growth: Growth
    """Figures before and after, each array's change, the steps in order."""
    alternatives: tuple[tuple[GrowMode, Growth], ...]
    """The other modes that would work for the same request, each with its growth (none for a target layout)."""

    def script(self) -> str:
        """The guarded grow script: a dry run that checks the system unless run with --run."""
        from planners.script.grow import grow_script

        return grow_script(self.plan, self.growth)


def plan_growth(req: GrowPlanRequest) -> GrowPlan | BtrfsGrowPlan:
    """The growth from the plan to the request's layout, by md and LVM or, for a btrfs across raw
    disks, by btrfs itself; PlanError when podplan cannot plan it."""
    if grows_as_btrfs(req.plan):
        return plan_btrfs_growth(req)
    if req.request is not None and (req.request.data_profile or req.request.metadata_profile):
        raise PlanError("--data-profile and --metadata-profile grow a btrfs across raw disks; this plan is not one")
    return _plan_md_growth(req)


def _plan_md_growth(req: GrowPlanRequest) -> GrowPlan:
    from planners.grow import growth_between, possible_modes, target_plan

    asked = req.request
    if (asked is None) == (req.target is None):
        raise PlanError("give the target as a plan or as a grow request, not both")
    if asked is None:
        assert req.target is not None
        return GrowPlan(req.plan, req.target, growth_between(req.plan, req.target), ())
    new = target_plan(req.plan, asked)
    growth = growth_between(req.plan, new)
    others: list[tuple[GrowMode, Growth]] = []
    if asked.mode is None:
        for mode, option in possible_modes(req.plan, asked).items():
            if mode != growth.mode and isinstance(option, Plan):
                others.append((mode, growth_between(req.plan, option)))
    return GrowPlan(req.plan, new, growth, tuple(others))


def grows_as_btrfs(plan: Plan) -> bool:
    """The plan is a btrfs across raw disks, grown by btrfs itself rather than md and LVM."""
    return plan.filesystem.type == "btrfs" and not plan.groups and not plan.lvm.enabled


@dataclass(frozen=True)
class BtrfsGrowPlan:
    """A btrfs across raw disks grown: the disks added and every chunk balanced over them."""

    plan: Plan
    """The pod as built."""
    target: Plan
    """The layout after growing."""
    growth: BtrfsGrowth
    """df size and Free (estimated) before and after, the profiles, the steps in order."""

    def script(self) -> str:
        """The guarded grow script: a dry run that checks the system unless run with --run."""
        from planners.script.grow_btrfs import btrfs_grow_script

        return btrfs_grow_script(self.plan, self.growth)


def plan_btrfs_growth(req: GrowPlanRequest) -> BtrfsGrowPlan:
    """The growth of a btrfs across raw disks to the request's layout; PlanError when podplan cannot plan it."""
    from planners.grow.btrfs import btrfs_growth, btrfs_target_plan

    if (req.request is None) == (req.target is None):
        raise PlanError("give the target as a plan or as a grow request, not both")
    if req.request is not None:
        new = btrfs_target_plan(req.plan, req.request)
    else:
        assert req.target is not None
        new = req.target
    return BtrfsGrowPlan(req.plan, new, btrfs_growth(req.plan, new))
