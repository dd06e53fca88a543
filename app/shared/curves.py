"""Scaling curves as the pictures draw them: one curve per section (and per value of a second
swept option), predicted at every point, measured where validate ran it, the knee marked.

The TUI's chart, the HTML report and the CLI's table all read these, so each shows the same
figures; `curves_doc` is the JSON kept beside a report for `podplan report DIR` to draw again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from planners.models import Plan
from planners.perf.jobfile import JobFile
from planners.perf.scale import Axis, PointPrediction, curve_label, size_text
from planners.perf.workloads import Workload
from planners.results import PlanResult

if TYPE_CHECKING:
    from runners.fio.result import JobFigures
    from runners.validate.suite import ValidateReport

# Requests under this size are read as IOPS, larger ones as MB/s (as validate's table does).
SMALL_REQUEST = 64 * 1024
SIGMA = "\u03c3"  # the standard deviation, as fio-plot labels it


@dataclass(frozen=True)
class Measured:
    """One point as fio measured it: the steady window's mean when fio found the job steady (the
    figure compared), fio's whole-run mean beside it, the window's spread, and latency."""

    mb_s: float
    iops: float
    status: str = "done"
    cpu_s_per_gb: float | None = None
    cpu_s_per_k_ios: float | None = None
    window: bool = False
    """mb_s and iops are the steady window's mean (else the whole run's)."""
    window_s: int | None = None
    run_mb_s: float | None = None
    run_iops: float | None = None
    sigma_mb_s: float | None = None
    low_mb_s: float | None = None
    high_mb_s: float | None = None
    sigma_iops: float | None = None
    low_iops: float | None = None
    high_iops: float | None = None
    lat_mean_us: float | None = None
    lat_p50_us: float | None = None
    lat_p99_us: float | None = None
    lat_p99_9_us: float | None = None


def measured_from(f: JobFigures, status: str, block_bytes: int) -> Measured:
    """A point's figures as fio reported them (runners.fio.result), with its CPU cost."""
    from runners.validate.scale import cpu_cost

    cost = cpu_cost(f, block_bytes)
    ss = f.steady
    bw = ss.bytes_s_spread if ss else None
    io = ss.iops_spread if ss else None
    # the direction that carried most I/Os speaks for the point's latency
    lat = f.read_latency if f.read_iops >= f.write_iops else f.write_latency
    lat = lat or f.read_latency or f.write_latency
    return Measured(
        mb_s=f.bytes_s / 1e6,
        iops=f.iops,
        status=status,
        cpu_s_per_gb=cost.s_per_gb if cost else None,
        cpu_s_per_k_ios=cost.s_per_k_ios if cost else None,
        window=f.from_window,
        window_s=ss.window_s if ss else None,
        run_mb_s=(f.run_bytes_s if f.run_bytes_s is not None else f.bytes_s) / 1e6,
        run_iops=f.run_iops if f.run_iops is not None else f.iops,
        sigma_mb_s=bw.sigma / 1e6 if bw else None,
        low_mb_s=bw.low / 1e6 if bw else None,
        high_mb_s=bw.high / 1e6 if bw else None,
        sigma_iops=io.sigma if io else None,
        low_iops=io.low if io else None,
        high_iops=io.high if io else None,
        lat_mean_us=lat.mean_us if lat else None,
        lat_p50_us=lat.p50_us if lat else None,
        lat_p99_us=lat.p99_us if lat else None,
        lat_p99_9_us=lat.p99_9_us if lat else None,
    )


def latency_text(us: float | None) -> str:
    """A latency as fio prints it: usec under a millisecond, else msec."""
    if us is None:
        return ""
    return f"{us:,.0f} usec" if us < 1000 else f"{us / 1000:,.2f} msec"


def spread_texts(m: Measured, metric: str) -> tuple[str, str, str]:
    """(the compared figure named, the whole-run figure named, the window's spread) in `metric`."""
    iops = metric == "IOPS"
    mean, run = (m.iops, m.run_iops) if iops else (m.mb_s, m.run_mb_s)
    sigma, low, high = (m.sigma_iops, m.low_iops, m.high_iops) if iops else (m.sigma_mb_s, m.low_mb_s, m.high_mb_s)
    named = f"{'steady window' if m.window else 'whole run'} {figure(mean, metric)} {metric}"
    whole = f"whole run {figure(run, metric)} {metric}" if m.window and run is not None else ""
    spread = (
        f"{'window' if m.window else 'the last window fio judged (not steady):'} {SIGMA} {figure(sigma, metric)}, {figure(low, metric)}-{figure(high, metric)} {metric}"
        + (f" over {m.window_s} s" if m.window_s else "")
        if sigma is not None and low is not None and high is not None
        else ""
    )
    return named, whole, spread


def latency_line(m: Measured) -> str:
    """Completion latency: mean, p50, p99, p99.9 ('' when fio gave none)."""
    if m.lat_mean_us is None:
        return ""
    pct = [(k, v) for k, v in (("p50", m.lat_p50_us), ("p99", m.lat_p99_us), ("p99.9", m.lat_p99_9_us)) if v]
    return "latency mean " + ", ".join([latency_text(m.lat_mean_us), *(f"{k} {latency_text(v)}" for k, v in pct)])


@dataclass(frozen=True)
class CurvePoint:
    x: int
    """The swept value: a count, or bytes for bs."""
    mb_s: float
    """Predicted MB/s (10^6 bytes/s)."""
    iops: float
    binding: str
    knee: bool = False
    knee_cause: str = ""
    outside: str = ""
    measured: Measured | None = None


@dataclass(frozen=True)
class Curve:
    section: str
    label: str
    """The other swept options' values ('' for a one-option sweep)."""
    x_key: str
    metric: str
    """'MB/s' or 'IOPS': what the y axis shows."""
    points: list[CurvePoint] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.section} ({self.label})" if self.label else self.section

    def y(self, p: CurvePoint, measured: bool = False) -> float | None:
        if measured:
            return None if p.measured is None else (p.measured.iops if self.metric == "IOPS" else p.measured.mb_s)
        return p.iops if self.metric == "IOPS" else p.mb_s

    def x_text(self, x: int) -> str:
        return size_text(x) if self.x_key == "bs" else str(x)

    @property
    def knee(self) -> CurvePoint | None:
        return next((p for p in self.points if p.knee), None)


def point_key(section: str, point: dict[str, int]) -> tuple[str, tuple[tuple[str, int], ...]]:
    return section, tuple(sorted(point.items()))


def curves(
    preds: Sequence[PointPrediction],
    x_key: str,
    measured: dict[tuple[str, tuple[tuple[str, int], ...]], Measured] | None = None,
) -> list[Curve]:
    """The predictions grouped into curves, in the order their sections first appear."""
    out: dict[tuple[str, str], Curve] = {}
    for p in preds:
        label = curve_label(p.point, x_key)
        small = p.block_bytes < SMALL_REQUEST and x_key != "bs"
        c = out.setdefault((p.workload, label), Curve(p.workload, label, x_key, "IOPS" if small else "MB/s"))
        c.points.append(
            CurvePoint(
                x=p.point[x_key],
                mb_s=p.mb_s,
                iops=p.iops,
                binding=p.binding,
                knee=p.knee,
                knee_cause=p.knee_cause,
                outside=p.outside_model,
                measured=(measured or {}).get(point_key(p.workload, p.point)),
            )
        )
    for c in out.values():
        c.points.sort(key=lambda q: q.x)
        if not any(q.binding for q in c.points):
            _measured_knee(c)
    return list(out.values())


def _measured_knee(c: Curve) -> None:
    """A curve measured with no prediction gets its knee by the predictions' rule (planners.perf.scale),
    from the points fio ran."""
    from planners.perf.scale import knee_index

    ran = [(i, p) for i, p in enumerate(c.points) if p.measured is not None]
    ys = [c.y(p, measured=True) or 0.0 for _, p in ran]
    k = knee_index(ys)
    if k is None:
        return
    gain = max(ys[k + 1 :]) / ys[k] - 1
    last = c.x_text(ran[-1][1].x)
    more = f"more {c.x_key} (up to {last})"
    cause = (
        f"measured peak: {more} loses at least {-gain:.0%}"
        if gain <= -0.005
        else f"measured: {more} gains at most {0.0 if gain < 0.005 else gain:+.0%}"
    )
    i = ran[k][0]
    c.points[i] = replace(c.points[i], knee=True, knee_cause=cause)


def curves_doc(title: str, summary: Sequence[str], axes: Sequence[dict[str, Any]], cs: Sequence[Curve]) -> dict:
    """Everything a report draws, as JSON."""
    return {"title": title, "summary": list(summary), "axes": list(axes), "curves": [asdict(c) for c in cs]}


def from_doc(doc: dict) -> tuple[str, list[str], list[dict[str, Any]], list[Curve]]:
    """`curves_doc` read back (a kept report drawn again)."""
    cs = []
    for c in doc.get("curves", []):
        pts = [
            CurvePoint(**{**p, "measured": Measured(**p["measured"]) if p.get("measured") else None})
            for p in c["points"]
        ]
        cs.append(Curve(c["section"], c["label"], c["x_key"], c["metric"], pts))
    return doc["title"], list(doc["summary"]), list(doc.get("axes", [])), cs


def curve_notes(cs: Sequence[Curve]) -> list[str]:
    """The knees and the points outside the model, one line each."""
    notes = []
    for c in cs:
        k = c.knee
        if k:
            notes.append(f"knee of {c.name} at {c.x_key}={c.x_text(k.x)}: {k.knee_cause}")
        for why in dict.fromkeys(p.outside for p in c.points if p.outside):
            xs = ", ".join(c.x_text(p.x) for p in c.points if p.outside == why)
            notes.append(f"* {c.name} at {c.x_key}={xs} is outside the model: {why}")
    return notes


def plan_summary(plan: Plan) -> list[str]:
    """The plan in a few lines, for a report read away from podplan."""
    from app.shared.figures import odds_pair
    from planners.perf.predict import geometry_for_speed
    from planners.reliability.loss import reliability, standing

    result = geometry_for_speed(plan)
    rel = reliability(plan, result)
    lines = [f"plan {plan.name}: {sum(d.count for d in plan.disks)} disks, {plan.filesystem.type}"]
    # A disk or LUN with no md above it is described as what it is, not as a RAID0 of one member;
    # alike ones share a line.
    alike: dict[str, list[str]] = {}
    for g in rel.groups:
        s = standing(g)
        if s is not g or (g.members == 1 and not g.level):
            what = s.kind if s is not g else "one disk, no RAID"
        else:
            what = f"RAID{g.level}, {g.members} members" + (f" + {g.spares} spares" if g.spares else "")
        alike.setdefault(what, []).append(g.name)
    lines += [f"{', '.join(names)}: {what}" for what, names in alike.items()]
    v = result.volumes[0]
    stripe = v.alignment.top_io_opt_bytes
    lines.append(f"full stripe {stripe // 1024} KiB" if stripe else "no stripe")
    lines.append(
        f"data loss within a year: {odds_pair(rel.loss.per_year)} (arrays lost and unreadable sectors in rebuilds)"
    )
    return lines


def figure(v: float | None, metric: str) -> str:
    if v is None:
        return ""
    if metric == "IOPS":
        return f"{v:,.0f}"
    return f"{v:,.1f}" if v < 100 else f"{v:,.0f}"


def measured_of(report: ValidateReport) -> dict[tuple[str, tuple[tuple[str, int], ...]], Measured]:
    """A validate run's figures, each workload at the numjobs it ran with, with its CPU cost."""
    from runners.validate.compare import model_workloads

    out = {}
    for w, m in zip(report.workloads, model_workloads(report), strict=True):
        f = w.figures
        if f is None or w.status not in ("done", "partial"):
            continue
        out[point_key(w.name, {"numjobs": m.numjobs})] = measured_from(f, w.status, w.block_bytes)
    return out


def numjobs_axis(cores: int, ran: Sequence[int] = ()) -> Axis:
    """1 job, doubling to at least four per core (the first question: 1 thread, one per core, four per
    core), and the numjobs a run used."""
    top = 1 << max(0, (4 * cores - 1).bit_length())
    return Axis(key="numjobs", values=tuple(sorted({*(1 << i for i in range(top.bit_length())), *ran})))


def suite_curves(
    plan: Plan,
    result: PlanResult,
    job: JobFile | None,
    measured: dict[tuple[str, tuple[tuple[str, int], ...]], Measured],
    ran: Sequence[Workload] = (),
) -> list[Curve]:
    """The suite's workloads (and a job file's sections) over numjobs, with what was measured; `ran`
    (the workloads as a validate run shaped them) in place of the suite shaped for the plan."""
    from planners.perf.context import build_ctx
    from planners.perf.scale import as_job, shaped, sweep_job
    from planners.perf.workloads import VALIDATION

    axis = numjobs_axis(build_ctx(plan, result).cpu.cores, [pt[0][1] for _, pt in measured])
    jobs = [as_job(list(ran) or shaped(plan, result, VALIDATION)), *([job] if job else [])]
    # The numjobs axis is the tab's choice, not the user's: a big job file's curve ends where fio stops taking jobs.
    preds = [p for jf in jobs for p in sweep_job(plan, result, jf, [axis], runnable_only=True)]
    return curves(preds, "numjobs", measured)
