"""SMART health of the disks under a target, read with `smartctl -j -x` (read-only).

The disks are the members an md array or LV stands on, or the disk a plain device, partition or
mounted directory sits on, found in lsblk's tree. smartctl's exit status is a bit field that is
non-zero on a healthy disk with an old error in its log, so it never decides: its JSON does.
"""

from __future__ import annotations

from collections.abc import Sequence

from planners.health import DiskHealth, parse_smartctl
from runners.exec import CommandError, run
from runners.fio.baseline import node_of, parents_of
from runners.host.inventory import DiskInfo

SMARTCTL_TIMEOUT_S = 120.0  # a sleeping disk spins up first; -x reads several logs


def smartctl_argv(device: str) -> list[str]:
    """The command that reads everything smartctl knows of a device, as JSON."""
    return ["smartctl", "-j", "-x", device]


def disks_under(target: str, devices: Sequence[DiskInfo]) -> tuple[str, ...] | None:
    """The whole disks at the bottom of TARGET's stack (the target itself when nothing is under it);
    None when lsblk does not know the target."""
    node = node_of(target, devices)
    if node is None:
        return None
    parents = parents_of(devices)
    leaves: list[str] = []

    def down(d: DiskInfo) -> None:
        ups = parents.get(d.name, [])
        if not ups and d.path not in leaves:
            leaves.append(d.path)
        for up in ups:
            down(up)

    down(node)
    return tuple(leaves)


def read_health(device: str) -> DiskHealth:
    """What smartctl says of one device; a device without SMART, or no smartctl, is a reason, not an error."""
    try:
        out = run(smartctl_argv(device), check=False, timeout=SMARTCTL_TIMEOUT_S)
    except CommandError as exc:
        return DiskHealth(device=device, smart=False, why_not=str(exc))
    return parse_smartctl(device, out.stdout)


def read_all(devices: Sequence[str]) -> tuple[DiskHealth, ...]:
    return tuple(read_health(d) for d in devices)
