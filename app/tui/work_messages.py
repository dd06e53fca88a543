"""Messages of the screens that run work in a thread (validate, the sweep, the disk list), named for
what already happened. Apart from app.tui.messages: these screens are imported when first opened,
and a message class costs its dataclass's making at import, before the first paint if it were there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from app.usecases.disks import HostDisks
    from app.usecases.sweep import Sweep
    from app.usecases.validate import JobFigures, ValidateOutcome


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
