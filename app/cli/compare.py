"""`podplan compare`'s output: the use case's outcome (app.usecases.compare) as a table, or as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.usecases.compare import CompareOutcome


def _fmt(unit: str, value: float) -> str:
    return ",.0f" if unit == "IOPS" or value >= 100 else ",.1f"  # as validate's table


def print_table(out: CompareOutcome) -> None:
    from rich.table import Table

    from app.shared.console import cli_console

    console = cli_console()
    t = Table(title=f"{out.fio_path} beside {out.plan.name}'s prediction", title_justify="left")
    for col in ("job", "measured", "predicted", "diff", "limited by"):
        t.add_column(col, justify="left" if col in ("job", "limited by") else "right")
    for j in out.jobs:
        have, want, unit, diff = j.measured, j.predicted, j.metric, j.diff_pct
        fmt = _fmt(unit, have)
        t.add_row(
            j.name,
            f"{have:{fmt}} {unit}",
            f"{want:{fmt}} {unit}" if want else "no prediction",
            f"{diff:+.0f} %" if diff is not None else "",
            j.prediction.binding if j.prediction else "",
        )
    console.print(t)
    for line in out.notes:
        console.print(f"  {line}", markup=False, highlight=False)
    if out.report_dir:
        console.print(f"  report: {out.report_dir}/report.html", markup=False, highlight=False)


def json_text(out: CompareOutcome) -> str:
    """What `compare --json` prints (see `podplan schema compare`)."""
    from dataclasses import asdict

    from app.shared.documents import dumps
    from app.shared.documents_compare import ComparedJobDocument, CompareDocument
    from app.shared.kept_report import KeptMeasured
    from planners import __version__

    jobs = [
        ComparedJobDocument(
            job=j.name,
            metric=j.metric,
            measured=j.measured,
            predicted=j.predicted,
            diff_pct=j.diff_pct,
            limited_by=j.prediction.binding if j.prediction else "",
            measured_mb_s=j.measured_mb_s,
            measured_iops=j.measured_iops,
            entries=j.entries,
            figures=KeptMeasured(**asdict(j.figures)) if j.figures else None,
            prediction=j.prediction,
        )
        for j in out.jobs
    ]
    doc = CompareDocument(
        podplan_version=__version__,
        plan=out.plan.name,
        fio=out.fio_path,
        fio_version=out.fio_version,
        jobs_from=out.jobs_from,
        jobs=jobs,
        notes=list(out.notes),
        report=out.report_dir,
    )
    return dumps(doc)
