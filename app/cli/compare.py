"""`podplan compare`: fio output a user already has (last year's run, a seed's, another tool's), set
beside the plan's prediction for the same jobs, as app.usecases.compare sets them; rendered here."""

from __future__ import annotations

SMALL_REQUEST = 64 * 1024  # as validate's table: under it read as IOPS, else MB/s


def compare(plan_path: str, fio_path: str, job_path: str | None) -> int:
    from rich.table import Table

    from app.cli.flags import load_plan_file
    from app.shared.console import cli_console
    from app.usecases.compare import compare_fio

    plan = load_plan_file(plan_path)
    out = compare_fio(plan, fio_path, job_path)
    jf, preds, measured = out.job, out.predictions, out.measured
    console = cli_console()
    t = Table(title=f"{fio_path} beside {plan.name}'s prediction", title_justify="left")
    for col in ("job", "measured", "predicted", "diff", "limited by"):
        t.add_column(col, justify="left" if col in ("job", "limited by") else "right")
    for name, (mb_s, iops) in measured.items():
        p = preds.get(name)
        small = p is not None and p.block_bytes < SMALL_REQUEST
        have, want, unit = (iops, p.iops, "IOPS") if small and p else (mb_s, p.mb_s if p else None, "MB/s")
        fmt = ",.0f" if unit == "IOPS" or have >= 100 else ",.1f"
        t.add_row(
            name,
            f"{have:{fmt}} {unit}",
            f"{want:{fmt}} {unit}" if want else "no prediction",
            f"{(have - want) / want * 100:+.0f} %" if want else "",
            p.binding if p else "",
        )
    console.print(t)
    for line in [*jf.notes, *(f"{r.section}: not predicted: {r.reason}" for r in jf.refused)]:
        console.print(f"  {line}", markup=False, highlight=False)
    for name in preds.keys() - measured.keys():
        console.print(f"  {name}: predicted, but the fio output has no figures for it", markup=False)
    return 0
