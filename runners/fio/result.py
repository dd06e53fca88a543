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


class Spread(BaseModel):
    """How one figure varied over fio's steady-state window, a sample a second."""

    model_config = _FROZEN

    sigma: float = Field(description="Standard deviation of the window's samples (population), in the figure's unit.")
    low: float = Field(description="Lowest sample of the window, in the figure's unit.")
    high: float = Field(description="Highest sample of the window, in the figure's unit.")
    samples: int = Field(description="Samples in the window (one a second), count.")


class Latency(BaseModel):
    """Completion latency of one direction (fio's clat_ns: submission to completion)."""

    model_config = _FROZEN

    mean_us: float = Field(description="Mean completion latency, in microseconds.")
    p50_us: float | None = Field(description="Median, in microseconds.")
    p99_us: float | None = Field(description="99th percentile, in microseconds.")
    p99_9_us: float | None = Field(description="99.9th percentile, in microseconds.")


class Steady(BaseModel):
    """fio's steady-state verdict for one job."""

    model_config = _FROZEN

    criterion: str = Field(description="What was asked, e.g. 'bw_slope:2.000000%'.")
    attained: bool = Field(description="True if fio found the job steady (and stopped it early).")
    window_s: int = Field(description="Length of the window judged (steadystate_duration), in seconds.")
    measured: str = Field(description="The slope or deviation fio measured last, as it prints it.")
    window_bytes_s: int | None = Field(None, description="Mean bandwidth over the judged window, in bytes per second.")
    window_iops: float | None = Field(None, description="Mean I/Os per second over the judged window.")
    bytes_s_spread: Spread | None = Field(None, description="The window's bandwidth samples, in bytes per second.")
    iops_spread: Spread | None = Field(None, description="The window's I/Os per second samples.")


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
    read_latency: Latency | None = Field(None, description="Read completion latency over the whole run.")
    write_latency: Latency | None = Field(None, description="Write completion latency over the whole run.")

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
    return [obj for obj, _ in _spans(text)]


def _spans(text: str) -> list[tuple[dict, tuple[int, int]]]:
    out: list[tuple[dict, tuple[int, int]]] = []
    decoder = json.JSONDecoder()
    pos = text.find("{")
    while pos >= 0:
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            break  # still being written
        if isinstance(obj, dict):
            out.append((obj, (pos, end)))
        pos = text.find("{", end)
    return out


def last_document(text: str) -> str | None:
    """fio's last complete JSON object exactly as it wrote it (its final report, or the last
    progress object of a run cut short), alone: what fio writes without --status-interval and
    what tools that read fio's output (fio-plot, fio2gnuplot) expect, one document a file."""
    spans = _spans(text)
    if not spans:
        return None
    start, end = spans[-1][1]
    return text[start:end] + "\n"


def _p99(side: dict) -> float | None:
    pct = side.get("clat_ns", {}).get("percentile") or {}
    v = pct.get("99.000000")
    return v / 1000.0 if v is not None else None


def _latency(side: dict) -> Latency | None:
    clat = side.get("clat_ns") or {}
    if not side.get("total_ios") or not isinstance(clat.get("mean"), (int, float)):
        return None
    pct = clat.get("percentile") or {}

    def at(key: str) -> float | None:
        v = pct.get(key)
        return v / 1000.0 if isinstance(v, (int, float)) else None

    return Latency(
        mean_us=clat["mean"] / 1000.0, p50_us=at("50.000000"), p99_us=at("99.000000"), p99_9_us=at("99.900000")
    )


def _spread(samples: object) -> Spread | None:
    if not isinstance(samples, list) or not samples or not all(isinstance(v, (int, float)) for v in samples):
        return None
    xs = [float(v) for v in samples]
    mean = sum(xs) / len(xs)
    sigma = (sum((v - mean) ** 2 for v in xs) / len(xs)) ** 0.5
    return Spread(sigma=sigma, low=min(xs), high=max(xs), samples=len(xs))


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
        bytes_s_spread=_spread(data.get("bw")),
        iops_spread=_spread(data.get("iops")),
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
        sp = ss.bytes_s_spread
        if sp is not None:
            sp = sp.model_copy(update={"sigma": sp.sigma * 1024, "low": sp.low * 1024, "high": sp.high * 1024})
        fig = fig.model_copy(update={"steady": ss.model_copy(update={"bytes_s_spread": sp})})
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
            read_latency=_latency(r),
            write_latency=_latency(w),
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
