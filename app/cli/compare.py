"""`podplan compare`: fio output a user already has (last year's run, a seed's, another tool's), set
beside the plan's prediction for the same jobs. The jobs are read from the output itself (fio writes
its global and per-job options into its JSON), or from the job file that ran (--job)."""

from __future__ import annotations

from typing import Any

from planners.errors import PlanError

SMALL_REQUEST = 64 * 1024  # as validate's table: under it read as IOPS, else MB/s


def fio_document(path: str) -> dict[str, Any]:
    """The last complete fio JSON object of the file (a --status-interval stream ends with the final
    one; notes before the JSON are skipped), or one PlanError line."""
    from runners.files import read_text
    from runners.fio.result import objects

    objs = objects(read_text(path, what="fio output", missing="no such file"))
    docs = [o for o in objs if "jobs" in o or "client_stats" in o]
    if not docs:
        raise PlanError(f"{path}: no fio JSON output in it (fio --output-format=json writes one)", "fio")
    return docs[-1]


def _options(value: Any) -> dict[str, str]:
    if isinstance(value, list):  # some fio releases write a one-item list
        value = value[0] if value and isinstance(value[0], dict) else {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def job_text(doc: dict[str, Any]) -> str:
    """A job file of the jobs the output ran, from fio's own record of their options: its global
    options, then each job's (a job fio reports once per clone, or per host, is written once)."""
    jobs = [j for j in doc.get("client_stats", doc.get("jobs", [])) if j.get("jobname") != "All clients"]
    lines = ["[global]", *(f"{k}={v}" if v else k for k, v in _options(doc.get("global options")).items())]
    seen: set[str] = set()
    for j in jobs:
        name = str(j.get("jobname", ""))
        if not name or name in seen:
            continue
        seen.add(name)
        lines.append(f"[{name}]")
        lines += [f"{k}={v}" if v else k for k, v in _options(j.get("job options")).items()]
    if not seen:
        raise PlanError("the fio output names no job", "fio")
    return "\n".join(lines) + "\n"


def measured_by_job(doc: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """(MB/s, IOPS) per job name, its clones and hosts added up (fio lists each without group_reporting)."""
    from runners.fio.result import figures

    out: dict[str, tuple[float, float]] = {}
    for j in figures(doc).jobs:
        mb, io = out.get(j.name, (0.0, 0.0))
        out[j.name] = (mb + j.bytes_s / 1e6, io + j.iops)
    return out


def compare(plan_path: str, fio_path: str, job_path: str | None) -> int:
    from rich.table import Table

    from app.cli.flags import load_plan_file
    from app.shared.console import cli_console
    from app.shared.planfile import load_job_file
    from planners.perf.concurrent import predict_job_file
    from planners.perf.jobfile import parse_job_file
    from planners.perf.predict import geometry_for_speed

    plan = load_plan_file(plan_path)
    doc = fio_document(fio_path)
    jf = load_job_file(job_path) if job_path else parse_job_file(job_text(doc), source=f"{fio_path}'s job options")
    preds = {p.workload: p for p in predict_job_file(plan, geometry_for_speed(plan), jf)}
    measured = measured_by_job(doc)
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
