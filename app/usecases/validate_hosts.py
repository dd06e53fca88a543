"""A validate session on several machines at once (`podplan validate --hosts`): the same suite on
each through `fio --server`, each host's figures beside the plan's prediction.

The prediction takes the plan's own parity CPU figures (or its preset): this host's kernel log says
nothing of the machines measured.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from app.usecases.validate import WorkloadProgressed
from planners.models import Plan
from planners.perf.predict import WorkloadPrediction
from runners.fio.result import JobFigures
from runners.validate.compare import SideBySide
from runners.validate.hosts import HostReport, HostsReport


@dataclass(frozen=True)
class HostsRequest:
    target: str
    """The device or directory on every host, as given."""
    hosts: str
    """H1[:PORT],H2...: the machines, each running `fio --server` (port 8765 unless given)."""
    plan: Plan | None = None
    mode: Literal["quick", "full"] = "quick"
    destroy_data: str | None = None
    report_dir: str | None = None
    buffered: bool = False
    """Buffered I/O on every host, for filesystems that refuse O_DIRECT."""
    follow: bool = True
    """Report fio's progress while it runs (False: only the notes)."""


@dataclass(frozen=True)
class HostNoted:
    """One line about a host: skipped, unreachable, or what it said before the suite."""

    text: str


@dataclass(frozen=True)
class RemoteDiskUnguarded:
    """A device on remote hosts: podplan cannot see whether it holds data, so writes are refused."""

    target: str


HostsEvent = WorkloadProgressed | HostNoted | RemoteDiskUnguarded


@dataclass(frozen=True)
class HostResult:
    host: HostReport
    predictions: tuple[WorkloadPrediction, ...] | None
    rows: tuple[SideBySide, ...]


@dataclass(frozen=True)
class HostsOutcome:
    report: HostsReport
    results: tuple[HostResult, ...]
    """Per host, in the order given."""


def validate_hosts_session(req: HostsRequest, on_event: Callable[[HostsEvent], None] | None = None) -> HostsOutcome:
    from runners.validate.compare import load_predictions, side_by_side
    from runners.validate.hosts import parse_hosts, validate_hosts
    from runners.validate.shape import shape_of_plan

    def emit(event: HostsEvent) -> None:
        if on_event is not None:
            on_event(event)

    def progressed(name: str, event: str, elapsed_s: float, figures: JobFigures | None) -> None:
        emit(WorkloadProgressed(name, event, elapsed_s, figures))

    hs = parse_hosts(req.hosts)
    if req.target.startswith("/dev/") and req.destroy_data is None:
        emit(RemoteDiskUnguarded(req.target))
    multi = validate_hosts(
        req.target,
        hs,
        mode=req.mode,
        destroy_data=req.destroy_data,
        report_dir=req.report_dir,
        plan_shape=shape_of_plan(req.plan) if req.plan else None,
        direct=not req.buffered,
        on_progress=progressed if req.follow else None,
        on_note=lambda line: emit(HostNoted(line)),
    )
    results = []
    for h in multi.hosts:
        preds = load_predictions(req.plan, h.report) if req.plan and h.report else None
        rows = side_by_side(h.report, preds) if h.report else []
        results.append(HostResult(h, None if preds is None else tuple(preds), tuple(rows)))
    return HostsOutcome(multi, tuple(results))
