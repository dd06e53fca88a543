"""`podplan grow PLAN`: what growing a built pod gives, step by step, and the guarded script that does it.

Either a request (--add-disks K [--size S] [--devices ...] [--to-level 6] [--group NAME] [--mode ...])
or the target layout as a plan file (--to NEWPLAN). Bad input: one line, exit 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.cli.flags import load_plan_file, note_disk_size
from app.shared.console import cli_console
from app.shared.grow import alternative_line, btrfs_growth_lines, render_growth
from app.shared.planfile import describe_validation_error, save_plan, write_script
from app.usecases.grow import BtrfsGrowPlan, GrowPlanRequest, GrowRequest, plan_growth
from planners.errors import PlanError
from planners.models import Plan


def request_from_args(args: argparse.Namespace) -> GrowRequest:
    data: dict[str, Any] = {"add_disks": args.add_disks or 0}
    for key in ("size", "to_level", "group", "mode", "data_profile", "metadata_profile"):
        if getattr(args, key) is not None:
            data[key] = getattr(args, key)
    if args.devices is not None:
        data["devices"] = [p for p in args.devices.split(",") if p]
    try:
        return GrowRequest(**data)
    except ValidationError as exc:
        raise PlanError(describe_validation_error(exc, "grow")) from None


def grow_request(old: Plan, args: argparse.Namespace) -> GrowPlanRequest:
    """The flags as a grow request, or the target layout of --to (not both)."""
    if args.to:
        flags = ("add_disks", "size", "devices", "to_level", "group", "mode", "data_profile", "metadata_profile")
        if any(getattr(args, k) is not None for k in flags):
            raise PlanError("give the target as --to NEWPLAN or as --add-disks/--to-level flags, not both")
        return GrowPlanRequest(old, target=load_plan_file(args.to))
    req = request_from_args(args)
    note_disk_size(args.size, "--size")
    return GrowPlanRequest(old, request=req)


def dispatch(args: argparse.Namespace) -> int:
    from planners.example import example_pod

    old = load_plan_file(args.plan_file) if args.plan_file else example_pod()
    grown = plan_growth(grow_request(old, args))
    _write_files(args, grown.target, grown.script)
    if isinstance(grown, BtrfsGrowPlan):
        _print_btrfs(grown, args)
        return 0
    new, growth = grown.target, grown.growth
    others = [alternative_line(mode, g) for mode, g in grown.alternatives]
    if args.json:
        from app.shared.documents import dumps
        from app.shared.documents_built import GrowDocument

        print(dumps(GrowDocument(growth=growth, also_possible=others, target_plan=new)))
    else:
        cli_console().print(render_growth(growth, alternatives=others))
    _say_written(args)
    if args.script:
        print(
            f"podplan: review it, then run: bash {args.script}   (a dry run that checks the system; add --run to grow)",
            file=sys.stderr,
        )
    return 0


def _print_btrfs(grown: BtrfsGrowPlan, args: argparse.Namespace) -> None:
    """A btrfs across raw disks: device add and a balance, its figures, its script."""
    if args.json:
        from app.shared.documents import dumps
        from app.shared.documents_built import GrowBtrfsDocument

        print(dumps(GrowBtrfsDocument(growth=grown.growth, target_plan=grown.target)))
    else:
        print("\n".join(btrfs_growth_lines(grown.growth)))
    _say_written(args)


def _write_files(args: argparse.Namespace, new: Plan, script: Callable[[], str]) -> None:
    """--save (the grown layout) and --script (the grow script), each refused over an existing file without --force."""
    if args.save:
        save_plan(new, args.save, overwrite=args.force)
    if args.script:
        write_script(Path(args.script), script(), args.force)


def _say_written(args: argparse.Namespace) -> None:
    for path, what in ((args.save, "the grown layout"), (args.script, "the grow script")):
        if path:
            print(f"podplan: wrote {what} to {path}", file=sys.stderr)
