"""This host's kernel log, read for the kernel's own parity benchmark (planners.perf.parity_log parses it).

The log comes from the first source that has the lines: `dmesg` (refused to ordinary users
where kernel.dmesg_restrict is set, and its ring buffer may have wrapped past boot), then
`journalctl -k -b` (the whole boot, if journald keeps it), then /var/log/kern.log. Every
failure is a reason in the result, never an exception: without the log the presets stand.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PodplanError
from planners.perf.parity_log import ParityLog, parse_parity_log
from runners.exec import CommandError, run
from runners.files import FileRefused, read_text

KERN_LOG = "/var/log/kern.log"
TIMEOUT_S = 10.0
# kern.log holds weeks of boots; the current one is at its end.
KERN_LOG_TAIL_BYTES = 32 << 20


class HostParity(BaseModel):
    """The kernel's parity benchmark as found on this host."""

    model_config = ConfigDict(frozen=True)

    log: ParityLog | None = Field(description="What the log said; None if no source had raid6 or xor lines.")
    source: str = Field(description="The source the lines came from ('' if none).")
    read: tuple[str, ...] = Field(description="Sources read that had no raid6 or xor lines.")
    failed: tuple[str, ...] = Field(description="Sources that could not be read, each with why.")

    @property
    def why_none(self) -> str:
        """Why there is no log, in one line ('' when there is one)."""
        if self.log is not None:
            return ""
        return "; ".join(([f"no raid6/xor lines in {' or '.join(self.read)}"] if self.read else []) + list(self.failed))


def log_commands() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(name shown, argv) of each command that prints the kernel log, in the order tried."""
    return ("dmesg", ("dmesg",)), ("journalctl -k -b", ("journalctl", "-k", "-b", "--no-pager"))


def _command_text(name: str, argv: tuple[str, ...], timeout_s: float) -> tuple[str, str]:
    """(output, '') or ('', why it gave none)."""
    try:
        r = run(argv, timeout=timeout_s, check=False)
    except CommandError as exc:
        reason = "not installed" if exc.reason.startswith("not installed") else (exc.reason or str(exc))
        return "", f"{name} {reason}"
    if r.returncode != 0:
        err = r.stderr.strip().splitlines()
        if any("read kernel buffer failed" in e and "not permitted" in e for e in err):
            return "", f"{name} not permitted by kernel.dmesg_restrict"
        return "", f"{name} failed: " + (err[-1] if err else f"exit status {r.returncode}")
    return r.stdout, ""


def _file_text(path: str, tail: int | None = None) -> tuple[str, str]:
    """(the file's text, or its last `tail` bytes, '') or ('', why it cannot be read). A file
    given by name is refused past KERN_LOG_TAIL_BYTES (a saved `dmesg` is well under a MiB)."""
    try:
        return (
            read_text(
                path,
                what="kernel log",
                cap=tail or KERN_LOG_TAIL_BYTES,
                tail=tail is not None,
                missing="absent",
                lenient=True,
            ),
            "",
        )
    except FileRefused as exc:
        return "", exc.message.replace(f"{path}: ", f"{path} ", 1)


def read_host_parity(
    timeout_s: float = TIMEOUT_S,
    commands: tuple[tuple[str, tuple[str, ...]], ...] | None = None,
    kern_log: str = KERN_LOG,
) -> HostParity:
    """The parity benchmark of this boot, from the first source that logged it."""
    read: list[str] = []
    failed: list[str] = []
    sources: list[tuple[str, Callable[[], tuple[str, str]]]] = [
        (name, partial(_command_text, name, argv, timeout_s))
        for name, argv in (log_commands() if commands is None else commands)
    ]
    sources.append((kern_log, partial(_file_text, kern_log, KERN_LOG_TAIL_BYTES)))
    for name, get in sources:
        text, why = get()
        if why:
            failed.append(why)
            continue
        log = parse_parity_log(text)
        if log.found:
            return HostParity(log=log, source=name, read=tuple(read), failed=tuple(failed))
        read.append(name)
    if not os.path.isdir("/sys/module/raid6_pq"):
        failed.append("raid6_pq not loaded yet")
    return HostParity(log=None, source="", read=tuple(read), failed=tuple(failed))


class KernelLogError(PodplanError):
    """A kernel log file given by name cannot be read."""


def read_log_file(path: str) -> ParityLog:
    """A kernel log saved on another machine (`dmesg > pod1.log`), parsed; KernelLogError if unreadable."""
    text, why = _file_text(path)
    if why:
        raise KernelLogError(why)
    return parse_parity_log(text)
