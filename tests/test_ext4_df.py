"""ext4_df against real filesystems: mke2fs on sparse images, then `dumpe2fs -h` (free
blocks, overhead, journal) and, for a set of sizes, loop mount + `df -B1`."""

from __future__ import annotations

import os
import random

import pytest

from planners.fs.ext4.alloc import Allocator
from planners.fs.ext4.df import ext4_df, lost_found_blocks, shape_of
from planners.fs.ext4.geometry import ext4_geometry
from runners.probes.ext4 import df_of_image, make_image
from tests.test_ext4_helpers import Ext4Case as Fs
from tests.test_ext4_helpers import GiB, MiB, TiB, log_uniform, need, pmap


def _image_cases() -> list[Fs]:
    rnd = random.Random(7)
    out = [
        Fs(6 * MiB),
        Fs(8 * MiB),
        Fs(3 * MiB + 4096, block_size=1024),
        Fs(GiB, stride=16, stripe_width=64),
        Fs(17 * 128 * MiB),  # a lone last flex group
        Fs(100 * GiB),
        Fs(4 * TiB - 4096),
        Fs(4 * TiB + 8192),
        Fs(15 * TiB),
        Fs(16 * TiB - 4096),  # 2^32 - 1 blocks: resize inode with no reserved GDT blocks
    ]
    # journals of 131072 blocks: four extents, or five and an extent leaf with 1 KiB blocks
    out += [Fs(rnd.randrange(64 * GiB, 128 * GiB)) for _ in range(3)]
    out += [Fs(rnd.randrange(16 * GiB, 32 * GiB), block_size=1024) for _ in range(3)]
    out += [Fs(rnd.randrange(32 * GiB, 64 * GiB), block_size=2048) for _ in range(2)]
    for groups in (1, 2, 15, 16, 17, 31, 33, 48, 49, 63, 65):  # flex and backup boundaries
        bs = rnd.choice([1024, 2048, 4096])
        out.append(Fs(groups * 8 * bs * bs + rnd.randrange(0, 900) * bs, "ext4", bs))
    for _ in range(12):
        bs = rnd.choice([1024, 2048, 4096])
        stride = rnd.choice([0, 16, 64])
        out.append(Fs(log_uniform(rnd, 4 * MiB, 2 * TiB), "ext4", bs, stride, stride * 4))
    for _ in range(10):  # ext3 writes its whole inode tables: keep these small
        bs = rnd.choice([1024, 2048, 4096])
        stride = rnd.choice([0, 16, 128])
        out.append(Fs(log_uniform(rnd, 4 * MiB, 4 * GiB), "ext3", bs, stride, stride * 3))
    return out


IMAGE_CASES = _image_cases()

DF_CASES = [
    Fs(3 * MiB + 4096, block_size=1024),
    Fs(8 * MiB),
    Fs(100 * MiB, block_size=2048),
    Fs(511 * MiB),
    Fs(GiB + 12345),
    Fs(17 * 128 * MiB),
    Fs(20 * GiB, block_size=1024),
    Fs(70 * GiB),
    Fs(300 * GiB, stride=128, stripe_width=1280),
    Fs(4 * TiB - 4096),
    Fs(4 * TiB + 8192),
    Fs(15 * TiB),
    Fs(20 * MiB, "ext3", 1024),
    Fs(40 * MiB, "ext3"),
    Fs(513 * MiB, "ext3"),
    Fs(2 * GiB, "ext3", stride=16, stripe_width=48),
    Fs(3 * GiB, "ext3", 2048),
]


def _made(case: Fs, workdir: str):
    path = os.path.join(workdir, f"{case}.img")
    try:
        return make_image(case.geometry(), path)
    finally:
        if os.path.exists(path):
            os.unlink(path)


@pytest.fixture(scope="module")
def headers(tmp_path_factory) -> dict[str, object]:
    need("mke2fs", "dumpe2fs")
    workdir = str(tmp_path_factory.mktemp("ext4img"))
    return dict(zip(map(str, IMAGE_CASES), pmap(lambda c: _made(c, workdir), IMAGE_CASES, 2), strict=True))


@pytest.mark.parametrize("case", IMAGE_CASES, ids=str)
def test_free_blocks_and_overhead_match_dumpe2fs(case, headers):
    g = case.geometry()
    d = ext4_df(g)
    h = headers[str(case)]
    assert set(h.features) == set(g.features)
    assert (h.block_count, h.reserved_blocks) == (g.block_count, g.reserved_blocks)
    assert (h.reserved_gdt_blocks, h.inode_blocks_per_group) == (g.reserved_gdt_blocks, g.inode_table_blocks)
    assert (h.flex_bg_size, h.stride, h.stripe_width) == (g.flex_bg_size, g.stride, g.stripe_width)
    assert h.journal_blocks == g.journal_blocks
    assert h.overhead_clusters == d.overhead_blocks
    assert h.free_blocks == d.free_blocks


def test_both_journal_extent_outcomes_are_covered():
    """The image cases include journals that need an extent leaf and ones that do not,
    so the allocation replay is checked both ways by the test above."""
    leaf = set()
    for case in IMAGE_CASES:
        g = case.geometry()
        if case.fs_type == "ext4" and 0 < g.journal_blocks <= 131072:
            alloc = Allocator(
                shape_of(g),
                lost_found_blocks=lost_found_blocks(g.block_size),
                resize_inode="resize_inode" in g.features,
            )
            leaf.add(len(alloc.journal_extents(g.journal_blocks)) > 4)
    assert leaf == {True, False}


def _df(case: Fs, workdir: str) -> tuple[int, int]:
    path = os.path.join(workdir, f"{case}.img")
    try:
        make_image(case.geometry(), path)
        return df_of_image(path)
    finally:
        if os.path.exists(path):
            os.unlink(path)


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> dict[str, tuple[int, int]]:
    need("mke2fs", "dumpe2fs", "losetup", "mount", "umount", "df")
    workdir = str(tmp_path_factory.mktemp("ext4df"))
    return dict(zip(map(str, DF_CASES), pmap(lambda c: _df(c, workdir), DF_CASES, 2), strict=True))


@pytest.mark.parametrize("case", DF_CASES, ids=str)
def test_df_after_mount_matches(case, measured):
    d = ext4_df(case.geometry())
    assert measured[str(case)] == (d.size_bytes, d.avail_bytes)


def test_ext3_has_no_kernel_hold_back_and_ext4_caps_it():
    assert ext4_df(ext4_geometry(GiB, fs_type="ext3")).kernel_reserved_blocks == 0
    assert ext4_df(ext4_geometry(100 * MiB)).kernel_reserved_blocks == 25600 // 50
    assert ext4_df(ext4_geometry(TiB)).kernel_reserved_blocks == 4096
