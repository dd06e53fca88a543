"""Rebuild time, mean time to data loss, unreadable sectors during a rebuild, yearly loss odds.

The MTTDL formulas (Patterson/Gibson/Katz; Chen et al.) assume independent, exponential
failures; field studies (Elerath & Pecht, Schroeder & Gibson) found real double failures 2 to
1500 times likelier. So every figure is shown as a range over annual failure rates of 1-4 %
and with its assumptions listed: use it to rank layouts, not to promise odds.
"""

from __future__ import annotations

from functools import lru_cache
from math import exp, expm1, log1p, prod

from pydantic import BaseModel, ConfigDict, Field

from planners.hardware import DiskPerf
from planners.models import Plan
from planners.perf.context import GroupCtx, PerfCtx, build_ctx
from planners.results import PlanResult

Frozen = ConfigDict(frozen=True)
HOURS_PER_YEAR = 8766.0
AFR_RANGE = (0.01, 0.04)  # field replacement rates run 2-4 %/year; datasheets imply under 1 %


class RebuildLimit(BaseModel):
    model_config = Frozen

    name: str = Field(description="inner zone, speed_limit_max, link, HBA or parity CPU.")
    mb_s: float = Field(description="Rebuild rate this limit alone allows, MB/s per member.")


class GroupReliability(BaseModel):
    """One md array's odds."""

    model_config = Frozen

    name: str = Field(description="md array name.")
    level: int = Field(description="RAID level.")
    members: int = Field(description="Active members, count.")
    spares: int = Field(description="Hot spares, count.")
    tolerates: int = Field(description="Failures the array survives in the best case, count.")
    rebuild_mb_s: float = Field(description="Rebuild rate per member with no user I/O, MB/s.")
    rebuild_binding: str = Field(description="What limits the rebuild rate.")
    rebuild_limits: list[RebuildLimit] = Field(description="Every rebuild limit, smallest first.")
    rebuild_hours: float = Field(description="Time to rebuild one member, hours (component size / rebuild rate).")
    mttr_hours: float = Field(description="Failure to redundancy restored: rebuild, plus replacement without a spare, hours.")
    mttdl_hours: tuple[float, float] = Field(description="Mean time to data loss at 4 % and at 1 % AFR, hours.")
    ure_bits: float = Field(description="Bits a single-failure rebuild must read, count.")
    ure_probability: float = Field(description="P(at least one unrecoverable read error during that rebuild), 0-1.")
    ure_consequence: str = Field(description="What such an error costs on this level.")


class Reliability(BaseModel):
    """The whole plan's odds: any array lost loses the volume."""

    model_config = Frozen

    groups: list[GroupReliability] = Field(description="Per md array.")
    mttdl_hours: tuple[float, float] = Field(description="Plan MTTDL at 4 % and at 1 % AFR, hours.")
    loss_per_year: tuple[float, float] = Field(description="P(data loss within a year) at 1 % and at 4 % AFR, 0-1.")
    loss_per_year_nominal: float = Field(description="The same at the disks' own AFR figure, 0-1.")
    afr_nominal: float = Field(description="The disks' own annual failure rate, fraction.")
    assumptions: list[str] = Field(description="Every assumption the figures rest on, one sentence each.")


@lru_cache(maxsize=1024)  # a sweep asks it for the same members of the same wiring over and over
def _sharing(where: tuple[int, ...], members: tuple[int, ...]) -> tuple[int, ...]:
    """How many members share each link (or HBA): what matters to a rebuild, not which link it is."""
    counts: dict[int, int] = {}
    for i in members:
        counts[where[i]] = counts.get(where[i], 0) + 1
    return tuple(sorted(counts.values()))


def rebuild_limits(ctx: PerfCtx, g: GroupCtx) -> list[RebuildLimit]:
    """Rebuild rate per member: the replacement writes what the survivors read, all in step."""
    hw = ctx.hardware
    out = {
        "inner zone": g.disk.seq_inner_mb_s * g.disk.seq_write_factor,
        "speed_limit_max": hw.md.speed_limit_max_kib_s * 1024 / 1e6,
    }
    links, hbas = ctx.links, ctx.hbas
    on_link: dict[int, int] = {}
    on_hba: dict[int, int] = {}
    for i in g.members:  # survivors and the replacement all move one member's worth each
        on_link[links[i]] = on_link.get(links[i], 0) + 1
        on_hba[hbas[i]] = on_hba.get(hbas[i], 0) + 1
    if hw.wiring.link != "direct" or hw.wiring.link_mb_s:
        out["link"] = hw.wiring.link_rate / max(on_link.values())
    if hw.wiring.hbas:
        out["HBA"] = hw.wiring.hba_rate / max(on_hba.values())
    if g.parity:
        out["parity CPU"] = ctx.cpu.xor_mb_s / (g.n - 1)  # the missing chunk is the xor of the other n-1
    return sorted((RebuildLimit(name=k, mb_s=v) for k, v in out.items()), key=lambda r: r.mb_s)


def _partners(g: GroupCtx) -> list[int]:
    """Disks whose failure, one after another, finishes the array off after a first failure."""
    if g.level == 0:
        return []
    if g.level == 1:
        return list(range(g.n - 1, 0, -1))
    if g.level == 10:
        c = g.copies
        # near copies on a multiple of `near` disks form fixed mirror sets; otherwise (odd counts,
        # far and offset layouts) each disk shares chunks with neighbours on both sides.
        spread = 1 if (g.far == 1 and g.n % g.near == 0) else 2
        return [min(g.n - j, (c - j) * spread) for j in range(1, c)]
    return [g.n - j for j in range(1, g.parity + 1)]


def mttdl_hours(g: GroupCtx, mttf: float, mttr: float) -> float:
    partners = _partners(g)
    return mttf ** (len(partners) + 1) / (g.n * prod(partners) * mttr ** len(partners))


def _ure(g: GroupCtx) -> tuple[float, float, str]:
    if g.level == 0:
        return 0.0, 0.0, "nothing to rebuild: RAID0 is lost with its first failed member"
    sources = g.n - 1 if g.parity else 1
    bits = sources * g.component_bytes * 8.0
    p = -expm1(bits * log1p(-g.disk.ure_per_bit))
    if g.parity >= 2:
        why = "corrected from the second parity while only one member is missing"
    elif g.parity:
        why = "md records a bad block and finishes: the stripe's data in that spot is lost"
    else:
        why = "md records a bad block and finishes: one unreadable spot in one file"
    return bits, p, why


def reliability(plan: Plan, result: PlanResult | None = None, *, disk_override: DiskPerf | None = None) -> Reliability:
    if result is None:
        from planners.compute import compute

        result = compute(plan)
    return reliability_ctx(build_ctx(plan, result, disk_override))


def reliability_ctx(ctx: PerfCtx, seen: dict[tuple[object, ...], dict[str, GroupReliability]] | None = None) -> Reliability:
    """`reliability` on an already gathered context.

    `seen` may be shared by the calls on contexts of one plan's hardware (a sweep's layouts):
    each array shape is then worked out once across all of them.
    """
    hw = ctx.hardware
    groups: list[GroupReliability] = []
    # Pods repeat one array shape many times: work each shape out once (and name it once per array name).
    seen = {} if seen is None else seen
    for g in ctx.groups:
        key = (g.level, g.n, g.near, g.far, g.parity, g.spares, g.component_bytes, g.disk,
               _sharing(ctx.links, g.members), _sharing(ctx.hbas, g.members))
        named = seen.setdefault(key, {})
        if named:
            if g.name not in named:
                named[g.name] = next(iter(named.values())).model_copy(update={"name": g.name})
            groups.append(named[g.name])
            continue
        limits = rebuild_limits(ctx, g)
        rate = limits[0].mb_s
        hours = g.component_bytes / (rate * 1e6) / 3600
        mttr = hours + (0.0 if g.spares else hw.replace_hours)
        lo, hi = (mttdl_hours(g, HOURS_PER_YEAR / afr, mttr) for afr in reversed(AFR_RANGE))
        bits, p, why = _ure(g)
        named[g.name] = GroupReliability(
            name=g.name, level=g.level, members=g.n, spares=g.spares, tolerates=len(_partners(g)),
            rebuild_mb_s=rate, rebuild_binding=limits[0].name, rebuild_limits=limits, rebuild_hours=hours,
            mttr_hours=mttr, mttdl_hours=(lo, hi), ure_bits=bits, ure_probability=p, ure_consequence=why)
        groups.append(named[g.name])

    shapes: dict[tuple[object, ...], tuple[GroupCtx, float, int]] = {}  # again one figure per array shape
    for g, gr in zip(ctx.groups, groups, strict=True):
        key = (g.level, g.n, g.near, g.far, g.parity, gr.mttr_hours)
        count = shapes[key][2] + 1 if key in shapes else 1
        shapes[key] = (g, gr.mttr_hours, count)

    def plan_mttdl(afr: float) -> float:
        mttf = HOURS_PER_YEAR / afr
        return 1.0 / sum(count / mttdl_hours(g, mttf, mttr) for g, mttr, count in shapes.values())

    def yearly(afr: float) -> float:
        return -expm1(-HOURS_PER_YEAR / plan_mttdl(afr))

    afr = max(g.disk.afr for g in ctx.groups)
    assumptions = [
        ("Disks fail independently at a constant rate (exponential lifetimes); real double failures are "
         "2-1500x likelier, so rank layouts with these figures rather than trust their size."),
        f"Annual failure rate {AFR_RANGE[0]:.0%}-{AFR_RANGE[1]:.0%} for the range; the disks' own figure is {afr:.1%}.",
        "Losing any md array loses the volume (LVM and the filesystem span them all).",
        (f"Without a hot spare a replacement arrives {hw.replace_hours:g} h after a failure; a spare starts at once "
         "(and is assumed replaced before it is needed again)."),
        ("Rebuild runs with no user I/O, at the slowest of the inner-zone write speed, speed_limit_max "
         f"({hw.md.speed_limit_max_kib_s} KiB/s), link and HBA share and parity CPU; under load md "
         f"drops to speed_limit_min ({hw.md.speed_limit_min_kib_s} KiB/s)."),
        "Unrecoverable read errors strike each bit read independently at the disk's rated rate.",
    ]
    return Reliability(
        groups=groups, mttdl_hours=(plan_mttdl(AFR_RANGE[1]), plan_mttdl(AFR_RANGE[0])),
        loss_per_year=(yearly(AFR_RANGE[0]), yearly(AFR_RANGE[1])), loss_per_year_nominal=yearly(afr),
        afr_nominal=afr, assumptions=assumptions)


def loss_probability(mttdl: float, hours: float = HOURS_PER_YEAR) -> float:
    return 1.0 - exp(-hours / mttdl)
