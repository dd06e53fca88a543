"""Detected disks: choose some of this machine's disks and start a new plan from them.

Reading the disks runs lsblk and, on disks that look free, blkid: a thread worker does it,
and a failure ends in one line on the screen. Disks already in use (mounted, md, LVM, an old
signature, the root disk) are listed but not preselected; choosing one anyway is allowed,
with a warning that stays on screen while it is chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from app.tui.keys import bindings
from app.tui.widgets.footer import ScreenFooter
from app.tui.work_messages import DisksFailed, DisksRead
from planners.errors import PlanError
from planners.models import Plan
from planners.units import format_bytes_decimal

if TYPE_CHECKING:  # the runner module itself is imported by the worker, off the UI thread
    from app.usecases.disks import DetectedDisk, HostDisks

COLUMNS = ("", "disk", "size", "model", "serial", "kind", "sectors", "in use")


def _status(d: DetectedDisk) -> str:
    if not d.big_enough:
        return "too small for md"
    return "; ".join(d.uses) or "free"


class DisksScreen(Screen[None]):
    """This machine's whole disks; space chooses, c creates a plan from the chosen ones."""

    BINDINGS = bindings("disks")

    def __init__(self, read: Callable[[], HostDisks] | None = None) -> None:
        super().__init__(id="disks-screen")
        self.read = read
        self.disks: list[DetectedDisk] = []
        self.chosen: set[str] = set()
        self.note = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="disks-status")
        yield DataTable(id="disks", zebra_stripes=True, cursor_type="row")
        yield Static(id="disks-selection")
        yield Static(id="disks-warning")
        yield ScreenFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self.action_reread()

    def action_reread(self) -> None:
        self.query_one("#disks-status", Static).update("Reading the disks (lsblk, /proc/mdstat, blkid)…")
        self._read()

    @work(thread=True, exclusive=True, exit_on_error=False, group="disks")
    def _read(self) -> None:
        from app.usecases.disks import InventoryError, read_disks

        try:
            host = read_disks(self.read)
        except InventoryError as exc:
            self.post_message(DisksFailed(str(exc)))
        except Exception as exc:  # noqa: BLE001 - no permission, odd output, a parser bug: one line, never a traceback
            why = (exc.strerror if isinstance(exc, OSError) else "") or str(exc) or type(exc).__name__
            self.post_message(DisksFailed(f"Cannot list the disks: {why}".splitlines()[0]))
        else:
            self.post_message(DisksRead(host))

    @on(DisksFailed)
    def _failed(self, event: DisksFailed) -> None:
        self.query_one("#disks-status", Static).update(event.message)
        self.notify(event.message, severity="error")

    @on(DisksRead)
    def _disks_read(self, event: DisksRead) -> None:
        self.disks = list(event.host.disks)
        self.note = event.host.note
        self.chosen = {d.info.name for d in self.disks if d.free and d.big_enough}
        table = self.query_one(DataTable)
        table.clear(columns=True)
        for col in COLUMNS:
            table.add_column(col, key=col or "chosen")
        for d in self.disks:
            i = d.info
            style = "dim" if not d.big_enough else "" if d.free else "yellow"
            cells = (
                "",
                i.name,
                format_bytes_decimal(i.size_bytes),
                i.model,
                i.serial,
                "HDD" if i.rotational else "SSD",
                f"{i.logical_sector}/{i.physical_sector}",
                _status(d),
            )
            table.add_row(*(Text(c, style=style) for c in cells), key=i.name)
        free = sum(d.free and d.big_enough for d in self.disks)
        status = (
            f"{len(self.disks)} disk{'s' if len(self.disks) != 1 else ''}, {free} free. space selects, a selects every free disk like the "
            "highlighted one, n none, c creates a new plan from the selection."
        )
        if not self.disks:
            status = "No whole disks found (lsblk lists none)."
        self.query_one("#disks-status", Static).update(status + (f" {self.note}." if self.note else ""))
        self._show_choice()

    def _show_choice(self) -> None:
        table = self.query_one(DataTable)
        for d in self.disks:
            mark = "[x]" if d.info.name in self.chosen else "[ ]" if d.big_enough else ""
            table.update_cell(d.info.name, "chosen", Text(mark))  # Text: "[x]" is not markup
        self.query_one("#disks-selection", Static).update(self._preview())
        busy = [d for d in self.selected() if not d.free]
        warning = self.query_one("#disks-warning", Static)
        warning.set_class(bool(busy), "-shown")
        warning.update(
            "In use and selected: "
            + "; ".join(f"{d.info.name} ({', '.join(d.uses)})" for d in busy)
            + ". Building the plan destroys what is on them; the build script refuses them unless you "
            "name each with --override."
            if busy
            else ""
        )

    def selected(self) -> list[DetectedDisk]:
        return [d for d in self.disks if d.info.name in self.chosen]

    def new_plan(self) -> Plan:
        """The plan the selection makes (raises PlanError, e.g. for fewer than two disks)."""
        from app.usecases.disks import plan_from_chosen

        return plan_from_chosen(self.selected())

    def _preview(self) -> str:
        chosen = self.selected()
        if not chosen:
            return "Nothing selected."
        try:
            plan = self.new_plan()
        except PlanError as exc:
            return f"{len(chosen)} selected: {exc.message}"
        from app.tui.screens.compare_screen import layout_text

        sets = ", ".join(f"{s.count} x {format_bytes_decimal(s.size)}" for s in plan.disks)
        return f"{len(chosen)} selected ({sets}): new plan {plan.name}, {layout_text(plan)}"

    def _highlighted(self) -> DetectedDisk | None:
        table = self.query_one(DataTable)
        if not self.disks:
            return None
        return self.disks[table.cursor_row]

    # Not action_toggle: that is Textual's own action (flip a boolean attribute), which this would override.
    def action_toggle_disk(self) -> None:
        d = self._highlighted()
        if d is None:
            return
        if not d.big_enough:
            self.notify(f"{d.info.name} is too small to be an md member", severity="warning")
            return
        self.chosen ^= {d.info.name}
        self._show_choice()

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_toggle_disk()

    def action_same_kind(self) -> None:
        d = self._highlighted()
        if d is None:
            return
        kind = d.found().kind
        self.chosen |= {e.info.name for e in self.disks if e.free and e.big_enough and e.found().kind == kind}
        self._show_choice()

    def action_select_none(self) -> None:
        self.chosen = set()
        self._show_choice()

    def action_create(self) -> None:
        try:
            plan = self.new_plan()
        except PlanError as exc:
            self.notify(exc.message, severity="error")
            return
        busy = sum(not d.free for d in self.selected())
        self.app.open_new_plan(plan, f"new plan {plan.name} from detected disks")  # type: ignore[attr-defined]
        if busy:
            self.app.notify(
                f"{busy} of the disks in {plan.name} are in use: check them before building",
                severity="warning",
                timeout=10,
            )
