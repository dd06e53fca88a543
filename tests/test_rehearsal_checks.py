"""What the lab rehearsals count as a match, without booting the VM: a band from 0 witnesses nothing,
and the growth rehearsal holds the alignment the grow script claims to fix (ext4 stride and stripe
width, readahead) against what the VM found, not only the sizes."""

from __future__ import annotations

from planners.grow import Growth
from runners.lab.collect import BlockDevice, FilesystemFound, LabCollection, MdArray
from runners.lab.failure import FailureCheck
from runners.lab.growth import compare_growth
from runners.probes.ext4 import DumpE2fsHeader
from tests.test_grow_planner import TB, grow, plan


def test_a_band_from_zero_is_not_witnessed_and_not_a_match():
    loose = FailureCheck(figure="MB/s during a rebuild", predicted=120.0, low=0.0, actual=3.0, tolerance=0.25)
    assert not loose.witnessed and not loose.match  # any figure under 150 fell in it: it said nothing
    band = FailureCheck(figure="rebuild (s)", predicted=30.0, low=20.0, actual=25.0, tolerance=0.25)
    assert band.witnessed and band.match
    assert not band.model_copy(update={"actual": 40.0}).match
    exact = FailureCheck(figure="MB/s", predicted=100.0, actual=110.0, tolerance=0.25)
    assert exact.witnessed and exact.match


def _collection(g: Growth, stride: int, width: int, ra: int) -> LabCollection:
    a = g.arrays[0]
    md = MdArray.model_construct(
        name="md127", level=f"raid{a.level_after}", raid_devices=a.members_after, array_bytes=a.array_bytes_after,
        export={"MD_DEVNAME": a.name},
    )  # fmt: skip
    ext = DumpE2fsHeader.model_construct(stride=stride, stripe_width=width)
    fs = FilesystemFound.model_construct(
        device="md127", fstype="ext4", ext=ext, mountpoint=g.mount_point,
        df_size=g.df_size_bytes_after, df_avail=g.df_available_bytes_after,
    )  # fmt: skip
    blk = BlockDevice.model_construct(name="md127", ra_sectors=ra, dm_name=None)
    return LabCollection.model_construct(md=(md,), block={"md127": blk}, filesystems=(fs,), lvs=())


def test_the_growth_rehearsal_compares_the_alignment_the_grow_script_fixes():
    g = grow(plan(fs="ext4", members=6, disk=2 * TB), add_disks=2)
    fixed = {c.layer: c for c in g.alignment if c.in_script}
    assert fixed["filesystem"].ideal == "stride=128,stripe_width=768"
    ra = int(fixed["tuning"].ideal)
    outputs = {"growth.txt": "data_intact=yes\n"}

    right = compare_growth(plan(fs="ext4", members=8, disk=2 * TB), g, _collection(g, 128, 768, ra), outputs)
    aligned = [c for c in right if c.layer in ("filesystem", "tuning") and "after the growth" in c.figure]
    assert [c.figure for c in aligned] == [
        "ext4 stride/stripe_width (blocks) after the growth",
        "readahead (512-byte sectors) after the growth",
    ]
    assert all(c.match for c in right), [c for c in right if not c.match]

    # The sizes all match, but the grow step left the old stripe width and readahead: two mismatches.
    stale = compare_growth(plan(fs="ext4", members=8, disk=2 * TB), g, _collection(g, 128, 512, ra // 2), outputs)
    assert [c.figure for c in stale if not c.match] == [c.figure for c in aligned]
