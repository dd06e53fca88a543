"""ext4 without a journal (`journal = false`, mke2fs -O ^has_journal) against real filesystems: mke2fs on
sparse images with the build script's options, `dumpe2fs -h`, and loop mount + `df -B1`."""

from __future__ import annotations

import os
import random

import pytest

from planners.compute import compute
from planners.fs.ext4.df import ext4_df, journal_map_blocks
from planners.fs.ext4.geometry import ext4_geometry, mke2fs_args
from planners.models import DiskSet, Filesystem, Plan
from planners.script.build import build_script
from runners.probes.ext4 import df_of_image, make_image
from tests.test_ext4_helpers import GiB, MiB, TiB, assert_no_journal_inside, log_uniform, need, pmap

rnd = random.Random(22)
# (size, block size, stride, stripe width): every size type, the three block sizes, a stripe.
CASES = [
    (8 * MiB, 4096, 0, 0),
    (3 * MiB + 4096, 1024, 0, 0),
    (100 * MiB, 2048, 0, 0),
    (700 * MiB, 4096, 0, 0),
    (17 * 128 * MiB, 4096, 0, 0),
    (70 * GiB, 4096, 32, 256),
    (4 * TiB + 8192, 4096, 0, 0),
    (15 * TiB, 4096, 128, 768),
]
CASES += [
    (log_uniform(rnd, 4 * MiB, 2 * TiB), rnd.choice([1024, 2048, 4096]), s, s * 5)
    for s in (rnd.choice([0, 16, 64]) for _ in range(6))
]


def _measure(case: tuple[int, int, int, int], workdir: str):
    size, bs, stride, width = case
    g = ext4_geometry(size, block_size=bs, stride=stride, stripe_width=width, journal=False)
    path = os.path.join(workdir, f"{size}-{bs}.img")
    try:
        header = make_image(g, path)
        return header, df_of_image(path)
    finally:
        if os.path.exists(path):
            os.unlink(path)


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> dict[tuple[int, int, int, int], object]:
    need("mke2fs", "dumpe2fs", "losetup", "mount", "umount", "df")
    workdir = str(tmp_path_factory.mktemp("nojournal"))
    return dict(zip(CASES, pmap(lambda c: _measure(c, workdir), CASES, 2), strict=True))


@pytest.mark.root
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}B-{c[1]}-s{c[2]}")
def test_no_journal_matches_mke2fs_and_df(case, measured):
    size, bs, stride, width = case
    g = ext4_geometry(size, block_size=bs, stride=stride, stripe_width=width, journal=False)
    header, df = measured[case]
    assert "has_journal" not in header.features and set(header.features) == set(g.features)
    assert_no_journal_inside(g, header, df)
    d = ext4_df(g)
    with_journal = ext4_df(ext4_geometry(size, block_size=bs, stride=stride, stripe_width=width))
    assert d.size_bytes >= with_journal.size_bytes  # the journal's blocks come back


def test_plan_journal_false_reaches_mke2fs_script_and_findings():
    plan = Plan(
        name="scratch", disks=[DiskSet(count=1, size=10**12)], filesystem=Filesystem(type="ext4", journal=False)
    )
    r = compute(plan)
    e = r.volumes[0].ext4
    assert e is not None and not e.journal_requested and e.journal_blocks == 0
    opts = mke2fs_args(e)
    assert "has_journal" not in opts[opts.index("-O") + 1]
    assert "has_journal" in mke2fs_args(ext4_geometry(10**12))[mke2fs_args(ext4_geometry(10**12)).index("-O") + 1]
    assert any(f.field == "filesystem.journal" for f in r.findings)
    assert "no journal" in build_script(plan, r)
    with_journal = compute(plan.model_copy(update={"filesystem": Filesystem(type="ext4")}))
    j = with_journal.volumes[0].ext4
    assert j is not None and j.journal_blocks == 262144  # the 1 GiB journal of a 1 TB ext4, and its extent map
    assert r.usable_bytes - with_journal.usable_bytes == (j.journal_blocks + journal_map_blocks(j)) * 4096


def test_only_ext4_goes_without_a_journal():
    for fs in ("ext3", "xfs"):
        with pytest.raises(ValueError, match="without a journal"):
            Filesystem(type=fs, journal=False)
