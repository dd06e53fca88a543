"""A validate session: the fio suite (or a job file's sections) on a built array, measured beside
the plan's prediction. `podplan validate` and the TUI's validate screen both run this one session,
so every input to the prediction (the plan checked against the target, this host's parity CPU
figures, the measured member disks, the conditions found on the array) is settled here, once.

Progress is reported as typed events (frozen dataclasses) to a callback: the command line prints
them, the TUI posts them to its screen from the worker thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from planners.errors import PlanError
from planners.hardware.disks import DiskPerf
from planners.health import DiskHealth
from planners.health import health_json as health_json
from planners.models import Plan
from planners.perf.jobfile import JobFile
from planners.perf.parity_log import CpuOrigin
from planners.perf.predict import WorkloadPrediction
from runners.fio.baseline import Baseline as Baseline
from runners.fio.result import JobFigures as JobFigures
from runners.validate.compare import SideBySide as SideBySide
from runners.validate.suite import ValidateReport as ValidateReport
from runners.validate.suite import validate


@dataclass(frozen=True)
class ValidateRequest:
    """What to measure and what to set beside it."""

    target: str
    """md device, LV, block device, or a directory (fio then writes a file of its own there)."""
    plan: Plan | None = None
    """The plan the target was built from: its prediction goes beside the figures, its stripe shapes the suite."""
    mode: Literal["quick", "full"] = "quick"
    """The suite's timing: about a minute, or longer runs with wider steady-state windows."""
    destroy_data: str | None = None
    """Write workloads may erase this device although it holds a signature (it must be the target)."""
    report_dir: str | None = None
    """Keep the job files, fio's JSON and report.json here."""
    jobs: tuple[JobFile, ...] = ()
    """Job files whose sections run instead of the suite; a refused section is not run."""
    job_paths: tuple[str, ...] = ()
    """Job files to read first (an unreadable one is one line), then run as `jobs`."""
    baseline: bool = False
    """First read SMART of every disk under the target, then every member disk of the md array or LV at
    once (read-only) and feed the model."""
    logs: bool = False
    """Keep fio's bandwidth, latency and IOPS logs (a line a second) in report_dir."""


# -- what the session reports while it runs ---------------------------------------------------------
@dataclass(frozen=True)
class PlanMismatched:
    """The plan does not describe the target: measured without a comparison (said before fio starts)."""

    target: str
    why: tuple[str, ...]


@dataclass(frozen=True)
class JobNoted:
    """A note on an option of a job file (ignored as it changes nothing that reaches the array)."""

    text: str


@dataclass(frozen=True)
class SectionNotRun:
    """A job file's section the model cannot honour: neither predicted nor run."""

    section: str
    reason: str


@dataclass(frozen=True)
class BaselineStarted:
    """The member disks are read at once, read-only."""

    members: tuple[str, ...]


@dataclass(frozen=True)
class BaselineSkipped:
    """The target is not an md array or LV whose members lsblk can see."""

    target: str


@dataclass(frozen=True)
class BaselineStopped:
    """The baseline ended early; its figures are partial."""

    reason: str


@dataclass(frozen=True)
class WorkloadProgressed:
    """fio said something of one workload: 'start', 'progress' (figures so far) or 'end'."""

    workload: str
    event: str
    elapsed_s: float
    figures: JobFigures | None


ValidateEvent = (
    PlanMismatched | JobNoted | SectionNotRun | BaselineStarted | BaselineSkipped | BaselineStopped | WorkloadProgressed
)


@dataclass(frozen=True)
class ValidateOutcome:
    """The measured report beside the prediction, with everything the prediction rested on."""

    report: ValidateReport
    jobs: tuple[JobFile, ...]
    """The job files run, with their refused sections."""
    rows: tuple[SideBySide, ...]
    """One per workload in the order it ran: measured, predicted, the difference and its likely reasons."""
    predictions: tuple[WorkloadPrediction, ...] | None
    """None when nothing was compared: no plan, or a plan of other storage."""
    plan: Plan | None
    """The plan as predicted (this host's parity figures filled in); None when nothing was compared."""
    cpu: CpuOrigin | None
    """Where the parity CPU figures came from."""
    mismatch: tuple[str, ...]
    """Why the plan given does not describe the target; () when it may."""
    baseline: Baseline | None
    disk_override: DiskPerf | None
    """The member disks' measured figures the model was fed, from the baseline."""
    health: tuple[DiskHealth, ...] = ()
    """SMART of every disk under the target, read with the baseline; () without one."""

    @property
    def predicted(self) -> bool:
        return self.predictions is not None

    @property
    def what(self) -> str:
        """What ran: the quick or full suite, or the job file's sections."""
        return what_ran(self.report, self.jobs)

    @property
    def parity_cpu(self) -> CpuOrigin | None:
        """Where the parity figures came from, where this host's CPU computes parity for the plan (md
        RAID4/5/6, btrfs raid5/6); None on a stack with no parity, where they say nothing."""
        from app.shared.host_cpu import computes_parity
        from planners.compute import compute

        if self.cpu is None or self.plan is None or self.predictions is None:
            return None
        return self.cpu if computes_parity(self.plan, compute(self.plan)) else None


Listener = Callable[[ValidateEvent], None]


def _ignore(_event: ValidateEvent) -> None:
    pass


def validate_session(
    req: ValidateRequest, on_event: Listener | None = None, cancel: threading.Event | None = None
) -> ValidateOutcome:
    """Measure the target as the request says and set the plan's prediction beside it.

    A guard that refuses, a plan that cannot be predicted or a missing program raises a
    PodplanError before or instead of the measurement; `cancel` stops fio and keeps what it measured.
    """
    from app.shared.planfile import load_job_file
    from runners.validate.compare import gather_conditions, load_predictions, side_by_side
    from runners.validate.shape import shape_of_plan

    emit = on_event or _ignore
    plan, mismatch = plan_for_target(req.target, req.plan, emit)
    jobs = req.jobs + tuple(load_job_file(path) for path in req.job_paths)
    _check_jobs(jobs, emit)
    base = perf = None
    health: tuple[DiskHealth, ...] = ()
    if req.baseline:
        health = health_under(req.target)
        base, perf = measure_baseline(req.target, plan, req.report_dir, emit)

    def progressed(name: str, event: str, elapsed_s: float, figures: JobFigures | None) -> None:
        emit(WorkloadProgressed(name, event, elapsed_s, figures))

    report = validate(
        req.target,
        mode=req.mode,
        destroy_data=req.destroy_data,
        report_dir=req.report_dir,
        plan_shape=shape_of_plan(plan) if plan else None,
        on_progress=progressed,
        cancel=cancel,
        jobs=list(jobs),
        logs=req.logs,
    )
    origin = None
    if plan:
        from app.shared.host_cpu import with_host_cpu

        # validate runs on the machine that holds the array: its own parity benchmark is the one that counts.
        plan, origin = with_host_cpu(plan)
    predictions = load_predictions(plan, report, disk_override=perf) if plan else None
    rows = side_by_side(
        report,
        predictions,
        gather_conditions(req.target, base.slow_disks if base else (), tuple(h.device for h in health if h.failing)),
    )
    if req.report_dir:
        from app.shared.validate_report import validate_doc, write_report

        write_report(req.report_dir, validate_doc(req.target, plan, report, rows, base, health, mismatch))
    return ValidateOutcome(
        report=report,
        jobs=jobs,
        rows=tuple(rows),
        predictions=None if predictions is None else tuple(predictions),
        plan=plan,
        cpu=origin,
        mismatch=mismatch,
        baseline=base,
        disk_override=perf,
        health=health,
    )


def plan_for_target(target: str, plan: Plan | None, emit: Listener) -> tuple[Plan | None, tuple[str, ...]]:
    """(the plan to set beside the figures, why the plan given does not describe the target).

    Said first, before a minute of fio: figures of other storage set beside a plan mean nothing,
    and that plan's stripe must not choose the block sizes either; the plan is then None."""
    from planners.lvm.volumes import one_volume_only
    from runners.validate.shape import plan_mismatch

    if plan is not None:
        one_volume_only(plan, "validate")
    mismatch = plan_mismatch(target, plan) if plan and os.path.exists(target) else ()
    if mismatch:
        emit(PlanMismatched(target, mismatch))
        return None, mismatch
    return plan, mismatch


def suite_runtime_s(mode: Literal["quick", "full"]) -> int:
    """How long one workload of the suite runs at most, in seconds: a progress bar's whole length."""
    from runners.fio.jobs import FULL, QUICK

    return (FULL if mode == "full" else QUICK).runtime_s


def destroy_refusal(target: str, destroy_data: str | None) -> str | None:
    """Why the destroy-data name stops the run before anything runs, as the runner's guard decides it
    (it compares devices, so a /dev/disk/by-id link names its disk); None when it does not."""
    from runners.validate.guard import GuardError
    from runners.validate.suite import destroy_allowed

    try:
        destroy_allowed(target, destroy_data)
    except GuardError as exc:
        return exc.message
    return None


def nothing_to_run(jobs: tuple[JobFile, ...]) -> str | None:
    """Why job files are refused whole: not one of their sections can be predicted; None otherwise."""
    if jobs and not any(jf.workloads for jf in jobs):
        return "no section of the job file can be predicted, so none is run"
    return None


def workload_names(jobs: tuple[JobFile, ...]) -> tuple[str, ...]:
    """The workloads a run will report, in order: the job files' sections, or the suite's."""
    from runners.fio.jobs import WORKLOADS

    return tuple(w.name for jf in jobs for w in jf.workloads) if jobs else WORKLOADS


def what_ran(report: ValidateReport, jobs: tuple[JobFile, ...] = ()) -> str:
    """The suite ('quick suite') or the job files given ("the job file's sections"), named as both
    front ends title a run: by what was asked, not by the names the sections happen to have."""
    return "the job file's sections" if jobs else f"{report.mode} suite"


def _check_jobs(jobs: tuple[JobFile, ...], emit: Listener) -> None:
    """Each job file's notes and refused sections said; none of them predictable is refused whole."""
    for note in (n for jf in jobs for n in jf.notes):
        emit(JobNoted(note))
    for r in (r for jf in jobs for r in jf.refused):
        emit(SectionNotRun(r.section, r.reason))
    if why := nothing_to_run(jobs):
        raise PlanError(why + " (each is listed above)")


def measure_baseline(
    target: str, plan: Plan | None, report_dir: str | None, emit: Listener
) -> tuple[Baseline | None, DiskPerf | None]:
    """Members of the md array or LV under TARGET, measured read-only; their figures for the model."""
    from runners.fio.baseline import disk_perf_from, members_of, plan_preset, run_baseline
    from runners.host.inventory import disks

    members = members_of(target, disks())
    if not members:
        emit(BaselineSkipped(target))
        return None, None
    emit(BaselineStarted(tuple(members)))
    base = run_baseline(members, report_dir=report_dir)
    if base.partial:
        emit(BaselineStopped(base.reason))
    return base, disk_perf_from(base, plan_preset(plan)) if plan else None


def health_under(target: str) -> tuple[DiskHealth, ...]:
    """SMART of every disk under TARGET (its members, or the disk it sits on); () when lsblk does not know it."""
    from runners.host.inventory import disks
    from runners.validate.health import disks_under, read_all

    return read_all(disks_under(target, disks()) or ())
