"""Plain-terminal rendering of a computed plan (Rich tables), for `podplan plan`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from app.shared.console import cli_console
from app.shared.fit import Col, FitTable
from planners.assumed import assumed_tools
from planners.cost import Cost
from planners.findings.direct import lun_exports_geometry
from planners.lvm.volumes import plan_of_volume
from planners.models import Plan
from planners.results import PlanResult, VolumeResult
from planners.units import format_bytes_binary as tib
from planners.units import format_bytes_both as both
from planners.units import format_bytes_decimal as tb
from planners.units import format_size_compact

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _n(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def _sz(n: int | None) -> str:
    return "-" if not n else format_size_compact(n)


def _btrfs(result: PlanResult) -> bool:
    """btrfs's usable figure is what a fill stores until ENOSPC, not df's available (the kernel's estimate)."""
    return any(v.btrfs for v in result.volumes)


def df_available_note(result: PlanResult) -> str:
    """Where the usable figure is not df's available, what df will show instead, named."""
    if not _btrfs(result):
        return ""
    avail = sum(v.df_available_bytes for v in result.volumes)
    return f"; df -B1 shows {avail:,} B available (the kernel's estimate)"


def waterfall_table(result: PlanResult) -> FitTable:
    """Narrower than the table, TB goes first, then the amount removed: bytes and TiB stay."""
    steps = result.capacity
    return FitTable(
        [
            Col("step", [s.label for s in steps], right=False, words=True),
            Col("removed", [tib(s.removed_bytes) if s.removed_bytes else "" for s in steps]),
            Col("remaining (bytes)", [_n(s.remaining_bytes) for s in steps]),
            Col("TB", [tb(s.remaining_bytes) for s in steps], spare=True),
            Col("TiB", [tib(s.remaining_bytes) for s in steps]),
        ],
        [("TB",), ("TB", "removed")],
        rows_are="step",
        table=dict(
            title="Capacity, raw to what fits" if _btrfs(result) else "Capacity, raw to available",
            title_justify="left",
            expand=False,
            caption=f"efficiency ({'what fits' if _btrfs(result) else 'df available'} / raw): {result.efficiency:.2%}",
        ),
    )


def filesystems_table(result: PlanResult) -> FitTable | None:
    """One row per filesystem when the plan makes several (no LVM joins the arrays): the usable
    total is their sum, and a sysadmin mounts, fills and watches each on its own."""
    if len(result.volumes) < 2:
        return None
    vs = result.volumes
    return FitTable(
        [
            Col("device", [v.device for v in vs], right=False),
            Col("mount point", [v.mount_point for v in vs], right=False),
            Col("label", [v.label or "-" for v in vs], right=False),
            Col("df size B", [_n(v.df_size_bytes) for v in vs]),
            Col("available B", [_n(v.df_available_bytes) for v in vs]),
            Col("TiB", [tib(v.df_available_bytes) for v in vs], spare=True),
        ],
        [("TiB",), ("TiB", "df size B"), ("TiB", "df size B", "device")],
        rows_are="filesystem",
        table=dict(
            title=f"{len(vs)} filesystems, "
            + ("one per LV" if vs[0].lvm else "one per md array (no LVM joins them)")
            + "; usable is their sum",
            title_justify="left",
            show_edge=False,
        ),
    )


def groups_table(plan: Plan, result: PlanResult) -> FitTable:
    """Narrower than the table, the data offset goes first, then the component size, the chunk and
    the disk count (as the TUI's Capacity tab drops them): the array's bytes stay."""
    pairs = list(zip(plan.groups, result.groups, strict=True))
    return FitTable(
        [
            Col("array", [g.name for _, g in pairs], right=False),
            Col(
                "level",
                [f"RAID{pg.level}" + (f" {pg.layout}" if pg.layout else "") for pg, _ in pairs],
                right=False,
                words=True,
            ),
            Col("disks", [f"{pg.members}+{pg.spares}" if pg.spares else str(pg.members) for pg, _ in pairs]),
            Col("chunk", [_sz(pg.effective_chunk) for pg, _ in pairs]),
            Col("offset", [_sz(g.md.data_offset_bytes) for _, g in pairs]),
            Col("component B", [_n(g.md.component_bytes) for _, g in pairs]),
            Col("array B", [_n(g.md.array_bytes) for _, g in pairs]),
        ],
        [
            ("offset",),
            ("offset", "component B"),
            ("offset", "component B", "chunk"),
            ("offset", "component B", "chunk", "disks"),
        ],
        rows_are="array",
        table=dict(title="md arrays", title_justify="left", show_edge=False),
    )


def volume_table(plan: Plan, v: VolumeResult, units: str = "decimal") -> FitTable:
    """What each layer makes of the volume. The labels wrap between words where the room is short;
    a figure is never folded."""
    plan = plan_of_volume(plan, v.device)
    t = _Rows()
    if v.lvm:
        t.add_row("pe_start", f"{_n(v.lvm.pe_start_bytes)} B")
        t.add_row("extents in LV", f"{_n(v.lvm.lv_extents)} x {_sz(v.lvm.extent_bytes)}")
        t.add_row("LV size", f"{_n(v.lvm.lv_bytes)} B")
    t.add_row("device under the filesystem", f"{_n(v.block_device_bytes)} B")
    if v.xfs:
        x = v.xfs
        t.add_row("XFS agcount x agsize", f"{x.agcount} x {_n(x.agsize_blocks)} blocks")
        t.add_row("XFS data blocks", _n(x.data_blocks))
        t.add_row("XFS sunit / swidth", f"{x.sunit_blocks} / {x.swidth_blocks} blocks")
        t.add_row("XFS log", f"{_n(x.log_blocks)} blocks, stripe unit {_sz(x.log_sunit_bytes)}")
        t.add_row("XFS imaxpct", f"{x.imaxpct}%")
    if v.ext4:
        e = v.ext4
        t.add_row(f"{plan.filesystem.type} blocks", _n(e.block_count))
        t.add_row("block groups", _n(e.block_groups))
        t.add_row("inodes", _n(e.inode_count))
        t.add_row("journal", f"{_n(e.journal_blocks)} blocks")
        t.add_row("reserved blocks", _n(e.reserved_blocks))
    if v.label:
        t.add_row("label", v.label)
    if v.btrfs:
        b = v.btrfs
        t.add_row("btrfs data / metadata", f"{b.data_profile} / {b.metadata_profile}")
        t.add_row("device failures survived", f"data {b.data_tolerates}, metadata {b.metadata_tolerates}")
        t.add_row("chunks after mkfs", " + ".join(_sz(u) if u else "0" for u in b.used_bytes))
        t.add_row("fits until ENOSPC", f"{_n(b.fits_bytes)} B")
        t.add_row("", f"({both(b.fits_bytes, units)})")
        t.add_row("stranded after a fill", f"{_n(b.stranded_bytes)} B")
    t.add_row("filesystem size", f"{_n(v.fs_bytes)} B")
    for what, n in (("df -B1 size", v.df_size_bytes), ("df -B1 available", v.df_available_bytes)):
        t.add_row(what, f"{_n(n)} B")
        t.add_row("", f"({both(n, units)})")  # a row of its own: the bytes' column stays as wide as they are
    return FitTable(
        [Col("what", [r[0] for r in t.rows], right=False, words=True), Col("value", [r[1] for r in t.rows])],
        table=dict(title=f"Volume {v.device} on {v.mount_point}", title_justify="left", show_header=False),
    )


def alignment_table(plan: Plan, v: VolumeResult) -> FitTable:
    """Each layer's alignment parameters; the parameter names and the notes beside values wrap."""
    plan = plan_of_volume(plan, v.device)
    a = v.alignment
    t = _Rows()
    under = UNDER_LABEL[a.under]
    if a.under == "md":
        t.add_row("md", "chunk", _sz(a.md_chunk_bytes))
    elif a.lun_strip_bytes:
        t.add_row(under, "strip", _sz(a.lun_strip_bytes))
    if a.under == "lun" and not lun_exports_geometry(plan):
        # The driver exports none of it: the kernel, mkfs and LVM see 0 / 0, the controller still stripes.
        t.add_row(under, "io_min / io_opt", f"0 / 0 exported (stripes {_sz(a.md_io_opt_bytes)})")
    else:
        t.add_row(under, "io_min / io_opt", f"{_sz(a.md_io_min_bytes)} / {_sz(a.md_io_opt_bytes)}")
    if a.pv_data_alignment_bytes is not None:
        t.add_row("LVM", "pvcreate --dataalignment", _sz(a.pv_data_alignment_bytes))
        t.add_row("LVM", "pe_start", _sz(a.pe_start_bytes))
        t.add_row("LVM", "vgcreate -s", _sz(a.extent_bytes))
        t.add_row("LVM", "lvcreate -i / -I", f"{a.lv_stripes} / {_sz(a.lv_stripe_bytes)}")
    if a.xfs_su_bytes:
        t.add_row("XFS", "su / sw", f"{_sz(a.xfs_su_bytes)} / {a.xfs_sw}")
    if a.ext4_stride_blocks:
        t.add_row(
            plan.filesystem.type,
            "stride / stripe_width",
            f"{a.ext4_stride_blocks} / {a.ext4_stripe_width_blocks} blocks",
        )
    if not a.fs_stripe_unit_bytes:
        t.add_row("filesystem", "stripe", "none")
    t.add_row(
        "tuning",
        "readahead",
        f"{_sz(a.readahead_bytes)} ({a.readahead_sectors:,} sectors; kernel picks {_sz(a.kernel_readahead_bytes)})",
    )
    if a.stripe_cache_size:
        t.add_row(
            "tuning", "stripe_cache_size", f"{a.stripe_cache_size} ({tib(a.stripe_cache_bytes or 0)} RAM per array)"
        )
    return FitTable(
        [
            Col("layer", [r[0] for r in t.rows], right=False),
            Col("parameter", [r[1] for r in t.rows], right=False, words=True),
            Col("value", [r[2] for r in t.rows], words=True),
        ],
        table=dict(title="Alignment chain", title_justify="left", show_header=False),
    )


# What the alignment chain starts from, as its first rows name it.
UNDER_LABEL = {"md": "md", "lun": "LUN", "disk": "disk"}


class _Rows:
    """Rows gathered before the table they make knows its width."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, ...]] = []

    def add_row(self, *cells: str) -> None:
        self.rows.append(cells)


def findings_text(result: PlanResult) -> Text:
    out = Text()
    for f in result.findings:
        out.append(f"{f.severity:<8}", style=SEVERITY_STYLE[f.severity])
        out.append(f"{f.layer}: {f.message}\n")
    if not result.findings:
        out.append("No misalignments found.\n", style="green")
    return out


def cost_table(cost: Cost) -> FitTable:
    """The cost figures the plan's prices and watts give, a row each; the words wrap, the figures stay whole."""
    from app.shared.cost_view import cost_rows, cost_title

    rows = cost_rows(cost)
    return FitTable(
        [Col("what", [r[0] for r in rows], right=False, words=True), Col("value", [r[1] for r in rows])],
        table=dict(title=cost_title(cost), title_justify="left", show_header=False),
    )


def render_plan(plan: Plan, result: PlanResult, cost: Cost | None = None, units: str = "decimal") -> Group:
    head = Text.assemble(
        (f"{plan.name}", "bold"),
        f": {result.disk_count} disks, raw {result.raw_bytes:,} B ({both(result.raw_bytes, units)}); "
        f"usable {result.usable_bytes:,} B ({both(result.usable_bytes, units)}), "
        f"{result.efficiency:.2%} of raw{df_available_note(result)}\n",
        (
            f"assumes {assumed_tools(plan)}",
            "dim",
        ),
    )
    parts: list = [head, waterfall_table(result)]
    if cost is not None:
        parts.append(cost_table(cost))
    if result.groups:
        parts.append(groups_table(plan, result))
    several = filesystems_table(result)
    if several is not None:
        parts.insert(1, several)
    for v in result.volumes:
        parts += [volume_table(plan, v, units), alignment_table(plan, v)]
    parts.append(findings_text(result))
    return Group(*parts)


def print_plan(
    plan: Plan, result: PlanResult, console: Console | None = None, cost: Cost | None = None, units: str = "decimal"
) -> None:
    (console or cli_console()).print(render_plan(plan, result, cost, units))


def checks_table(title: str, checks: Sequence[Any]) -> Table:
    """A rehearsal's figures: layer, figure, predicted, actual and whether they match."""
    t = Table(title=title, title_justify="left")
    t.add_column("layer")
    t.add_column("figure")
    t.add_column("predicted", justify="right")
    t.add_column("actual", justify="right")
    t.add_column("match")
    for c in checks:
        t.add_row(
            c.layer,
            c.figure,
            str(c.predicted),
            "-" if c.actual is None else str(c.actual),
            "[green]yes[/green]" if c.match else "[bold red]NO[/bold red]",
        )
    return t
