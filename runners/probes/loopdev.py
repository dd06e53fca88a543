"""Loop devices over sparse files, mounts and `df -B1`: what probes and tests stand on.

Everything here cleans up after itself in `finally`, because a leaked loop device or
mount outlives the test run and confuses the next one. Loop devices are always taken
with `losetup -f` (never a fixed /dev/loopN): other runs may hold some.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import threading
from collections.abc import Iterator, Sequence

from runners.exec import CommandError, run

LOOP_MAJOR = 7
_mknod_lock = threading.Lock()


def sparse_dir() -> str:
    """Where sparse backing files go: tmpfs if there is one (no 16 TiB file limit, no disk used)."""
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        return shm
    return tempfile.gettempdir()


def attach_loop(path: str, *, sector: int = 512, direct_io: bool = False, timeout: float = 30.0) -> str:
    """`losetup -f --show PATH`, adding a loop node first if none is free. `direct_io` sends the
    loop's I/O to the file with O_DIRECT, so the disk under it is measured, not the page cache."""
    argv = ["losetup", "-f", "--show", path]
    if sector != 512:
        argv[1:1] = ["--sector-size", str(sector)]
    if direct_io:
        argv[1:1] = ["--direct-io=on"]
    for attempt in range(3):
        try:
            return run(argv, timeout=timeout).stdout.strip()
        except CommandError as exc:
            if "free loop" not in exc.stderr or attempt == 2:
                raise
            _add_loop_node()
    raise AssertionError("unreachable")


def detach_loop(dev: str, *, backing: str | None = None, timeout: float = 30.0) -> None:
    """`losetup -d DEV`; with `backing`, only while DEV is still over that file. A loop device
    detached early while open (autoclear) is freed at its last close and may by now serve
    another run's file: detaching it by number again would pull that device from under it."""
    # (without sysfs to ask, detach as asked: a leaked loop device outlives the run)
    if backing is not None and os.path.isdir("/sys/block") and backing_file(dev) != os.path.realpath(backing):
        return
    run(["losetup", "-d", dev], timeout=timeout, check=False)


def backing_file(dev: str) -> str:
    """The file loop device `dev` reads (sysfs), '' when it has none."""
    try:
        with open(f"/sys/block/{os.path.basename(dev)}/loop/backing_file") as f:
            return f.read().strip()
    except OSError:
        return ""


def _add_loop_node() -> None:
    """Create the next /dev/loopN where /dev is static and loop-control made none."""
    with _mknod_lock:
        taken = [int(n[4:]) for n in os.listdir("/dev") if re.fullmatch(r"loop\d+", n)]
        minor = max(taken, default=-1) + 1
        with contextlib.suppress(FileExistsError):
            os.mknod(f"/dev/loop{minor}", 0o660 | stat.S_IFBLK, os.makedev(LOOP_MAJOR, minor))


@contextlib.contextmanager
def sparse_loops(sizes: Sequence[int], *, sector: int = 512, timeout: float = 30.0) -> Iterator[list[str]]:
    """Loop devices over fresh sparse files of these sizes; always detached and deleted after."""
    attached: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="podplan-loops-", dir=sparse_dir()) as tmp:
        try:
            for i, size in enumerate(sizes):
                path = os.path.join(tmp, f"m{i}")
                with open(path, "wb") as f:
                    f.truncate(size)
                attached.append((attach_loop(path, sector=sector, timeout=timeout), path))
            yield [dev for dev, _ in attached]
        finally:
            for dev, path in attached:
                detach_loop(dev, backing=path, timeout=timeout)


@contextlib.contextmanager
def sparse_loop(size: int, *, sector: int = 512, timeout: float = 30.0) -> Iterator[str]:
    with sparse_loops([size], sector=sector, timeout=timeout) as devs:
        yield devs[0]


@contextlib.contextmanager
def mounted(dev: str, *, options: str = "", timeout: float = 60.0) -> Iterator[str]:
    """Mount `dev` on a fresh temporary directory; always unmounted and removed after."""
    mnt = tempfile.mkdtemp(prefix="podplan-mnt-")
    done = False
    try:
        run(["mount", *(["-o", options] if options else []), dev, mnt], timeout=timeout)
        done = True
        yield mnt
    finally:
        if done:
            run(["umount", mnt], timeout=timeout, check=False)
        os.rmdir(mnt)


def parse_df_b1(text: str) -> tuple[int, int]:
    """(size, available) from `df -B1 --output=size,avail` output (header line first)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        raise ValueError(f"unexpected df output: {text!r}")
    size, avail = lines[-1].split()[:2]
    return int(size), int(avail)


def df_b1(mount_point: str, *, timeout: float = 30.0) -> tuple[int, int]:
    """What `df -B1` shows as 1B-blocks and Available for a mount point."""
    return parse_df_b1(run(["df", "-B1", "--output=size,avail", mount_point], timeout=timeout).stdout)
