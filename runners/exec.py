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


class CommandError(Exception):
    """An external command failed, could not start, or ran out of time."""

    def __init__(self, argv: Sequence[str], returncode: int | None, stderr: str, reason: str = ""):
        self.argv = list(argv)
        self.returncode = returncode
        self.stderr = stderr
        self.reason = reason
        first = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        what = reason or f"exit status {returncode}"
        super().__init__(f"{argv[0]}: {what}" + (f": {first}" if first else ""))


@dataclass(frozen=True)
class Result:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str


def have(tool: str) -> bool:
    """True if `tool` is on PATH (sbin directories included, as root's PATH would)."""
    return which(tool) is not None


def which(tool: str) -> str | None:
    path = os.environ.get("PATH", "") + ":/usr/local/sbin:/usr/sbin:/sbin"
    return shutil.which(tool, path=path)


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
    exe = which(argv[0])
    if exe is None:
        raise CommandError(argv, None, "", reason="not installed (command not found)")
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
