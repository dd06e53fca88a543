"""`podplan check`: an array as built against its plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", metavar="TARGET", help="the md device, LV or mount point the plan built")
    p.add_argument("--plan", metavar="PLAN.toml", required=True, help="the plan it was built from")
    p.add_argument("--json", action="store_true", help="print the differences as JSON")


def run(args: argparse.Namespace) -> int:
    from app.cli.check import run_check
    from app.cli.flags import load_plan_file

    return run_check(args.target, plan=load_plan_file(args.plan), as_json=args.json)


COMMAND = Command(
    name="check",
    help="compare an array as built with its plan: every difference and what it costs",
    description="Read an array as built (mdadm, LVM, the filesystem, readahead) and compare it with the "
    "plan it was built from: every difference, and what it costs in bytes or speed.",
    examples=(
        ("podplan check /srv/pod --plan pod.toml", "the mounted pod against its plan"),
        ("podplan check /dev/md0 --plan pod.toml --json", "the differences as JSON, for a script"),
    ),
    add_arguments=add_arguments,
    run=run,
    exit_one="the array differs from the plan, or a program podplan runs is missing or failed",
)
