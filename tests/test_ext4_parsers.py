"""Parsers of mke2fs -n -v, dumpe2fs -h and df -B1, on recorded real output (e2fsprogs
1.47.0, Linux 6.18; tests/fixtures/ext4/commands.txt says how each file was made)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planners.fs.ext4.df import ext4_df
from planners.fs.ext4.geometry import ext4_geometry, mke2fs_args
from runners.probes.ext4 import parse_dumpe2fs_header, parse_mke2fs_verbose
from runners.probes.loopdev import parse_df_b1

FIX = Path(__file__).parent / "fixtures" / "ext4"
MiB, GiB = 1 << 20, 1 << 30


def report(name: str):
    return parse_mke2fs_verbose((FIX / f"{name}.stdout").read_text(), (FIX / f"{name}.stderr").read_text())


def test_mke2fs_1g_with_stride():
    r = report("mke2fs_ext4_1g_stride")
    assert r.fs_types == ("ext4",) and r.size_type == "default"
    assert (r.block_size, r.stride, r.stripe_width) == (4096, 16, 64)
    assert (r.inode_count, r.block_count, r.reserved_blocks) == (65536, 262144, 13107)
    assert (r.first_data_block, r.max_fs_blocks) == (0, 268435456)
    assert (r.block_groups, r.blocks_per_group, r.inodes_per_group) == (8, 32768, 8192)
    assert r.backup_superblocks == (32768, 98304, 163840, 229376)
    assert r.unused_blocks == 0


def test_mke2fs_trimmed_last_group_warning():
    r = report("mke2fs_ext4_trimmed")
    assert r.unused_blocks == 100 and r.block_count == 262144


def test_mke2fs_single_group_floppy():
    r = report("mke2fs_ext3_floppy")
    assert r.size_type == "floppy" and r.block_groups == 1
    assert (r.block_size, r.first_data_block, r.inodes_per_group) == (1024, 1, 376)
    assert r.backup_superblocks == ()


def test_mke2fs_huge_meta_bg_has_no_resize_limit():
    r = report("mke2fs_ext4_1pib")
    assert r.size_type == "huge" and r.max_fs_blocks == 0
    assert r.inode_count == 4160749568 and r.block_groups == 8388608
    assert r.backup_superblocks[:3] == (32768, 98304, 163840)
    assert r.backup_superblocks[-1] == 188900999168


@pytest.mark.parametrize(
    ("name", "size", "kwargs"),
    [
        ("mke2fs_ext4_1g_stride", GiB, {"stride": 16, "stripe_width": 64}),
        ("mke2fs_ext4_trimmed", 262244 * 4096, {}),
        ("mke2fs_ext3_floppy", 3000 * 1024, {"fs_type": "ext3", "block_size": 1024}),
        ("mke2fs_ext4_big_explicit", 2147483648 * 4096, {"reserved_percent": 1.5, "stride": 128, "stripe_width": 1280}),
        ("mke2fs_ext4_1pib", 1 << 50, {}),
    ],
)
def test_recorded_reports_match_the_planner(name, size, kwargs):
    g = ext4_geometry(size, **kwargs)
    r = report(name)
    assert r.size_type == g.size_type
    assert (r.block_count, r.inode_count, r.inodes_per_group) == (g.block_count, g.inode_count, g.inodes_per_group)
    assert (r.block_groups, r.reserved_blocks, r.max_fs_blocks) == (
        g.block_groups,
        g.reserved_blocks,
        g.max_resize_blocks,
    )
    assert r.backup_superblocks == g.backup_superblocks
    assert (r.stride, r.stripe_width, r.unused_blocks) == (g.stride, g.stripe_width, g.unused_blocks)


def test_recorded_explicit_command_is_what_mke2fs_args_builds():
    cmd = (FIX / "commands.txt").read_text().splitlines()[3]
    g = ext4_geometry(2147483648 * 4096, reserved_percent=1.5, stride=128, stripe_width=1280)
    assert " ".join(mke2fs_args(g)) in cmd


def test_dumpe2fs_ext4_and_the_df_it_mounted_to():
    h = parse_dumpe2fs_header((FIX / "dumpe2fs_ext4_1g_stride.stdout").read_text())
    assert "metadata_csum" in h.features and "64bit" in h.features
    assert (h.block_count, h.inode_count, h.reserved_blocks) == (262144, 65536, 13107)
    assert (h.overhead_clusters, h.free_blocks, h.first_block) == (12949, 249189, 0)
    assert (h.reserved_gdt_blocks, h.inode_blocks_per_group, h.flex_bg_size) == (127, 512, 16)
    assert (h.stride, h.stripe_width, h.journal_blocks) == (16, 64, 8192)
    size, avail = parse_df_b1((FIX / "df_ext4_1g_stride.stdout").read_text())
    assert (size, avail) == (1020702720, 950214656)
    d = ext4_df(ext4_geometry(GiB, stride=16, stripe_width=64))
    assert (d.overhead_blocks, d.free_blocks) == (h.overhead_clusters, h.free_blocks)
    assert (d.size_bytes, d.avail_bytes) == (size, avail)


def test_dumpe2fs_ext3_has_no_flex_bg_or_stride():
    h = parse_dumpe2fs_header((FIX / "dumpe2fs_ext3_512m.stdout").read_text())
    assert "extent" not in h.features and h.flex_bg_size == 0 and h.stride == 0
    d = ext4_df(ext4_geometry(512 * MiB, fs_type="ext3"))
    assert (d.overhead_blocks, d.free_blocks) == (h.overhead_clusters, h.free_blocks)
    assert h.journal_blocks == 4096


def test_dumpe2fs_without_journal():
    h = parse_dumpe2fs_header((FIX / "dumpe2fs_ext4_6m_nojournal.stdout").read_text())
    assert h.journal_blocks == 0 and "has_journal" not in h.features
    g = ext4_geometry(6 * MiB)
    assert g.journal_blocks == 0 and "has_journal" not in g.features
    assert ext4_df(g).free_blocks == h.free_blocks


def test_parsers_reject_foreign_text():
    with pytest.raises(ValueError, match="lacks the fs_types line"):
        parse_mke2fs_verbose("mke2fs 1.47.0 (5-Feb-2023)\n")
    with pytest.raises(ValueError, match="lacks 'Block count'"):
        parse_dumpe2fs_header("Filesystem volume name:   <none>\n")
