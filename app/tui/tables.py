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
from planners.units import format_bytes_both as both
from planners.units import format_bytes_decimal as tb
from planners.units import format_size_compact


def summary_text(result: PlanResult | None, *, error: str = "", units: str = "decimal") -> Text:
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
        # Three lines, as the valid headline has: flipping between the two needs no new layout.
        out.append(f"\n= {both(result.usable_bytes, units, ' = ')} = {result.efficiency:.2%} of raw", style="dim")
        return out
    assert result is not None
    style = "bold"
    out.append("Usable ")
    out.append(f"{result.usable_bytes:,} B", style=style)
    out.append(f"\n= {both(result.usable_bytes, units, ' = ')} = ")
    out.append(f"{result.efficiency:.2%}", style=style)
    out.append(" of raw\n")
    out.append(f"raw {tb(result.raw_bytes)} on {result.disk_count} disks")
    if any(v.btrfs for v in result.volumes):
        out.append(f", fits until ENOSPC; df shows {tb(sum(v.df_available_bytes for v in result.volumes))}")
    if len(result.volumes) > 1:
        out.append(
            f"\nin {len(result.volumes)} filesystems, one per array (no LVM): each under Capacity", style="yellow"
        )
    if result.spare_bytes:
        out.append(f", spares {tb(result.spare_bytes)}")
    if result.unassigned_bytes:
        out.append(f", unused {tb(result.unassigned_bytes)}", style="yellow")
    return out


def filesystems_text(result: PlanResult) -> Text:
    """Each filesystem with its mount point and size, when the plan makes several (arrays without LVM, or LVs)."""
    out = Text()
    if len(result.volumes) < 2:
        return out
    out.append(f"{len(result.volumes)} filesystems; usable is their sum\n", style="bold yellow")
    for v in result.volumes:
        out.append(f"{v.mount_point}", style="bold")
        out.append(
            f" on {v.device}: {v.df_available_bytes:,} B available = {tib(v.df_available_bytes)}"
            f" (df size {v.df_size_bytes:,} B)\n"
        )
    return out


# A column: its heading, its cells, its minimum width (held steady so digits changing do not
# change the table's width, see ResultsPane._put) and whether its cells are right-justified.
Column = tuple[str, list[str], int, bool]


def _width(columns: list[Column]) -> int:
    """The width Rich gives these columns with no padding and a blank between each (SIMPLE_HEAD, no edge)."""
    return (
        sum(max(minimum, len(head), *(len(c) for c in cells)) for head, cells, minimum, _ in columns) + len(columns) - 1
    )


def _widest(columns: list[Column], drops: list[tuple[str, ...]], width: int) -> list[Column]:
    """The columns less the first set of `drops` that fits `width` (the last set if none does)."""
    kept = columns
    for dropped in drops:
        kept = [c for c in columns if c[0] not in dropped]
        if _width(kept) <= width:
            break
    return kept


def _table(
    columns: list[Column],
    styles: list[str] | None = None,
    notes: list[str] | None = None,
    notes_width: int = 0,
    width: int = 0,
) -> Table:
    """The columns as a table; wider than `width` (when given), the first column's labels wrap so
    that every figure stays whole on screen (a petabyte's digits outgrow the narrowest set)."""
    t = Table(box=box.SIMPLE_HEAD, padding=0, expand=False, show_edge=False)  # the box's blank is the gap
    over = _width(columns) - width if width else 0
    for i, (head, cells, minimum, right) in enumerate(columns):
        if i == 0 and over > 0:
            label = max(minimum, len(head), *(len(c) for c in cells))
            word = max(len(w) for text in (head, *cells) for w in text.split() or [""])
            t.add_column(head, no_wrap=False, max_width=max(word, label - over))
            continue
        t.add_column(head, justify="right" if right else "left", no_wrap=True, min_width=minimum)
    if notes:
        t.add_column("why", style="dim", overflow="fold", max_width=notes_width)
    for i in range(len(columns[0][1])):
        t.add_row(
            *(cells[i] for _, cells, _, _ in columns), *([notes[i]] if notes else []), style=styles[i] if styles else ""
        )
    return t


def waterfall(result: PlanResult, *, narrow: bool, width: int) -> Table:
    """The widest waterfall that fits `width`, the pane's room.

    As the pane narrows, TB goes, then the removed amount, then the unit in each TiB cell (the
    heading still says it); the bytes and TiB always stay whole.
    The 'why' notes take the room left beside the figures, wrapped, when there are 24 columns
    or more; otherwise `waterfall_notes` puts them under the table.
    """
    steps = result.capacity
    columns: list[Column] = [
        ("step", [s.label for s in steps], 17, False),
        (
            "removed",
            [tib(s.removed_bytes) if s.removed_bytes else ("" if s.key == "raw" else "0") for s in steps],
            10,
            True,
        ),
        ("bytes left", [f"{s.remaining_bytes:,}" for s in steps], 18, True),
        ("TB", [tb(s.remaining_bytes) for s in steps], 9, True),
        ("TiB", [tib(s.remaining_bytes) for s in steps], 10, True),
    ]
    kept = _widest(columns, [("TB", "removed")] if narrow else [(), ("TB",), ("TB", "removed")], width)
    if _width(kept) > width:  # the unit in every cell would wrap the step labels: the heading alone says TiB
        kept = [
            (h, [c.removesuffix(" TiB") for c in cells], 6, right) if h == "TiB" else (h, cells, m, right)
            for h, cells, m, right in kept
        ]
    styles = [
        "bold" if s.key == "reserved" else ("yellow" if s.key in ("spares", "unassigned") and s.removed_bytes else "")
        for s in steps
    ]
    room = width - _width(kept) - 1
    return _table(kept, styles, [s.note for s in steps] if room >= 24 else None, room, width)


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


def arrays(plan: Plan, result: PlanResult, *, narrow: bool, width: int) -> Table:
    """The widest md table that fits `width`: data offset, component size, chunk, then disks go first."""
    pairs = list(zip(plan.groups, result.groups, strict=True))
    layout = not narrow
    columns: list[Column] = [
        ("array", [g.name for _, g in pairs], 5, False),
        (
            "level",
            [f"RAID{pg.level}" + (f" {pg.layout}" if pg.layout and layout else "") for pg, _ in pairs],
            9 if layout else 6,
            False,
        ),
        ("disks", [f"{pg.members}+{pg.spares}" if pg.spares else str(pg.members) for pg, _ in pairs], 5, True),
        ("chunk", [format_size_compact(g.md.chunk_bytes) if g.md.chunk_bytes else "-" for _, g in pairs], 5, True),
        ("data offset", [format_size_compact(g.md.data_offset_bytes) for _, g in pairs], 11, True),
        ("component B", [f"{g.md.component_bytes:,}" for _, g in pairs], 17, True),
        ("array B", [f"{g.md.array_bytes:,}" for _, g in pairs], 18, True),
    ]
    drops = [
        (),
        ("data offset",),
        ("data offset", "component B"),
        ("data offset", "component B", "chunk"),
        ("data offset", "component B", "chunk", "disks"),
    ]
    return _table(_widest(columns, drops[2 if narrow else 0 :], width), width=width)
