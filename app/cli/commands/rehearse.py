"""`podplan rehearse`: the build script run on virtual disks in a throwaway VM."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("plan_file", nargs="?", metavar="PLAN.toml", help="plan file (default: the example pod)")
    p.add_argument("--disk-size", metavar="SIZE", help="size of the largest virtual disk (default: small but enough)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.add_argument(
        "--keep", metavar="DIR", help="keep the script, console log and checks in DIR, a new or empty directory"
    )
    p.add_argument(
        "--rebuild-kit", action="store_true", help="rebuild the VM boot kit even if the cached one is current"
    )
    p.add_argument(
        "--fail",
        type=int,
        metavar="N",
        help="after the build, fail N members of one array while data is "
        "written, measure it degraded, rebuild and check the data",
    )
    p.add_argument("--group", metavar="NAME", help="with --fail: the md array to fail (default: the first)")
    p.add_argument(
        "--grow",
        metavar="NEWPLAN.toml",
        help="after the build and some data, run the grow script that "
        "takes the pod to NEWPLAN (see podplan grow --save), then compare every figure and the data",
    )


def run(args: argparse.Namespace) -> int:
    from app.cli.rehearse import dispatch

    return dispatch(args)


COMMAND = Command(
    name="rehearse",
    help="run the plan's build script on virtual disks in a throwaway VM and compare",
    description="Run the plan's build script for real on small virtual disks in a throwaway VM (qemu, "
    "this host's kernel), then compare every figure the plan predicts with what the tools report. "
    "--fail and --grow rehearse a failure and rebuild, or a growth, after the build.",
    examples=(
        ("podplan rehearse pod.toml", "build the pod in a VM and compare: predicted | actual | match"),
        ("podplan rehearse pod.toml --fail 2 --keep rehearsal", "fail two members, rebuild, check the data"),
        ("podplan rehearse pod.toml --grow pod2.toml", "build, write data, grow to pod2.toml, compare"),
    ),
    add_arguments=add_arguments,
    run=run,
    exit_one="a figure or the data did not match, or the VM or the script failed",
)
