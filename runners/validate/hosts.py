"""The validation suite on several machines at once, through fio's own client/server mode.

Each pod runs `fio --server`; podplan runs one `fio --client=HOST,PORT` per host, all at
the same time, each with its own output file. One client per host (rather than one client
process naming every host) matters twice: fio 3.33 writes the JSON of only one of several
clients into --output, and a host that cannot be reached fails alone instead of taking the
others down with it.

Nothing about a remote disk can be checked from here (signatures, mounts, md or LVM use),
so against a raw device the write workloads run only when --destroy-data names it. What fio
itself can check runs first on each host (runners.validate.preflight): the directory exists and
takes O_DIRECT writes and the suite's file, or the device opens; a host that fails is skipped.

fio's client (3.33) shows nothing while a job runs once its output is JSON: --status-interval
objects are held back until the end, and ETA lines come only with the text output, which
podplan does not parse. Progress is therefore which workload each host is running and for how
long, ticked here; the figures come when each one ends.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from runners.exec import not_found, which
from runners.files import make_run_dir, write_text
from runners.fio.jobs import FULL, QUICK, WORKLOADS, ArrayShape, FioWorkload, Target, Timing, WorkloadName, suite
from runners.fio.result import JobFigures
from runners.validate.guard import GuardError
from runners.validate.preflight import preflight
from runners.validate.suite import ProgressFn, ValidateReport, WorkloadReport, _report_dir, _run_one, _skipped

GiB = 1024**3
DEFAULT_PORT = 8765  # fio's own default for --server
CONNECT_TIMEOUT_S = 5.0
# Without a way to look at the remote filesystem, the file is sized like a local one on a roomy disk.
REMOTE_FILE_BYTES = 1 * GiB
HostStatus = Literal["done", "partial", "failed", "unreachable", "skipped"]
NoteFn = Callable[[str], None]
"""One line about a host worth showing at once (why it is skipped)."""
TICK_S = 1.0
_FROZEN = ConfigDict(frozen=True)
_HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9_.-]+))(?::(?P<port>\d+))?")


class Host(BaseModel):
    """One fio server."""

    model_config = _FROZEN

    name: str = Field(description="Host name or address, as given.")
    port: int = Field(DEFAULT_PORT, description="TCP port fio --server listens on.")

    @property
    def label(self) -> str:
        return self.name if self.port == DEFAULT_PORT else f"{self.name}:{self.port}"

    @property
    def client(self) -> str:
        """fio's --client syntax: host,port (a colon would be read as part of an IPv6 address)."""
        return f"{self.name},{self.port}"


class HostReport(BaseModel):
    """The suite on one host."""

    model_config = _FROZEN

    host: str = Field(description="Host label, name[:port].")
    status: HostStatus = Field(
        description="done, partial, failed (fio ran but gave no figures), unreachable, skipped (failed the pre-flight)."
    )
    reason: str = Field("", description="Why it is not done, one sentence.")
    report: ValidateReport | None = Field(None, description="The suite's report; None when unreachable or skipped.")


class HostsReport(BaseModel):
    """The same suite on every host."""

    model_config = _FROZEN

    target: str = Field(description="Device or directory on each host, as given.")
    hosts: tuple[HostReport, ...] = Field(description="Per host, in the order given.")
    duration_s: float = Field(description="Wall time of the whole run, in seconds.")

    @property
    def partial(self) -> bool:
        return any(h.status != "done" for h in self.hosts)


def parse_hosts(spec: str) -> tuple[Host, ...]:
    """'h1,h2:8766,[::1]:8767' -> hosts; a bad entry or a repeated one is a GuardError."""
    out: list[Host] = []
    for part in (p.strip() for p in spec.split(",")):
        m = _HOST.fullmatch(part)
        port = int(m.group("port")) if m and m.group("port") else DEFAULT_PORT
        if not m or not 0 < port < 65536:
            raise GuardError(f"--hosts: {part!r} is not HOST or HOST:PORT")
        h = Host(name=m.group("v6") or m.group("name"), port=port)
        if h in out:
            raise GuardError(f"--hosts: {h.label} is given twice")
        out.append(h)
    return tuple(out)


def reachable(host: Host, timeout_s: float = CONNECT_TIMEOUT_S) -> str:
    """'' if something listens on the host's port; else why not, in a few words."""
    try:
        with socket.create_connection((host.name, host.port), timeout=timeout_s):
            return ""
    except socket.gaierror:
        return "no such host"
    except OSError as exc:
        return f"{exc.strerror or exc} (is `fio --server` running there?)"


def _tag(host: Host) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", host.label)


def remote_target(target: str, host: Host, file_size: int | None, direct: bool) -> Target:
    """Where the I/O goes on a host. A device is told by its path alone: it cannot be looked at."""
    if target.startswith("/dev/"):
        return Target(path=target, kind="device", size_bytes=0, direct=True)
    # Several servers may share the directory (NFS, or two on one machine): one file each.
    path = os.path.join(target, f".podplan-fio-{os.getpid()}-{_tag(host)}.dat")
    return Target(path=path, kind="file", size_bytes=file_size or REMOTE_FILE_BYTES, direct=direct)


def remote_workloads(
    target: Target, shape: ArrayShape, timing: Timing, names: tuple[WorkloadName, ...]
) -> tuple[FioWorkload, ...]:
    """The local suite, adjusted for a machine podplan cannot look at: a device is covered whole
    (fio's size=100%), and the last workload removes the file, since no one here can."""
    ws = list(suite(target, shape, timing, names))
    for i, w in enumerate(ws):
        opts = list(w.job.global_options)
        if target.kind == "device":
            opts = [("size", "100%") if k == "size" else (k, v) for k, v in opts]
        elif i == len(ws) - 1:
            opts = [("unlink", "1") if k == "unlink" else (k, v) for k, v in opts]
        ws[i] = w.model_copy(update={"job": w.job.model_copy(update={"global_options": tuple(opts)})})
    return tuple(ws)


def write_refusal(target: str, kind: str, destroy_data: str | None) -> str | None:
    if kind != "device":
        if destroy_data is not None:
            raise GuardError(f"--destroy-data names a device, but {target} is not one; nothing was run")
        return None
    if destroy_data is None:
        return (
            f"write refused: the write guard cannot look at {target} on a remote host; "
            f"pass --destroy-data {target} to allow writes there"
        )
    if destroy_data != target:
        raise GuardError(f"--destroy-data {destroy_data} does not name the target {target}; nothing was run")
    return None


class _Ticker:
    """Calls on_progress once a second for every workload running, since fio's client is silent meanwhile."""

    def __init__(self, on_progress: ProgressFn):
        self.on_progress = on_progress
        self.running: dict[str, float] = {}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="podplan-hosts-ticker", daemon=True)
        self.thread.start()

    def __call__(self, name: str, event: str, elapsed: float, figures) -> None:
        # One lock around the callback too: a tick must not land after its workload's end.
        with self.lock:
            if event == "start":
                self.running[name] = time.monotonic()
            elif event == "end":
                self.running.pop(name, None)
            self.on_progress(name, event, elapsed, figures)

    def _loop(self) -> None:
        while not self.stop.wait(TICK_S):
            with self.lock:
                for name, t0 in self.running.items():
                    self.on_progress(name, "progress", time.monotonic() - t0, None)

    def close(self) -> None:
        self.stop.set()
        self.thread.join()


def _one_host(
    host: Host,
    target: str,
    workloads: tuple[FioWorkload, ...],
    fio_target: Target,
    shape: ArrayShape,
    mode: Literal["quick", "full"],
    timing: Timing,
    refusal: str | None,
    out: str,
    on_progress: ProgressFn | None,
    cancel: threading.Event | None,
    on_note: NoteFn | None = None,
    index: int = 1,
) -> HostReport:
    """The suite on one host, its files in the run directory's host-NN (NN: `index`)."""
    why = reachable(host)
    if why:
        return HostReport(host=host.label, status="unreachable", reason=why)
    # By index, not by the host's name: a name is the user's text, and ".." is one.
    hdir = str(make_run_dir(os.path.join(out, f"host-{index:02d}"), reuse=True))
    why = preflight(fio_target, host.client, _tag(host), hdir, cancel)
    if why:
        if on_note is not None:
            on_note(f"{host.label}: {why}; skipped")
        return HostReport(host=host.label, status="skipped", reason=why)
    progress: ProgressFn | None = None
    if on_progress is not None:

        def named(name: str, event: str, elapsed: float, figures: JobFigures | None) -> None:
            on_progress(f"{host.label} {name}", event, elapsed, figures)

        progress = named
    t0 = time.monotonic()
    reports: list[WorkloadReport] = []
    stopped = ""
    try:
        for w in workloads:
            if w.writes and refusal:
                reports.append(_skipped(w, refusal))
            elif stopped:
                reports.append(_skipped(w, f"not run: {stopped}"))
            else:
                rep = _run_one(w, hdir, timing, progress, cancel, client=(host.client,))
                reports.append(rep)
                if rep.status in ("partial", "failed"):
                    stopped = rep.reason
    finally:
        if fio_target.kind == "file" and host.name in ("127.0.0.1", "localhost", "::1"):
            # A stopped run leaves the file; on this machine it can still be removed from here.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(fio_target.path)
    report = ValidateReport(
        target=target,
        kind=fio_target.kind,
        mode=mode,
        size_bytes=fio_target.size_bytes,
        shape=shape,
        direct=fio_target.direct,
        workloads=tuple(reports),
        duration_s=time.monotonic() - t0,
        partial=any(r.status in ("partial", "failed") for r in reports),
        stopped=stopped,
    )
    write_text(os.path.join(hdir, "report.json"), report.model_dump_json(indent=2), force=True)
    if not report.partial:
        return HostReport(host=host.label, status="done", report=report)
    got = any(r.figures is not None for r in reports)
    return HostReport(host=host.label, status="partial" if got else "failed", reason=stopped, report=report)


def validate_hosts(
    target: str,
    hosts: tuple[Host, ...],
    *,
    mode: Literal["quick", "full"] = "quick",
    destroy_data: str | None = None,
    report_dir: str | None = None,
    plan_shape: ArrayShape | None = None,
    timing: Timing | None = None,
    file_size: int | None = None,
    direct: bool = True,
    names: tuple[WorkloadName, ...] = WORKLOADS,
    on_progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    on_note: NoteFn | None = None,
) -> HostsReport:
    """Run the suite on every host at once. GuardError for what a user can fix, including no
    host able to run it; a single unreachable or skipped host is marked in the report."""
    if which("fio") is None:
        raise GuardError(not_found("fio"))
    if not hosts:
        raise GuardError("--hosts: no host given")
    timing = timing or (QUICK if mode == "quick" else FULL)
    shape = plan_shape or ArrayShape()
    kind = "device" if target.startswith("/dev/") else "file"
    refusal = write_refusal(target, kind, destroy_data)
    t0 = time.monotonic()
    ticker = _Ticker(on_progress) if on_progress is not None else None
    try:
        with _report_dir(report_dir) as out, ThreadPoolExecutor(max_workers=len(hosts)) as pool:
            futures = []
            for i, h in enumerate(hosts, 1):
                ft = remote_target(target, h, file_size, direct)
                ws = remote_workloads(ft, shape, timing, names)
                futures.append(
                    pool.submit(
                        _one_host, h, target, ws, ft, shape, mode, timing, refusal, out, ticker, cancel, on_note, i
                    )
                )
            results = tuple(f.result() for f in futures)
    finally:
        if ticker is not None:
            ticker.close()
    if all(r.status == "unreachable" for r in results):
        raise GuardError("no fio server reachable: " + "; ".join(f"{r.host}: {r.reason}" for r in results))
    if all(r.status in ("unreachable", "skipped") for r in results):
        raise GuardError("no host can run the suite: " + "; ".join(f"{r.host}: {r.reason}" for r in results))
    return HostsReport(target=target, hosts=results, duration_s=time.monotonic() - t0)
