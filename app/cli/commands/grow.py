"""`podplan grow`: growing a built pod, step by step, and its guarded script."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "plan_file", nargs="?", metavar="PLAN.toml", help="the plan the pod was built from (default: the example pod)"
    )
    p.add_argument("--add-disks", type=int, metavar="K", help="disks to add")
    p.add_argument("--size", metavar="SIZE", help="size of each added disk (default: the array's disk size)")
    p.add_argument("--devices", metavar="PATH,...", help="paths of the added disks, comma-separated, in order")
    p.add_argument("--to-level", type=int, choices=(5, 6), help="new RAID level of the reshaped array (RAID5 -> 6)")
    p.add_argument("--group", metavar="NAME", help="md array to reshape (default: the last one)")
    p.add_argument(
        "--mode",
        choices=("reshape", "new-array"),
        help="reshape an array, or add a new array under LVM (default: reshape where md can)",
    )
    p.add_argument("--data-profile", metavar="PROFILE", help="btrfs: data profile after the balance (default: kept)")
    p.add_argument("--metadata-profile", metavar="PROFILE", help="btrfs: metadata profile after the balance")
    p.add_argument("--to", metavar="NEWPLAN.toml", help="the target layout as a plan file, instead of the flags")
    p.add_argument("--save", metavar="NEWPLAN.toml", help="write the grown layout as a plan file")
    p.add_argument("--script", metavar="FILE", help="write the guarded grow script to FILE (executable)")
    p.add_argument("--force", action="store_true", help="overwrite the files of --save / --script")
    p.add_argument("--json", action="store_true", help="print the growth as JSON")


def run(args: argparse.Namespace) -> int:
    from app.cli.grow import dispatch

    return dispatch(args)


COMMAND = Command(
    name="grow",
    help="plan growing a built pod: reshape an array or add one, grow LVM and the "
    "filesystem; exact figures after, and the guarded grow script",
    description="Plan growing a built pod: reshape an md array (more disks, RAID5 to 6) or add a new "
    "array under LVM, grow LVM and the filesystem, or add disks to a btrfs and balance it. Every "
    "figure after the growth is exact; --script writes the guarded script that does it.",
    examples=(
        ("podplan grow pod.toml --add-disks 3", "what three more disks give, step by step"),
        (
            "podplan grow pod.toml --add-disks 15 --mode new-array --save pod2.toml --script grow.sh",
            "a fourth array under LVM: the new plan and the script",
        ),
        ("podplan grow pod.toml --to pod2.toml", "from the built plan to a target plan file"),
    ),
    add_arguments=add_arguments,
    run=run,
)
