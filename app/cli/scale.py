"""`--scale` on predict and validate: a job swept over numjobs, iodepth or bs, as a table, JSON
and an HTML report with the curves."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Group
from rich.text import Text

from app.shared.console import cli_console
from app.shared.cost_view import with_report_cost
from app.shared.curves import (
    Curve,
    Measured,
    curve_notes,
    curves,
    curves_doc,
    figure,
    measured_from,
    plan_summary,
    point_key,
)
from app.shared.figures import mb_text
from app.shared.fit import Col, FitTable
from app.usecases.predict import Axis, PointPrediction, PredictRequest
from planners.models import Plan


def axes_json(axes: Sequence[Axis]) -> list[dict[str, Any]]:
    return [a.model_dump(mode="json") for a in axes]


def predict_scale(asked: PredictRequest, args: argparse.Namespace, axes: Sequence[Axis]) -> int:
    """`podplan predict --scale`: every section (or built-in workload) at every point."""
    from app.shared.host_cpu import origin_json, origin_text
    from app.usecases.predict import predict_scaling

    out = predict_scaling(asked, axes)
    plan, cpu, preds, job_notes = out.plan, out.cpu, list(out.predictions), out.job_notes
    assert cpu is not None  # a CpuSource always names where each figure came from
    cs = curves(preds, axes[0].key)
    if args.html:
        write_html(
            args.html,
            with_report_cost(
                curves_doc(f"{plan.name}: predicted scaling ({args.mode})", plan_summary(plan), axes_json(axes), cs),
                plan,
            ),
            force=args.force,
        )
    if args.json:
        from app.shared.documents import PredictScaleDocument, dumps
        from planners import __version__

        doc = PredictScaleDocument(
            podplan_version=__version__,
            plan=plan.name,
            mode=args.mode,
            cpu=origin_json(cpu),
            scale=axes_json(axes),
            predictions=list(preds),
            job_notes=list(job_notes),
        )
        print(dumps(doc))
        return 0
    out = cli_console()
    out.print(
        Group(
            scale_view(cs, title=f"{plan.name}: predicted scaling ({args.mode})"),
            *[Text(n, style="dim") for n in job_notes],
            Text(f"CPU: {origin_text(cpu)}"),
        )
    )
    if args.html:
        out.print(f"wrote {args.html}", markup=False, highlight=False)
    return 0


def scale_table(cs: Sequence[Curve], *, title: str, measured: bool = False) -> FitTable:
    """One row per point: predicted (and measured) figure, the binding term, the gain to the next."""
    rows = [(c, p) for c in cs for p in c.points]
    modelled = any(p.binding for _, p in rows)  # a measured sweep without a plan has no model's curve
    pre = "pred " if measured else ""
    cols = [
        Col("section", [c.name for c, _ in rows], right=False, words=True),
        Col(cs[0].x_key if cs else "point", [c.x_text(p.x) + (" knee" if p.knee else "") for c, p in rows]),
    ]
    if modelled:
        cols += [
            Col(pre + "MB/s", [mb_text(p.mb_s) + ("*" if p.outside else "") for _, p in rows]),
            Col(pre + "IOPS", [f"{p.iops:,.0f}" for _, p in rows]),
        ]
    if measured:
        cols += [Col("measured", [measured_cell(c, p) for c, p in rows])]
        cols += [Col("diff", [diff_text(c, p) for c, p in rows])] if modelled else []
        cols += [Col("CPU", [cpu_text(p.measured) for _, p in rows])]
    if modelled:
        cols.append(Col("limited by", [Text(p.binding, style="bold") for _, p in rows], right=False, words=True))
    return FitTable(
        cols,
        [(pre + "IOPS",), (pre + "IOPS", "CPU")],
        rows_are="point",
        wrap_first=False,
        table=dict(title=title, title_justify="left", box=box.SIMPLE_HEAD),
    )


def scale_view(cs: Sequence[Curve], *, title: str, measured: bool = False) -> Group:
    """The table, then the knees and the points outside the model as lines of the terminal's width
    (a caption would wrap them to the table's)."""
    notes = curve_notes(cs)
    if measured:
        notes.append(
            "CPU: fio's user+system CPU seconds per GB moved, or per 1000 I/Os (s/kIO) for requests under 64 KiB"
        )
    return Group(scale_table(cs, title=title, measured=measured), *(Text(n) for n in notes))


def measured_cell(c: Curve, p: Any) -> str:
    m = p.measured
    if m is None:
        return "not run"
    text = figure(m.iops if c.metric == "IOPS" else m.mb_s, c.metric) + (" IOPS" if c.metric == "IOPS" else " MB/s")
    return text if m.status == "done" else f"{text} ({m.status})"


def diff_text(c: Curve, p: Any) -> str:
    m, pred = c.y(p, measured=True), c.y(p)
    return "" if m is None or not pred else f"{(m - pred) / pred * 100:+.0f} %"


def cpu_text(m: Measured | None) -> str:
    if m is None:
        return ""
    if m.cpu_s_per_k_ios is not None and m.cpu_s_per_gb is not None:
        return f"{m.cpu_s_per_k_ios:.3f} s/kIO" if _small(m) else f"{m.cpu_s_per_gb:.2f} s/GB"
    return ""


def _small(m: Measured) -> bool:
    return bool(m.iops) and m.mb_s * 1e6 / m.iops < 64 * 1024


def write_html(path: str, doc: dict, *, force: bool = False) -> None:
    """The page, refused over an existing file (or link) unless forced."""
    from app.shared.report_html import render
    from app.usecases.files import write_text

    write_text(path, render(doc), force=force)


def scale_doc(
    target: str, plan: Plan | None, scale: Any, predicted: Sequence[PointPrediction], refused: str = ""
) -> dict:
    """The measured sweep (and the model's points, `predicted`, with a plan) as the curves the report
    draws; `refused`: why the plan given does not describe the target (so none is set beside the figures)."""
    measured: dict[Any, Measured] = {}
    for pt in scale.points:
        for w in pt.report.workloads if pt.report else ():
            f = w.figures
            if f is None:
                continue
            measured[point_key(w.name, pt.point)] = measured_from(f, w.status, w.block_bytes)
    x_key = scale.axes[0].key
    if plan:
        preds = list(predicted)
    else:
        preds = [
            PointPrediction(
                workload=w.name,
                block_bytes=w.block_bytes,
                mb_s=0.0,
                iops=0.0,
                binding="",
                runner_up="",
                headroom=1.0,
                terms=[],
                point=dict(pt.point),
            )
            for pt in scale.points
            for w in (pt.report.workloads if pt.report else ())
        ]
    cs = curves(preds, x_key, measured)
    if plan:
        summary = plan_summary(plan)
    elif refused:
        summary = [f"the plan given was not set beside these figures: it does not describe this target ({refused})"]
    else:
        summary = ["no plan given: measured only"]
    title = f"{target}: measured" + (f" beside {plan.name}'s prediction" if plan else "")
    doc = curves_doc(title, [*summary, f"sweep took {scale.duration_s:.0f} s"], axes_json(scale.axes), cs)
    return with_report_cost(doc, plan)
