"""What fits in a btrfs until ENOSPC (fits_bytes) against real fills: mkfs.btrfs on sparse loop devices, mounted,
then files reserved with fallocate, 1 GiB each until ENOSPC, then halving down to 1 MiB (runners.probes.btrfs.fill).
Over mixed sizes under a mirrored profile df's available is the kernel's estimate, far under what the fill stores."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planners.errors import PlanError
from planners.fs.btrfs import PROFILES, btrfs_layout
from planners.fs.btrfs_fill import fill
from planners.fs.btrfs_geometry import btrfs_geometry
from runners.probes.btrfs import measure_fill

MiB, GiB = 1 << 20, 1 << 30
TOLERANCE = 0.0025  # the bound: within 0.25 % of a real fill


@pytest.fixture
def tools(btrfs_host: None) -> None:
    """The host's btrfs tools and kernel (tests/conftest.py skips without them)."""


def _opts(data: str | None, meta: str | None) -> list[str]:
    return (["-d", data] if data else []) + (["-m", meta] if meta else [])


# The sets: df's available is 20.4 GB and 11.8 GB under RAID1, while the fills store 31.1 and 20.4 GB.
MIXED = [
    ([10 * GiB, 20 * GiB, 30 * GiB], "raid1", None),
    ([10 * GiB, 10 * GiB, 40 * GiB], "raid1", None),
    ([10 * GiB, 10 * GiB, 40 * GiB], "raid1c3", "raid1c3"),
]


@pytest.mark.root
@pytest.mark.parametrize(("sizes", "data", "meta"), MIXED, ids=["raid1-10+20+30", "raid1-10+10+40", "raid1c3-10+10+40"])
def test_fits_is_what_a_fill_stores_where_df_says_less(tools, sizes, data, meta):
    g = btrfs_geometry(sizes, data_profile=data, metadata_profile=meta)
    real = measure_fill(sizes, _opts(data, meta))
    # The fill stores every data chunk's bytes but what its last 1 MiB file could not take.
    assert g.fits_bytes - 2 * MiB < real.stored_bytes <= g.fits_bytes
    assert g.stranded_bytes == sum(real.unallocated)
    if data == "raid1":
        assert g.df_available_bytes < 0.7 * real.stored_bytes  # df's estimate: what the old figure showed


def test_the_stranded_figure_is_what_a_fill_leaves():
    """RAID1 over 10+20+30 GiB pairs everything: 4 MiB is left (each device's first MiB and one more), where the
    estimate behind df counted 21.5 GB no mirror could pair."""
    g = btrfs_geometry([10 * GiB, 20 * GiB, 30 * GiB], data_profile="raid1")
    assert g.stranded_bytes == 4 * MiB and g.fits_bytes == 31_128_027_136 and g.df_available_bytes == 20_391_657_472
    lopsided = btrfs_geometry([10 * GiB, 10 * GiB, 40 * GiB], data_profile="raid1")
    assert lopsided.stranded_bytes == 20 * GiB + 4 * MiB  # the 40 GiB device past what the two 10 GiB pair


# Metadata single is left out: mkfs.btrfs then keeps only its 8 MiB temporary metadata chunk, and the kernel
# adds metadata chunks while the fill runs, at moments the model does not follow (seen: none, or two of
# 256 MiB, and up to 0.9 % less stored). Every other metadata profile gets a real chunk from mkfs that the
# fill's few hundred extent items never outgrow.
METADATA = [None, *(p for p in PROFILES if p != "single")]


@pytest.mark.root
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sizes=st.lists(st.integers(1024, 8000).map(lambda m: m * MiB + (m % 7) * 4096), min_size=1, max_size=6),
    data=st.sampled_from(list(PROFILES)),
    meta=st.sampled_from(METADATA),
)
def test_mixed_sets_fill_to_fits(tools, sizes, data, meta):
    try:
        layout = btrfs_layout(sizes, data_profile=data, metadata_profile=meta)
    except PlanError:
        return  # mkfs.btrfs refuses these as well (tests/test_btrfs.py holds the refusals against it)
    model = fill(layout)
    real = measure_fill(sizes, _opts(data, meta))
    assert abs(model.fits_bytes - real.stored_bytes) <= TOLERANCE * real.stored_bytes, (sizes, data, meta)
    assert abs(sum(model.unallocated) - sum(real.unallocated)) <= TOLERANCE * sum(layout.device_bytes)


def test_a_45_disk_pod_taken_in_runs_of_alike_chunks_fills_as_chunk_by_chunk():
    """A run of alike chunks is taken at once (benchmarks/bench_btrfs_fill.py times it); the bytes are those
    the chunk-at-a-time walk gives."""
    g = btrfs_geometry([4_000_787_030_016] * 45, data_profile="raid1")
    assert g.fits_bytes == 90_016_598_327_296  # what the chunk-at-a-time walk gives
    assert g.stranded_bytes < 64 * MiB and g.fill_parity_bytes == 0


def _plan(sizes: list[int], data: str, meta: str | None = None):
    from planners.models import DiskSet, Filesystem, Plan

    return Plan(
        name="bt",
        disks=[DiskSet(count=1, size=s, physical_sector=512) for s in sizes],
        filesystem=Filesystem(type="btrfs", data_profile=data, metadata_profile=meta),
    )


def test_the_waterfall_ends_at_what_fits_with_parity_on_its_own_row():
    from planners.compute import compute

    r = compute(_plan([4 * 10**12] * 3 + [8 * 10**12], "raid5", "raid1"))
    b = r.volumes[0].btrfs
    assert b is not None
    steps = {s.key: s for s in r.capacity}
    # RAID5 over 4+4+4+8 TB: a parity stripe a chunk; 4 TB of the 8 TB device (less a metadata chunk) is left alone
    assert steps["parity"].label == "btrfs parity" and steps["parity"].removed_bytes == b.fill_parity_bytes > 3 * 10**12
    assert "md_redundancy" not in steps and "reserved" not in steps  # no md, no copies: no such row
    assert 4 * 10**12 - 2 * GiB < steps["stranded"].removed_bytes == b.stranded_bytes < 4 * 10**12 + GiB
    assert r.usable_bytes == b.fits_bytes == r.capacity[-1].remaining_bytes >= r.volumes[0].df_available_bytes


def test_the_sweep_ranks_btrfs_by_what_fits():
    from planners.compute import compute
    from planners.layouts.sweep import sweep

    plan = _plan([10 * GiB, 20 * GiB, 30 * GiB], "raid1")
    rows = {r.label: r for r in sweep(plan, max_loss=1.0, max_rebuild_loss=1.0).rows}
    mirrored = rows["btrfs raid1/raid1"]
    assert mirrored.usable_bytes == compute(mirrored.plan).volumes[0].btrfs.fits_bytes == 31_128_027_136  # type: ignore[union-attr]


@pytest.mark.root
def test_metadata_single_fits_less_and_says_so(tools):
    """The case the model leaves out (see METADATA): the real fill stores less than fits_bytes, and the plan says why."""
    from planners.compute import compute

    sizes = [1505 * MiB, 4469 * MiB]
    r = compute(_plan(sizes, "raid0", "single"))
    assert any("metadata single keeps only" in f.message for f in r.findings)
    real = measure_fill(sizes, _opts("raid0", "single"))
    assert real.stored_bytes < r.usable_bytes - 128 * MiB  # seen: 4.5 % less, a metadata chunk and more
    assert not any("metadata single" in f.message for f in compute(_plan(sizes, "raid0", "dup")).findings)
