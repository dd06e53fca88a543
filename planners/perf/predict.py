"""Predicted throughput and IOPS per workload, with the component that limits each figure.

`predict` runs the bottleneck model of `planners.perf.terms` for each workload: the figure
is the smallest term, the binding term names the component to blame, the runner-up says
how much headroom fixing it would buy. Degraded mode (one member of each array missing)
and rebuild mode (degraded, with md's minimum resync speed taken from the disks) reuse
the same terms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from planners.hardware.disks import DiskPerf
from planners.hardware.generations import PER_REQUEST
from planners.models import Plan
from planners.perf.combined import workload_terms
from planners.perf.context import PerfCtx, build_ctx, seq_mb_s
from planners.perf.md_locks import NAME as MD_LOCKS
from planners.perf.md_locks import socket_mix
from planners.perf.request_cpu import NAME as REQUEST_CPU
from planners.perf.roof import CPU_COPY, Term, Terms
from planners.perf.workloads import VALIDATION, Workload, for_plan
from planners.results import PlanResult

Frozen = ConfigDict(frozen=True)
Mode = Literal["normal", "degraded", "rebuild"]


class PredictedTerm(BaseModel):
    """One ceiling of the roofline."""

    model_config = Frozen

    name: str = Field(
        description="Component: disks, queue depth, readahead, stripe cache, md thread, parity CPU, "
        "CPU per request, link, HBA, host PCIe, memory, CPU copy (between the page cache and a buffered "
        "job), write cache, checksums (btrfs)."
    )
    mb_s: float = Field(description="Throughput this component alone would allow, MB/s (10^6 bytes/s).")
    iops: float = Field(description="The same as requests of the workload's block size per second.")
    note: str = Field(description="How the figure was derived.")


class WorkloadPrediction(BaseModel):
    """What one workload is predicted to get from the plan, and why."""

    model_config = Frozen

    workload: str = Field(description="Workload name.")
    mode: Mode = Field("normal", description="normal, degraded (a member missing) or rebuild (degraded and resyncing).")
    block_bytes: int = Field(description="The workload's block size, in bytes.")
    mb_s: float = Field(description="Predicted throughput, MB/s (10^6 bytes/s).")
    iops: float = Field(description="Predicted requests per second.")
    binding: str = Field(description="The term that limits the figure.")
    runner_up: str = Field(description="The next term that would limit it ('' if none).")
    headroom: float = Field(description="runner-up / binding: how much faster fixing the binding term could make it.")
    factor: float = Field(1.0, description="Filesystem factor applied to every term (1 = none).")
    factor_note: str = Field("", description="Why the factor applies.")
    terms: list[PredictedTerm] = Field(description="Every term, smallest first.")
    outside_model: str = Field(
        "",
        description="Why the figure is outside what the model can know ('' when it is "
        "not): the figure is then a guess, not a prediction.",
    )
    mb_s_low: float = Field(
        0.0,
        description="Low end of the figure when it rests on preset hardware figures, MB/s "
        "(= mb_s when every figure it rests on was measured or stated).",
    )
    mb_s_high: float = Field(0.0, description="High end of the figure, MB/s (see mb_s_low).")
    assumption: str = Field("", description="The presets the range comes from ('' when there is no range).")
    shaping: list[str] = Field(
        default_factory=list,
        description="How the job's shape was modelled: block-size "
        "mix, hot set, read-back, latency target (one line "
        "each).",
    )
    settled_iodepth: int = Field(
        0,
        ge=0,
        description="The queue depth per job fio settles on under a latency_target, count (0 = the job's own iodepth).",
    )
    range_terms: list[str] = Field(
        default_factory=list,
        description="The terms that set the range's low and high ends ([] when there is no range).",
    )


def predict(
    plan: Plan,
    result: PlanResult | None = None,
    workloads: Sequence[Workload] | None = None,
    *,
    disk_override: DiskPerf | None = None,
    mode: Mode = "normal",
    missing: int = 1,
) -> list[WorkloadPrediction]:
    """Predict each workload (default: the validation suite) on the plan's first volume.

    `disk_override` replaces every disk's class figures by ones measured on a real member;
    `missing` is how many members of each array are gone in degraded and rebuild modes.
    """
    if result is None:
        result = geometry_for_speed(plan)
    ctx = build_ctx(plan, result, disk_override)
    return predict_ctx(ctx, result.volumes[0].alignment.top_io_opt_bytes, workloads, mode, missing)


def geometry_for_speed(plan: Plan) -> PlanResult:
    """The plan computed for its arrays' geometry. A kernel the free-space figures do not know
    (df's accounting is the only part tied to it) is computed with the default one: the speed
    model keeps the stated kernel for what it changes (readahead, dirty throttling)."""
    from planners.compute import compute
    from planners.errors import PlanError
    from planners.versions import ToolVersions

    try:
        return compute(plan)
    except PlanError as exc:
        if exc.field != "kernel":
            raise
    tools = plan.tools.model_copy(update={"kernel": ToolVersions().kernel})
    return compute(plan.model_copy(update={"tools": tools}))


def predict_ctx(
    ctx: PerfCtx, stripe: int, workloads: Sequence[Workload] | None = None, mode: Mode = "normal", missing: int = 1
) -> list[WorkloadPrediction]:
    """`predict` on an already gathered context (the sweep shares one with the reliability model)."""
    out = []
    vg = ctx.volume_groups
    stripes = len(vg) if ctx.lvm_mode == "striped" else 1
    disks = sum(ctx.groups[i].n for i in vg)
    for w in workloads if workloads is not None else VALIDATION:
        shaped = for_plan(w, stripe, stripes=stripes, disks=disks, memory_bytes=ctx.hardware.memory_bytes)
        out.append(predict_one(ctx, shaped, mode, missing))
    return out


def predict_one(ctx: PerfCtx, w: Workload, mode: Mode = "normal", missing: int = 1) -> WorkloadPrediction:
    """One workload of one block size, one direction (or fio's mix of the two) through the terms;
    the shapes of a job file (block-size mixes, read-back, ...) are planners.perf.shaped's."""
    job = workload_terms(ctx, w, degraded=0 if mode == "normal" else missing)
    limits = _rebuilding(ctx, job.terms) if mode == "rebuild" else job.terms
    factor = job.factor
    # Built without validation: every field is a float or a str computed here (a sweep builds thousands).
    terms = sorted(
        (
            PredictedTerm.model_construct(
                name=t.name, mb_s=t.mb_s * factor, iops=t.mb_s * factor * 1e6 / w.bs, note=t.note
            )
            for t in limits.values()
        ),
        key=lambda t: (round(t.mb_s, 6), t.name not in job.wins_ties, t.name),
    )
    best = terms[0]
    second = terms[1] if len(terms) > 1 else None
    low, high, assumption, by = _range(ctx, terms, w)
    return WorkloadPrediction(
        workload=w.name,
        mode=mode,
        block_bytes=w.bs,
        mb_s=best.mb_s,
        iops=best.iops,
        binding=best.name,
        runner_up=second.name if second else "",
        headroom=(second.mb_s / best.mb_s) if second and best.mb_s else 1.0,
        factor=factor,
        factor_note=job.factor_note,
        terms=terms,
        outside_model=job.outside_model,
        mb_s_low=low,
        mb_s_high=high,
        assumption=assumption,
        range_terms=by if high > low else [],
    )


# The CPU terms whose note says what they counted (per-core figure and cores, or the shared line):
# shown with the prediction wherever one of them binds.
COUNTED_CPU_TERMS = (REQUEST_CPU, MD_LOCKS)
# Terms that rest on the disks' figures, and those that rest on a controller's.
DISK_TERMS = ("disks", "queue depth", "readahead", "stripe cache", "write cache")
CONTROLLER_TERMS = ("queue depth", "write cache")
# Terms that rest on the CPU's figures, and which figures.
# The per-request figures: the plan states them all or the term keeps their spread.
REQUEST_FIELDS = tuple(f for f in PER_REQUEST if f != "reclaim_us")  # reclaim is the copy's
CPU_TERMS = {
    CPU_COPY: ("buffered_write_mb_s", "buffered_read_mb_s", "reclaim_us"),
    "md thread": ("md_thread_mb_s",),
    "host PCIe": ("pcie_lanes", "pcie_gen"),
    "memory": ("memory_mb_s",),
    "parity CPU": ("raid6_gen_mb_s", "xor_mb_s"),
    "checksums": ("crc32c_mb_s",),
    MD_LOCKS: ("line_transfer_ns", "socket_transfer_ns"),
}


def spread_range(ctx: PerfCtx, terms: Sequence[PredictedTerm]) -> tuple[float, float, str]:
    """(low, high, assumption): each term moved by its presets' spread, the smallest of each side."""
    low, high, said, _ = _range(ctx, terms)
    return low, high, said


def _range(
    ctx: PerfCtx, terms: Sequence[PredictedTerm], w: Workload | None = None
) -> tuple[float, float, str, list[str]]:
    """spread_range, and the names of the terms that set its two ends.

    A term resting on a class preset (a disk class, a controller kind) can be off by as much as
    real hardware of that class differs; measured or stated figures have no spread.
    """
    disk = max(ctx.groups[i].disk.spread for i in ctx.volume_groups)
    measured = all(ctx.groups[i].disk.measured for i in ctx.volume_groups)
    ctl = ctx.controller.spread if ctx.controller else 0.0
    said = []
    if disk:
        said.append(
            f"measured disk figures (±{disk:.0%}, fio's run-to-run repeatability)"
            if measured
            else f"disk speeds from class presets (±{disk:.0%})"
        )
    if ctl:
        said.append(f"controller round trip from its kind's preset (±{ctl:.0%})")
    cpu = {name for name, fields in CPU_TERMS.items() if not set(fields) <= set(ctx.cpu.stated)}
    per_request = 0.0 if set(REQUEST_FIELDS) <= set(ctx.cpu.stated) else ctx.cpu.request_spread

    # md's shared lines: the share of transfers between sockets is not known (socket_mix).
    locks_down, locks_up = socket_mix(ctx, w) if w is not None else (0.0, 0.0)

    def spread(t: PredictedTerm, sign: int) -> float:
        return max(
            disk if t.name in DISK_TERMS else 0.0,
            ctl if t.name in CONTROLLER_TERMS else 0.0,
            ctx.cpu.spread if t.name in cpu else 0.0,
            per_request if t.name == REQUEST_CPU else 0.0,
            (locks_up if sign > 0 else locks_down) if t.name == MD_LOCKS else 0.0,
        )

    (low, low_by), (high, high_by) = (
        min((t.mb_s * (1 + sign * spread(t, sign)), t.name) for t in terms) for sign in (-1, 1)
    )
    # A CPU figure is named only where its term's low end reaches into the range: far above it, it
    # moves nothing.
    if ctx.cpu.spread and any(t.name in cpu and t.mb_s * (1 - ctx.cpu.spread) < high for t in terms):
        said.append(f"CPU figures from the class preset (±{ctx.cpu.spread:.0%})")
    if per_request and any(t.name == REQUEST_CPU and t.mb_s * (1 - per_request) < high for t in terms):
        said.append(f"CPU per request from measured and published figures (±{per_request:.0%})")
    if locks_up and MD_LOCKS in (low_by, high_by):
        said.append("md's shared lines: their next writer on this socket or the other, as the job's threads fall")
    return low, high, "; ".join(said) if low < high else "", list(dict.fromkeys((low_by, high_by)))


def _rebuilding(ctx: PerfCtx, limits: Terms) -> Terms:
    """The best case under a rebuild: md gives way to user I/O down to speed_limit_min, so that share of
    each disk is gone. md 6.1 yields only by letting its own window of requests drain, so with few
    requests in flight the foreground gets less, down to half of this in the lab (docs/calibration.md):
    the figure is an upper bound."""
    floor_mb_s = ctx.hardware.md.speed_limit_min_kib_s * 1024 / 1e6
    slowest = min(seq_mb_s(g.disk, 1.0, True) for g in ctx.groups)
    keep = max(0.0, 1.0 - floor_mb_s / slowest)
    out: Terms = {}
    for name, term in limits.items():
        if name in ("disks", "queue depth", "readahead", "stripe cache", "link", "HBA"):
            out[name] = Term(
                name,
                term.mb_s * keep,
                term.note + f"; at least {1 - keep:.1%} of each disk goes to the rebuild "
                "(at most this figure: md yields less to a shallow queue)",
            )
        else:
            out[name] = term
    return out


def prediction_for(predictions: Sequence[WorkloadPrediction], name: str) -> WorkloadPrediction | None:
    return next((p for p in predictions if p.workload == name), None)
