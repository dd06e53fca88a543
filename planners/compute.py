"""From a Plan to a PlanResult: md, then LVM, then the filesystem, then the waterfall.

Each layer's arithmetic lives in its own module (md, lvm, xfs, ext4); this module only
wires them: what each layer sees of the one below, which stripe the filesystem is told
about, and how the bytes lost at each step add up.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from planners.era import df_kernel, era_findings
from planners.errors import PlanError
from planners.findings import alignment as al
from planners.findings.direct import (
    Under,
    btrfs_findings,
    direct_findings,
    direct_unders,
    journal_findings,
    placeholder,
)
from planners.findings.fs import fs_findings, mount_findings
from planners.fs.btrfs_geometry import BtrfsGeometry, btrfs_geometry
from planners.fs.ext4.df import ext4_df
from planners.fs.ext4.geometry import Ext4Geometry, ext4_geometry
from planners.fs.xfs.geometry import XfsGeometry, xfs_df, xfs_geometry
from planners.lvm.geometry import LvmGeometry, aligned_extent, lvm_volume, pe_start_bytes
from planners.lvm.volumes import volume_plans
from planners.md.geometry import md_geometry
from planners.models import Disk, MdGroup, Plan
from planners.results import AlignmentChain, CapacityStep, Finding, GroupResult, PlanResult, VolumeResult
from planners.units import is_power_of_two
from planners.versions import Version
from planners.waterfall import fits, lvm_alignment_bytes, vg_free, waterfall

DEFAULT_LV_STRIPE = 64 * 1024  # lvcreate -I default, when the md arrays offer nothing better
PAGE_BYTES = 4096  # lvcreate refuses a stripe below the page size


def default_lv_stripe(chunk: int | None, full_stripe: int, extent: int) -> int:
    """The stripe size a striped LV gets when the plan names none (the script passes it to lvcreate).

    The md full stripe, so each LVM stripe is whole md stripes and parity is written without a
    read; lvcreate takes only a power of two no larger than an extent, so failing that the md
    chunk (a power of two), and lvcreate's own 64 KiB when neither fits.
    """
    for size in (full_stripe, chunk):
        if size and is_power_of_two(size) and PAGE_BYTES <= size <= extent:
            return size
    return DEFAULT_LV_STRIPE


def compute(plan: Plan, *, findings: bool = True) -> PlanResult:
    """Compute every figure of a plan. Raises PlanError for plans the tools would refuse.

    `findings=False` leaves the findings and the capacity waterfall empty, the figures the same: a
    sweep ranks hundreds of layouts by their figures and shows neither (none of them refuses a plan).
    """
    tools = plan.tools
    mdadm = tools.rules("mdadm")
    groups = [_group(g, tuple(members), tuple(spares), mdadm) for g, members, spares in plan.group_disks()]
    unders = [_md_under(g) for g in groups] if groups else direct_unders(plan)

    subs = volume_plans(plan)
    if plan.lvm.enabled:
        volumes = _lvm_volumes(plan, subs, groups, unders)
    elif not groups and plan.filesystem.type == "btrfs":  # btrfs's own RAID across the disks
        volumes = [
            _volume(
                plan, [], unders, unders[0].device or placeholder(1), plan.filesystem.mount_point, plan.filesystem.label
            )
        ]
    else:
        for field in ("journal_device", "log_device"):
            if getattr(plan.filesystem, field) and len(unders) > 1:
                raise PlanError(
                    f"one {field.replace('_', ' ')} cannot serve the {len(unders)} filesystems of this plan (one per "
                    "md array): enable LVM to make one filesystem",
                    f"filesystem.{field}",
                )
        volumes = [
            _volume(
                plan,
                groups[i : i + 1],
                [u],
                groups[i].device if groups else u.device or placeholder(i + 1),
                plan.filesystem.mount_point if len(unders) == 1 else f"{plan.filesystem.mount_point}/{u.name}",
                plan.filesystem.volume_label(i, len(unders)),
            )
            for i, u in enumerate(unders)
        ]

    raw = sum(d.size * d.count for d in plan.disks)
    spare = sum(g.spare_raw_bytes for g in groups)
    unassigned = sum(d.size for d in plan.unassigned_disks())
    array = sum(u.size for u in unders)
    df_size = sum(v.df_size_bytes for v in volumes)
    usable = sum(fits(v) for v in volumes)
    return PlanResult(
        plan_name=plan.name,
        tools=tools,
        disk_count=sum(d.count for d in plan.disks),
        raw_bytes=raw,
        spare_bytes=spare,
        unassigned_bytes=unassigned,
        array_bytes=array,
        df_size_bytes=df_size,
        usable_bytes=usable,
        efficiency=usable / raw if raw else 0.0,
        groups=groups,
        volumes=volumes,
        capacity=_capacity(plan, groups, unders, volumes, (raw, unassigned, spare, array)) if findings else [],
        findings=_findings(plan, subs, groups, unders, volumes) if findings else [],
    )


def _capacity(
    plan: Plan,
    groups: list[GroupResult],
    unders: list[Under],
    volumes: list[VolumeResult],
    totals: tuple[int, int, int, int],
) -> list[CapacityStep]:
    """The waterfall from `totals` (raw, unassigned, spare and array bytes) down to what df shows."""
    raw, unassigned, spare, array = totals
    # With LVM there is one volume, and its PVs are the devices under it, in order.
    aligned = sum(  # the PVs' tails, once: every LV shares the VG
        lvm_alignment_bytes(v, [al.write_unit(u.level, u.chunk, u.io_opt) for u in unders])
        for v in volumes[:1]
        if v.lvm
    )
    return waterfall(raw, unassigned, spare, groups, array, aligned, volumes, vg_free(plan, volumes))


def _findings(
    plan: Plan, subs: list[Plan], groups: list[GroupResult], unders: list[Under], volumes: list[VolumeResult]
) -> list[Finding]:
    """Every finding of the computed plan: alignment, each volume's filesystem and mount, the layers under it."""
    arrays = [(g.name, g.md.io_min_bytes, g.md.io_opt_bytes, g.md.chunk_bytes, g.md.level) for g in groups]
    own = (
        fs_findings(plan, volumes)
        if len(subs) == 1
        else [f for s, v in zip(subs, volumes, strict=True) for f in fs_findings(s, [v])]
    )
    out = al.check_plan(subs[0], arrays, volumes[0]) + own + mount_findings(volumes)
    if not groups:
        out += direct_findings(plan, unders, volumes[0])
    return out + journal_findings(plan) + [f for v in volumes for f in btrfs_findings(v)] + era_findings(plan)


def _lvm_volumes(plan: Plan, subs: list[Plan], groups: list[GroupResult], unders: list[Under]) -> list[VolumeResult]:
    """The LV of each volume plan, one after another on the VG: each is allocated from what the ones
    before it leave."""
    volumes: list[VolumeResult] = []
    used = [0] * len(unders)
    for sub in subs:
        device = f"/dev/{plan.lvm.vg}/{sub.lvm.lv}"
        v = _volume(sub, groups, unders, device, sub.filesystem.mount_point, sub.filesystem.label, tuple(used))
        assert v.lvm is not None
        used = [a + b for a, b in zip(used, v.lvm.lv_pv_extents, strict=True)]
        volumes.append(v)
    return volumes


def _md_under(g: GroupResult) -> Under:
    return Under(
        g.name, g.device, g.md.array_bytes, g.md.io_min_bytes, g.md.io_opt_bytes, g.md.chunk_bytes, g.md.level, "md"
    )


# A sweep computes the same array on the same disks for many layouts (each group of a layout, each
# LVM mode); the group, its disks and the mdadm version are all it depends on, and all are frozen.
# Plans computed alike share the one GroupResult, which, like every result, no one changes.
@lru_cache(maxsize=1024)
def _group(g: MdGroup, members: tuple[Disk, ...], spares: tuple[Disk, ...], mdadm: Version) -> GroupResult:
    try:
        md = md_geometry(
            [d.size for d in members],
            level=g.level,
            layout=g.layout,
            chunk_bytes=g.effective_chunk,
            metadata=g.metadata,
            bitmap=g.bitmap,
            bitmap_chunk_bytes=g.bitmap_chunk,
            mdadm=mdadm,
        )
    except PlanError as exc:
        raise PlanError(f"{g.name}: {exc.message}", exc.field or "groups") from None
    if spares and min(d.size for d in spares) < min(d.size for d in members):
        small = min(d.size for d in spares)
        if small - md.data_offset_bytes < md.component_bytes:
            raise PlanError(f"{g.name}: a spare of {small} bytes is too small to replace a member", "disks")
    return GroupResult(
        name=g.name,
        device=g.device,
        member_devices=[d.device for d in members],
        spare_devices=[d.device for d in spares],
        member_raw_bytes=sum(d.size for d in members),
        spare_raw_bytes=sum(d.size for d in spares),
        md=md,
    )


# A sweep computes many layouts whose arrays come out the same size (RAID10 n2 and f2, ...) under the
# same LVM: each volume group and filesystem is worked out once. Both are frozen, as every result.
_lvm_volume = lru_cache(maxsize=512)(lvm_volume)


@lru_cache(maxsize=512)
def _xfs(
    data: tuple[int, int, int, int, int, bool, str | None], xfsprogs: Version, kernel: Version
) -> tuple[XfsGeometry, tuple[int, int]]:
    """mkfs.xfs's geometry of (size, su, sw, block size, sector size, rotational, log device), and df's
    (size, available) of it."""
    size, su, sw, block, sector, rotational, log_device = data
    xfs = xfs_geometry(
        size,
        su_bytes=su,
        sw=sw,
        block_size=block,
        sector_size=sector,
        rotational=rotational,
        xfsprogs=xfsprogs,
        log_device=log_device,
    )
    return xfs, xfs_df(xfs, kernel=kernel)


class _Lvm(NamedTuple):
    """What LVM makes of the arrays (or LUNs) under it, and the device the filesystem is made on."""

    lvg: LvmGeometry | None
    data_alignment: int | None  # bytes given to pvcreate --dataalignment
    extent: int | None  # bytes
    lv_stripes: int | None
    lv_stripe: int | None  # bytes, a striped LV's stripe size
    size: int  # bytes of the device under the filesystem
    top_min: int  # its io_min, bytes
    top_opt: int  # its io_opt, bytes


class _Fs(NamedTuple):
    """The filesystem made on the top device, and the stripe it was told."""

    size: int  # bytes of the device(s) under it: btrfs over raw disks spans them all
    su: int  # stripe unit, bytes (0: none)
    sw: int  # stripe width, in stripe units
    xfs: XfsGeometry | None
    ext4: Ext4Geometry | None
    btrfs: BtrfsGeometry | None
    fs_bytes: int
    df_size: int
    df_avail: int


def _volume(
    plan: Plan,
    groups: list[GroupResult],
    unders: list[Under],
    device: str,
    mount_point: str,
    label: str,
    used: tuple[int, ...] = (),
) -> VolumeResult:
    """One volume, layer by layer: LVM on the arrays (or LUNs or disks), the filesystem on its top
    device, then the alignment chain that names every layer's stripe. `used`: extents earlier LVs took."""
    layer = _lvm_layer(plan, groups, unders, used)
    fsr = _filesystem(plan, groups, unders, layer)
    return VolumeResult(
        device=device,
        mount_point=mount_point,
        label=label,
        groups=[g.name for g in groups],
        disks=[] if groups else [u.device for u in unders],
        block_device_bytes=fsr.size,
        lvm=layer.lvg,
        xfs=fsr.xfs,
        ext4=fsr.ext4,
        btrfs=fsr.btrfs,
        fs_bytes=fsr.fs_bytes,
        df_size_bytes=fsr.df_size,
        df_available_bytes=fsr.df_avail,
        alignment=_alignment_chain(plan, groups, unders, layer, fsr),
    )


def _lvm_layer(plan: Plan, groups: list[GroupResult], unders: list[Under], used: tuple[int, ...] = ()) -> _Lvm:
    """The PVs, extent and LV over the devices under LVM; without LVM the first device is the top."""
    lvm = plan.lvm
    md0 = unders[0]
    if not lvm.enabled:
        return _Lvm(None, None, None, None, None, md0.size, *md0.exported)
    # pvcreate's alignment and the filesystem's stripe follow the first array (or LUN), and so does a
    # linear LV's extent. A striped LV keeps LVM's 4 MiB: device-mapper wants each stripe's length in whole
    # stripe sizes, which 4 MiB extents give every stripe size lvcreate takes (a power of two up to the
    # extent), and a 6.5 MiB extent does not.
    unit = al.write_unit(md0.level, md0.chunk, md0.io_opt) if lvm.mode == "linear" else 0
    extent = lvm.extent_size or aligned_extent(unit)
    data_alignment = lvm.data_alignment or md0.io_opt or md0.io_min or None
    pe_start = pe_start_bytes(*md0.exported, data_alignment=data_alignment, lvm2=plan.tools.rules("lvm2"))
    # Striping needs two arrays or more: over one array the LV is one stripe, which lvcreate
    # makes linear, so there is no stripe size to choose (and one the plan gives is refused).
    lv_stripes = len(unders) if lvm.mode == "striped" else 1
    if lv_stripes == 1 and lvm.stripe_size is not None:
        what = "md array" if groups else "disk"
        raise PlanError(
            f"a stripe size was given, but a striped LV over {len(unders)} {what} has one stripe: "
            "split the disks into several arrays (groups) to stripe over them",
            "lvm.stripe_size",
        )
    lv_stripe = lvm.stripe_size or default_lv_stripe(md0.chunk, md0.io_opt, extent) if lv_stripes > 1 else None
    try:
        lvg = _lvm_volume(
            tuple(u.size for u in unders),
            pe_start=pe_start,
            extent_bytes=extent,
            stripes=lv_stripes,
            stripe_bytes=lv_stripe,
            data_alignment=data_alignment,
            lv_extents=lv_extents(lvm.lv_size, extent),
            used=used,
        )
    except PlanError as exc:
        if isinstance(lvm.lv_size, int) and "room for" in exc.message:
            raise PlanError(f"an LV of {lvm.lv_size} bytes does not fit: {exc.message}", "lvm.lv_size") from None
        raise PlanError(exc.message, exc.field or "lvm") from None
    if lv_stripe:
        top_min, top_opt = lv_stripe, lv_stripe * lv_stripes
    else:
        top_min, top_opt = md0.exported  # a linear LV stacks the limits of the device under it
    return _Lvm(lvg, data_alignment, extent, lv_stripes, lv_stripe, lvg.lv_bytes, top_min, top_opt)


def lv_extents(size: int | str | None, extent: int) -> int | str:
    """lvcreate -l for an LV size: the whole VG, a percent of it, or the extents that hold the bytes
    (rounded up, as lvcreate -L rounds; `lvm_volume` rounds up again to whole stripes)."""
    if size is None or size == "rest":
        return "100%FREE"
    if isinstance(size, str):
        return f"{size.removesuffix('%')}%VG"
    return -(-size // extent)


def _filesystem(plan: Plan, groups: list[GroupResult], unders: list[Under], layer: _Lvm) -> _Fs:
    """mkfs on the top device, told the plan's stripe or the one it detects there."""
    fs = plan.filesystem
    size = layer.size
    if fs.stripe_unit is not None and fs.stripe_width is not None:
        su, sw = fs.stripe_unit, fs.stripe_width if fs.stripe_unit else 0
    else:
        su, sw = al.fs_stripe(layer.top_min, layer.top_opt, fs.block_size)
    rotational = all(d.rotational for d in plan.disks)
    sector = max(d.physical_sector for d in plan.disks)
    xfs = ext4 = btrfs = None
    try:
        if fs.type == "btrfs":
            spans = not plan.lvm.enabled and not groups  # across the raw disks, else one device
            btrfs = btrfs_geometry(
                [u.size for u in unders] if spans else [size],
                data_profile=fs.data_profile,
                metadata_profile=fs.metadata_profile,
                nodesize=fs.nodesize,
            )
            if spans:
                size = sum(u.size for u in unders)
            su = sw = 0
            fs_bytes = sum(btrfs.device_bytes)
            df_size, df_avail = btrfs.df_size_bytes, btrfs.df_available_bytes
        elif fs.type == "xfs":
            xfs, (df_size, df_avail) = _xfs(
                (size, su, sw, fs.block_size, sector, rotational, fs.log_device),
                plan.tools.rules("xfsprogs"),
                df_kernel(plan),
            )
            fs_bytes = xfs.data_blocks * xfs.block_size
        else:
            stride = su // fs.block_size if su else 0
            ext4 = ext4_geometry(
                size,
                fs_type=fs.type,
                block_size=fs.block_size,
                stride=stride,
                stripe_width=stride * sw,
                reserved_percent=fs.reserved_percent,
                rotational=rotational,
                e2fsprogs=plan.tools.rules("e2fsprogs"),
                journal=fs.journal,
                journal_device=fs.journal_device,
            )
            fs_bytes = ext4.size_bytes
            df = ext4_df(ext4)
            df_size, df_avail = df.size_bytes, df.avail_bytes
    except PlanError as exc:
        raise PlanError(exc.message, exc.field or "filesystem") from None
    return _Fs(size, su, sw, xfs, ext4, btrfs, fs_bytes, df_size, df_avail)


def _alignment_chain(
    plan: Plan, groups: list[GroupResult], unders: list[Under], layer: _Lvm, fsr: _Fs
) -> AlignmentChain:
    """Each layer's stripe from md (or the LUN) up to the filesystem, and the tuning that follows it."""
    lvm = plan.lvm
    fs = plan.filesystem
    md0 = unders[0]
    su, sw, top_opt = fsr.su, fsr.sw, layer.top_opt
    # What one sequential stream crosses: one array at a time on linear LVM, all arrays when striped.
    streamed = sum(u.io_opt for u in unders) if (lvm.enabled and lvm.mode == "striped") else md0.io_opt
    readahead = plan.tuning.readahead or al.recommended_readahead(max(streamed, top_opt))
    parity = md0.scheme.parity > 0 and md0.kind == "md"  # a LUN's stripe cache is the controller's own
    chunk = md0.chunk if md0.kind == "md" else None
    cache = None
    if parity and chunk:
        cache = plan.tuning.stripe_cache_size or al.recommended_stripe_cache(chunk)
    members = len(groups[0].member_devices) if groups else 1
    return AlignmentChain(
        under=md0.kind,  # type: ignore[arg-type]
        md_chunk_bytes=chunk,
        lun_strip_bytes=md0.chunk if md0.kind == "lun" else None,
        md_io_min_bytes=md0.io_min,
        md_io_opt_bytes=md0.io_opt,
        pv_data_alignment_bytes=layer.data_alignment,
        pe_start_bytes=layer.lvg.pe_start_bytes if layer.lvg else None,
        extent_bytes=layer.extent,
        lv_stripes=layer.lv_stripes,
        lv_stripe_bytes=layer.lv_stripe,
        top_io_min_bytes=layer.top_min,
        top_io_opt_bytes=top_opt,
        fs_stripe_unit_bytes=su,
        fs_stripe_width_units=sw,
        ext4_stride_blocks=(su // fs.block_size) if (su and fs.type != "xfs") else None,
        ext4_stripe_width_blocks=(su // fs.block_size * sw) if (su and fs.type != "xfs") else None,
        xfs_su_bytes=su if (su and fs.type == "xfs") else None,
        xfs_sw=sw if (su and fs.type == "xfs") else None,
        readahead_bytes=readahead,
        readahead_sectors=readahead // 512,
        kernel_readahead_bytes=al.kernel_readahead(top_opt),
        stripe_cache_size=cache,
        stripe_cache_bytes=al.stripe_cache_bytes(cache, members) if cache else None,
    )
