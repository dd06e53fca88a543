"""md geometry: table tests from figures seen on real arrays, validation, and properties."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planners.errors import PlanError
from planners.md.geometry import md_geometry
from planners.md.rules import bitmap_space_sectors, choose_bitmap_chunk, data_offset_sectors
from planners.units import GiB, KiB, MiB, TiB

TB = 10**12

# Seen on a real kernel (mdadm 4.2, 8 x 256 MiB, RAID6): offset and array size.
SEEN = [
    (64 * KiB, 2048, 1566720 * KiB),
    (512 * KiB, 4096, 1560576 * KiB),
]


@pytest.mark.parametrize(("chunk", "offset", "array"), SEEN)
@pytest.mark.parametrize("bitmap", ["internal", "none"])
def test_raid6_of_eight_small_disks_matches_a_real_array(chunk, offset, array, bitmap):
    g = md_geometry([256 * MiB] * 8, level=6, chunk_bytes=chunk, bitmap=bitmap)
    assert g.data_offset_sectors == offset
    assert g.array_bytes == array
    assert g.data_disks == 6
    assert (g.io_min_bytes, g.io_opt_bytes) == (chunk, 6 * chunk)


def test_printed_sizes_from_mdadm_on_this_kind_of_host():
    # 'size set to' lines recorded from mdadm 4.2 over 1 GiB loop devices.
    assert md_geometry([GiB] * 3, level=5, chunk_bytes=64 * KiB).component_kib == 1046528
    assert md_geometry([GiB] * 3, level=1, metadata="1.0", bitmap="none").component_kib == 1048512
    assert md_geometry([GiB] * 3, level=5, chunk_bytes=4 * MiB, metadata="1.1").component_kib == 1036288
    assert md_geometry([20 * TB] * 4, level=6).component_bytes == 19999864389632


def test_defaults_and_options():
    g = md_geometry([4 * TB] * 6, level=6)
    assert g.chunk_bytes == 512 * KiB and g.layout == "left-symmetric" and g.metadata == "1.2"
    assert g.data_offset_sectors == 264192  # 128 MiB headroom + 128 KiB bitmap room, rounded to 1 MiB
    assert g.create_options == (
        "--level=6",
        "--raid-devices=6",
        "--layout=left-symmetric",
        "--chunk=512K",
        "--metadata=1.2",
        "--bitmap=internal",
    )
    assert g.bitmap_chunk_bytes == 64 * MiB


def test_raid1_has_no_chunk_and_rounds_to_64k():
    g = md_geometry([GiB + 100 * KiB] * 2, level=1)
    assert g.chunk_bytes is None and g.layout is None
    assert g.component_bytes % (64 * KiB) == 0
    assert g.array_bytes == g.component_bytes
    assert (g.io_min_bytes, g.io_opt_bytes) == (0, 0)
    assert "--chunk" not in " ".join(g.create_options)
    with pytest.raises(PlanError, match="RAID1 has no chunk"):
        md_geometry([GiB] * 2, level=1, chunk_bytes=64 * KiB)
    # mdadm before 4.2 ignored the chunk instead.
    assert md_geometry([GiB] * 2, level=1, chunk_bytes=64 * KiB, mdadm=(4, 1)).chunk_bytes is None


def test_raid10_odd_members_give_a_fractional_disk_count():
    g = md_geometry([GiB] * 3, level=10, chunk_bytes=64 * KiB)
    assert g.layout == "n2" and g.data_disks == Fraction(3, 2)
    chunks = g.component_bytes // (64 * KiB)
    assert g.array_bytes == chunks * 3 // 2 * 64 * KiB
    assert g.io_opt_bytes == 3 * 64 * KiB  # 3 % 2 != 0: the kernel reports chunk x members
    f2 = md_geometry([GiB] * 4, level=10, layout="f2", chunk_bytes=64 * KiB)
    assert f2.io_opt_bytes == 4 * 64 * KiB and f2.far_copies == 2
    assert f2.array_bytes == (f2.component_bytes // (64 * KiB)) // 2 * 4 * 64 * KiB
    n2 = md_geometry([GiB] * 4, level=10, chunk_bytes=64 * KiB)
    assert n2.io_opt_bytes == 2 * 64 * KiB


def test_raid0_sums_chunk_rounded_members_and_needs_no_bitmap():
    sizes = [GiB, 2 * GiB + 5000, 3 * GiB]
    g = md_geometry(sizes, level=0, chunk_bytes=64 * KiB)
    assert g.bitmap == "none" and g.bitmap_chunk_bytes is None
    assert not any(o.startswith("--bitmap") for o in g.create_options)
    assert g.layout == "original"  # several zones
    assert all(u % (64 * KiB) == 0 for u in g.member_used_bytes)
    assert g.array_bytes == sum(g.member_used_bytes)
    assert md_geometry([GiB] * 3, level=0).layout is None
    with pytest.raises(PlanError, match="RAID0"):
        md_geometry([GiB] * 2, level=0, bitmap_chunk_bytes=64 * MiB)
    with pytest.raises(PlanError, match=r"mdadm 4\.2 or newer"):
        md_geometry(sizes, level=0, chunk_bytes=64 * KiB, mdadm=(4, 1))
    assert md_geometry([GiB] * 3, level=0, mdadm=(4, 1)).layout is None


def test_v10_metadata_sits_at_the_end():
    g = md_geometry([GiB] * 4, level=5, metadata="1.0", chunk_bytes=64 * KiB)
    dev = GiB // 512
    assert g.data_offset_sectors == 0
    assert g.superblock_offset_sectors == ((dev - 16) & ~7,) * 4
    free = (dev & ~7) - 24 - bitmap_space_sectors(dev)
    assert g.component_bytes == (free // 2 - (free // 2) % 64) * KiB


def test_mixed_sizes_waste_the_excess_of_bigger_members():
    g = md_geometry([GiB, 2 * GiB, GiB], level=5, chunk_bytes=64 * KiB)
    assert g.component_bytes == md_geometry([GiB] * 3, level=5, chunk_bytes=64 * KiB).component_bytes
    assert g.member_unused_bytes[1] == GiB + g.member_unused_bytes[0]
    dumped = g.model_dump()
    assert dumped["member_unused_bytes"] == g.member_unused_bytes and dumped["data_offset_bytes"] == 2 * MiB


def test_headroom_jump_makes_a_slightly_bigger_disk_hold_less():
    # At 128 GiB the reshape headroom doubles from 64 MiB to 128 MiB.
    below = md_geometry([128 * GiB - 512] * 4, level=5)
    at = md_geometry([128 * GiB] * 4, level=5)
    assert at.data_offset_sectors - below.data_offset_sectors == 64 * MiB // 512
    assert at.component_bytes < below.component_bytes


def test_older_mdadm_rounded_the_offset_down():
    assert data_offset_sectors(2 * TiB // 512, 512, "1.2", (4, 0)) == 262144
    assert data_offset_sectors(2 * TiB // 512, 512, "1.2", (4, 2)) == 264192
    assert data_offset_sectors(20 * MiB // 512, 64, "1.2", (4, 0)) == 24 + 8 + 256  # headroom stops at two chunks
    with pytest.raises(PlanError, match=r"3\.3 or newer"):
        md_geometry([GiB] * 3, level=5, mdadm=(3, 2, 6))


def test_bitmap_chunk_rules():
    # 20 TB component: 128 KiB of room holds ~1M bits, so 64 MiB is the floor anyway.
    assert choose_bitmap_chunk(20 * TB // 512, 20 * TB // 512, None) == 64 * MiB
    with pytest.raises(PlanError, match="at least"):
        choose_bitmap_chunk(20 * TB // 512, 20 * TB // 512, 4 * KiB)
    g = md_geometry([GiB] * 3, level=5, bitmap_chunk_bytes=4 * MiB)
    assert g.bitmap_chunk_bytes == 4 * MiB and g.create_options[-1] == "--bitmap-chunk=4096K"
    with pytest.raises(PlanError, match="bitmap is none"):
        md_geometry([GiB] * 3, level=5, bitmap="none", bitmap_chunk_bytes=4 * MiB)
    with pytest.raises(PlanError, match="power of two"):
        md_geometry([GiB] * 3, level=5, bitmap_chunk_bytes=3 * MiB)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(member_bytes=[GiB] * 3, level=6), "at least 4 members"),
        (dict(member_bytes=[GiB], level=5), "at least 2 members"),
        (dict(member_bytes=[GiB], level=1), "at least 2 members"),
        (dict(member_bytes=[GiB] * 257, level=6), "256"),
        (dict(member_bytes=[GiB] * 3, level=7), "not one of"),
        (dict(member_bytes=[GiB] * 3, level=5, chunk_bytes=96 * KiB), "power of two"),
        (dict(member_bytes=[GiB] * 3, level=5, chunk_bytes=2 * KiB), "at least 4 KiB"),
        (dict(member_bytes=[GiB] * 2, level=10, layout="n3"), "at least 3 members"),
        (dict(member_bytes=[GiB] * 4, level=10, layout="f1"), "at least 2"),
        (dict(member_bytes=[GiB] * 4, level=10, layout="x2"), "n, f or o"),
        (dict(member_bytes=[GiB] * 4, level=5, layout="n2"), "left-symmetric"),
        (dict(member_bytes=[GiB] * 4, level=1, layout="n2"), "takes no layout"),
        (dict(member_bytes=[GiB] * 4, level=4, layout="left-symmetric"), "takes no layout"),
        (dict(member_bytes=[GiB, MiB, GiB], level=5), "member 2"),
        (dict(member_bytes=[GiB, 0, GiB], level=5), "positive"),
        (dict(member_bytes=[20 * MiB] * 3, level=5, chunk_bytes=32 * MiB), "no whole chunk"),
        (dict(member_bytes=[GiB] * 3, level=5, metadata="0.90"), "metadata"),
    ],
)
def test_impossible_arrays_are_refused_in_one_sentence(kwargs, match):
    with pytest.raises(PlanError, match=match) as err:
        md_geometry(**kwargs)
    assert "\n" not in err.value.message


def test_parity_layout_aliases():
    assert md_geometry([GiB] * 4, level=5, layout="ra").layout == "right-asymmetric"
    assert md_geometry([GiB] * 4, level=6, layout="parity-first").layout == "parity-first"


sizes = st.integers(min_value=20 * MiB, max_value=40 * TB)
chunks = st.sampled_from([4 * KiB << i for i in range(11)])


@st.composite
def arrays(draw):
    level = draw(st.sampled_from([0, 1, 4, 5, 6, 10]))
    n = draw(st.integers(min_value=4 if level == 6 else 2, max_value=12))
    same = draw(st.booleans())
    members = [draw(sizes)] * n if same else draw(st.lists(sizes, min_size=n, max_size=n))
    layout = None
    if level == 10:
        copies = draw(st.integers(min_value=2, max_value=min(3, n)))
        layout = draw(st.sampled_from("nfo")) + str(copies)
    chunk = None if level == 1 else draw(chunks)
    metadata = draw(st.sampled_from(["1.0", "1.1", "1.2"]))
    return dict(member_bytes=members, level=level, layout=layout, chunk_bytes=chunk, metadata=metadata)


@settings(max_examples=300, deadline=None)
@given(arrays())
def test_properties(kw):
    try:
        g = md_geometry(**kw)
    except PlanError as e:
        assert "member" in e.message and "too small" in e.message
        return
    for m, r, u, w in zip(
        g.member_bytes, g.member_reserved_bytes, g.member_used_bytes, g.member_unused_bytes, strict=True
    ):
        assert m == r + u + w and min(r, u, w) >= 0
    unit = g.chunk_bytes or 64 * KiB
    assert g.component_bytes % unit == 0 and g.component_bytes > 0
    assert g.array_bytes % 512 == 0 and g.array_bytes > 0
    if g.level in (1, 4, 5, 6):
        assert g.array_bytes == g.data_disks * g.component_bytes
    if g.level == 10:
        assert g.array_bytes <= g.data_disks * g.component_bytes
        assert g.array_bytes % g.chunk_bytes == 0
    if g.level == 0:
        assert g.array_bytes == sum(g.member_used_bytes) >= g.raid_devices * g.component_bytes
    if g.io_min_bytes:
        assert g.io_opt_bytes % g.io_min_bytes == 0
    if g.metadata != "1.0":
        assert g.data_offset_sectors % 2048 == 0
        assert g.data_offset_sectors >= 24 + g.bitmap_space_sectors
        assert g.data_offset_bytes <= 128 * MiB + 2 * MiB + 2 * (g.chunk_bytes or 0)
    else:
        assert g.data_offset_sectors == 0


def test_far_copies_that_leave_no_whole_set_of_chunks_are_refused():
    # 20 MiB members, 9 MiB of metadata (1.1), 4 MiB chunks: two chunks a member, three far copies of each.
    with pytest.raises(PlanError, match=r"member .* too small"):
        md_geometry([20 * MiB] * 3, level=10, layout="f3", chunk_bytes=4 * MiB, metadata="1.1")
