"""Messages the TUI's parts send each other, named for what already happened."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

from planners.models import Plan
from planners.results import PlanResult

if TYPE_CHECKING:
    from planners.layouts.sweep import Sweep
    from runners.fio.result import JobFigures
    from runners.host.disks import HostDisks
    from runners.validate.compare import SideBySide
    from runners.validate.suite import ValidateReport


class FormEdited(Message):
    """The user changed a field of the plan form; `values` is every field as shown."""

    def __init__(self, values: dict[str, Any], field: str) -> None:
        super().__init__()
        self.values = values
        self.field = field


class PlanComputed(Message):
    """The form describes a valid plan and its figures are ready."""

    def __init__(self, plan: Plan, result: PlanResult) -> None:
        super().__init__()
        self.plan = plan
        self.result = result


class PlanRejected(Message):
    """The form describes a plan that cannot be built; `field` is the form field to blame ('' if none)."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__()
        self.message = message
        self.field = field


class PlanOpened(Message):
    """A plan file was read and validated."""

    def __init__(self, plan: Plan, path: Path) -> None:
        super().__init__()
        self.plan = plan
        self.path = path


class FileSaved(Message):
    """A plan or script was written to disk (atomically)."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__()
        self.path = path
        self.what = what


class FileFailed(Message):
    """Reading or writing a file failed; `message` is one line for the user."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message


class FioProgressed(Message):
    """fio reported on one workload of the validate suite.

    `event` is 'start', 'progress' or 'end'; `elapsed_s` is seconds into the workload;
    `figures` are fio's figures so far (None before it has any).
    """

    def __init__(self, workload: str, event: str, elapsed_s: float, figures: JobFigures | None) -> None:
        super().__init__()
        self.workload = workload
        self.event = event
        self.elapsed_s = elapsed_s
        self.figures = figures


class ValidationFinished(Message):
    """The validate suite ended, whole or stopped early (`report.stopped` says why).

    `rows` set each workload's measured figures beside the plan's prediction; `predicted`
    is False when there was no plan or no performance model to ask.
    """

    def __init__(
        self, report: ValidateReport, rows: list[SideBySide], predicted: bool, mismatch: tuple[str, ...] = ()
    ) -> None:
        super().__init__()
        self.report = report
        self.rows = rows
        self.predicted = predicted
        self.mismatch = mismatch  # why the plan does not describe the target: then nothing is compared


class TargetMismatched(Message):
    """The current plan does not describe the validate target (`why`: each way); found before fio runs."""

    def __init__(self, why: tuple[str, ...]) -> None:
        super().__init__()
        self.why = why


class ValidationFailed(Message):
    """The validate suite did not run (no fio, a bad target, a refused device); one line for the user."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message


class SweepComputed(Message):
    """Every layout of the plan's disks was computed and ranked, speed for `sweep.workload`."""

    def __init__(self, sweep: Sweep) -> None:
        super().__init__()
        self.sweep = sweep


class SweepFailed(Message):
    """The layout sweep could not run; one line for the user."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message


class DisksRead(Message):
    """The machine's whole disks were listed, each with what uses it."""

    def __init__(self, host: HostDisks) -> None:
        super().__init__()
        self.host = host


class DisksFailed(Message):
    """The disks could not be listed (no lsblk, no permission); one line for the user."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message
