"""`podplan plan`: the plan's figures and findings, as tables or JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import EXIT_FINDINGS, EXIT_OK, Command

if TYPE_CHECKING:
    import argparse

    from app.usecases.plan import PlanRequest


def add_arguments(p: argparse.ArgumentParser) -> None:
    from app.cli.flags import add_plan_flags, add_save_flags

    add_plan_flags(p)
    p.add_argument("--json", action="store_true", help="print JSON (see `podplan schema`)")
    add_save_flags(p)


def plan_request(args: argparse.Namespace) -> PlanRequest:
    """The plan file (or the example pod) with the plan flags applied."""
    from app.cli.flags import load_plan_file, plan_from_args
    from app.usecases.plan import PlanRequest

    base = load_plan_file(args.plan_file) if args.plan_file else None
    return PlanRequest(plan_from_args(args, base))


def run(args: argparse.Namespace) -> int:
    """Tables, or JSON with --json; exit 1 when a finding is an error."""
    from app.cli.flags import save_plan_file
    from app.usecases.plan import plan_outputs

    out = plan_outputs(plan_request(args))
    save_plan_file(out.plan, args)
    if args.json:
        print(out.report().model_dump_json(indent=2))
    else:
        from app.shared.config import read_config
        from app.shared.render import print_plan

        print_plan(out.plan, out.result, cost=out.cost, units=read_config().units)
    return EXIT_FINDINGS if out.has_errors else EXIT_OK


COMMAND = Command(
    name="plan",
    help="compute a plan: capacity to the byte, alignment, mkfs geometry",
    description="Compute a plan: usable bytes as df -B1 will show them, every layer's alignment, the "
    "mkfs geometry and the findings (misalignments, refusals). The plan is a plan file, or the example "
    "pod without one; the flags below change either.",
    examples=(
        ("podplan plan", "the example pod: 45 disks, 3 x RAID6 of 15 under LVM, XFS"),
        ("podplan plan --disks 24 --level 6 --groups 2 --fs ext4", "two RAID6 arrays of 12 disks, ext4 on them"),
        ("podplan plan pod.toml --json", "a plan file's figures as JSON (its schema: podplan schema)"),
    ),
    add_arguments=add_arguments,
    run=run,
    exit_one="a finding is an error",
)
