"""A fresh btrfs as the real tools make it: mkfs.btrfs over loop devices, then what the kernel reports.

`btrfs filesystem show --raw` gives each device's allocated bytes, and statvfs on the mounted
filesystem what `df -B1` shows. The loop devices and their registration with the kernel's btrfs
device list are removed afterwards.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import NamedTuple

from runners.exec import run
from runners.probes.loopdev import mounted, sparse_loops

_DEVID = re.compile(r"devid\s+(\d+)\s+size\s+(\d+)\s+used\s+(\d+)\s+path\s+(\S+)")


class BtrfsMeasurement(NamedTuple):
    used: tuple[int, ...]  # bytes allocated to chunks on each device, in the order given to mkfs.btrfs
    df_size_bytes: int  # statvfs f_blocks x f_frsize
    df_available_bytes: int  # statvfs f_bavail x f_frsize


def parse_show(text: str, devices: Sequence[str]) -> tuple[int, ...]:
    """Each device's `used` bytes from `btrfs filesystem show --raw`, in the order of `devices`."""
    used = {path: int(u) for _, _, u, path in _DEVID.findall(text)}
    return tuple(used[d] for d in devices)


def mkfs_btrfs_argv(devices: Sequence[str], options: Sequence[str]) -> list[str]:
    return ["mkfs.btrfs", "-q", "-f", *options, *devices]


def measure(sizes: Sequence[int], options: Sequence[str], timeout: float = 120.0) -> BtrfsMeasurement:
    with sparse_loops(sizes) as devs:
        try:
            run(mkfs_btrfs_argv(devs, options), timeout=timeout)
            used = parse_show(run(["btrfs", "filesystem", "show", "--raw", devs[0]], timeout=timeout).stdout, devs)
            with mounted(devs[0], timeout=timeout) as mnt:
                st = os.statvfs(mnt)
            return BtrfsMeasurement(used, st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize)
        finally:
            for d in devs:
                run(["btrfs", "device", "scan", "--forget", d], timeout=timeout, check=False)
