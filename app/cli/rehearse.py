"""`podplan rehearse`: the plan's build script on virtual disks, and predicted | actual | match.

The rehearsal itself (of a build, a failure with `--fail N` or a growth with `--grow NEWPLAN`) is
app.usecases.rehearse; this module checks the flags, prints the stages on stderr and the build's
comparison (the other kinds' are in rehearse_fail and rehearse_grow).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from rich.console import Console

from app.shared.console import cli_console
from app.shared.render import checks_table
from app.usecases.rehearse import Rehearsal, RehearseRequest, StageEntered, rehearse
from planners.errors import PlanError

EXIT_OK, EXIT_MISMATCH = 0, 1


def request_from_args(args: argparse.Namespace) -> RehearseRequest:
    from app.cli.flags import load_plan_file
    from planners.example import example_pod
    from planners.units import parse_size

    plan = load_plan_file(args.plan_file) if args.plan_file else example_pod()
    size = parse_size(args.disk_size, what="--disk-size") if args.disk_size else None
    if args.group and args.fail is None:
        raise PlanError("--group names the array --fail N fails: give --fail too", "group")
    if args.grow and args.fail is not None:
        raise PlanError("--grow and --fail rehearse different days: give one of them", "grow")
    build = RehearseRequest(plan, disk_size=size, keep=args.keep, rebuild_kit=args.rebuild_kit)
    if args.grow:
        return replace(build, kind="grow", grown=load_plan_file(args.grow))
    if args.fail is not None:
        return replace(build, kind="fail", fail=args.fail, group=args.group)
    return build


def dispatch(args: argparse.Namespace) -> int:
    req = request_from_args(args)
    err = cli_console(stderr=True)

    def said(e: StageEntered) -> None:
        err.print(f"[dim]{e.elapsed_s:6.1f}s[/dim] {e.stage:<8} {e.detail}")

    out = rehearse(req, said)
    if out.vm_error:
        err.print(f"[red]podplan: the VM failed during stage {out.stage}: {out.vm_error}[/red]")
        return EXIT_MISMATCH
    if req.kind == "fail":
        from app.cli.rehearse_fail import render_failure

        render_failure(out, err, args.json)
    elif req.kind == "grow":
        from app.cli.rehearse_grow import render_growth

        render_growth(out, err, args.json)
    else:
        render_build(out, err, args.json)
    return EXIT_OK if out.ok else EXIT_MISMATCH


def render_build(out: Rehearsal, err: Console, as_json: bool) -> None:
    if out.not_collected:
        err.print(f"[red]podplan: nothing was collected ({out.not_collected})[/red]")
        return
    if as_json:
        from app.shared.documents import dumps
        from app.shared.documents_built import RehearseDocument

        doc = RehearseDocument(
            all_match=out.ok,
            script_exit_status=out.script_exit_status,
            disk_bytes=list(out.disk_bytes),
            kernel=out.kernel,
            boot_seconds=out.boot_s,
            script_seconds=out.script_s,
            checks=out.rows,
        )
        print(dumps(doc))
    else:
        cli_console().print(checks_table("Rehearsal: predicted | actual", out.checks))
    if out.script_exit_status != 0:
        err.print(
            f"[red]podplan: the build script exited with status {out.script_exit_status} during stage "
            f"{out.stage}:[/red]"
        )
        err.print("\n".join(out.stderr.strip().splitlines()[-5:]))
    if not as_json:
        bad = sum(not c.match for c in out.checks)
        verdict = "[green]all match[/green]" if out.ok else f"[red]{bad} mismatch(es)[/red]"
        err.print(
            f"{len(out.checks)} figures compared: {verdict}; disks ready after {out.boot_s or 0:.1f} s, "
            f"script and resync took {out.script_s or 0:.1f} s"
        )
