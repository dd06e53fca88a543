"""Fio output a user already has (last year's run, a seed's, another tool's), set beside the plan's
prediction for the same jobs (`podplan compare`). The jobs are read from the output itself (fio writes
its global and per-job options into its JSON), or from the job file that ran; the terminal, --json
and the report (--report DIR: the page validate's report draws, kept as curves.json for `podplan
report DIR`) all show this outcome."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from planners.errors import PlanError
from planners.models import Plan

if TYPE_CHECKING:
    from app.shared.curves import Measured
    from planners.perf.predict import WorkloadPrediction
    from runners.fio.result import JobFigures

SMALL_REQUEST = 64 * 1024  # as validate's table: under it read as IOPS, else MB/s


@dataclass(frozen=True)
class CompareRequest:
    plan: Plan
    fio_path: str
    """fio's JSON output: one document, a --status-interval stream (its last is read), client/server."""
    job_path: str | None = None
    """The job file that ran; None: the job options fio recorded in its output."""
    report_dir: str | None = None
    """Where to write report.html and curves.json (made now; one that holds files only with force)."""
    force: bool = False


@dataclass(frozen=True)
class ComparedJob:
    """One job of the output: what fio measured (its clones and hosts added up) beside the prediction."""

    name: str
    metric: Literal["MB/s", "IOPS"]
    """The figure compared: IOPS for requests under 64 KiB, MB/s (10^6 bytes/s) above."""
    measured_mb_s: float
    measured_iops: float
    entries: int
    """How many entries fio reported for the job (clones without group_reporting, hosts), added up."""
    prediction: WorkloadPrediction | None
    """None: the job file the figures are read against has no such section, or podplan refused it."""
    figures: Measured | None
    """Spread and latency as the report shows them, when fio reported the job once (no sum to take)."""

    @property
    def measured(self) -> float:
        return self.measured_iops if self.metric == "IOPS" else self.measured_mb_s

    @property
    def predicted(self) -> float | None:
        p = self.prediction
        return None if p is None else (p.iops if self.metric == "IOPS" else p.mb_s)

    @property
    def diff_pct(self) -> float | None:
        """Measured against predicted, in per cent of predicted."""
        want = self.predicted
        return (self.measured - want) / want * 100 if want else None


@dataclass(frozen=True)
class CompareOutcome:
    plan: Plan
    fio_path: str
    fio_version: str
    jobs_from: str
    """The job file the predictions were made from, or where fio recorded the options."""
    jobs: tuple[ComparedJob, ...]
    notes: tuple[str, ...]
    """What the job options mean for the prediction, the sections not predicted, the jobs not measured."""
    report_dir: str | None = None


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


def by_job(doc: dict[str, Any]) -> dict[str, list[JobFigures]]:
    """fio's entries per job name, in the order it reports them (a clone or a host each)."""
    from runners.fio.result import figures

    out: dict[str, list[JobFigures]] = {}
    for j in figures(doc).jobs:
        out.setdefault(j.name, []).append(j)
    return out


def recorded_blocks(doc: dict[str, Any]) -> dict[str, int]:
    """Each job's request size as fio recorded its options (a job the job file given lacks has no
    prediction to take it from); {} where podplan cannot read them."""
    from planners.perf.jobfile import parse_job_file

    try:
        jf = parse_job_file(job_text(doc), source="the fio output's job options")
    except PlanError:
        return {}
    return {w.name: w.bs for w in jf.workloads}


def _compared(name: str, entries: Sequence[JobFigures], pred: WorkloadPrediction | None, bs: int) -> ComparedJob:
    """`bs`: the job's request size as fio recorded it (0: unknown), when there is no prediction."""
    from app.shared.curves import measured_from

    block = pred.block_bytes if pred else bs
    small = 0 < block < SMALL_REQUEST
    return ComparedJob(
        name=name,
        metric="IOPS" if small else "MB/s",
        measured_mb_s=sum(j.bytes_s for j in entries) / 1e6,
        measured_iops=sum(j.iops for j in entries),
        entries=len(entries),
        prediction=pred,
        figures=measured_from(entries[0], "done", block) if len(entries) == 1 else None,
    )


def compare(req: CompareRequest) -> CompareOutcome:
    """Each job fio measured beside the plan's prediction for it; with report_dir, the page too."""
    from app.shared.planfile import load_job_file
    from planners.perf.concurrent import predict_job_file
    from planners.perf.jobfile import parse_job_file
    from planners.perf.predict import geometry_for_speed

    doc = fio_document(req.fio_path)
    source = req.job_path or f"{req.fio_path}'s job options"
    jf = load_job_file(req.job_path) if req.job_path else parse_job_file(job_text(doc), source=source)
    plan = req.plan
    preds = {p.workload: p for p in predict_job_file(plan, geometry_for_speed(plan), jf)}
    measured = by_job(doc)
    blocks = recorded_blocks(doc) if set(measured) - set(preds) else {}
    jobs = tuple(_compared(name, entries, preds.get(name), blocks.get(name, 0)) for name, entries in measured.items())
    refused = {r.section for r in jf.refused}
    notes = (
        *jf.notes,
        *(f"{r.section}: not predicted: {r.reason}" for r in jf.refused),
        *(f"{n}: predicted, but the fio output has no figures for it" for n in preds if n not in measured),
        *(
            f"{j.name}: not predicted: {source} has no such job section"
            for j in jobs
            if j.prediction is None and j.name not in refused
        ),
        *(
            f"{j.name}: {j.entries} entries of fio's added up (clones or hosts); spread and latency are per entry"
            for j in jobs
            if j.entries > 1
        ),
    )
    out = CompareOutcome(plan, req.fio_path, str(doc.get("fio version", "")), source, jobs, notes, req.report_dir)
    if req.report_dir:
        write_compare_report(out, force=req.force)
    return out


def compare_doc(out: CompareOutcome) -> dict[str, Any]:
    """What the page draws: a bar pair per job, the plan's summary and cost, the measured points."""
    from app.shared.cost_view import with_report_cost
    from app.shared.curves import curves_doc, plan_summary

    version = f"fio {out.fio_version.removeprefix('fio-')}" if out.fio_version else "fio"
    summary = [*plan_summary(out.plan), f"{out.fio_path}: {version} output, its jobs read from {out.jobs_from}"]
    doc = with_report_cost(curves_doc(f"{out.fio_path} beside {out.plan.name}", summary, [], []), out.plan)
    doc["bars"] = [
        {"workload": j.name, "metric": j.metric, "measured": j.measured, "predicted": j.predicted} for j in out.jobs
    ]
    doc["notes"] = list(out.notes)
    doc["said_by"] = "compare"
    doc["points"] = [
        {"section": j.name, "metric": j.metric, "measured": asdict(j.figures)} for j in out.jobs if j.figures
    ]
    return doc


def write_compare_report(out: CompareOutcome, *, force: bool) -> None:
    """report.html and curves.json in out.report_dir: made now, or one holding files only with force."""
    from app.shared.validate_report import write_report
    from runners.files import make_run_dir

    assert out.report_dir is not None
    make_run_dir(out.report_dir, reuse=force)
    write_report(out.report_dir, compare_doc(out))
