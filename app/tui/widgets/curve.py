"""A scaling curve on the Perf tab: the predicted figure as a line over numjobs (or the swept
option), measured points once validate has run, the knee marked.

Drawn with textual-plotext (Plotext inside a Textual widget). The x axis is the log2 of the
swept value, labelled with the values themselves, so each doubling is one step; the knee is where
the rest of the curve gains under 10 % (planners.perf.scale).
"""

from __future__ import annotations

from math import ceil, floor, log2, log10
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.widgets import Static
from textual_plotext import PlotextPlot

from app.shared.curves import Curve, Measured
from app.usecases.predict import JobFile
from planners.models import Plan
from planners.results import PlanResult

if TYPE_CHECKING:
    from app.usecases.predict import HostParity

PLOT_HEIGHT = 12
"""Rows of one chart: enough for a readable y axis, and at 80x24 one chart and its title fit."""
Y_STEPS = (PLOT_HEIGHT - 4) // 2 - 1
"""Most steps on the y axis: the title, the frame and the x labels take 4 rows, and plotext puts each
label on the row nearest its value, so labels stay apart (a blank row between two) only up to one
per two rows of the plot."""


class CurvePlot(PlotextPlot):
    """One section's curve (or curves, one per value of a second swept option)."""

    DEFAULT_CSS = f"""
    CurvePlot {{
        height: {PLOT_HEIGHT};
        width: 1fr;
    }}
    """

    def __init__(self, curves: list[Curve], *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.curves = curves
        self._draw()

    def show(self, curves: list[Curve]) -> None:
        """Draw other figures (the plan changed, or validate measured some points)."""
        self.curves = curves
        self._draw()
        self.refresh()

    def _draw(self) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        cs = self.curves
        if not cs:
            return
        first = cs[0]
        xs = sorted({p.x for c in cs for p in c.points})
        knees = [(c, k) for c in cs if (k := c.knee)]
        title = f"{first.section} {first.metric}"
        if knees:
            c, k = knees[0]
            title += f", knee {c.x_text(k.x)}: {k.knee_cause.split(':')[0]}"
        plt.title(title)
        plt.xticks([log2(x) for x in xs], [first.x_text(x) for x in xs])
        for c in cs:
            plt.plot([log2(p.x) for p in c.points], [c.y(p) or 0.0 for p in c.points], marker="braille")
            seen = [p for p in c.points if p.measured is not None]
            if seen:
                plt.scatter([log2(p.x) for p in seen], [c.y(p, measured=True) or 0.0 for p in seen], marker="o")
        for c, k in knees:
            plt.vline(log2(k.x), "red")
            plt.scatter([log2(k.x)], [c.y(k) or 0.0], marker="K", color="red")
        ys = [v for c in cs for p in c.points for v in (c.y(p), c.y(p, measured=True)) if v is not None]
        ticks = nice_ticks(max(ys) if ys else 0.0)
        plt.ylim(0, ticks[-1])
        plt.yticks(ticks, [f"{t:,.0f}" if t >= 10 else f"{t:g}" for t in ticks])


def nice_ticks(top: float, steps: int = Y_STEPS) -> list[float]:
    """0 up to at least `top` in at most `steps` round steps (1, 2 or 5 times a power of ten): axis
    labels that are exact figures, not an axis's arbitrary fractions."""
    if top <= 0:
        return [0.0, 1.0]
    step = 10 ** floor(log10(top / steps))
    for m in (1, 2, 5, 10):
        if top / (m * step) <= steps:
            step *= m
            break
    n = ceil(top / step - 1e-9)
    return [i * step for i in range(n + 1)]


MeasuredPoints = dict[tuple[str, tuple[tuple[str, int], ...]], Measured]
"""What validate measured last (each workload at the numjobs it ran with), drawn as points on the
curves of the sections of the same name until the next run: the App keeps it (`measured_of`)."""


def perf_curves(plan: Plan, result: PlanResult, job: JobFile | None, measured: MeasuredPoints) -> list[list[Curve]]:
    """The suite's sections (and a loaded job file's) over numjobs: one list of curves per chart."""
    from app.shared.curves import suite_curves

    return [[c] for c in suite_curves(plan, result, job, measured)]


HEADING = (
    "Scaling over numjobs, 1 job to 4 per core: the line is predicted, o measured (once validate "
    "has run), K and the red line the knee, past which more jobs gain under 10 %"
)


MAX_CHARTS = 12
"""Charts mounted on the Perf tab: the suite's and the first job sections'. Hundreds of plot
widgets would take seconds to lay out on every change; the command line draws them all."""


def curve_groups(
    plan: Plan, result: PlanResult, parity: HostParity | None, job: JobFile | None, measured: MeasuredPoints
) -> list[list[Curve]]:
    """The Perf tab's curves, computed off the UI thread (pure: no widget touched), on the plan with
    this host's parity figures once read, as the Perf tab's figures are."""
    from app.usecases.predict import with_parity

    return perf_curves(with_parity(plan, parity)[0], result, job, measured)


def show_curves(scroll: VerticalScroll, groups: list[list[Curve]]) -> None:
    """The Perf tab's charts, one per section, under its figures; redrawn in place when the
    sections are the same, else mounted anew. At most MAX_CHARTS, with a line that says so."""
    shown = groups[:MAX_CHARTS]
    heading = HEADING
    if len(groups) > len(shown):
        heading += (
            f". Charts of the first {len(shown)} of {len(groups)} sections; "
            "`podplan predict --job FILE --scale numjobs=...` draws every one"
        )
    plots = list(scroll.query(CurvePlot))
    if [p.curves[0].name for p in plots] == [g[0].name for g in shown]:
        for p, g in zip(plots, shown, strict=True):
            p.show(g)
        return
    # No ids on the plots: the old ones leave the DOM only after this call returns, and new ones of
    # the same ids would collide with them (a second job file crashed the app with DuplicateIds).
    for p in plots:
        p.remove()
    if headings := scroll.query("#curves-heading"):
        headings.first(Static).update(heading)
    else:
        scroll.mount(Static(heading, id="curves-heading", classes="curves-heading"))
    scroll.mount_all([CurvePlot(g, classes=f"curve-{i}") for i, g in enumerate(shown)])
