"""Per-disk baseline: every member disk at once in one fio run, read-only, outer and inner zone.

One slow disk drags a whole array (a stripe completes when its slowest member does), so a
disk more than 20 % below the median of its peers is flagged. The disks run concurrently,
as they do inside the array, so a shared link or HBA limit shows up here too. Reads only:
nothing here ever writes to a disk.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
import threading
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from planners.hardware.disks import DISK_CLASSES, DiskPerf, ResolvedDisk, resolve_disk
from planners.hardware.machine import Hardware
from planners.models import Plan
from runners.files import make_run_dir, write_text
from runners.fio.jobs import FioJobFile, fio_argv
from runners.fio.result import FioRun
from runners.fio.run import run_fio
from runners.host.inventory import DiskInfo

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


def baseline_job(disks: Sequence[tuple[str, int]], runtime_s: int = 5) -> FioJobFile:
    """One job per disk and phase; a stonewall between phases so each phase has all disks at once."""
    glob = (
        ("ioengine", "libaio"),
        ("direct", "1"),
        ("time_based", "1"),
        ("runtime", str(runtime_s)),
        ("group_reporting", "0"),
        ("randrepeat", "0"),
    )
    jobs = []
    for phase in PHASES:
        for i, (path, size) in enumerate(disks):
            z = zone_bytes(size)
            opts = [("filename", path)]
            if phase == "rand":
                opts += [("rw", "randread"), ("bs", "4096"), ("iodepth", "16")]
            else:
                opts += [
                    ("rw", "read"),
                    ("bs", str(MiB)),
                    ("iodepth", "4"),
                    ("size", str(z)),
                    ("offset", "0" if phase == "outer" else str(size - z - (size - z) % MiB)),
                ]
            if i == 0 and phase != PHASES[0]:
                opts.append(("stonewall", ""))
            jobs.append((f"{phase}:{_tag(path)}", tuple(opts)))
    return FioJobFile(
        name="baseline",
        comment="podplan per-disk baseline (read-only)\n"
        "re-run with: fio --readonly --output-format=json --output=baseline.json baseline.fio",
        global_options=glob,
        jobs=tuple(jobs),
    )


def flag_slow(values: dict[str, float]) -> tuple[float, set[str]]:
    """(median, the keys more than 20 % below it)."""
    if not values:
        return 0.0, set()
    med = statistics.median(values.values())
    return med, {k for k, v in values.items() if v < SLOW_FRACTION * med}


def summarize(
    run: FioRun | None, disks: Sequence[tuple[str, int]]
) -> tuple[tuple[DiskBaseline, ...], dict[str, float]]:
    got: dict[str, dict[str, float]] = {p: {} for p in PHASES}
    for j in run.jobs if run else ():
        phase, _, tag = j.name.partition(":")
        if phase in got and j.io_bytes:
            got[phase][tag] = j.read_iops if phase == "rand" else j.read_bytes_s / 1e6
    medians, slow = {}, {}
    for phase in PHASES:
        medians[phase], slow[phase] = flag_slow(got[phase])
    out = tuple(
        DiskBaseline(
            device=path,
            outer_mb_s=got["outer"].get(_tag(path)),
            inner_mb_s=got["inner"].get(_tag(path)),
            rand_read_iops=got["rand"].get(_tag(path)),
            slow=tuple(p for p in PHASES if _tag(path) in slow[p]),
        )
        for path, _ in disks
    )
    return out, medians


def run_baseline(
    devices: Sequence[str],
    *,
    runtime_s: int = 5,
    report_dir: str | None = None,
    on_progress: Callable[[FioRun, float], None] | None = None,
    cancel: threading.Event | None = None,
) -> Baseline:
    """Measure every device at once (read-only); flag the slow ones."""
    disks = []
    for d in devices:
        with open(d, "rb") as f:
            disks.append((d, f.seek(0, os.SEEK_END)))
    job = baseline_job(disks, runtime_s)
    with tempfile.TemporaryDirectory(prefix="podplan-baseline-") as tmp:
        out = str(make_run_dir(report_dir, reuse=True)) if report_dir else tmp
        job_path, json_path = os.path.join(out, "baseline.fio"), os.path.join(out, "baseline.json")
        write_text(job_path, job.text, force=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(json_path)  # fio opens its output by name: a link planted there is removed, not followed
        # --readonly makes fio itself refuse any write, whatever the job file says.
        outcome = run_fio(
            [*fio_argv(job_path, json_path)[:-1], "--readonly", job_path],
            json_path,
            timeout_s=len(PHASES) * runtime_s + 60,
            on_progress=on_progress,
            cancel=cancel,
        )
    per_disk, medians = summarize(outcome.result, disks)
    return Baseline(disks=per_disk, medians=medians, job_file=job.text, partial=outcome.partial, reason=outcome.reason)


_STACKED = ("raid", "lvm", "dm", "linear", "crypt")


def node_of(target: str, devices: Sequence[DiskInfo]) -> DiskInfo | None:
    """The block device TARGET names, or the one mounted under a directory TARGET; None if neither."""
    real = os.path.realpath(target)
    node = next((d for d in devices if real in (d.path, os.path.realpath(d.path), f"/dev/{d.name}")), None)
    if node is None and not real.startswith("/dev/"):
        mounted = [(m, d) for d in devices for m in d.mountpoints if real == m or real.startswith(m.rstrip("/") + "/")]
        node = max(mounted, key=lambda md: len(md[0]))[1] if mounted else None
    return node


def parents_of(devices: Sequence[DiskInfo]) -> dict[str, list[DiskInfo]]:
    """Each device's name -> the devices it is stacked on (a partition's disk, an array's members)."""
    parents: dict[str, list[DiskInfo]] = {}
    for d in devices:
        for kid in d.children:
            parents.setdefault(kid, []).append(d)
    return parents


def members_of(target: str, devices: Sequence[DiskInfo]) -> tuple[str, ...] | None:
    """The disks (or partitions) at the bottom of an md array or LV, from parsed lsblk; a directory
    is followed to the device mounted under it. None when the target is neither."""
    node = node_of(target, devices)
    if node is None or not node.type.startswith(_STACKED):
        return None
    parents = parents_of(devices)
    leaves: list[str] = []

    def down(d: DiskInfo) -> None:
        ups = parents.get(d.name, [])
        if not ups and d is not node and d.path not in leaves:
            leaves.append(d.path)
        for up in ups:
            down(up)

    down(node)
    return tuple(leaves) or None


def disk_perf_from(base: Baseline, preset: ResolvedDisk) -> DiskPerf | None:
    """The model's per-disk figures from a read-only baseline: None if it measured nothing.

    DiskPerf is flat (one figure for the whole surface), so sequential reads are the mean of the
    outer and inner medians. The median, not the slowest disk, stands for "a member": a slow
    disk is reported beside the comparison as a likely reason, not hidden inside the prediction.
    The baseline never writes, so write figures keep the preset's write/read ratios applied to
    the measured reads; a phase that measured nothing falls back to the preset's figure.
    """
    outer, inner, rand = (base.medians.get(p) or 0.0 for p in PHASES)
    zones = [v for v in (outer, inner) if v > 0]
    if not zones and not rand:
        return None
    seq = sum(zones) / len(zones) if zones else (preset.seq_outer_mb_s + preset.seq_inner_mb_s) / 2
    rr = rand or preset.rand_read_iops
    return DiskPerf(
        seq_read_mb_s=seq,
        seq_write_mb_s=seq * preset.seq_write_factor,
        rand_read_iops=rr,
        rand_write_iops=rr * preset.rand_write_iops / preset.rand_read_iops,
    )


def plan_preset(plan: Plan) -> ResolvedDisk:
    """The class figures the model would use for the plan's first disk set."""
    hw = plan.hardware or Hardware()
    d = plan.disks[0]
    spec = hw.disk_spec(d.model)
    if not d.rotational and DISK_CLASSES[spec.disk_class].rpm:
        spec = spec.model_copy(update={"disk_class": "ssd-sata"})  # as the model does for an SSD kept in an HDD class
    return resolve_disk(spec)
