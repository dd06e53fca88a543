"""A growth as Rich renderables, for `podplan grow` and the TUI's Grow screen alike.

Every figure is shown whole (thousands separators, no ellipsis): before, after and the change,
then the steps with their commands, the backup-file decision, the reshape time with what limits
it, and each alignment the growth leaves behind with its cost and remedy.
"""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from planners.grow import Growth
from planners.grow.btrfs import BtrfsGrowth
from planners.units import format_bytes_binary


def _n(v: int | None) -> str:
    return "-" if v is None else f"{v:,}"


def figure_rows(g: Growth) -> list[tuple[str, str, str, str]]:
    """(figure, before, after, change) rows."""
    rows: list[tuple[str, str, str, str]] = []
    for a in g.arrays:
        level = f"RAID{a.level_before}" if a.level_before is not None else "-"
        if a.level_before != a.level_after:
            rows.append((f"{a.name} level", level, f"RAID{a.level_after}", ""))
        rows.append(
            (f"{a.name} members", str(a.members_before), str(a.members_after), f"+{a.members_after - a.members_before}")
        )
        rows.append(
            (
                f"{a.name} array bytes",
                _n(a.array_bytes_before),
                _n(a.array_bytes_after),
                _change(a.array_bytes_after - a.array_bytes_before),
            )
        )
    if g.lvm:
        rows.append(
            (
                f"LV {g.vg}/{g.lv} bytes",
                _n(g.lv_bytes_before),
                _n(g.lv_bytes_after),
                _change((g.lv_bytes_after or 0) - (g.lv_bytes_before or 0)),
            )
        )
    rows.append(
        (
            "df size bytes",
            _n(g.df_size_bytes_before),
            _n(g.df_size_bytes_after),
            _change(g.df_size_bytes_after - g.df_size_bytes_before),
        )
    )
    rows.append(
        (
            "df available bytes",
            _n(g.df_available_bytes_before),
            _n(g.df_available_bytes_after),
            _change(g.df_available_bytes_after - g.df_available_bytes_before),
        )
    )
    return rows


def _change(d: int) -> str:
    return f"+{format_bytes_binary(d)}" if d >= 0 else f"-{format_bytes_binary(-d)}"


def figures_table(g: Growth) -> Table:
    t = Table(box=box.SIMPLE_HEAD, title=f"{g.plan_name}: grow by {g.mode}", title_justify="left", pad_edge=False)
    t.add_column("figure")
    t.add_column("before", justify="right", no_wrap=True)
    t.add_column("after", justify="right", no_wrap=True)
    t.add_column("change", justify="right", no_wrap=True)
    for row in figure_rows(g):
        t.add_row(*row)
    return t


def md_lines(g: Growth) -> Text:
    out = Text()
    for a in g.arrays:
        if a.new:
            out.append(
                f"{a.name}: new array of {a.members_after} members; initial sync about {a.hours:.1f} h "
                f"({a.rate_mb_s:.0f} MB/s per member, limited by {a.rate_limit}).\n"
            )
            continue
        out.append(f"{a.name} backup file: ", style="bold")
        out.append(("NEEDED" if a.backup_file else "not needed") + f" - {a.backup_reason}.\n")
        out.append(f"{a.name} reshape: ", style="bold")
        out.append(
            f"about {a.hours:.1f} h with no other I/O ({a.rate_mb_s:.0f} MB/s per member, limited by {a.rate_limit}).\n"
        )
    out.append("filesystem: ", style="bold")
    out.append(g.fs_detail + ".")
    return out


def alignment_text(g: Growth) -> Text:
    out = Text()
    if not g.alignment:
        out.append("Alignment: nothing changes; every stripe stays as built.")
        return out
    out.append("Alignment after the growth\n", style="bold")
    for i, c in enumerate(g.alignment, 1):
        out.append(f"{i}. {c.figure}: {c.before} -> ideal {c.ideal}\n")
        out.append(f"   cost: {c.cost}\n   remedy: {c.remedy}\n")
        for cmd in c.commands:
            out.append(f"   $ {cmd}\n")
    out.rstrip()
    return out


def steps_text(g: Growth) -> Text:
    out = Text()
    out.append("Steps (the grow script runs them, dry run first)\n", style="bold")
    for i, s in enumerate(g.steps, 1):
        out.append(f"{i}. {s.title}\n")
        for cmd in s.commands:
            out.append(f"   $ {cmd}\n")
    out.rstrip()
    return out


def render_growth(g: Growth, *, alternatives: list[str] | None = None) -> RenderableType:
    parts: list[RenderableType] = [figures_table(g), md_lines(g), Text(""), alignment_text(g), Text(""), steps_text(g)]
    for note in g.notes:
        parts.append(Text(f"note: {note}"))
    for alt in alternatives or []:
        parts.append(Text(f"also possible: {alt}"))
    return Group(*parts)


def alternative_line(mode: str, g: Growth) -> str:
    return (
        f"--mode {mode}: df available {g.df_available_bytes_after:,} bytes "
        f"({format_bytes_binary(g.df_available_bytes_after)}) after "
        + ", ".join(f"{a.name} {a.members_before} -> {a.members_after} members" for a in g.arrays)
    )


def btrfs_growth_lines(g: BtrfsGrowth) -> list[str]:
    """A btrfs across raw disks grown: the disks and profiles, df size and Free before -> after, the steps."""
    return [
        (
            f"btrfs on {g.mount_point}: {len(g.devices_before)} -> {len(g.devices_before) + len(g.added_devices)} disks, "
            f"data {g.data_profile[0]} -> {g.data_profile[1]}, metadata {g.metadata_profile[0]} -> {g.metadata_profile[1]}"
        ),
        f"df size:          {g.df_size_bytes_before:,} -> {g.df_size_bytes_after:,} B",
        f"Free (estimated): {g.free_estimated_bytes_before:,} -> {g.free_estimated_bytes_after:,} B",
        *(f"{i}. {s.title}: {c}" for i, s in enumerate(g.steps, 1) for c in s.commands),
        *(f"note: {n}" for n in g.notes),
    ]
