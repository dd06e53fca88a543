"""`podplan validate --scale`: the job files measured at every point of a sweep, beside the model.

The sweep is the validate_scale use case's; this module reads the flags, says its events and
renders its outcome."""

from __future__ import annotations

import argparse
from typing import Literal

from app.cli.options import axes_of
from app.cli.scale import scale_doc, scale_view, write_html
from app.cli.validate import EXIT_INTERRUPTED, EXIT_OK, EXIT_PARTIAL, Said, report_dir_of
from app.shared.console import cli_console
from app.usecases.validate import suite_runtime_s
from app.usecases.validate_scale import ValidateScaleRequest, validate_scale_session


def dispatch(args: argparse.Namespace) -> int:
    """`podplan validate --scale`: the job files at every point, measured beside predicted, with CPU cost."""
    from app.cli.flags import load_plan_file

    plan = load_plan_file(args.plan) if args.plan else None
    axes = axes_of(args)
    mode: Literal["quick", "full"] = "full" if args.full else "quick"
    request = ValidateScaleRequest(
        args.target,
        tuple(axes),
        plan,
        mode=mode,
        destroy_data=args.destroy_data,
        report_dir=report_dir_of(args),
        job_paths=tuple(args.job or ()),
        hosts=bool(args.hosts),
        baseline=bool(args.baseline),
    )
    said = Said(cli_console(stderr=True), suite_runtime_s(mode), live=not args.json)
    try:
        out = validate_scale_session(request, said)
    finally:
        said.stop()
    scale, plan = out.scale, out.plan
    doc = scale_doc(args.target, plan, scale, out.predictions, "; ".join(out.mismatch))
    if args.report:
        from app.shared.validate_report import write_report

        write_report(args.report, doc)
    if args.html:
        write_html(args.html, doc, force=args.force)
    if args.json:
        from app.shared.documents import dumps
        from app.shared.documents_measured import ValidateScaleDocument

        preds = list(out.predictions)
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
