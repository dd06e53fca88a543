"""btrfs across raw devices against the real tools: mkfs.btrfs on loop devices, the chunks it leaves on each
device (`btrfs filesystem show --raw`), and statvfs of the mounted filesystem (what `df -B1` shows), for
every profile at its fewest devices and more, over mixed sizes (Hypothesis)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planners.errors import PlanError
from planners.fs.btrfs import PROFILES, btrfs_layout, default_profiles
from runners.exec import have
from runners.probes.btrfs import measure, parse_show

MiB, GiB = 1 << 20, 1 << 30


@pytest.fixture(scope="module")
def tools() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root for loop devices and mount")
    for tool in ("mkfs.btrfs", "btrfs", "losetup", "mount"):
        if not have(tool):
            pytest.skip(f"{tool} is not installed (scripts/dev.sh setup installs btrfs-progs)")
    with open("/proc/filesystems") as f:
        kernel_has_btrfs = "btrfs" in f.read()
    if not kernel_has_btrfs:
        pytest.skip("this kernel has no btrfs to mount")


def _check(sizes: list[int], data: str | None, meta: str | None) -> None:
    opts = (["-d", data] if data else []) + (["-m", meta] if meta else [])
    layout = btrfs_layout(sizes, data_profile=data, metadata_profile=meta)
    real = measure(sizes, opts)
    assert (list(real.used), real.df_size_bytes, real.df_available_bytes) == (
        list(layout.used), layout.df_size_bytes, layout.df_available_bytes), (sizes, data, meta)


# Each profile at its fewest devices and at a larger count, equal and mixed sizes.
CASES = [
    ([2 * GiB], None, None), ([20000 * MiB], None, None), ([2200 * MiB], None, None),
    ([2 * GiB, 2 * GiB], None, None), ([1024 * MiB] * 3, None, None), ([3000 * MiB, 1000 * MiB, 1000 * MiB], None, None),
    ([2 * GiB] * 3, "raid0", "raid1"), ([2 * GiB, 3 * GiB, 5000 * MiB], "raid1", None),
    ([1000 * MiB, 1000 * MiB, 3000 * MiB, 2000 * MiB], "raid1", "raid1"),
    ([2 * GiB, 3 * GiB, 5000 * MiB], "raid5", None), ([2 * GiB, 3 * GiB, 5000 * MiB, 1000 * MiB], "raid10", "raid1c3"),
    ([3 * GiB] * 3, "raid1c3", "raid1c3"), ([2 * GiB] * 4, "raid1c4", "raid1c4"), ([2 * GiB] * 4, "raid6", "raid6"),
    ([2 * GiB] * 6, "raid6", "raid1c3"), ([4 * GiB, 1 * GiB], "dup", "dup"), ([2 * GiB] * 6, "raid10", "raid10"),
]


@pytest.mark.root
@pytest.mark.parametrize(("sizes", "data", "meta"), CASES, ids=[f"{len(c[0])}x-{c[1]}-{c[2]}" for c in CASES])
def test_chunks_and_df_match_mkfs_and_the_kernel(tools, sizes, data, meta):
    _check(sizes, data, meta)


@pytest.mark.root
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.lists(st.integers(1024, 12000).map(lambda m: m * MiB + st_sector_tail(m)), min_size=1, max_size=6),
       data=st.sampled_from([None, *PROFILES]), meta=st.sampled_from([None, "dup", "raid1", "raid1c3", "single"]))
def test_mixed_sets_match(tools, sizes, data, meta):
    try:
        btrfs_layout(sizes, data_profile=data, metadata_profile=meta)
    except PlanError:
        return  # too few devices for a profile: mkfs.btrfs refuses those as well (see the refusal test)
    _check(sizes, data, meta)


def st_sector_tail(m: int) -> int:
    """Some sizes end off a whole MiB (in whole 4 KiB sectors), as real disks do."""
    return (m % 7) * 4096


def test_too_few_devices_are_refused_as_mkfs_does():
    with pytest.raises(PlanError, match="raid10"):
        btrfs_layout([GiB] * 3, data_profile="raid10")
    with pytest.raises(PlanError, match="raid1c3"):
        btrfs_layout([GiB] * 2, metadata_profile="raid1c3")
    with pytest.raises(PlanError, match="not one of"):
        btrfs_layout([GiB], data_profile="raid7")


def test_defaults_and_stranded_space():
    assert default_profiles(1) == ("single", "dup") and default_profiles(4) == ("single", "raid1")
    # RAID1 over 1 TB + 4 TB: the large device has 3 TB no mirror can pair.
    lay = btrfs_layout([10**12, 4 * 10**12], data_profile="raid1")
    assert 3 * 10**12 - 2 * GiB < lay.stranded_bytes < 3 * 10**12
    assert btrfs_layout([10**12] * 2, data_profile="raid1").stranded_bytes < 300 * MiB


def test_parse_show():
    text = ("Label: none  uuid: 5d1c\n\tTotal devices 2 FS bytes used 144.00KiB\n"
            "\tdevid    1 size 2147483648 used 285212672 path /dev/loop0\n"
            "\tdevid    2 size 2147483648 used 276824064 path /dev/loop1\n")
    assert parse_show(text, ["/dev/loop1", "/dev/loop0"]) == (276824064, 285212672)
