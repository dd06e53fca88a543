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
from planners.models import Plan
from planners.perf.combined import JobTerms, workload_terms
from planners.perf.context import PerfCtx, build_ctx, seq_mb_s
from planners.perf.controller import split_spread
from planners.perf.flush import flush_input, flush_sensitive
from planners.perf.iommu_range import iommu_input, iommu_sensitive
from planners.perf.md_locks import NAME as MD_LOCKS
from planners.perf.request_cpu import NAME as REQUEST_CPU
from planners.perf.roof import Term, Terms
from planners.perf.spread import Input, figure_range, kernel_input, kernel_sensitive
from planners.perf.workloads import VALIDATION, Workload, for_plan
from planners.results import PlanResult

Frozen = ConfigDict(frozen=True)
Mode = Literal["normal", "degraded", "rebuild"]


class PredictedTerm(BaseModel):
    """One ceiling of the roofline."""

    model_config = Frozen

    name: str = Field(
        description="Component: disks, queue depth, readahead, stripe cache, md thread, parity CPU, "
        "CPU per request, md locks, link, HBA, host PCIe, memory, socket link, IOMMU, CPU copy (between the "
        "page cache and a buffered job), write cache, controller commands, flush, checksums (btrfs)."
    )
    mb_s: float = Field(description="Throughput this component alone would allow, MB/s (10^6 bytes/s).")
    iops: float = Field(description="The same as requests of the workload's block size per second.")
    note: str = Field(description="How the figure was derived.")


RANGE_FROM = (
    "The inputs that widened the range, one line each: what the input is, whether the plan stated it "
    "or left it to a preset (a disk class, a CPU class, a controller kind), and its spread either way "
    "([] when there is no range)."
)


def predicted_term(name: str, mb_s: float, iops: float, note: str) -> PredictedTerm:
    """`PredictedTerm.model_construct(...)` with every field given, without its loop over the fields'
    aliases and defaults: the same instance (every field set, no extra, no private attributes), at
    less than half the cost, and a predict builds one per term of every workload."""
    term = PredictedTerm.__new__(PredictedTerm)
    _set(term, "__dict__", {"name": name, "mb_s": mb_s, "iops": iops, "note": note})
    _set(term, "__pydantic_fields_set__", {"name", "mb_s", "iops", "note"})
    _set(term, "__pydantic_extra__", None)
    _set(term, "__pydantic_private__", None)
    return term


_set = object.__setattr__


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
        description="Low end of the figure, MB/s: each term moved down by the spread of the inputs it "
        "rests on (range_from), the smallest taken (= mb_s when no input carries a spread).",
    )
    mb_s_high: float = Field(0.0, description="High end of the figure, MB/s (see mb_s_low).")
    assumption: str = Field(
        "", description="The inputs the range comes from, in a few words each ('' when there is no range)."
    )
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
    range_from: list[str] = Field(default_factory=list, description=RANGE_FROM)
    inputs_stated: bool = Field(
        True,
        description="True when every input the range comes from was stated by the plan or measured "
        "(its range is then the datasheet's or the measurement's own spread); False when one was left "
        "to a preset, which stating it would narrow.",
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
    chosen = workloads if workloads is not None else VALIDATION
    return [predict_one(ctx, _for_volume(ctx, stripe, w), mode, missing) for w in chosen]


def _for_volume(ctx: PerfCtx, stripe: int, w: Workload) -> Workload:
    """`w` as it runs on the first volume: sized for its stripe, its LV's stripes and its disks."""
    vg = ctx.volume_groups
    stripes = len(vg) if ctx.lvm_mode == "striped" else 1
    disks = sum(ctx.groups[i].n for i in vg)
    return for_plan(w, stripe, stripes=stripes, disks=disks, memory_bytes=ctx.hardware.memory_bytes)


def leading_ctx(ctx: PerfCtx, stripe: int, w: Workload) -> tuple[float, float, str]:
    """(MB/s, IOPS, binding term) that `predict_ctx` gives workload `w` in normal mode, without the
    range, the terms and the model: all a sweep ranks hundreds of layouts by."""
    shaped = _for_volume(ctx, stripe, w)
    job = workload_terms(ctx, shaped)
    factor = job.factor
    name, mb_s = min(((t.name, t.mb_s * factor) for t in job.terms.values()), key=lambda t: _order(t[0], t[1], job))
    return mb_s, mb_s * 1e6 / shaped.bs, name


def figure_key(mb_s: float) -> float:
    """A term's figure as terms are compared: to six significant figures, so that a law's tail a
    millionth short of full is not a different limit."""
    return float(f"{mb_s:.6g}")


def _order(name: str, mb_s: float, job: JobTerms) -> tuple[float, bool, str]:
    """Terms smallest first; of equals (figure_key), the one the job blames (its wins_ties), then by name."""
    return figure_key(mb_s), name not in job.wins_ties, name


def predict_one(ctx: PerfCtx, w: Workload, mode: Mode = "normal", missing: int = 1) -> WorkloadPrediction:
    """One workload of one block size, one direction (or fio's mix of the two) through the terms;
    the shapes of a job file (block-size mixes, read-back, ...) are planners.perf.shaped's."""
    job = workload_terms(ctx, w, degraded=0 if mode == "normal" else missing)
    limits = _rebuilding(ctx, job.terms) if mode == "rebuild" else job.terms
    factor = job.factor
    # Built without validation: every field is a float or a str computed here (a sweep builds thousands).
    terms = sorted(
        (predicted_term(t.name, t.mb_s * factor, t.mb_s * factor * 1e6 / w.bs, t.note) for t in limits.values()),
        key=lambda t: _order(t.name, t.mb_s, job),
    )
    best = terms[0]
    second = terms[1] if len(terms) > 1 else None
    figures = {t.name: t.mb_s for t in terms}

    def again(other: PerfCtx) -> dict[str, float]:
        # The job's factor too: a flush's time is in it (planners.perf.combined).
        redone = workload_terms(other, w, degraded=0 if mode == "normal" else missing)
        out = _rebuilding(other, redone.terms) if mode == "rebuild" else redone.terms
        return {name: t.mb_s * redone.factor for name, t in out.items()}

    extra = [
        i
        for i in (
            kernel_input(ctx, figures, again) if kernel_sensitive(ctx, w, figures) else None,
            flush_input(ctx, figures, again, w) if flush_sensitive(ctx, w) else None,
            iommu_input(ctx, figures, again, w) if iommu_sensitive(ctx, w) else None,
        )
        if i is not None
    ]
    split = split_spread(ctx, w, figures, again)
    extra += [Input(*split[:4], True, split[4])] if split else []
    r = figure_range(ctx, terms, w, extra)
    return WorkloadPrediction(
        workload=w.name,
        mode=mode,
        block_bytes=w.bs,
        mb_s=best.mb_s,
        iops=best.iops,
        binding=best.name,
        runner_up=second.name if second else "",
        headroom=max(1.0, second.mb_s / best.mb_s) if second and best.mb_s else 1.0,  # equals: 1
        factor=factor,
        factor_note=job.factor_note,
        terms=terms,
        outside_model=job.outside_model,
        mb_s_low=r.low,
        mb_s_high=r.high,
        assumption=assumption(r.briefly, r.all_stated),
        range_terms=r.by,
        range_from=r.inputs,
        inputs_stated=r.all_stated,
    )


def merged_inputs(preds: Sequence[WorkloadPrediction]) -> dict[str, object]:
    """The fields that say what widened a range, for one figure made of several (a block-size mix):
    every part's inputs, stated only where every part's were."""
    stated = all(p.inputs_stated for p in preds)
    briefly = [x for p in preds for x in p.assumption.split("; ") if x and x != EVERY_INPUT_STATED]
    return {
        "range_from": list(dict.fromkeys(x for p in preds for x in p.range_from)),
        "inputs_stated": stated,
        "assumption": assumption(list(dict.fromkeys(briefly)), stated),
    }


EVERY_INPUT_STATED = "every input stated"


def assumption(inputs: list[str], all_stated: bool) -> str:
    """The inputs the range comes from, in one line; said so when the plan stated every one."""
    if not inputs:
        return ""
    return "; ".join([*inputs, EVERY_INPUT_STATED] if all_stated else inputs)


# The CPU terms whose note says what they counted (per-core figure and cores, or the shared line):
# shown with the prediction wherever one of them binds.
COUNTED_CPU_TERMS = (REQUEST_CPU, MD_LOCKS)


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
