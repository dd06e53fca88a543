"""`podplan compare`: any fio JSON output set beside the plan's prediction for the same jobs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import Command

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


def run(args: argparse.Namespace) -> int:
    from app.cli.compare import compare

    return compare(args.plan_file, args.fio, args.job)


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
    ),
    add_arguments=add_arguments,
    run=run,
)
