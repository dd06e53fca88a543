"""Growth rehearsal: the old pod built by its script, data written, the grow script run unmodified.

Both plans are scaled down alike (the added disks keep their proportion to the old ones), the
added disks become the scenario's extra disks, and after the growth the lab's collection is set
beside every figure the growth predicts: each array's level, members and size, the LV, and the
filesystem's df size and available once the rehearsal's data is gone again.
"""

from __future__ import annotations

import shlex

from planners.built.rehearsal import choose_disk_size, scale_plan
from planners.compute import compute
from planners.errors import PlanError
from planners.grow import Growth, growth_between
from planners.models import Plan
from planners.script.build import build_script
from planners.script.grow import grow_script
from planners.versions import ToolVersions
from runners.lab.collect import FilesystemFound, LabCollection
from runners.lab.guest_files import guest_file
from runners.lab.rehearse import Check
from runners.lab.scenario import LabDisk, Scenario
from runners.probes.lvm import find_lv

DATA_MIB = 16


def prepare_growth(
    old: Plan, new: Plan, *, disk_size: int | None = None, tools: ToolVersions | None = None, name: str = "growth"
) -> tuple[Scenario, Plan, Plan, Growth]:
    """The scenario, both scaled plans and the growth; refuses (PlanError) before any boot."""
    growth_between(old, new)  # the full-size plans must make sense before anything is scaled
    size = disk_size or choose_disk_size(old, tools)
    old_max = max(d.size for d in old.disks)
    new_size = size * max(d.size for d in new.disks) // old_max
    scaled_new = scale_plan(new, new_size, tools=tools)
    scaled_old = scale_plan(old, size, tools=tools)
    n_old = len(scaled_old.disk_list())
    before = [d.size for d in scaled_old.disk_list()]
    if [d.size for d in scaled_new.disk_list()[:n_old]] != before:
        raise PlanError("the new plan's first disks are not the old plan's: growth keeps the disks it has", "disks")
    disks = tuple(LabDisk.like(d) for d in scaled_new.disk_list())
    paths = Scenario(name=name, script="", disks=disks).disk_paths()
    scaled_old = scale_plan(old, size, devices=list(paths[:n_old]), tools=tools)
    scaled_new = scale_plan(new, new_size, devices=list(paths), tools=tools)
    growth = growth_between(scaled_old, scaled_new)
    conf = f"mnt={shlex.quote(growth.mount_point)}\ndata_mib={DATA_MIB}\n"
    scenario = Scenario(
        name=name,
        script=guest_file("growth.sh").decode(),
        disks=disks,
        timeout_s=1200.0,
        files={
            "build.sh": build_script(scaled_old, compute(scaled_old)),
            "grow.sh": grow_script(scaled_old, growth),
            "growth.conf": conf,
        },
    )
    return scenario, scaled_old, scaled_new, growth


def records(outputs: dict[str, str], name: str = "growth.txt") -> dict[str, str]:
    out = {}
    for line in outputs.get(name, "").splitlines():
        key, _, value = line.partition("=")
        out[key] = value.strip()
    return out


def compare_growth(new: Plan, growth: Growth, c: LabCollection, outputs: dict[str, str]) -> list[Check]:
    """Every figure the growth predicts beside what the VM reported after it."""
    out: list[Check] = []

    def add(layer: str, figure: str, predicted: int | str, actual: int | str | None) -> None:
        out.append(Check(layer=layer, figure=figure, predicted=predicted, actual=actual))

    kernel_name: dict[str, str] = {}
    for a in growth.arrays:
        arr = next(
            (
                x
                for x in c.md
                if x.export.get("MD_NAME", "").split(":")[-1] == a.name or x.export.get("MD_DEVNAME") == a.name
            ),
            None,
        )
        if arr is None:
            add("md", f"{a.name} exists", "yes", None)
            continue
        kernel_name[a.name] = arr.name
        add("md", f"{a.name} level", f"raid{a.level_after}", arr.level)
        add("md", f"{a.name} members", a.members_after, arr.raid_devices)
        add("md", f"{a.name} array size (bytes)", a.array_bytes_after, arr.array_bytes)
    if growth.lvm:
        lv = find_lv(c.lvs, growth.vg or "", growth.lv or "")
        add("lvm", "LV size (bytes)", growth.lv_bytes_after or 0, lv.lv_bytes if lv else None)
    dev = growth.volume_device
    top = (
        next((b.name for b in c.block.values() if b.dm_name == f"{growth.vg}-{growth.lv}"), None)
        if growth.lvm
        else kernel_name.get(growth.arrays[0].name)
    )
    fs = next((f for f in c.filesystems if f.mountpoint == growth.mount_point), None)
    if fs is None:
        fs = next((f for f in c.filesystems if f.device == top), None)
    add("filesystem", f"df size (bytes) of {dev}", growth.df_size_bytes_after, fs.df_size if fs else None)
    add("filesystem", f"df available (bytes) of {dev}", growth.df_available_bytes_after, fs.df_avail if fs else None)
    out += alignment_checks(growth, c, fs, top)
    got = records(outputs) or records(outputs, "interrupt.txt")
    add("data", f"{DATA_MIB} MiB written before the growth read back intact", "yes", got.get("data_intact"))
    return out


def alignment_checks(growth: Growth, c: LabCollection, fs: FilesystemFound | None, top: str | None) -> list[Check]:
    """Each alignment the grow script claims to fix (ext3/ext4 stride and stripe width, readahead), as the
    VM found it after the growth."""
    out = []
    for change in (ch for ch in growth.alignment if ch.in_script):
        figure = f"{change.figure} after the growth"
        if change.layer == "filesystem":
            ext = fs.ext if fs else None
            got = f"stride={ext.stride},stripe_width={ext.stripe_width}" if ext else None
            out.append(Check(layer="filesystem", figure=figure, predicted=change.ideal, actual=got))
        elif change.layer == "tuning":
            blk = c.block.get(top) if top else None
            want = int(change.ideal)
            out.append(Check(layer="tuning", figure=figure, predicted=want, actual=blk.ra_sectors if blk else None))
    return out


def prepare_interrupt(
    old: Plan, new: Plan, *, disk_bps: int, tools: ToolVersions | None = None, name: str = "interrupt"
) -> tuple[Scenario, Scenario, Plan, Growth]:
    """Two boots on the same disks: the growth cut off by a power cut mid-reshape, then the
    array assembled again, the data checked and the same grow script run to the end.

    The disks are throttled to `disk_bps` so the reshape lasts long enough to be cut.
    """
    scenario, _, scaled_new, growth = prepare_growth(old, new, tools=tools, name=name)
    if growth.lvm or growth.mode != "reshape":
        raise PlanError("the interrupted-reshape rehearsal takes one md array without LVM", "lvm")
    disks = tuple(d.model_copy(update={"bps_total": disk_bps}) for d in scenario.disks)
    a = growth.arrays[0]
    q = shlex.quote
    conf = (
        f"array={q(a.device)}\ndevices=({' '.join(q(d.device) for d in scaled_new.disk_list())})\n"
        f"mnt={q(growth.mount_point)}\nfs_device={q(growth.volume_device)}\ndata_mib={DATA_MIB}\n"
    )
    files = {**{k: v for k, v in scenario.files.items() if k != "growth.conf"}, "interrupt.conf": conf}
    script = guest_file("interrupt.sh").decode()
    crash = scenario.model_copy(
        update={"script": script, "args": ("crash",), "disks": disks, "files": files, "collect": False}
    )
    resume = scenario.model_copy(update={"script": script, "disks": disks, "files": files})
    return crash, resume, scaled_new, growth
