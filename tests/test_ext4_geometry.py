"""ext4_geometry against the arithmetic's own invariants and against real `mke2fs -n -v`.

The tool cases run mke2fs on an empty file with the block count the planner derived,
both with podplan's explicit options (mke2fs_args) and with the plain documented command
(`-t TYPE -b BS [-E stride=,stripe_width=]`, the machine's mke2fs.conf deciding the rest).
"""

from __future__ import annotations

import os
import random
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planners.errors import PlanError
from planners.fs.ext4.df import ext4_df
from planners.fs.ext4.geometry import ext4_geometry, mke2fs_args
from runners.exec import run
from runners.probes.ext4 import probe
from tests.test_ext4_helpers import Ext4Case as Case
from tests.test_ext4_helpers import GiB, MiB, PiB, TiB, log_uniform, need, pmap

# -- pure ---------------------------------------------------------------------------------


def test_one_gib_default_layout():
    g = ext4_geometry(GiB)
    assert (g.block_count, g.block_groups, g.inodes_per_group, g.inode_count) == (262144, 8, 8192, 65536)
    assert (g.reserved_gdt_blocks, g.desc_blocks, g.journal_blocks) == (127, 1, 8192)
    assert (g.reserved_blocks, g.size_type, g.inode_ratio) == (13107, "default", 16384)
    assert g.backup_superblocks == (32768, 98304, 163840, 229376)


@pytest.mark.parametrize(
    ("size", "kwargs", "field"),
    [
        (GiB, {"block_size": 512}, "block_size"),
        (GiB, {"block_size": 8192}, "block_size"),
        (100, {}, "size_bytes"),
        (30 * 4096, {}, "size_bytes"),  # mke2fs: not enough space for the superblock set-up
        (GiB, {"stride": 16}, "stripe_width"),
        (GiB, {"stripe_width": 64}, "stripe_width"),
        (GiB, {"stride": 16, "stripe_width": 40}, "stripe_width"),
        (GiB, {"stride": 65536, "stripe_width": 65536}, "stride"),
        (GiB, {"stride": -1, "stripe_width": -1}, "stride"),
        (GiB, {"reserved_percent": 50.5}, "reserved_percent"),
        (GiB, {"reserved_percent": -1.0}, "reserved_percent"),
        (16 * TiB, {"fs_type": "ext3"}, "fs_type"),
        (GiB, {"fs_type": "xfs"}, "fs_type"),
        (GiB, {"e2fsprogs": (1, 43, 9)}, "e2fsprogs"),
        (1 << 60, {}, "size_bytes"),
    ],
)
def test_invalid_input_is_one_plan_error(size, kwargs, field):
    with pytest.raises(PlanError) as err:
        ext4_geometry(size, **kwargs)
    assert err.value.field == field
    assert err.value.message.endswith(".") and "\n" not in err.value.message


def test_size_types_switch_at_the_documented_sizes():
    def kind(size: int) -> str:
        return ext4_geometry(size).size_type

    assert (kind(3 * MiB - 4096), kind(3 * MiB)) == ("floppy", "small")
    assert (kind(512 * MiB - 4096), kind(512 * MiB)) == ("small", "default")
    assert (kind(4 * TiB - 4096), kind(4 * TiB)) == ("default", "big")
    assert (kind(16 * TiB - 4096), kind(16 * TiB)) == ("big", "huge")


def test_over_2_to_32_blocks_drops_resize_inode_and_big_ones_use_meta_bg():
    below, above = ext4_geometry(15 * TiB), ext4_geometry(16 * TiB)
    assert "resize_inode" in below.features and below.reserved_gdt_blocks > 0
    assert "resize_inode" not in above.features and above.reserved_gdt_blocks == 0
    assert not ext4_geometry(192 * TiB).meta_bg
    assert ext4_geometry(192 * TiB + 128 * MiB).meta_bg
    assert ext4_geometry(PiB).inode_count <= (1 << 32) - 1


def test_last_group_too_small_for_its_metadata_is_dropped():
    g = ext4_geometry((8 * 32768 + 100) * 4096)
    assert (g.block_count, g.unused_blocks, g.block_groups) == (262144, 100, 8)
    assert ext4_geometry((8 * 32768 + 600) * 4096).block_groups == 9


def test_mke2fs_args_are_explicit_and_share_one_E():
    g = ext4_geometry(GiB, stride=128, stripe_width=1280, reserved_percent=1.5)
    args = mke2fs_args(g, extended=("nodiscard",))
    assert args[:10] == ["-t", "ext4", "-b", "4096", "-i", "16384", "-I", "256", "-m", "1.5"]
    assert args[args.index("-O") + 1].startswith("none,") and "-G" in args
    assert args.count("-E") == 1
    assert args[args.index("-E") + 1] == "stride=128,stripe_width=1280,nodiscard"
    ext3 = mke2fs_args(ext4_geometry(GiB, fs_type="ext3"))
    assert "-G" not in ext3 and "extent" not in ext3[ext3.index("-O") + 1]
    # No stripe is said, or mke2fs takes one from the device's io_min/io_opt.
    assert ext3[ext3.index("-E") + 1] == "stride=0,stripe_width=0"


def test_no_stripe_is_what_the_real_mke2fs_writes(tmp_path):
    """`-E stride=0,stripe_width=0` is accepted and leaves no RAID stride in the superblock (a file has no
    topology; over md the same options override the one mke2fs reads, as its extended options come after)."""
    from runners.probes.ext4 import mkfs_argv, parse_dumpe2fs_header

    g = ext4_geometry(256 * MiB, fs_type="ext4")
    assert (g.stride, g.stripe_width) == (0, 0)
    image = tmp_path / "fs.img"
    image.write_bytes(b"")
    os.truncate(image, 256 * MiB)
    argv = mkfs_argv(g, str(image), extended=("nodiscard",))
    assert "stride=0,stripe_width=0,nodiscard" in argv
    run(argv, timeout=120)
    header = parse_dumpe2fs_header(run(["dumpe2fs", "-h", str(image)], timeout=60).stdout)
    assert (header.stride, header.stripe_width) == (0, 0) and header.block_count == g.block_count


def test_reserved_percent_survives_the_command_line_exactly():
    pct = 0.1 + 0.2  # not a short decimal: the text must parse back to the same double
    arg = mke2fs_args(ext4_geometry(GiB, reserved_percent=pct))
    assert float(arg[arg.index("-m") + 1]) == pct


def test_new_e2fsprogs_sets_no_stripe_width_on_ssds():
    kw = {"stride": 128, "stripe_width": 1280}
    assert ext4_geometry(GiB, rotational=False, **kw).stripe_width == 1280
    new = ext4_geometry(GiB, rotational=False, e2fsprogs=(1, 47, 3), **kw)
    assert (new.stride, new.stripe_width) == (128, 0)
    assert ext4_geometry(GiB, rotational=True, e2fsprogs=(1, 47, 3), **kw).stripe_width == 1280


@settings(max_examples=150, deadline=None)
@given(
    size=st.integers(min_value=8 * MiB, max_value=2 * PiB),
    fs_type=st.sampled_from(["ext4", "ext3"]),
    block_size=st.sampled_from([1024, 2048, 4096]),
    reserved=st.sampled_from([0.0, 1.0, 5.0, 12.5, 50.0]),
)
def test_invariants(size, fs_type, block_size, reserved):
    try:
        g = ext4_geometry(size, fs_type=fs_type, block_size=block_size, reserved_percent=reserved)
    except PlanError:
        assert fs_type == "ext3" or size // block_size >= 1 << 35
        return
    assert g.block_count <= g.device_blocks <= size // block_size
    assert 0 <= g.unused_blocks < g.blocks_per_group
    assert g.block_groups == -(-(g.block_count - g.first_data_block) // g.blocks_per_group)
    assert g.inode_count == g.inodes_per_group * g.block_groups <= (1 << 32) - 1
    assert g.inodes_per_group % 8 == 0
    assert (g.inode_table_blocks - 1) * g.block_size < g.inodes_per_group * g.inode_size
    assert all(b < g.block_count for b in g.backup_superblocks)
    assert g.reserved_blocks <= g.block_count * reserved / 100 + 1
    d = ext4_df(g)
    assert 0 <= d.avail_blocks <= d.free_blocks < d.total_blocks < g.block_count


# -- against mke2fs -n -v ------------------------------------------------------------------


def _cases() -> list[Case]:
    rnd = random.Random(20240601)
    out: list[Case] = []
    for bs in (1024, 2048, 4096):
        for edge in (3 * MiB, 512 * MiB, 4 * TiB, 16 * TiB):
            for d in (-bs, 0, bs):
                out.append(Case(edge + d, block_size=bs, explicit=d <= 0))
        limit = (1 << 32) * bs  # 2^32 blocks: ext3's end, and where resize_inode goes
        out += [Case(limit - bs, "ext3", bs), Case(limit, "ext3", bs), Case(limit, "ext4", bs)]
        out += [Case(3 * MiB + d, "ext3", bs, explicit=False) for d in (-bs, bs)]
    for size in (
        192 * TiB,
        192 * TiB + 4096,
        192 * TiB + 128 * MiB,
        256 * TiB - 4096,
        256 * TiB + 64 * MiB,
        PiB - 4096,
        PiB,
    ):
        out.append(Case(size, explicit=size % 8192 == 0))
    for _ in range(20):  # a last group a little over a whole number of groups
        bs = rnd.choice([1024, 2048, 4096])
        groups = rnd.randrange(1, 3000)
        rest = rnd.randrange(1, 700)
        out.append(
            Case(
                (groups * 8 * bs + rest) * bs + (1024 if bs == 1024 else 0),
                rnd.choice(["ext4", "ext3"]),
                bs,
                explicit=rnd.random() < 0.5,
            )
        )
    for _ in range(120):
        fs = "ext3" if rnd.random() < 0.3 else "ext4"
        bs = rnd.choice([1024, 2048, 4096, 4096, 4096])
        top = (1 << 32) * bs if fs == "ext3" else (64 * TiB if bs == 4096 else 4 * TiB)
        stride = rnd.choice([0, 0, 1, 16, 128, 1024])
        reserved = rnd.choice([5.0, 5.0, 5.0, 0.0, 0.1, 1.0, 2.5, 10.0, 33.3, 50.0])
        out.append(
            Case(
                log_uniform(rnd, MiB, top),
                fs,
                bs,
                stride,
                stride * rnd.choice([1, 2, 3, 5, 10, 16]),
                reserved,
                explicit=reserved != 5.0 or rnd.random() < 0.6,
            )
        )
    return out


CASES = _cases()


def _plain_argv(case: Case, path: str) -> list[str]:
    """The documented command for inputs the planner rejected, to see mke2fs reject them."""
    blocks = case.size // case.block_size
    return ["mke2fs", "-n", "-v", "-t", case.fs_type, "-b", str(case.block_size), path, str(blocks)]


def _ask(case: Case):
    try:
        g = case.geometry()
    except PlanError as exc:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "probe.img")
            open(path, "wb").close()
            res = run(_plain_argv(case, path), check=False)
        return exc, res
    return g, probe(g, explicit=case.explicit)


@pytest.fixture(scope="module")
def answers() -> dict[str, tuple]:
    need("mke2fs")
    return dict(zip(map(str, CASES), pmap(_ask, CASES), strict=True))


def test_enough_generated_cases():
    assert len(CASES) >= 150
    assert sum(not c.explicit for c in CASES) >= 30
    assert sum(c.fs_type == "ext3" for c in CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=str)
def test_geometry_matches_mke2fs(case, answers):
    planned, told = answers[str(case)]
    if isinstance(planned, PlanError):
        assert told.returncode != 0, f"planner refused ({planned}) but mke2fs accepted"
        return
    r = told
    g = planned
    assert (r.block_size, r.size_type) == (g.block_size, g.size_type)
    assert (r.block_count, r.unused_blocks, r.first_data_block) == (g.block_count, g.unused_blocks, g.first_data_block)
    assert (r.block_groups, r.blocks_per_group) == (g.block_groups, g.blocks_per_group)
    assert (r.inode_count, r.inodes_per_group) == (g.inode_count, g.inodes_per_group)
    assert r.reserved_blocks == g.reserved_blocks
    assert r.max_fs_blocks == g.max_resize_blocks
    assert r.backup_superblocks == g.backup_superblocks
    assert (r.stride, r.stripe_width) == (g.stride, g.stripe_width)


def test_mke2fs_refuses_what_the_planner_calls_too_small():
    need("mke2fs")
    for blocks in (1, 16, 30):
        with pytest.raises(PlanError):
            ext4_geometry(blocks * 4096)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "probe.img")
            open(path, "wb").close()
            res = run(["mke2fs", "-n", "-t", "ext4", "-b", "4096", path, str(blocks)], check=False)
        assert res.returncode != 0
    small = ext4_geometry(60 * 4096)
    assert probe(small).block_count == small.block_count == 60
