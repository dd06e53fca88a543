"""`podplan plan` and `podplan script`: the plan's figures and findings, and its build script."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.usecases.plan import PlanRequest, build_script, plan_outputs

EXIT_OK, EXIT_FINDINGS = 0, 1


def _request(args: argparse.Namespace) -> PlanRequest:
    from app.cli.flags import load_plan_file, plan_from_args

    base = load_plan_file(args.plan_file) if args.plan_file else None
    return PlanRequest(plan_from_args(args, base))


def plan_command(args: argparse.Namespace) -> int:
    """Tables, or JSON with --json; exit 1 when a finding is an error."""
    out = plan_outputs(_request(args))
    if args.json:
        print(out.report().model_dump_json(indent=2))
    else:
        from app.shared.render import print_plan

        print_plan(out.plan, out.result)
    return EXIT_FINDINGS if out.has_errors else EXIT_OK


def script_command(args: argparse.Namespace) -> int:
    """The script on stdout, or in FILE with -o and a line on stderr saying what to do next."""
    script = build_script(_request(args))
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
