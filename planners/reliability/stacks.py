"""What a member is when it is not a plain disk, for the loss odds: a hardware RAID LUN (its own
array of disks, rebuilt by the controller) or a btrfs device (chunks of the data and metadata
profiles on every device), and how each is named."""

from __future__ import annotations

from functools import lru_cache

from planners.fs.btrfs import PROFILES
from planners.perf.context import GroupCtx, PerfCtx
from planners.reliability.formulas import exposed_per_hour, mttdl_hours, partners, ure


def lun_ctx(g: GroupCtx) -> GroupCtx | None:
    """The controller's array inside each member of `g` when its members are LUNs, as md would see it."""
    # Asked for every array at every failure rate: a plain disk's answer without hashing the array.
    return None if g.disk.lun is None else _lun_ctx(g)


@lru_cache(maxsize=256)
def _lun_ctx(g: GroupCtx) -> GroupCtx:
    lun = g.disk.lun
    assert lun is not None
    scheme = lun.scheme  # a controller's RAID1 of more than two disks is pairs: RAID10
    return GroupCtx(
        name="LUN",
        level=scheme.level,
        n=lun.disks,
        parity=scheme.parity,
        data=float(lun.data_disks),
        near=scheme.copies,
        far=1,
        chunk=lun.strip,
        disk=g.disk.model_copy(update={"lun": None}),  # its afr and ure_per_bit are its disks'
        members=tuple(range(lun.disks)),
        spares=0,
        array_bytes=g.component_bytes,
        component_bytes=g.component_bytes // lun.data_disks,
        cache_entries=0,
    )


def lun_rates(inner: GroupCtx, hours: float, lam: float) -> tuple[float, float, float]:
    """One LUN, per hour, its disks failing at `lam` per hour and rebuilt in `hours`: lost whole, data
    lost to a URE read while its rebuild has no redundancy left, and disk rebuilds."""
    if inner.scheme.striped_only:
        return inner.n * lam, 0.0, 0.0
    exposed = exposed_per_hour(inner, lam, hours) * ure(inner, len(partners(inner)))[1]
    return 1 / mttdl_hours(inner, 1 / lam, hours), exposed, inner.n * lam


def member_rate(g: GroupCtx, lam: float) -> float:
    """Failures per hour of one member of `g` whose disks fail at `lam` per hour: a LUN fails when
    its own RAID loses it."""
    inner = lun_ctx(g)
    if inner is None or g.disk.lun is None:
        return lam
    return lun_rates(inner, g.disk.lun.rebuild_hours, lam)[0]


def kind(ctx: PerfCtx, g: GroupCtx) -> str:
    if ctx.btrfs:
        data, meta = ctx.btrfs
        return f"btrfs {data}" + (f"/{meta}" if meta != data else "") + f" of {g.n}"
    if g.n == 1 and not g.level:  # no md: the disk or LUN alone
        return f"RAID{g.disk.lun.level} LUN" if g.disk.lun else "disk"
    disks = f"{g.n}+{g.spares}" if g.spares else str(g.n)
    return f"RAID{g.level} {disks}"


def survives_note(ctx: PerfCtx, g: GroupCtx) -> str:
    """Data and metadata apart (btrfs), or the disks inside each LUN."""
    if ctx.btrfs:
        data, meta = ctx.btrfs
        d, m = (PROFILES[x].tolerated for x in (data, meta))
        return f"metadata {meta} survives {m} disk{'s' * (m != 1)}, data {data} survives {d}"
    lun = g.disk.lun
    if lun is not None:
        inner = lun_ctx(g)
        t = len(partners(inner)) if inner else 0
        if not t:
            return f"each RAID{lun.level} LUN loses its data with any one of its {lun.disks} disks: it has no rebuild"
        return f"each RAID{lun.level} LUN survives {t} of its {lun.disks} disks failing"
    return ""


def stack_assumptions(ctx: PerfCtx) -> list[str]:
    out = []
    if ctx.btrfs:
        out.append(
            "btrfs spreads its chunks over every device, so any failures beyond what the weaker of its data and "
            "metadata profiles survives lose data; btrfs replace rebuilds a whole device (no md speed limit)."
        )
    luns = {g.disk.lun for g in ctx.groups if g.disk.lun is not None}
    for lun in luns:
        if lun.scheme.striped_only:
            out.append(
                f"Each LUN is a RAID0 of {lun.disks} disks: any one of them failing loses the LUN's data; there is no rebuild."
            )
            continue
        out.append(
            f"Each LUN is a RAID{lun.level} of {lun.disks} disks that the controller rebuilds in "
            f"{lun.rebuild_hours:g} h; a LUN is lost when its own RAID is, and corrects its disks' unreadable "
            "sectors itself when it has redundancy."
        )
    return out
