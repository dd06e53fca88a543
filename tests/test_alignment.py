"""The alignment chain and the checker: each misalignment is named, a clean plan has none."""

import itertools

import pytest

from planners.compute import compute
from planners.example import example_pod
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan, Tuning

TB4 = 4_000_787_030_016
KiB, MiB = 1024, 1024**2


def plan(groups, disks=None, lvm=None, fs=None, tuning=None, physical=512):
    n = sum(g.members + g.spares for g in groups)
    return Plan(
        disks=disks or [DiskSet(count=n, size=TB4, physical_sector=physical)],
        groups=groups,
        lvm=lvm or Lvm(),
        filesystem=fs or Filesystem(),
        tuning=tuning or Tuning(),
    )


def messages(p):
    return [(f.severity, f.message) for f in compute(p).findings]


def has(p, severity, words):
    found = messages(p)
    assert any(s == severity and words in m for s, m in found), found


def test_clean_plan_has_no_findings():
    assert messages(plan([MdGroup(level=6, members=10, chunk=64 * KiB)])) == []


def test_lvm_stripe_smaller_than_md_stripe():
    p = plan(
        [MdGroup(name=f"md{i}", level=6, members=10, chunk=64 * KiB) for i in range(2)],
        lvm=Lvm(enabled=True, mode="striped", stripe_size=64 * KiB),
    )
    has(p, "warning", "not a multiple of the md full stripe")


def test_lvm_stripe_equal_to_md_stripe_is_fine():
    p = plan(
        [MdGroup(name=f"md{i}", level=6, members=10, chunk=64 * KiB) for i in range(2)],
        lvm=Lvm(enabled=True, mode="striped", stripe_size=512 * KiB),
    )
    assert [m for s, m in messages(p) if s != "info"] == []
    a = compute(p).volumes[0].alignment
    assert (a.xfs_su_bytes, a.xfs_sw) == (512 * KiB, 2)


def test_non_power_of_two_stripe_cannot_be_matched_by_lvm():
    p = plan(
        [MdGroup(name=f"md{i}", level=6, members=15, chunk=512 * KiB) for i in range(3)],
        lvm=Lvm(enabled=True, mode="striped", stripe_size=4 * MiB),
    )
    has(p, "info", "not a power of two")


def test_pe_start_off_the_stripe():
    p = plan([MdGroup(level=6, members=15, chunk=512 * KiB)], lvm=Lvm(enabled=True, data_alignment=1 * MiB))
    has(p, "warning", "not a multiple of the md full stripe")


def test_groups_with_different_stripes():
    p = plan(
        [MdGroup(name="a", level=6, members=10, chunk=64 * KiB), MdGroup(name="b", level=6, members=8, chunk=64 * KiB)],
        lvm=Lvm(enabled=True),
    )
    has(p, "warning", "different full stripes")


def test_filesystem_stripe_override_mismatch():
    p = plan([MdGroup(level=6, members=10, chunk=64 * KiB)], fs=Filesystem(stripe_unit=128 * KiB, stripe_width=8))
    has(p, "warning", "stripe unit")


def test_small_readahead_and_stripe_cache():
    p = plan([MdGroup(level=6, members=10, chunk=512 * KiB)], tuning=Tuning(readahead=1 * MiB, stripe_cache_size=64))
    has(p, "warning", "Readahead")
    has(p, "warning", "stripe_cache_size 64")


def test_block_smaller_than_physical_sector():
    p = plan([MdGroup(level=6, members=10, chunk=64 * KiB)], fs=Filesystem(type="ext4", block_size=1024), physical=4096)
    has(p, "warning", "physical sector")


def test_mixed_sizes_unassigned_and_no_lvm():
    p = Plan(
        disks=[DiskSet(count=3, size=TB4), DiskSet(count=6, size=2 * TB4)],
        groups=[MdGroup(name="a", level=5, members=4), MdGroup(name="b", level=5, members=4)],
    )
    has(p, "info", "mixes disk sizes")
    has(p, "warning", "1 disk(s) are not used")
    has(p, "info", "LVM is off")
    r = compute(p)
    assert [v.mount_point for v in r.volumes] == ["/srv/pod/a", "/srv/pod/b"]
    assert r.unassigned_bytes == 2 * TB4


def test_xfs_log_stripe_capped():
    has(plan([MdGroup(level=6, members=10, chunk=512 * KiB)]), "info", "log stripe unit")


@pytest.mark.parametrize(
    "group,su,sw",
    [
        (MdGroup(level=10, members=4, chunk=64 * KiB), 64 * KiB, 2),
        (MdGroup(level=10, layout="f2", members=4, chunk=64 * KiB), 64 * KiB, 4),
        (MdGroup(level=10, layout="n2", members=5, chunk=64 * KiB), 64 * KiB, 5),
        (MdGroup(level=0, members=3, chunk=256 * KiB), 256 * KiB, 3),
        (MdGroup(level=5, members=4, chunk=128 * KiB), 128 * KiB, 3),
        (MdGroup(level=1, members=2), 0, 0),
    ],
)
def test_filesystem_stripe_follows_md_topology(group, su, sw):
    a = compute(plan([group])).volumes[0].alignment
    assert (a.fs_stripe_unit_bytes, a.fs_stripe_width_units) == (su, sw)


def test_ext4_stride_and_readahead():
    p = plan([MdGroup(level=6, members=10, chunk=64 * KiB)], fs=Filesystem(type="ext4"))
    a = compute(p).volumes[0].alignment
    assert (a.ext4_stride_blocks, a.ext4_stripe_width_blocks) == (16, 128)
    assert a.readahead_bytes == 1 * MiB  # two full stripes are 1 MiB here, which is also the floor
    assert a.kernel_readahead_bytes == 1 * MiB
    assert a.stripe_cache_size == 1024 and a.stripe_cache_bytes == 1024 * 4096 * 10


def test_waterfall_adds_up_and_ends_at_df_available():
    p = plan(
        [MdGroup(name=f"md{i}", level=6, members=14, spares=1, chunk=512 * KiB) for i in range(3)],
        lvm=Lvm(enabled=True),
    )
    r = compute(p)
    steps = r.capacity
    assert steps[0].remaining_bytes == r.raw_bytes
    for prev, cur in itertools.pairwise(steps):
        assert cur.remaining_bytes == prev.remaining_bytes - cur.removed_bytes
        assert cur.removed_bytes >= 0
    assert steps[-1].remaining_bytes == r.usable_bytes
    assert {s.key: s.removed_bytes for s in steps}["spares"] == 3 * TB4


# (group, how many of them) under one linear LV: the full stripe each array must start on in the LV.
LINEAR = [
    (MdGroup(level=6, members=15, chunk=512 * KiB), 3),  # the example pod: 6.5 MiB
    (MdGroup(level=5, members=7, chunk=512 * KiB), 3),  # 3 MiB
    (MdGroup(level=5, members=4, chunk=64 * KiB), 4),  # 192 KiB
    (MdGroup(level=6, members=15, chunk=64 * KiB), 2),  # 832 KiB
    (MdGroup(level=0, members=16, chunk=512 * KiB), 2),  # 8 MiB
    (MdGroup(level=6, members=10, chunk=128 * KiB), 3),  # 1 MiB: 4 MiB extents already fit
]


def _linear(group, n, disks=None, **lvm):
    return plan(
        [group.model_copy(update={"name": f"md{i}"}) for i in range(n)], disks=disks, lvm=Lvm(enabled=True, **lvm)
    )


@pytest.mark.parametrize(("group", "n"), LINEAR)
def test_every_array_starts_on_a_full_stripe_of_a_linear_lv(group, n):
    """By hand: a linear LV lays the arrays end to end, each holding (array - pe_start) // extent
    extents, so array k's data starts k such runs into the LV, and must be a whole number of
    its full stripes (RAID0: chunks) there, or the filesystem's stripe straddles two of them."""
    r = compute(_linear(group, n))
    md = r.groups[0].md
    v = r.volumes[0]
    stripe = md.io_opt_bytes if group.level == 6 or group.level == 5 else md.chunk_bytes
    extent, pe_start = v.alignment.extent_bytes, v.alignment.pe_start_bytes
    per_array = (md.array_bytes - pe_start) // extent
    starts = [k * per_array * extent for k in range(n)]
    assert all(start % stripe == 0 for start in starts), [start % stripe for start in starts]
    assert v.lvm.pv_lv_offset_bytes == tuple(starts)
    assert v.block_device_bytes == n * per_array * extent
    assert not [f for f in r.findings if f.severity == "warning"]


def test_the_example_pod_gets_full_stripe_extents():
    r = compute(example_pod())
    v = r.volumes[0]
    assert v.alignment.extent_bytes == 6815744 and v.lvm.vgcreate_options == ("--physicalextentsize", "6656k")
    # 26,003,426,508,800-byte arrays are whole 6.5 MiB full stripes: after pe_start, nothing is left over.
    assert v.lvm.pv_lv_offset_bytes == (0, 26003419693056, 52006839386112)
    assert v.block_device_bytes == 3 * (26003426508800 - 6815744)
    steps = {s.key: s.removed_bytes for s in r.capacity}
    assert (steps["lvm"], steps["lvm_align"]) == (3 * 6815744, 0)
    assert not any("linear LVM keeps full-stripe alignment" in f.message for f in r.findings)


def test_whole_full_stripes_under_an_extent_are_their_own_waterfall_step():
    """RAID5 of 7: 3 MiB full stripes, 6 MiB extents. An array of an odd number of full stripes
    after pe_start leaves one full stripe past its last extent: that is the price of the alignment."""
    group = MdGroup(level=5, members=7, chunk=512 * KiB)
    r = compute(_linear(group, 3))
    md, v = r.groups[0].md, r.volumes[0]
    stripe, extent = 3 * MiB, 6 * MiB
    assert v.alignment.extent_bytes == extent
    full = (md.array_bytes - v.alignment.pe_start_bytes) // stripe
    by_hand = 3 * (full % 2) * stripe
    steps = {s.key: s for s in r.capacity}
    assert steps["lvm_align"].removed_bytes == by_hand
    assert steps["lvm"].removed_bytes + by_hand == r.array_bytes - v.block_device_bytes
    assert "full stripe" in steps["lvm_align"].note


def test_a_fixed_extent_that_cannot_fit_is_warned_with_the_arrays_and_the_cost():
    p = _linear(
        MdGroup(level=6, members=15, chunk=512 * KiB),
        3,
        disks=[DiskSet(count=45, size=2000398934016)],
        extent_size=4 * MiB,
    )
    r = compute(p)
    # 6,199,698 extents of 4 MiB per array: md1 starts 5 MiB past a 6.5 MiB full stripe, md2 3.5 MiB.
    assert r.volumes[0].lvm.pv_lv_offset_bytes == (0, 6199698 * 4 * MiB, 2 * 6199698 * 4 * MiB)
    (f,) = [f for f in r.findings if f.severity == "warning"]
    assert f.field == "lvm.extent_size" and f.layer == "lvm"
    for words in (
        "md1 starts 5M past a 6656K full stripe",
        "md2 3584K",
        "read-modify-write on RAID6",
        "leave it unset",
    ):
        assert words in f.message, f.message
    assert "md0" not in f.message


def test_arrays_of_another_geometry_are_named():
    p = plan(
        [
            MdGroup(name="a", level=6, members=15, chunk=512 * KiB),
            MdGroup(name="b", level=6, members=14, chunk=512 * KiB),
        ],
        lvm=Lvm(enabled=True),
    )
    r = compute(p)
    start = r.volumes[0].lvm.pv_lv_offset_bytes[1]
    assert start % (12 * 512 * KiB)  # b's 6 MiB full stripe does not divide where it starts
    has(p, "warning", "different full stripes")
    (f,) = [f for f in r.findings if "starts" in f.message]
    assert f.field == "groups" and "b starts" in f.message and "past a 6M full stripe" in f.message


def test_the_striped_info_no_longer_claims_linear_lvm_keeps_alignment():
    p = plan(
        [MdGroup(name=f"md{i}", level=6, members=15, chunk=512 * KiB) for i in range(3)],
        lvm=Lvm(enabled=True, mode="striped", stripe_size=4 * MiB),
    )
    assert not any("linear LVM keeps full-stripe alignment" in m for _, m in messages(p))
    has(p, "info", "a linear LV whose extent is a multiple of it")
    # Striped keeps LVM's 4 MiB: device-mapper wants each stripe in whole stripe sizes, 4 MiB of them here.
    assert compute(p).volumes[0].lvm.extent_bytes == 4 * MiB
