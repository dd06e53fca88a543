"""Run one fio job file: progress while it runs, SIGTERM-and-wait when stopped, partial results kept.

fio writes its JSON to a file of its own (it prints notes on stdout); with --status-interval
the file grows by one cumulative object a second, which is both the progress feed and, if
the run is cut short, the partial result. fio is always stopped with SIGTERM and waited for:
after a bare SIGKILL its I/O threads may keep issuing I/O to the device.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PodplanError
from runners.exec import MISSING, CommandError, spawn
from runners.fio.result import FioRun, last_document, objects, parse_output

GRACE_S = 10.0  # fio flushes its queues and writes its last JSON after SIGTERM; this is plenty


class FioOutcome(BaseModel):
    """How one fio run ended, with the figures it left."""

    model_config = ConfigDict(frozen=True)

    argv: tuple[str, ...] = Field(description="The command that ran.")
    result: FioRun | None = Field(description="Figures from fio's last complete JSON object; None if it wrote none.")
    partial: bool = Field(description="True if the run was stopped or failed before its end.")
    reason: str = Field(description="'' when it finished; else interrupted, timed out, or fio's complaint.")
    returncode: int | None = Field(description="fio's exit status (negative: killed by that signal).")
    elapsed_s: float = Field(description="Wall time from start to exit, in seconds.")
    stderr: str = Field(description="What fio printed on stderr.")


class FioMissing(PodplanError):
    """fio is not installed."""


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def _complaint(stderr: str, returncode: int | None) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    errs = [ln for ln in lines if "error" in ln.lower() or ln.startswith("fio:")]
    if errs or lines:
        return (errs or lines)[-1]
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"fio was killed by {name}"
    return f"fio exited with status {returncode}"


def run_fio(
    argv: Sequence[str],
    output_path: str,
    *,
    timeout_s: float,
    on_progress: Callable[[FioRun, float], None] | None = None,
    cancel: threading.Event | None = None,
    poll_s: float = 0.25,
) -> FioOutcome:
    """Run fio (argv from fio_jobs.fio_argv, writing JSON to output_path) to its end or until
    timeout, `cancel` or Ctrl+C; on_progress(figures so far, seconds elapsed) after each object."""
    argv = [str(a) for a in argv]
    try:
        proc = spawn(argv, grace=GRACE_S)
    except CommandError as exc:
        if exc.reason == MISSING:
            raise FioMissing(str(exc)) from None
        raise
    reason = ""
    seen = 0
    with proc:
        try:
            while proc.wait(poll_s) is None:
                seen = _progress(output_path, seen, proc.elapsed_s, on_progress)
                if cancel is not None and cancel.is_set():
                    reason = "interrupted"
                elif proc.elapsed_s > timeout_s:
                    reason = f"timed out after {timeout_s:g} s"
                if reason:
                    proc.stop(reason)
                    break
        except KeyboardInterrupt:
            reason = "interrupted"
            proc.stop(reason)
    elapsed, stderr = proc.elapsed_s, proc.stderr
    rc = proc.returncode
    if not reason and rc != 0:
        reason = _complaint(stderr, rc)
    text = _read(output_path)
    result = parse_output(text, finished=not reason)
    _keep_one_document(output_path, text)
    if result is not None and not reason and any(j.error for j in result.jobs):
        reason = _complaint(stderr, rc) if stderr.strip() else f"I/O error (errno {result.jobs[0].error})"
    return FioOutcome(
        argv=tuple(argv),
        result=result,
        partial=bool(reason),
        reason=reason,
        returncode=rc,
        elapsed_s=elapsed,
        stderr=stderr,
    )


def _keep_one_document(path: str, text: str) -> None:
    """The output file as fio writes it without --status-interval: its last object alone (the
    progress objects before it were for the run's progress, and each is a subset of the last).
    An output of one object is left as fio wrote it, with the server's log lines a client run
    writes around it (the pre-flight reads them)."""
    if len(objects(text)) < 2:
        return
    last = last_document(text)
    if last is None:
        return
    from runners.files import write_text

    write_text(path, last, force=True)


def _progress(path: str, seen: int, elapsed_s: float, on_progress: Callable[[FioRun, float], None] | None) -> int:
    if on_progress is None:
        return seen
    text = _read(path)
    if len(text) == seen:
        return seen
    figures = parse_output(text, finished=False)
    if figures is not None:
        on_progress(figures, elapsed_s)
    return len(text)
