"""The one place podplan runs external commands.

Every command is an argv list built elsewhere by a pure function, so the UI can show
it before it runs. Here it runs without a shell, under LC_ALL=C (parsers expect the C
locale's output), with a timeout; on timeout the process group is sent SIGTERM first
and SIGKILL only later, because fio's children keep issuing I/O after a bare SIGKILL.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Program:
    """Where a program podplan runs comes from, so setup can install it and a miss can name it."""

    package: str
    """The Debian package that provides it (the same name on Ubuntu)."""
    base: bool = False
    """The package is in Debian's required base (Priority: required): on every install, setup skips it."""
    optional: str = ""
    """Why podplan works without it ("" = podplan needs it, so setup installs it)."""


_LVM = Program("lvm2")
_XFS = Program("xfsprogs")
_E2FS = Program("e2fsprogs", base=True)
_UTIL = Program("util-linux", base=True)
_MOUNT = Program("mount", base=True)
_APT = Program("apt", base=True)

# Every program podplan runs (CLI, TUI, the lab kit builder) or its tests run, by the name given
# to the chokepoint. `run` refuses a name that is not here, and a test checks the code against it
# and scripts/dev.sh against the packages, so a new program cannot land without its package.
PROGRAMS: dict[str, Program] = {
    "mdadm": Program("mdadm"),
    **dict.fromkeys(("pvcreate", "vgcreate", "lvcreate", "pvs", "vgs", "lvs", "pvremove", "vgremove"), _LVM),
    # Growth: the tests grow filesystems and PVs under loop devices made bigger.
    **dict.fromkeys(("pvresize", "vgextend", "lvextend"), _LVM), "xfs_growfs": _XFS, "resize2fs": _E2FS,
    "mkfs.xfs": _XFS, "xfs_info": _XFS,
    "mke2fs": _E2FS, "mkfs.ext4": _E2FS, "dumpe2fs": _E2FS, "e2fsck": _E2FS, "filefrag": _E2FS,
    **dict.fromkeys(("mkfs.btrfs", "btrfs"), Program("btrfs-progs")),
    "fio": Program("fio"),
    "losetup": _MOUNT, "mount": _MOUNT, "umount": _MOUNT,
    "lsblk": _UTIL, "blkid": _UTIL, "wipefs": _UTIL, "dmesg": _UTIL, "unshare": _UTIL, "setpriv": _UTIL,
    "findmnt": _UTIL,
    **dict.fromkeys(("df", "env", "cat", "sleep"), Program("coreutils", base=True)),
    "bash": Program("bash", base=True),
    "journalctl": Program("systemd", optional="the kernel log is read from dmesg first and /var/log/kern.log last"),
    # The VM lab: the kit builder downloads and unpacks Debian packages, indexes the kernel's modules, boots qemu.
    "apt-get": _APT, "apt-cache": _APT,
    **dict.fromkeys(("dpkg-deb", "dpkg", "dpkg-query"), Program("dpkg", base=True)),
    "depmod": Program("kmod"),
    "qemu-system-x86_64": Program("qemu-system-x86"),
    # Only the tests: build scripts are linted, the TUI is driven in a real terminal.
    "shellcheck": Program("shellcheck"),
    "tmux": Program("tmux"),
    "valgrind": Program("valgrind", optional="only benchmarks/bench_tui.py --instructions counts instructions with it"),
}


def not_found(program: str) -> str:
    """The one line for a program that is not installed: what to install to get it."""
    known = PROGRAMS.get(program)
    if known is None:
        return f"{program} not found"
    return f"{program} not found: install {known.package} (apt-get install {known.package})"


class CommandError(Exception):
    """An external command failed, could not start, or ran out of time."""

    def __init__(self, argv: Sequence[str], returncode: int | None, stderr: str, reason: str = ""):
        self.argv = list(argv)
        self.returncode = returncode
        self.stderr = stderr
        self.reason = reason
        first = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        what = reason or f"exit status {returncode}"
        if reason == MISSING:
            super().__init__(not_found(argv[0]))
        else:
            super().__init__(f"{argv[0]}: {what}" + (f": {first}" if first else ""))


@dataclass(frozen=True)
class Result:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str


MISSING = "not installed (command not found)"


def have(tool: str) -> bool:
    """True if `tool` is on PATH (sbin directories included, as root's PATH would)."""
    return which(tool) is not None


def which(tool: str) -> str | None:
    path = os.environ.get("PATH", "") + ":/usr/local/sbin:/usr/sbin:/sbin"
    return shutil.which(tool, path=path)


def resolve(argv: Sequence[str]) -> str:
    """The executable for argv[0]: a path as given, a name only if PROGRAMS lists it and it is installed."""
    name = str(argv[0])
    if "/" not in name and name not in PROGRAMS:
        # A programming error, caught by the tests: setup would not know to install it.
        raise CommandError(argv, None, "", reason="not in runners.exec.PROGRAMS (which package provides it?)")
    exe = which(name)
    if exe is None:
        raise CommandError(argv, None, "", reason=MISSING)
    return exe


def run(
    argv: Sequence[str],
    *,
    timeout: float = 60.0,
    check: bool = True,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    grace: float = 5.0,
) -> Result:
    """Run argv and return its output; raise CommandError on failure when `check`."""
    argv = [str(a) for a in argv]
    exe = resolve(argv)
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["LC_ALL"] = "C"
    try:
        proc = subprocess.Popen(
            [exe, *argv[1:]],
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",  # a stray non-UTF-8 byte (a device name in the kernel log) is no reason to fail
            env=full_env,
            start_new_session=True,
        )
    except OSError as exc:
        raise CommandError(argv, None, "", reason=str(exc)) from None
    try:
        out, err = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_group(proc, grace)
        out, err = proc.communicate()
        raise CommandError(argv, proc.returncode, err or "", reason=f"timed out after {timeout:g} s") from None
    except BaseException:
        stop_group(proc, grace)
        raise
    if check and proc.returncode != 0:
        raise CommandError(argv, proc.returncode, err)
    return Result(argv, proc.returncode, out, err)


def stop_group(proc: subprocess.Popen, grace: float = 5.0) -> None:
    """SIGTERM the whole process group, wait, then SIGKILL what is left."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
