"""Rehearse a plan: its build script, unmodified, on virtual disks under a real kernel.

The plan is scaled down (planners.built.rehearsal), its script generated as `podplan script`
would, and run inside the lab VM with `--run --yes`; a small wrapper then waits for the
md resync and the lab collects what mdadm, LVM, the filesystems and the block layer
report. Every figure the plan predicts is set beside what the VM reports.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from planners.built.rehearsal import choose_disk_size, scale_plan
from planners.compute import compute
from planners.findings.alignment import write_unit
from planners.fs.btrfs_geometry import BtrfsGeometry
from planners.models import Plan
from planners.results import PlanResult
from planners.script.build import build_script
from planners.versions import ToolVersions
from runners.lab import LabCollection, LabDisk, Scenario
from runners.lab.collect import BtrfsReport
from runners.probes.lvm import find_lv

# Runs the build script as shipped, then lets md finish its initial resync so that the
# checks see a settled array (and the resync shows up as its own stage).
_BUILD = 'set -u\nbash ./build.sh "$@"\nrc=$?\n'
_SETTLE = (
    'echo "== wait for the md resync"\n'
    'for md in /dev/md/*; do [ -e "$md" ] && mdadm --wait "$md" >/dev/null 2>&1; done\n'
)
WRAPPER = _BUILD + _SETTLE + "exit $rc\n"
# Without md (btrfs or LVM over the raw disks) there is no resync to wait for or to slow.
NO_MD = _BUILD + "exit $rc\n"
# No figure compared depends on the resync (sizes, offsets, geometry and tuning are set when the
# script ends): where only the figures matter, md resyncs at its slowest (speed_limit_min) so that
# the build does not share the guest's CPUs with it, and nothing waits for it. (The batch puts the
# limits back after each scenario.)
UNSETTLED = "cat /proc/sys/dev/raid/speed_limit_min >/proc/sys/dev/raid/speed_limit_max\n" + _BUILD + "exit $rc\n"


class Check(BaseModel):
    """One predicted figure beside what the VM reported."""

    model_config = ConfigDict(frozen=True)

    layer: str = Field(description="md, lvm, filesystem or tuning.")
    figure: str = Field(description="What is compared, e.g. 'md0 array size (bytes)'.")
    predicted: int | str = Field(description="podplan's figure.")
    actual: int | str | None = Field(description="What the VM reported; None if it reported nothing.")

    @property
    def witnessed(self) -> bool:
        """An exact figure always says something (a FailureCheck's band from 0 does not)."""
        return True

    @property
    def match(self) -> bool:
        return self.actual is not None and self.actual == self.predicted


def rehearsal_tools(kernel_release: str | None = None) -> ToolVersions:
    """The versions inside the lab VM: Debian 12's, with the kit's kernel."""
    tools = ToolVersions()
    if kernel_release:
        tools = tools.model_copy(update={"kernel": kernel_release.split("-")[0]})
    return tools


def prepare(
    plan: Plan,
    disk_size: int | None = None,
    name: str = "rehearse",
    tools: ToolVersions | None = None,
    settle: bool = True,
) -> tuple[Scenario, Plan, PlanResult]:
    """The lab scenario that builds the scaled plan, with the plan and its predictions.

    `settle=False` collects as soon as the script ends, with md's initial resync held to its slowest.
    """
    tools = tools or rehearsal_tools()
    size = disk_size or choose_disk_size(plan, tools)
    unscaled = scale_plan(plan, size, tools=tools)
    disks = tuple(LabDisk.like(d) for d in unscaled.disk_list())
    probe = Scenario(name=name, script="", disks=disks)
    scaled = scale_plan(plan, size, devices=list(probe.disk_paths()), tools=tools)
    result = compute(scaled)
    scenario = Scenario(
        name=name,
        script=(WRAPPER if settle else UNSETTLED) if result.groups else NO_MD,
        args=("--run", "--yes"),
        disks=disks,
        files={"build.sh": build_script(scaled, result)},
        timeout_s=600.0,
    )
    return scenario, scaled, result


def compare(plan: Plan, result: PlanResult, c: LabCollection) -> list[Check]:
    """Every figure the plan predicts for these disks, beside what the VM reported."""
    out: list[Check] = []

    def add(layer: str, figure: str, predicted: int | str, actual: int | str | None) -> None:
        out.append(Check(layer=layer, figure=figure, predicted=predicted, actual=actual))

    kernel_name: dict[str, str] = {}
    for pg, g in zip(plan.groups, result.groups, strict=True):
        arr = next(
            (
                a
                for a in c.md
                if a.export.get("MD_NAME", "").split(":")[-1] == g.name or a.export.get("MD_DEVNAME") == g.name
            ),
            None,
        )
        if arr is None:
            add("md", f"{g.name} exists", "yes", None)
            continue
        kernel_name[g.name] = arr.name
        md = g.md
        n = g.name
        add("md", f"{n} level", f"raid{pg.level}", arr.level)
        add("md", f"{n} members", pg.members, arr.raid_devices)
        add("md", f"{n} spares", pg.spares, arr.spares)
        add("md", f"{n} chunk (bytes)", md.chunk_bytes or 0, arr.chunk_bytes)
        add(
            "md",
            f"{n} data offset (sectors)",
            md.data_offset_sectors,
            arr.members[0].data_offset_sectors if arr.members else None,
        )
        add("md", f"{n} component (bytes)", md.kernel_component_bytes, arr.component_bytes)
        add("md", f"{n} array size (bytes)", md.array_bytes, arr.array_bytes)
        dev = c.block.get(arr.name)
        # Where md sets no minimum (RAID1) the queue keeps its members' largest, which the block
        # layer raises to each disk's physical sector.
        physical = max(d.physical_sector for d in plan.disks)
        add("md", f"{n} io_min (bytes)", md.io_min_bytes or physical, dev.io_min if dev else None)
        add("md", f"{n} io_opt (bytes)", md.io_opt_bytes, dev.io_opt if dev else None)

    for v in result.volumes:
        a = v.alignment
        if v.lvm is not None:
            lvm = v.lvm
            for pv in c.pvs:
                add("lvm", f"pe_start of {pv.name} (bytes)", lvm.pe_start_bytes, pv.pe_start_bytes)
            vg = next((x for x in c.vgs if x.name == plan.lvm.vg), None)
            add("lvm", "VG extents", lvm.vg_extents, vg.extent_count if vg else None)
            add("lvm", "extent size (bytes)", lvm.extent_bytes, vg.extent_bytes if vg else None)
            lv = find_lv(c.lvs, plan.lvm.vg, plan.lvm.lv)
            add("lvm", "LV extents", lvm.lv_extents, lv.extents if lv else None)
            add("lvm", "LV size (bytes)", lvm.lv_bytes, lv.lv_bytes if lv else None)
            add("lvm", "LV stripes", lvm.stripes, lv.stripes if lv else None)
            dm = next((b for b in c.block.values() if b.dm_name == f"{plan.lvm.vg}-{plan.lvm.lv}"), None)
            top = dm.name if dm else None
            add("tuning", "LV readahead (sectors)", a.readahead_sectors, dm.ra_sectors if dm else None)
            if lvm.stripes == 1:
                _compare_array_starts(add, result, v, lv, c, kernel_name)
            if plan.lvm.mode == "striped":
                add("lvm", "LV io_min (bytes)", a.top_io_min_bytes, dm.io_min if dm else None)
                add("lvm", "LV io_opt (bytes)", a.top_io_opt_bytes, dm.io_opt if dm else None)
        elif v.groups:
            top = kernel_name.get(v.groups[0])
            dev = c.block.get(top) if top else None
            add("tuning", f"{v.groups[0]} readahead (sectors)", a.readahead_sectors, dev.ra_sectors if dev else None)
        else:  # no md and no LVM: the filesystem is on the plan's one disk
            on_disk = next((f for f in c.filesystems if not f.device.startswith(("md", "dm-"))), None)
            top = on_disk.device if on_disk else None
            dev = c.block.get(top) if top else None
            if v.btrfs is None:  # btrfs keeps its own readahead: the build script sets none
                add("tuning", "disk readahead (sectors)", a.readahead_sectors, dev.ra_sectors if dev else None)
        for name in v.groups:
            arr_name = kernel_name.get(name)
            if a.stripe_cache_size and arr_name:
                add("tuning", f"{name} stripe_cache_size", a.stripe_cache_size, c.md_array(arr_name).stripe_cache_size)
        fs = next((f for f in c.filesystems if f.device == top), None)
        _compare_fs(add, v, fs)
        if v.btrfs is not None and fs is not None:
            # btrfs across raw disks names them in the plan's order; on md or LVM it has one device
            raw = [c.kernel_name(d.device) for d in plan.disk_list()]
            devices = raw if not v.groups and v.lvm is None else ((top,) if top else ())
            _compare_btrfs(add, v.btrfs, fs.btrfs, devices)
    return out


def _compare_btrfs(add: Callable[..., None], b: BtrfsGeometry, r: BtrfsReport | None, devices: Sequence[str]) -> None:
    """Each device's size and chunks as `btrfs filesystem show` reports them, and usage's Free (estimated)."""
    add("filesystem", "btrfs devices", len(b.device_bytes), len(r.devices) if r else None)
    rows = sorted(zip(devices, b.device_bytes, b.used_bytes, strict=False), key=lambda row: natural_key(row[0]))
    for name, size, used in rows:
        seen = r.devices.get(name) if r else None
        add("filesystem", f"btrfs size of {name} (bytes)", size, seen[0] if seen else None)
        add("filesystem", f"btrfs chunks on {name} (bytes)", used, seen[1] if seen else None)
    add("filesystem", "btrfs Free (estimated) (bytes)", b.free_estimated_bytes, r.free_estimated if r else None)


def natural_key(name: str) -> list[tuple[int, int, str]]:
    """Device names in the kernel's order: vdz before vdaa, loop2 before loop10."""
    return [(0, int(t), "") if t.isdigit() else (1, len(t), t) for t in re.split(r"(\d+)", name)]


def _compare_array_starts(
    add: Callable[..., None], result: PlanResult, v, lv, c: LabCollection, kernel_name: dict[str, str]
) -> None:
    """Where each array's first extent lands in the linear LV (`lvs --segments` seg_start), and how far
    that is past a full stripe (chunk on RAID0/10) of the array as the VM's kernel reports it."""
    if lv is not None and not lv.segment_table:
        return  # a report recorded without seg_start and seg_pe_ranges cannot say where the arrays start
    if not v.groups:
        return  # LVM straight on disks or LUNs: no md array to place (the PVs are the plan's disks)
    mds = {g.name: g.md for g in result.groups}
    for name, predicted in zip(v.groups, v.lvm.pv_lv_offset_bytes, strict=True):
        if predicted is None:
            continue
        kernel = kernel_name.get(name)
        paths = {f"/dev/md/{name}"} | ({f"/dev/{kernel}"} if kernel else set())
        actual = next((x for x in (lv.start_on(p) for p in paths) if x is not None), None) if lv else None
        add("lvm", f"{name} start in the LV (bytes)", predicted, actual)
        md = mds[name]
        dev = c.block.get(kernel) if kernel else None
        arr = c.md_array(kernel) if kernel and any(a.name == kernel for a in c.md) else None
        unit = write_unit(md.level, md.chunk_bytes, md.io_opt_bytes)
        seen = write_unit(md.level, arr.chunk_bytes, dev.io_opt) if arr and dev else None
        if unit:
            add(
                "lvm",
                f"{name} start past a full stripe (bytes)",
                predicted % unit,
                actual % seen if actual is not None and seen else None,
            )


def _compare_fs(add: Callable[..., None], v, fs) -> None:
    where = f" on {v.device}"
    if fs is None:
        add("filesystem", "filesystem" + where, "present", None)
        return
    if v.xfs is not None:
        x, r = v.xfs, fs.xfs
        for figure, mine, theirs in (
            ("XFS agcount", x.agcount, r.agcount if r else None),
            ("XFS agsize (blocks)", x.agsize_blocks, r.agsize_blocks if r else None),
            ("XFS data blocks", x.data_blocks, r.data_blocks if r else None),
            ("XFS sunit (blocks)", x.sunit_blocks, r.sunit_blocks if r else None),
            ("XFS swidth (blocks)", x.swidth_blocks, r.swidth_blocks if r else None),
            ("XFS log (blocks)", x.log_blocks, r.log_blocks if r else None),
        ):
            if figure != "XFS log (blocks)" or not x.log_device:  # an external log is the whole device
                add("filesystem", figure, mine, theirs)
    if v.ext4 is not None:
        e, h = v.ext4, fs.ext
        for figure, mine, theirs in (
            ("ext block count", e.block_count, h.block_count if h else None),
            ("ext inode count", e.inode_count, h.inode_count if h else None),
            ("ext stride (blocks)", e.stride, h.stride if h else None),
            ("ext stripe_width (blocks)", e.stripe_width, h.stripe_width if h else None),
            ("ext reserved blocks", e.reserved_blocks, h.reserved_blocks if h else None),
            ("ext journal (blocks)", e.journal_blocks, h.journal_blocks if h else None),
        ):
            add("filesystem", figure, mine, theirs)
    add("filesystem", "df size (bytes)", v.df_size_bytes, fs.df_size)
    add("filesystem", "df available (bytes)", v.df_available_bytes, fs.df_avail)
