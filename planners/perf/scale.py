"""Scaling sweeps: one job predicted at many values of numjobs, iodepth or bs.

A sweep is the ordinary prediction repeated at each point of a grid (one axis per `--scale`),
so every point carries the same terms, binding term and range as a single prediction. On top
it says where the curve flattens: the knee is the first point past which nothing the sweep goes
on to reaches KNEE_GAIN more, marked with the term that binds past it (the part that stops the
curve).

Why not "the first doubling that gains under KNEE_GAIN": a curve that climbs slowly and steadily
(each doubling of numjobs +5 %, +36 % by 64) has no step over 10 %, so that rule put its knee at
its first point, where a user would stop adding jobs and leave a third of the throughput unused.
The gain left to the end of the sweep is what a user gives up by stopping there; the point where
it falls under KNEE_GAIN is where more of the swept option stops paying, and a curve that keeps
rising materially has no knee within the sweep at all.

A point whose figure depends on contention the model does not know (many jobs sharing one
filesystem's journal or allocator) is marked outside the model.

The first axis is the curve's x axis; a second axis gives one curve per value.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PlanError
from planners.models import Plan
from planners.perf.concurrent import predict_job_file
from planners.perf.context import build_ctx
from planners.perf.jobfile import JobFile, Phase, edited
from planners.perf.jobvalues import fio_bytes
from planners.perf.predict import Mode, WorkloadPrediction
from planners.perf.workloads import Workload, for_plan
from planners.results import PlanResult

Frozen = ConfigDict(frozen=True)
Key = Literal["numjobs", "iodepth", "bs"]
KEYS: tuple[Key, ...] = ("numjobs", "iodepth", "bs")
# The Workload model's own bounds (numjobs, iodepth); bs at most fio's largest block (its 32-bit field).
BOUNDS: dict[str, tuple[int, int]] = {"numjobs": (1, 4096), "iodepth": (1, 65536), "bs": (512, 2**31)}
# A knee: everything past the point gains under 10 % more (a run-to-run spread of fio is a few %).
KNEE_GAIN = 0.10
# One sweep predicts (and validate measures) every point: a bound keeps a typo from asking thousands.
MAX_POINTS = 256


class Axis(BaseModel):
    """One swept option and its values, in the order given."""

    model_config = Frozen

    key: Key = Field(description="fio option swept: numjobs, iodepth or bs.")
    values: tuple[int, ...] = Field(description="Its values: counts, or bytes for bs.")


class PointPrediction(WorkloadPrediction):
    """One section's prediction at one point of the sweep."""

    point: dict[str, int] = Field(description="The swept options at this point (numjobs, iodepth: counts; bs: bytes).")
    gain_next: float | None = Field(
        None,
        description="Gain per doubling of the first axis to the next point of "
        "this curve, as a fraction (0.25 = +25 %); None at its end.",
    )
    knee: bool = Field(
        False,
        description="The curve's knee: the first point past which no later point of the sweep gains 10 % or more.",
    )
    knee_cause: str = Field("", description="At the knee, the term that stops the curve, and why ('' elsewhere).")


def parse_scale(text: str) -> Axis:
    """'numjobs=1,48,192', 'iodepth=1..256x2' (doubling from 1 up to 256), 'bs=4k..4m x2'. One PlanError line."""
    key, sep, spec = text.partition("=")
    key = key.strip().lower()
    if not sep or key not in KEYS:
        raise PlanError(f"--scale {text!r}: give OPTION=VALUES with OPTION one of {', '.join(KEYS)}", "scale")
    spec = spec.replace(" ", "")
    if ".." in spec:
        values = _progression(text, key, spec)
    else:
        values = [_value(text, key, v) for v in spec.split(",")]
    if len(set(values)) != len(values):
        raise PlanError(f"--scale {text!r}: a value is given twice", "scale")
    lo, hi = BOUNDS[key]
    for v in values:
        if not lo <= v <= hi:
            raise PlanError(f"--scale {text!r}: {key} {v} is outside {lo}..{hi}", "scale")
    if len(values) > MAX_POINTS:
        raise PlanError(f"--scale {text!r}: {len(values)} values, at most {MAX_POINTS}", "scale")
    return Axis(key=key, values=tuple(values))


def _value(text: str, key: str, v: str) -> int:
    if not v:
        raise PlanError(f"--scale {text!r}: an empty value", "scale")
    try:
        return fio_bytes(v, what="bs") if key == "bs" else int(v)
    except (PlanError, ValueError):
        raise PlanError(
            f"--scale {text!r}: {v!r} is not a {'size' if key == 'bs' else 'whole number'}", "scale"
        ) from None


def _progression(text: str, key: str, spec: str) -> list[int]:
    """START..ENDxFACTOR: START, START*FACTOR, ... up to END."""
    span, x, factor_text = spec.rpartition("x")
    if not x:
        span, factor_text = spec, "2"
    start_text, _, end_text = span.partition("..")
    start, end = _value(text, key, start_text), _value(text, key, end_text)
    try:
        factor = int(factor_text)
    except ValueError:
        raise PlanError(f"--scale {text!r}: the step after 'x' is a whole number (x2 doubles)", "scale") from None
    if factor < 2 or start < 1 or end < start:
        raise PlanError(f"--scale {text!r}: START..END needs 1 <= START <= END and a step of x2 or more", "scale")
    n = int(math.log(end / start, factor) + 1e-9) + 1
    if n > MAX_POINTS:
        raise PlanError(f"--scale {text!r}: {n} values, at most {MAX_POINTS}", "scale")
    return [start * factor**i for i in range(n)]


def grid(axes: Sequence[Axis]) -> list[dict[str, int]]:
    """Every point, the first axis varying fastest (one curve after another)."""
    keys = [a.key for a in axes]
    if len(set(keys)) != len(keys):
        raise PlanError(f"--scale: {keys[0] if keys.count(keys[0]) > 1 else keys[1]} is swept twice", "scale")
    points = [dict(zip(keys[::-1], combo, strict=True)) for combo in itertools.product(*(a.values for a in axes[::-1]))]
    if len(points) > MAX_POINTS:
        raise PlanError(f"--scale: {len(points)} points in the grid, at most {MAX_POINTS}", "scale")
    return [{k: p[k] for k in keys} for p in points]


def at_point(w: Workload, point: dict[str, int]) -> Workload:
    """The workload with the swept options set (validated as a new one would be)."""
    return Workload.model_validate({**w.model_dump(), **point})


def shaped(plan: Plan, result: PlanResult, workloads: Sequence[Workload]) -> list[Workload]:
    """Validation-suite presets given the array's own shape (as predict gives them) before a point
    changes them: a preset changed by a point is no longer the preset predict would reshape."""
    ctx = build_ctx(plan, result)
    vg = ctx.volume_groups
    stripes = len(vg) if ctx.lvm_mode == "striped" else 1
    disks = sum(ctx.groups[i].n for i in vg)
    stripe = result.volumes[0].alignment.top_io_opt_bytes
    return [for_plan(w, stripe, stripes=stripes, disks=disks) for w in workloads]


def job_at(job: JobFile, point: dict[str, int]) -> JobFile:
    """The job file with every section at the point: a file fio reads is read again with the values
    written in it (each clone's size and file follow numjobs, number_ios follows bs), so a point is
    exactly the prediction of the edited file; built-in workloads take the values as they are."""
    if job.options:
        return edited(job, point)
    return job.model_copy(update={"workloads": [at_point(w, point) for w in job.workloads]})


def as_job(workloads: Sequence[Workload]) -> JobFile:
    """Built-in workloads as a job file whose sections run one after another (as the suite runs them)."""
    return JobFile(
        workloads=list(workloads),
        notes=[],
        phases=[Phase(sections=[w.name], after="stonewall" if i else "") for i, w in enumerate(workloads)],
    )


def sweep_job(
    plan: Plan,
    result: PlanResult,
    job: JobFile,
    axes: Sequence[Axis],
    mode: Mode = "normal",
    *,
    runnable_only: bool = False,
) -> list[PointPrediction]:
    """Every section of the job at every point of the grid, knees and contention marked. A point fio
    would refuse (past its job limit once numjobs clones every section) is a PlanError, or, with
    runnable_only (a curve the user did not ask for point by point), the curve ends before it."""
    cores = build_ctx(plan, result).cpu.cores
    out: list[PointPrediction] = []
    for point in grid(axes):
        try:
            at = job_at(job, point)
        except PlanError:
            if not runnable_only:
                raise
            continue
        for w, p in zip(at.workloads, predict_job_file(plan, result, at, mode), strict=True):
            outside = "; ".join(why for why in (p.outside_model, contention(w, plan.filesystem.type, cores)) if why)
            out.append(PointPrediction(**{**p.model_dump(), "outside_model": outside}, point=dict(point)))
    return mark_knees(out, axes[0].key)


def contention(w: Workload, fs_type: str, cores: int) -> str:
    """Why many jobs on one filesystem are outside the model ('' when they are not).

    The terms price each job's flush and allocation as if it had the filesystem to itself; jobs
    that share a journal group their commits, and writers allocating at once (each clone its own file)
    take the allocator's and the journal's locks in turn. How much either gains or loses is not in the model.
    """
    if w.target != "file" or not w.writes or w.numjobs < 2:
        return ""
    if w.sync_every and w.sync_metadata:
        return (
            f"{w.numjobs} jobs fsync into one {fs_type} filesystem and share its journal: how their commits "
            "group or queue is not in the model"
        )
    if not w.is_random and w.files > 1 and w.numjobs > cores:
        return (
            f"{w.numjobs} jobs create files at once on one {fs_type} filesystem, more than the {cores} CPU "
            "cores: lock and journal contention in its block allocation is not in the model"
        )
    return ""


def _per_doubling(x0: int, y0: float, x1: int, y1: float) -> float | None:
    if x1 <= x0 or y0 <= 0:
        return None
    return float((y1 / y0) ** (1 / math.log2(x1 / x0)) - 1)


def mark_knees(preds: Sequence[PointPrediction], x_key: str) -> list[PointPrediction]:
    """Each curve (one section, the other axes fixed) along x_key: gain to the next point per
    doubling, and the knee: the first point that no later point beats by KNEE_GAIN or more."""
    curves: dict[tuple[str, tuple[tuple[str, int], ...]], list[int]] = {}
    for i, p in enumerate(preds):
        rest = tuple(sorted((k, v) for k, v in p.point.items() if k != x_key))
        curves.setdefault((p.workload, rest), []).append(i)
    out = list(preds)
    for idx in curves.values():
        idx.sort(key=lambda i: preds[i].point[x_key])
        for a, b in itertools.pairwise(idx):
            pa, pb = preds[a], preds[b]
            out[a] = out[a].model_copy(
                update={"gain_next": _per_doubling(pa.point[x_key], pa.mb_s, pb.point[x_key], pb.mb_s)}
            )
        knee = _knee(idx, preds)
        if knee is not None:
            here, last = preds[idx[knee]], preds[idx[-1]]
            left = max(preds[i].mb_s for i in idx[knee + 1 :]) / here.mb_s - 1
            cause = knee_cause(preds[idx[knee + 1]], left, x_key, last.point[x_key])
            out[idx[knee]] = out[idx[knee]].model_copy(update={"knee": True, "knee_cause": cause})
    return out


def _knee(idx: Sequence[int], preds: Sequence[PointPrediction]) -> int | None:
    """Position in idx of the curve's knee, or None (knee_index of its figures)."""
    return knee_index([preds[i].mb_s for i in idx])


def knee_index(ys: Sequence[float]) -> int | None:
    """The knee of a curve's figures in x order, or None: the first point, not the last, with a
    figure and nothing after it KNEE_GAIN above it. Predicted and measured curves share it."""
    best_after = 0.0
    after: list[float] = []
    for y in reversed(ys):
        after.append(best_after)
        best_after = max(best_after, y)
    after.reverse()
    for k, y in enumerate(ys[:-1]):
        if y > 0 and after[k] < y * (1 + KNEE_GAIN):
            return k
    return None


def knee_cause(p: PointPrediction, gain: float, x_key: str, last: int) -> str:
    """'disks: more numjobs (up to 256) gains at most +3%' (the term that binds past the knee)."""
    shown = size_text(last) if x_key == "bs" else str(last)
    return f"{p.binding}: more {x_key} (up to {shown}) gains at most {0.0 if abs(gain) < 0.005 else gain:+.0%}"


def curve_label(point: dict[str, int], x_key: str) -> str:
    """The fixed options of a curve, as fio writes them ('' for a one-axis sweep)."""
    return ", ".join(f"{k}={size_text(v) if k == 'bs' else v}" for k, v in point.items() if k != x_key)


def size_text(v: int) -> str:
    """A block size as fio takes it: 4k, 1m, or plain bytes."""
    for unit, n in (("m", 1024**2), ("k", 1024)):
        if v % n == 0:
            return f"{v // n}{unit}"
    return str(v)
