"""`podplan rehearse --fail N`: a failed member, the degraded array, the rebuild, the data, in the lab."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import JustifyMethod
from rich.table import Table

from app.cli.rehearse import EXIT_MISMATCH, EXIT_OK, boot_scenario, start_lab
from app.shared.console import cli_console
from planners.models import Plan
from planners.reliability.failure import failure_plan
from planners.units import format_bytes_binary


def rehearse_failure(
    plan: Plan,
    fail: int,
    *,
    group: str | None,
    disk_size: int | None,
    as_json: bool,
    keep: str | None,
    rebuild_kit: bool = False,
) -> int:
    from runners.lab.failure import DISK_BPS, compare_failure, prepare_failure

    failure_plan(plan, fail, group)  # a plan that cannot survive is refused before anything is built
    err, progress, kit, tools = start_lab(rebuild_kit)
    scenario, scaled, fp = prepare_failure(plan, fail, group=group, disk_size=disk_size, tools=tools)
    size = max(d.size for d in scaled.disk_list())
    progress.enter(
        "plan",
        f"{len(scenario.disks)} virtual disks of up to {format_bytes_binary(size)} at "
        f"{DISK_BPS / 1e6:g} MB/s each; {fp.group} loses {fp.fail} member(s); Linux {kit.manifest.kernel_release}",
    )
    booted = boot_scenario(scenario, kit, progress, err, keep, 1800.0)
    if booted is None:
        return EXIT_MISMATCH
    _, run = booted
    checks, _ = compare_failure(scaled, fp, run)
    ok = run.returncode == 0 and all(c.match for c in checks)
    rows = [{**c.model_dump(), "match": c.match} for c in checks]
    if as_json:
        print(
            json.dumps(
                {
                    "all_match": ok,
                    "script_exit_status": run.returncode,
                    "group": fp.group,
                    "failed": fp.fail,
                    "disk_bytes": [d.size for d in scaled.disk_list()],
                    "disk_bytes_per_s": DISK_BPS,
                    "kernel": kit.manifest.kernel_release,
                    "script_seconds": run.script_s,
                    "checks": rows,
                },
                indent=2,
            )
        )
    else:
        t = Table(title=f"Failure rehearsal of {fp.group}: predicted | measured", title_justify="left")
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("figure", "left"),
            ("predicted", "right"),
            ("measured", "right"),
            ("match", "left"),
            ("limited by", "left"),
        )
        for col, just in columns:
            t.add_column(col, justify=just)
        for c in checks:
            t.add_row(
                c.figure, c.shown, _fmt(c.actual), "[green]yes[/green]" if c.match else "[bold red]NO[/bold red]", c.why
            )
        cli_console().print(t)
    if run.returncode != 0:
        err.print(
            f"[red]podplan: the rehearsal script exited with status {run.returncode} during stage "
            f"{progress.stage}:[/red]"
        )
        err.print("\n".join((run.stdout + run.stderr).strip().splitlines()[-8:]))
    if not as_json:
        bad = sum(not c.match for c in checks)
        err.print(
            f"{len(checks)} figures compared: "
            + ("[green]all match[/green]" if ok else f"[red]{bad} differ[/red]")
            + f" (numbers within {int(checks[0].tolerance * 100) if checks else 0} %); script took "
            f"{run.script_s or 0:.0f} s"
        )
    if keep:
        (Path(keep) / "checks.json").write_text(json.dumps(rows, indent=2))
    return EXIT_OK if ok else EXIT_MISMATCH


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.2f}"
    return str(v)
