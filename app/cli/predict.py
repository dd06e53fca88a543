"""What `podplan predict` and `podplan sweep` show: predicted speed with its limiting component, loss odds, layouts ranked."""

from __future__ import annotations

import argparse
from typing import Any

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from app.shared.console import cli_console
from app.shared.figures import (
    RISK_MARKS,
    SWEEP_COLUMNS,
    SWEEP_NUMERIC,
    loss_lines,
    mb_text,
    reliability_rows,
    risk_reasons,
    survives_lines,
    sweep_cells,
    sweep_title,
    ure_text,
)
from app.shared.fit import Col, FitTable
from app.shared.host_cpu import origin_json, origin_text
from app.usecases.predict import COUNTED_CPU_TERMS, Cost, Reliability, WorkloadPrediction
from app.usecases.sweep import Sweep
from planners.errors import PlanError
from planners.models import Plan


def predicted_cost_view(cost: Cost) -> Group:
    """The plan's cost rows, then (with a price) what each workload's speed costs."""
    from app.shared.cost_view import workload_rows
    from app.shared.render import cost_table

    rows = workload_rows(cost)
    if not rows:
        return Group(cost_table(cost))
    per = FitTable(
        [
            Col("workload", [r[0] for r in rows], right=False),
            Col("price per MB/s", [r[1] for r in rows]),
            Col("per 1,000 IOPS", [r[2] for r in rows]),
        ],
        rows_are="workload",
        table=dict(title="Price of the predicted speed", title_justify="left", box=box.SIMPLE_HEAD),
    )
    return Group(cost_table(cost), per)


def sweep_command(plan: Plan, args: argparse.Namespace) -> int:
    from app.usecases.sweep import CpuSource, SweepRequest, sweep_layouts

    if args.top < 0:
        raise PlanError("--top must be 0 or more")
    if not 0 < args.max_loss <= 100:
        raise PlanError("--max-loss is a percentage above 0 and at most 100")
    if not 0 < args.max_rebuild_loss <= 100:
        raise PlanError("--max-rebuild-loss is a percentage above 0 and at most 100")
    out = sweep_layouts(
        SweepRequest(
            plan,
            args.workload,
            max_loss=args.max_loss / 100,
            max_rebuild_loss=args.max_rebuild_loss / 100,
            cpu=CpuSource(args.kernel_log, args.no_host_cpu, args.cpu_class),
            rank=args.rank,
        )
    )
    if args.json:
        from app.shared.documents import dumps
        from app.shared.documents_built import SweepDocument

        left_out: dict[str, Any] = {} if out.priced else {"rows": {"__all__": {"cost"}}}
        doc = SweepDocument.of(out.sweep, rank=out.rank, cpu=origin_json(out.cpu))
        print(dumps(doc, exclude={**left_out, **({"rank": True} if out.rank == "front" else {})}))
    else:
        # The skip line under the table, not in its caption: it stays one line however narrow the table.
        skipped = [Text(out.sweep.skipped_line)] if out.sweep.skipped else []
        cli_console().print(
            fitting_sweep_table(out.sweep, args.top or None, show_risky=args.all, priced=out.priced, rank=out.rank),
            *skipped,
            Text(f"CPU: {origin_text(out.cpu)}"),
        )
    return 0


MAX_ROWS = 100  # past it rows alike are one row: a table of thousands is read by no one and drawn for seconds


def alike(preds: list[WorkloadPrediction]) -> tuple[list[WorkloadPrediction], list[str]]:
    """`preds` with the rows that show the same figures and notes as one row each, when there are more
    than MAX_ROWS, and a line per merged row naming what it stands for (--json keeps every row)."""
    if len(preds) <= MAX_ROWS:
        return preds, []
    from app.usecases.predict import listed

    groups: dict[tuple[object, ...], list[WorkloadPrediction]] = {}
    for p in preds:
        key = (
            mb_text(p.mb_s),
            range_text(p),
            f"{p.iops:,.0f}",
            p.binding,
            p.runner_up,
            f"{p.headroom:.2f}",
            p.factor_note,
            p.assumption,
            p.outside_model,
            tuple(p.shaping),
            p.terms[0].note if p.binding in COUNTED_CPU_TERMS else "",
        )
        groups.setdefault(key, []).append(p)
    rows, lines = [], []
    for first, *rest in groups.values():
        if not rest:
            rows.append(first)
            continue
        label = f"{first.workload} +{len(rest):,} alike"
        rows.append(first.model_copy(update={"workload": label}))
        names = [p.workload for p in rest[:6]]
        lines.append(f"{label}: {listed(names, len(rest))} predict the same figures (--json gives each)")
    return rows, lines


def refused_lines(refused: list[dict[str, str]]) -> list[Text]:
    """One line per refused section, under a count: the other sections' figures stand without it."""
    if not refused:
        return []
    head = Text(f"{len(refused)} section(s) not predicted:", style="bold")
    return [head, *(Text(f"  [{r['section']}] {r['reason']}") for r in refused)]


def prediction_table(preds: list[WorkloadPrediction], *, title: str = "Predicted") -> FitTable:
    """Narrower than the table, the limits' names wrap between words; then the next limit and the
    headroom, then the range, move under the table: the workload's MB/s and IOPS stay."""
    notes = sorted({p.factor_note for p in preds if p.factor_note})
    notes += range_notes(preds)
    notes += [f"{p.workload}: {p.binding}: {p.terms[0].note}" for p in preds if p.binding in COUNTED_CPU_TERMS]
    notes += [f"* {p.workload} is outside the model: {p.outside_model}" for p in preds if p.outside_model]
    notes += [f"{p.workload}: {line}" for p in preds for line in p.shaping]
    return FitTable(
        [
            Col("workload", [p.workload for p in preds], right=False),
            Col("MB/s", [mb_text(p.mb_s) + ("*" if p.outside_model else "") for p in preds]),
            Col("range", [range_text(p) for p in preds]),
            Col("IOPS", [f"{p.iops:,.0f}" for p in preds]),
            Col("limited by", [Text(p.binding, style="bold") for p in preds], right=False, words=True),
            Col("next limit", [p.runner_up for p in preds], right=False, words=True),
            Col("headroom", [f"x{p.headroom:.2f}" for p in preds]),
        ],
        [("next limit", "headroom"), ("next limit", "headroom", "range")],
        rows_are="workload",
        wrap_first=False,
        table=dict(
            title=title,
            title_justify="left",
            box=box.SIMPLE_HEAD,
            caption="\n".join(notes) or None,
            caption_justify="left",
        ),
    )


def range_notes(preds: list[WorkloadPrediction]) -> list[str]:
    """What each range rests on, each reason once; a reason that holds for some rows only names them."""
    ranged = [p for p in preds if p.assumption]
    holds: dict[str, list[str]] = {}
    for p in ranged:
        for part in p.assumption.split("; "):
            holds.setdefault(part, []).append(p.workload)
    return [
        f"range: {part}" + ("" if len(names) == len(ranged) else f" ({', '.join(names)})")
        for part, names in holds.items()
    ]


def range_text(p: WorkloadPrediction) -> str:
    """low-high when the figure rests on presets, '' when it does not."""
    if p.mb_s_high <= p.mb_s_low:
        return ""
    return f"{mb_text(p.mb_s_low)}-{mb_text(p.mb_s_high)}"


def reliability_table(rel: Reliability) -> Group:
    t = Table(title="Reliability", title_justify="left", box=box.SIMPLE_HEAD)
    for col in ("array", "level", "survives", "rebuild", "limited by", "P(URE)"):
        # Figures never shrink into an ellipsis; the words (what the array is, what limits it) wrap instead.
        t.add_column(
            col,
            no_wrap=col not in ("level", "limited by"),
            justify="right" if col in ("survives", "rebuild", "P(URE)") else "left",
        )
    rows = reliability_rows(rel)
    for r in rows:
        ure = "-" if r.ure is None else ure_text(r.ure)
        t.add_row(r.name, r.kind, r.survives, r.rebuild, f"{r.binding} {r.rate}".strip(), ure)
    years = tuple(h / 8766 for h in rel.mttdl_hours)
    lines = Text()
    for note in survives_lines(rel):
        lines.append(f"Survives: {note}.\n")
    for why in dict.fromkeys(r.consequence for r in rows if r.consequence):
        lines.append(f"P(URE): an unreadable sector during a one-disk rebuild; {why}.\n")
    first, *rest = loss_lines(rel.loss, rel.afr_nominal)
    lines.append(first + "\n", style="bold")
    lines.append("\n".join(rest) + f"\nArrays' MTTDL {years[0]:,.0f} to {years[1]:,.0f} years.")
    assumptions = Text("\n".join("- " + a for a in rel.assumptions), style="dim")
    return Group(t, lines, Text("Assumptions:", style="dim"), assumptions)


# With the cost columns, where the sweep's table is wider than the terminal, these go, in order (as the
# TUI's sweep drops them): Rich would otherwise squeeze a figure or a word into an ellipsis.
NARROW_DROPS: tuple[tuple[str, ...], ...] = (
    (),
    ("limited by",),
    ("limited by", "rebuild"),
    ("limited by", "rebuild", "URE/rb"),
)


def fitting_sweep_table(s: Sweep, top: int | None, *, show_risky: bool, priced: bool, rank: str) -> Table:
    """`sweep_table`, less the columns NARROW_DROPS names first where it would not fit the terminal
    whole; without prices the table is the one it always was."""
    from rich.measure import Measurement

    console = cli_console()
    t = sweep_table(s, top, show_risky=show_risky, priced=priced, rank=rank)
    unbounded = console.options.update_width(1 << 16)  # the table's natural width, not the one it is squeezed to
    for dropped in NARROW_DROPS[1:] if priced else ():
        if Measurement.get(console, unbounded, t).maximum <= console.width:
            break
        t = sweep_table(s, top, show_risky=show_risky, priced=priced, rank=rank, dropped=dropped)
    return t


def sweep_table(
    s: Sweep,
    top: int | None,
    *,
    show_risky: bool = False,
    priced: bool = False,
    rank: str = "front",
    dropped: tuple[str, ...] = (),
) -> Table:
    """The layouts as ranked; with prices or watts, their price and watts per usable TiB as two more columns."""
    from app.shared.cost_view import COST_COLUMNS, COST_NOTE, RANK_TITLES, sweep_cost_cells

    title = sweep_title(s) + (COST_NOTE if priced else "") + RANK_TITLES.get(rank, "")
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), show_edge=False)
    columns = SWEEP_COLUMNS + (COST_COLUMNS if priced else ())
    shown = [i for i, col in enumerate(columns) if col not in dropped]
    # Figures never shrink into an ellipsis on a narrow terminal; the words wrap instead.
    for col in (columns[i] for i in shown):
        t.add_column(
            col,
            no_wrap=col not in ("layout", "limited by"),
            justify="right" if col in SWEEP_NUMERIC + COST_COLUMNS else "left",
        )
    rows = [(i, r) for i, r in enumerate(s.rows, start=1) if show_risky or not r.risky]
    for i, r in rows[:top] if top else rows:
        cells = sweep_cells(i, r) + (sweep_cost_cells(r.cost) if priced else ())
        t.add_row(*(cells[j] for j in shown), style="" if r.pareto else "dim")
    notes = [f"{', '.join(dropped)}: on a wider terminal, or in --json"] if dropped else []
    if top and len(rows) > top:
        notes.append(f"the first {top} of {len(rows)} shown (--top 0 shows them all)")
    flags = {"rebuilds": "--max-rebuild-loss", "yearly": "--max-loss"}
    for risk, why in risk_reasons(s).items():
        hidden = sum(r.risk == risk for r in s.rows) if not show_risky else 0
        if hidden:
            notes.append(
                f"{hidden} layouts hidden ({RISK_MARKS[risk]}): {why} (--all shows them, {flags[risk]} "
                "changes the limit)"
            )
    if notes:
        t.caption = "\n".join(notes)
        t.caption_justify = "left"
    return t
