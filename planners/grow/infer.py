"""From two plans (before and after) to the growth between them, or the reason there is none.

Only what md, LVM and the filesystems can do in place is accepted: more members in an array
(RAID5 -> RAID6 with them), or new arrays appended under a linear LV. The figures after are
the grown ones, not a fresh build's: the md component and data offset stay, the PVs keep
their pe_start, the filesystem keeps its AG size or inodes per group, its log or journal and
its stripe hints.
"""

from __future__ import annotations

from planners.compute import compute
from planners.errors import PlanError
from planners.findings.alignment import recommended_stripe_cache
from planners.fs.ext4.geometry import Ext4Geometry
from planners.fs.xfs.model import XfsGeometry
from planners.grow import fs as growfs
from planners.grow.align import alignment_changes
from planners.grow.model import ArrayGrowth, Growth
from planners.grow.reshape import backup_need, reshape_refusal
from planners.grow.steps import growth_steps
from planners.grow.target import NO_MD_GROWTH, growable
from planners.grow.timing import sync_rate
from planners.md.geometry import MdGeometry
from planners.models import Disk, MdGroup, Plan
from planners.results import GroupResult, PlanResult, VolumeResult
from planners.schemes import md_scheme


def _placeholder(i: int) -> str:
    return f"/dev/disk/by-id/FILL-IN-added{i:02d}"


def _same_settings(old: Plan, new: Plan) -> None:
    if old.filesystem.type != new.filesystem.type:
        raise PlanError(
            f"the new plan changes the filesystem ({old.filesystem.type} -> {new.filesystem.type}): "
            "that is a rebuild, not a growth",
            "filesystem.type",
        )
    if old.filesystem.model_dump(exclude={"stripe_unit", "stripe_width"}) != new.filesystem.model_dump(
        exclude={"stripe_unit", "stripe_width"}
    ):
        raise PlanError(
            "the new plan changes filesystem settings (block size, reserve, mount point, options or "
            "label) that growing cannot change",
            "filesystem",
        )
    if old.lvm != new.lvm:
        raise PlanError(
            "the new plan changes the LVM settings (on/off, names, extent size, mode): growing keeps them", "lvm"
        )
    if old.tools != new.tools:
        raise PlanError("the two plans assume different tool versions; give both the same [tools]", "tools")


def _check_group(
    og: MdGroup, om: list[Disk], ospares: list[Disk], ng: MdGroup, nm: list[Disk], nspares: list[Disk]
) -> None:
    name = og.name
    if ng.name != name:
        raise PlanError(
            f"array {name!r} is named {ng.name!r} in the new plan; growing keeps arrays and their order", "groups.name"
        )
    for key in ("chunk", "metadata", "bitmap", "bitmap_chunk"):
        if getattr(og, key) != getattr(ng, key):
            raise PlanError(
                f"{name}: the new plan changes the {key.replace('_', ' ')}; md cannot change it while "
                "growing here (a chunk change is a separate reshape podplan does not plan)",
                f"groups.{key}",
            )
    if og.layout != ng.layout:
        raise PlanError(f"{name}: the new plan changes the layout ({og.layout} -> {ng.layout})", "groups.layout")
    if ng.members < og.members:
        raise PlanError(
            f"{name}: {og.members} -> {ng.members} members shrinks the array below the space in use; "
            "podplan plans growth only (XFS cannot shrink at all)",
            "groups.members",
        )
    if [d.size for d in nm[: len(om)]] != [d.size for d in om]:
        raise PlanError(
            f"{name}: the members' disks differ between the plans (bigger disks are out of scope: "
            "replace and grow them one at a time with mdadm --replace and --grow --size=max)",
            "disks",
        )
    # Only the old members are compared: the members growth adds have no counterpart.
    if any(a.device and b.device and a.device != b.device for a, b in zip(om, nm, strict=False)):
        raise PlanError(f"{name}: the members' device paths differ between the plans", "disks.devices")
    if len(ospares) != len(nspares):
        raise PlanError(
            f"{name}: the new plan changes the hot spares ({len(ospares)} -> {len(nspares)}); "
            "add or remove spares with mdadm --add / --remove, not as growth",
            "groups.spares",
        )


def _array(
    old_g: GroupResult | None,
    new_g: GroupResult,
    og: MdGroup,
    ng: MdGroup,
    plan: Plan,
    result: PlanResult,
    added: list[Disk],
) -> ArrayGrowth:
    md = new_g.md
    rate, limit = sync_rate(plan, result, new_g.name, reshape=old_g is not None)
    hours = md.component_bytes / (rate * 1e6) / 3600 if rate > 0 else float("inf")
    if old_g is None:
        return ArrayGrowth(
            name=ng.name,
            device=ng.device,
            new=True,
            members_before=0,
            members_after=ng.members,
            level_before=None,
            level_after=ng.level,
            layout_after=md.layout,
            chunk_bytes=md.chunk_bytes,
            added_devices=_paths(added),
            added_disks=_figures(added),
            spares=ng.spares,
            create_options=md.create_options,
            stripe_cache_size=_stripe_cache(plan, md),
            component_bytes=md.component_bytes,
            array_bytes_before=0,
            array_bytes_after=md.array_bytes,
            backup_file=False,
            backup_reason="a new array is created, not reshaped: nothing to back up",
            hours=hours,
            rate_mb_s=rate,
            rate_limit=limit,
        )
    old_md = old_g.md
    if md.component_bytes != old_md.component_bytes:
        raise PlanError(
            f"{ng.name}: the added disks are too small: each must hold the data offset plus the "
            f"{old_md.component_bytes}-byte component the array uses on every member",
            "size",
        )
    data_before, data_after = _reshape_data(old_md), _reshape_data(md)
    need = backup_need(old_md, data_before=data_before, data_after=data_after, far=old_md.far_copies)
    return ArrayGrowth(
        name=ng.name,
        device=ng.device,
        new=False,
        members_before=og.members,
        members_after=ng.members,
        level_before=og.level,
        level_after=ng.level,
        layout_after=md.layout,
        chunk_bytes=md.chunk_bytes,
        added_devices=_paths(added),
        added_disks=_figures(added),
        component_bytes=md.component_bytes,
        array_bytes_before=old_md.array_bytes,
        array_bytes_after=md.array_bytes,
        backup_file=need.needed,
        backup_reason=need.reason,
        offset_change_bytes=need.offset_change_bytes,
        hours=hours,
        rate_mb_s=rate,
        rate_limit=limit,
    )


def _paths(disks: list[Disk]) -> tuple[str, ...]:
    return tuple(d.device for d in disks)


def _figures(disks: list[Disk]) -> tuple[tuple[int, int, int], ...]:
    return tuple((d.size, d.logical_sector, d.physical_sector) for d in disks)


def _reshape_data(md: MdGeometry) -> int:
    """Data disks as mdadm's reshape counts them (every member of a RAID10)."""
    if md_scheme(md.level).reshape_by_offset:
        return md.raid_devices
    return md.data_disks_num // md.data_disks_den


def _stripe_cache(plan: Plan, md: MdGeometry) -> int | None:
    """What the build script would set on this array: the plan's figure or the recommended one."""
    if not md_scheme(md.level).parity or not md.chunk_bytes:
        return None
    return plan.tuning.stripe_cache_size or recommended_stripe_cache(md.chunk_bytes)


def growth_between(old: Plan, new: Plan) -> Growth:
    """The steps and figures that take a pod built as `old` to the layout `new`, or PlanError."""
    growable(old)
    if not new.groups:
        raise PlanError(NO_MD_GROWTH, "groups")
    _same_settings(old, new)
    r_old, r_new = compute(old), compute(new)
    old_gd, new_gd = old.group_disks(), new.group_disks()
    if len(new_gd) < len(old_gd):
        raise PlanError(
            "the new plan has fewer arrays than the old one: that shrinks the pod; podplan plans growth only", "groups"
        )
    arrays: list[ArrayGrowth] = []
    n_added = 0
    old_by = {g.name: g for g in r_old.groups}
    new_by = {g.name: g for g in r_new.groups}
    # The arrays the new plan adds after the old ones have no old group; they are taken up below.
    for (og, om, os_), (ng, nm, ns) in zip(old_gd, new_gd, strict=False):
        _check_group(og, om, os_, ng, nm, ns)
        if ng.members == og.members and ng.level == og.level:
            continue
        why = reshape_refusal(og.level, og.layout, ng.level, og.members, ng.members)
        if why:
            raise PlanError(f"{og.name}: {why}", "groups")
        added = [d._replace(device=d.device or _placeholder(n_added + i + 1)) for i, d in enumerate(nm[len(om) :])]
        n_added += len(added)
        arrays.append(_array(old_by[og.name], new_by[ng.name], og, ng, new, r_new, added))
    extra = new_gd[len(old_gd) :]
    if extra and not old.lvm.enabled:
        raise PlanError(
            "the new plan adds an array but has no LVM: without LVM a new array is a separate "
            "filesystem, not growth of this one",
            "lvm.enabled",
        )
    if extra and old.lvm.mode == "striped":
        raise PlanError(
            "the new plan adds an array under a striped LV: lvextend cannot widen the stripe onto it", "lvm.mode"
        )
    if extra and arrays:
        raise PlanError("the new plan both reshapes an array and adds one; grow in two steps", "groups")
    for ng, nm, ns in extra:
        added = [d._replace(device=d.device or _placeholder(n_added + i + 1)) for i, d in enumerate(nm + ns)]
        n_added += len(added)
        arrays.append(_array(None, new_by[ng.name], ng, ng, new, r_new, added))
    if not arrays:
        raise PlanError("the two plans describe the same layout: nothing to grow", "groups")
    return _growth(old, new, r_old, r_new, arrays)


def _volume_index(old: Plan, result: PlanResult, arrays: list[ArrayGrowth]) -> int:
    if old.lvm.enabled:
        return 0
    names = {a.name for a in arrays}
    hit = [i for i, v in enumerate(result.volumes) if names & set(v.groups)]
    if len(hit) != 1:
        raise PlanError("without LVM each array is its own filesystem: grow one array at a time", "groups")
    return hit[0]


def _lv_after(old: Plan, vol: VolumeResult, arrays: list[ArrayGrowth], r_new: PlanResult) -> int:
    """LV bytes after pvresize / vgextend and lvextend -l +100%FREE (the PVs keep their pe_start)."""
    lvg = vol.lvm
    assert lvg is not None
    sizes = {g.name: g.md.array_bytes for g in r_new.groups}
    pe, ext = lvg.pe_start_bytes, lvg.extent_bytes
    free = []
    for name, used in zip(vol.groups, lvg.lv_pv_extents, strict=True):
        free.append((sizes[name] // 512 * 512 - pe) // ext - used)
    new_free = [(a.array_bytes_after // 512 * 512 - pe) // ext for a in arrays if a.new]
    if lvg.stripes > 1:
        # lvextend keeps the stripes: each stripe grows by what the least free PV allows.
        return (lvg.lv_extents + lvg.stripes * min(free)) * ext
    return (lvg.lv_extents + sum(free) + sum(new_free)) * ext


def _growth(old: Plan, new: Plan, r_old: PlanResult, r_new: PlanResult, arrays: list[ArrayGrowth]) -> Growth:
    vi = _volume_index(old, r_old, arrays)
    vol, vol_new = r_old.volumes[vi], r_new.volumes[vi]
    lv_before = lv_after = None
    if old.lvm.enabled:
        lv_before = vol.block_device_bytes
        lv_after = _lv_after(old, vol, arrays, r_new)
        dev_after = lv_after
    else:
        dev_after = next(a.array_bytes_after for a in arrays)
    kernel = old.tools.v("kernel")
    if vol.xfs is not None:
        grown_x = growfs.xfs_grown(vol.xfs, dev_after)
        size, avail = growfs.xfs_grown_df(vol.xfs, grown_x, kernel=kernel)
        fs_after = grown_x.data_bytes
        detail = _xfs_detail(vol.xfs, grown_x)
    else:
        assert vol.ext4 is not None
        grown_e = growfs.ext4_grown(vol.ext4, dev_after, online=True)
        size, avail = growfs.ext4_grown_df(vol.ext4, grown_e, online=True)
        fs_after = grown_e.size_bytes
        detail = _ext4_detail(vol.ext4, grown_e)
    resized = tuple(a.device for a in arrays if not a.new) if old.lvm.enabled else ()
    new_pvs = tuple(a.device for a in arrays if a.new)
    lvg = vol.lvm
    changes = alignment_changes(old, vol, vol_new, [a for a in arrays if not a.new])
    g = Growth(
        plan_name=old.name,
        mode="new-array" if new_pvs else "reshape",
        arrays=tuple(arrays),
        volume_device=vol.device,
        mount_point=vol.mount_point,
        fs_type=old.filesystem.type,
        lvm=old.lvm.enabled,
        vg=old.lvm.vg if old.lvm.enabled else None,
        lv=old.lvm.lv if old.lvm.enabled else None,
        resized_pvs=resized,
        new_pvs=new_pvs,
        pvcreate_options=lvg.pvcreate_options if lvg else (),
        lv_bytes_before=lv_before,
        lv_bytes_after=lv_after,
        device_bytes_before=vol.block_device_bytes,
        device_bytes_after=dev_after,
        fs_bytes_before=vol.fs_bytes,
        fs_bytes_after=fs_after,
        df_size_bytes_before=vol.df_size_bytes,
        df_size_bytes_after=size,
        df_available_bytes_before=vol.df_available_bytes,
        df_available_bytes_after=avail,
        fs_detail=detail,
        alignment=tuple(changes),
        readahead_sectors_after=vol_new.alignment.readahead_sectors,
        steps=(),
        notes=tuple(_notes(old, arrays)),
    )
    return g.model_copy(update={"steps": growth_steps(old, r_old, g)})


def _xfs_detail(old: XfsGeometry, new: growfs.GrownXfs) -> str:
    last = new.last_ag_blocks
    return (
        f"xfs_growfs keeps AGs of {old.agsize_blocks} blocks: {old.agcount} -> {new.agcount} AGs"
        + (f", the last {last} blocks" if last != new.agsize_blocks else "")
        + f"; the log stays {old.log_blocks} blocks; the reserve pool keeps its size from mount"
    )


def _ext4_detail(old: Ext4Geometry, new: Ext4Geometry) -> str:
    return (
        f"resize2fs adds block groups of {old.blocks_per_group} blocks with {old.inodes_per_group} inodes each: "
        f"{old.block_groups} -> {new.block_groups} groups, {old.inode_count} -> {new.inode_count} inodes; "
        f"the journal stays {old.journal_blocks} blocks; reserved {old.reserved_blocks} -> {new.reserved_blocks} "
        "blocks (online, the kernel gives new groups the reserve's whole percent)"
    )


def _notes(old: Plan, arrays: list[ArrayGrowth]) -> list[str]:
    out = []
    for a in arrays:
        if a.new:
            out.append(
                f"{a.name} is usable at once; its initial sync runs in the background for about "
                f"{a.hours:.1f} h, during which it has no redundancy against a second failure."
            )
        else:
            out.append(
                f"{a.name} stays online during the reshape (about {a.hours:.1f} h at {a.rate_mb_s:.0f} MB/s "
                f"per member, limited by {a.rate_limit}); the new space appears only when it ends."
            )
    return out
