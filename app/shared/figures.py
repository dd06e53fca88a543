"""How the CLI and the TUI spell a figure the same way: MB/s, loss odds, a sweep row."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from planners.layouts.sweep import Sweep, SweepRow
from planners.reliability.loss import GroupReliability, Loss, Reliability, standing


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
    return _one_in(p)


def _one_in(p: float) -> str:
    """'1 in N', N to two significant figures; past 10^15 (a denormal p makes N infinite) a bound."""
    if p < 1e-15:
        return "under 1 in 10^15"
    n = 1 / p
    digits = len(str(int(n))) - 2
    return f"1 in {round(n, -digits):,.0f}"


def ure_text(p: float, small: Callable[[float], str] = odds) -> str:
    """P(URE) in a table cell: a tenth of a percent from 1 %, odds below, never a nonzero chance as 0.0 %."""
    return f"{p:.1%}" if p >= 0.01 else small(p)


def short_odds(p: float) -> str:
    """'1/77k', '1/4.9M', '1/83': odds that fit a narrow column, all in one notation."""
    if p <= 0:
        return "0"
    n = 1 / p
    for div, suffix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            v = n / div
            return f"1/{v:.2g}{suffix}" if v < 10 else f"1/{v:.0f}{suffix}"
    return f"1/{n:.2g}" if n < 10 else f"1/{n:.0f}"


def share_text(p: float, small: Callable[[float], str] = odds) -> str:
    """A share of events: whole percent from 1 %, odds below (never a bare 0 %)."""
    return f"{p:.0%}" if p >= 0.01 else small(p)


class ReliabilityRow(NamedTuple):
    """One row of the reliability table, as the CLI and the TUI both show it."""

    name: str
    kind: str
    survives: str
    rebuild: str
    binding: str
    rate: str
    ure: float | None
    """P(URE) during a rebuild; None where there is no rebuild (RAID0, btrfs single)."""
    consequence: str


def _row(name: str, g: GroupReliability) -> ReliabilityRow:
    kind = g.kind or f"RAID{g.level} {g.members}"
    if not g.tolerates:
        # Nothing to rebuild from: the first failed disk takes the data with it.
        return ReliabilityRow(name, kind, "0", "none", "no redundancy", "", None, "")
    return ReliabilityRow(
        name,
        kind,
        str(g.tolerates),
        f"{g.rebuild_hours:.1f} h",
        g.rebuild_binding,
        f"{g.rebuild_mb_s:,.0f} MB/s",
        g.ure_probability,
        g.ure_consequence,
    )


def reliability_rows(rel: Reliability) -> list[ReliabilityRow]:
    """Each array, and under one whose members are LUNs the RAID inside each LUN; a LUN with nothing
    above it (no md) is shown as the LUN alone."""
    rows = []
    for g in rel.groups:
        rows.append(_row(g.name, standing(g)))
        if g.lun is not None and standing(g) is g:
            rows.append(_row("  each LUN", g.lun))
    return rows


def survives_lines(rel: Reliability) -> list[str]:
    """What survives how many failures, where a table's one number cannot say it (btrfs's data and
    metadata apart, the disks inside each LUN), once each."""
    return list(dict.fromkeys(g.survives_note for g in rel.groups if g.survives_note))


def odds_pair(pair: tuple[float, float], fmt: Callable[[float], str] = odds) -> str:
    """'A to B' in one notation: where `fmt` would write one end as odds and the other as a percentage,
    both are written as odds."""
    lo, hi = (fmt(v) for v in pair)
    if lo.startswith("1 in ") != hi.startswith("1 in ") and min(pair) > 0:
        lo, hi = (_one_in(v) for v in pair)
    return lo if lo == hi else f"{lo} to {hi}"


def loss_lines(loss: Loss, afr_nominal: float) -> list[str]:
    """The loss figure in full, each part named, every line within 80 columns (1-4 %/yr disk failures)."""
    parts = [
        ("Data loss within a year:", f"{odds_pair(loss.per_year, odds)} for 1-4 %/yr disk failures"),
        ("  (" + odds(loss.per_year_nominal), f"at the disks' own {afr_nominal:.1%}), made of:"),
        ("  array loss (a failure too many):", f"{odds_pair(loss.array_per_year, odds)} a year;"),
    ]
    if any(loss.rebuilds_per_year):
        parts += [
            (
                f"  data lost to UREs in {odds_pair(loss.ure_per_rebuild, share_text)} of rebuilds",
                f"({odds_pair(loss.rebuilds_per_year, lambda v: f'{v:.2g}')} rebuilds a year):",
            ),
            ("  " + odds_pair(loss.ure_per_year, odds), "a year."),
        ]
    else:
        parts.append(("  no data lost to UREs:", "RAID0 has no rebuilds."))
    # A part too long for one line goes on two, the figure whole on the second.
    return [
        line
        for head, tail in parts
        for line in ([f"{head} {tail}"] if len(head) + len(tail) < 80 else [head, f"    {tail}"])
    ]


def loss_parts(loss: Loss) -> str:
    """The two parts of the loss figure for a narrow cell, each named, at 4 % AFR."""
    return (
        f"arrays {short_odds(loss.array_per_year[1])}/yr, "
        f"UREs in {share_text(loss.ure_per_rebuild[1], short_odds)} of rebuilds"
    )


SWEEP_COLUMNS = ("#", "layout", "TiB", "MB/s", "limited by", "loss/yr 1-4%", "URE/rb", "rebuild")
SWEEP_NUMERIC = ("#", "TiB", "MB/s", "URE/rb", "rebuild")
# Why a layout is ranked last, by SweepRow.risk: its mark in the first column, and the reason.
RISK_MARKS = {"rebuilds": "~", "yearly": "!"}


def risk_reasons(s: Sweep) -> dict[str, str]:
    return {
        "rebuilds": f"loses data to a URE in over {s.max_rebuild_loss:.0%} of rebuilds",
        "yearly": f"loss odds above {short_odds(s.max_loss)} a year",
    }


def sweep_title(s: Sweep) -> str:
    reasons = risk_reasons(s)
    tail = "".join(
        f"; {RISK_MARKS[k]} = {why}, ranked last ({n})"
        for k, why in reasons.items()
        if (n := sum(r.risk == k for r in s.rows))
    )
    return (
        f"{len(s.rows)} layouts of {s.disks} disks; MB/s for {s.workload}; * = on the Pareto front; "
        f"loss/yr: arrays or UREs; URE/rb: rebuilds that lose data to a URE (4 % AFR){tail}"
    )


def sweep_cells(rank: int, r: SweepRow) -> tuple[str, ...]:
    """One sweep row as the table shows it, column by column (SWEEP_COLUMNS); `rank` counts from 1."""
    lo, hi = r.loss.per_year
    # RAID0 has nothing to rebuild from: a failed disk is the end of the array.
    rebuild = f"{r.rebuild_hours:.0f} h" if any(r.loss.rebuilds_per_year) else "none"
    mark = "*" if r.pareto else RISK_MARKS.get(r.risk, " ")
    ure = share_text(r.loss.ure_per_rebuild[1], short_odds) if any(r.loss.rebuilds_per_year) else "-"
    return (
        f"{rank}{mark}",
        r.label,
        f"{r.usable_bytes / 2**40:,.1f}",
        mb_text(r.mb_s),
        r.binding,
        f"{short_odds(lo)}-{short_odds(hi)}",
        ure,
        rebuild,
    )
