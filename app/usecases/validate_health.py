"""`validate --health`: what smartctl says of every disk under a target, read-only and quick.

`validate --baseline` reads the same before its fio run, so a failing member is named beside a slow one.
"""

from __future__ import annotations

from dataclasses import dataclass

from planners.errors import PlanError
from planners.health import DiskHealth as DiskHealth
from planners.health import health_json as health_json


@dataclass(frozen=True)
class HealthOutcome:
    """Every disk under the target, in lsblk's order."""

    target: str
    disks: tuple[DiskHealth, ...]

    @property
    def failing(self) -> tuple[DiskHealth, ...]:
        return tuple(d for d in self.disks if d.failing)


def member_disks(target: str) -> tuple[str, ...]:
    """The whole disks under TARGET (an md array's or LV's members, or the disk it sits on)."""
    from runners.host.inventory import disks
    from runners.validate.health import disks_under

    found = disks_under(target, disks())
    if not found:
        raise PlanError(f"{target}: not a block device or a directory on one that lsblk knows")
    return found


def health_session(target: str) -> HealthOutcome:
    """Read every disk under TARGET with smartctl; a disk without SMART carries the reason."""
    from runners.validate.health import read_all

    return HealthOutcome(target, read_all(member_disks(target)))
