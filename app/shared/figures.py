"""How the CLI and the TUI spell a figure the same way: MB/s, loss odds, a sweep row."""

from __future__ import annotations

from planners.sweep import Sweep, SweepRow


def running_figures(bytes_s: float, iops: float) -> str:
    """fio's figures so far, fixed width for a live line, grouped in thousands as every table writes them."""
    return f"{bytes_s / 1e6:9,.1f} MB/s {iops:10,.0f} IOPS"


def measured_text(v: float | None, fmt: str, small: float) -> str:
    """A measured figure for a table ('' when none); below `small` in three significant digits, so a
    slow run never reads 0.0."""
    if v is None:
        return ""
    return f"{v:.3g}" if 0 < v < small else format(v, fmt)


def mb_text(v: float) -> str:
    return f"{v:,.0f}" if v >= 10 else f"{v:.2f}"


def odds(p: float) -> str:
    """Small probabilities as '1 in N' (easier to compare than exponents), larger ones as percent."""
    if p <= 0:
        return "0"
    if p >= 1e-3:
        return f"{p:.2%}"
    n = 1 / p
    digits = len(str(int(n))) - 2
    return f"1 in {round(n, -digits):,.0f}"


def short_odds(p: float) -> str:
    """'1/77k', '1/4.9M', '1/83': odds that fit a narrow column, all in one notation."""
    if p <= 0:
        return "0"
    n = 1 / p
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            v = n / div
            return f"1/{v:.2g}{suffix}" if v < 10 else f"1/{v:.0f}{suffix}"
    return f"1/{n:.2g}" if n < 10 else f"1/{n:.0f}"


SWEEP_COLUMNS = ("#", "layout", "TiB", "MB/s", "limited by", "loss/yr 1-4%", "rebuild")
SWEEP_NUMERIC = ("#", "TiB", "MB/s", "rebuild")


def sweep_title(s: Sweep) -> str:
    risky = sum(r.risky for r in s.rows)
    tail = f"; ! = loss odds above {short_odds(s.max_loss)} a year, ranked last ({risky})" if risky else ""
    return f"{len(s.rows)} layouts of {s.disks} disks; MB/s for {s.workload}; * = on the Pareto front{tail}"


def sweep_cells(rank: int, r: SweepRow) -> tuple[str, ...]:
    """One sweep row as the table shows it, column by column (SWEEP_COLUMNS); `rank` counts from 1."""
    lo, hi = r.loss_per_year
    # RAID0 has nothing to rebuild from: a failed disk is the end of the array.
    rebuild = "none" if all(g.level == 0 for g in r.plan.groups) else f"{r.rebuild_hours:.0f} h"
    mark = "*" if r.pareto else ("!" if r.risky else " ")
    return (f"{rank}{mark}", r.label, f"{r.usable_bytes / 2**40:,.1f}", mb_text(r.mb_s), r.binding,
            f"{short_odds(lo)}-{short_odds(hi)}", rebuild)
