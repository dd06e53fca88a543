"""Measured beside predicted: the difference in percent, the binding term, and likely reasons.

The prediction comes from the performance model (planners.perf.predict) for the workloads exactly as
they ran; without a plan the measured figures stand alone and the table says "no prediction".
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from runners.host.inventory import read_sysfs
from runners.validate.guard import listdir_or_empty
from runners.validate.suite import ValidateReport

MB = 1_000_000
THRESHOLD_PCT = 20.0
DEFAULT_STRIPE_CACHE = 256
_FROZEN = ConfigDict(frozen=True)


class Conditions(BaseModel):
    """What was true of the array while it was measured, for explaining a gap."""

    model_config = _FROZEN

    resync: str = Field("", description="md sync_action other than idle (resync, recover, check), '' if none.")
    readahead_bytes: int = Field(0, description="Readahead of the target device, in bytes (0 unknown).")
    full_stripe_bytes: int = Field(0, description="Full stripe of the array, in bytes (0 unknown).")
    stripe_cache_size: int | None = Field(None, description="md stripe_cache_size of a RAID4/5/6 array, entries.")
    slow_disks: tuple[str, ...] = Field((), description="Members more than 20 % below the median in the baseline.")
    failing_disks: tuple[str, ...] = Field(
        (), description="Disks SMART says are failing or hold unreadable sectors (a read of one retries)."
    )
    loop: bool = Field(
        False,
        description="The target sits on a loop device that reads its backing file through this host's page cache "
        "(direct I/O off, /sys/block/loopN/loop/dio 0).",
    )
    stacked: bool = Field(
        True, description="The target is an md array or LV: the per-disk baseline (--baseline) reads its disks."
    )


class SideBySide(BaseModel):
    """One workload: measured, predicted, and why they may differ."""

    model_config = _FROZEN

    workload: str = Field(description="Workload name.")
    measured_mb_s: float | None = Field(description="Measured throughput, in MB/s (10^6 bytes).")
    measured_iops: float | None = Field(description="Measured I/Os per second.")
    steady: bool | None = Field(description="fio found the workload steady; None if it was not asked.")
    predicted_mb_s: float | None = Field(None, description="Model's throughput, in MB/s; None without a model.")
    predicted_iops: float | None = Field(None, description="Model's I/Os per second; None without a model.")
    diff_pct: float | None = Field(None, description="(measured - predicted) / predicted, in percent.")
    binding: str = Field("", description="The model's limiting term, e.g. 'disk seq x data disks'.")
    reasons: tuple[str, ...] = Field((), description="Likely reasons where the gap exceeds 20 %.")


def _job_options(text: str) -> dict[str, str]:
    return dict(ln.split("=", 1) for ln in text.splitlines() if "=" in ln and not ln.startswith(";"))


def model_workloads(report: ValidateReport) -> list:
    """The workloads exactly as they ran (block size, depth, jobs), in the model's terms."""
    from planners.perf.jobfile import RW
    from planners.perf.workloads import Workload

    out = []
    for w in report.workloads:
        o = _job_options(w.job_file)
        out.append(
            Workload(
                name=w.name,
                rw=RW[o["rw"]],
                bs=int(o["bs"]),
                direct=o.get("direct") == "1",
                numjobs=int(o.get("numjobs", 1)),
                iodepth=int(o.get("iodepth", 1)),
                ioengine=o.get("ioengine", "libaio"),
                target="file" if report.kind == "file" else "raw",
                # podplan's one file (or the device's start), where the volume's allocator put it
                size=int(o["size"]) if o.get("size", "").isdigit() and int(o["size"]) > 0 else None,
            )
        )
    return out


def load_predictions(plan, report: ValidateReport | None = None, disk_override=None) -> list:
    """planners.perf.predict.predict(...) for the workloads that ran, shared as they ran together."""
    from planners.perf.predict import predict
    from planners.perf.shaped import predict_shaped

    kwargs: dict = {}
    if disk_override is not None:
        kwargs["disk_override"] = disk_override
    if report is not None and report.workloads:
        # a job file's sections keep their shapes (block-size mix, read-back, ...); the suite's are plain
        preds = list(predict_shaped(plan, None, model_workloads(report), **kwargs))
    else:
        preds = list(predict(plan, **kwargs))
    if report is not None:
        from planners.perf.concurrent import share

        preds = share(preds, ran_together(report))
    return preds


def ran_together(report: ValidateReport) -> list:
    """The sections that ran in one fio run at the same time, as planners.perf.jobfile phases."""
    from planners.perf.jobfile import Phase

    runs: dict[str, list[str]] = {}
    for w in report.workloads:
        if w.run:
            runs.setdefault(w.run, []).append(w.name)
    return [Phase(sections=names) for names in runs.values()]


def likely_reasons(
    workload: str, diff_pct: float, cond: Conditions, steady: bool | None, direct: bool
) -> tuple[str, ...]:
    """Why measured and predicted differ, most telling first (pure)."""
    out = []
    slow = diff_pct < 0
    if cond.resync and slow:
        out.append(f"md is running a {cond.resync}: it takes disk bandwidth until it ends")
    if cond.slow_disks and slow:
        out.append(f"slow member(s) {', '.join(cond.slow_disks)}: a stripe waits for its slowest disk")
    if cond.failing_disks and slow:
        out.append(
            f"failing disk(s) {', '.join(cond.failing_disks)} (SMART): a read of an unreadable sector retries "
            "for seconds; replace it"
        )
    if workload == "seq-write" and slow and cond.stripe_cache_size == DEFAULT_STRIPE_CACHE:
        out.append("stripe_cache_size is at its default 256: too few stripes to gather full-stripe writes")
    if (
        workload == "seq-read"
        and not direct
        and cond.full_stripe_bytes
        and 0 < cond.readahead_bytes < 2 * cond.full_stripe_bytes
    ):
        out.append(
            f"readahead {cond.readahead_bytes // 1024} KiB is below two full stripes "
            f"({2 * cond.full_stripe_bytes // 1024} KiB): buffered reads keep few disks busy"
        )
    if steady is False:
        out.append("fio never found the workload steady: the figure moved while it was measured")
    if not slow and not direct:
        out.append("the page cache served part of the I/O (the filesystem refused O_DIRECT)")
    if not slow and cond.loop:
        out.append(
            "the target is a loop device: its backing file sits in this host's page cache, so I/O is "
            "served from memory; measure the real disks or array instead"
        )
    elif not slow and diff_pct > 50 and workload in ("seq-read", "rand-read-4k"):
        out.append(
            "blocks never written (a new sparse or thin volume, trimmed flash) read back as zeros "
            "without touching the disks: on a raw device, write it once (fio or dd), then measure reads"
        )
    if not out:
        # The baseline reads md members and PVs; a plain disk is its own baseline.
        check = "the per-disk baseline (--baseline)" if cond.stacked else "the disk's class in the plan"
        out.append(
            "faster than the model: disks or caches beat the assumed figures"
            if not slow
            else f"slower than the model: check {check} and the as-built check"
        )
    return tuple(out)


def side_by_side(
    report: ValidateReport, predictions: Sequence | None, cond: Conditions = Conditions()
) -> list[SideBySide]:
    by_name = {p.workload: p for p in predictions or ()}
    rows = []
    for w in report.workloads:
        f = w.figures
        mb = f.bytes_s / MB if f else None
        iops = f.iops if f else None
        steady = f.steady.attained if f and f.steady else None
        p = by_name.get(w.name)
        row = SideBySide(workload=w.name, measured_mb_s=mb, measured_iops=iops, steady=steady)
        if p is not None:
            seq = w.name.startswith("seq")
            mine, theirs = (mb, p.mb_s) if seq else (iops, p.iops)
            diff = (mine - theirs) / theirs * 100 if mine is not None and theirs else None
            reasons = (
                likely_reasons(w.name, diff, cond, steady, report.direct)
                if diff is not None and abs(diff) > THRESHOLD_PCT
                else ()
            )
            row = row.model_copy(
                update=dict(
                    predicted_mb_s=p.mb_s, predicted_iops=p.iops, diff_pct=diff, binding=str(p.binding), reasons=reasons
                )
            )
        rows.append(row)
    return rows


def gather_conditions(target: str, slow_disks: Sequence[str] = (), failing_disks: Sequence[str] = ()) -> Conditions:
    """Conditions of the device under a target (device path or directory), from sysfs."""
    try:
        st = os.stat(target)
    except OSError:
        return Conditions(slow_disks=tuple(slow_disks), failing_disks=tuple(failing_disks))
    num = st.st_dev if os.path.isdir(target) else st.st_rdev
    sysdir = os.path.realpath(f"/sys/dev/block/{os.major(num)}:{os.minor(num)}")
    ra = read_sysfs(os.path.join(sysdir, "queue", "read_ahead_kb"))
    io_opt = read_sysfs(os.path.join(sysdir, "queue", "optimal_io_size"))
    resync, cache = "", None
    mds = [sysdir] + [
        os.path.realpath(os.path.join(sysdir, "slaves", s)) for s in listdir_or_empty(os.path.join(sysdir, "slaves"))
    ]
    for d in mds:
        action = read_sysfs(os.path.join(d, "md", "sync_action"))
        if action and action not in ("idle", "frozen"):
            resync = action
        c = read_sysfs(os.path.join(d, "md", "stripe_cache_size"))
        if c.isdigit():
            cache = int(c)
    from runners.validate.shape import leaf_disks

    leaves = leaf_disks(sysdir)
    return Conditions(
        resync=resync,
        readahead_bytes=int(ra) * 1024 if ra.isdigit() else 0,
        full_stripe_bytes=int(io_opt) if io_opt.isdigit() else 0,
        stripe_cache_size=cache,
        slow_disks=tuple(slow_disks),
        failing_disks=tuple(failing_disks),
        # A loop device with direct I/O on reads its file with O_DIRECT: nothing of it stays in the page cache.
        loop=any(n.startswith("loop") and read_sysfs(f"/sys/block/{n}/loop/dio") != "1" for n in leaves),
        stacked=bool(listdir_or_empty(os.path.join(sysdir, "slaves"))),
    )
