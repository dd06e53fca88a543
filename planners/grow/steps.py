"""The ordered steps of a growth and the argv of every command in them.

The grow script runs exactly these argv lists; the CLI and TUI show them. A backup file, when
mdadm needs one, goes outside the array (under /root by default) and is named after the array.
"""

from __future__ import annotations

import shlex

from planners.grow.model import ArrayGrowth, Growth, Step
from planners.models import Plan
from planners.results import PlanResult

BACKUP_DIR = "/root"


def _cmd(argv: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)


def backup_path(a: ArrayGrowth) -> str:
    return f"{BACKUP_DIR}/podplan-grow-{a.name}.backup"


def add_argv(a: ArrayGrowth) -> list[str]:
    return ["mdadm", "--add", a.device, *a.added_devices]


def grow_argv(a: ArrayGrowth) -> list[str]:
    argv = ["mdadm", "--grow", a.device, f"--raid-devices={a.members_after}"]
    if a.level_after != a.level_before:
        argv.append(f"--level={a.level_after}")
    if a.backup_file:
        argv.append(f"--backup-file={backup_path(a)}")
    return argv


def create_argv(a: ArrayGrowth) -> list[str]:
    argv = ["mdadm", "--create", a.device, "--run", *a.create_options]
    if a.spares:
        argv.append(f"--spare-devices={a.spares}")
    return [*argv, f"--name={a.name}", *a.added_devices]


def wait_argv(a: ArrayGrowth) -> list[str]:
    return ["mdadm", "--wait", a.device]


def lvm_argvs(g: Growth) -> list[list[str]]:
    out = [["pvresize", dev] for dev in g.resized_pvs]
    for dev in g.new_pvs:
        out += [["pvcreate", *g.pvcreate_options, dev], ["vgextend", g.vg or "", dev]]
    if g.lvm:
        out.append(["lvextend", "--extents", "+100%FREE", f"{g.vg}/{g.lv}"])
    return out


def fs_argv(g: Growth) -> list[str]:
    return ["xfs_growfs", g.mount_point] if g.fs_type == "xfs" else ["resize2fs", g.volume_device]


def growth_steps(old: Plan, r_old: PlanResult, g: Growth) -> tuple[Step, ...]:
    steps = _checks(r_old, g)
    for a in g.arrays:
        steps += _array_steps(a)
    steps.append(
        Step(
            title="record the arrays in mdadm.conf",
            why="the member count changed: the boot must assemble the new shape",
            commands=tuple(_cmd(["mdadm", "--detail", "--brief", a.device]) for a in g.arrays),
        )
    )
    if g.lvm:
        why = (
            "pvresize first: LVM does not see a bigger md device until told"
            if g.resized_pvs
            else "the new array becomes a PV of the volume group, with the same data alignment"
        )
        steps.append(Step(title=f"grow the LV {g.vg}/{g.lv}", why=why, commands=tuple(_cmd(x) for x in lvm_argvs(g))))
    steps.append(
        Step(title=f"grow the {g.fs_type} filesystem on {g.mount_point}", why=g.fs_detail, commands=(_cmd(fs_argv(g)),))
    )
    fixes = [c for ch in g.alignment if ch.in_script for c in ch.commands]
    if fixes:
        steps.append(
            Step(
                title="follow the new full stripe",
                why="hints that can change online are changed",
                commands=tuple(fixes),
            )
        )
    steps.append(
        Step(
            title="show the new size",
            why="df -B1 against the predicted figures",
            commands=(_cmd(["df", "-B1", g.mount_point]),),
        )
    )
    return tuple(steps)


def _checks(r_old: PlanResult, g: Growth) -> list[Step]:
    """The read-only checks before anything changes: the system is the plan, the added disks are free."""
    return [
        Step(
            title="check that the running system is the plan",
            why="growing another array than the one planned could destroy it: level, members and sizes must match first",
            commands=tuple(_cmd(["mdadm", "--detail", "--export", x.device]) for x in r_old.groups)
            + ((_cmd(["lvs", "--units", "b", f"{g.vg}/{g.lv}"]),) if g.lvm else ())
            + (_cmd(["df", "-B1", g.mount_point]),),
        ),
        Step(
            title="check the added disks",
            why="refuse disks that are mounted, in use or carry a signature",
            commands=tuple(_cmd(["wipefs", "-n", d]) for a in g.arrays for d in a.added_devices),
        ),
    ]


def _array_steps(a: ArrayGrowth) -> list[Step]:
    """A new array is created; a grown one gets its disks added, is reshaped, and the reshape waited for."""
    out: list[Step] = []
    if a.new:
        out.append(
            Step(
                title=f"create {a.device}",
                why="a new array shaped like the others, for LVM to add",
                commands=(_cmd(create_argv(a)),),
            )
        )
        return out
    out.append(
        Step(
            title=f"add {len(a.added_devices)} disk(s) to {a.device}",
            why="mdadm grows an array onto disks that are already its spares",
            commands=(_cmd(add_argv(a)),),
        )
    )
    level = f" and RAID{a.level_before} -> RAID{a.level_after}" if a.level_after != a.level_before else ""
    out.append(
        Step(
            title=f"reshape {a.device}: {a.members_before} -> {a.members_after} members{level}",
            why=a.backup_reason,
            commands=(_cmd(grow_argv(a)),),
        )
    )
    out.append(
        Step(
            title=f"wait for the reshape (about {a.hours:.1f} h)",
            why="md makes the new size visible only once every stripe is rewritten",
            commands=(_cmd(wait_argv(a)),),
        )
    )
    return out
