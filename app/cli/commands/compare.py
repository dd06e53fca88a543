"""`podplan compare`: any fio JSON output set beside the plan's prediction for the same jobs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import EXIT_OK, Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("plan_file", metavar="PLAN.toml", help="the plan whose prediction the figures go beside")
    p.add_argument(
        "--fio",
        required=True,
        metavar="RESULT.json",
        help="fio's JSON output (fio --output-format=json; a --status-interval stream or client/server output too)",
    )
    p.add_argument(
        "--job",
        metavar="FILE.fio",
        help="the job file that ran (default: the job options fio wrote into its output)",
    )
    p.add_argument("--json", action="store_true", help="print JSON (its schema: podplan schema compare)")
    p.add_argument(
        "--report",
        metavar="DIR",
        help="also write DIR/report.html (measured beside predicted, spread, latency) and DIR/curves.json "
        "(podplan report DIR draws it again); DIR is made, or must be empty",
    )
    p.add_argument("--force", action="store_true", help="with --report: write into a DIR that holds files already")


def run(args: argparse.Namespace) -> int:
    from app.cli.compare import json_text, print_table
    from app.cli.flags import load_plan_file
    from app.usecases.compare import CompareRequest, compare

    req = CompareRequest(load_plan_file(args.plan_file), args.fio, args.job, args.report, args.force)
    out = compare(req)
    if args.json:
        print(json_text(out))
    else:
        print_table(out)
    return EXIT_OK


COMMAND = Command(
    name="compare",
    help="set fio output you already have beside the plan's prediction for the same jobs",
    description="Read an fio JSON output (any fio 3.x run: several jobs, client/server, a "
    "--status-interval stream), take its jobs from the options fio recorded in it (or from --job), "
    "and set each job's measured figure beside the plan's prediction for that job, with the "
    "difference and what limits the prediction.",
    examples=(
        ("podplan compare pod.toml --fio last-year.json", "an old fio run beside the plan"),
        (
            "podplan compare pod.toml --fio run1/job-01.json --job mine.fio",
            "a kept validate run, its jobs read from the job file that ran",
        ),
        ("podplan compare pod.toml --fio old.json --report old-vs-plan", "also as a page: old-vs-plan/report.html"),
    ),
    add_arguments=add_arguments,
    run=run,
)
