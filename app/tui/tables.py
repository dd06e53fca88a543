"""Rich renderables sized for the TUI's results pane (the CLI's own tables assume 80 free columns).

Each table takes the widest form that fits the pane; the figures that matter (bytes to
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

    With an `error`, the first line says why nothing was computed (the whole reason is under
    the form) and the figures below are the last valid ones, struck through. The figures wrap
    rather than lose a digit on a narrow pane.
    """
    out = Text(overflow="fold")
    if error:
        out.append(Text.assemble(("Not computed: ", "bold red"), (error, "red"), no_wrap=True, overflow="ellipsis"))
        out.append("\n")
        if result is None:
            return out
        out.append("last valid: ", style="dim")
        out.append(f"{result.usable_bytes:,} B", style="dim strike")
        out.append(f"\n= {tb(result.usable_bytes)} = {tib(result.usable_bytes)} = {result.efficiency:.2%} of raw "
                   f"{tb(result.raw_bytes)} on {result.disk_count} disks", style="dim")
        return out
    assert result is not None
    style = "bold"
    out.append("Usable ")
    out.append(f"{result.usable_bytes:,} B", style=style)
    out.append(f"\n= {tb(result.usable_bytes)} = {tib(result.usable_bytes)} = ")
    out.append(f"{result.efficiency:.2%}", style=style)
    out.append(" of raw\n")
    out.append(f"raw {tb(result.raw_bytes)} on {result.disk_count} disks")
    if len(result.volumes) > 1:
        out.append(f"\nin {len(result.volumes)} filesystems, one per array (no LVM): each under Capacity",
                   style="yellow")
    if result.spare_bytes:
        out.append(f", spares {tb(result.spare_bytes)}")
    if result.unassigned_bytes:
        out.append(f", unused {tb(result.unassigned_bytes)}", style="yellow")
    return out


def filesystems_text(result: PlanResult) -> Text:
    """Each filesystem with its mount point and size, when the plan makes several (no LVM)."""
    out = Text()
    if len(result.volumes) < 2:
        return out
    out.append(f"{len(result.volumes)} filesystems; usable is their sum\n", style="bold yellow")
    for v in result.volumes:
        out.append(f"{v.mount_point}", style="bold")
        out.append(f" on {v.device}: {v.df_available_bytes:,} B available = {tib(v.df_available_bytes)}"
                   f" (df size {v.df_size_bytes:,} B)\n")
    return out


def _width(t: Table) -> int:
    from rich.console import Console

    return Console(width=10_000).measure(t).maximum


def waterfall(result: PlanResult, *, narrow: bool, width: int) -> Table:
    """The widest waterfall that fits `width`, the pane's room.

    As the pane narrows, TB goes, then the removed amount; the bytes and TiB always stay whole.
    The 'why' notes take the room left beside the figures, wrapped, when there are 24 columns
    or more; otherwise `waterfall_notes` puts them under the table.
    """
    for tb_col, removed in ((True, True), (False, True), (False, False)):
        t = _waterfall(result, tb_col=tb_col and not narrow, removed=removed and not narrow, why_width=0)
        if _width(t) <= width:
            break
    room = width - _width(t) - 1
    if room >= 24:
        return _waterfall(result, tb_col=tb_col and not narrow, removed=removed and not narrow, why_width=room)
    return t


def waterfall_notes(result: PlanResult, table: Table) -> Text:
    """Each step's 'why', as sentences under the table, when the table had no room for them."""
    if any(str(c.header) == "why" for c in table.columns):
        return Text()
    out = Text(style="dim")
    for s in result.capacity:
        if s.note:
            out.append(f"{s.label}: ", style="bold")
            out.append(f"{s.note}\n")
    return out


def _waterfall(result: PlanResult, *, tb_col: bool, removed: bool, why_width: int) -> Table:
    t = Table(box=box.SIMPLE_HEAD, padding=0, expand=False, show_edge=False)  # the box's blank is the gap
    # Minimum widths hold the table's size steady while the digits change, so an update
    # needs no new screen layout (see ResultsPane._put).
    t.add_column("step", no_wrap=True, min_width=17)
    if removed:
        t.add_column("removed", justify="right", no_wrap=True, min_width=10)
    t.add_column("bytes left", justify="right", no_wrap=True, min_width=18 if not removed else 21)
    if tb_col:
        t.add_column("TB", justify="right", no_wrap=True, min_width=9)
    t.add_column("TiB", justify="right", no_wrap=True, min_width=10 if tb_col else 6)
    why = why_width > 0
    if why:
        t.add_column("why", style="dim", overflow="fold", max_width=why_width)
    for s in result.capacity:
        gone = tib(s.removed_bytes) if s.removed_bytes else ("" if s.key == "raw" else "0")
        row = [s.label] + ([gone] if removed else []) + [f"{s.remaining_bytes:,}"]
        if tb_col:
            row.append(tb(s.remaining_bytes))
        row.append(tib(s.remaining_bytes).replace(" TiB", " TiB" if tb_col else ""))
        if why:
            row.append(s.note)
        style = "bold" if s.key == "reserved" else ("yellow" if s.key in ("spares", "unassigned") and s.removed_bytes else "")
        t.add_row(*row, style=style)
    return t


def arrays(plan: Plan, result: PlanResult, *, narrow: bool, width: int) -> Table:
    """The widest md table that fits `width`: data offset, component size, chunk, then disks go first."""
    drops = ((), ("data offset",), ("data offset", "component B"), ("data offset", "component B", "chunk"),
             ("data offset", "component B", "chunk", "disks"))
    for dropped in drops[2 if narrow else 0:]:
        t = _arrays(plan, result, dropped=dropped, layout=not narrow and not dropped)
        if _width(t) <= width:
            break
    return t


def _arrays(plan: Plan, result: PlanResult, *, dropped: tuple[str, ...], layout: bool) -> Table:
    t = Table(box=box.SIMPLE_HEAD, padding=0, show_edge=False)
    widths = {"array": 5, "level": 9 if layout else 6, "disks": 5, "chunk": 5, "data offset": 11, "component B": 17,
              "array B": 18}
    columns = [c for c in ("array", "level", "disks", "chunk", "data offset", "component B", "array B") if c not in dropped]
    for col in columns:
        t.add_column(col, justify="left" if col in ("array", "level") else "right", no_wrap=True, min_width=widths[col])
    for pg, g in zip(plan.groups, result.groups):
        cells = {
            "array": g.name,
            "level": f"RAID{pg.level}" + (f" {pg.layout}" if pg.layout and layout else ""),
            "disks": f"{pg.members}+{pg.spares}" if pg.spares else str(pg.members),
            "chunk": format_size_compact(g.md.chunk_bytes) if g.md.chunk_bytes else "-",
            "data offset": format_size_compact(g.md.data_offset_bytes),
            "component B": f"{g.md.component_bytes:,}",
            "array B": f"{g.md.array_bytes:,}",
        }
        t.add_row(*(cells[c] for c in columns))
    return t
