"""The validation suite: four fio workloads on a device or a directory, guarded, with a report.

Job files are written to the report directory before fio runs, beside the JSON fio writes,
so the report holds exactly what ran. On a directory the suite uses one file of its own,
removed in `finally` whatever happens (Ctrl+C, fio failing, the device vanishing).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from planners.perf.jobfile import JobFile
from planners.perf.workloads import Workload as ModelWorkload
from runners.exec import not_found, which
from runners.files import create_numbered, make_run_dir, write_text
from runners.fio.jobs import (
    FULL,
    QUICK,
    WORKLOADS,
    ArrayShape,
    FioWorkload,
    Target,
    Timing,
    WorkloadName,
    fio_argv,
    suite,
    user_phase,
    user_workload,
    with_logs,
)
from runners.fio.result import JobFigures
from runners.fio.run import FioMissing, run_fio
from runners.validate.guard import GuardError, check_destroy_flag, inspect, write_refusal
from runners.validate.shape import file_size_for, measured_shape, o_direct_works

MiB = 1024**2
Status = Literal["done", "partial", "skipped", "failed"]
# Room past the workload's own runtime for fio to start, lay a file out and report.
STARTUP_ALLOWANCE_S = 60.0


class WorkloadReport(BaseModel):
    """One workload: how it ended and what it measured."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="seq-read, seq-write, rand-read-4k, rand-write-4k, or a user job's section.")
    status: Status = Field(description="done, partial (stopped early: figures so far), skipped, failed.")
    reason: str = Field("", description="Why it is not done, one sentence.")
    block_bytes: int = Field(description="I/O size, in bytes.")
    in_flight: int = Field(description="I/Os outstanding over all jobs, count.")
    figures: JobFigures | None = Field(None, description="fio's figures; None if it produced none.")
    job_file: str = Field(description="The job file's text, exactly as fio read it.")
    elapsed_s: float = Field(0.0, description="Wall time of the fio run, in seconds.")
    run: str = Field(
        "",
        description="The fio job file it ran in with other sections, at the same time as "
        "they did (the sections of a job file without a stonewall between "
        "them); '' when it ran alone.",
    )


class ValidateReport(BaseModel):
    """The whole suite on one target."""

    model_config = ConfigDict(frozen=True)

    target: str = Field(description="What was measured: device or directory, as given.")
    kind: Literal["device", "file"] = Field(description="device, or file (a file inside the directory).")
    mode: Literal["quick", "full"] = Field(description="quick or full suite.")
    size_bytes: int = Field(description="Bytes the workloads covered, in bytes.")
    shape: ArrayShape = Field(description="Stripe and disk count the job files were sized for.")
    direct: bool = Field(description="True if the I/O bypassed the page cache.")
    workloads: tuple[WorkloadReport, ...] = Field(description="The workloads, in the order they ran.")
    duration_s: float = Field(description="Wall time of the whole suite, in seconds.")
    partial: bool = Field(description="True if any workload was stopped early or failed.")
    stopped: str = Field("", description="Why the suite stopped before its end ('' if it did not).")
    grouping: str = Field(
        "",
        description="How the job files' sections were grouped to run at once, one line "
        "('' for the suite, whose workloads run one after another).",
    )

    def workload(self, name: str) -> WorkloadReport | None:
        return next((w for w in self.workloads if w.name == name), None)


ProgressFn = Callable[[str, str, float, JobFigures | None], None]
"""(workload, event 'start'|'progress'|'end', seconds into the workload, figures so far)."""


@contextlib.contextmanager
def _report_dir(path: str | None) -> Iterator[str]:
    if path:
        # Made here when absent; the command line has already refused one that holds a former run's
        # files without --force. A link is refused either way.
        yield str(make_run_dir(path, reuse=True))
        return
    tmp = tempfile.mkdtemp(prefix="podplan-validate-")
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _resolve(
    target: str, file_size: int | None, destroy_data: str | None, plan_shape: ArrayShape | None
) -> tuple[Target, ArrayShape, str | None]:
    """(fio target, shape, why writes are refused or None)."""
    try:
        os.stat(target)
    except PermissionError:
        raise GuardError(f"{target}: permission denied (run as root or join the disk group)") from None
    except OSError:
        raise GuardError(f"{target}: no such device or directory") from None
    if os.path.isdir(target):
        destroy_allowed(target, destroy_data)
        path = os.path.join(os.path.abspath(target), f".podplan-fio-{os.getpid()}.dat")
        size = file_size or file_size_for(target)
        direct = o_direct_works(target)
        shape = measured_shape(os.stat(target).st_dev, plan_shape)
        return Target(path=path, kind="file", size_bytes=size, direct=direct), shape, None
    destroy_ok = destroy_allowed(target, destroy_data)
    state = inspect(target)
    if state.size_bytes == 0:
        raise GuardError(f"{target}: zero-sized device (detached or empty)")
    shape = measured_shape(os.stat(target).st_rdev, plan_shape)
    return (
        Target(path=target, kind="device", size_bytes=state.size_bytes, direct=True),
        shape,
        write_refusal(state, destroy_ok),
    )


def destroy_allowed(target: str, destroy_data: str | None) -> bool:
    """True if destroy_data names the target device itself (the device, whatever link names it);
    GuardError if it names anything else, or the target is a directory."""
    if destroy_data is not None and os.path.isdir(target):
        raise GuardError(f"--destroy-data names a device, but {target} is a directory; nothing was run")
    return check_destroy_flag(target, destroy_data)


def _device_gone(target: Target) -> str | None:
    if target.kind != "device":
        return None
    try:
        with open(target.path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
    except OSError as exc:
        return f"{target.path} vanished ({exc.strerror})"
    if size != target.size_bytes:
        return f"{target.path} vanished or changed size ({size} bytes, was {target.size_bytes})"
    return None


def validate(
    target: str,
    *,
    mode: Literal["quick", "full"] = "quick",
    destroy_data: str | None = None,
    report_dir: str | None = None,
    plan_shape: ArrayShape | None = None,
    timing: Timing | None = None,
    file_size: int | None = None,
    names: tuple[WorkloadName, ...] = WORKLOADS,
    on_progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    jobs: Sequence[JobFile] = (),
    logs: bool = False,
) -> ValidateReport:
    """Run the suite on `target` (device or directory), or the sections of a user's job files
    (`jobs`) in its place, behind the same guards: the sections fio would run at once (no stonewall
    between them) in one fio run, each group after the last; `logs`: fio's bandwidth, latency and IOPS
    logs kept beside each run's output. Raises GuardError for what a user can fix."""
    if which("fio") is None:
        raise GuardError(not_found("fio"))
    timing = timing or (QUICK if mode == "quick" else FULL)
    fio_target, shape, refusal = _resolve(target, file_size, destroy_data, plan_shape)
    phases = (
        [list(p) for jf in jobs for p in job_phases(jf)]
        if jobs
        else [[w] for w in suite(fio_target, shape, timing, names)]
    )

    def alone(w):
        return user_workload(w, fio_target, timing) if jobs else w

    t0 = time.monotonic()
    reports: list[WorkloadReport] = []
    stopped = ""
    with _report_dir(report_dir) as out:
        try:
            for phase in phases:
                refused = {w.name for w in phase if w.writes and refusal and not stopped}
                # A section fio would run without moving a byte (its reason is the prediction's) is not run.
                idle = {
                    w.name: f"not run: {w.moves_nothing}"
                    for w in phase
                    if isinstance(w, ModelWorkload) and w.moves_nothing
                }
                run = [w for w in phase if w.name not in refused and w.name not in idle]
                gone = _device_gone(fio_target) if run and not stopped else None
                stopped = stopped or gone or ""
                ran: dict[str, WorkloadReport] = {}
                if stopped:
                    ran = {w.name: _skipped(alone(w), f"not run: {stopped}") for w in run}
                elif run:
                    # A job file's phases hold its own workloads; the suite's, fio's ready-made ones.
                    together = (
                        user_phase(cast("list[ModelWorkload]", run), fio_target, timing)
                        if jobs
                        else tuple(cast("list[FioWorkload]", run))
                    )
                    ran = {r.name: r for r in _run_together(together, out, timing, on_progress, cancel, logs=logs)}
                reports += [
                    ran[w.name] if w.name in ran else _skipped(alone(w), idle.get(w.name) or refusal or "")
                    for w in phase
                ]
                bad = [r for r in ran.values() if r.status in ("partial", "failed")]
                if bad:
                    stopped = _device_gone(fio_target) or bad[0].reason
        finally:
            if fio_target.kind == "file":
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(fio_target.path)
        report = ValidateReport(
            target=target,
            kind=fio_target.kind,
            mode=mode,
            size_bytes=fio_target.size_bytes,
            shape=shape,
            direct=fio_target.direct,
            workloads=tuple(reports),
            duration_s=time.monotonic() - t0,
            partial=any(r.status in ("partial", "failed") for r in reports),
            stopped=stopped,
            grouping="; ".join(jf.grouping for jf in jobs if jf.grouping)
            if len(jobs) < 2
            else " | ".join(f"file {i}: {jf.grouping}" for i, jf in enumerate(jobs, 1) if jf.grouping),
        )
        if report_dir:
            write_text(os.path.join(out, "report.json"), report.model_dump_json(indent=2), force=True)
    return report


def job_phases(jf: JobFile) -> list[list[ModelWorkload]]:
    """The sections of a job file in the groups fio runs at once (planners.perf.jobfile's phases); a
    refused section is not run, and a group left with none is dropped."""
    left = list(jf.workloads)
    out = []
    for phase in jf.phases:
        group = []
        for name in phase.sections:
            w = next((w for w in left if w.name == name), None)
            if w is not None:
                left.remove(w)
                group.append(w)
        out += [group] if group else []
    return out


def job_files(out: str, text: str, stem: str = "job") -> tuple[str, str]:
    """(job file, fio's output file) in the run directory, named by index (job-01.fio and
    job-01.json): a section's name comes from the user's job file, and `[../../etc/x]` is a valid
    one. The job file is written now; the output's name is cleared (a link planted there is
    removed, not followed) for fio to create."""
    job_path = create_numbered(out, stem, ".fio", text)
    json_path = job_path.removesuffix(".fio") + ".json"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(json_path)
    return job_path, json_path


def _skipped(w: FioWorkload, reason: str) -> WorkloadReport:
    return WorkloadReport(
        name=w.name,
        status="skipped",
        reason=reason,
        block_bytes=w.block_bytes,
        in_flight=w.in_flight,
        job_file=w.job.text,
    )


def _run_together(
    ws: Sequence[FioWorkload],
    out: str,
    timing: Timing,
    on_progress: ProgressFn | None,
    cancel: threading.Event | None,
    client: tuple[str, ...] = (),
    *,
    logs: bool = False,
) -> list[WorkloadReport]:
    """One fio run of the job file the workloads share (one workload, or sections that run at once):
    a report per workload, from fio's reporting group of that name."""
    job = ws[0].job
    job_path, json_path = job_files(out, job.text)
    if logs:
        # named after the run's index, as its output is (job-01_bw.1.log, ...): the job file written
        # again with them, so it still holds exactly what fio ran
        job = with_logs(job, job_path.removesuffix(".fio"))
        write_text(job_path, job.text, force=True)
    if on_progress:
        for w in ws:
            on_progress(w.name, "start", 0.0, None)

    def mine(run, name: str) -> JobFigures | None:
        return (
            next((j for j in run.jobs if j.name == name), None) if len(ws) > 1 else (run.jobs[0] if run.jobs else None)
        )

    def progress(run, elapsed: float) -> None:
        for w in ws:
            figures = mine(run, w.name)
            if on_progress and figures is not None:
                on_progress(w.name, "progress", elapsed, figures)

    try:
        outcome = run_fio(
            fio_argv(job_path, json_path, client=client),
            json_path,
            on_progress=progress,
            cancel=cancel,
            timeout_s=timing.runtime_s + STARTUP_ALLOWANCE_S,
        )
    except FioMissing as exc:
        raise GuardError(str(exc)) from None
    reports = []
    for w in ws:
        figures = mine(outcome.result, w.name) if outcome.result else None
        if not outcome.partial:
            status: Status = "done"
        else:
            status = "partial" if figures is not None and figures.io_bytes > 0 else "failed"
        if on_progress:
            on_progress(w.name, "end", outcome.elapsed_s, figures)
        reports.append(
            WorkloadReport(
                name=w.name,
                status=status,
                reason=outcome.reason,
                block_bytes=w.block_bytes,
                in_flight=w.in_flight,
                figures=figures,
                job_file=job.text,
                elapsed_s=outcome.elapsed_s,
                run=job.name if len(ws) > 1 else "",
            )
        )
    return reports


def _run_one(
    w: FioWorkload,
    out: str,
    timing: Timing,
    on_progress: ProgressFn | None,
    cancel: threading.Event | None,
    client: tuple[str, ...] = (),
) -> WorkloadReport:
    return _run_together([w], out, timing, on_progress, cancel, client)[0]
