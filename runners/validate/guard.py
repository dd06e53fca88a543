"""May podplan write to this block device? The guard in front of every write workload.

A write workload on a raw device destroys what is on it. It runs only if the device holds
no signature (filesystem, RAID member, LVM PV, partition table), is not mounted (nor any
of its partitions), is not a swap area and is not held by md or device-mapper -- or, for
the signature alone, if the user names that very device with --destroy-data. A mounted or
held device is never written, whatever the flags: the fix there is to unmount or stop it.
"""

from __future__ import annotations

import errno
import json
import os
import stat

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PodplanError
from runners.exec import CommandError, run


class GuardError(PodplanError):
    """The target or a flag is wrong in a way the user can fix; the message is one line."""


class DeviceState(BaseModel):
    """What is on and around a block device, as far as writing to it is concerned."""

    model_config = ConfigDict(frozen=True)

    path: str = Field(description="The path as given.")
    name: str = Field(description="Kernel name, e.g. loop3, md0, dm-1.")
    rdev: tuple[int, int] = Field(description="(major, minor) of the device.")
    size_bytes: int = Field(description="Device size, in bytes.")
    signatures: tuple[str, ...] = Field(description="Signatures wipefs finds, 'TYPE at OFFSET' each.")
    mounts: tuple[str, ...] = Field(description="Mount points of the device or its partitions.")
    holders: tuple[str, ...] = Field(description="Kernel devices holding it or its partitions (md, dm).")
    swap: bool = Field(description="True if it (or a partition) is an active swap area.")
    exclusive_busy: bool = Field(description="True if an exclusive open failed with EBUSY: someone claims it.")


def block_rdev(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise GuardError(f"{path}: no such device") from None
    except PermissionError:
        raise GuardError(f"{path}: permission denied (run as root or join the disk group)") from None
    if not stat.S_ISBLK(st.st_mode):
        raise GuardError(f"{path}: not a block device")
    return os.major(st.st_rdev), os.minor(st.st_rdev)


def sysfs_dir(rdev: tuple[int, int]) -> str:
    return os.path.realpath(f"/sys/dev/block/{rdev[0]}:{rdev[1]}")


def partitions(sysdir: str) -> list[str]:
    """sysfs directories of the device's partitions."""
    name = os.path.basename(sysdir)
    try:
        return [
            os.path.join(sysdir, e)
            for e in sorted(os.listdir(sysdir))
            if e.startswith(name) and os.path.exists(os.path.join(sysdir, e, "partition"))
        ]
    except OSError:
        return []


def _dev_numbers(sysdir: str) -> tuple[int, int] | None:
    try:
        with open(os.path.join(sysdir, "dev")) as f:
            major, minor = f.read().strip().split(":")
        return int(major), int(minor)
    except (OSError, ValueError):
        return None


def parse_mountinfo(text: str) -> dict[tuple[int, int], list[str]]:
    """/proc/self/mountinfo -> {(major, minor): [mount points]}."""
    out: dict[tuple[int, int], list[str]] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 5 or ":" not in parts[2]:
            continue
        major, minor = parts[2].split(":", 1)
        # Mount points escape spaces and the like as octal (\040).
        point = parts[4].encode().decode("unicode_escape")
        out.setdefault((int(major), int(minor)), []).append(point)
    return out


def parse_wipefs(text: str) -> tuple[str, ...]:
    """`wipefs --no-act --json DEV` -> ('ext4 at 0x438', ...)."""
    if not text.strip():
        return ()
    sigs = json.loads(text).get("signatures", [])
    return tuple(f"{s.get('type', '?')} at {s.get('offset', '?')}" for s in sigs)


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _exclusive_busy(path: str) -> bool:
    # O_EXCL on a block device fails with EBUSY when a filesystem, md or dm has claimed it:
    # the kernel's own answer, which also covers users the other checks do not know.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_EXCL)
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            return True
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise GuardError(f"{path}: permission denied (run as root or join the disk group)") from None
        raise GuardError(f"{path}: cannot open ({exc.strerror})") from None
    os.close(fd)
    return False


def inspect(path: str) -> DeviceState:
    """Look at a block device: signatures, mounts, holders, swap, exclusive claim."""
    rdev = block_rdev(path)
    sysdir = sysfs_dir(rdev)
    parts = partitions(sysdir)
    numbers = {rdev, *(n for n in (_dev_numbers(p) for p in parts) if n)}
    mounts = parse_mountinfo(_read("/proc/self/mountinfo"))
    mounted = tuple(m for n in sorted(numbers) for m in mounts.get(n, []))
    holders = tuple(sorted({h for d in (sysdir, *parts) for h in listdir_or_empty(os.path.join(d, "holders"))}))
    real = os.path.realpath(path)
    swaps = {os.path.realpath(ln.split()[0]) for ln in _read("/proc/swaps").splitlines()[1:] if ln.strip()}
    names = {real, *(f"/dev/{os.path.basename(p)}" for p in parts)}
    try:
        sigs = parse_wipefs(run(["wipefs", "--no-act", "--json", path], timeout=30).stdout)
    except CommandError as exc:
        raise GuardError(f"{path}: cannot look for signatures ({exc})") from None
    return DeviceState(
        path=path,
        name=os.path.basename(sysdir),
        rdev=rdev,
        size_bytes=int(_read(os.path.join(sysdir, "size")).strip() or 0) * 512,
        signatures=sigs,
        mounts=mounted,
        holders=holders,
        swap=bool(swaps & names),
        exclusive_busy=_exclusive_busy(path),
    )


def listdir_or_empty(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def check_destroy_flag(target: str, destroy_data: str | None) -> bool:
    """True if --destroy-data names the target device itself; GuardError if it names anything else.

    A typo must stop the run rather than quietly fall back to read-only: the user meant
    to destroy something, and it is not what they are about to measure.
    """
    if destroy_data is None:
        return False
    try:
        same = block_rdev(destroy_data) == block_rdev(target)
    except GuardError as exc:
        raise GuardError(f"--destroy-data {destroy_data}: {str(exc).split(': ', 1)[-1]}; nothing was run") from None
    if not same:
        raise GuardError(f"--destroy-data {destroy_data} is not the target {target}; nothing was run")
    return True


def write_refusal(state: DeviceState, destroy_ok: bool) -> str | None:
    """Why writing to this device is refused (one sentence), or None if it may be written."""
    dev = state.path
    if state.mounts:
        return f"{dev} is mounted at {', '.join(state.mounts)}: podplan never writes to a mounted device"
    if state.swap:
        return f"{dev} is an active swap area: podplan never writes to it"
    if state.holders:
        return f"{dev} is in use by {', '.join(state.holders)} (md or device-mapper): podplan never writes to it"
    if state.exclusive_busy:
        return f"{dev} is busy (claimed by the kernel for another user): podplan never writes to it"
    if state.signatures and not destroy_ok:
        return (
            f"{dev} holds {', '.join(state.signatures)}: write workloads would destroy it "
            f"(pass --destroy-data {dev} to allow)"
        )
    return None
