"""`podplan validate`: a built array measured with fio, beside the plan's prediction."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    from app.cli.options import add_scale_flags

    p.add_argument("target", metavar="TARGET", help="md device, LV, block device, or a directory (file-based)")
    p.add_argument("--plan", metavar="PLAN.toml", help="the plan it was built from (predictions, stripe size)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="about a minute: each workload stops once steady (default)")
    mode.add_argument("--full", action="store_true", help="longer runs and wider steady-state windows")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--report",
        metavar="DIR",
        help="keep the fio job files, fio's JSON, report.json and report.html in DIR, a new or empty "
        "directory (--force: one that holds a former run's files)",
    )
    p.add_argument(
        "--logs",
        action="store_true",
        help="with --report: keep fio's bandwidth, latency and IOPS logs of each run there, a line a "
        "second (job-01_bw.1.log, job-01_lat.1.log, ...)",
    )
    p.add_argument(
        "--destroy-data",
        metavar="DEVICE",
        help="allow write workloads on DEVICE although it holds a signature (must name TARGET)",
    )
    p.add_argument(
        "--hosts",
        metavar="H1[:PORT],H2...",
        help="run the suite on these machines through `fio --server` (port 8765 unless given)",
    )
    p.add_argument(
        "--buffered",
        action="store_true",
        help="with --hosts: buffered I/O on every host, for filesystems that refuse O_DIRECT",
    )
    p.add_argument(
        "--job",
        action="append",
        metavar="FILE.fio",
        help="run the sections of your own fio job file instead of the suite, as written (rw, bs, "
        "depth, jobs, engine, direct) on TARGET, behind the same guards (repeatable)",
    )
    p.add_argument(
        "--baseline",
        action="store_true",
        help="first measure each member disk of an md array or LV (read-only) and feed the model",
    )
    add_scale_flags(p)
    from app.cli.validate_health import add_health_flags

    add_health_flags(p)


def run(args: argparse.Namespace) -> int:
    if args.logs and (args.scale or args.html or args.health or args.burn_in or args.resume):
        from planners.errors import PlanError

        raise PlanError("--logs goes with the suite or --job runs, not with --scale, --html or the health checks")
    if args.health or args.burn_in or args.resume:
        from app.cli.validate_health import dispatch as health_dispatch

        return health_dispatch(args)
    if args.scale or args.html:
        from app.cli.validate_scale import dispatch

        return dispatch(args)
    from app.cli.flags import load_plan_file
    from app.cli.validate import report_dir_of, run_validate

    plan = load_plan_file(args.plan) if args.plan else None
    return run_validate(
        args.target,
        plan=plan,
        full=args.full,
        as_json=args.json,
        report_dir=report_dir_of(args),
        destroy_data=args.destroy_data,
        hosts=args.hosts,
        baseline=args.baseline,
        buffered=args.buffered,
        job_files=args.job,
        logs=args.logs,
    )


COMMAND = Command(
    name="validate",
    help="measure a built array with fio: quick suite, measured beside predicted",
    description="Measure a built array, a block device or a directory with fio, each workload until "
    "its figures are steady, and set the measured figures beside the plan's prediction with the "
    "reasons for any gap. Write workloads on a device that holds data are refused unless "
    "--destroy-data names it.",
    examples=(
        ("podplan validate /srv/pod --plan pod.toml", "the quick suite on a mounted filesystem, beside the plan"),
        (
            "podplan validate /dev/md0 --plan pod.toml --destroy-data /dev/md0 --report run1",
            "the suite on the raw array, its data destroyed, every file kept in run1/",
        ),
        ("podplan validate /dev/md0 --health", "SMART of every member disk, read with smartctl"),
    ),
    add_arguments=add_arguments,
    run=run,
    exit_one="a workload failed or was stopped early, or a program podplan runs is missing or failed",
)
