"""Each LV of a plan as a one-LV plan: how a plan of several LVs ([[lvm.volumes]]) is computed and
scripted, and refused where podplan handles one LV only."""

from __future__ import annotations

from pydantic import ValidationError

from planners.errors import PlanError
from planners.models import Filesystem, Plan


def volume_plans(plan: Plan) -> list[Plan]:
    """The plan of each LV: the plan itself for one LV; for [[lvm.volumes]] the plan with that LV
    (name and size) and its filesystem (the plan's [filesystem] with the LV's type, mount point and
    label), so each volume is computed and scripted as a one-LV plan is."""
    lvm, fs = plan.lvm, plan.filesystem
    if not lvm.enabled or not lvm.volumes:
        return [plan]
    for field in ("journal_device", "log_device"):
        if getattr(fs, field) and len(lvm.volumes) > 1:
            raise PlanError(
                f"one {field.replace('_', ' ')} cannot serve the {len(lvm.volumes)} filesystems of lvm.volumes",
                f"filesystem.{field}",
            )
    out = []
    for v in lvm.volumes:
        data = fs.model_dump(exclude_none=True)
        data.update(type=v.fs or fs.type, mount_point=v.mount_point or f"{fs.mount_point}/{v.name}", label=v.label)
        try:
            own = Filesystem.model_validate(data)
        except (ValidationError, PlanError) as exc:
            why = exc.message if isinstance(exc, PlanError) else exc.errors()[0]["msg"].removeprefix("Value error, ")
            raise PlanError(f"LV {v.name}: {why}", "lvm.volumes") from None
        one = lvm.model_copy(update={"lv": v.name, "lv_size": v.size, "volumes": []})
        out.append(plan.model_copy(update={"filesystem": own, "lvm": one}))
    return out


def one_volume_only(plan: Plan, what: str) -> None:
    """Refuse, in one line, what podplan does for one LV only when the plan makes several."""
    if plan.lvm.enabled and len(plan.lvm.volumes) > 1:
        raise PlanError(
            f"{what} takes a plan of one LV, and this one makes {len(plan.lvm.volumes)} (lvm.volumes): not planned yet",
            "lvm.volumes",
        )


def plan_of_volume(plan: Plan, device: str) -> Plan:
    """The plan that made the volume on `device` (its LV's, with [[lvm.volumes]]; else the plan)."""
    if plan.lvm.enabled and plan.lvm.volumes:
        for sub in volume_plans(plan):
            if device == f"/dev/{plan.lvm.vg}/{sub.lvm.lv}":
                return sub
    return plan
