"""A measured sweep (`podplan validate --scale`): the job files, or the suite as one job file, run at
every point of numjobs, iodepth or bs, behind the validate session's guards, with the model's point
beside each measured one. The plan is checked against the target as the validate session checks it,
and its events (a plan of other storage, fio's progress) are the validate session's own.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Literal

from app.usecases.validate import Listener, WorkloadProgressed, plan_for_target
from planners.errors import PlanError
from planners.models import Plan
from planners.perf.jobfile import JobFile
from planners.perf.scale import Axis as Axis
from planners.perf.scale import PointPrediction as PointPrediction
from runners.fio.result import JobFigures
from runners.validate.scale import ScaleReport as ScaleReport


@dataclass(frozen=True)
class ValidateScaleRequest:
    """What to sweep, where, and what to set beside it."""

    target: str
    """md device, LV, block device, or a directory (fio then writes a file of its own there)."""
    axes: tuple[Axis, ...]
    """The swept options; the first is the curves' x axis."""
    plan: Plan | None = None
    """The plan the target was built from: the model's point goes beside each measured one."""
    mode: Literal["quick", "full"] = "quick"
    """Each point's timing, as the suite's."""
    destroy_data: str | None = None
    """Write workloads may erase this device although it holds a signature (it must be the target)."""
    report_dir: str | None = None
    """Keep each point's files in a sub-directory here, and scale.json beside them."""
    job_paths: tuple[str, ...] = ()
    """Job files to read and sweep; none: the suite, as one job file."""
    hosts: bool = False
    """Asked to run on other machines: refused, a sweep runs here."""
    baseline: bool = False
    """Asked to measure the member disks first: refused with a sweep."""


@dataclass(frozen=True)
class ValidateScaleOutcome:
    """Every point as measured, and the model's, with what the model rested on."""

    scale: ScaleReport
    jobs: tuple[JobFile, ...]
    """The job files swept (the suite as one job file without --job)."""
    plan: Plan | None
    """The plan predicted; None when nothing was compared (none given, or one of other storage)."""
    mismatch: tuple[str, ...]
    """Why the plan given does not describe the target; () when it may."""
    predictions: tuple[PointPrediction, ...]
    """The model at each point that ran, knees marked; () without a plan."""


def validate_scale_session(
    req: ValidateScaleRequest, on_event: Listener | None = None, cancel: threading.Event | None = None
) -> ValidateScaleOutcome:
    """Run the sweep as the request says; a guard that refuses raises before the first point."""
    from app.shared.planfile import load_job_file
    from runners.fio.jobs import FULL, QUICK
    from runners.validate.scale import predicted_points, validate_scale
    from runners.validate.shape import shape_of_plan

    if req.hosts or req.baseline:
        raise PlanError("--scale runs here, without --hosts or --baseline", "scale")
    emit = on_event or (lambda _e: None)
    plan, mismatch = plan_for_target(req.target, req.plan, emit)
    jobs = tuple(load_job_file(path) for path in req.job_paths) or (suite_job(plan),)

    def progressed(name: str, event: str, elapsed_s: float, figures: JobFigures | None) -> None:
        emit(WorkloadProgressed(name, event, elapsed_s, figures))

    scale = validate_scale(
        req.target,
        jobs,
        req.axes,
        report_dir=req.report_dir,
        timing=FULL if req.mode == "full" else QUICK,
        destroy_data=req.destroy_data,
        plan_shape=shape_of_plan(plan) if plan else None,
        on_progress=progressed,
        cancel=cancel,
    )
    preds = predicted_points(plan, scale, jobs) if plan else []
    return ValidateScaleOutcome(scale=scale, jobs=jobs, plan=plan, mismatch=mismatch, predictions=tuple(preds))


def suite_job(plan: Plan | None) -> JobFile:
    """The built-in suite as a job file whose sections run one after another, as predict --scale
    sweeps it without --job: given the plan's shape (full stripes in flight, 4 requests per disk)
    when there is a plan, else as the presets stand."""
    from planners.perf.predict import geometry_for_speed
    from planners.perf.scale import as_job, shaped
    from planners.perf.workloads import VALIDATION

    return as_job(shaped(plan, geometry_for_speed(plan), VALIDATION) if plan else VALIDATION)
