"""The Perf tab: a roofline per workload (one bar per limiting component) and the loss odds.

Bars are on a log scale shared by one workload's terms, because the ceilings span four
orders of magnitude (a link at 2 GB/s, random 4 KiB writes at 2 MB/s) and what matters is
how far each sits above the binding one, which is drawn first and highlighted.
"""

from __future__ import annotations

from math import log

from rich.console import Group
from rich.table import Table
from rich.text import Text

from app.shared.host_cpu import computes_parity, origin_text
from app.usecases.predict import (
    COUNTED_CPU_TERMS,
    HostParity,
    JobFile,
    PredictRequest,
    Reliability,
    WorkloadPrediction,
    predict_plan,
)
from planners.models import Plan
from planners.perf.workloads import VALIDATION_NAMES
from planners.results import PlanResult

LABEL_WIDTH = 13
VALUE_WIDTH = 11
BAR_MIN = 10


def _value(p: WorkloadPrediction, mb_s: float) -> str:
    if p.block_bytes < (1 << 16):
        return f"{mb_s * 1e6 / p.block_bytes:,.0f} IOPS"
    return f"{mb_s:,.0f} MB/s"


def roofline(p: WorkloadPrediction, width: int) -> Text:
    """One workload: a header line (wrapped), then one bar per term, smallest (binding) first."""
    # "no limit" placeholders would flatten the scale; a job that moves nothing has no bars to draw
    shown = [t for t in p.terms if 0 < t.mb_s < 1e9][:8]
    if not shown:
        return Text(f"{p.workload}  {_value(p, 0.0)}  limited by {p.binding}\n", style="bold", overflow="fold")
    value_width = max([VALUE_WIDTH, *(len(_value(p, t.mb_s)) for t in shown)])
    bar_width = max(BAR_MIN, width - LABEL_WIDTH - value_width - 2)
    lo = max(min(t.mb_s for t in shown), 1e-6)
    hi = max(max(t.mb_s for t in shown), lo * 1.0001)
    span = log(hi / lo) * 1.15  # leave room so the largest bar does not fill the pane edge to edge
    out = Text(overflow="fold")
    out.append(f"{p.workload}", style="bold")
    out.append(f"  {_value(p, p.mb_s)}", style="bold")
    if p.block_bytes < (1 << 16):
        out.append(f" ({p.mb_s:,.1f} MB/s)")
    out.append(f"  limited by {p.binding}", style="bold yellow")
    if p.runner_up:
        out.append(f", then {p.runner_up} (x{p.headroom:.2f})", style="dim")
    out.append("\n")
    if p.outside_model:
        out.append(f"outside the model: {p.outside_model}\n", style="bold red")
    if p.binding in COUNTED_CPU_TERMS:
        out.append(f"{p.binding}: {p.terms[0].note}\n")
    if p.mb_s_high > p.mb_s_low:
        out.append(f"range {_value(p, p.mb_s_low)} to {_value(p, p.mb_s_high)}: {p.assumption}\n", style="dim")
    for i, t in enumerate(shown):
        frac = 0.08 + 0.92 * log(max(t.mb_s, lo) / lo) / span
        n = max(1, round(frac * bar_width))
        style = "bold yellow" if i == 0 else "cyan"
        out.append(f"{t.name[: LABEL_WIDTH - 1]:<{LABEL_WIDTH}}", style=style if i == 0 else "")
        out.append("█" * n, style=style)
        out.append(" " * (bar_width - n + 1))
        out.append(f"{_value(p, t.mb_s):>{value_width}}\n", style=style if i == 0 else "dim")
    if p.factor_note:
        out.append(p.factor_note + "\n", style="dim")
    return out


def reliability_text(rel: Reliability) -> Table:
    from app.shared.figures import loss_lines, reliability_rows, share_text, short_odds, survives_lines

    t = Table(title="Reliability", title_justify="left", show_edge=False, padding=(0, 1, 0, 0))
    for col in ("array", "survives", "rebuild", "limited by", "P(URE)"):
        t.add_column(col, overflow="fold", justify="left" if col in ("array", "limited by") else "right")
    for r in reliability_rows(rel):
        t.add_row(r.name, r.survives, r.rebuild, r.binding, "-" if r.ure is None else share_text(r.ure, short_odds))
    said = [f"Survives: {note}." for note in survives_lines(rel)]
    t.caption = "\n".join(said + [line.strip() for line in loss_lines(rel.loss, rel.afr_nominal)])
    t.caption_justify = "left"
    return t


def perf_view(
    plan: Plan, result: PlanResult, width: int, parity: HostParity | None, job: JobFile | None, source: str
) -> Group:
    """The suite, then the sections of `job` (read from `source`) if one is loaded, on the plan with
    this host's parity figures once they are read (`parity`; None until then), as `podplan predict` does."""
    out = predict_plan(
        PredictRequest(plan, VALIDATION_NAMES, ((source, job),) if job else (), cpu=parity, result=result)
    )
    plan, preds = out.plan, out.predictions
    # The odds of losing the data first: what a sysadmin weighs a layout by, and short; below the
    # rooflines it was out of sight even at 120x40.
    parts: list = [reliability_text(out.reliability), Text()]
    for p in preds:
        parts += [roofline(p, width)]
    if job:
        n = len(job.workloads)
        parts.append(
            Text(f"{n} job{'s' if n > 1 else ''} from {source} after the suite (ctrl+j loads another)", style="dim")
        )
        parts += [Text(job.grouping)] if job.grouping else []
        parts += [Text(f"not predicted: [{r.section}] {r.reason}") for r in job.refused]
        parts += [Text(n, style="dim") for n in job.notes]
        parts += [Text(f"{p.workload}: {line}", style="dim") for p in preds for line in p.shaping]
    if out.cpu is not None and computes_parity(plan, result):
        parts.append(Text(f"CPU: {origin_text(out.cpu)}", style="dim"))
    return Group(*parts)
