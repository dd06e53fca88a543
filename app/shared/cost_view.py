"""A layout's cost figures (planners.cost) in words and figures, for the plan's and predict's tables, the
sweep's columns and the HTML report: one place says how each figure reads."""

from __future__ import annotations

from typing import Any

from planners.cost import Cost
from planners.models import Plan

# The sweep's extra columns when its layouts have prices or watts.
COST_COLUMNS = ("price/TiB", "W/TiB")
# What a sweep's title adds for each ranking but its own (the Pareto front first).
RANK_TITLES = {"cost": "; ranked by price per usable TiB"}
COST_NOTE = "; price/TiB and W/TiB: the price and the disks' watts at work per usable TiB"


def money(v: float) -> str:
    return f"{v:,.2f}"


def cost_title(c: Cost) -> str:
    return "Cost" + (f" ({c.currency})" if c.currency else "")


def cost_rows(c: Cost) -> list[tuple[str, str]]:
    """(what, figure) for every figure the plan's inputs give; none for those it does not."""
    rows: list[tuple[str, str]] = []
    if c.disks_price is not None:
        rows.append((f"{c.disks} disks", money(c.disks_price)))
    rows += [(name, money(v)) for name, v in c.pod_parts.items()]
    if c.total is not None:
        rows.append(("total", money(c.total)))
    if c.per_usable_tib is not None and c.per_usable_tb is not None:
        rows += [("per usable TiB", money(c.per_usable_tib)), ("per usable TB", money(c.per_usable_tb))]
    for when, w, per in (
        ("idle", c.watts_idle, c.watts_idle_per_usable_tib),
        ("at work", c.watts_active, c.watts_active_per_usable_tib),
    ):
        if w is not None:
            rows.append((f"disks {when}", f"{w:,.1f} W"))
            if per is not None:
                rows.append((f"{when} per usable TiB", f"{per:,.2f} W"))
    # A row a figure, its range on a row of its own: a narrow table wraps the words, never a figure.
    lo, hi = c.replacements_per_year_range
    rows += [
        (f"disk replacements a year ({c.afr * 100:.1f} % AFR)", f"{c.replacements_per_year:,.2f}"),
        ("at 1-4 % AFR", f"{lo:,.2f}-{hi:,.2f}"),
    ]
    if c.replacement_cost_per_year is not None and c.replacement_cost_per_year_range is not None:
        lo, hi = c.replacement_cost_per_year_range
        rows += [
            ("their price a year", money(c.replacement_cost_per_year)),
            ("at 1-4 % AFR", f"{money(lo)}-{money(hi)}"),
        ]
    return rows


def workload_rows(c: Cost) -> list[tuple[str, str, str]]:
    """(workload, price per MB/s, price per 1,000 IOPS) of each predicted workload, when there is a price."""
    if c.total is None:
        return []
    return [
        (
            w.workload,
            "" if w.per_mb_s is None else money(w.per_mb_s),
            "" if w.per_1000_iops is None else money(w.per_1000_iops),
        )
        for w in c.workloads
    ]


def sweep_cost_cells(c: Cost | None) -> tuple[str, str]:
    """A sweep row's COST_COLUMNS: price per usable TiB and active watts per usable TiB ('-' where not given)."""
    if c is None:
        return ("-", "-")
    return (
        "-" if c.per_usable_tib is None else money(c.per_usable_tib),
        "-" if c.watts_active_per_usable_tib is None else f"{c.watts_active_per_usable_tib:,.2f}",
    )


def report_cost(plan: Plan | None) -> dict[str, Any] | None:
    """The HTML report's cost table for `plan` (title and rows), or None when it gives no price or watts."""
    from planners.cost import plan_cost, priced
    from planners.perf.predict import geometry_for_speed
    from planners.reliability.formulas import AFR_RANGE
    from planners.reliability.loss import reliability

    if plan is None or not priced(plan):
        return None
    result = geometry_for_speed(plan)
    cost = plan_cost(plan, result.usable_bytes, reliability(plan, result).afr_nominal, AFR_RANGE)
    return None if cost is None else {"title": cost_title(cost), "rows": [list(r) for r in cost_rows(cost)]}


def with_report_cost(doc: dict[str, Any], plan: Plan | None) -> dict[str, Any]:
    """`doc` (a curves_doc) with its plan's cost table when the plan has prices or watts; as it was otherwise."""
    table = report_cost(plan)
    return doc if table is None else {**doc, "cost": table}
