"""A scaling sweep measured: the job files run once per point of the grid, each run behind the
same guards and steady-state rule as `validate`, with what each point cost in CPU.

Each point is a whole `validate` run of the job files with the swept options set, so a device
that vanishes, a write the guards refuse or Ctrl+C stop the sweep as they stop the suite; the
points not reached are listed as not run. With a report directory each point keeps its own
sub-directory (job files, fio's JSON, report.json) and scale.json holds the sweep.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from planners.hardware.disks import DiskPerf
from planners.models import Plan
from planners.perf.jobfile import JobFile
from planners.perf.scale import Axis, PointPrediction, grid, job_at, mark_knees, size_text
from runners.files import write_text
from runners.fio.jobs import ArrayShape, Timing
from runners.fio.result import JobFigures
from runners.validate.suite import ProgressFn, ValidateReport, validate

GB = 10**9
# Below this request size a run is counted per I/O as well as per byte: a small request's CPU
# goes to issuing and completing it, whatever its size (the per-byte figure then misleads).
SMALL_REQUEST = 64 * 1024


class PointReport(BaseModel):
    """One point of the sweep, as it ran."""

    model_config = ConfigDict(frozen=True)

    point: dict[str, int] = Field(description="The swept options (numjobs, iodepth: counts; bs: bytes).")
    report: ValidateReport | None = Field(None, description="The validate run at this point; None if not reached.")


class ScaleReport(BaseModel):
    """Every point of a measured sweep."""

    model_config = ConfigDict(frozen=True)

    target: str = Field(description="What was measured, as given.")
    axes: tuple[Axis, ...] = Field(description="The swept options; the first is the curves' x axis.")
    points: tuple[PointReport, ...] = Field(description="One per point of the grid, in the order they ran.")
    duration_s: float = Field(description="Wall time of the whole sweep, in seconds.")
    stopped: str = Field("", description="Why the sweep stopped before its last point ('' if it did not).")

    @property
    def partial(self) -> bool:
        return bool(self.stopped) or any(p.report is None or p.report.partial for p in self.points)


class CpuCost(BaseModel):
    """What moving the data cost fio's jobs in CPU, over the whole run."""

    model_config = ConfigDict(frozen=True)

    cpu_s: float = Field(description="User plus system CPU time of the jobs, in seconds.")
    s_per_gb: float | None = Field(description="CPU seconds per GB (10^9 bytes) moved; None if nothing moved.")
    s_per_k_ios: float | None = Field(
        description="CPU seconds per 1000 I/Os: at 1000 IOPS, this many cores are busy; None if no I/O completed."
    )
    small: bool = Field(description="Requests under 64 KiB: the per-I/O figure is the one to read.")


def cpu_cost(f: JobFigures | None, block_bytes: int) -> CpuCost | None:
    """fio's CPU time over the bytes and I/Os of the same whole run (not the steady window's rate)."""
    if f is None or f.cpu_s is None:
        return None
    return CpuCost(
        cpu_s=f.cpu_s,
        s_per_gb=f.cpu_s / (f.io_bytes / GB) if f.io_bytes else None,
        s_per_k_ios=f.cpu_s / (f.total_ios / 1000) if f.total_ios else None,
        small=block_bytes < SMALL_REQUEST,
    )


def point_dir(point: dict[str, int]) -> str:
    """'numjobs-48_bs-4k': a sub-directory name per point."""
    return "_".join(f"{k}-{size_text(v) if k == 'bs' else v}" for k, v in point.items())


def validate_scale(
    target: str,
    jobs: Sequence[JobFile],
    axes: Sequence[Axis],
    *,
    report_dir: str | None = None,
    timing: Timing | None = None,
    file_size: int | None = None,
    destroy_data: str | None = None,
    plan_shape: ArrayShape | None = None,
    on_progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> ScaleReport:
    """The job files at every point of the grid; raises GuardError as validate does (before any run)."""
    t0 = time.monotonic()
    points: list[PointReport] = []
    stopped = ""
    todo = grid(axes)
    for point in todo:
        if stopped or (cancel is not None and cancel.is_set()):
            stopped = stopped or "interrupted"
            points.append(PointReport(point=point))
            continue
        sub = os.path.join(report_dir, point_dir(point)) if report_dir else None
        report = validate(
            target,
            jobs=[job_at(jf, point) for jf in jobs],
            report_dir=sub,
            timing=timing,
            file_size=file_size,
            destroy_data=destroy_data,
            plan_shape=plan_shape,
            on_progress=_tagged(on_progress, point),
            cancel=cancel,
        )
        points.append(PointReport(point=point, report=report))
        stopped = report.stopped
    out = ScaleReport(
        target=target, axes=tuple(axes), points=tuple(points), duration_s=time.monotonic() - t0, stopped=stopped
    )
    if report_dir:
        write_text(os.path.join(report_dir, "scale.json"), out.model_dump_json(indent=2), force=True)
    return out


def _tagged(on_progress: ProgressFn | None, point: dict[str, int]) -> ProgressFn | None:
    """Progress names the point beside the section, so each point gets its own bar."""
    if on_progress is None:
        return None
    tag = " ".join(f"{k}={size_text(v) if k == 'bs' else v}" for k, v in point.items())

    def fn(name: str, event: str, elapsed: float, figures: JobFigures | None) -> None:
        on_progress(f"{name} {tag}", event, elapsed, figures)

    return fn


def predicted_points(
    plan: Plan, scale: ScaleReport, jobs: Sequence[JobFile], disk_override: DiskPerf | None = None
) -> list[PointPrediction]:
    """The model at each point as it ran (the job files as fio read them, on this target), knees and
    contention marked as `predict --scale` marks them."""
    from planners.perf.context import build_ctx
    from planners.perf.predict import geometry_for_speed
    from planners.perf.scale import contention
    from runners.validate.compare import load_predictions

    cores = build_ctx(plan, geometry_for_speed(plan)).cpu.cores
    out = []
    for p in scale.points:
        if p.report is None:
            continue
        preds = load_predictions(plan, p.report, disk_override=disk_override)
        # The sections as written (flushes and all), on the kind of target they ran on.
        written = {
            w.name: w.model_copy(update={"target": "file" if p.report.kind == "file" else "raw"})
            for jf in jobs
            for w in job_at(jf, p.point).workloads
        }
        for pred in preds:
            w = written.get(pred.workload)
            outside = pred.outside_model or (contention(w, plan.filesystem.type, cores) if w else "")
            out.append(PointPrediction(**{**pred.model_dump(), "outside_model": outside}, point=dict(p.point)))
    return mark_knees(out, scale.axes[0].key)
