"""Messages the TUI's parts send each other, named for what already happened."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.message import Message

from planners.models import Plan
from planners.results import PlanResult


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
