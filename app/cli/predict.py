"""`podplan predict` and `podplan sweep`: predicted speed with its limiting component, loss odds, layouts ranked."""

from __future__ import annotations

import argparse
import json
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
from app.shared.host_cpu import add_cpu_flags, computes_parity, origin_json, origin_text
from planners.errors import PlanError
from planners.hardware.disks import DISK_CLASSES
from planners.hardware.machine import CPU_CLASSES, Cpu, Hardware
from planners.layouts.sweep import MAX_LOSS_PER_YEAR, Sweep
from planners.models import Plan
from planners.perf.predict import COUNTED_CPU_TERMS, WorkloadPrediction
from planners.reliability.loss import MAX_REBUILD_LOSS, Reliability

MODES = ("normal", "degraded", "rebuild")


def add_parsers(sub: Any) -> None:
    from app.cli.flags import add_plan_flags
    from planners.perf.workloads import PRESETS

    pr = sub.add_parser(
        "predict",
        help="predict throughput and IOPS per workload, the part that limits each, rebuild time and data-loss odds",
    )
    add_plan_flags(pr)
    _hardware_flags(pr)
    pr.add_argument(
        "--workload",
        action="append",
        metavar="NAME",
        choices=tuple(PRESETS),
        help=f"workload to predict (repeatable): {', '.join(PRESETS)}; default: the validation suite",
    )
    pr.add_argument(
        "--job",
        action="append",
        metavar="FILE.fio",
        help="predict each job section of an fio job file as fio runs it (repeatable; with --workload "
        "too, both are predicted)",
    )
    pr.add_argument("--mode", choices=MODES, default="normal", help="healthy, one member missing, or rebuilding")
    pr.add_argument("--json", action="store_true", help="print JSON")
    from app.cli.scale import add_scale_flags

    add_scale_flags(pr)
    sw = sub.add_parser("sweep", help="rank every layout of the plan's disks by usable space, speed and loss odds")
    add_plan_flags(sw)
    _hardware_flags(sw)
    sw.add_argument(
        "--workload",
        metavar="NAME",
        choices=tuple(PRESETS),
        default="seq-write",
        help="workload the speed column is for (default seq-write)",
    )
    sw.add_argument("--top", type=int, default=25, metavar="N", help="rows to show (default 25; 0 = all)")
    sw.add_argument(
        "--max-loss",
        type=float,
        default=100 * MAX_LOSS_PER_YEAR,
        metavar="PCT",
        help="yearly data-loss odds (at 4 %% disk failures a year) above which a layout is risky: "
        "ranked last and hidden from the table (default %(default)g %%)",
    )
    sw.add_argument(
        "--max-rebuild-loss",
        type=float,
        default=100 * MAX_REBUILD_LOSS,
        metavar="PCT",
        help="share of rebuilds losing data to an unreadable sector (URE) above which a layout is "
        "risky: ranked last and hidden from the table (default %(default)g %%)",
    )
    sw.add_argument("--all", action="store_true", help="show the risky layouts too")
    sw.add_argument("--json", action="store_true", help="print JSON (every row)")


def _hardware_flags(p: argparse.ArgumentParser) -> None:
    h = p.add_argument_group("hardware")
    h.add_argument("--disk-class", choices=tuple(DISK_CLASSES), help="disk class preset for every disk")
    h.add_argument(
        "--cpu-class",
        choices=tuple(CPU_CLASSES),
        help="host CPU class preset (this host's kernel log is then not read)",
    )
    add_cpu_flags(h)


def _with_hardware(plan: Plan, args: argparse.Namespace) -> Plan:
    hw = plan.hardware or Hardware()
    if args.disk_class:
        hw = hw.model_copy(update={"disk": hw.disk.model_copy(update={"disk_class": args.disk_class}), "models": {}})
    if args.cpu_class:
        hw = hw.model_copy(update={"cpu": Cpu(cpu_class=args.cpu_class)})
    return plan.model_copy(update={"hardware": hw}) if (args.disk_class or args.cpu_class) else plan


def dispatch(args: argparse.Namespace) -> int:
    from app.cli.flags import load_plan_file, plan_from_args
    from planners.example import example_pod

    base = load_plan_file(args.plan_file) if args.plan_file else example_pod()
    if args.command == "sweep":
        return sweep_command(_with_hardware(plan_from_args(args, base), args), args)
    from app.usecases.predict import PredictRequest, predict_plan
    from app.usecases.sweep import CpuSource

    asked = PredictRequest(
        _with_hardware(plan_from_args(args, base), args),
        tuple(args.workload) if args.workload else None,
        tuple(zip(args.job, read_jobs(args.job), strict=True)) if args.job else (),
        args.mode,
        CpuSource(args.kernel_log, args.no_host_cpu, args.cpu_class),
    )
    from app.cli.scale import axes_of, predict_scale

    if axes := axes_of(args):
        return predict_scale(asked, args, axes)
    out = predict_plan(asked)
    plan, result, cpu, rel = out.plan, out.result, out.cpu, out.reliability
    predictions, job_notes, grouping, refused = list(out.predictions), out.job_notes, out.job_grouping, out.refused
    assert cpu is not None  # a CpuSource always names where each figure came from
    if args.json:
        from planners import __version__

        doc = {
            "podplan_version": __version__,
            "plan": plan.name,
            "mode": args.mode,
            "cpu": origin_json(cpu),
            "predictions": [p.model_dump(mode="json") for p in predictions],
            "reliability": rel.model_dump(mode="json"),
            "job_notes": list(job_notes),
            "job_grouping": list(grouping),
            "refused_sections": list(refused),
        }
        print(json.dumps(doc, indent=2))
    elif predictions:
        rows, merged = alike(predictions)
        notes = [Text(n) for n in [*grouping, *merged]] + refused_lines(list(refused))
        notes += [Text(n, style="dim") for n in job_notes]
        cli_console().print(
            Group(
                prediction_table(rows, title=f"{plan.name}: predicted ({args.mode})"),
                *notes,
                *([Text(f"CPU: {origin_text(cpu)}")] if computes_parity(plan, result) else []),
                Text(""),
                reliability_table(rel),
            )
        )
    else:
        cli_console().print(Group(*refused_lines(list(refused))))
    # Nothing predicted at all: the refusals are the answer, and a script must see that it got no figure.
    return 0 if predictions else 1


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
        )
    )
    if args.json:
        doc = out.sweep.model_dump(mode="json", exclude={"rows": {"__all__": {"plan"}}})
        print(json.dumps({**doc, "cpu": origin_json(out.cpu)}, indent=2))
    else:
        # The skip line under the table, not in its caption: it stays one line however narrow the table.
        skipped = [Text(out.sweep.skipped_line)] if out.sweep.skipped else []
        cli_console().print(
            sweep_table(out.sweep, args.top or None, show_risky=args.all),
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
    from planners.perf.jobtext import listed

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


def read_jobs(paths: list[str]) -> list:
    """Each fio job file parsed; an unreadable file or a refused option is one line (PlanError)."""
    from app.shared.planfile import load_job_file

    return [load_job_file(path) for path in paths]


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


def sweep_table(s: Sweep, top: int | None, *, show_risky: bool = False) -> Table:
    t = Table(title=sweep_title(s), title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), show_edge=False)
    # Figures never shrink into an ellipsis on a narrow terminal; the words wrap instead.
    for col in SWEEP_COLUMNS:
        t.add_column(
            col, no_wrap=col not in ("layout", "limited by"), justify="right" if col in SWEEP_NUMERIC else "left"
        )
    rows = [(i, r) for i, r in enumerate(s.rows, start=1) if show_risky or not r.risky]
    for i, r in rows[:top] if top else rows:
        t.add_row(*sweep_cells(i, r), style="" if r.pareto else "dim")
    notes = []
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
