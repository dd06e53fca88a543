"""The machine's disks (the TUI's disks screen): every whole disk with what uses it, and the plan a
choice of them makes. Reading them runs lsblk, blkid and reads /proc/mdstat; the plan is the
planners' own rule for disks as found."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from planners.models import Plan
from runners.host.disks import DetectedDisk as DetectedDisk
from runners.host.disks import HostDisks as HostDisks
from runners.host.disks import InventoryError as InventoryError


def read_disks(read: Callable[[], HostDisks] | None = None) -> HostDisks:
    """The machine's whole disks (`read`: another reader, as a test gives); InventoryError when lsblk
    cannot say, OSError when a file cannot be read."""
    from runners.host.disks import read_host_disks

    return (read or read_host_disks)()


def plan_from_chosen(chosen: Sequence[DetectedDisk]) -> Plan:
    """The plan the chosen disks make, on the example pod's choices (PlanError, e.g. for fewer than two)."""
    from planners.example import example_pod
    from planners.layouts.from_disks import plan_from_disks

    return plan_from_disks([d.found() for d in chosen], example_pod())
