"""fio job files as data: pure functions from a target and a shape to the exact text fio reads.

Nothing here runs anything. The text is what gets saved beside a report, so a person can
re-run a workload with plain `fio FILE` and get the same job podplan ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from planners.perf import workloads

KiB = 1024
MiB = 1024**2
WorkloadName = Literal["seq-read", "seq-write", "rand-read-4k", "rand-write-4k"]
WORKLOADS: tuple[WorkloadName, ...] = ("seq-read", "seq-write", "rand-read-4k", "rand-write-4k")
_RW = {"seq-read": "read", "seq-write": "write", "rand-read-4k": "randread", "rand-write-4k": "randwrite"}
_FROZEN = ConfigDict(frozen=True)


class Timing(BaseModel):
    """How long a workload may run and what counts as steady."""

    model_config = _FROZEN

    runtime_s: int = Field(description="Longest a workload runs if it never gets steady, in seconds.")
    ss_duration_s: int = Field(description="Window over which steadiness is judged (steadystate_duration), in seconds.")
    ss_ramp_s: int = Field(description="Time ignored before the window starts (steadystate_ramp_time), in seconds.")
    ss_slope_pct: float = Field(
        description="Steady when the slope of the window is under this, in percent of its mean."
    )


QUICK = Timing(runtime_s=12, ss_duration_s=5, ss_ramp_s=2, ss_slope_pct=2.0)
FULL = Timing(runtime_s=90, ss_duration_s=20, ss_ramp_s=10, ss_slope_pct=1.0)


class Target(BaseModel):
    """Where the I/O goes."""

    model_config = _FROZEN

    path: str = Field(description="Block device, or the file (inside the directory under test) fio creates.")
    kind: Literal["device", "file"] = Field(description="A block device, or a file podplan creates and removes.")
    size_bytes: int = Field(description="Bytes of the device or of the file the workloads cover, in bytes.")
    direct: bool = Field(True, description="O_DIRECT: bypass the page cache (off where the filesystem refuses it).")
    ioengine: str = Field("libaio", description="fio ioengine; libaio queues only with direct I/O.")


class ArrayShape(BaseModel):
    """What the array under the target looks like, so the suite can keep every disk busy."""

    model_config = _FROZEN

    full_stripe_bytes: int = Field(0, description="A full stripe (io_opt), in bytes; 0 when unknown.")
    stripes: int = Field(1, description="Arrays striped together under the target (LV stripes), count.")
    disks: int = Field(1, description="Member disks under the target, count.")
    logical_block: int = Field(512, description="Logical block size of the target, in bytes.")


class FioJobFile(BaseModel):
    """One fio job file: a [global] section and job sections, in order."""

    model_config = _FROZEN

    name: str = Field(description="File stem; the job file is NAME.fio, its output NAME.json.")
    comment: str = Field("", description="Lines written as ';' comments at the top.")
    global_options: tuple[tuple[str, str], ...] = Field(description="[global] key=value pairs, in order.")
    jobs: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = Field(description="(section, key=value pairs).")

    @property
    def text(self) -> str:
        lines = [f"; {c}" for c in self.comment.splitlines()]
        for section, opts in (("global", self.global_options), *self.jobs):
            lines.append(f"[{section}]")
            lines += [f"{k}={v}" if v != "" else k for k, v in opts]
        return "\n".join(lines) + "\n"


class FioWorkload(BaseModel):
    """One workload of the suite: what it is, whether it writes, and its job file."""

    model_config = _FROZEN

    name: str = Field(description="seq-read, seq-write, rand-read-4k, rand-write-4k, or a user job's section.")
    writes: bool = Field(description="True if the workload writes to the target.")
    block_bytes: int = Field(description="I/O size, in bytes.")
    in_flight: int = Field(description="I/Os outstanding over all jobs (iodepth x numjobs), count.")
    job: FioJobFile = Field(description="The job file fio runs.")


def seq_shape(shape: ArrayShape) -> tuple[int, int]:
    """(block size, iodepth): the model's shape of the sequential jobs, so predicted is what ran."""
    return workloads.seq_shape(shape.full_stripe_bytes, shape.stripes, shape.logical_block)


def random_depth(shape: ArrayShape) -> tuple[int, int]:
    """(numjobs, iodepth per job) for the random jobs, as the model shapes them."""
    return workloads.random_depth(shape.disks)


def _global(target: Target, timing: Timing) -> tuple[tuple[str, str], ...]:
    opts = [
        ("filename", target.path),
        ("ioengine", target.ioengine),
        ("direct", "1" if target.direct else "0"),
        ("size", str(target.size_bytes)),
        ("time_based", "1"),
        ("runtime", str(timing.runtime_s)),
        ("group_reporting", "1"),
        ("randrepeat", "0"),
        # Fresh random data: a compressing or deduplicating layer must not flatter the figures.
        ("refill_buffers", "1"),
    ]
    if target.kind == "file":
        # Lay the file out once and keep it between workloads; podplan removes it afterwards.
        opts += [("fallocate", "none"), ("unlink", "0")]
    return tuple(opts)


def workload(name: WorkloadName, target: Target, shape: ArrayShape, timing: Timing) -> FioWorkload:
    """The job file of one workload of the suite."""
    seq = name.startswith("seq")
    if seq:
        bs, depth = seq_shape(shape)
        numjobs = 1
        metric = "bw_slope"
    else:
        bs = max(4 * KiB, shape.logical_block)
        numjobs, depth = random_depth(shape)
        metric = "iops_slope"
    job = (
        ("rw", _RW[name]),
        ("bs", str(bs)),
        ("iodepth", str(depth)),
        ("numjobs", str(numjobs)),
        ("steadystate", f"{metric}:{timing.ss_slope_pct:g}%"),
        ("steadystate_duration", str(timing.ss_duration_s)),
        ("steadystate_ramp_time", _ramp(timing)),
    )
    comment = f"podplan {name} on {target.path}\nre-run with: fio --output-format=json --output=OUT.json THIS.fio"
    jf = FioJobFile(name=name, comment=comment, global_options=_global(target, timing), jobs=((name, job),))
    return FioWorkload(
        name=name, writes=name.endswith(("write", "write-4k")), block_bytes=bs, in_flight=depth * numjobs, job=jf
    )


def _ramp(timing: Timing) -> str:
    """steadystate_ramp_time as fio reads it, never zero. With no ramp, fio (3.33 and earlier)
    divides by the milliseconds since the job began at its first steady-state check; a check in
    that first millisecond (a loaded host gives one now and then) kills fio with SIGFPE. With any
    ramp, the first division waits until a second past it, so 1 ms stands in for none."""
    return str(timing.ss_ramp_s) if timing.ss_ramp_s > 0 else "1ms"


def _user_section(w: workloads.Workload, target: Target, timing: Timing, steady: bool) -> tuple[tuple[str, str], ...]:
    direct = w.direct and target.direct  # a filesystem that refuses O_DIRECT runs it buffered, and says so
    rw = "readwrite" if w.rw == "rewrite" else w.rw
    opts = [
        ("rw", rw),
        ("bs", str(w.bs)),
        ("ioengine", w.ioengine),
        ("direct", "1" if direct else "0"),
        ("iodepth", str(w.iodepth)),
        ("numjobs", str(w.numjobs)),
        *w.fio_extras(),
    ]
    if w.size and w.size < target.size_bytes:
        # the section's own span (size=512m) over podplan's target; a span past the target is the target
        opts.append(("size", str(w.size)))
    if w.verify:
        # fio saves a verifying writer's state at its end as local-NAME-N-verify.state in the directory
        # it runs in (backend.c, verify-state.h): a file named after the section, wherever podplan was
        # started. Nothing here loads it back.
        opts.append(("verify_state_save", "0"))
    if steady:
        opts += [
            ("steadystate", f"{'iops_slope' if w.is_random else 'bw_slope'}:{timing.ss_slope_pct:g}%"),
            ("steadystate_duration", str(timing.ss_duration_s)),
            ("steadystate_ramp_time", _ramp(timing)),
        ]
    return tuple(opts)


def _runner_workload(w: workloads.Workload, jf: FioJobFile) -> FioWorkload:
    return FioWorkload(name=w.name, writes=w.writes, block_bytes=w.bs, in_flight=w.in_flight, job=jf)


def user_workload(w: workloads.Workload, target: Target, timing: Timing) -> FioWorkload:
    """A section of the user's own job file, run as written on `target` (podplan's target, size and
    timing; the section's rw, bs, depth, jobs, engine and direct)."""
    comment = f"podplan: the job [{w.name}] on {target.path}, as its job file wrote it"
    jf = FioJobFile(
        name=w.name,
        comment=comment,
        global_options=_global(target, timing),
        jobs=((w.name, _user_section(w, target, timing, steady=True)),),
    )
    return _runner_workload(w, jf)


def user_phase(ws: Sequence[workloads.Workload], target: Target, timing: Timing) -> tuple[FioWorkload, ...]:
    """Sections fio runs at the same time, as one job file that runs them together: each section
    is its own reporting group (new_group) and runs its whole runtime, not until it alone is steady,
    so the sections overlap from start to end as they do in the user's file."""
    if len(ws) == 1:
        return (user_workload(ws[0], target, timing),)
    names = [w.name for w in ws]
    comment = (
        f"podplan: the jobs [{'], ['.join(names)}] on {target.path}, together as their job file runs them\n"
        "re-run with: fio --output-format=json --output=OUT.json THIS.fio"
    )
    sections = tuple(
        (w.name, _user_section(w, target, timing, steady=False) + ((("new_group", ""),) if i else ()))
        for i, w in enumerate(ws)
    )
    jf = FioJobFile(name="+".join(names)[:100], comment=comment, global_options=_global(target, timing), jobs=sections)
    return tuple(_runner_workload(w, jf) for w in ws)


# One log line a second: fio's own per-I/O logs run to millions of lines on a fast array.
LOG_AVG_MSEC = 1000


def with_logs(job: FioJobFile, prefix: str) -> FioJobFile:
    """The job file with fio's bandwidth, latency and IOPS logs (write_bw_log, write_lat_log,
    write_iops_log) written to PREFIX_bw.N.log and the like, averaged over a second."""
    opts = (("write_bw_log", prefix), ("write_lat_log", prefix), ("write_iops_log", prefix))
    return job.model_copy(update={"global_options": (*job.global_options, *opts, ("log_avg_msec", str(LOG_AVG_MSEC)))})


def suite(
    target: Target, shape: ArrayShape, timing: Timing = QUICK, names: tuple[WorkloadName, ...] = WORKLOADS
) -> tuple[FioWorkload, ...]:
    """The workloads of the suite, in the order they run."""
    return tuple(workload(n, target, shape, timing) for n in WORKLOADS if n in names)


def fio_argv(
    job_path: str, output_path: str, *, status_interval: int = 1, fio: str = "fio", client: tuple[str, ...] = ()
) -> list[str]:
    """The fio command for one job file: JSON to its own file (fio prints notes on stdout),
    a cumulative JSON object every `status_interval` seconds for progress."""
    argv = [fio, "--output-format=json", f"--output={output_path}"]
    if status_interval:
        argv.append(f"--status-interval={status_interval}")
    for host in client:
        argv.append(f"--client={host}")
    return [*argv, job_path]
