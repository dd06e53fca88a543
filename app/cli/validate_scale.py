"""`podplan validate --scale`: the job files measured at every point of a sweep, beside the model."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from app.cli.scale import axes_of, scale_doc, scale_view, write_html
from app.shared.console import cli_console
from planners.errors import PlanError
from planners.models import Plan
from planners.perf.jobfile import JobFile
from planners.perf.scale import Axis


def validate_scale_cli(target: str, plan: Plan | None, args: argparse.Namespace, axes: Sequence[Axis]) -> int:
    """`podplan validate --scale`: the job files at every point, measured beside predicted, with CPU cost."""
    from app.cli.validate import EXIT_INTERRUPTED, EXIT_OK, EXIT_PARTIAL, _Live
    from app.shared.planfile import load_job_file
    from runners.fio.jobs import FULL, QUICK
    from runners.validate.guard import GuardError
    from runners.validate.scale import predicted_points, validate_scale
    from runners.validate.shape import plan_mismatch, shape_of_plan

    if args.hosts or args.baseline:
        raise PlanError("--scale runs here, without --hosts or --baseline", "scale")
    console = cli_console(stderr=True)
    refused = ""
    if plan and os.path.exists(target) and (mismatch := plan_mismatch(target, plan)):
        console.print(
            f"podplan: the plan does not describe {target}: " + "; ".join(mismatch) + ". Measuring without comparing.",
            markup=False,
            highlight=False,
        )
        refused = "; ".join(mismatch)
        plan = None
    jobs = [load_job_file(path) for path in args.job] if args.job else [suite_job(plan)]
    timing = FULL if args.full else QUICK
    live = _Live(console, timing.runtime_s)
    try:
        scale = validate_scale(
            target,
            jobs,
            axes,
            report_dir=args.report,
            timing=timing,
            destroy_data=args.destroy_data,
            plan_shape=shape_of_plan(plan) if plan else None,
            on_progress=None if args.json else live,
        )
    except GuardError as exc:
        raise PlanError(str(exc)) from None
    finally:
        if live.tasks:
            live.progress.stop()
    doc = scale_doc(target, plan, scale, jobs, refused)
    if args.report:
        from app.shared.validate_report import write_report

        write_report(args.report, doc)
    if args.html:
        write_html(args.html, doc, force=args.force)
    if args.json:
        preds = predicted_points(plan, scale, jobs) if plan else []
        from app.shared.documents import dumps
        from app.shared.documents_measured import ValidateScaleDocument

        print(dumps(ValidateScaleDocument(scale=scale, predictions=preds, curves=doc["curves"])))
    else:
        from app.shared.curves import from_doc

        cs = from_doc(doc)[3]
        cli_console().print(scale_view(cs, title=doc["title"], measured=True))
        if not plan:
            cli_console().print("  no prediction: pass --plan PLAN.toml to set the model's curve beside these")
        if scale.stopped:
            cli_console().print(f"  stopped early: {scale.stopped}; the points after it were not run")
    if scale.stopped == "interrupted":
        return EXIT_INTERRUPTED
    return EXIT_PARTIAL if scale.partial else EXIT_OK


def suite_job(plan: Plan | None) -> JobFile:
    """The built-in suite as a job file whose sections run one after another, as predict --scale
    sweeps it without --job: given the plan's shape (full stripes in flight, 4 requests per disk)
    when there is a plan, else as the presets stand."""
    from planners.perf.predict import geometry_for_speed
    from planners.perf.scale import as_job, shaped
    from planners.perf.workloads import VALIDATION

    return as_job(shaped(plan, geometry_for_speed(plan), VALIDATION) if plan else VALIDATION)


def dispatch(args: argparse.Namespace) -> int:
    from app.cli.flags import load_plan_file
    from app.cli.validate import report_dir_of

    plan = load_plan_file(args.plan) if args.plan else None
    axes = axes_of(args)
    report_dir_of(args)
    return validate_scale_cli(args.target, plan, args, axes)
