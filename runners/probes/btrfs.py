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

from runners.exec import CommandError, run
from runners.probes.loopdev import mounted, sparse_loops

_DEVID = re.compile(r"devid\s+(\d+)\s+size\s+(\d+)\s+used\s+(\d+)\s+path\s+(\S+)")


_FREE_ESTIMATED = re.compile(r"^\s*Free \(estimated\):\s+(\d+)", re.M)


class BtrfsMeasurement(NamedTuple):
    used: tuple[int, ...]  # bytes allocated to chunks on each device, in the order given to mkfs.btrfs
    df_size_bytes: int  # statvfs f_blocks x f_frsize
    df_available_bytes: int  # statvfs f_bavail x f_frsize
    free_estimated_bytes: int | None  # `btrfs filesystem usage -b` Free (estimated)


def parse_devices(text: str) -> dict[str, tuple[int, int]]:
    """{path: (size, used)} of each device in `btrfs filesystem show --raw`, bytes."""
    return {path: (int(size), int(used)) for _, size, used, path in _DEVID.findall(text)}


def parse_free_estimated(text: str) -> int | None:
    """`btrfs filesystem usage -b`'s "Free (estimated)" in bytes; None if the report has none."""
    m = _FREE_ESTIMATED.search(text)
    return int(m.group(1)) if m else None


def parse_show(text: str, devices: Sequence[str]) -> tuple[int, ...]:
    """Each device's `used` bytes from `btrfs filesystem show --raw`, in the order of `devices`."""
    found = parse_devices(text)
    return tuple(found[d][1] for d in devices)


def mkfs_btrfs_argv(devices: Sequence[str], options: Sequence[str]) -> list[str]:
    return ["mkfs.btrfs", "-q", "-f", *options, *devices]


def measure(sizes: Sequence[int], options: Sequence[str], timeout: float = 120.0) -> BtrfsMeasurement:
    with sparse_loops(sizes) as devs:
        try:
            run(mkfs_btrfs_argv(devs, options), timeout=timeout)
            used = parse_show(run(["btrfs", "filesystem", "show", "--raw", devs[0]], timeout=timeout).stdout, devs)
            with mounted(devs[0], timeout=timeout) as mnt:
                return _measured(mnt, devs, timeout)._replace(used=used)
        finally:
            for d in devs:
                run(["btrfs", "device", "scan", "--forget", d], timeout=timeout, check=False)


def _measured(mnt: str, devs: Sequence[str], timeout: float) -> BtrfsMeasurement:
    st = os.statvfs(mnt)
    usage = run(["btrfs", "filesystem", "usage", "-b", mnt], timeout=timeout).stdout
    used = parse_show(run(["btrfs", "filesystem", "show", "--raw", mnt], timeout=timeout).stdout, devs)
    return BtrfsMeasurement(used, st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize, parse_free_estimated(usage))


def measure_growth(
    sizes: Sequence[int],
    added: Sequence[int],
    options: Sequence[str],
    balances: Sequence[Sequence[str]],
    timeout: float = 300.0,
    stored: int = 0,
) -> tuple[BtrfsMeasurement, BtrfsMeasurement]:
    """A fresh btrfs over `sizes`, then `btrfs device add` of `added` and `btrfs balance start FILTERS...` for each
    filter list of `balances`, as a grow script does: what it reports before and after (devices in mkfs then
    add order). `stored` bytes of data are written (and synced) after the first figures and before the disks
    are added, as a filesystem in use holds data: the kernel treats a balance of one that holds none apart
    (see planners.grow.btrfs)."""
    with sparse_loops([*sizes, *added]) as devs:
        old, new = devs[: len(sizes)], devs[len(sizes) :]
        try:
            run(mkfs_btrfs_argv(old, options), timeout=timeout)
            run(["btrfs", "device", "scan", *old], timeout=timeout)
            with mounted(old[0], timeout=timeout) as mnt:
                before = _measured(mnt, old, timeout)
                if stored:
                    with open(os.path.join(mnt, "stored"), "wb") as fh:
                        fh.write(b"\x5a" * stored)
                        os.fsync(fh.fileno())
                run(["btrfs", "device", "add", "-f", "-K", *new, mnt], timeout=timeout)
                for filters in balances:
                    run(["btrfs", "balance", "start", *filters, mnt], timeout=timeout)
                return before, _measured(mnt, devs, timeout)
        finally:
            for d in devs:
                run(["btrfs", "device", "scan", "--forget", d], timeout=timeout, check=False)


# The fill podplan's fits figure models: files of 1 GiB reserved with fallocate (no data written, so no
# checksums and little metadata) until ENOSPC, then files of half that size, and so on down to 1 MiB.
FILL_FIRST = 1 << 30
FILL_LAST = 1 << 20


class FillMeasurement(NamedTuple):
    stored_bytes: int  # the bytes of every file fallocate reserved before ENOSPC at each size
    files: int  # how many files that took
    unallocated: tuple[int, ...]  # device bytes no chunk holds after the fill, in the order given to mkfs.btrfs
    df_available_bytes: int  # statvfs f_bavail x f_frsize after the fill


def fallocate_argv(path: str, size: int) -> list[str]:
    return ["fallocate", "-l", str(size), path]


def fill(mnt: str, devs: Sequence[str], timeout: float = 60.0) -> FillMeasurement:
    """Fill a mounted btrfs to ENOSPC with fallocate, largest files first (FILL_FIRST halving to FILL_LAST)."""
    stored = files = 0
    size = FILL_FIRST
    while size >= FILL_LAST:
        path = os.path.join(mnt, f"f{files}")
        try:
            run(fallocate_argv(path, size), timeout=timeout)
        except CommandError as exc:
            if "No space left" not in exc.stderr:
                raise
            os.unlink(path)
            size //= 2
            continue
        stored += size
        files += 1
    run(["btrfs", "filesystem", "sync", mnt], timeout=timeout)
    found = parse_devices(run(["btrfs", "filesystem", "show", "--raw", mnt], timeout=timeout).stdout)
    st = os.statvfs(mnt)
    return FillMeasurement(stored, files, tuple(found[d][0] - found[d][1] for d in devs), st.f_bavail * st.f_frsize)


def measure_fill(sizes: Sequence[int], options: Sequence[str], timeout: float = 300.0) -> FillMeasurement:
    """mkfs.btrfs over loop devices of `sizes`, mount, and `fill` it."""
    with sparse_loops(sizes) as devs:
        try:
            run(mkfs_btrfs_argv(devs, options), timeout=timeout)
            with mounted(devs[0], timeout=timeout) as mnt:
                return fill(mnt, devs)
        finally:
            for d in devs:
                run(["btrfs", "device", "scan", "--forget", d], timeout=timeout, check=False)
