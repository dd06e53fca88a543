"""`podplan plan` and `podplan script`: the plan's figures and findings, and its build script; and the
plan's shapes: `podplan example` (a plan file to start from) and `podplan schema` (of plan --json)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.usecases.plan import PlanRequest, build_script, plan_outputs
from planners.errors import PlanError

EXIT_OK, EXIT_FINDINGS = 0, 1


def dispatch(args: argparse.Namespace) -> int:
    commands = {"plan": plan_command, "script": script_command, "example": example_command, "schema": schema_command}
    return commands[args.command](args)


def example_command(args: argparse.Namespace) -> int:
    """An example plan as TOML (the 45-disk pod unless named), or the list of them."""
    from app.shared.planfile import plan_to_toml
    from planners.example import EXAMPLES

    if args.list:
        sys.stdout.write("".join(f"{name:8} {what}\n" for name, (what, _) in EXAMPLES.items()))
        return EXIT_OK
    if args.name not in EXAMPLES:
        raise PlanError(f"no example named {args.name!r}: one of {', '.join(EXAMPLES)}")
    sys.stdout.write(plan_to_toml(EXAMPLES[args.name][1]()))
    return EXIT_OK


def schema_command(args: argparse.Namespace) -> int:
    """The JSON schema of `podplan plan --json`."""
    import json

    from planners.results import PlanReport

    print(json.dumps(PlanReport.model_json_schema(), indent=2))
    return EXIT_OK


def _request(args: argparse.Namespace) -> PlanRequest:
    from app.cli.flags import load_plan_file, plan_from_args

    base = load_plan_file(args.plan_file) if args.plan_file else None
    return PlanRequest(plan_from_args(args, base))


def plan_command(args: argparse.Namespace) -> int:
    """Tables, or JSON with --json; exit 1 when a finding is an error."""
    from app.cli.flags import save_plan_file

    out = plan_outputs(_request(args))
    save_plan_file(out.plan, args)
    if args.json:
        print(out.report().model_dump_json(indent=2))
    else:
        from app.shared.render import print_plan

        print_plan(out.plan, out.result)
    return EXIT_FINDINGS if out.has_errors else EXIT_OK


def script_command(args: argparse.Namespace) -> int:
    """The script on stdout, or in FILE with -o and a line on stderr saying what to do next."""
    req = _request(args)
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
