"""Scaling curves as the pictures draw them: one curve per section (and per value of a second
swept option), predicted at every point, measured where validate ran it, the knee marked.

The TUI's chart, the HTML report and the CLI's table all read these, so each shows the same
figures; `curves_doc` is the JSON kept beside a report for `podplan report DIR` to draw again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from planners.perf.scale import PointPrediction, curve_label, size_text

# Requests under this size are read as IOPS, larger ones as MB/s (as validate's table does).
SMALL_REQUEST = 64 * 1024


@dataclass(frozen=True)
class Measured:
    """One point as fio measured it."""

    mb_s: float
    iops: float
    status: str = "done"
    cpu_s_per_gb: float | None = None
    cpu_s_per_k_ios: float | None = None


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


def curves(preds: Sequence[PointPrediction], x_key: str,
           measured: dict[tuple[str, tuple[tuple[str, int], ...]], Measured] | None = None) -> list[Curve]:
    """The predictions grouped into curves, in the order their sections first appear."""
    out: dict[tuple[str, str], Curve] = {}
    for p in preds:
        label = curve_label(p.point, x_key)
        small = p.block_bytes < SMALL_REQUEST and x_key != "bs"
        c = out.setdefault((p.workload, label), Curve(p.workload, label, x_key, "IOPS" if small else "MB/s"))
        c.points.append(CurvePoint(x=p.point[x_key], mb_s=p.mb_s, iops=p.iops, binding=p.binding, knee=p.knee,
                                   knee_cause=p.knee_cause, outside=p.outside_model,
                                   measured=(measured or {}).get(point_key(p.workload, p.point))))
    for c in out.values():
        c.points.sort(key=lambda q: q.x)
    return list(out.values())


def curves_doc(title: str, summary: Sequence[str], axes: Sequence[dict[str, Any]], cs: Sequence[Curve]) -> dict:
    """Everything a report draws, as JSON."""
    return {"title": title, "summary": list(summary), "axes": list(axes), "curves": [asdict(c) for c in cs]}


def from_doc(doc: dict) -> tuple[str, list[str], list[dict[str, Any]], list[Curve]]:
    """`curves_doc` read back (a kept report drawn again)."""
    cs = []
    for c in doc["curves"]:
        pts = [CurvePoint(**{**p, "measured": Measured(**p["measured"]) if p.get("measured") else None})
               for p in c["points"]]
        cs.append(Curve(c["section"], c["label"], c["x_key"], c["metric"], pts))
    return doc["title"], list(doc["summary"]), list(doc["axes"]), cs


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


def figure(v: float | None, metric: str) -> str:
    if v is None:
        return ""
    if metric == "IOPS":
        return f"{v:,.0f}"
    return f"{v:,.1f}" if v < 100 else f"{v:,.0f}"
