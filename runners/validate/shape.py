"""What the suite needs to know about the storage under a target: stripe, disks, free space."""

from __future__ import annotations

import errno
import os
import tempfile

from planners.models import Plan
from planners.results import VolumeResult
from runners.fio.jobs import ArrayShape
from runners.validate.guard import GuardError

MiB = 1024**2
GiB = 1024**3
# A file-based run takes at most this share of the free space, so validating never fills a filesystem.
FREE_SHARE = 10
MIN_FILE = 64 * MiB


def _read_int(path: str, default: int = 0) -> int:
    try:
        with open(path) as f:
            return int(f.read().strip() or default)
    except (OSError, ValueError):
        return default


def _leaves(sysdir: str, seen: set[str] | None = None) -> set[str]:
    """Kernel names of the devices at the bottom of a stack (md members, dm's PVs' members)."""
    seen = set() if seen is None else seen
    slaves = os.path.join(sysdir, "slaves")
    try:
        names = sorted(os.listdir(slaves))
    except OSError:
        names = []
    if not names:
        # A partition's own directory has no slaves: the disk it lives on is what counts.
        return {os.path.basename(sysdir)}
    out: set[str] = set()
    for n in names:
        real = os.path.realpath(os.path.join(slaves, n))
        if real not in seen:
            seen.add(real)
            out |= _leaves(real, seen)
    return out


def leaf_disks(sysdir: str) -> set[str]:
    """Kernel names of the disks at the bottom of the device at `sysdir` (itself if it has none)."""
    return _leaves(sysdir) if os.path.isdir(sysdir) else set()


def _sysdir_of(target: str) -> tuple[str, bool]:
    st = os.stat(target)
    is_dir = os.path.isdir(target)
    num = st.st_dev if is_dir else st.st_rdev
    return os.path.realpath(f"/sys/dev/block/{os.major(num)}:{os.minor(num)}"), is_dir


def mount_of(path: str) -> tuple[str, str, str] | None:
    """(source, type, mount point) of the filesystem `path` is on, from /proc/self/mounts
    (the longest mount point that holds it); None if that cannot be read."""
    real = os.path.realpath(path)
    best: tuple[str, str, str] | None = None
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                parts = line.split()
                if len(parts) > 2:
                    mnt = parts[1].replace("\\040", " ")
                    holds = real == mnt or real.startswith(mnt.rstrip("/") + "/")
                    if holds and (best is None or len(mnt) >= len(best[2])):
                        best = (parts[0], parts[2], mnt)
    except OSError:
        return None
    return best


def _mounted_fstype(directory: str) -> str:
    """The type of the filesystem `directory` is on ('' if unknown)."""
    found = mount_of(directory)
    return found[1] if found else ""


# The plan's size and the target's may differ by the slack of a real build (a different mdadm,
# a few extents); beyond this share they are not the same storage.
SIZE_TOLERANCE = 0.02


def plan_mismatch(target: str, plan: Plan) -> tuple[str, ...]:
    """Why `plan` does not describe `target` (size, disks under it, filesystem); () when it may.

    Measured figures set beside a plan of other storage say nothing, so validate shows them
    without a comparison when this is not empty.
    """
    from planners.compute import compute
    from planners.units import format_bytes_binary, format_bytes_decimal

    try:
        sysdir, is_dir = _sysdir_of(target)
    except OSError:
        return ()
    result = compute(plan)
    volume = result.volumes[0]
    out = []
    if is_dir:
        st = os.statvfs(target)
        have, want, what = st.f_blocks * st.f_frsize, volume.df_size_bytes, "filesystem"
    else:
        have = _read_int(os.path.join(sysdir, "size")) * 512
        want, what = volume.block_device_bytes, "device"
    if have and abs(have - want) > SIZE_TOLERANCE * want:
        out.append(
            f"the target's {what} is {format_bytes_binary(have)} ({format_bytes_decimal(have)}), "
            f"the plan's is {format_bytes_binary(want)} ({format_bytes_decimal(want)})"
        )
    disks = leaf_disks(sysdir)
    planned = planned_disks(plan, volume)
    spans = volume.btrfs is not None and len(volume.disks) > 1  # a btrfs mount names one of its devices
    if disks and len(disks) != planned and not spans:
        out.append(
            f"the target stands on {len(disks)} disk{'s' if len(disks) > 1 else ''} "
            f"({', '.join(sorted(disks)[:4])}{', ...' if len(disks) > 4 else ''}), the plan on {planned}"
        )
    if is_dir:
        fstype = _mounted_fstype(target)
        if fstype and fstype != plan.filesystem.type:
            out.append(f"the target is on {fstype}, the plan makes {plan.filesystem.type}")
    return tuple(out)


def measured_shape(devnum: int, plan: ArrayShape | None = None) -> ArrayShape:
    """Shape from the kernel's view of the device (st_rdev of a device, st_dev of a directory);
    the plan's figures fill in what the kernel does not say (LV stripes, an unset io_opt)."""
    major, minor = os.major(devnum), os.minor(devnum)
    sysdir = os.path.realpath(f"/sys/dev/block/{major}:{minor}")
    if not os.path.isdir(sysdir):
        return plan or ArrayShape()
    queue = os.path.join(sysdir if os.path.isdir(os.path.join(sysdir, "queue")) else os.path.dirname(sysdir), "queue")
    io_opt = _read_int(os.path.join(queue, "optimal_io_size"))
    logical = _read_int(os.path.join(queue, "logical_block_size"), 512)
    disks = len(_leaves(sysdir))
    return ArrayShape(
        full_stripe_bytes=io_opt or (plan.full_stripe_bytes if plan else 0),
        stripes=plan.stripes if plan else 1,
        disks=disks if disks > 1 or plan is None else plan.disks,
        logical_block=logical,
    )


def file_size_for(directory: str, wanted: int = 1 * GiB) -> int:
    """Size of the file a directory run uses: `wanted`, or less where free space is short."""
    st = os.statvfs(directory)
    free = st.f_bavail * st.f_frsize
    size = min(wanted, free // FREE_SHARE)
    size -= size % MiB
    if size < MIN_FILE:
        raise GuardError(
            f"{directory}: only {free // MiB} MiB free; a file-based run needs {MIN_FILE * FREE_SHARE // MiB} MiB"
        )
    return size


def o_direct_works(directory: str) -> bool:
    """True if files in `directory` accept O_DIRECT (tmpfs, for one, refuses it)."""
    if not os.access(directory, os.W_OK):
        raise GuardError(f"{directory}: permission denied (cannot create the test file)")
    fd, path = tempfile.mkstemp(prefix=".podplan-odirect-", dir=directory)
    os.close(fd)
    try:
        fd = os.open(path, os.O_RDWR | os.O_DIRECT)
        os.close(fd)
        return True
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return False
        raise GuardError(f"{directory}: cannot open a test file ({exc.strerror})") from None
    finally:
        os.unlink(path)


def planned_disks(plan: Plan, volume: VolumeResult) -> int:
    """Disks the plan puts under a volume: its md arrays' members, or without md the disks themselves."""
    if not plan.groups:
        return len(volume.disks)
    return sum(g.members for g in plan.groups if g.name in volume.groups)


def shape_of_plan(plan: Plan) -> ArrayShape:
    """What the plan says the target looks like (the first volume)."""
    from planners.compute import compute

    result = compute(plan)
    v = result.volumes[0]
    members = planned_disks(plan, v)
    logical = max(d.logical_sector for d in plan.disks)
    return ArrayShape(
        full_stripe_bytes=v.alignment.top_io_opt_bytes,
        stripes=v.alignment.lv_stripes or 1,
        disks=members,
        logical_block=logical,
    )
