"""A comparison (`podplan compare`): fio output a user already has, set beside the plan's prediction
for the same jobs. The jobs are read from the output itself (fio writes its global and per-job options
into its JSON), or from the job file that ran."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planners.errors import PlanError
from planners.models import Plan
from planners.perf.jobfile import JobFile
from planners.perf.predict import WorkloadPrediction


@dataclass(frozen=True)
class CompareOutcome:
    """The jobs, the model's figures for each and fio's."""

    job: JobFile
    """The jobs as predicted: the job file given, or the one fio's output records."""
    predictions: dict[str, WorkloadPrediction]
    """The model's figures per job name (a refused section has none)."""
    measured: dict[str, tuple[float, float]]
    """fio's (MB/s, IOPS) per job name, its clones and hosts added up."""


def compare_fio(plan: Plan, fio_path: str, job_path: str | None = None) -> CompareOutcome:
    """The fio output at `fio_path` beside the plan's prediction for its jobs; bad input is one PlanError line."""
    from app.shared.planfile import load_job_file
    from planners.perf.concurrent import predict_job_file
    from planners.perf.jobfile import parse_job_file
    from planners.perf.predict import geometry_for_speed

    doc = fio_document(fio_path)
    jf = load_job_file(job_path) if job_path else parse_job_file(job_text(doc), source=f"{fio_path}'s job options")
    preds = {p.workload: p for p in predict_job_file(plan, geometry_for_speed(plan), jf)}
    return CompareOutcome(job=jf, predictions=preds, measured=measured_by_job(doc))


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
