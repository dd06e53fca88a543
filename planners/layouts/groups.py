"""How a plan's disks are shared into md groups of equal width: one rule for the command line and the form.

Every disk the plan lists is used: a disk left over from an uneven split would sit in the pod
unused and unsaid, and a spare for one array only makes the arrays unequal (the other arrays get
no spare, and a spare shared between arrays needs mdadm's spare-group, which podplan's script
does not write). So an uneven split is refused, naming the counts that do split the disks.
"""

from __future__ import annotations

from planners.errors import PlanError

MAX_GROUPS = 64


def members_per_group(total: int, groups: int, spares: int) -> int:
    """Active members of each of `groups` equal md groups made of `total` disks, `spares` hot spares
    each. PlanError (field "groups" or "members") when the disks do not split evenly or leave no member."""
    if groups < 1:
        raise PlanError("md groups must be at least 1", "groups")
    if groups > MAX_GROUPS:
        raise PlanError(f"at most {MAX_GROUPS} md groups", "groups")
    per_group, extra = divmod(total, groups)
    if extra:
        fits = [n for n in range(1, min(total, MAX_GROUPS) + 1) if total % n == 0]
        raise PlanError(
            f"{total} disks do not split into {groups} equal groups ({groups} x {per_group} leaves "
            f"{extra} disk{'s' if extra > 1 else ''} unused): {_listed(fits)} groups split them",
            "groups",
        )
    if per_group - spares < 1:
        raise PlanError(f"{total} disks in {groups} groups leave no members after {spares} spares each", "members")
    return per_group - spares


def _listed(counts: list[int]) -> str:
    *rest, last = [str(n) for n in counts]
    return f"{', '.join(rest)} or {last}" if rest else last
