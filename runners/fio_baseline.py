"""Per-disk baseline: every member disk at once in one fio run, read-only, outer and inner zone.

One slow disk drags a whole array (a stripe completes when its slowest member does), so a
disk more than 20 % below the median of its peers is flagged. The disks run concurrently,
as they do inside the array, so a shared link or HBA limit shows up here too. Reads only:
nothing here ever writes to a disk.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from runners.fio_jobs import JobFile, fio_argv
from runners.fio_result import FioRun
from runners.fio_run import run_fio

MiB = 1024**2
GiB = 1024**3
SLOW_FRACTION = 0.8  # more than 20 % below the median
PHASES = ("outer", "inner", "rand")
_FROZEN = ConfigDict(frozen=True)


class DiskBaseline(BaseModel):
    """One disk's figures."""

    model_config = _FROZEN

    device: str = Field(description="Device path.")
    outer_mb_s: float | None = Field(description="Sequential read at the start of the disk, MB/s (10^6 bytes/s).")
    inner_mb_s: float | None = Field(description="Sequential read at the end of the disk, MB/s.")
    rand_read_iops: float | None = Field(description="4 KiB random reads per second over the whole disk.")
    slow: tuple[str, ...] = Field(description="Phases where the disk is more than 20 % below the median.")


class Baseline(BaseModel):
    """All disks of one baseline run."""

    model_config = _FROZEN

    disks: tuple[DiskBaseline, ...] = Field(description="Per disk, in the order given.")
    medians: dict[str, float] = Field(description="Median per phase (outer, inner MB/s; rand IOPS).")
    job_file: str = Field(description="The fio job file that ran.")
    partial: bool = Field(description="True if the run was stopped or failed before its end.")
    reason: str = Field("", description="Why it is partial.")

    @property
    def slow_disks(self) -> tuple[str, ...]:
        return tuple(d.device for d in self.disks if d.slow)


def zone_bytes(size: int, wanted: int = 1 * GiB) -> int:
    """The span read at each end of a disk: `wanted`, or a tenth of a small disk."""
    z = min(wanted, size // 10)
    return max(MiB, z - z % MiB)


def _tag(path: str) -> str:
    return os.path.basename(path)


def baseline_job(disks: Sequence[tuple[str, int]], runtime_s: int = 5) -> JobFile:
    """One job per disk and phase; a stonewall between phases so each phase has all disks at once."""
    glob = (("ioengine", "libaio"), ("direct", "1"), ("time_based", "1"), ("runtime", str(runtime_s)),
            ("group_reporting", "0"), ("randrepeat", "0"))
    jobs = []
    for phase in PHASES:
        for i, (path, size) in enumerate(disks):
            z = zone_bytes(size)
            opts = [("filename", path)]
            if phase == "rand":
                opts += [("rw", "randread"), ("bs", "4096"), ("iodepth", "16")]
            else:
                opts += [("rw", "read"), ("bs", str(MiB)), ("iodepth", "4"), ("size", str(z)),
                         ("offset", "0" if phase == "outer" else str(size - z - (size - z) % MiB))]
            if i == 0 and phase != PHASES[0]:
                opts.append(("stonewall", ""))
            jobs.append((f"{phase}:{_tag(path)}", tuple(opts)))
    return JobFile(name="baseline", comment="podplan per-disk baseline (read-only)\n"
                   "re-run with: fio --readonly --output-format=json --output=baseline.json baseline.fio",
                   global_options=glob, jobs=tuple(jobs))


def flag_slow(values: dict[str, float]) -> tuple[float, set[str]]:
    """(median, the keys more than 20 % below it)."""
    if not values:
        return 0.0, set()
    med = statistics.median(values.values())
    return med, {k for k, v in values.items() if v < SLOW_FRACTION * med}


def summarize(run: FioRun | None, disks: Sequence[tuple[str, int]]) -> tuple[tuple[DiskBaseline, ...], dict[str, float]]:
    got: dict[str, dict[str, float]] = {p: {} for p in PHASES}
    for j in run.jobs if run else ():
        phase, _, tag = j.name.partition(":")
        if phase in got and j.io_bytes:
            got[phase][tag] = j.read_iops if phase == "rand" else j.read_bytes_s / 1e6
    medians, slow = {}, {}
    for phase in PHASES:
        medians[phase], slow[phase] = flag_slow(got[phase])
    out = tuple(DiskBaseline(
        device=path, outer_mb_s=got["outer"].get(_tag(path)), inner_mb_s=got["inner"].get(_tag(path)),
        rand_read_iops=got["rand"].get(_tag(path)),
        slow=tuple(p for p in PHASES if _tag(path) in slow[p])) for path, _ in disks)
    return out, medians


def run_baseline(devices: Sequence[str], *, runtime_s: int = 5, report_dir: str | None = None,
                 on_progress: Callable[[FioRun, float], None] | None = None,
                 cancel: threading.Event | None = None) -> Baseline:
    """Measure every device at once (read-only); flag the slow ones."""
    disks = []
    for d in devices:
        with open(d, "rb") as f:
            disks.append((d, f.seek(0, os.SEEK_END)))
    job = baseline_job(disks, runtime_s)
    with tempfile.TemporaryDirectory(prefix="podplan-baseline-") as tmp:
        out = report_dir or tmp
        job_path, json_path = os.path.join(out, "baseline.fio"), os.path.join(out, "baseline.json")
        with open(job_path, "w") as f:
            f.write(job.text)
        # --readonly makes fio itself refuse any write, whatever the job file says.
        outcome = run_fio([*fio_argv(job_path, json_path)[:-1], "--readonly", job_path], json_path, timeout_s=len(PHASES) * runtime_s + 60,
                          on_progress=on_progress, cancel=cancel)
    per_disk, medians = summarize(outcome.result, disks)
    return Baseline(disks=per_disk, medians=medians, job_file=job.text, partial=outcome.partial,
                    reason=outcome.reason)
