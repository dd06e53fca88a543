"""Rebuild time, mean time to data loss, unreadable sectors during a rebuild, yearly loss odds.

Data is lost two ways, and the one loss figure (`Loss`) counts both, each named: a whole array
lost to one failure too many (MTTDL), and a stripe's data lost to an unreadable sector (URE) read
while a rebuild has no redundancy left to correct it (every RAID5 rebuild; a RAID6 rebuild with
two members missing). On large disks the second dominates: a RAID5 of 9 x 18 TB reads 1.2e15
bits to rebuild one member, and at one URE per 1e14 bits nearly every rebuild loses some data.

The MTTDL formulas (Patterson/Gibson/Katz; Chen et al.) assume independent, exponential
failures; field studies (Elerath & Pecht, Schroeder & Gibson) found real double failures 2 to
1500 times likelier. So every figure is shown as a range over annual failure rates of 1-4 %
and with its assumptions listed: use it to rank layouts, not to promise odds.
"""

from __future__ import annotations

from functools import lru_cache
from math import exp, expm1

from pydantic import BaseModel, ConfigDict, Field

from planners.hardware.disks import DiskPerf
from planners.hardware.machine import PCIE_LANE_MB_S
from planners.models import Plan
from planners.perf.context import GroupCtx, PerfCtx, build_ctx
from planners.reliability.formulas import AFR_RANGE, HOURS_PER_YEAR, exposed_per_hour, mttdl_hours
from planners.reliability.formulas import partners as _partners
from planners.reliability.formulas import ure as _ure
from planners.reliability.stacks import kind as _kind
from planners.reliability.stacks import lun_ctx, lun_rates, member_rate
from planners.reliability.stacks import stack_assumptions as _stack_assumptions
from planners.reliability.stacks import survives_note as _survives_note
from planners.results import Finding, PlanResult

Frozen = ConfigDict(frozen=True)
# A policy, not a physical figure: a layout that loses data to an unreadable sector in most of its
# rebuilds (RAID5 of large disks) is not one to build on purpose, however rarely its disks fail.
# The plan warns of it and the sweep ranks it last.
MAX_REBUILD_LOSS = 0.5


class RebuildLimit(BaseModel):
    model_config = Frozen

    name: str = Field(description="inner zone, speed_limit_max, link, HBA, parity CPU or controller.")
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
    mttr_hours: float = Field(
        description="Failure to redundancy restored: rebuild, plus replacement without a spare, hours."
    )
    mttdl_hours: tuple[float, float] = Field(description="Mean time to data loss at 4 % and at 1 % AFR, hours.")
    ure_bits: float = Field(description="Bits a single-failure rebuild must read, count.")
    ure_probability: float = Field(description="P(at least one unrecoverable read error during that rebuild), 0-1.")
    ure_consequence: str = Field(description="What such an error costs on this level.")
    exposed_bits: float = Field(
        description="Bits a rebuild with no redundancy left must read (one member missing "
        "on RAID5, two on RAID6, one copy left on mirrors), count."
    )
    exposed_ure_probability: float = Field(description="P(at least one URE during that rebuild): data lost, 0-1.")
    kind: str = Field("", description="What the array is, in words: 'RAID6 8+1', 'btrfs raid1 of 4', 'RAID5 LUN'.")
    survives_note: str = Field(
        "", description="What survives how many failures, where data and metadata differ or a LUN's disks count."
    )
    lun: GroupReliability | None = Field(
        None, description="The hardware RAID inside each member when the members are LUNs: its disks' odds."
    )


def standing(g: GroupReliability) -> GroupReliability:
    """The figures that stand for an array: a LUN's own where nothing above it (no md) keeps a copy."""
    return g.lun if g.lun is not None and not g.tolerates and g.members == 1 else g


class Loss(BaseModel):
    """The plan's one loss figure: whole arrays lost, and data lost to UREs during rebuilds.

    Each pair is at 1 % and at 4 % AFR. Both are rates of independent events, so the yearly odds
    of losing any data come from their sum.
    """

    model_config = Frozen

    per_year: tuple[float, float] = Field(
        description="P(losing any data within a year: an array or a URE's stripe) at 1 % and 4 % AFR, 0-1."
    )
    array_per_year: tuple[float, float] = Field(
        description="P(a whole array lost within a year: an md array, a LUN with nothing above it, or a btrfs) "
        "at 1 % and 4 % AFR, 0-1."
    )
    ure_per_year: tuple[float, float] = Field(
        description="P(data lost to a URE during a rebuild within a year) at 1 % and 4 % AFR, 0-1."
    )
    rebuilds_per_year: tuple[float, float] = Field(
        description="Member rebuilds a year (one per failed member) at 1 % and 4 % AFR, count."
    )
    ure_per_rebuild: tuple[float, float] = Field(
        description="Share of those rebuilds that lose data to a URE at 1 % and 4 % AFR, 0-1."
    )
    per_year_nominal: float = Field(description="P(losing any data within a year) at the disks' own AFR, 0-1.")


class Reliability(BaseModel):
    """The whole plan's odds: any array lost loses the volume."""

    model_config = Frozen

    groups: list[GroupReliability] = Field(
        description="Per md array; without md, per disk or LUN, or the one btrfs across the disks."
    )
    mttdl_hours: tuple[float, float] = Field(description="Plan MTTDL (whole arrays) at 4 % and at 1 % AFR, hours.")
    loss: Loss = Field(description="The odds of losing data: arrays and UREs, each named, and their sum.")
    afr_nominal: float = Field(description="The disks' own annual failure rate, fraction.")
    assumptions: list[str] = Field(description="Every assumption the figures rest on, one sentence each.")

    @property
    def longest_rebuild_hours(self) -> float | None:
        """The longest rebuild of an array that survives a failure, in hours; None where nothing is
        rebuilt (RAID0: a LUN, md or btrfs single has nothing to rebuild from)."""
        hours = [standing(g).rebuild_hours for g in self.groups if standing(g).tolerates]
        return max(hours) if hours else None


@lru_cache(maxsize=1024)  # a sweep asks it for the same members of the same wiring over and over
def _sharing(where: tuple[int, ...], members: tuple[int, ...]) -> tuple[int, ...]:
    """How many members share each link (or HBA): what matters to a rebuild, not which link it is."""
    counts: dict[int, int] = {}
    for i in members:
        counts[where[i]] = counts.get(where[i], 0) + 1
    return tuple(sorted(counts.values()))


def rebuild_limits(ctx: PerfCtx, g: GroupCtx) -> list[RebuildLimit]:
    """Rebuild rate per member: the replacement writes what the survivors read, all in step.

    md holds its resync to speed_limit_max; btrfs replace has no such knob. A drive on a PCIe link
    of its own (NVMe) moves its member's worth over that link, not over the wiring's SATA/SAS link.
    """
    hw = ctx.hardware
    out = {"inner zone": g.disk.seq_inner_mb_s * g.disk.seq_write_factor}
    if not ctx.btrfs:
        out["speed_limit_max"] = hw.md.speed_limit_max_kib_s * 1024 / 1e6
    links, hbas = ctx.links, ctx.hbas
    on_link: dict[int, int] = {}
    on_hba: dict[int, int] = {}
    own = g.disk.pcie_lanes
    for i in () if own else g.members:  # survivors and the replacement all move one member's worth each
        on_link[links[i]] = on_link.get(links[i], 0) + 1
        on_hba[hbas[i]] = on_hba.get(hbas[i], 0) + 1
    if own:
        out["link"] = own * PCIE_LANE_MB_S[ctx.cpu.pcie_gen]
    elif hw.wiring.link != "direct" or hw.wiring.link_mb_s:
        out["link"] = hw.wiring.link_rate / max(on_link.values())
    if hw.wiring.hbas and on_hba:
        out["HBA"] = hw.wiring.hba_rate / max(on_hba.values())
    if g.parity:
        out["parity CPU"] = ctx.cpu.xor_mb_s / (g.n - 1)  # the missing chunk is the xor of the other n-1
    return sorted((RebuildLimit(name=k, mb_s=v) for k, v in out.items()), key=lambda r: r.mb_s)


def _ure_consequence(ctx: PerfCtx, g: GroupCtx) -> str:
    if ctx.btrfs:
        return "btrfs finds it by its checksum and reads another copy; with none left the block is lost"
    if g.parity >= 2:
        return "corrected from the second parity while only one member is missing"
    if g.parity:
        return "md records a bad block and finishes: the stripe's data in that spot is lost"
    return "md records a bad block and finishes: one unreadable spot in one file"


def _lun_reliability(g: GroupCtx) -> GroupReliability | None:
    """The figures of the hardware RAID inside each member, rebuilt by the controller in its stated time."""
    inner, lun = lun_ctx(g), g.disk.lun
    if inner is None or lun is None:
        return None
    t = lun.rebuild_hours
    rate = inner.component_bytes / (t * 3600) / 1e6
    lo, hi = (mttdl_hours(inner, HOURS_PER_YEAR / afr, t) for afr in reversed(AFR_RANGE))
    rebuilt = inner.scheme.redundant
    bits, p = _ure(inner, 1) if rebuilt else (0.0, 0.0)
    exposed_bits, exposed_p = _ure(inner, len(_partners(inner))) if rebuilt else (0.0, 0.0)
    return GroupReliability(
        name="LUN",
        level=lun.level,
        members=lun.disks,
        spares=0,
        tolerates=len(_partners(inner)),
        rebuild_mb_s=rate,
        rebuild_binding="controller" if rebuilt else "no rebuild (RAID0)",
        rebuild_limits=[RebuildLimit(name="controller", mb_s=rate)],
        rebuild_hours=t,
        mttr_hours=t,
        mttdl_hours=(lo, hi),
        ure_bits=bits,
        ure_probability=p,
        ure_consequence="the controller loses that stripe's data" if rebuilt else "",
        exposed_bits=exposed_bits,
        exposed_ure_probability=exposed_p,
        kind=f"RAID{lun.level} LUN of {lun.disks} disks",
    )


def reliability(plan: Plan, result: PlanResult, *, disk_override: DiskPerf | None = None) -> Reliability:
    return reliability_ctx(build_ctx(plan, result, disk_override))


def reliability_ctx(
    ctx: PerfCtx, seen: dict[tuple[object, ...], dict[str, GroupReliability]] | None = None
) -> Reliability:
    """`reliability` on an already gathered context.

    `seen` may be shared by the calls on contexts of one plan's hardware (a sweep's layouts):
    each array shape is then worked out once across all of them.
    """
    groups, loss, mttdl, afr = loss_ctx(ctx, seen)
    return Reliability(groups=groups, mttdl_hours=mttdl, loss=loss, afr_nominal=afr, assumptions=_assumptions(ctx, afr))


def loss_key(ctx: PerfCtx) -> tuple[object, ...]:
    """All of a context that `loss_ctx` reads: contexts equal in it have the same figures (a sweep's
    layouts that differ only above their arrays, in LVM's mode, share them)."""
    return (ctx.groups, ctx.btrfs, ctx.links, ctx.hbas, ctx.hardware, ctx.cpu)


def loss_ctx(
    ctx: PerfCtx, seen: dict[tuple[object, ...], dict[str, GroupReliability]] | None = None
) -> tuple[list[GroupReliability], Loss, tuple[float, float], float]:
    """`reliability_ctx`'s figures (groups, loss, MTTDL range, the disks' AFR) without its assumptions
    in words: what a sweep ranks hundreds of layouts by."""
    groups = _groups(ctx, {} if seen is None else seen)
    afr = max(g.disk.afr for g in ctx.groups)
    loss, mttdl = _loss(ctx, groups, afr)
    return groups, loss, mttdl, afr


def _groups(ctx: PerfCtx, seen: dict[tuple[object, ...], dict[str, GroupReliability]]) -> list[GroupReliability]:
    """Each array's figures, in plan order. Pods repeat one array shape many times: each shape is
    worked out once (and named once per array name)."""
    groups: list[GroupReliability] = []
    for g in ctx.groups:
        key = (
            g.level,
            g.n,
            g.near,
            g.far,
            g.parity,
            g.spares,
            g.component_bytes,
            g.disk,
            g.survives,
            ctx.btrfs,
            _sharing(ctx.links, g.members),
            _sharing(ctx.hbas, g.members),
        )
        named = seen.setdefault(key, {})
        if named:
            if g.name not in named:
                named[g.name] = next(iter(named.values())).model_copy(update={"name": g.name})
            groups.append(named[g.name])
            continue
        named[g.name] = _group_reliability(ctx, g)
        groups.append(named[g.name])
    return groups


def _group_reliability(ctx: PerfCtx, g: GroupCtx) -> GroupReliability:
    """One array: its rebuild and what limits it, its MTTDL over the AFR range, and the odds of a
    URE while its rebuild has no redundancy left."""
    limits = rebuild_limits(ctx, g)
    rate = limits[0].mb_s
    hours = g.component_bytes / (rate * 1e6) / 3600
    mttr = hours + (0.0 if g.spares else ctx.hardware.replace_hours)
    lo, hi = (mttdl_hours(g, 1 / member_rate(g, afr / HOURS_PER_YEAR), mttr) for afr in reversed(AFR_RANGE))
    if not _partners(g):
        bits = p = exposed_bits = exposed_p = 0.0
        why = f"nothing to rebuild: {'it' if ctx.btrfs else 'RAID0'} is lost with its first failed member"
    else:
        (bits, p), why = _ure(g, 1), _ure_consequence(ctx, g)
        exposed_bits, exposed_p = _ure(g, len(_partners(g)))
    return GroupReliability(
        name=g.name,
        level=g.level,
        members=g.n,
        spares=g.spares,
        tolerates=len(_partners(g)),
        rebuild_mb_s=rate,
        rebuild_binding=limits[0].name,
        rebuild_limits=limits,
        rebuild_hours=hours,
        mttr_hours=mttr,
        mttdl_hours=(lo, hi),
        ure_bits=bits,
        ure_probability=p,
        ure_consequence=why,
        exposed_bits=exposed_bits,
        exposed_ure_probability=exposed_p,
        kind=_kind(ctx, g),
        survives_note=_survives_note(ctx, g),
        lun=_lun_reliability(g),
    )


def _loss(ctx: PerfCtx, groups: list[GroupReliability], afr_nominal: float) -> tuple[Loss, tuple[float, float]]:
    """The volume's loss odds over the AFR range and at the disks' own AFR, and its MTTDL range
    (hours): losing any array loses the volume, so the arrays' loss rates add up."""
    shapes: dict[tuple[object, ...], tuple[GroupCtx, GroupReliability, int]] = {}  # again one figure per array shape
    for g, gr in zip(ctx.groups, groups, strict=True):
        key = (g.level, g.n, g.near, g.far, g.parity, g.survives, g.disk.lun, gr.mttr_hours, gr.exposed_ure_probability)
        count = shapes[key][2] + 1 if key in shapes else 1
        shapes[key] = (g, gr, count)

    def rates(afr: float) -> tuple[float, float, float]:
        """Per hour: arrays lost, data lost to UREs in rebuilds, member rebuilds."""
        disk = afr / HOURS_PER_YEAR
        arrays = ures = rebuilds = 0.0
        for g, gr, count in shapes.values():
            lam = member_rate(g, disk)
            arrays += count / mttdl_hours(g, 1 / lam, gr.mttr_hours)
            ures += count * exposed_per_hour(g, lam, gr.mttr_hours) * gr.exposed_ure_probability
            rebuilds += count * g.n * lam if _partners(g) else 0.0
            inner = lun_ctx(g)
            if inner is not None and g.disk.lun is not None:
                # Inside each LUN: its own rebuilds, and the stripes a URE loses in them, which are
                # data lost only where the host keeps no copy of its own to mend them from.
                _, lun_ure, lun_rebuilds = lun_rates(inner, g.disk.lun.rebuild_hours, disk)
                rebuilds += count * g.n * lun_rebuilds
                ures += 0.0 if _partners(g) else count * g.n * lun_ure
        return arrays, ures, rebuilds

    def yearly(rate: float) -> float:
        return -expm1(-HOURS_PER_YEAR * rate)

    (a1, u1, r1), (a4, u4, r4) = (rates(a) for a in AFR_RANGE)
    loss = Loss(
        per_year=(yearly(a1 + u1), yearly(a4 + u4)),
        array_per_year=(yearly(a1), yearly(a4)),
        ure_per_year=(yearly(u1), yearly(u4)),
        rebuilds_per_year=(r1 * HOURS_PER_YEAR, r4 * HOURS_PER_YEAR),
        ure_per_rebuild=(u1 / r1 if r1 else 0.0, u4 / r4 if r4 else 0.0),
        per_year_nominal=yearly(sum(rates(afr_nominal)[:2])),
    )
    return loss, (1 / a4, 1 / a1)


def _assumptions(ctx: PerfCtx, afr: float) -> list[str]:
    """What the figures assume, in words, with the hardware's own numbers."""
    hw = ctx.hardware
    # Without md each disk or LUN stands alone (planners.perf.context names them disk1, disk2, ...).
    direct = not ctx.btrfs and all(g.n == 1 and g.scheme.striped_only and g.name.startswith("disk") for g in ctx.groups)
    md = not ctx.btrfs and not direct
    out = [
        *_stack_assumptions(ctx),
        (
            "Disks fail independently at a constant rate (exponential lifetimes); real double failures are "
            "2-1500x likelier, so rank layouts with these figures rather than trust their size."
        ),
        f"Annual failure rate {AFR_RANGE[0]:.0%}-{AFR_RANGE[1]:.0%} for the range; the disks' own figure is {afr:.1%}.",
    ]
    if md:
        out.append("Losing any md array loses the volume (LVM and the filesystem span them all).")
    elif direct:
        out.append("Losing any disk or LUN loses the volume (LVM and the filesystem span them all).")
    if not direct:
        out.append(
            f"Without a hot spare a replacement arrives {hw.replace_hours:g} h after a failure; a spare starts at once "
            "(and is assumed replaced before it is needed again)."
        )
    if md:
        out.append(
            "Rebuild runs with no user I/O, at the slowest of the inner-zone write speed, speed_limit_max "
            f"({hw.md.speed_limit_max_kib_s} KiB/s), link and HBA share and parity CPU; under load md "
            f"drops to speed_limit_min ({hw.md.speed_limit_min_kib_s} KiB/s)."
        )
    out.append(
        "Unrecoverable read errors strike each bit read independently at the disk's rated rate; one read while "
        "a rebuild has no redundancy left loses that stripe's data"
        + (" (md records a bad block and goes on)." if md else ".")
    )
    return out


def loss_findings(plan: Plan, result: PlanResult) -> list[Finding]:
    """What a btrfs or a LUN survives, where md's level cannot say it; and a warning when the plan loses
    data to a URE in most rebuilds (at 4 % AFR), in the words and figures of the one loss figure."""
    ctx = build_ctx(plan, result)
    rel = reliability_ctx(ctx)
    return _survives_findings(ctx, rel) + _ure_findings(ctx, rel)


def _survives_findings(ctx: PerfCtx, rel: Reliability) -> list[Finding]:
    notes = list(dict.fromkeys(g.survives_note for g in rel.groups if g.survives_note))
    if not notes:
        return []
    lo, hi = (f"{p:.2g}" for p in (100 * x for x in rel.loss.per_year))
    return [
        Finding(
            severity="info",
            layer="filesystem" if ctx.btrfs else "disks",
            field="filesystem.metadata_profile" if ctx.btrfs else "",
            message=f"{'; '.join(notes)}: data loss within a year {lo} % to {hi} % at 1-4 %/yr disk failures "
            "(podplan predict names its parts).",
        )
    ]


def _ure_findings(ctx: PerfCtx, rel: Reliability) -> list[Finding]:
    loss = rel.loss
    if loss.ure_per_rebuild[1] <= MAX_REBUILD_LOSS:
        return []
    # A LUN's own rebuilds lose data where nothing above it keeps a copy.
    shown = [(x.name, standing(x)) for x in rel.groups]
    worst = [(name, x) for name, x in shown if x.exposed_ure_probability > MAX_REBUILD_LOSS]
    top, g = max(worst, key=lambda w: w[1].exposed_ure_probability)
    what = g.kind if ctx.btrfs or g.name == "LUN" else f"RAID{g.level} of {g.members}"
    names = (
        f"{', '.join(name for name, _ in worst)} ({what})"
        if len(worst) < 4
        else f"{worst[0][0]} to {worst[-1][0]} ({len(worst)} {'LUNs' if g.name == 'LUN' else 'arrays'}, {what})"
    )
    ber = next(x.disk.ure_per_bit for x in ctx.groups if x.name == top)
    rate, bits = (f"{v:.{d}e}".replace("e+", "e") for v, d in ((1 / ber, 0), (g.exposed_bits, 2)))
    lo, hi = loss.per_year
    return [
        Finding(
            severity="warning",
            layer="filesystem" if ctx.btrfs else ("disks" if g.name == "LUN" else "md"),
            field="filesystem.data_profile" if ctx.btrfs else "groups",
            message=f"{names}: each rebuild reads {bits} bits with no redundancy left, and "
            f"at one unreadable sector (URE) per {rate} bits {g.exposed_ure_probability:.0%} of them lose a stripe's "
            f"data ({loss.rebuilds_per_year[0]:.2g} to {loss.rebuilds_per_year[1]:.2g} rebuilds a year; data loss "
            f"within a year {lo:.0%} to {hi:.0%} at 1-4 %/yr disk failures); RAID6 corrects such a read "
            "from its second parity.",
        )
    ]


def with_loss_findings(plan: Plan, result: PlanResult) -> PlanResult:
    """`result` with `loss_findings` among its findings. compute leaves them out, as the reliability
    model stands on compute's figures; what shows a plan's findings adds them with this."""
    loss = loss_findings(plan, result)
    return result.model_copy(update={"findings": [*result.findings, *loss]}) if loss else result


def loss_probability(mttdl: float, hours: float = HOURS_PER_YEAR) -> float:
    return 1.0 - exp(-hours / mttdl)
