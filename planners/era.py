"""A plan for an array built years ago: the tools it states against the rules its figures follow.

A plan may name the tools an old array was built with (planners.versions.ACCEPTED), so that it can
be written down, predicted and checked. Where a stated tool is older than the rules podplan follows
and has checked against the real tool, the figures that tool decides are computed with the oldest
rules modelled and said to be not witnessed, one finding per tool; the build script refuses such a
plan (its commands are written for the modelled tools). The kernel decides df's accounting: XFS's
is modelled from 6.1 (planners.fs.xfs.df), ext4's from 5.18, whose ext4_statfs counts the reserved
descriptor blocks as overhead (the fix reached some stable series; which ones is not known here).
"""

from __future__ import annotations

from planners.errors import PlanError
from planners.fs.xfs.df import MODELLED_KERNELS as XFS_DF_KERNELS
from planners.models import Plan
from planners.results import Finding
from planners.versions import MODELLED_TEXT, Version, format_version

EXT4_DF_KERNEL: Version = (5, 18)
_DECIDES = {
    "mdadm": ("md", "the data offset, the bitmap's room and so every array size"),
    "lvm2": ("lvm", "pe_start and the extents"),
    "e2fsprogs": ("filesystem", "mke2fs's inode tables, journal and so df's figures"),
    "xfsprogs": ("filesystem", "mkfs.xfs's AG and log layout and so df's figures"),
}


def df_kernel(plan: Plan) -> Version:
    """The kernel whose df accounting the filesystem's figures follow: the stated one, or the oldest
    modelled for that filesystem."""
    kernel = plan.tools.v("kernel")
    if plan.filesystem.type == "xfs":
        return max(kernel, XFS_DF_KERNELS[0])
    return kernel


def _uses(plan: Plan, tool: str) -> bool:
    fs = plan.filesystem.type
    return {
        "mdadm": bool(plan.groups),
        "lvm2": plan.lvm.enabled,
        "e2fsprogs": fs in ("ext3", "ext4"),
        "xfsprogs": fs == "xfs",
    }[tool]


def era_findings(plan: Plan) -> list[Finding]:
    """One warning per figure that follows rules newer than the tool the plan states."""
    out = []
    for tool in plan.tools.older():
        if tool == "kernel" or not _uses(plan, tool):
            continue
        layer, what = _DECIDES[tool]
        low = MODELLED_TEXT[tool][0]
        out.append(
            Finding(
                severity="warning",
                layer=layer,  # type: ignore[arg-type]
                field=f"tools.{tool}",
                message=f"{tool} {getattr(plan.tools, tool)} is older than the rules podplan follows and has checked "
                f"({tool} {low} on): {what} are {low}'s, not witnessed for {getattr(plan.tools, tool)}; "
                "read them from the built array (podplan check) before trusting them",
            )
        )
    kernel = plan.tools.v("kernel")
    fs = plan.filesystem.type
    oldest = XFS_DF_KERNELS[0] if fs == "xfs" else EXT4_DF_KERNEL if fs in ("ext3", "ext4") else None
    if oldest and kernel < oldest:
        out.append(
            Finding(
                severity="warning",
                layer="filesystem",
                field="tools.kernel",
                message=f"df's size and available follow Linux {format_version(oldest)}'s {fs} accounting; "
                f"Linux {plan.tools.kernel}'s is not witnessed",
            )
        )
    return out


def refuse_older_tools(plan: Plan) -> None:
    """The build script's commands are written for the modelled tools: a plan naming an older one
    (an array already built, stated for predict and check) gets no script."""
    for tool in plan.tools.older():
        if tool != "kernel" and _uses(plan, tool):
            low = MODELLED_TEXT[tool][0]
            raise PlanError(
                f"{tool} {getattr(plan.tools, tool)} is older than the {low} podplan's scripts are "
                f"written for: podplan predicts and checks this plan but writes no script for it",
                f"tools.{tool}",
            )
