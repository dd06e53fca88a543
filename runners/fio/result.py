"""What fio reported, as frozen models: pure functions of fio's JSON text.

With --status-interval fio appends one cumulative JSON object after another to its output
file; while it runs, the last object may still be half written. `objects` returns the
complete ones, so progress and partial results read the same file the final figures do.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

_FROZEN = ConfigDict(frozen=True)


class Steady(BaseModel):
    """fio's steady-state verdict for one job."""

    model_config = _FROZEN

    criterion: str = Field(description="What was asked, e.g. 'bw_slope:2.000000%'.")
    attained: bool = Field(description="True if fio found the job steady (and stopped it early).")
    window_s: int = Field(description="Length of the window judged (steadystate_duration), in seconds.")
    measured: str = Field(description="The slope or deviation fio measured last, as it prints it.")
    window_bytes_s: int | None = Field(None, description="Mean bandwidth over the judged window, in bytes per second.")
    window_iops: float | None = Field(None, description="Mean I/Os per second over the judged window.")


class JobFigures(BaseModel):
    """One reported job (or one reporting group) of one fio run."""

    model_config = _FROZEN

    name: str = Field(description="Job name (the section of the job file).")
    host: str = Field("", description="fio server host name in client/server mode; '' when local.")
    read_bytes_s: int = Field(description="Read bandwidth, in bytes per second.")
    write_bytes_s: int = Field(description="Write bandwidth, in bytes per second.")
    read_iops: float = Field(description="Read I/Os per second.")
    write_iops: float = Field(description="Write I/Os per second.")
    read_p99_us: float | None = Field(description="99th percentile read completion latency, in microseconds.")
    write_p99_us: float | None = Field(description="99th percentile write completion latency, in microseconds.")
    runtime_ms: int = Field(description="Time the job ran (longest of read and write), in milliseconds.")
    io_bytes: int = Field(description="Bytes transferred, read and write, in bytes.")
    error: int = Field(description="errno of the first error the job hit, 0 if none.")
    steady: Steady | None = Field(description="Steady-state verdict; None when the job asked for none.")
    run_bytes_s: int | None = Field(
        None,
        description="Bandwidth over the whole run including its start, in bytes "
        "per second; set when the figures above are the steady window's.",
    )
    run_iops: float | None = Field(None, description="I/Os per second over the whole run; set with run_bytes_s.")
    cpu_s: float | None = Field(
        None,
        description="CPU time fio's jobs spent, user plus system, over the whole run, "
        "in seconds (fio's usr_cpu + sys_cpu of job_runtime).",
    )
    total_ios: int = Field(0, description="I/Os completed over the whole run, reads and writes, count.")

    @property
    def from_window(self) -> bool:
        """True when the figures are the steady window's mean rather than the whole run's."""
        return self.run_bytes_s is not None

    @property
    def bytes_s(self) -> int:
        return self.read_bytes_s + self.write_bytes_s

    @property
    def iops(self) -> float:
        return self.read_iops + self.write_iops


class FioRun(BaseModel):
    """Everything read from one fio output file."""

    model_config = _FROZEN

    jobs: tuple[JobFigures, ...] = Field(description="Reported jobs, in the order fio lists them.")
    disk_util: dict[str, float] = Field(description="Device name -> utilisation fio saw, in percent.")
    fio_version: str = Field(description="fio's version string.")
    final: bool = Field(description="False if this is the last progress object of a run that did not finish.")


def objects(text: str) -> list[dict]:
    """Every complete JSON object in fio's output, in order (notes and a torn tail skipped)."""
    out: list[dict] = []
    decoder = json.JSONDecoder()
    pos = text.find("{")
    while pos >= 0:
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            break  # still being written
        if isinstance(obj, dict):
            out.append(obj)
        pos = text.find("{", end)
    return out


def _p99(side: dict) -> float | None:
    pct = side.get("clat_ns", {}).get("percentile") or {}
    v = pct.get("99.000000")
    return v / 1000.0 if v is not None else None


def _steady(job: dict) -> Steady | None:
    ss = job.get("steadystate")
    if not ss:
        return None
    data = ss.get("data") or {}
    bw, iops = data.get("bw_mean"), data.get("iops_mean")
    return Steady(
        criterion=str(ss.get("ss", "")),
        attained=bool(ss.get("attained", 0)),
        window_s=int(ss.get("duration", 0)),
        measured=str(ss.get("criterion", "")),
        window_bytes_s=int(bw) if isinstance(bw, (int, float)) and bw > 0 else None,
        window_iops=float(iops) if isinstance(iops, (int, float)) and iops > 0 else None,
    )


def _steady_window(fig: JobFigures) -> JobFigures:
    """Report a steady job by its steady window: the whole-run mean also holds the start, while
    queues fill and caches warm, and that part differs from run to run more than the window does."""
    ss = fig.steady
    if ss is None or not ss.attained or ss.window_bytes_s is None or ss.window_iops is None:
        return fig
    if fig.read_bytes_s and fig.write_bytes_s:
        return fig  # fio's window mixes both directions; it cannot be split between them
    window_bw = ss.window_bytes_s
    if fig.bytes_s and fig.bytes_s > 100 * window_bw:
        window_bw *= 1024  # fio releases that kept the window's bandwidth in KiB/s
    side = "read" if fig.read_bytes_s else "write"
    return fig.model_copy(
        update={
            f"{side}_bytes_s": window_bw,
            f"{side}_iops": ss.window_iops,
            "run_bytes_s": fig.bytes_s,
            "run_iops": fig.iops,
        }
    )


def job_figures(job: dict, host: str = "") -> JobFigures:
    r, w = job.get("read", {}), job.get("write", {})
    return _steady_window(
        JobFigures(
            name=str(job.get("jobname", "")),
            host=host,
            read_bytes_s=int(r.get("bw_bytes", 0)),
            write_bytes_s=int(w.get("bw_bytes", 0)),
            read_iops=float(r.get("iops", 0.0)),
            write_iops=float(w.get("iops", 0.0)),
            read_p99_us=_p99(r) if r.get("total_ios") else None,
            write_p99_us=_p99(w) if w.get("total_ios") else None,
            runtime_ms=max(int(r.get("runtime", 0)), int(w.get("runtime", 0)), int(job.get("job_runtime", 0))),
            io_bytes=int(r.get("io_bytes", 0)) + int(w.get("io_bytes", 0)),
            error=int(job.get("error", 0)),
            steady=_steady(job),
            cpu_s=_cpu_s(job),
            total_ios=int(r.get("total_ios", 0)) + int(w.get("total_ios", 0)),
        )
    )


def _cpu_s(job: dict) -> float | None:
    """fio gives usr_cpu and sys_cpu as percent of job_runtime, which with group_reporting is every
    job's runtime added up (ms): so their sum over 100 times it is the group's CPU seconds."""
    usr, sys_, ms = job.get("usr_cpu"), job.get("sys_cpu"), job.get("job_runtime")
    if isinstance(usr, (int, float)) and isinstance(sys_, (int, float)) and isinstance(ms, (int, float)) and ms:
        return (usr + sys_) / 100 * ms / 1000
    return None


def figures(obj: dict, *, final: bool = True) -> FioRun:
    """One fio JSON object -> FioRun. Client/server output keeps its jobs under client_stats."""
    if "client_stats" in obj:
        # The per-host "All clients" summary repeats what the hosts report.
        jobs = tuple(
            job_figures(j, host=str(j.get("hostname", "")))
            for j in obj["client_stats"]
            if j.get("jobname") != "All clients"
        )
    else:
        jobs = tuple(job_figures(j) for j in obj.get("jobs", []))
    util = {str(d.get("name", "")): float(d.get("util", 0.0)) for d in obj.get("disk_util", [])}
    return FioRun(jobs=jobs, disk_util=util, fio_version=str(obj.get("fio version", "")), final=final)


def parse_output(text: str, *, finished: bool = True) -> FioRun | None:
    """The last complete object of an output file; None if fio wrote none yet."""
    objs = objects(text)
    if not objs:
        return None
    return figures(objs[-1], final=finished)


def merge_hosts(runs: Iterable[FioRun]) -> tuple[JobFigures, ...]:
    return tuple(j for r in runs for j in r.jobs)
