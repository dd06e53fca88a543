"""`podplan script`: the guarded build script of a plan."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from app.cli.command import EXIT_OK, Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    from app.cli.flags import add_plan_flags

    add_plan_flags(p)
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (executable) instead of stdout")
    p.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    p.add_argument(
        "--mount-over",
        metavar="DIR",
        action="append",
        default=[],
        help="mount the filesystem over DIR although it is a system directory (/, /etc, /var, /home, ...): "
        "refused unless named here",
    )


def run(args: argparse.Namespace) -> int:
    """The script on stdout, or in FILE with -o and a line on stderr saying what to do next."""
    from pathlib import Path

    from app.cli.commands.plan import plan_request
    from app.usecases.plan import PlanRequest, build_script

    req = plan_request(args)
    script = build_script(PlanRequest(req.plan, mount_over=tuple(args.mount_over)))
    if not args.output:
        sys.stdout.write(script.text)
        return EXIT_OK
    from app.shared.planfile import write_script

    write_script(Path(args.output), script.text, args.force)
    if script.unnamed:
        print(
            f"podplan: wrote {args.output}, but {script.unnamed} of the plan's disks have no device path: the "
            f"script stops at their placeholders. Give them with --devices PATH,... (one per disk, in "
            f"order) or in the plan's [[disks]] devices, and write it again",
            file=sys.stderr,
        )
    else:
        print(
            f"podplan: wrote {args.output}; review it, then run: bash {args.output}   (a dry run; add --run to build)",
            file=sys.stderr,
        )
    return EXIT_OK


COMMAND = Command(
    name="script",
    help="write the guarded build script for a plan",
    description="Write the bash script that builds the plan: mdadm, pvcreate/vgcreate/lvcreate, mkfs, "
    "mount, fstab and mdadm.conf. It checks every device first and changes nothing unless run with "
    "--run: run as written it is a dry run.",
    examples=(
        ("podplan script pod.toml -o build.sh", "write the script; then read it and run: bash build.sh"),
        (
            "podplan script --disks 6 --level 6 --devices /dev/sdb,/dev/sdc,/dev/sdd,/dev/sde,/dev/sdf,/dev/sdg",
            "six named disks in one RAID6, the script on stdout",
        ),
    ),
    add_arguments=add_arguments,
    run=run,
)
