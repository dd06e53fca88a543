"""Pinned variants side by side: one column per plan, one row per figure worth comparing.

Throughput and reliability come from the performance and reliability models, each
figure with what limits it. Each row holds one short figure, so that three variants fit
whole beside the labels on a 120-column terminal (two on 80).
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from app.tui.keys import bindings
from app.tui.variants import Variant
from app.tui.widgets.footer import ScreenFooter
from app.usecases.predict import HostParity, PredictRequest, Reliability, WorkloadPrediction, predict_plan
from planners.models import Plan
from planners.results import PlanResult
from planners.units import format_bytes_binary as tib
from planners.units import format_bytes_decimal as tb
from planners.units import format_size_compact


def layout_text(plan: Plan) -> str:
    """One line such as "3x RAID6 15 / LVM linear / xfs"."""
    return f"{arrays_text(plan)}{' / LVM ' + plan.lvm.mode if plan.lvm.enabled else ''} / {plan.filesystem.type}"


def arrays_text(plan: Plan) -> str:
    """The md arrays, such as "3x RAID6 15" or "2x RAID6 21+1"."""
    if not plan.groups:
        return f"no md, {sum(d.count for d in plan.disks)} disk(s)"
    g = plan.groups[0]
    return f"{len(plan.groups)}x RAID{g.level} {g.members}" + (f"+{g.spares}" if g.spares else "")


def _size(n: int | None) -> str:
    return format_size_compact(n) if n else "-"


def _throughput(preds: Sequence[WorkloadPrediction]) -> tuple[str, str, str]:
    """Sequential write, what limits it, and 4k random read."""
    seq, rnd = preds
    return f"{seq.mb_s:,.0f} MB/s", seq.binding, f"{rnd.iops:,.0f} IOPS"


def _reliability(rel: Reliability) -> tuple[str, str, str, str]:
    """Odds of losing data in a year (1-4 % disk failures), its two parts at 4 % (whole arrays lost,
    and the share of rebuilds that lose data to an unreadable sector), and the longest rebuild."""
    from app.shared.figures import share_text, short_odds

    lo, hi = rel.loss.per_year
    loss = rel.loss
    hours = rel.longest_rebuild_hours
    return (
        f"{short_odds(lo)}-{short_odds(hi)}",
        short_odds(loss.array_per_year[1]),
        share_text(loss.ure_per_rebuild[1], short_odds),
        "none" if hours is None else f"{hours:.0f} h",
    )


ROWS: tuple[tuple[str, object], ...] = (
    ("disks", lambda p, r: f"{r.disk_count} x {tb(p.disks[0].size)}" + (" +" if len(p.disks) > 1 else "")),
    ("arrays", lambda p, r: arrays_text(p)),
    ("LVM / fs", lambda p, r: f"{'LVM ' + p.lvm.mode if p.lvm.enabled else 'no LVM'} / {p.filesystem.type}"),
    ("raw", lambda p, r: tb(r.raw_bytes)),
    ("usable bytes", lambda p, r: f"{r.usable_bytes:,}"),
    ("usable TB", lambda p, r: tb(r.usable_bytes)),
    ("usable TiB", lambda p, r: tib(r.usable_bytes)),
    ("efficiency", lambda p, r: f"{r.efficiency:.2%}"),
    ("spares", lambda p, r: tb(r.spare_bytes) if r.spare_bytes else "-"),
    ("md chunk", lambda p, r: _size(r.volumes[0].alignment.md_chunk_bytes)),
    ("full stripe", lambda p, r: _size(r.volumes[0].alignment.md_io_opt_bytes)),
    ("pe_start", lambda p, r: _size(r.volumes[0].alignment.pe_start_bytes)),
    (
        "fs su x sw",
        lambda p, r: (
            f"{_size(r.volumes[0].alignment.fs_stripe_unit_bytes)} x {r.volumes[0].alignment.fs_stripe_width_units}"
        ),
    ),
    ("readahead", lambda p, r: _size(r.volumes[0].alignment.readahead_bytes)),
    (
        "errors/warnings",
        lambda p, r: (
            f"{sum(f.severity == 'error' for f in r.findings)}/{sum(f.severity == 'warning' for f in r.findings)}"
        ),
    ),
)
# Rows of the models' figures, each model run once per variant.
MODEL_ROWS = ("seq write", "  limited by", "4k rand read", "loss/yr 1-4%", "  arrays at 4%", "  URE/rebuild", "rebuild")


def column(plan: Plan, result: PlanResult, parity: HostParity | None = None) -> list[str]:
    """One variant's cells, row by row (ROWS, then MODEL_ROWS); the models' figures on the plan with
    this host's parity figures once read (`parity`), as the Perf tab and `podplan predict` give them."""
    asked = PredictRequest(plan, ("seq-write", "rand-read-4k"), cpu=parity, result=result)
    out = predict_plan(asked)
    return [fn(plan, result) for _, fn in ROWS] + [*_throughput(out.predictions), *_reliability(out.reliability)]  # type: ignore[operator]


class CompareScreen(Screen[None]):
    """Compare pinned plans and the current one; load one back into the form or drop it."""

    BINDINGS = bindings("compare")

    def __init__(self, variants: list[Variant], current: Variant | None) -> None:
        super().__init__(id="compare-screen")
        self.variants = variants
        self.current = current

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            "Pin the plan on the plan screen (f4) to compare variants. "
            "Move the cursor to a column, then l loads it, x unpins it; s sweeps every layout of the disks.",
            id="compare-help",
        )
        yield DataTable(id="compare", zebra_stripes=True, cursor_type="column")
        yield ScreenFooter()

    def on_mount(self) -> None:
        self._fill()
        self.query_one(DataTable).focus()

    def columns(self) -> list[Variant]:
        return [*self.variants, *([self.current] if self.current else [])]

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_column("", key="what")
        for v in self.columns():
            table.add_column(v.name, key=v.name)
        parity = self.app.host_parity  # type: ignore[attr-defined]
        cells = [column(v.plan, v.result, parity) for v in self.columns()]
        for i, label in enumerate([*(label for label, _ in ROWS), *MODEL_ROWS]):
            table.add_row(label, *(c[i] for c in cells))

    def _selected(self) -> Variant | None:
        col = self.query_one(DataTable).cursor_column - 1
        cols = self.columns()
        return cols[col] if 0 <= col < len(cols) else None

    def action_load_variant(self) -> None:
        v = self._selected()
        if v is not None:
            self.app.load_variant(v)  # type: ignore[attr-defined]

    def action_drop_variant(self) -> None:
        v = self._selected()
        if v is None or v is self.current:
            self.notify("Move the cursor to a pinned column to unpin it", severity="warning")
            return
        self.variants.remove(v)
        self._fill()
