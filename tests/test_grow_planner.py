"""Growth planning, pure: the grown plan, the refusals and their reasons, mdadm 4.2's backup-file
rule at its boundaries, and the figures' relations. The figures themselves are held against the
real tools in test_grow_tools."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planners.compute import compute
from planners.errors import PlanError
from planners.grow import GrowRequest, growth_between, possible_modes, target_plan
from planners.grow.reshape import backup_need, room_before_sectors
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.units import GiB, KiB, MiB

TB = 10**12


def plan(
    level=6,
    members=8,
    disk=4 * TB,
    *,
    chunk=512 * KiB,
    groups=1,
    lvm=False,
    fs="xfs",
    layout=None,
    metadata="1.2",
    devices=False,
    mode="linear",
    extent=None,
) -> Plan:
    n = members * groups
    return Plan(
        name="t",
        disks=[DiskSet(count=n, size=disk, devices=[f"/dev/sd{chr(97 + i)}" for i in range(n)] if devices else [])],
        groups=[
            MdGroup(name=f"md{i}", level=level, members=members, chunk=chunk, layout=layout, metadata=metadata)
            for i in range(groups)
        ],
        lvm=Lvm(enabled=lvm, mode=mode, extent_size=extent),
        filesystem=Filesystem(type=fs),
    )


def grow(p: Plan, **kw):
    return growth_between(p, target_plan(p, GrowRequest(**kw)))


def test_reshape_adds_members_after_the_group_and_keeps_the_component():
    p = plan(devices=True, groups=2, lvm=True)
    t = target_plan(
        p, GrowRequest(add_disks=2, group="md0", devices=["/dev/disk/by-id/new-1", "/dev/disk/by-id/new-2"])
    )
    (g0, m0, _), (g1, m1, _) = t.group_disks()
    assert (g0.members, g1.members) == (10, 8)
    assert [d.device for d in m0[-2:]] == ["/dev/disk/by-id/new-1", "/dev/disk/by-id/new-2"]
    assert [d.device for d in m1] == [f"/dev/sd{chr(97 + i)}" for i in range(8, 16)]
    g = growth_between(p, t)
    a = g.arrays[0]
    assert a.added_devices == ("/dev/disk/by-id/new-1", "/dev/disk/by-id/new-2")
    assert a.array_bytes_after == (10 - 2) * a.component_bytes
    assert a.array_bytes_before == (8 - 2) * a.component_bytes
    assert g.resized_pvs == ("/dev/md/md0",) and g.new_pvs == ()


def test_figures_grow_and_lv_keeps_its_pe_start():
    p = plan(lvm=True)
    g = grow(p, add_disks=1)
    r = compute(p)
    assert g.lv_bytes_before == r.volumes[0].block_device_bytes
    pe, ext = r.volumes[0].lvm.pe_start_bytes, r.volumes[0].lvm.extent_bytes
    assert g.lv_bytes_after == (g.arrays[0].array_bytes_after - pe) // ext * ext
    assert g.df_size_bytes_after > g.df_size_bytes_before and g.df_available_bytes_after > g.df_available_bytes_before
    assert g.df_size_bytes_before == r.df_size_bytes


def test_new_array_under_lvm_is_offered_beside_the_reshape():
    p = plan(lvm=True, groups=2)
    modes = possible_modes(p, GrowRequest(add_disks=8))
    assert isinstance(modes["reshape"], Plan) and isinstance(modes["new-array"], Plan)
    g = grow(p, add_disks=8, mode="new-array")
    assert g.mode == "new-array" and g.new_pvs == ("/dev/md/md2",) and g.arrays[0].new
    assert g.arrays[0].create_options and g.alignment == ()
    assert g.lv_bytes_after > g.lv_bytes_before
    assert isinstance(possible_modes(p, GrowRequest(add_disks=3))["new-array"], PlanError)


@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(level=10, layout="f2", members=4), "far layout"),
        (dict(level=1, members=2), "more mirrors, not more capacity"),
        (dict(level=0, members=4), "RAID4 and back"),
    ],
)
def test_md_refusals_name_the_reason(kw, match):
    with pytest.raises(PlanError, match=match):
        target_plan(plan(**kw), GrowRequest(add_disks=2))


def test_far_raid10_under_lvm_falls_back_to_a_new_array():
    p = plan(level=10, layout="f2", members=4, lvm=True)
    assert target_plan(p, GrowRequest(add_disks=4)).groups[-1].name == "md1"
    with pytest.raises(PlanError, match="far"):
        target_plan(p, GrowRequest(add_disks=4, mode="reshape"))


def test_offset_raid10_reshapes_by_moving_the_data_offset():
    g = grow(plan(level=10, layout="o2", members=4), add_disks=2)
    a = g.arrays[0]
    assert not a.backup_file and a.offset_change_bytes == 2 * 512 * KiB


@pytest.mark.parametrize(
    "old_kw,new_kw,match",
    [
        (dict(members=8), dict(members=6), "shrinks"),
        (dict(), dict(chunk=256 * KiB), "chunk"),
        (dict(), dict(fs="ext4"), "filesystem"),
        (dict(), dict(), "nothing to grow"),
        (dict(groups=1), dict(groups=2), "no LVM"),
        (dict(groups=2, lvm=True, mode="striped"), dict(groups=3, lvm=True, mode="striped"), "striped"),
        (dict(disk=4 * TB), dict(disk=8 * TB), "bigger disks"),
    ],
)
def test_growth_between_refuses(old_kw, new_kw, match):
    with pytest.raises(PlanError, match=match):
        growth_between(plan(**old_kw), plan(**{**old_kw, **new_kw}))


def test_bad_requests():
    with pytest.raises(PlanError, match="nothing to grow"):
        target_plan(plan(), GrowRequest())
    with pytest.raises(PlanError, match="second parity"):
        target_plan(plan(level=5), GrowRequest(to_level=6))
    with pytest.raises(PlanError, match="RAID5 -> RAID6"):
        target_plan(plan(level=6), GrowRequest(add_disks=1, to_level=5))
    with pytest.raises(PlanError, match="no md array named"):
        target_plan(plan(), GrowRequest(add_disks=1, group="md9"))
    with pytest.raises(PlanError, match="2 device paths"):
        target_plan(plan(), GrowRequest(add_disks=1, devices=["/dev/sdx", "/dev/sdy"]))
    with pytest.raises(PlanError, match="too small"):
        grow(plan(disk=4 * TB), add_disks=1, size=2 * TB)
    with pytest.raises(PlanError, match="new array"):
        target_plan(plan(), GrowRequest(add_disks=8, mode="new-array"))


def test_room_before_the_data_follows_super1():
    md = compute(plan(members=8, disk=256 * MiB)).groups[0].md
    assert md.data_offset_sectors == 4096  # seen inside the VM: mdadm 4.2, 8 x 256 MiB, chunk 512K
    assert room_before_sectors(md) == 4096 - 8 - 72  # superblock at 8, the kernel's 72 sectors after it
    big = compute(plan(members=8, disk=4 * TB)).groups[0].md
    assert room_before_sectors(big) == big.data_offset_sectors - 8 - (8 + 256 + 8)  # bitmap room 256 + bad-block log


@pytest.mark.parametrize(
    "disk,chunk,add,to_level,needed,moved",
    [
        (4 * TB, 512 * KiB, 1, None, False, True),  # room to move the data offset
        (256 * MiB, 512 * KiB, 1, None, False, False),  # too little room: critical section on the added disk
        (256 * MiB, 64 * KiB, 1, None, False, True),
        (256 * MiB, 512 * KiB, 1, 6, False, True),  # RAID5 -> RAID6, same data disks: one chunk of room suffices
    ],
)
def test_backup_file_rule(disk, chunk, add, to_level, needed, moved):
    level = 5 if to_level else 6
    g = grow(plan(level=level, disk=disk, chunk=chunk), add_disks=add, to_level=to_level)
    a = g.arrays[0]
    assert a.backup_file is needed
    assert ("moves every member's data offset" in a.backup_reason) is moved


def test_raid5_to_raid6_on_metadata_1_0_needs_a_backup_file():
    g = grow(plan(level=5, metadata="1.0"), add_disks=1, to_level=6)
    a = g.arrays[0]
    assert a.backup_file and "backup file" in a.backup_reason and a.level_after == 6
    assert a.array_bytes_after == a.array_bytes_before
    assert any("--backup-file=/root/podplan-grow-md0.backup" in c for s in g.steps for c in s.commands)


def test_backup_need_lcm():
    md = compute(plan(members=15)).groups[0].md
    need = backup_need(md, data_before=13, data_after=14)
    assert need.offset_change_bytes == 512 * KiB * 14  # lcm(13c, 14c) / 13


def test_ext4_alignment_is_fixed_online_xfs_is_explained():
    e = grow(plan(fs="ext4", members=6, disk=2 * TB), add_disks=2)
    fix = next(c for c in e.alignment if c.figure.startswith("ext4"))
    assert fix.in_script and fix.commands == ("tune2fs -E stride=128,stripe_width=768 /dev/md/md0",)
    x = grow(plan(fs="xfs", members=6, disk=2 * TB), add_disks=2)
    fix = next(c for c in x.alignment if c.figure.startswith("XFS"))
    assert not fix.in_script and "sunit=1024,swidth=6144" in fix.commands[1]


def test_reshape_time_names_its_limit():
    a = grow(plan(), add_disks=1).arrays[0]
    assert a.rate_limit and a.rate_mb_s > 0
    assert a.hours == pytest.approx(a.component_bytes / (a.rate_mb_s * 1e6) / 3600)


@settings(max_examples=40, deadline=None)
@given(
    level=st.sampled_from([5, 6, 10]),
    members=st.integers(4, 20),
    add=st.integers(1, 6),
    disk_gib=st.integers(1, 20000),
    lvm=st.booleans(),
    fs=st.sampled_from(["xfs", "ext4"]),
)
def test_growth_only_grows(level, members, add, disk_gib, lvm, fs):
    p = plan(level=level, members=members, disk=disk_gib * GiB, lvm=lvm, fs=fs, layout="n2" if level == 10 else None)
    try:
        g = grow(p, add_disks=add)
    except PlanError as exc:
        assert exc.message  # e.g. ext4 past its reserved GDT blocks: refused with a reason
        return
    a = g.arrays[0]
    assert a.array_bytes_after > a.array_bytes_before
    assert g.device_bytes_after >= g.device_bytes_before
    assert g.df_size_bytes_after >= g.df_size_bytes_before
    assert g.df_available_bytes_after >= g.df_available_bytes_before


SEEN_IN_VM = [
    # (level, members, add, to_level, fs, lvm, data offset after (sectors), df size after, df available after):
    # mdadm 4.2 and Linux 6.1 in the lab VM, 320 MiB disks, chunk 64K, the build script then the grow script
    # (LVM with 4 MiB extents, as the build script made them then).
    (6, 5, 1, None, "xfs", True, 1536, 1266679808, 1223475200),
    (5, 4, 2, None, "ext4", False, 1408, 1627115520, 1536192512),  # online resize2fs
    (5, 4, 1, 6, "xfs", False, 1024, 936378368, 895619072),  # same width: mdadm picks a rounder offset
]
SEEN_IN_VM_RAID10 = [
    # (layout, members, add, fs, data offset after, array after, df size after, df available after)
    ("n2", 4, 2, "xfs", 1920, 1003487232, 936378368, 895451136),
    ("o2", 4, 1, "ext4", 1792, 836239360, 803426304, 749973504),
]
SEEN_IN_VM_FALLBACK = [
    # chunk 512K: too little room to move the offset; mdadm said "Need to backup 6144K of critical section.."
    (dict(level=6, members=5, chunk=512 * KiB), dict(add_disks=1), False, 6291456, 1266679808, 1223462912),
    # metadata 1.0, RAID5 -> RAID6: ran with --backup-file=/root/podplan-grow-md0.backup
    (dict(level=5, members=4, metadata="1.0"), dict(add_disks=1, to_level=6), True, 0, 939327488, 898564096),
    # a new array under LVM: mdadm --create, pvcreate, vgextend, lvextend, online resize2fs
    (
        dict(level=5, members=4, lvm=True, fs="ext4"),
        dict(add_disks=4, mode="new-array"),
        False,
        0,
        1947394048,
        1843773440,
    ),
    # the same on 1536 MiB disks: online resize2fs from 36 to 72 groups, in several flex-group batches
    (
        dict(level=5, members=4, lvm=True, fs="ext4", disk=1536 * MiB),
        dict(add_disks=4, mode="new-array"),
        False,
        0,
        9406971904,
        8956403712,
    ),
]


@pytest.mark.parametrize("level,members,add,to_level,fs,lvm,offset,size,avail", SEEN_IN_VM)
def test_figures_seen_in_the_vm(level, members, add, to_level, fs, lvm, offset, size, avail):
    p = plan(level=level, members=members, disk=320 * MiB, chunk=64 * KiB, fs=fs, lvm=lvm, extent=4 * MiB)
    g = grow(p, add_disks=add, to_level=to_level)
    md = compute(p).groups[0].md
    assert md.data_offset_sectors - g.arrays[0].offset_change_bytes // 512 == offset
    assert (g.df_size_bytes_after, g.df_available_bytes_after) == (size, avail)
    assert not g.arrays[0].backup_file


@pytest.mark.parametrize("plan_kw,req,backup,critical,size,avail", SEEN_IN_VM_FALLBACK)
def test_fallbacks_seen_in_the_vm(plan_kw, req, backup, critical, size, avail):
    p = plan(**{"disk": 320 * MiB, "chunk": 64 * KiB, "extent": 4 * MiB, **plan_kw})  # extents as recorded
    g = grow(p, **req)
    a = g.arrays[0]
    assert a.backup_file is backup and a.offset_change_bytes == 0
    if critical:
        assert f"copies the {critical}-byte critical section onto the added disks" in a.backup_reason
    assert (g.df_size_bytes_after, g.df_available_bytes_after) == (size, avail)


@pytest.mark.parametrize("layout,members,add,fs,offset,array,size,avail", SEEN_IN_VM_RAID10)
def test_raid10_figures_seen_in_the_vm(layout, members, add, fs, offset, array, size, avail):
    p = plan(level=10, layout=layout, members=members, disk=320 * MiB, chunk=64 * KiB, fs=fs)
    g = grow(p, add_disks=add)
    a = g.arrays[0]
    assert compute(p).groups[0].md.data_offset_sectors - a.offset_change_bytes // 512 == offset
    assert a.array_bytes_after == array
    assert (g.df_size_bytes_after, g.df_available_bytes_after) == (size, avail)


def test_an_ext3_grow_names_ext3_and_the_driver_that_reads_its_stripe():
    """ext3 is not ext4: since Linux 4.3 the ext4 driver (mballoc) mounts it and follows the stripe width;
    before, ext3's own driver never read it. The fix (tune2fs -E) is the same."""
    old = plan(fs="ext3", members=6, disk=2 * TB)
    fix = next(c for c in grow(old, add_disks=2).alignment if c.layer == "filesystem")
    assert fix.figure == "ext3 stride/stripe_width (blocks)" and "ext4's allocator" not in fix.cost
    assert "ext4 driver mounts ext3" in fix.cost and fix.in_script
    assert fix.commands == ("tune2fs -E stride=128,stripe_width=768 /dev/md/md0",)
    tools = old.tools.model_copy(update={"kernel": "2.6.18"})
    fix = next(
        c for c in grow(old.model_copy(update={"tools": tools}), add_disks=2).alignment if c.layer == "filesystem"
    )
    assert "costs nothing now" in fix.cost and "allocator aligns" not in fix.cost
