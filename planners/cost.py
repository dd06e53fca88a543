"""What a layout costs to buy and to run: its price, its price per usable TiB and TB, its disks' watts, the
disks a year its failures take and what they cost, and (with predictions) its price per MB/s and per 1,000
IOPS of each workload.

The inputs are the plan's own (`price`, `watts_idle`, `watts_active` on a disk model, `[hardware.cost]`
for the rest of the pod); nothing here is a preset. Every disk the plan lists is counted, a layout's hot
spares and any disk it leaves out among them: they are bought and they spin. A hardware RAID LUN counts
its disks. Usable is the plan's headline usable bytes (what df shows as available).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PlanError
from planners.hardware.disks import COST_FIELDS, DiskSpec
from planners.hardware.machine import Hardware

if TYPE_CHECKING:
    from planners.models import Plan

Frozen = ConfigDict(frozen=True)
TIB = 2**40
TB = 10**12


class WorkloadCost(BaseModel):
    """What a workload's predicted speed costs."""

    model_config = Frozen

    workload: str = Field(description="The workload's name, as predict names it.")
    per_mb_s: float | None = Field(description="Total price / predicted MB/s, in the currency per MB/s.")
    per_1000_iops: float | None = Field(description="Total price / (predicted IOPS / 1,000), currency per 1,000 IOPS.")


class Cost(BaseModel):
    """A layout's cost figures; a figure whose inputs the plan does not give is None."""

    model_config = Frozen

    currency: str = Field(description="What the prices are in, as the plan writes it ('' when it names none).")
    disks: int = Field(description="Disks bought and powered: every disk of the plan (a LUN's disks), count.")
    disks_price: float | None = Field(description="The disks' prices added up, in the currency.")
    pod_parts: dict[str, float] = Field(description="[hardware.cost]'s chassis, controllers and other as given.")
    pod_price: float | None = Field(description="pod_parts added up, in the currency (None when none given).")
    total: float | None = Field(description="disks_price + pod_price, in the currency.")
    per_usable_tib: float | None = Field(description="total / usable bytes in TiB (2^40 bytes), currency per TiB.")
    per_usable_tb: float | None = Field(description="total / usable bytes in TB (10^12 bytes), currency per TB.")
    watts_idle: float | None = Field(description="Every disk idle, watts (the disks only).")
    watts_active: float | None = Field(description="Every disk at work, watts (the disks only).")
    watts_idle_per_usable_tib: float | None = Field(description="watts_idle / usable TiB, watts per TiB.")
    watts_active_per_usable_tib: float | None = Field(description="watts_active / usable TiB, watts per TiB.")
    afr: float = Field(description="The loss model's annual failure rate of the disks (Reliability.afr_nominal).")
    replacements_per_year: float = Field(description="disks x afr: disks expected to fail a year, count.")
    replacements_per_year_range: tuple[float, float] = Field(
        description="The same at the loss model's 1 % and 4 % AFR, count."
    )
    replacement_cost_per_year: float | None = Field(
        description="disks_price x afr: what the failed disks cost to replace a year, in the currency."
    )
    replacement_cost_per_year_range: tuple[float, float] | None = Field(
        description="The same at 1 % and 4 % AFR, in the currency."
    )
    workloads: list[WorkloadCost] = Field(
        default_factory=list, description="Price per MB/s and per 1,000 IOPS of each predicted workload."
    )


def priced(plan: Plan) -> bool:
    """The plan gives a price or a power draw somewhere: it has cost figures."""
    hw = plan.hardware or Hardware()
    specs = [hw.disk_spec(d.model) for d in plan.disks]
    return bool(hw.cost and hw.cost.parts) or any(getattr(s, f) is not None for s in specs for f in COST_FIELDS)


def plan_cost(plan: Plan, usable_bytes: int, afr: float, afr_range: tuple[float, float]) -> Cost | None:
    """The plan's cost figures, or None when it gives no price and no watts."""
    hw = plan.hardware or Hardware()
    sets = [(d.count, d.model, hw.disk_spec(d.model)) for d in plan.disks]
    counted = [(n * (spec.lun.disks if spec.lun else 1), model, spec) for n, model, spec in sets]
    disks_price, idle, active = (_added(counted, hw, f) for f in ("price", "watts_idle", "watts_active"))
    parts = hw.cost.parts if hw.cost else {}
    if not priced(plan):
        return None
    if parts and disks_price is None:
        raise PlanError(
            f"[hardware.cost] gives the pod's {', '.join(parts)} but no disk model has a price: the total "
            "would leave out the disks",
            "hardware.disk.price",
        )
    disks = sum(n for n, _, _ in counted)
    pod_price = sum(parts.values()) if parts else None
    total = None if disks_price is None else disks_price + (pod_price or 0.0)
    tib, tb = usable_bytes / TIB, usable_bytes / TB
    return Cost(
        currency=hw.cost.currency if hw.cost else "",
        disks=disks,
        disks_price=disks_price,
        pod_parts=parts,
        pod_price=pod_price,
        total=total,
        per_usable_tib=_per(total, tib),
        per_usable_tb=_per(total, tb),
        watts_idle=idle,
        watts_active=active,
        watts_idle_per_usable_tib=_per(idle, tib),
        watts_active_per_usable_tib=_per(active, tib),
        afr=afr,
        replacements_per_year=disks * afr,
        replacements_per_year_range=(disks * afr_range[0], disks * afr_range[1]),
        replacement_cost_per_year=None if disks_price is None else disks_price * afr,
        replacement_cost_per_year_range=(
            None if disks_price is None else (disks_price * afr_range[0], disks_price * afr_range[1])
        ),
    )


def _added(counted: list[tuple[int, str, DiskSpec]], hw: Hardware, field: str) -> float | None:
    """count x the figure over the disk sets; None when no model gives it, refused when only some do
    (a total that leaves disks out would look like a bargain)."""
    given = [(n, model, getattr(spec, field)) for n, model, spec in counted]
    if all(v is None for _, _, v in given):
        return None
    if missing := next((model for _, model, v in given if v is None), None):
        where = f"hardware.models.{missing}" if missing in hw.models else "hardware.disk"
        named = f"disk model {missing!r}" if missing else "the disks without a model"
        raise PlanError(f"{named} has no {field} while others have one: give it for every disk or none", where)
    return sum(n * float(v) for n, _, v in given)


def _per(amount: float | None, units: float) -> float | None:
    return None if amount is None or units <= 0 else amount / units


def with_workloads(cost: Cost, speeds: Sequence[tuple[str, float, float]]) -> Cost:
    """`cost` with the price per MB/s and per 1,000 IOPS of each (workload, MB/s, IOPS)."""
    total = cost.total
    rows = [
        WorkloadCost(workload=name, per_mb_s=_per(total, mb_s), per_1000_iops=_per(total, iops / 1000))
        for name, mb_s, iops in speeds
    ]
    return cost.model_copy(update={"workloads": rows})


def cost_rank(risky: bool, cost: Cost | None) -> float:
    """A sweep row's place when ranked by cost: price per usable TiB, cheapest first; a layout over a
    risk limit, or without a price, after every other (in the sweep's own order among themselves)."""
    if risky or cost is None or cost.per_usable_tib is None:
        return float("inf")
    return cost.per_usable_tib
