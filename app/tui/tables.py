"""Rich renderables sized for the TUI's results pane (the CLI's own tables assume 80 free columns).

`narrow` drops the columns a 46-column pane cannot hold; the figures that matter (bytes to
the byte, TiB) always stay.
"""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from planners.models import Plan
from planners.results import PlanResult
from planners.units import format_bytes_binary as tib
from planners.units import format_bytes_decimal as tb
from planners.units import format_size_compact


def summary_text(result: PlanResult | None, *, error: str = "") -> Text:
    """The headline: what users can write, in bytes, TB, TiB and as a share of raw.

    With an `error`, the first line says why nothing was computed and the figures below are
    the last valid ones, struck through. Always three lines, so the pane never reflows.
    """
    out = Text(no_wrap=True, overflow="ellipsis")
    if error:
        out.append("Not computed: ", style="bold red")
        out.append(error + "\n", style="red")
        if result is None:
            return out
        out.append("last valid: ", style="dim")
        out.append(f"{result.usable_bytes:,} B", style="dim strike")
        out.append(f" = {tb(result.usable_bytes)} = {tib(result.usable_bytes)}\n", style="dim")
        out.append(f"{result.efficiency:.2%} of raw {tb(result.raw_bytes)} on {result.disk_count} disks", style="dim")
        return out
    assert result is not None
    style = "bold"
    out.append("Usable ")
    out.append(f"{result.usable_bytes:,} B", style=style)
    out.append(f"\n= {tb(result.usable_bytes)} = {tib(result.usable_bytes)} = ")
    out.append(f"{result.efficiency:.2%}", style=style)
    out.append(" of raw\n")
    out.append(f"raw {tb(result.raw_bytes)} on {result.disk_count} disks")
    if result.spare_bytes:
        out.append(f", spares {tb(result.spare_bytes)}")
    if result.unassigned_bytes:
        out.append(f", unused {tb(result.unassigned_bytes)}", style="yellow")
    return out


def waterfall(result: PlanResult, *, narrow: bool, width: int = 0) -> Table:
    """`width` is the room the pane has; the 'why' notes come only when they fit beside the figures."""
    note_width = width - 80
    t = Table(box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), expand=False, show_edge=False)
    # Minimum widths hold the table's size steady while the digits change, so an update
    # needs no new screen layout (see ResultsPane._put).
    t.add_column("step", no_wrap=True, min_width=17)
    if not narrow:
        t.add_column("removed", justify="right", no_wrap=True, min_width=10)
    t.add_column("bytes left", justify="right", no_wrap=True, min_width=18 if narrow else 21)
    if not narrow:
        t.add_column("TB", justify="right", no_wrap=True, min_width=9)
    t.add_column("TiB", justify="right", no_wrap=True, min_width=6 if narrow else 10)
    if note_width >= 24:
        t.add_column("why", style="dim", no_wrap=True, overflow="ellipsis", max_width=note_width)
    for s in result.capacity:
        removed = tib(s.removed_bytes) if s.removed_bytes else ("" if s.key == "raw" else "0")
        row = [s.label] + ([] if narrow else [removed]) + [f"{s.remaining_bytes:,}"]
        if not narrow:
            row.append(tb(s.remaining_bytes))
        row.append(tib(s.remaining_bytes).replace(" TiB", "" if narrow else " TiB"))
        if note_width >= 24:
            row.append(s.note)
        style = "bold" if s.key == "reserved" else ("yellow" if s.key in ("spares", "unassigned") and s.removed_bytes else "")
        t.add_row(*row, style=style)
    return t


def arrays(plan: Plan, result: PlanResult, *, narrow: bool) -> Table:
    t = Table(box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), show_edge=False)
    widths = {"array": 5, "level": 6 if narrow else 9, "disks": 5, "chunk": 5, "data offset": 11, "component B": 17, "array B": 18}
    for col in ("array", "level", "disks", "chunk") + (() if narrow else ("data offset", "component B")) + ("array B",):
        t.add_column(col, justify="left" if col in ("array", "level") else "right", no_wrap=True, min_width=widths[col])
    for pg, g in zip(plan.groups, result.groups):
        level = f"RAID{pg.level}" + (f" {pg.layout}" if pg.layout and not narrow else "")
        disks = f"{pg.members}+{pg.spares}" if pg.spares else str(pg.members)
        chunk = format_size_compact(g.md.chunk_bytes) if g.md.chunk_bytes else "-"
        row = [g.name, level, disks, chunk]
        if not narrow:
            row += [format_size_compact(g.md.data_offset_bytes), f"{g.md.component_bytes:,}"]
        t.add_row(*row, f"{g.md.array_bytes:,}")
    return t
