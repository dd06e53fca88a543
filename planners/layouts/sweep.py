"""Every sensible layout of a set of disks, ranked by usable bytes, predicted speed and loss odds.

A layout is a RAID level, a number of equal groups, hot spares per group, a chunk and (with
several groups) linear or striped LVM; or no md (LVM straight over the disks); or, for a btrfs plan,
btrfs's own data and metadata profiles across the raw disks. Each is computed exactly (`compute`), predicted
(`perf.predict`) and scored (`reliability`: the one loss figure, arrays and UREs); the Pareto
front holds the layouts no other beats on all three at once, among those within the risk limits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, TypedDict

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, computed_field

from planners.compute import compute
from planners.cost import Cost, plan_cost, priced
from planners.errors import PlanError
from planners.fs.btrfs import PROFILES
from planners.models import Filesystem, Lvm, MdGroup, Plan, RaidLevel
from planners.perf.context import build_ctx
from planners.perf.predict import leading_ctx
from planners.perf.workloads import PRESETS, Workload
from planners.reliability.formulas import AFR_RANGE
from planners.reliability.loss import MAX_REBUILD_LOSS, GroupReliability, Loss, loss_ctx, loss_key, standing
from planners.schemes import md_scheme
from planners.units import KiB, format_size_compact

Frozen = ConfigDict(frozen=True)
MIN_MEMBERS = {0: 2, 5: 3, 6: 4, 10: 2}
# RAID10 keeps two or three copies: three survive any two failures of a copy set (n3, f3, o3).
LEVELS: tuple[tuple[RaidLevel, str | None], ...] = (
    (0, None),
    (5, None),
    (6, None),
    (10, "n2"),
    (10, "f2"),
    (10, "n3"),
    (10, "f3"),
    (10, "o3"),
)
# RAID1 mirrors of two, three or four disks (btrfs keeps up to four copies, raid1c4): a mirror of
# three is the only layout of three disks that survives any two failures.
MIRROR_COPIES = (2, 3, 4)
CHUNKS = (64 * KiB, 512 * KiB)
# The most members the plan model (and md's v1 superblock, which it follows) holds in one array.
MAX_MEMBERS = int(next(m.le for m in MdGroup.model_fields["members"].metadata if isinstance(m, annotated_types.Le)))  # type: ignore[call-overload]
TOO_WIDE = f"with more than {MAX_MEMBERS} members in an array (md's limit)"
MAX_GROUPS = 12  # more, smaller arrays than this only add parity and spares without a new trade-off
# A policy, not a physical figure: a layout more likely than 1 in 100 to lose data within a year
# (at the 4 % end of disk failure rates) is not ranked among the ones a sysadmin would build.
# `sweep(max_loss=...)` and `podplan sweep --max-loss` change it.
MAX_LOSS_PER_YEAR = 0.01
# `reliability.MAX_REBUILD_LOSS`, the other limit, is changed by `sweep(max_rebuild_loss=...)` and
# `podplan sweep --max-rebuild-loss`.


class SweepRow(BaseModel):
    model_config = Frozen

    label: str = Field(description="Short description of the layout.")
    plan: Plan = Field(description="The plan of this layout (`layout_plan`: the input plan with new groups and LVM).")
    usable_bytes: int = Field(description="What df shows as available (btrfs: what fits until ENOSPC), in bytes.")
    mb_s: float = Field(description="Predicted throughput of the ranking workload, MB/s.")
    iops: float = Field(description="Predicted requests per second of the ranking workload.")
    binding: str = Field(description="The term limiting that figure.")
    loss: Loss = Field(
        description="The odds of losing data (arrays and UREs in rebuilds, each named) at 1 % and "
        "4 % AFR, as `predict` shows them."
    )
    rebuild_hours: float = Field(description="Rebuild time of one member, hours.")
    pareto: bool = Field(
        description="Within the risk limit, no other layout has at least as much space (LVM's "
        "rounding aside: `rounding_bytes`) and speed and at most the risk, and beats it on one."
    )
    risky: bool = Field(False, description="Over one of the sweep's risk limits (`risk`): ranked last.")
    risk: Literal["", "rebuilds", "yearly"] = Field(
        "",
        description="Why it is risky: 'rebuilds' = the share of rebuilds that lose data to a URE (4 % AFR) is "
        "above max_rebuild_loss; 'yearly' = the yearly loss odds (4 % AFR) are above max_loss.",
    )
    extent_bytes: int = Field(0, description="The LV's extent size in bytes (0 without LVM).")
    cost: Cost | None = Field(None, description="Price, power and replacements of the layout (planners.cost).")


class Sweep(BaseModel):
    model_config = Frozen

    workload: str = Field(description="Workload the speed figure is for.")
    disks: int = Field(description="Disks swept, count.")
    rows: list[SweepRow] = Field(description="Layouts: the Pareto front first, then by usable bytes, the risky last.")
    skips: dict[str, int] = Field(
        default_factory=dict, description="Layouts left out, count by reason (the model's or the tools' refusal)."
    )
    max_loss: float = Field(
        MAX_LOSS_PER_YEAR, description="Yearly loss odds (4 % AFR) above which a layout is risky, 0-1."
    )
    max_rebuild_loss: float = Field(
        MAX_REBUILD_LOSS,
        description="Share of rebuilds losing data to a URE (4 % AFR) above which a layout is risky, 0-1.",
    )

    @computed_field(description="Layouts left out, count.")  # type: ignore[prop-decorator]
    @property
    def skipped(self) -> int:
        return sum(self.skips.values())

    @property
    def skipped_line(self) -> str:
        """One line: how many layouts were left out and why ('' for none)."""
        if not self.skipped:
            return ""
        why = "; ".join(f"{n} {reason}" for reason, n in sorted(self.skips.items(), key=lambda x: -x[1]))
        return f"{self.skipped} layouts skipped: {why}"


def layouts(plan: Plan, skips: dict[str, int] | None = None) -> list[tuple[str, list[MdGroup], Lvm]]:
    """(label, groups, lvm) for every layout of the plan's disks that the sweep considers; those the
    plan model cannot hold are counted in `skips` by reason instead."""
    n = sum(d.count for d in plan.disks)
    out = []
    # Frozen, so every layout of one kind shares one.
    lvms = {
        (several, mode): plan.lvm.model_copy(
            update={
                "enabled": several or plan.lvm.enabled,
                "mode": mode,
                "stripe_size": None,
                "lv_size": None,
                "volumes": [],
            }
        )
        for several in (False, True)
        for mode in ("linear", "striped")
    }
    for level, layout in LEVELS:
        scheme = md_scheme(level)
        for spares in (0, 1) if scheme.redundant else (0,):
            # Several RAID0 arrays under LVM are one wider RAID0 with more to go wrong: one is enough.
            most = 1 if scheme.striped_only else min(MAX_GROUPS, n // (MIN_MEMBERS[level] + spares))
            for g in range(1, most + 1):
                members = (n - g * spares) // g
                unused = n - g * (members + spares)
                copies = int(layout[1:]) if layout else 1
                if (
                    members < max(MIN_MEMBERS[level], copies)
                    or unused >= g
                    or (layout == f"n{copies}" and members % copies)
                ):
                    continue
                if members > MAX_MEMBERS:
                    if skips is not None:
                        skips[TOO_WIDE] = skips.get(TOO_WIDE, 0) + len(CHUNKS) * (2 if g > 1 else 1)
                    continue
                names, kept = _names(plan, g), _kept(plan.groups[0] if plan.groups else _NO_GROUP, level)
                for chunk in CHUNKS:
                    groups = [
                        MdGroup(
                            name=array, level=level, layout=layout, members=members, spares=spares, chunk=chunk, **kept
                        )
                        for array in names
                    ]
                    name = "RAID" + str(level) + (layout or "")
                    base = (f"{g}x " if g > 1 else "") + f"{name} {members}" + (f"+{spares}" if spares else "")
                    base += f" {format_size_compact(chunk)}"
                    modes = ("linear", "striped") if g > 1 else ("linear",)
                    for mode in modes:
                        out.append((base + (f" {mode}" if g > 1 else ""), groups, lvms[g > 1, mode]))
    out += _mirrors(plan, n, lvms)
    # No md: the filesystem on the one disk, or LVM straight over the disks (hardware RAID LUNs, mostly).
    if n == 1:
        out.append(
            (
                "no md",
                [],
                plan.lvm.model_copy(update={"mode": "linear", "stripe_size": None, "lv_size": None, "volumes": []}),
            )
        )
    else:
        out += [(f"no md {mode}", [], lvms[True, mode]) for mode in ("linear", "striped")]
    return out


def _mirrors(plan: Plan, n: int, lvms: dict[tuple[bool, str], Lvm]) -> list[tuple[str, list[MdGroup], Lvm]]:
    """RAID1 arrays of 2 to 4 copies, without or with a hot spare each, as many as the disks make
    (fewer disks left over than arrays, as for the other levels). RAID1 has no chunk."""
    out = []
    for copies in MIRROR_COPIES:
        for spares in (0, 1):
            g = n // (copies + spares)
            if not 1 <= g <= MAX_GROUPS or n - g * (copies + spares) >= g:
                continue
            kept = _kept(plan.groups[0] if plan.groups else _NO_GROUP, 1)
            groups = [
                MdGroup(name=array, level=1, members=copies, spares=spares, chunk=None, **kept)
                for array in _names(plan, g)
            ]
            base = (f"{g}x " if g > 1 else "") + f"RAID1 {copies}" + (f"+{spares}" if spares else "")
            for mode in ("linear", "striped") if g > 1 else ("linear",):
                out.append((base + (f" {mode}" if g > 1 else ""), groups, lvms[g > 1, mode]))
    return out


_NO_GROUP = MdGroup(members=1)  # md's defaults, for a plan without md
# btrfs data profiles the sweep tries across the raw disks, and the metadata each gets unless the plan
# names one: at least as many copies as the data has (mkfs.btrfs's raid1 otherwise), so metadata is
# never the weaker of the two.
BTRFS_DATA = ("single", "raid0", "raid1", "raid10", "raid1c3", "raid1c4", "raid5", "raid6")
BTRFS_METADATA = {"raid1c3": "raid1c3", "raid1c4": "raid1c4", "raid6": "raid1c3"}


def btrfs_layouts(plan: Plan) -> list[tuple[str, Filesystem]]:
    """(label, filesystem) for each btrfs profile the plan's disks allow, when the plan is btrfs: its
    own RAID across the raw disks, beside md and LVM under a one-device btrfs."""
    fs = plan.filesystem
    n = sum(d.count for d in plan.disks)
    if fs.type != "btrfs":
        return []
    out = []
    for data in BTRFS_DATA:
        if n < PROFILES[data].devs_min:
            continue
        meta = BTRFS_METADATA.get(data, "dup" if n == 1 else "raid1")
        if fs.metadata_profile and n >= PROFILES[fs.metadata_profile].devs_min:
            meta = fs.metadata_profile
        out.append((f"btrfs {data}/{meta}", fs.model_copy(update={"data_profile": data, "metadata_profile": meta})))
    return out


class _Kept(TypedDict):
    """MdGroup's fields of these names."""

    metadata: Literal["1.0", "1.1", "1.2"]
    bitmap: Literal["internal", "none"]
    bitmap_chunk: int | None


def _kept(first: MdGroup, level: int) -> _Kept:
    """The md settings a layout does not vary, from the plan's first group.

    md refuses a write-intent bitmap on RAID0; any other level keeps the plan's choice.
    """
    bitmap: Literal["internal", "none"] = first.bitmap if md_scheme(level).redundant else "none"
    return {
        "metadata": first.metadata,
        "bitmap": bitmap,
        "bitmap_chunk": first.bitmap_chunk if bitmap == "internal" else None,
    }


def _names(plan: Plan, count: int) -> list[str]:
    """The plan's own array names first, then md0, md1, ... that none of them already uses."""
    names = [g.name for g in plan.groups[:count]]
    i = 0
    while len(names) < count:
        if f"md{i}" not in names:
            names.append(f"md{i}")
        i += 1
    return names


def layout_plan(plan: Plan, groups: list[MdGroup], lvm: Lvm, filesystem: Filesystem | None = None) -> Plan:
    """`plan` with another layout: its disks, filesystem (or `filesystem`: btrfs's profiles across the raw
    disks), tools and hardware stay.

    Readahead and stripe_cache_size follow the layout (None: podplan's recommendation for
    it), since a figure tuned for one full stripe is wrong for another.
    """
    tuning = plan.tuning.model_copy(update={"stripe_cache_size": None, "readahead": None})
    fs = filesystem or plan.filesystem
    if fs.type == "btrfs" and (groups or lvm.enabled):  # on md or LVM btrfs has one device: its own defaults
        fs = fs.model_copy(update={"data_profile": None, "metadata_profile": None})
    return Plan(
        name=plan.name,
        disks=plan.disks,
        groups=groups,
        lvm=lvm,
        filesystem=fs,
        tuning=tuning,
        tools=plan.tools,
        hardware=plan.hardware,
    )


def sweep(
    plan: Plan,
    workload: Workload | None = None,
    *,
    limit: int | None = None,
    max_loss: float = MAX_LOSS_PER_YEAR,
    max_rebuild_loss: float = MAX_REBUILD_LOSS,
) -> Sweep:
    """Sweep the layouts of `plan`'s disks (its hardware, filesystem and tools kept)."""
    w = workload or PRESETS["seq-write"]
    rows: list[SweepRow] = []
    skips: dict[str, int] = {}
    shapes: dict[
        tuple[object, ...], dict[str, GroupReliability]
    ] = {}  # one hardware for every layout: share array shapes
    raw = plan.lvm.model_copy(
        update={"enabled": False, "mode": "linear", "stripe_size": None, "lv_size": None, "volumes": []}
    )
    candidates: list[tuple[str, list[MdGroup], Lvm, Filesystem | None]]
    candidates = [(label, groups, lvm, None) for label, groups, lvm in layouts(plan, skips)]
    candidates += [(label, [], raw, fs) for label, fs in btrfs_layouts(plan)]
    # A layout keeps the plan's disks and hardware, where every price and watt comes from.
    costed = priced(plan)
    last: tuple[tuple[object, ...], tuple[list[GroupReliability], Loss, tuple[float, float], float]] | None = None
    for label, groups, lvm, fs in candidates:
        try:
            p = layout_plan(plan, groups, lvm, fs)
            result = compute(p, findings=False)
        except PlanError as exc:
            # Without the array's name and the count, one reason holds for every layout it refuses.
            why = "refused: " + re.sub(r", got \S+$", "", re.sub(r"^[\w.-]+: ", "", exc.message))
            skips[why] = skips.get(why, 0) + 1
            continue
        ctx = build_ctx(p, result)
        mb_s, iops, binding = leading_ctx(ctx, result.volumes[0].alignment.top_io_opt_bytes, w)
        key = loss_key(ctx)
        if last is None or last[0] != key:  # LVM's linear and striped over the same arrays come one after the other
            last = (key, loss_ctx(ctx, shapes))
        groups_rel, loss, _, afr = last[1]
        risk = risk_of(loss, max_loss, max_rebuild_loss)
        rows.append(
            # Built without validation: every field is computed here, and `p` was validated when built.
            SweepRow.model_construct(
                label=label,
                plan=p,
                usable_bytes=result.usable_bytes,
                mb_s=mb_s,
                iops=iops,
                binding=binding,
                loss=loss,
                rebuild_hours=max(standing(g).rebuild_hours for g in groups_rel),
                pareto=False,
                risky=bool(risk),
                risk=risk,
                extent_bytes=result.volumes[0].lvm.extent_bytes if result.volumes[0].lvm else 0,
                cost=plan_cost(p, result.usable_bytes, afr, AFR_RANGE) if costed else None,
            )
        )
    # RAID0 always has the most space and speed; the front is drawn among the layouts worth building.
    safe = _mark_front([r for r in rows if not r.risky])
    rows = safe + [r for r in rows if r.risky]
    rows.sort(key=lambda r: (r.risky, not r.pareto, -r.usable_bytes, -r.mb_s, r.loss.per_year[1]))
    return Sweep(
        workload=w.name,
        disks=sum(d.count for d in plan.disks),
        rows=rows[:limit] if limit else rows,
        skips=skips,
        max_loss=max_loss,
        max_rebuild_loss=max_rebuild_loss,
    )


def risk_of(loss: Loss, max_loss: float, max_rebuild_loss: float) -> Literal["", "rebuilds", "yearly"]:
    """Which risk limit a layout is over ('' for none), at the 4 % end of disk failure rates; losing
    data in most rebuilds is named first, as the more particular reason."""
    if loss.ure_per_rebuild[1] > max_rebuild_loss:
        return "rebuilds"
    return "yearly" if loss.per_year[1] > max_loss else ""


def _mark_front(rows: Sequence[SweepRow]) -> list[SweepRow]:
    """Pareto front over (usable up, speed up, yearly loss at 4 % AFR down), LVM's rounding aside.

    First the exact front: sorted by usable bytes, a row can only be dominated by rows before
    it, and only by rows on the front (small, so this is fast for thousands of rows). Then a
    front row is dropped when another front row is as good within its rounding (`_dominates`):
    a row dominated that way by any row is dominated so by one on the exact front.
    """
    order = sorted(range(len(rows)), key=lambda i: (-rows[i].usable_bytes, -rows[i].mb_s, rows[i].loss.per_year[1]))
    front: list[int] = []
    for i in order:
        if not any(_dominates(rows[j], rows[i], exact=True) for j in front):
            front.append(i)
    kept = {i for i in front if not any(_dominates(rows[j], rows[i]) for j in front if j != i)}
    flags = [i in kept for i in range(len(rows))]
    return [r if r.pareto == f else r.model_copy(update={"pareto": f}) for r, f in zip(rows, flags, strict=True)]


def rounding_bytes(row: SweepRow) -> int:
    """Space a layout's LVM may leave unused for its own rounding: an extent per array (a striped LV
    is a whole number of extents on each stripe). Two layouts this close in space are a choice of
    speed and risk, not of space: linear LVM over six arrays keeps a few extents that striped
    rounds away, and is no better for it at a sixth of the speed."""
    lvm = row.plan.lvm
    pvs = len(row.plan.groups) or sum(d.count for d in row.plan.disks)  # without md, each disk is a PV
    return row.extent_bytes * pvs if lvm.enabled else 0


def _dominates(a: SweepRow, b: SweepRow, *, exact: bool = False) -> bool:
    """`a` is at least as good as `b` on space (within `b`'s rounding unless `exact`), speed and
    risk, and better on one of them."""
    slack = 0 if exact else rounding_bytes(b)
    ge = a.usable_bytes >= b.usable_bytes - slack and a.mb_s >= b.mb_s and a.loss.per_year[1] <= b.loss.per_year[1]
    gt = a.usable_bytes > b.usable_bytes or a.mb_s > b.mb_s or a.loss.per_year[1] < b.loss.per_year[1]
    return ge and gt
