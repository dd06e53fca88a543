"""`podplan rehearse --grow NEWPLAN`: the grow script, unmodified, on the old pod in the lab."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import JustifyMethod
from rich.table import Table

from app.cli.rehearse import EXIT_MISMATCH, EXIT_OK, boot_scenario, start_lab
from app.shared.console import cli_console
from planners.grow import growth_between
from planners.models import Plan
from planners.units import format_bytes_binary


def rehearse_growth(
    old: Plan, new: Plan, *, disk_size: int | None, as_json: bool, keep: str | None, rebuild_kit: bool = False
) -> int:
    from runners.lab.growth import compare_growth, prepare_growth, records

    growth_between(old, new)  # a growth podplan cannot plan is refused before anything is built
    err, progress, kit, tools = start_lab(rebuild_kit)
    scenario, scaled_old, scaled_new, growth = prepare_growth(old, new, disk_size=disk_size, tools=tools)
    size = max(d.size for d in scaled_new.disk_list())
    progress.enter(
        "plan",
        f"{len(scenario.disks)} virtual disks of up to {format_bytes_binary(size)}, "
        f"{len(scaled_old.disk_list())} for the old pod; {growth.mode}; Linux {kit.manifest.kernel_release}",
    )
    booted = boot_scenario(scenario, kit, progress, err, keep, 1800.0)
    if booted is None:
        return EXIT_MISMATCH
    _, run = booted
    if run.collection is None:
        err.print(
            f"[red]podplan: nothing was collected ({run.collection_error or 'the scenario did not finish'})[/red]"
        )
        err.print("\n".join((run.stdout + run.stderr).strip().splitlines()[-8:]))
        return EXIT_MISMATCH
    checks = compare_growth(scaled_new, growth, run.collection, run.outputs)
    ok = run.returncode == 0 and all(c.match for c in checks)
    rows = [{**c.model_dump(), "match": c.match} for c in checks]
    grow_s = records(run.outputs).get("grow_s")
    if as_json:
        print(
            json.dumps(
                {
                    "all_match": ok,
                    "script_exit_status": run.returncode,
                    "mode": growth.mode,
                    "disk_bytes": [d.size for d in scaled_new.disk_list()],
                    "kernel": kit.manifest.kernel_release,
                    "grow_seconds": float(grow_s) if grow_s else None,
                    "checks": rows,
                },
                indent=2,
            )
        )
    else:
        t = Table(title="Growth rehearsal: predicted | actual", title_justify="left")
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("layer", "left"),
            ("figure", "left"),
            ("predicted", "right"),
            ("actual", "right"),
            ("match", "left"),
        )
        for col, just in columns:
            t.add_column(col, justify=just)
        for c in checks:
            t.add_row(
                c.layer,
                c.figure,
                str(c.predicted),
                "-" if c.actual is None else str(c.actual),
                "[green]yes[/green]" if c.match else "[bold red]NO[/bold red]",
            )
        cli_console().print(t)
        err.print(
            f"{len(checks)} figures compared: "
            + ("[green]all match[/green]" if ok else f"[red]{sum(not c.match for c in checks)} differ[/red]")
            + f"; the grow script took {grow_s or '?'} s"
        )
    if run.returncode != 0:
        err.print(
            f"[red]podplan: the rehearsal stopped with status {run.returncode} during stage {progress.stage}:[/red]"
        )
        err.print("\n".join((run.stdout + run.stderr).strip().splitlines()[-8:]))
    if keep:
        (Path(keep) / "checks.json").write_text(json.dumps(rows, indent=2))
    return EXIT_OK if ok else EXIT_MISMATCH
