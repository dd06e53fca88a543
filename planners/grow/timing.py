"""How long a reshape (or a new array's initial sync) takes: the rebuild model's terms, adapted.

A reshape reads each stripe in the old layout and writes it in the new one, on the same
disks: every member both reads and writes its share, so the disk term is half the
inner-zone rate a rebuild gets (a rebuild only writes the replacement). md throttles a
reshape like a resync (speed_limit_max), and the links, HBAs and parity CPU limit it as
they limit a rebuild. The time is the component size over the smallest term, with no other
I/O; user I/O during the reshape lengthens it, and md's own progress counter is what
speed_limit_max caps.
"""

from __future__ import annotations

from planners.models import Plan
from planners.perf.context import build_ctx
from planners.reliability.loss import rebuild_limits
from planners.results import PlanResult

READ_AND_WRITE = 2  # each member reads the old layout and writes the new one


def sync_rate(plan: Plan, result: PlanResult, group: str, *, reshape: bool) -> tuple[float, str]:
    """(MB/s per member, the name of the term that limits it) for reshaping or syncing `group`."""
    ctx = build_ctx(plan, result)
    g = next(g for g in ctx.groups if g.name == group)
    limits = {r.name: r.mb_s for r in rebuild_limits(ctx, g)}
    if reshape and "inner zone" in limits:
        limits["inner zone (read + write)"] = limits.pop("inner zone") / READ_AND_WRITE
    name = min(limits, key=lambda k: limits[k])
    return limits[name], name
