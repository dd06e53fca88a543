"""The one place podplan runs external commands.

Every command is an argv list built elsewhere by a pure function, so the UI can show
it before it runs. Here it runs without a shell, under LC_ALL=C (parsers expect the C
locale's output), with a timeout; on timeout the process group is sent SIGTERM first
and SIGKILL only later, because fio's children keep issuing I/O after a bare SIGKILL.
`run` waits for a command's end; `spawn` starts one that its caller watches (fio, qemu).
Either way the command goes into the transcript (runners.transcript).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO

from planners.errors import PodplanError
from runners import transcript


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
    **dict.fromkeys(("pvresize", "vgextend", "lvextend"), _LVM),
    "xfs_growfs": _XFS,
    "resize2fs": _E2FS,
    "mkfs.xfs": _XFS,
    "xfs_info": _XFS,
    "mke2fs": _E2FS,
    "mkfs.ext4": _E2FS,
    "dumpe2fs": _E2FS,
    "e2fsck": _E2FS,
    "filefrag": _E2FS,
    **dict.fromkeys(("mkfs.btrfs", "btrfs"), Program("btrfs-progs")),
    "fio": Program("fio"),
    # validate's SMART health and burn-in read every member disk with it.
    "smartctl": Program("smartmontools"),
    "losetup": _MOUNT,
    "fallocate": _UTIL,
    "mount": _MOUNT,
    "umount": _MOUNT,
    "lsblk": _UTIL,
    "blkid": _UTIL,
    "wipefs": _UTIL,
    "dmesg": _UTIL,
    "unshare": _UTIL,
    "setpriv": _UTIL,
    "findmnt": _UTIL,
    "partx": _UTIL,
    "blockdev": _UTIL,
    **dict.fromkeys(("df", "env", "cat", "sleep", "dd", "truncate"), Program("coreutils", base=True)),
    "bash": Program("bash", base=True),
    "journalctl": Program("systemd", optional="the kernel log is read from dmesg first and /var/log/kern.log last"),
    # The VM lab: the kit builder downloads and unpacks Debian packages, indexes the kernel's modules, boots qemu.
    "apt-get": _APT,
    "apt-cache": _APT,
    **dict.fromkeys(("dpkg-deb", "dpkg", "dpkg-query"), Program("dpkg", base=True)),
    "depmod": Program("kmod"),
    "qemu-system-x86_64": Program("qemu-system-x86"),
    # Only the tests: build scripts are linted, the TUI is driven in a real terminal.
    "shellcheck": Program("shellcheck"),
    "tmux": Program("tmux"),
    # The HTML report is opened in a real headless browser.
    "chromium": Program("chromium"),
    # The man page is rendered as man renders it.
    "groff": Program("groff-base", optional="only a test renders podplan's man page with it"),
    "valgrind": Program("valgrind", optional="only benchmarks/bench_tui.py --instructions counts instructions with it"),
}


def not_found(program: str) -> str:
    """The one line for a program that is not installed: what to install to get it."""
    known = PROGRAMS.get(program)
    if known is None:
        return f"{program} not found"
    return f"{program} not found: install {known.package} (apt-get install {known.package})"


class CommandError(PodplanError):
    """An external command failed, could not start, or ran out of time."""

    exit_status = 1  # the input was fine; the machine or a tool said no

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


def _environment(env: Mapping[str, str] | None) -> dict[str, str]:
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["LC_ALL"] = "C"
    return full_env


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
    started, t0 = time.time(), time.monotonic()
    try:
        proc = subprocess.Popen(
            [exe, *argv[1:]],
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",  # a stray non-UTF-8 byte (a device name in the kernel log) is no reason to fail
            env=_environment(env),
            start_new_session=True,
        )
    except OSError as exc:
        transcript.record(argv, started, 0.0, None, "", note=str(exc))
        raise CommandError(argv, None, "", reason=str(exc)) from None
    err, note = "", ""
    try:
        out, err = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_group(proc, grace)
        out, err = proc.communicate()
        note = f"timed out after {timeout:g} s"
        raise CommandError(argv, proc.returncode, err or "", reason=note) from None
    except BaseException:
        note = "interrupted"
        stop_group(proc, grace)
        raise
    finally:
        transcript.record(argv, started, time.monotonic() - t0, proc.returncode, err or "", note)
    if check and proc.returncode != 0:
        raise CommandError(argv, proc.returncode, err)
    return Result(argv, proc.returncode, out, err)


class Spawned:
    """A program started by `spawn`, watched by its caller while it runs (poll, wait, stop).

    Used as a context manager: on leaving it, however that happens (its end, a timeout, a
    cancel, an exception in the caller), the process group is stopped if still running
    (terminate, then kill), the process is reaped and the command goes into the transcript.
    """

    def __init__(self, argv: list[str], proc: subprocess.Popen, err: IO[bytes], grace: float, started: float):
        self.argv = argv
        self.grace = grace
        self.stderr = ""
        """What it printed on stderr (and stdout, if it was sent there); read once it is over."""
        self.note = ""
        self._proc, self._err, self._started, self._t0 = proc, err, started, time.monotonic()
        self._ended: float | None = None

    @property
    def returncode(self) -> int | None:
        """Its exit status once it ended (negative: the signal that ended it); None while running."""
        return self._proc.returncode

    @property
    def elapsed_s(self) -> float:
        """Seconds from its start to its end, or to now while it runs."""
        return (self._ended or time.monotonic()) - self._t0

    def poll(self) -> int | None:
        code = self._proc.poll()
        if code is not None and self._ended is None:
            self._ended = time.monotonic()
        return code

    def wait(self, timeout: float) -> int | None:
        """Its exit status, or None if it still runs after `timeout` seconds."""
        try:
            self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.poll()

    def stop(self, note: str = "stopped") -> None:
        """Terminate the whole process group, wait, then kill what is left; `note` says why, in the transcript."""
        if self.poll() is None:
            self.note = self.note or note
            stop_group(self._proc, self.grace)
        self.poll()

    def __enter__(self) -> Spawned:
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        try:
            self.stop("interrupted" if exc is not None else "stopped")
        finally:
            self._proc.wait()
            self.poll()
            self._err.seek(0)
            self.stderr = self._err.read().decode(errors="replace")
            self._err.close()
            transcript.record(self.argv, self._started, self.elapsed_s, self.returncode, self.stderr, self.note)


def spawn(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, grace: float = 5.0, stdout_to_stderr: bool = False
) -> Spawned:
    """Start argv in its own process group and return at once, for a caller that watches it
    (fio's progress file, qemu's console). Resolved and run as `run` does (PROGRAMS, no shell,
    LC_ALL=C); stdin and stdout are /dev/null (stdout joins stderr if `stdout_to_stderr`), stderr
    is kept for Spawned.stderr and the transcript. Use it in a `with` block."""
    argv = [str(a) for a in argv]
    exe = resolve(argv)
    started = time.time()
    # Owned by the Spawned object, which closes it once the process is reaped: no with block here.
    err = tempfile.TemporaryFile()  # noqa: SIM115
    try:
        proc = subprocess.Popen(
            [exe, *argv[1:]],
            stdin=subprocess.DEVNULL,
            stdout=err if stdout_to_stderr else subprocess.DEVNULL,
            stderr=err,
            env=_environment(env),
            start_new_session=True,
        )
    except OSError as exc:
        err.close()
        transcript.record(argv, started, 0.0, None, "", note=str(exc))
        raise CommandError(argv, None, "", reason=str(exc)) from None
    return Spawned(argv, proc, err, grace, started)


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
