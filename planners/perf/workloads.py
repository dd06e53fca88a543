"""Workloads in fio's own terms, and the presets podplan predicts by default.

A workload says what is asked of the array, not how fast it goes: the shape of the I/O
(rw, bs), how much is in flight (numjobs, iodepth, ioengine, direct) and where it lands
(the raw device or a file on the filesystem, and how much of it the I/O spans).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PlanError
from planners.units import MAX_BYTES, KiB, MiB

GB = 10**9
# Bounds that keep the model's floats finite: a run of at most a thousand years, and no size or
# count past what a 64-bit offset holds.
MAX_SECONDS = 3.2e10
Count = Annotated[int, Field(gt=0, le=MAX_BYTES)]

Frozen = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)  # inf and nan are no measurement

# fio's rw values, plus "rewrite": read a block, then write it back in place (bonnie++'s
# rewrite), whose figure counts each byte once although the disks move it twice.
# "readwrite" and "randrw" are fio's mixes: read_mix of the requests are reads.
Rw = Literal["read", "write", "randread", "randwrite", "rewrite", "readwrite", "randrw"]
MIXES = ("readwrite", "randrw")
# posixaio is not here: glibc's POSIX AIO runs a file descriptor's requests one after another on
# one helper thread (aio_misc.c queues a request behind any other for the same fd), so a job on
# one file has one request in flight whatever its iodepth.
ASYNC_ENGINES = ("libaio", "io_uring")
ONE_AT_A_TIME_AIO = ("posixaio",)


class Workload(BaseModel):
    """One fio job (or a job group of numjobs identical jobs)."""

    model_config = Frozen

    name: str = Field(description="Preset or user name, shown with each prediction.")
    description: str = Field("", description="What the workload stands for.")
    rw: Rw = Field(description="fio rw: read, write, randread, randwrite, or rewrite (see module docs).")
    bs: int = Field(gt=0, le=MAX_BYTES, description="Block size of each request, in bytes (fio bs).")
    direct: bool = Field(True, description="O_DIRECT (fio direct=1); False goes through the page cache.")
    numjobs: int = Field(1, ge=1, le=4096, description="Independent jobs issuing I/O at once (count).")
    iodepth: int = Field(
        1, ge=1, le=65536, description="Requests in flight per job (count); only async engines with direct=1 honour it."
    )
    ioengine: str = Field("libaio", description="fio ioengine: libaio, io_uring, psync, sync, ...")
    target: Literal["raw", "file"] = Field("raw", description="The top block device, or a file on the filesystem.")
    size: int | None = Field(
        None, gt=0, le=MAX_BYTES, description="Bytes the I/O spans (fio size); None = the whole device."
    )
    files: int = Field(
        1,
        ge=1,
        le=4096,
        description="Files the job's bytes are split over, laid out one after "
        "another (fio gives each clone its own file unless a filename "
        "names one they share), count.",
    )
    io_bytes: int | None = Field(
        None,
        gt=0,
        le=MAX_BYTES,
        description="Bytes the run moves before it ends, all jobs together (fio io_size / number_ios); None = size.",
    )
    readahead: int | None = Field(
        None,
        gt=0,
        le=MAX_BYTES,
        description="The top device's readahead during this run, bytes (blockdev --setra x 512); None = the plan's.",
    )
    runtime_s: float | None = Field(
        None,
        gt=0,
        le=MAX_SECONDS,
        description="How long the run lasts, seconds (fio runtime); None = long enough for the steady rate.",
    )
    ramp_s: float = Field(
        0.0,
        ge=0,
        le=MAX_SECONDS,
        description="I/O the run does before fio counts anything, seconds (fio ramp_time): its figures are "
        "those of the runtime_s after it.",
    )
    fadvise_sequential: bool = Field(
        False,
        description="The reader tells the kernel it reads sequentially "
        "(fio's fadvise_hint, on by default): the kernel doubles "
        "its readahead window.",
    )
    time_based: bool = Field(
        False,
        description="The run lasts runtime_s whatever its size (fio time_based); "
        "otherwise it also ends once size bytes are done.",
    )
    read_mix: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Share of a mix's requests that are reads (fio rwmixread / 100); pure workloads ignore it.",
    )
    rate_bytes_s: tuple[Count | None, Count | None] = Field(
        (None, None), description="fio rate: each job's cap on reads and on writes, bytes/s (None = none)."
    )
    rate_iops: tuple[Count | None, Count | None] = Field(
        (None, None), description="fio rate_iops: each job's cap on read and on write requests per second."
    )
    thinktime_us: float = Field(
        0.0, ge=0, le=MAX_SECONDS * 1e6, description="fio thinktime: each job pauses this long, microseconds, ..."
    )
    thinktime_blocks: int = Field(
        1, ge=1, le=MAX_BYTES, description="... after this many requests (fio thinktime_blocks)."
    )
    sync_every: int = Field(
        0,
        ge=0,
        le=MAX_BYTES,
        description="A flush after every this many writes (fio fsync / fdatasync; 1 with sync=1, O_SYNC); 0 = none.",
    )
    sync_metadata: bool = Field(
        True,
        description="Each flush also commits the filesystem's journal (fsync, "
        "O_SYNC) rather than data alone (fdatasync of a laid-out file).",
    )
    end_fsync: bool = Field(
        False, description="The run ends with an fsync and counts its time (fio end_fsync=1, dd conv=fdatasync)."
    )
    bs_split: tuple[tuple[tuple[int, float], ...], tuple[tuple[int, float], ...]] = Field(
        ((), ()),
        description="fio bssplit / bsrange for reads and for writes: (block size in bytes, share of the "
        "requests from 0 to 1) per size; empty = every request is bs.",
    )
    random_distribution: str = Field(
        "random",
        description="fio random_distribution as written (random, zipf:T, "
        "pareto:H, normal:D, zoned:..., zoned_abs:...).",
    )
    verify: bool = Field(False, description="fio verify with do_verify: the writes are read back and checked.")
    verify_backlog: int = Field(
        0,
        ge=0,
        description="fio verify_backlog: read back after every this many writes "
        "(interleaved); 0 = once the write pass ends.",
    )
    sorted_readback: bool = Field(
        False,
        description="fio keeps written blocks sorted by offset (norandommap, "
        "an rw modifier, io_size past size), so a random write pass "
        "is read back in offset order.",
    )
    latency_target_us: float = Field(
        0.0,
        ge=0,
        description="fio latency_target: the latency, microseconds, fio lowers the queue depth to meet; 0 = none.",
    )
    latency_percentile: float = Field(
        100.0, gt=0, le=100, description="fio latency_percentile: the share of requests, percent, that must meet it."
    )
    flow: int = Field(
        0,
        description="fio flow: this job's weight in the flow-controlled group (0 = none); the "
        "jobs' request counts keep the ratio of their weights.",
    )
    flow_id: int = Field(0, description="fio flow_id: the flow group whose weights this job's flow is weighed against.")
    submit_offload: bool = Field(False, description="fio io_submit_mode=offload: helper threads submit requests.")
    rate_min_bytes_s: int | None = Field(
        None,
        gt=0,
        description="fio rate_min (rate_iops_min x bs): below this rate, bytes/s, fio ends the job with an error.",
    )
    offset: int = Field(
        0,
        ge=0,
        description="Where the job's I/O starts on its target, bytes (fio offset, plus "
        "half the offset_increment spread of its clones).",
    )
    clone_step: int = Field(
        0,
        ge=0,
        le=MAX_BYTES,
        description="fio offset_increment: bytes between where one clone starts and the next; "
        "0 = every clone starts at the same offset (planners.perf.clones).",
    )
    zone_bytes: int = Field(
        0,
        ge=0,
        description="fio zonemode=strided: bytes moved in a zone before fio jumps to the next one; 0 = no jumps.",
    )
    moves_nothing: str = Field(
        "",
        description="Why fio moves no byte in this job, though it runs ('' when it moves some): "
        "the prediction is then zero, with this reason.",
    )
    stride: int = Field(
        0,
        description="fio rw=...:N: bytes skipped after each sequential request (negative: "
        "the job goes backwards); 0 = none.",
    )

    @property
    def is_read(self) -> bool:
        return self.rw in ("read", "randread")

    @property
    def is_random(self) -> bool:
        return self.rw in ("randread", "randwrite", "randrw")

    @property
    def writes(self) -> bool:
        return self.rw in ("write", "randwrite", "rewrite", *MIXES)

    @property
    def run_bytes(self) -> int | None:
        """Bytes the run moves before it ends by size (fio io_size, else size)."""
        return self.io_bytes or self.size

    @property
    def is_mix(self) -> bool:
        return self.rw in MIXES

    @property
    def timed_end_s(self) -> float | None:
        """Seconds from the job's start to the end of its runtime (fio's runtime starts after ramp_time)."""
        return self.ramp_s + self.runtime_s if self.runtime_s else None

    @property
    def in_flight(self) -> int:
        """Requests outstanding at once: fio's iodepth only counts with an async engine and O_DIRECT."""
        depth = self.iodepth if (self.direct and self.ioengine in ASYNC_ENGINES) else 1
        return self.numjobs * depth

    def fio_job(self, filename: str = "${FIO_TARGET}", runtime_s: int = 30) -> str:
        """The fio job file that measures this workload (its size stays the caller's business)."""
        lines = [
            f"[{self.name}]",
            f"filename={filename}",
            f"rw={'readwrite' if self.rw == 'rewrite' else self.rw}",
            f"bs={self.bs}",
            f"direct={int(self.direct)}",
            f"ioengine={self.ioengine}",
            f"iodepth={self.iodepth}",
            f"numjobs={self.numjobs}",
            "group_reporting=1",
            f"runtime={runtime_s}",
            "time_based=1",
        ]
        if self.ramp_s:
            lines.append(f"ramp_time={self.ramp_s * 1e6:.0f}us")
        if self.size:
            lines.append(f"size={self.size}")
        if self.io_bytes:
            lines.append(f"io_size={self.io_bytes // self.numjobs}")
        if self.is_random:
            lines.append("randrepeat=0")
        lines += [f"{k}={v}" for k, v in self.fio_extras()]
        return "\n".join(lines) + "\n"

    def fio_extras(self) -> list[tuple[str, str]]:
        """The job's options beyond shape and depth, in fio's spelling (mix, caps, pauses, flushes)."""
        out: list[tuple[str, str]] = []
        if self.is_mix:
            out.append(("rwmixread", f"{round(self.read_mix * 100)}"))
        for key, pair in (("rate", self.rate_bytes_s), ("rate_iops", self.rate_iops)):
            if any(v is not None for v in pair):
                out.append((key, ",".join("" if v is None else str(v) for v in pair)))
        if self.thinktime_us:
            out += [("thinktime", f"{self.thinktime_us:g}"), ("thinktime_blocks", str(self.thinktime_blocks))]
        if self.sync_every:
            out.append(("fsync" if self.sync_metadata else "fdatasync", str(self.sync_every)))
        return out + self.shape_extras()

    def shape_extras(self) -> list[tuple[str, str]]:
        """The options of a block-size mix, hot set, read-back, latency target and flow, as fio spells them."""
        out: list[tuple[str, str]] = []
        if any(self.bs_split):
            sides = [":".join(f"{b}/{p * 100:g}" for b, p in side) or str(self.bs) for side in self.bs_split]
            out.append(("bssplit", ",".join(sides)))
        if self.random_distribution != "random":
            out.append(("random_distribution", self.random_distribution))
        if self.verify:
            out += [("verify", "crc32c")] + (
                [("verify_backlog", str(self.verify_backlog))] if self.verify_backlog else []
            )
        if self.latency_target_us:
            out += [
                ("latency_target", f"{self.latency_target_us:g}us"),
                ("latency_percentile", f"{self.latency_percentile:g}"),
            ]
        if self.flow:
            out.append(("flow", str(self.flow)))
        if self.submit_offload:
            out.append(("io_submit_mode", "offload"))
        if self.clone_step:
            out.append(("offset_increment", str(self.clone_step)))
        return out


def _w(name: str, description: str, rw: Rw, bs: int, **kw: object) -> Workload:
    return Workload(name=name, description=description, rw=rw, bs=bs, **kw)  # type: ignore[arg-type]


# podplan's validation suite, as `podplan validate` runs it. The presets carry placeholder
# shapes; `for_plan` sets the real ones from the array (see `suite_shape`).
VALIDATION = (
    _w("seq-read", "sequential read, direct, two full stripes in flight", "read", MiB, iodepth=2),
    _w("seq-write", "sequential write, direct, two full stripes in flight", "write", MiB, iodepth=2),
    _w("rand-read-4k", "4 KiB random read, direct, 4 in flight per disk", "randread", 4 * KiB, iodepth=16),
    _w("rand-write-4k", "4 KiB random write, direct, 4 in flight per disk", "randwrite", 4 * KiB, iodepth=16),
)
OTHERS = (
    _w(
        "dd-write",
        "dd if=/dev/zero of=FILE bs=1M: one buffered stream into a file",
        "write",
        MiB,
        direct=False,
        ioengine="psync",
        target="file",
        size=10 * GB,
    ),
    _w(
        "dd-read",
        "dd if=FILE of=/dev/null bs=1M: one buffered stream out of a file",
        "read",
        MiB,
        direct=False,
        ioengine="psync",
        target="file",
        size=10 * GB,
    ),
    _w(
        "bonnie-write",
        "bonnie++ block write: one buffered writer, 8 KiB writes, a file of twice the RAM",
        "write",
        8 * KiB,
        direct=False,
        ioengine="psync",
        target="file",
    ),
    _w(
        "bonnie-rewrite",
        "bonnie++ rewrite: read 8 KiB, write it back in place, over its file",
        "rewrite",
        8 * KiB,
        direct=False,
        ioengine="psync",
        target="file",
    ),
    _w(
        "bonnie-read",
        "bonnie++ block read: one buffered reader, 8 KiB reads of its file",
        "read",
        8 * KiB,
        direct=False,
        ioengine="psync",
        target="file",
    ),
    _w(
        "bonnie-seeks",
        "bonnie++ random seeks: three processes reading 8 KiB at random in its file",
        "randread",
        8 * KiB,
        direct=False,
        ioengine="psync",
        numjobs=3,
        target="file",
    ),
)
PRESETS: dict[str, Workload] = {w.name: w for w in VALIDATION + OTHERS}
VALIDATION_NAMES = tuple(w.name for w in VALIDATION)


def preset(name: str) -> Workload:
    try:
        return PRESETS[name]
    except KeyError:
        raise PlanError(f"unknown workload {name!r}; choose from {', '.join(PRESETS)}", "workload") from None


# bonnie++ reads, writes and seeks over a file of twice the host's memory unless -s says otherwise
# (bonnie++(8), -s: "the default is twice the size of RAM"), so that the page cache cannot hold it.
BONNIE_FILE_PER_RAM = 2
# One sync thread cannot keep many spindles busy: past this depth a job is split in several.
MAX_DEPTH_PER_JOB = 64
# Outstanding random I/Os per member disk: enough to let each disk reorder its queue.
RANDOM_DEPTH_PER_DISK = 4
# Sequential requests larger than this are split by the block layer anyway.
MAX_SEQ_BLOCK = 16 * MiB


def seq_shape(full_stripe_bytes: int, stripes: int = 1, logical_block: int = 512) -> tuple[int, int]:
    """(block size, iodepth) with at least two full stripes in flight on every striped array.

    A block of one full stripe lets md write whole stripes without reading parity back; with
    no stripe known, 1 MiB blocks. Two per array in flight keep each array's disks busy
    while the next request is being issued. Keeping no more than that in flight matters too:
    a deep queue of large requests is seconds of work on a slow array, and fio's figures
    for a short run then count requests issued before the window opened.
    """
    stripe = full_stripe_bytes
    bs = stripe if 0 < stripe <= MAX_SEQ_BLOCK else MiB
    bs -= bs % max(logical_block, 512)
    want = 2 * max(stripe, bs) * max(stripes, 1)
    return bs, max(2, -(-want // bs))


def random_depth(disks: int) -> tuple[int, int]:
    """(numjobs, iodepth per job) with RANDOM_DEPTH_PER_DISK I/Os for each member disk."""
    total = max(16, RANDOM_DEPTH_PER_DISK * max(disks, 1))
    jobs = -(-total // MAX_DEPTH_PER_JOB)
    return jobs, -(-total // jobs)


def for_plan(
    w: Workload,
    full_stripe_bytes: int,
    *,
    stripes: int = 1,
    disks: int = 1,
    logical_block: int = 512,
    memory_bytes: int = 0,
) -> Workload:
    """A validation-suite preset shaped for an array, exactly as `podplan validate` runs it; a
    bonnie++ preset on its file, twice the host's memory (`memory_bytes`, 0 = not known).

    Any other workload (another preset, or one described as it actually ran) is returned as is.
    """
    if PRESETS.get(w.name) != w:
        return w
    if w.name.startswith("bonnie-"):
        return w.model_copy(update={"size": BONNIE_FILE_PER_RAM * memory_bytes}) if memory_bytes else w
    if w.name not in VALIDATION_NAMES:
        return w
    if w.is_random:
        numjobs, depth = random_depth(disks)
        bs = max(4 * KiB, logical_block)
    else:
        (bs, depth), numjobs = seq_shape(full_stripe_bytes, stripes, logical_block), 1
    return w.model_copy(update={"bs": bs, "iodepth": depth, "numjobs": numjobs})
