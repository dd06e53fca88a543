"""Failing members on purpose: which plans survive it, which disks go, what the model expects.

A failure rehearsal fails N members of one array while data is being written, measures the
degraded array, lets hot spares or replacements rebuild it, and checks the data. Everything
here is decided before the VM boots, so a plan that cannot survive N failures is refused
with the reason instead of being destroyed in the lab.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from planners.compute import compute
from planners.errors import PlanError
from planners.hardware.disks import DiskPerf
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Lvm, MdGroup, Plan
from planners.perf.predict import predict
from planners.perf.workloads import Workload, for_plan, preset
from planners.reliability.loss import reliability


class FailurePlan(BaseModel):
    """Which array loses which members, and what takes their place."""

    model_config = ConfigDict(frozen=True)

    group: str = Field(description="The md array whose members fail.")
    level: int = Field(description="Its RAID level.")
    fail: int = Field(description="Members failed, count.")
    failed: tuple[int, ...] = Field(description="Positions in the plan's disk list of the members failed.")
    spares: int = Field(description="Hot spares that take over, count.")
    replacements: int = Field(description="New disks added by hand after the failure, count.")
    tolerates: int = Field(description="Failed members the array survives whichever they are, count.")


def tolerance(g: MdGroup) -> int:
    """Failed members an array outlives whichever they are."""
    return g.scheme.failures_tolerated(g.members, g.scheme.copies_in(g.layout))


def failure_plan(plan: Plan, fail: int, group: str | None = None) -> FailurePlan:
    """The members to fail (the array's first ones) or the reason the plan cannot take it."""
    if fail < 1:
        raise PlanError(f"--fail {fail}: fail at least one member", "fail")
    if not plan.groups:
        what = "btrfs's own RAID" if plan.filesystem.type == "btrfs" else "the disks or LUNs alone"
        raise PlanError(f"--fail fails md members, and this plan has no md array ({what} keeps its data)", "fail")
    names = [g.name for g in plan.groups]
    if group is not None and group not in names:
        raise PlanError(f"no md array named {group!r} in the plan (it has {', '.join(names)})", "group")
    pos = 0
    for g in plan.groups:
        if group in (None, g.name):
            break
        pos += g.disks
    can = tolerance(g)
    if fail > can:
        what = (
            "RAID0 has no redundancy: its first failed member loses the array"
            if g.scheme.striped_only
            else f"RAID{g.level} ({g.layout or 'default layout'}) of {g.members} survives {can} failed "
            f"member{'s' if can != 1 else ''} for certain; {fail} would lose the array and its data"
        )
        raise PlanError(f"{g.name}: {what}", "fail")
    spares = min(g.spares, fail)
    return FailurePlan(
        group=g.name,
        level=g.level,
        fail=fail,
        failed=tuple(range(pos, pos + fail)),
        spares=spares,
        replacements=fail - spares,
        tolerates=can,
    )


def array_plan(plan: Plan, name: str) -> Plan:
    """One array of the plan on its own, read raw: what a rehearsal measures on /dev/md/NAME."""
    for g, members, spares in plan.group_disks():
        if g.name == name:
            disks = members + spares
            size = min(d.size for d in disks)
            first = disks[0]
            ds = DiskSet(
                count=len(disks),
                size=size,
                logical_sector=first.logical_sector,
                physical_sector=first.physical_sector,
                rotational=first.rotational,
                model=first.model,
            )
            return plan.model_copy(update={"groups": [g], "disks": [ds], "lvm": Lvm(enabled=False)})
    raise PlanError(f"no md array named {name!r} in the plan", "group")


class FailurePrediction(BaseModel):
    """The model's figures for one failure rehearsal (MB/s are 10^6 bytes/s)."""

    model_config = ConfigDict(frozen=True)

    workload: str = Field(description="The foreground workload measured in each state.")
    normal_mb_s: float = Field(description="Foreground throughput with every member present.")
    degraded_mb_s: float = Field(description="Foreground throughput with the failed members gone, no rebuild.")
    degraded_binding: str = Field(description="What limits the degraded figure.")
    rebuild_mb_s: float = Field(description="Rebuild rate per member with no user I/O.")
    rebuild_binding: str = Field(description="What limits the rebuild rate.")
    rebuild_s: float = Field(description="Rebuild time with no user I/O, seconds.")
    foreground_mb_s: float = Field(description="Foreground throughput while a rebuild runs (md at speed_limit_min).")
    loaded_rebuild_s: float = Field(description="Rebuild time when the foreground runs for its first seconds, seconds.")


def lab_hardware(plan: Plan) -> Hardware:
    """The lab's virtual disks: no platter (skipping a chunk is free), one request at a time,
    direct attachment; md's knobs stay the plan's."""
    hw = plan.hardware or Hardware()
    return Hardware.model_validate({"disk": {"disk_class": "ssd-sata", "parallelism": 1}, "md": hw.md.model_dump()})


def failure_workload(plan: Plan, fp: FailurePlan, workload: str = "seq-read") -> Workload:
    """The foreground workload, shaped for the failing array as `podplan validate` would run it."""
    one = array_plan(plan, fp.group)
    stripe = compute(one).volumes[0].alignment.top_io_opt_bytes
    return for_plan(preset(workload), stripe, disks=one.groups[0].members)


def predict_failure(
    plan: Plan, fp: FailurePlan, disk: DiskPerf, *, workload: str = "seq-read", foreground_s: float = 0.0
) -> FailurePrediction:
    """What the array alone should do on disks measured as `disk`, in each state of the rehearsal.

    `foreground_s` is how long the foreground workload runs at the start of the loaded rebuild:
    md holds the rebuild at speed_limit_min meanwhile, then it runs at full rate.
    """
    hw = lab_hardware(plan)
    one = array_plan(plan, fp.group).model_copy(update={"hardware": hw})
    result = compute(one)
    w = failure_workload(plan, fp, workload)
    (normal,) = predict(one, result, [w], disk_override=disk)
    (degraded,) = predict(one, result, [w], disk_override=disk, mode="degraded", missing=fp.fail)
    # The loaded rebuild re-adds one member; the rest of the array is whole again by then.
    (loaded,) = predict(one, result, [w], disk_override=disk, mode="rebuild", missing=1)
    rel = reliability(one, result, disk_override=disk).groups[0]
    component = result.groups[0].md.kernel_component_bytes
    rate = rel.rebuild_mb_s * 1e6
    floor = min(rate, hw.md.speed_limit_min_kib_s * 1024)
    if component <= floor * foreground_s:
        loaded_s = component / floor
    else:
        loaded_s = foreground_s + (component - floor * foreground_s) / rate
    return FailurePrediction(
        workload=w.name,
        normal_mb_s=normal.mb_s,
        degraded_mb_s=degraded.mb_s,
        degraded_binding=degraded.binding,
        rebuild_mb_s=rel.rebuild_mb_s,
        rebuild_binding=rel.rebuild_binding,
        rebuild_s=component / rate,
        foreground_mb_s=loaded.mb_s,
        loaded_rebuild_s=loaded_s,
    )
