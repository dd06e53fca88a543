"""`podplan example`: a plan file to start from."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from app.cli.command import EXIT_OK, Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", default="pod45", help="which example (--list shows them)")
    p.add_argument("--list", action="store_true", help="list the examples, one stack each")


def run(args: argparse.Namespace) -> int:
    """An example plan as TOML (the 45-disk pod unless named), or the list of them."""
    from app.shared.planfile import plan_to_toml
    from planners.errors import PlanError
    from planners.example import EXAMPLES

    if args.list:
        sys.stdout.write("".join(f"{name:8} {what}\n" for name, (what, _) in EXAMPLES.items()))
        return EXIT_OK
    if args.name not in EXAMPLES:
        raise PlanError(f"no example named {args.name!r}: one of {', '.join(EXAMPLES)}")
    sys.stdout.write(plan_to_toml(EXAMPLES[args.name][1]()))
    return EXIT_OK


COMMAND = Command(
    name="example",
    help="print an example plan as TOML (the 45-disk pod unless named)",
    description="Print an example plan as TOML: a plan file to copy and edit, every field with its value.",
    examples=(
        ("podplan example --list", "the examples, one stack each"),
        ("podplan example > pod.toml", "the 45-disk pod as a plan file to edit"),
        ("podplan example btrfs6 > btrfs6.toml", "six mixed disks under one btrfs"),
    ),
    add_arguments=add_arguments,
    run=run,
)
