"""A short check on each remote host, through fio itself, before the suite runs there.

podplan cannot look at a remote machine except through its `fio --server`, so the checks are
tiny fio jobs: on a directory, a 64 KiB file written with the suite's O_DIRECT setting and
removed, then the suite's own file allocated at full size (posix_fallocate: it fails at once
with ENOSPC rather than writing until the disk is full) and removed; on a device, 4 KiB read.
A host that fails gets one sentence saying why and is skipped; the others run. fio's client
takes about a second per run, so the checks cost a few seconds, in parallel over the hosts.

fio details this leans on (3.33): `directory=` refuses a missing directory instead of creating
it (a `filename=` path would have its directories made); `allow_file_create=0` keeps a mistyped
/dev path from becoming a regular file; a failed posix_fallocate is only logged, as a line the
server sends back into the output file, so the log lines are read as well as the JSON.
"""

from __future__ import annotations

import os
import re
import threading

from planners.units import format_bytes_binary
from runners.fio.jobs import FioJobFile, Target, fio_argv
from runners.fio.result import objects
from runners.fio.run import FioMissing, run_fio
from runners.validate.guard import GuardError
from runners.validate.suite import job_files

PROBE_BYTES = 64 * 1024
TIMEOUT_S = 120.0  # an fallocate emulated by glibc on an old filesystem writes one byte per block
# After a full-size allocation fails, halve this many times to say roughly how much room there is.
ROOM_STEPS = 4
_LOG_LINE = re.compile(r"^<[^>]*> (.*)$")
_ERROR = re.compile(r"err=\s*(\d+)/.*error=(.*)$")


def _size(n: int) -> str:
    return format_bytes_binary(n, 1).replace(".0 ", " ")


def probe_job(target: Target, tag: str) -> FioJobFile:
    """The first check: a small write in the directory (O_DIRECT as the suite will), or a read of the device."""
    if target.kind == "device":
        return FioJobFile(
            name="preflight",
            comment=f"podplan pre-flight: can fio read {target.path}",
            global_options=(),
            jobs=(
                (
                    "open",
                    (
                        ("filename", target.path),
                        ("ioengine", "psync"),
                        ("rw", "read"),
                        ("bs", "4096"),
                        ("io_size", "4096"),
                        ("direct", "1"),
                        ("allow_file_create", "0"),
                    ),
                ),
            ),
        )
    directory = os.path.dirname(target.path)
    return FioJobFile(
        name="preflight",
        comment=f"podplan pre-flight: can fio write in {directory}",
        global_options=(),
        jobs=(
            (
                "write",
                (
                    *_in(directory, f".podplan-preflight-{os.getpid()}-{tag}.dat"),
                    ("ioengine", "psync"),
                    ("rw", "write"),
                    ("bs", "4096"),
                    ("size", str(PROBE_BYTES)),
                    ("direct", "1" if target.direct else "0"),
                    ("unlink", "1"),
                ),
            ),
        ),
    )


def room_job(target: Target, size: int) -> FioJobFile:
    """The second check, run only once the first passed: the suite's file allocated at `size` and removed.
    (Where fallocate is missing, as on ramfs, glibc emulates it by touching every block.)"""
    directory, name = os.path.split(target.path)
    return FioJobFile(
        name=f"preflight-room-{size}",
        comment=f"podplan pre-flight: room for {size} bytes in {directory}",
        global_options=(),
        jobs=(
            (
                "room",
                (
                    *_in(directory, name),
                    ("ioengine", "psync"),
                    ("rw", "write"),
                    ("size", str(size)),
                    ("fallocate", "posix"),
                    ("create_only", "1"),
                    ("unlink", "1"),
                ),
            ),
        ),
    )


def _in(directory: str, name: str) -> tuple[tuple[str, str], ...]:
    # directory= refuses a missing directory where a path in filename= would have it made;
    # unique_filename=0 keeps fio's server from prefixing the client's address to the name.
    return ("directory", directory), ("filename", name), ("unique_filename", "0")


def _server_lines(text: str) -> list[str]:
    return [m.group(1).strip() for ln in text.splitlines() if (m := _LOG_LINE.match(ln))]


def _job_errors(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for obj in objects(text):
        for job in obj.get("client_stats", []) + obj.get("jobs", []):
            if job.get("jobname") and job.get("jobname") != "All clients":
                out[str(job["jobname"])] = int(job.get("error", 0))
    return out


def verdict(target: Target, text: str) -> str:
    """Why the host cannot run the suite, from the pre-flight's output file; '' if it can."""
    lines = _server_lines(text)
    said = " ".join(lines)
    errors = _job_errors(text)
    why = next((m.group(2).strip() for ln in lines if (m := _ERROR.search(ln))), "")
    if target.kind == "device":
        if "you need to specify size" in said or "file creation disallowed" in said:
            return f"{target.path} does not exist there (or is empty)"
        if errors.get("open") or why:
            return f"cannot read {target.path}: {why or os.strerror(errors.get('open', 0))}"
        return "" if errors else "the pre-flight did not run (fio said nothing about its jobs)"
    directory = os.path.dirname(target.path)
    if "is not a directory" in said:
        # fio names the failed lstat only sometimes; without it, both remain possible.
        missing = "error=No such file or directory" in said
        return f"{directory} {'does not exist' if missing else 'is missing or not a directory'} there"
    if "does not support O_DIRECT" in said or errors.get("write") == 22:
        return (
            f"O_DIRECT refused on {directory} (tmpfs before Linux 6.6, ramfs, some FUSE): "
            "pass --buffered to run buffered I/O"
        )
    if errors.get("write") or why:
        return f"cannot write in {directory}: {why or os.strerror(errors.get('write', 0))}"
    if m := next((re.search(r"posix_fallocate fails: (.*)$", ln) for ln in lines if "posix_fallocate" in ln), None):
        return f"cannot allocate the suite's {_size(target.size_bytes)} file in {directory}: {m.group(1).strip()}"
    return "" if errors else "the pre-flight did not run (fio said nothing about its jobs)"


def _run(job: FioJobFile, host_client: str, out: str, cancel: threading.Event | None) -> tuple[str, str]:
    """(the output file's text, '' or why fio stopped short or complained)."""
    job_path, json_path = job_files(out, job.text, "preflight")
    try:
        outcome = run_fio(
            fio_argv(job_path, json_path, status_interval=0, client=(host_client,)),
            json_path,
            timeout_s=TIMEOUT_S,
            cancel=cancel,
        )
    except FioMissing as exc:
        raise GuardError(str(exc)) from None
    try:
        with open(json_path, encoding="utf-8", errors="replace") as f:
            return f.read(), outcome.reason
    except FileNotFoundError:
        return "", outcome.reason or "fio wrote no output"


def preflight(target: Target, host_client: str, tag: str, out: str, cancel: threading.Event | None = None) -> str:
    """Run the checks on one host; '' if it passed, else one sentence saying why not."""
    text, reason = _run(probe_job(target, tag), host_client, out, cancel)
    why = _judged(target, text, reason)
    if why or target.kind == "device":
        return why
    text, reason = _run(room_job(target, target.size_bytes), host_client, out, cancel)
    why = _judged(target, text, reason)
    if "No space left" not in why:
        return why
    return _room(target, host_client, out, cancel)


def _judged(target: Target, text: str, reason: str) -> str:
    if reason == "interrupted" or reason.startswith("timed out"):  # stopped short: the output says nothing
        return f"pre-flight {reason}"
    why = verdict(target, text)
    return f"pre-flight failed: {reason}" if why.startswith("the pre-flight did not run") and reason else why


def _room(target: Target, host_client: str, out: str, cancel: threading.Event | None) -> str:
    """How much room there roughly is, by allocating ever smaller files."""
    directory, need = os.path.dirname(target.path), target.size_bytes
    size = need
    for _ in range(ROOM_STEPS):
        size //= 2
        text, reason = _run(room_job(target, size), host_client, out, cancel)
        why = _judged(target, text, reason)
        if not why:
            return f"{directory} has between {_size(size)} and {_size(size * 2)} free, the suite needs {_size(need)}"
        if "No space left" not in why:
            return why
    return f"{directory} has less than {_size(size)} free, the suite needs {_size(need)}"
