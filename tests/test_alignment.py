"""The alignment chain and the checker: each misalignment is named, a clean plan has none."""

import itertools

import pytest

from planners.compute import compute
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
    p = plan([MdGroup(name=f"md{i}", level=6, members=10, chunk=64 * KiB) for i in range(2)],
             lvm=Lvm(enabled=True, mode="striped", stripe_size=64 * KiB))
    has(p, "warning", "not a multiple of the md full stripe")


def test_lvm_stripe_equal_to_md_stripe_is_fine():
    p = plan([MdGroup(name=f"md{i}", level=6, members=10, chunk=64 * KiB) for i in range(2)],
             lvm=Lvm(enabled=True, mode="striped", stripe_size=512 * KiB))
    assert [m for s, m in messages(p) if s != "info"] == []
    a = compute(p).volumes[0].alignment
    assert (a.xfs_su_bytes, a.xfs_sw) == (512 * KiB, 2)


def test_non_power_of_two_stripe_cannot_be_matched_by_lvm():
    p = plan([MdGroup(name=f"md{i}", level=6, members=15, chunk=512 * KiB) for i in range(3)],
             lvm=Lvm(enabled=True, mode="striped", stripe_size=4 * MiB))
    has(p, "info", "not a power of two")


def test_pe_start_off_the_stripe():
    p = plan([MdGroup(level=6, members=15, chunk=512 * KiB)], lvm=Lvm(enabled=True, data_alignment=1 * MiB))
    has(p, "warning", "not a multiple of the md full stripe")


def test_groups_with_different_stripes():
    p = plan([MdGroup(name="a", level=6, members=10, chunk=64 * KiB), MdGroup(name="b", level=6, members=8, chunk=64 * KiB)],
             lvm=Lvm(enabled=True))
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
    p = Plan(disks=[DiskSet(count=3, size=TB4), DiskSet(count=6, size=2 * TB4)],
             groups=[MdGroup(name="a", level=5, members=4), MdGroup(name="b", level=5, members=4)])
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
    p = plan([MdGroup(name=f"md{i}", level=6, members=14, spares=1, chunk=512 * KiB) for i in range(3)],
             lvm=Lvm(enabled=True))
    r = compute(p)
    steps = r.capacity
    assert steps[0].remaining_bytes == r.raw_bytes
    for prev, cur in itertools.pairwise(steps):
        assert cur.remaining_bytes == prev.remaining_bytes - cur.removed_bytes
        assert cur.removed_bytes >= 0
    assert steps[-1].remaining_bytes == r.usable_bytes
    assert {s.key: s.removed_bytes for s in steps}["spares"] == 3 * TB4
