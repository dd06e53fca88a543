"""Growth planning: from a built plan and a request (more disks, RAID5 -> RAID6, a new array) to
the grown layout, every step and command, and every figure after, as md, LVM, xfs_growfs and
resize2fs will leave them. Pure: the script text is in planners.script.grow."""

from planners.grow.infer import growth_between
from planners.grow.model import AlignmentChange, ArrayGrowth, GrowMode, GrowRequest, Growth, Step
from planners.grow.target import possible_modes, target_plan

__all__ = [
    "AlignmentChange",
    "ArrayGrowth",
    "GrowMode",
    "GrowRequest",
    "Growth",
    "Step",
    "growth_between",
    "possible_modes",
    "target_plan",
]
