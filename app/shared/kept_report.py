"""The curves.json a report directory keeps, as a model: `podplan report DIR` reads a file that may
have been edited, truncated or planted, so every field is checked before a page is drawn from it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planners.errors import ReportError


class _Strict(BaseModel):
    # Unknown keys refused: the page is drawn from the file as it is, and a point's keys become arguments.
    model_config = ConfigDict(extra="forbid", frozen=True)


class KeptMeasured(_Strict):
    mb_s: float = Field(description="Measured MB/s (10^6 bytes/s).")
    iops: float = Field(description="Measured I/Os per second.")
    status: str = Field("done", description="How the run ended: done, partial, ...")
    cpu_s_per_gb: float | None = Field(None, description="CPU seconds per GB moved.")
    cpu_s_per_k_ios: float | None = Field(None, description="CPU seconds per 1000 I/Os.")
    window: bool = Field(False, description="mb_s and iops are fio's steady window's mean, not the whole run's.")
    window_s: int | None = Field(None, description="Length of the steady window, in seconds.")
    run_mb_s: float | None = Field(None, description="fio's whole-run MB/s.")
    run_iops: float | None = Field(None, description="fio's whole-run I/Os per second.")
    sigma_mb_s: float | None = Field(None, description="Standard deviation of the window's MB/s samples.")
    low_mb_s: float | None = Field(None, description="Lowest MB/s sample of the window.")
    high_mb_s: float | None = Field(None, description="Highest MB/s sample of the window.")
    sigma_iops: float | None = Field(None, description="Standard deviation of the window's IOPS samples.")
    low_iops: float | None = Field(None, description="Lowest IOPS sample of the window.")
    high_iops: float | None = Field(None, description="Highest IOPS sample of the window.")
    lat_mean_us: float | None = Field(None, description="Mean completion latency, in microseconds.")
    lat_p50_us: float | None = Field(None, description="Median completion latency, in microseconds.")
    lat_p99_us: float | None = Field(None, description="99th percentile completion latency, in microseconds.")
    lat_p99_9_us: float | None = Field(None, description="99.9th percentile completion latency, in microseconds.")


class KeptMeasuredPoint(_Strict):
    section: str = Field(description="The workload or job section.")
    metric: Literal["MB/s", "IOPS"] = Field(description="The unit its figures are read in.")
    measured: KeptMeasured = Field(description="What fio measured.")


class KeptPoint(_Strict):
    x: int = Field(description="The swept value: a count, or bytes for bs.")
    mb_s: float = Field(description="Predicted MB/s (10^6 bytes/s).")
    iops: float = Field(description="Predicted I/Os per second.")
    binding: str = Field(description="The term that limits the prediction ('' when measured only).")
    knee: bool = Field(False, description="True at the knee of the curve.")
    knee_cause: str = Field("", description="Why the curve bends there.")
    outside: str = Field("", description="Why the point is outside the model ('' when inside).")
    measured: KeptMeasured | None = Field(None, description="What fio measured there, if it ran.")


class KeptCurve(_Strict):
    section: str = Field(description="The job's section or suite workload.")
    label: str = Field(description="The other swept options' values ('' for a one-option sweep).")
    x_key: str = Field(description="The swept option: numjobs, iodepth or bs.")
    metric: Literal["MB/s", "IOPS"] = Field(description="What the y axis shows.")
    points: list[KeptPoint] = Field(description="The points, in x order.")


class KeptAxis(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    key: str = Field(description="The swept option.")
    values: list[int] = Field(description="Its values: counts, or bytes for bs.")


class KeptBar(_Strict):
    workload: str = Field(description="The workload's name.")
    metric: Literal["MB/s", "IOPS"] = Field(description="The unit of both figures.")
    measured: float | None = Field(description="Measured, in `metric`.")
    predicted: float | None = Field(description="Predicted, in `metric` (None without a plan).")


class KeptDisk(_Strict):
    device: str = Field(description="The member disk's path.")
    outer_mb_s: float | None = Field(description="Sequential read of the outer zone, MB/s.")
    slow: list[str] = Field(description="The phases where it was more than 20 % below the median.")


class KeptCost(_Strict):
    title: str = Field(description="The table's title, with the plan's currency.")
    rows: list[tuple[str, str]] = Field(description="(what, figure) a row, as app.shared.cost_view words them.")


class KeptHealth(BaseModel):
    """A disk's SMART read as validate --baseline keeps it (planners.health.health_json): the keys the
    page draws are checked; its other counters ride along for the reader of curves.json."""

    model_config = ConfigDict(extra="allow", frozen=True)

    device: str = Field(description="The disk's path.")
    smart: bool = Field(description="True if smartctl read SMART data from it.")
    why_not: str = Field("", description="Why there is no SMART data.")
    passed: bool | None = Field(None, description="The drive's overall verdict.")
    power_on_hours: int | None = Field(None, description="Power-on time, hours.")
    temperature_c: int | None = Field(None, description="Current temperature, degrees Celsius.")
    failing: list[str] = Field(default_factory=list, description="What fails the disk, each with what to do.")
    watch: list[str] = Field(default_factory=list, description="What to watch, each with what to do.")


class KeptReport(_Strict):
    """A curves_doc (app.shared.curves) and, from validate --report, its bars and per-disk baseline."""

    title: str = Field(description="The page's title.")
    summary: list[str] = Field(description="The plan and the run, a line each.")
    axes: list[KeptAxis] = Field(default_factory=list, description="The swept options.")
    curves: list[KeptCurve] = Field(default_factory=list, description="One per section and value of a second axis.")
    bars: list[KeptBar] = Field(default_factory=list, description="Measured beside predicted per workload.")
    baseline: list[KeptDisk] = Field(default_factory=list, description="The per-disk read-only baseline.")
    cost: KeptCost | None = Field(None, description="The plan's price, power and replacements, when it gives them.")

    health: list[KeptHealth] = Field(default_factory=list, description="SMART of every disk under the target.")
    notes: list[str] = Field(default_factory=list, description="What validate said under its table, a line each.")
    said_by: Literal["validate", "compare"] = Field("validate", description="The command whose notes they are.")
    points: list[KeptMeasuredPoint] | None = Field(
        None, description="validate's workloads as measured (absent: the curves' measured points)."
    )


def read_kept_report(path: str) -> dict[str, Any]:
    """The kept curves.json as a curves_doc, checked against KeptReport; anything else is one line."""
    import json

    from app.shared.planfile import describe_validation_error
    from runners.files import read_text

    text = read_text(path, what="kept report", missing="no such file; validate --scale --report DIR keeps it")
    try:
        KeptReport.model_validate_json(text)
    except ValidationError as exc:
        raise ReportError(
            describe_validation_error(exc, f"{path}: not the curves of a kept report"), "report"
        ) from None
    doc: dict[str, Any] = json.loads(text)
    return doc
