"""LVM arithmetic: pe_start rules, extents, striped allocation, validation; parsers on real output."""

import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planners.errors import PlanError
from planners.lvm.geometry import aligned_extent, lvm_volume, metadata_area_end, pe_start_bytes
from planners.units import GiB, KiB, MiB
from runners.exec import run
from runners.probes.loopdev import sparse_loops
from runners.probes.lvm import LV_FIELDS, find_lv, lvm_sandbox, parse_lvs, parse_pvs, parse_vgs, report_argv

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "lvm"


@pytest.mark.parametrize(
    ("io_min", "io_opt", "expected"),
    [
        (0, 0, MiB),
        (512, 0, MiB),
        (4096, 0, MiB),
        (512 * KiB, 1 * MiB, MiB),
        (512 * KiB, 3 * MiB, 3 * MiB),  # RAID6 of 8, 512 KiB chunks
        (512 * KiB, 13 * 512 * KiB, 6656 * KiB),  # replaced, not an LCM
        (64 * KiB, 192 * KiB, 1152 * KiB),  # 1 MiB % 192 KiB != 0: alignment 192 KiB, end rounded up
        (2 * MiB, 4 * MiB, 4 * MiB),
        (2 * MiB, 0, 2 * MiB),
        (100, 0, MiB),  # under a sector counts as one sector
    ],
)
def test_pe_start_follows_the_queue_limits(io_min, io_opt, expected):
    assert pe_start_bytes(io_min, io_opt) == expected


def test_pe_start_with_explicit_alignment_and_offset():
    assert pe_start_bytes(512 * KiB, 3 * MiB, data_alignment=64 * KiB) == MiB
    assert pe_start_bytes(0, 0, data_alignment=768 * KiB) == 1536 * KiB
    assert pe_start_bytes(0, 0, data_alignment=MiB, data_alignment_offset=3584) == MiB + 3584
    with pytest.raises(PlanError, match="must not exceed"):
        pe_start_bytes(0, 0, data_alignment=64 * KiB, data_alignment_offset=128 * KiB)
    with pytest.raises(PlanError, match="multiple of 512"):
        pe_start_bytes(0, 0, data_alignment=1000)


def test_older_lvm2_had_a_smaller_metadata_area():
    assert metadata_area_end((2, 3, 16)) == MiB
    assert metadata_area_end((2, 2, 187)) == 4096 + 255 * 512
    assert pe_start_bytes(0, 0, data_alignment=64 * KiB, lvm2=(2, 2, 187)) == 192 * KiB
    assert pe_start_bytes(0, 0, lvm2=(2, 2, 187)) == MiB


def test_linear_volume_over_mixed_pvs():
    g = lvm_volume([GiB, 3 * GiB], pe_start=MiB)
    assert g.pv_extents == (255, 767)
    assert g.lv_extents == g.vg_extents == 1022 and g.vg_free_extents == 0
    assert g.lv_bytes == 1022 * 4 * MiB
    assert g.pvcreate_options == ("--dataalignment", "1024k")
    assert g.vgcreate_options == ("--physicalextentsize", "4096k")
    assert g.lvcreate_options == ("--extents", "100%FREE")
    assert g.stripe_bytes is None


def test_striped_volume_takes_equal_runs_on_the_fullest_pvs():
    g = lvm_volume([GiB, 3 * GiB, GiB + 5 * MiB], pe_start=1536 * KiB, stripes=2, stripe_bytes=64 * KiB)
    assert g.pv_extents == (255, 767, 256)
    assert g.lv_extents == 1022 and g.lv_pv_extents == (255, 511, 256)
    assert g.lvcreate_options == ("--extents", "100%FREE", "--stripes", "2", "--stripesize", "64k")
    # Three equal PVs, two stripes: one PV's worth is left over.
    g3 = lvm_volume([GiB] * 3, pe_start=MiB, stripes=2)
    assert g3.lv_extents == 2 * 255 and g3.stripe_bytes == 64 * KiB


def test_percentages_and_counts():
    assert lvm_volume([GiB] * 2, pe_start=MiB, lv_extents="50%FREE").lv_extents == 255
    assert lvm_volume([GiB] * 2, pe_start=MiB, lv_extents="60%VG").lv_extents == 306
    # 255 of 510 asked in 2 stripes: rounded up to 256.
    assert lvm_volume([GiB] * 2, pe_start=MiB, stripes=2, lv_extents=255).lv_extents == 256
    # 50% of 510 = 255, which rounds up to 256 since that still fits.
    assert lvm_volume([GiB] * 2, pe_start=MiB, stripes=2, lv_extents="50%FREE").lv_extents == 256
    with pytest.raises(PlanError, match="room for 510 of the 600"):
        lvm_volume([GiB] * 2, pe_start=MiB, lv_extents=600)


def test_non_power_of_two_extents():
    g = lvm_volume([GiB] * 2, pe_start=6656 * KiB, extent_bytes=384 * KiB, lv_extents="60%VG")
    assert g.pv_extents == (2713, 2713) and g.lv_extents == 3255
    assert g.vgcreate_options == ("--physicalextentsize", "384k")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(extent_bytes=3 * MiB + 64 * KiB), "power of two or a multiple of 128 KiB"),
        (dict(extent_bytes=1000), "multiple of 512"),
        (dict(stripes=3), "at least 3 PVs"),
        (dict(stripes=129), "between 1 and 128"),
        (dict(stripes=0), "between 1 and 128"),
        (dict(stripes=2, stripe_bytes=96 * KiB), "power of two"),
        (dict(stripes=2, stripe_bytes=2 * KiB), "at least 4 KiB"),
        (dict(stripes=2, stripe_bytes=8 * MiB), "larger than the extent size"),
        (dict(stripe_bytes=64 * KiB), "linear LV"),
        (dict(lv_extents="120%FREE"), "1-100%FREE"),
        (dict(lv_extents="all"), "1-100%FREE"),
        (dict(lv_extents=0), "at least one extent"),
        (dict(pe_start=1000), "multiple of 512"),
    ],
)
def test_invalid_volumes_are_refused(kwargs, match):
    args = dict(pe_start=MiB) | kwargs
    with pytest.raises(PlanError, match=match) as err:
        lvm_volume([GiB] * 2, **args)
    assert "\n" not in err.value.message


def test_too_small_pvs_are_refused():
    with pytest.raises(PlanError, match="2 MiB minimum"):
        lvm_volume([MiB], pe_start=MiB)
    with pytest.raises(PlanError, match="no room for one"):
        lvm_volume([4 * MiB], pe_start=MiB)
    with pytest.raises(PlanError, match=r"one PV|at least one physical"):
        lvm_volume([], pe_start=MiB)


@settings(max_examples=200, deadline=None)
@given(
    pvs=st.lists(st.integers(min_value=8 * MiB, max_value=1 << 44), min_size=1, max_size=8),
    extent=st.sampled_from([MiB, 4 * MiB, 32 * MiB, 384 * KiB, 3 * MiB]),
    stripes=st.integers(min_value=1, max_value=8),
    pe_start=st.sampled_from([MiB, 1536 * KiB, 6656 * KiB]),
)
def test_allocation_properties(pvs, extent, stripes, pe_start):
    stripes = min(stripes, len(pvs))
    try:
        g = lvm_volume(
            pvs, pe_start=pe_start, extent_bytes=extent, stripes=stripes, stripe_bytes=None if stripes == 1 else 4 * KiB
        )
    except PlanError as e:
        assert "no room for one" in e.message
        return
    assert g.lv_extents % stripes == 0
    assert all(0 <= t <= p for t, p in zip(g.lv_pv_extents, g.pv_extents, strict=True))
    assert sum(g.lv_pv_extents) == g.lv_extents
    for size, pe in zip(pvs, g.pv_extents, strict=True):
        assert pe_start + pe * extent <= size < pe_start + (pe + 1) * extent + 512
    if stripes == 1:
        assert g.lv_extents == g.vg_extents
    else:
        # Never more than a perfect split, never less than the smallest PV in every stripe.
        assert g.lv_extents <= g.vg_extents - g.vg_extents % stripes
        assert g.lv_extents >= stripes * sorted(g.pv_extents)[-stripes]


def test_parsers_read_real_reports():
    pvs = parse_pvs((FIXTURES / "pvs_in_vg.json").read_text())
    assert [p.pe_start_bytes for p in pvs] == [1572864] * 3
    assert [p.pe_count for p in pvs] == [255, 767, 256]
    assert [p.pe_alloc_count for p in pvs] == [255, 511, 256]
    assert pvs[0].dev_bytes == GiB
    orphans = parse_pvs((FIXTURES / "pvs_orphans.json").read_text())
    assert [p.pe_count for p in orphans] == [0, 0, 0]
    vg = parse_vgs((FIXTURES / "vgs.json").read_text())[0]
    assert (vg.extent_bytes, vg.extent_count, vg.free_count) == (4 * MiB, 1278, 256)
    lv = parse_lvs((FIXTURES / "lvs_striped_segments.json").read_text())[0]
    assert (lv.extents, lv.stripes, lv.stripe_bytes, lv.segments) == (1022, 2, 64 * KiB, 2)
    assert lv.lv_bytes == 1022 * 4 * MiB
    linear = parse_lvs((FIXTURES / "lvs_linear_segments.json").read_text())[0]
    assert (linear.extents, linear.stripes, linear.stripe_bytes, linear.segments) == (3255, 1, 0, 2)
    fake = parse_pvs((FIXTURES / "pvs_fake_limits_in_vg.json").read_text())
    assert {p.pe_start_bytes for p in fake} == {13 * 512 * KiB}
    assert parse_vgs((FIXTURES / "vgs_384k_extents.json").read_text())[0].extent_bytes == 384 * KiB


def test_segment_table_says_where_each_pv_starts_in_the_lv():
    """Recorded from lvm2 2.03.16: `lvs --segments -o ...,seg_start,seg_pe_ranges` of a linear LV over the
    example pod's three arrays with 6656 KiB extents (pvcreate --dataalignment 6656k, lvcreate -l 100%FREE)."""
    lv = parse_lvs((FIXTURES / "lvs_pod45_aligned.json").read_text())[0]
    assert [(s.start_bytes, s.extents, s.pe_ranges) for s in lv.segment_table] == [
        (0, 3815199, ("/dev/loop0:0-3815198",)),
        (26003419693056, 3815199, ("/dev/loop1:0-3815198",)),
        (52006839386112, 3815199, ("/dev/loop2:0-3815198",)),
    ]
    assert [lv.start_on(f"/dev/loop{i}") for i in range(4)] == [0, 26003419693056, 52006839386112, None]
    g = lvm_volume([26003426508800] * 3, pe_start=13 * 512 * KiB, extent_bytes=aligned_extent(13 * 512 * KiB))
    assert g.pv_lv_offset_bytes == (0, 26003419693056, 52006839386112) and g.lv_bytes == lv.lv_bytes
    striped = parse_lvs((FIXTURES / "lvs_striped_segments.json").read_text())[0]
    assert striped.segment_table == ()  # recorded before seg_start was asked for


@pytest.mark.parametrize(
    ("unit", "extent"),
    [
        (0, 4 * MiB),  # RAID1: nothing to align to, LVM's default
        (MiB, 4 * MiB),  # 4 MiB is already whole full stripes
        (4 * MiB, 4 * MiB),
        (13 * 512 * KiB, 13 * 512 * KiB),  # RAID6 of 15, 512 KiB chunk: the 6.5 MiB full stripe itself
        (3 * MiB, 6 * MiB),  # RAID5 of 7: the first multiple at least 4 MiB
        (8 * MiB, 8 * MiB),  # RAID0 of 16 x 512 KiB: a power of two above 4 MiB
        (192 * KiB, 4224 * KiB),  # 3 x 64 KiB is no multiple of 128 KiB: lcm 384 KiB, 11 of them
        (13 * 64 * KiB, 4992 * KiB),  # 832 KiB: lcm 1664 KiB, 3 of them
    ],
)
def test_aligned_extent(unit, extent):
    got = aligned_extent(unit)
    assert got == extent
    assert unit == 0 or got % unit == 0
    assert got >= 4 * MiB and (got & (got - 1) == 0 or got % (128 * KiB) == 0)


def test_linear_offsets_follow_lvcreates_order():
    """Linear lvcreate takes the largest PV first (ties in VG order); each PV's data follows the last."""
    g = lvm_volume([GiB, 3 * GiB, 2 * GiB], pe_start=MiB, extent_bytes=4 * MiB)
    e = g.pv_extents
    assert g.pv_lv_offset_bytes == ((e[1] + e[2]) * 4 * MiB, 0, e[1] * 4 * MiB)
    s = lvm_volume([GiB] * 2, pe_start=MiB, stripes=2, stripe_bytes=64 * KiB)
    assert s.pv_lv_offset_bytes == (None, None)


def test_reports_agree_with_the_planner():
    """The recorded runs were made with these inputs; the planner must give the same figures."""
    g = lvm_volume(
        [GiB, 3 * GiB, GiB + 5 * MiB],
        pe_start=pe_start_bytes(512, 0, data_alignment=1536 * KiB),
        stripes=2,
        stripe_bytes=64 * KiB,
    )
    pvs = parse_pvs((FIXTURES / "pvs_in_vg.json").read_text())
    assert g.pv_extents == tuple(p.pe_count for p in pvs)
    assert g.lv_pv_extents == tuple(p.pe_alloc_count for p in pvs)
    assert g.lv_bytes == parse_lvs((FIXTURES / "lvs_striped_segments.json").read_text())[0].lv_bytes
    fake = lvm_volume(
        [GiB] * 2, pe_start=pe_start_bytes(512 * KiB, 13 * 512 * KiB), extent_bytes=384 * KiB, lv_extents="60%VG"
    )
    vg = parse_vgs((FIXTURES / "vgs_384k_extents.json").read_text())[0]
    assert (fake.vg_extents, fake.vg_free_extents) == (vg.extent_count, vg.free_count)


def test_same_lv_name_in_two_vgs_is_two_lvs():
    """Real lvs over two VGs, each with an LV called `data` of its own size: folding the report by
    LV name alone summed both LVs' extents into one (the lab once read another VG's LV this way)."""
    quiet = ["--yes", "--zero", "n", "--wipesignatures", "n", "--name", "data"]
    with sparse_loops([64 * MiB, 64 * MiB]) as (a, b), lvm_sandbox([a, b]) as env:
        try:
            for argv in (
                ["vgcreate", "vga", a],
                ["vgcreate", "vgb", b],
                ["lvcreate", *quiet, "-l", "3", "vga"],
                ["lvcreate", *quiet, "-l", "5", "vgb"],
            ):
                run(argv, env=env, timeout=60)
            fields = f"{LV_FIELDS},vg_name"
            lvs = parse_lvs(run(report_argv("lvs", fields, "vga", "vgb", segments=True), env=env, timeout=60).stdout)
        finally:
            run(["vgremove", "--force", "--force", "--yes", "vga", "vgb"], env=env, timeout=60, check=False)
    assert sorted((lv.vg, lv.name, lv.extents) for lv in lvs) == [("vga", "data", 3), ("vgb", "data", 5)]
    assert find_lv(lvs, "vgb", "data").extents == 5
    assert find_lv(lvs, "vgc", "data") is None
