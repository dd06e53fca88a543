"""Messages the TUI's parts send each other, named for what already happened."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

from planners.models import Plan
from planners.results import PlanResult

if TYPE_CHECKING:
    from app.usecases.disks import HostDisks
    from app.usecases.sweep import Sweep
    from app.usecases.validate import JobFigures, ValidateOutcome


@dataclass
class FormEdited(Message):
    """The user changed a field of the plan form; `values` is every field as shown."""

    values: dict[str, Any]
    field: str


@dataclass
class PlanComputed(Message):
    """The form describes a valid plan and its figures are ready."""

    plan: Plan
    result: PlanResult


@dataclass
class PlanRejected(Message):
    """The form describes a plan that cannot be built; `field` is the form field to blame ('' if none)."""

    message: str
    field: str


@dataclass
class PlanOpened(Message):
    """A plan file was read and validated."""

    plan: Plan
    path: Path
    identity: object = None
    """The file's FileIdentity as read (app.tui.saving)."""


@dataclass
class FileSaved(Message):
    """A plan or script was written to disk (atomically)."""

    path: Path
    what: str
    identity: object = None
    """A plan file's FileIdentity as written (app.tui.saving), None for other files."""


@dataclass
class FileFailed(Message):
    """Reading or writing a file failed; `message` is one line for the user."""

    message: str


@dataclass
class FioProgressed(Message):
    """fio reported on one workload of the validate suite.

    `event` is 'start', 'progress' or 'end'; `elapsed_s` is seconds into the workload;
    `figures` are fio's figures so far (None before it has any).
    """

    workload: str
    event: str
    elapsed_s: float
    figures: JobFigures | None


@dataclass
class ValidationFinished(Message):
    """The validate session ended, whole or stopped early (`outcome.report.stopped` says why).

    `outcome.rows` set each workload's measured figures beside the plan's prediction;
    `outcome.predicted` is False when there was no plan or no performance model to ask.
    """

    outcome: ValidateOutcome


@dataclass
class TargetMismatched(Message):
    """The current plan does not describe the validate target (`why`: each way); found before fio runs."""

    why: tuple[str, ...]


@dataclass
class ValidationFailed(Message):
    """The validate suite did not run (no fio, a bad target, a refused device); one line for the user."""

    message: str


@dataclass
class SweepComputed(Message):
    """Every layout of the plan's disks was computed and ranked, speed for `sweep.workload`."""

    sweep: Sweep


@dataclass
class SweepFailed(Message):
    """The layout sweep could not run; one line for the user."""

    message: str


@dataclass
class DisksRead(Message):
    """The machine's whole disks were listed, each with what uses it."""

    host: HostDisks


@dataclass
class DisksFailed(Message):
    """The disks could not be listed (no lsblk, no permission); one line for the user."""

    message: str
