"""The textbook loss formulas over one array's shape: which failures finish it off, its MTTDL, the
rate of rebuilds with no redundancy left, and the odds of an unreadable sector in one."""

from __future__ import annotations

from math import expm1, log1p, prod

from planners.perf.context import GroupCtx

HOURS_PER_YEAR = 8766.0
AFR_RANGE = (0.01, 0.04)  # field replacement rates run 2-4 %/year; datasheets imply under 1 %


def partners(g: GroupCtx) -> list[int]:
    """Disks whose failure, one after another, finishes the array off after a first failure."""
    if g.survives is not None:  # btrfs: chunks lie on every pair (trio...) of devices, so any will do
        return [g.n - j for j in range(1, g.survives + 1)]
    scheme = g.scheme
    if scheme.striped_only:
        return []
    if scheme.mirrors_every_member:
        return list(range(g.n - 1, 0, -1))
    if scheme.mirrored:
        c = g.copies
        # near copies on a multiple of `near` disks form fixed mirror sets; otherwise (odd counts,
        # far and offset layouts) each disk shares chunks with neighbours on both sides.
        spread = 1 if (g.far == 1 and g.n % g.near == 0) else 2
        return [min(g.n - j, (c - j) * spread) for j in range(1, c)]
    return [g.n - j for j in range(1, g.parity + 1)]


def mttdl_hours(g: GroupCtx, mttf: float, mttr: float) -> float:
    after = partners(g)
    return mttf ** (len(after) + 1) / (g.n * prod(after) * mttr ** len(after))


def exposed_per_hour(g: GroupCtx, lam: float, mttr: float) -> float:
    """Rate of rebuilds that run with no redundancy left: a first failure, then all but the last of
    the failures that would finish the array off, each within the repair window (so its product
    with that last failure's odds is the MTTDL rate)."""
    after = partners(g)
    if not after:
        return 0.0
    return g.n * lam * prod(p * lam * mttr for p in after[:-1])


def ure(g: GroupCtx, missing: int) -> tuple[float, float]:
    """(bits read, P(at least one URE)) rebuilding with `missing` members gone: parity reads every
    survivor whole, a mirror one copy."""
    sources = g.scheme.rebuild_reads(g.n, missing)
    bits = sources * g.component_bytes * 8.0
    lun = g.disk.lun
    # A LUN with redundancy of its own corrects an unreadable sector inside the controller.
    ber = 0.0 if lun is not None and lun.scheme.redundant else g.disk.ure_per_bit
    return bits, -expm1(bits * log1p(-ber))
