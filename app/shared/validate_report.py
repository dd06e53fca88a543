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


def report_notes(
    report: ValidateReport, rows: Sequence[SideBySide], have_plan: bool, mismatch: Sequence[str] = ()
) -> list[str]:
    """What validate says under its table, a line each: the terminal prints them and the page shows
    them, so a gap the terminal explains (a loop device read through the page cache, a slow member)
    is explained on the page too."""
    lines = [report.grouping] if report.grouping else []
    lines += [f"{w.name}: {w.reason}" for w in report.workloads if w.reason]
    lines += [
        f"{r.workload} differs by {'' if r.diff_pct is None else f'{r.diff_pct:+.0f} %'}: {reason}"
        for r in rows
        for reason in r.reasons
    ]
    if mismatch:
        lines.append("not compared: the plan does not describe this target (" + "; ".join(mismatch) + ")")
    elif not have_plan:
        lines.append("no prediction: pass --plan PLAN.toml to set the model's figures beside these")
    if report.stopped:
        lines.append(f"stopped early: {report.stopped}; figures shown are partial")
    return lines


def measured_points(report: ValidateReport) -> list[dict[str, Any]]:
    """Each workload's figures as the page's table of measured points shows them (plan or none)."""
    from dataclasses import asdict

    from app.shared.curves import SMALL_REQUEST, measured_from

    return [
        {
            "section": w.name,
            "metric": "IOPS" if w.block_bytes < SMALL_REQUEST else "MB/s",
            "measured": asdict(measured_from(w.figures, w.status, w.block_bytes)),
        }
        for w in report.workloads
        if w.figures is not None
    ]


def validate_doc(
    target: str,
    plan: Plan | None,
    report: ValidateReport,
    rows: Sequence[SideBySide],
    base: Baseline | None,
    health: tuple[DiskHealth, ...] = (),
    mismatch: Sequence[str] = (),
) -> dict[str, Any]:
    """What the page draws; `plan` only when its predictions were set beside the figures (`mismatch`:
    why the plan given was not)."""
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
    if plan:
        summary = plan_summary(plan)
    elif mismatch:
        summary = ["the plan given was not set beside these figures: it does not describe this target"]
    else:
        summary = ["no plan given: measured only"]
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
    doc["notes"] = report_notes(report, rows, plan is not None, mismatch)
    doc["points"] = measured_points(report)
    return doc


def write_report(report_dir: str, doc: dict[str, Any]) -> None:
    """curves.json (what `podplan report DIR` reads) and report.html beside the run's own files."""
    from app.shared.report_html import render
    from runners.files import write_text

    # The run's own directory (made fresh, or named again with --force): replaced, never written through.
    write_text(os.path.join(report_dir, "curves.json"), json.dumps(doc, indent=2), force=True)
    write_text(os.path.join(report_dir, "report.html"), render(doc), force=True)
