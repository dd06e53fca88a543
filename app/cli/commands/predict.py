"""`podplan predict`: throughput and IOPS per workload or fio job, what limits each, and the loss odds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    from app.cli.options import MODES, add_plan_and_hardware_flags, add_scale_flags
    from planners.perf.workloads import PRESETS

    add_plan_and_hardware_flags(p)
    p.add_argument(
        "--workload",
        action="append",
        metavar="NAME",
        choices=tuple(PRESETS),
        help=f"workload to predict (repeatable): {', '.join(PRESETS)}; default: the validation suite",
    )
    p.add_argument(
        "--job",
        action="append",
        metavar="FILE.fio",
        help="predict each job section of an fio job file as fio runs it (repeatable; with --workload "
        "too, both are predicted)",
    )
    p.add_argument("--mode", choices=MODES, default="normal", help="healthy, one member missing, or rebuilding")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_scale_flags(p)


def run(args: argparse.Namespace) -> int:
    """Tables, or JSON with --json: the JSON path imports no renderer (Rich), as a script calls it."""
    from app.cli.flags import load_plan_file, plan_from_args
    from app.cli.options import axes_of, read_jobs, with_hardware
    from app.shared.host_cpu import computes_parity, origin_json, origin_text
    from app.usecases.predict import PredictRequest, predict_plan
    from app.usecases.sweep import CpuSource
    from planners.example import example_pod

    base = load_plan_file(args.plan_file) if args.plan_file else example_pod()
    asked = PredictRequest(
        with_hardware(plan_from_args(args, base), args),
        tuple(args.workload) if args.workload else None,
        tuple(zip(args.job, read_jobs(args.job), strict=True)) if args.job else (),
        args.mode,
        CpuSource(args.kernel_log, args.no_host_cpu, args.cpu_class),
    )
    if axes := axes_of(args):
        from app.cli.scale import predict_scale

        return predict_scale(asked, args, axes)
    out = predict_plan(asked)
    plan, result, cpu, rel = out.plan, out.result, out.cpu, out.reliability
    predictions, job_notes, grouping, refused = list(out.predictions), out.job_notes, out.job_grouping, out.refused
    assert cpu is not None  # a CpuSource always names where each figure came from
    cost = out.cost
    # Nothing predicted at all: the refusals are the answer, and a script must see that it got no figure.
    status = 0 if predictions else 1
    if args.json:
        from app.shared.documents import JobSectionRefused, PredictDocument, dumps
        from planners import __version__

        doc = PredictDocument(
            podplan_version=__version__,
            plan=plan.name,
            mode=args.mode,
            cpu=origin_json(cpu),
            predictions=predictions,
            reliability=rel,
            job_notes=list(job_notes),
            job_grouping=list(grouping),
            refused_sections=[JobSectionRefused(**r) for r in refused],
            cost=cost,
        )
        print(dumps(doc, exclude={"cost"} if cost is None else None))
        return status
    from rich.console import Group
    from rich.text import Text

    from app.cli.predict import alike, predicted_cost_view, prediction_table, refused_lines, reliability_table
    from app.shared.console import cli_console

    if predictions:
        rows, merged = alike(predictions)
        notes = [Text(n) for n in [*grouping, *merged]] + refused_lines(list(refused))
        notes += [Text(n, style="dim") for n in job_notes]
        cli_console().print(
            Group(
                prediction_table(rows, title=f"{plan.name}: predicted ({args.mode})"),
                *notes,
                *([Text(f"CPU: {origin_text(cpu)}")] if computes_parity(plan, result) else []),
                Text(""),
                reliability_table(rel),
                *(() if cost is None else (Text(""), predicted_cost_view(cost))),
            )
        )
    else:
        cli_console().print(Group(*refused_lines(list(refused))))
    return status


COMMAND = Command(
    name="predict",
    help="predict throughput and IOPS per workload, the part that limits each, rebuild time and data-loss odds",
    description="Predict what the plan delivers: MB/s and IOPS per workload (the validation suite, a "
    "named workload or the sections of your own fio job file), the part that limits each (disks, "
    "parity CPU, bus, stripe cache...), the rebuild time and the odds of losing data. --scale sweeps "
    "numjobs, iodepth or bs into curves; --mode predicts a degraded or rebuilding array.",
    examples=(
        ("podplan predict pod.toml", "the validation suite's workloads and the loss odds"),
        ("podplan predict pod.toml --job mixed.fio --mode degraded", "your fio job, one member missing"),
        (
            "podplan predict --workload rand-read-4k --scale iodepth=1..256x2 --html curve.html",
            "random reads at each queue depth, drawn as a curve",
        ),
    ),
    add_arguments=add_arguments,
    run=run,
    exit_one="no section of the job files could be predicted",
)
