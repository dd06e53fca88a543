"""Sweep: every layout of the plan's disks, ranked as `podplan sweep` ranks them; any row opens in the form.

Sweeping 60 disks takes a few tenths of a second, so it runs in a thread worker and the
screen says what it is doing meanwhile. Each row carries its whole plan (the current one
with that layout), so loading it gives the form exactly the figures the row shows.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static
from textual.worker import get_current_worker

from app.shared.cost_view import COST_COLUMNS, COST_NOTE, sweep_cost_cells
from app.shared.figures import SWEEP_COLUMNS, SWEEP_NUMERIC, sweep_cells, sweep_title
from app.tui.keys import bindings
from app.tui.widgets.footer import ScreenFooter
from app.tui.work_messages import SweepComputed, SweepFailed
from app.usecases.sweep import Sweep, SweepRow, cost_rank
from planners.errors import PlanError
from planners.models import Plan
from planners.perf.workloads import VALIDATION_NAMES

Key = Callable[[SweepRow], float]
# Sort name -> (column it belongs to, key); the rank is the sweep's own order (Pareto front first).
SORTS: dict[str, tuple[str, Key | None]] = {
    "rank": ("#", None),
    "TiB": ("TiB", lambda r: -r.usable_bytes),
    "MB/s": ("MB/s", lambda r: -r.mb_s),
    "loss": ("loss/yr 1-4%", lambda r: r.loss.per_year[1]),
    "rebuild": ("rebuild", lambda r: r.rebuild_hours),
    # Only when the plan gives prices: `podplan sweep --rank cost`'s order, the risky layouts last.
    "cost": ("price/TiB", lambda r: cost_rank(r.risky, r.cost)),
}
BY_COLUMN = {column: name for name, (column, _) in SORTS.items()}
# Where the table is wider than the screen, these go, in order: a column partly off the screen's
# edge would cut its figures ("1/468k-1/7.3" read as "1/468"). What limits a layout's MB/s explains
# it (the form shows it once loaded); the rebuild time is the least of the rankings, and the share of
# rebuilds lost to an unreadable sector is already inside the loss odds beside it.
DROPS: tuple[tuple[str, ...], ...] = (
    (),
    ("limited by",),
    ("limited by", "rebuild"),
    ("limited by", "rebuild", "URE/rb"),
)


class SweepScreen(Screen[None]):
    """The layouts of the current plan's disks; enter or l loads the highlighted one into the form."""

    BINDINGS = bindings("sweep")

    def __init__(self, plan: Plan, workload: str = "seq-write") -> None:
        super().__init__(id="sweep-screen")
        self.plan = plan
        self.workload = workload
        self.sort_by = "rank"
        self.result: Sweep | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="sweep-status")
        yield DataTable(id="sweep", zebra_stripes=True, cursor_type="row")
        yield ScreenFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self._start()

    def _start(self) -> None:
        disks = sum(d.count for d in self.plan.disks)
        self.query_one("#sweep-status", Static).update(f"Sweeping the layouts of {disks} disks for {self.workload}…")
        self._sweep(self.plan, self.workload)

    @work(thread=True, exclusive=True, exit_on_error=False, group="sweep")
    def _sweep(self, plan: Plan, workload: str) -> None:
        from app.usecases.sweep import CpuSource, SweepRequest, sweep_layouts

        try:
            # Each row's plan loads into the form as it is: this host's parity figures must not ride
            # along into a plan the user then saves, so the plan's own CPU (or its preset) ranks them.
            result = sweep_layouts(SweepRequest(plan, workload, cpu=CpuSource(no_host_cpu=True))).sweep
        except PlanError as exc:
            self.post_message(SweepFailed(exc.message))
            return
        except Exception as exc:  # noqa: BLE001 - a planner bug must end in a line, not take the session down
            self.post_message(SweepFailed(f"internal error: {exc!r}"))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(SweepComputed(result))

    @on(SweepComputed)
    def _computed(self, event: SweepComputed) -> None:
        if event.sweep.workload != self.workload:
            return  # an answer for a workload the user has already moved past
        self.result = event.sweep
        self._fill()

    @on(SweepFailed)
    def _failed(self, event: SweepFailed) -> None:
        self.query_one("#sweep-status", Static).update(f"Not swept: {event.message}")
        self.notify(event.message, severity="error")

    @property
    def priced(self) -> bool:
        """The layouts have prices or watts: the cost columns show, and the cost sort is offered."""
        return self.result is not None and any(r.cost is not None for r in self.result.rows)

    @property
    def columns(self) -> tuple[str, ...]:
        return SWEEP_COLUMNS + (COST_COLUMNS if self.priced else ())

    def cells(self, rank: int, row: SweepRow) -> tuple[str, ...]:
        return sweep_cells(rank, row) + (sweep_cost_cells(row.cost) if self.priced else ())

    def ordered(self) -> list[tuple[int, SweepRow]]:
        """(rank from 1, row) in the order the table shows them."""
        rows = list(enumerate(self.result.rows if self.result else [], start=1))
        key = SORTS[self.sort_by][1]
        # Ties keep the sweep's order, so the Pareto front stays ahead among equals.
        return sorted(rows, key=lambda ir: key(ir[1])) if key else rows

    def _fill(self, *, to_top: bool = False) -> None:
        """Show the rows; a new sort starts at the top (its first rows are the point of sorting),
        a new workload keeps the cursor on the layout it was on."""
        assert self.result is not None
        table = self.query_one(DataTable)
        current = self.selected()
        table.clear(columns=True)
        sorted_column = SORTS[self.sort_by][0]
        ordered = self.ordered()
        rows = [self.cells(rank, row) for rank, row in ordered]
        shown = self._columns_that_fit(rows, table)
        numeric = SWEEP_NUMERIC + COST_COLUMNS
        for col in shown:
            label = col + (" ▾" if col == sorted_column else "")
            table.add_column(Text(label, justify="right" if col in numeric else "left"), key=col)
        at = 0
        for i, ((rank, row), all_cells) in enumerate(zip(ordered, rows, strict=True)):
            style = "" if row.pareto else ("dim red" if row.risky else "dim")
            cells = [
                Text(c, style=style, justify="right" if col in numeric else "left")
                for col, c in zip(self.columns, all_cells, strict=True)
                if col in shown
            ]
            table.add_row(*cells, key=str(rank))
            if not to_top and current is not None and row.label == current.label:
                at = i  # the cursor stays on the same layout through a new sort or workload
        table.move_cursor(row=at, scroll=True)
        if to_top:
            table.scroll_home(animate=False)
        skipped = f"; {self.result.skipped_line}" if self.result.skipped else ""
        hidden = [c for c in self.columns if c not in shown]
        narrow = f" ({', '.join(hidden)}: on a wider terminal)" if hidden else ""
        self.query_one("#sweep-status", Static).update(
            f"{sweep_title(self.result)}{COST_NOTE if self.priced else ''}{skipped}. Sorted by {self.sort_by} (s or a click on a heading){narrow}; "
            f"w: another workload; enter or l loads the highlighted layout into the form."
        )

    def _columns_that_fit(self, rows: list[tuple[str, ...]], table: DataTable) -> list[str]:
        """The sweep's columns less the first set of DROPS that lets every shown column fit whole."""
        room = table.size.width - table.styles.scrollbar_size_vertical
        # A heading that sorts has room for its mark (" ▾"), so a new sort keeps the same columns.
        widths = {
            col: max(len(col) + (2 if col in BY_COLUMN else 0), *(len(r[i]) for r in rows)) + 2 * table.cell_padding
            for i, col in enumerate(self.columns)
        }
        for dropped in DROPS:
            shown = [c for c in self.columns if c not in dropped]
            if sum(widths[c] for c in shown) <= room:
                break
        return shown

    def on_resize(self) -> None:
        if self.result is not None:
            self._fill()

    def _highlighted(self) -> int | None:
        """Rank of the row under the cursor (None before the first answer)."""
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return int(key.value) if key.value is not None else None

    def selected(self) -> SweepRow | None:
        rank = self._highlighted()
        return self.result.rows[rank - 1] if self.result and rank else None

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_load_row()

    @on(DataTable.HeaderSelected)
    def _header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        name = BY_COLUMN.get(str(event.column_key.value))
        if name is not None and self.result is not None:
            self.sort_by = name
            self._fill(to_top=True)

    def action_load_row(self) -> None:
        row = self.selected()
        if row is None:
            self.notify("No layout yet: the sweep is still running", severity="warning")
            return
        self.app.load_into_form(row.plan, f"layout {row.label}")  # type: ignore[attr-defined]

    def action_next_sort(self) -> None:
        if self.result is None:
            return
        names = [n for n in SORTS if n != "cost" or self.priced]
        self.sort_by = names[(names.index(self.sort_by) + 1) % len(names)]
        self._fill(to_top=True)

    def action_next_workload(self) -> None:
        names = list(VALIDATION_NAMES)
        self.workload = names[(names.index(self.workload) + 1) % len(names)] if self.workload in names else names[0]
        self._start()
