"""A prediction: each workload's speed with the part that limits it, and the odds of losing data
(`podplan predict`, the TUI's Perf tab and its compare screen), with the parity CPU figures taken
from one place for all three, so one plan never shows two MB/s on two screens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.usecases.sweep import CpuSource
from planners.cost import Cost as Cost
from planners.models import Plan
from planners.perf.jobfile import JobFile as JobFile
from planners.perf.jobtext import listed as listed
from planners.perf.parity_log import CpuOrigin, ParityLog
from planners.perf.predict import COUNTED_CPU_TERMS as COUNTED_CPU_TERMS
from planners.perf.predict import WorkloadPrediction as WorkloadPrediction
from planners.perf.scale import Axis as Axis
from planners.perf.scale import PointPrediction as PointPrediction
from planners.perf.scale import parse_scale as parse_scale
from planners.reliability.loss import Reliability as Reliability
from planners.results import PlanResult

if TYPE_CHECKING:
    from planners.perf.predict import Mode

HostParity = tuple[ParityLog | None, str, str]
"""A parity benchmark already read: (log, where it was read, why there is none)."""


@dataclass(frozen=True)
class PredictRequest:
    """The plan, what to predict on it, and where the parity CPU figures come from."""

    plan: Plan
    workloads: tuple[str, ...] | None = None
    """Preset workloads by name; None: the validation suite, unless job files are given."""
    jobs: tuple[tuple[str, JobFile], ...] = ()
    """fio job files, each with where it was read, predicted section by section as fio runs them."""
    mode: Mode = "normal"
    """healthy, one member missing (degraded), or rebuilding."""
    cpu: CpuSource | HostParity | None = field(default_factory=CpuSource)
    """Flags that say where to read the figures, a benchmark already read (the TUI reads this host's
    once), or None: the plan's own figures and presets, no log read."""
    result: PlanResult | None = None
    """The plan already computed (the TUI has it); None: computed here."""


@dataclass(frozen=True)
class PredictOutcome:
    plan: Plan
    """The plan with the parity figures where it states none."""
    result: PlanResult
    cpu: CpuOrigin | None
    """Where each parity CPU figure came from (None: no source was asked for)."""
    predictions: tuple[WorkloadPrediction, ...]
    reliability: Reliability
    job_notes: tuple[str, ...] = ()
    job_grouping: tuple[str, ...] = ()
    """How each job file's sections share the array, 'FILE: ...' ('' files left out)."""
    refused: tuple[dict[str, str], ...] = ()
    """The sections not predicted: file, section and reason."""
    cost: Cost | None = None
    """Price, power and replacements, with each workload's price per MB/s and per 1,000 IOPS; None without
    prices or watts."""


def with_parity(plan: Plan, cpu: CpuSource | HostParity | None) -> tuple[Plan, CpuOrigin | None]:
    """The plan with its parity figures filled in from the request's source, and where each came from."""
    from app.shared.host_cpu import for_this_host, with_cpu_source

    if cpu is None:
        return plan, None
    if isinstance(cpu, CpuSource):
        return with_cpu_source(plan, cpu)
    return for_this_host(plan, *cpu)


def predict_plan(req: PredictRequest) -> PredictOutcome:
    """Each workload (the suite by default) and each job section, and the reliability figures."""
    from planners.perf.concurrent import predict_job_file
    from planners.perf.predict import geometry_for_speed, predict
    from planners.perf.workloads import preset
    from planners.reliability.loss import reliability

    plan, cpu = with_parity(req.plan, req.cpu)
    result = req.result or geometry_for_speed(plan)
    workloads = [preset(n) for n in req.workloads] if req.workloads else None
    preds = predict(plan, result, workloads, mode=req.mode) if workloads or not req.jobs else []
    notes: list[str] = []
    grouping: list[str] = []
    refused: list[dict[str, str]] = []
    for path, jf in req.jobs:
        preds += predict_job_file(plan, result, jf, req.mode)
        notes += jf.notes
        grouping += [f"{path}: {jf.grouping}"] if jf.grouping else []
        refused += [{"file": path, "section": r.section, "reason": r.reason} for r in jf.refused]
    rel = reliability(plan, result)
    cost = _cost(plan, result, rel, preds)
    return PredictOutcome(plan, result, cpu, tuple(preds), rel, tuple(notes), tuple(grouping), tuple(refused), cost)


def _cost(plan: Plan, result: PlanResult, rel: Reliability, preds: Sequence[WorkloadPrediction]) -> Cost | None:
    from planners.cost import plan_cost, with_workloads
    from planners.reliability.formulas import AFR_RANGE

    cost = plan_cost(plan, result.usable_bytes, rel.afr_nominal, AFR_RANGE)
    return None if cost is None else with_workloads(cost, [(p.workload, p.mb_s, p.iops) for p in preds])


@dataclass(frozen=True)
class ScaleOutcome:
    plan: Plan
    cpu: CpuOrigin | None
    predictions: tuple[PointPrediction, ...]
    """Every section (or preset workload) at every point of the axes."""
    job_notes: tuple[str, ...]


def predict_scaling(req: PredictRequest, axes: Sequence[Axis]) -> ScaleOutcome:
    """`predict --scale`: each job section, or the preset workloads (the suite by default), over the axes."""
    from planners.perf.predict import geometry_for_speed
    from planners.perf.scale import as_job, shaped, sweep_job
    from planners.perf.workloads import VALIDATION, preset

    plan, cpu = with_parity(req.plan, req.cpu)
    result = req.result or geometry_for_speed(plan)
    jobs = [jf for _, jf in req.jobs]
    if req.workloads or not jobs:
        jobs.append(as_job(shaped(plan, result, [preset(n) for n in req.workloads] if req.workloads else VALIDATION)))
    preds = tuple(p for jf in jobs for p in sweep_job(plan, result, jf, axes, req.mode))
    return ScaleOutcome(plan, cpu, preds, tuple(n for jf in jobs for n in jf.notes))
