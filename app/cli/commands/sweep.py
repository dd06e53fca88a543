"""`podplan sweep`: every layout of the plan's disks, ranked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    from app.cli.options import add_plan_and_hardware_flags
    from app.usecases.sweep import MAX_LOSS_PER_YEAR, MAX_REBUILD_LOSS
    from planners.perf.workloads import PRESETS

    add_plan_and_hardware_flags(p)
    p.add_argument(
        "--workload",
        metavar="NAME",
        choices=tuple(PRESETS),
        default="seq-write",
        help="workload the speed column is for (default seq-write)",
    )
    p.add_argument("--top", type=int, default=25, metavar="N", help="rows to show (default 25; 0 = all)")
    p.add_argument(
        "--max-loss",
        type=float,
        default=100 * MAX_LOSS_PER_YEAR,
        metavar="PCT",
        help="yearly data-loss odds (at 4 %% disk failures a year) above which a layout is risky: "
        "ranked last and hidden from the table (default %(default)g %%)",
    )
    p.add_argument(
        "--max-rebuild-loss",
        type=float,
        default=100 * MAX_REBUILD_LOSS,
        metavar="PCT",
        help="share of rebuilds losing data to an unreadable sector (URE) above which a layout is "
        "risky: ranked last and hidden from the table (default %(default)g %%)",
    )
    p.add_argument(
        "--rank",
        choices=("front", "cost"),
        default="front",
        help="front: the Pareto front first, then by usable space (default); cost: by price per usable TiB "
        "(the plan's disk prices and [hardware.cost]), the risky layouts still last",
    )
    p.add_argument("--all", action="store_true", help="show the risky layouts too")
    p.add_argument("--json", action="store_true", help="print JSON (every row)")


def run(args: argparse.Namespace) -> int:
    from app.cli.flags import load_plan_file, plan_from_args
    from app.cli.options import with_hardware
    from app.cli.predict import sweep_command
    from planners.example import example_pod

    base = load_plan_file(args.plan_file) if args.plan_file else example_pod()
    return sweep_command(with_hardware(plan_from_args(args, base), args), args)


COMMAND = Command(
    name="sweep",
    help="rank every layout of the plan's disks by usable space, speed and loss odds",
    description="Rank every layout of the plan's disks (RAID level, groups, spares, chunk, LVM, "
    "filesystem) by usable space, speed for one workload and the odds of losing data; the risky "
    "layouts are ranked last and hidden unless --all.",
    examples=(
        ("podplan sweep pod.toml", "the 25 best layouts of the plan's disks for sequential writes"),
        ("podplan sweep --disks 24 --workload rand-read-4k --top 10", "24 disks ranked for random reads"),
        ("podplan sweep pod.toml --json > layouts.json", "every row, as JSON"),
    ),
    add_arguments=add_arguments,
    run=run,
)
