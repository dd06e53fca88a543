"""`validate --report DIR` as a page a user can share: measured beside predicted per workload,
the suite's scaling curves with the measured points on them, the per-disk baseline with the slow
disks marked, and the plan's summary; kept as curves.json for `podplan report DIR`."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.shared.cost_view import with_report_cost
from app.shared.curves import curves_doc, measured_of, plan_summary, suite_curves
from planners.health import DiskHealth, health_json
from planners.models import Plan

if TYPE_CHECKING:
    from runners.fio.baseline import Baseline
    from runners.validate.compare import SideBySide
    from runners.validate.suite import ValidateReport


def validate_doc(
    target: str,
    plan: Plan | None,
    report: ValidateReport,
    rows: Sequence[SideBySide],
    base: Baseline | None,
    health: tuple[DiskHealth, ...] = (),
) -> dict[str, Any]:
    """What the page draws; `plan` only when its predictions were set beside the figures."""
    from planners.perf.predict import geometry_for_speed
    from runners.fio.jobs import WORKLOADS

    bars = []
    for r in rows:
        if r.measured_mb_s is None:
            continue
        seq = r.workload.startswith("seq")  # as validate's table compares them
        bars.append(
            {
                "workload": r.workload,
                "metric": "MB/s" if seq else "IOPS",
                "measured": r.measured_mb_s if seq else r.measured_iops,
                "predicted": r.predicted_mb_s if seq else r.predicted_iops,
            }
        )
    suite = all(w.name in WORKLOADS for w in report.workloads)
    from runners.validate.compare import model_workloads

    # the curves go through the points as they ran (their block size and depth), not the plan's suite
    cs = (
        suite_curves(plan, geometry_for_speed(plan), None, measured_of(report), model_workloads(report))
        if plan and suite
        else []
    )
    summary = plan_summary(plan) if plan else ["no plan set beside these figures: measured only"]
    summary.append(
        f"{report.target}: {report.mode} run, {report.duration_s:.0f} s, "
        f"{'direct I/O' if report.direct else 'buffered'}"
    )
    doc = with_report_cost(
        curves_doc(f"{target}: validated" + (f" against {plan.name}" if plan else ""), summary, [], cs), plan
    )
    doc["bars"] = bars
    doc["baseline"] = [
        {"device": d.device, "outer_mb_s": d.outer_mb_s, "slow": list(d.slow)} for d in (base.disks if base else ())
    ]
    doc["health"] = health_json(health)
    return doc


def write_report(report_dir: str, doc: dict[str, Any]) -> None:
    """curves.json (what `podplan report DIR` reads) and report.html beside the run's own files."""
    from app.shared.report_html import render
    from runners.files import write_text

    # The run's own directory (made fresh, or named again with --force): replaced, never written through.
    write_text(os.path.join(report_dir, "curves.json"), json.dumps(doc, indent=2), force=True)
    write_text(os.path.join(report_dir, "report.html"), render(doc), force=True)
