"""`podplan check TARGET --plan PLAN.toml`: the array as built against its plan, every difference
with what it costs. Exit 0 when it matches, 1 when something differs."""

from __future__ import annotations

import json
import os

from rich.console import Console
from rich.table import Table

from app.shared.console import cli_console
from planners.asbuilt import Difference, differences
from planners.compute import compute
from planners.errors import PlanError
from planners.models import Plan

EXIT_OK, EXIT_DIFFERENT = 0, 1


def check_collection(plan: Plan, collection) -> tuple[int, list[Difference]]:
    """(figures compared, differences) of a plan against what a system reported."""
    from runners.lab.rehearse import compare

    checks = compare(plan, compute(plan), collection)
    return len(checks), differences((c.layer, c.figure, c.predicted, c.actual) for c in checks)


def run_check(target: str, *, plan: Plan | None, as_json: bool) -> int:
    if plan is None:
        raise PlanError("check needs the plan the array was built from (--plan PLAN.toml)")
    if not os.path.exists(target):
        raise PlanError(f"{target}: no such device or directory")
    if os.geteuid() != 0:
        raise PlanError("check reads md superblocks and filesystem headers: run it as root")
    from runners.host.inventory import collect_host

    compared, diffs = check_collection(plan, collect_host())
    if as_json:
        print(json.dumps({"target": target, "compared": compared, "differences": [d.model_dump() for d in diffs]},
                         indent=2))
    else:
        print_differences(cli_console(), target, compared, diffs)
    return EXIT_DIFFERENT if diffs else EXIT_OK


def print_differences(console: Console, target: str, compared: int, diffs: list[Difference]) -> None:
    if not diffs:
        console.print(f"{target}: built as planned ({compared} figures compared)")
        return
    t = Table(title=f"{target}: {len(diffs)} of {compared} figures differ from the plan", title_justify="left")
    for col in ("layer", "figure", "planned", "actual", "consequence"):
        t.add_column(col, overflow="fold")
    for d in diffs:
        t.add_row(d.layer, d.figure, str(d.planned), "missing" if d.actual is None else str(d.actual), d.consequence)
    console.print(t)
