"""The tools a plan's figures rest on, as the plan, its scripts and `podplan -V` name them."""

from __future__ import annotations

from planners.models import Plan
from planners.versions import BTRFS_PROGS


def assumed_tools(plan: Plan) -> str:
    """The tools (and versions) this plan's figures rest on: only those its stack uses."""
    t = plan.tools
    parts = [f"mdadm {t.mdadm}"] if plan.groups else []
    if plan.lvm.enabled:
        parts.append(f"lvm2 {t.lvm2}")
    mkfs = {"xfs": f"xfsprogs {t.xfsprogs}", "btrfs": f"btrfs-progs {BTRFS_PROGS}"}
    parts.append(mkfs.get(plan.filesystem.type, f"e2fsprogs {t.e2fsprogs}"))
    return ", ".join([*parts, f"Linux {t.kernel}"])
