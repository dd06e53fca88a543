"""xfs_df() against a real mkfs.xfs + mount + `df -B1` on loop devices over sparse files."""

from __future__ import annotations

import os
import tempfile

import pytest

from planners.errors import PlanError
from planners.fs.xfs.geometry import XfsGeometry, xfs_df, xfs_df_breakdown, xfs_geometry
from runners.exec import CommandError, have, run
from runners.probes.loopdev import attach_loop, detach_loop, df_b1, mounted, sparse_loop

KIB, MIB, GIB, TIB, PIB = 1 << 10, 1 << 20, 1 << 30, 1 << 40, 1 << 50

# Sparse images go where big sparse files live on disk, not in memory.
SCRATCH = "/var/tmp" if os.path.isdir("/var/tmp") else tempfile.gettempdir()


def _real_df(geo: XfsGeometry, size: int, where: str = SCRATCH, loop_sector: int = 512) -> tuple[int, int]:
    """mkfs.xfs with the plan's options on a loop device, mount it, and read `df -B1`."""
    fd, img = tempfile.mkstemp(prefix="podplan-xfs-", suffix=".img", dir=where)
    try:
        os.ftruncate(fd, size)
        os.close(fd)
        dev = attach_loop(img, sector=loop_sector)
        try:
            # -K: discarding a sparse file's blocks only costs time.
            run(["mkfs.xfs", "-q", "-K", *geo.mkfs_options, dev], timeout=600)
            with mounted(dev) as mnt:
                return df_b1(mnt)
        finally:
            detach_loop(dev, backing=img)
    finally:
        os.remove(img)


@pytest.fixture(scope="module")
def loops() -> None:
    for tool in ("losetup", "mkfs.xfs", "mount", "df"):
        if not have(tool):
            pytest.skip(f"{tool} is not installed")
    try:
        with sparse_loop(64 * MIB):
            pass
    except (CommandError, OSError) as exc:
        pytest.skip(f"cannot attach a loop device here (needs root and loop support): {exc}")


CASES = [
    # (size, su, sw, sector): what the reserve pool, per-AG reservations and set-aside do.
    (301 * MIB, 0, 0, 512),  # just above the minimum: the 5% reserve pool
    (640 * MIB - 4096, 0, 0, 512),  # 5% of the blocks meets the 8192-block cap
    (640 * MIB + 4096, 0, 0, 512),
    (GIB, 0, 0, 512),
    (GIB + 12345 * 512, 0, 0, 512),  # not a whole number of blocks
    (10 * GIB, 64 * KIB, 4, 512),
    (10 * GIB, 12 * KIB, 5, 512),  # stripe unit that is not a power of two
    (10 * GIB, 512 * KIB, 5, 512),  # log stripe unit falls back to 32 KiB
    (10 * GIB, 512 * KIB, 5, 4096),  # 4 KiB sectors
    (77 * GIB + 4096, 256 * KIB, 43, 512),
    (100 * GIB, 0, 0, 4096),
    (513 * GIB, 128 * KIB, 11, 512),
    (TIB, 0, 0, 512),
    (3 * TIB + 7 * MIB, 256 * KIB, 43, 512),
    (4 * TIB + 4096, 0, 0, 512),  # maximum AG size and the maximum log
    (15 * TIB, 1 * MIB, 13, 512),
]


@pytest.mark.root
@pytest.mark.parametrize(("size", "su", "sw", "sector"), CASES)
def test_df_matches_a_real_mount(loops, size, su, sw, sector):
    geo = xfs_geometry(size, su_bytes=su, sw=sw, sector_size=sector)
    assert _real_df(geo, size) == xfs_df(geo)


@pytest.mark.root
@pytest.mark.parametrize("block", [1024, 2048])
def test_df_small_blocks(loops, block):
    geo = xfs_geometry(3 * GIB, su_bytes=64 * KIB, sw=3, block_size=block)
    assert _real_df(geo, 3 * GIB) == xfs_df(geo)


@pytest.mark.root
def test_df_on_a_4k_native_device(loops):
    geo = xfs_geometry(20 * GIB, su_bytes=256 * KIB, sw=6, sector_size=4096)
    assert _real_df(geo, 20 * GIB, loop_sector=4096) == xfs_df(geo)


@pytest.mark.root
@pytest.mark.slow
def test_df_beyond_32_tib(loops):
    """Filesystems past 32 TiB (every AG at the maximum size) need sparse files larger than
    many host filesystems allow, so they live on an XFS made on a loop device for the purpose."""
    host_size = 15 * TIB
    host = xfs_geometry(host_size)
    with sparse_loop(host_size) as dev:
        run(["mkfs.xfs", "-q", "-K", *host.mkfs_options, dev], timeout=600)
        with mounted(dev) as where:
            for size, su, sw in ((40 * TIB, 256 * KIB, 43), (PIB, 0, 0), (300 * TIB + 7 * 4096, 12 * KIB, 7)):
                geo = xfs_geometry(size, su_bytes=su, sw=sw)
                assert _real_df(geo, size, where) == xfs_df(geo), (size, su, sw)


def test_breakdown_accounts_for_every_block():
    for size, su, sw in ((301 * MIB, 0, 0), (10 * GIB, 64 * KIB, 4), (PIB, 256 * KIB, 43)):
        geo = xfs_geometry(size, su_bytes=su, sw=sw)
        df = xfs_df_breakdown(geo)
        assert df.size_bytes == geo.data_bytes - geo.log_bytes
        held = df.metadata_bytes + df.reserve_pool_bytes + df.ag_reservation_bytes + df.set_aside_bytes
        assert df.avail_bytes == df.size_bytes - held == df.size_bytes - df.used_bytes
        assert (df.size_bytes, df.avail_bytes) == xfs_df(geo)


def test_reserve_pool_is_5_percent_up_to_8192_blocks():
    small = xfs_df_breakdown(xfs_geometry(400 * MIB))
    assert small.reserve_pool_bytes == (400 * MIB // 4096 // 20) * 4096
    assert xfs_df_breakdown(xfs_geometry(TIB)).reserve_pool_bytes == 8192 * 4096


def test_unmodelled_kernels_and_features_are_refused():
    geo = xfs_geometry(GIB)
    for kernel in ((5, 10), (6, 19), (7, 0)):
        with pytest.raises(PlanError, match="not modelled") as err:
            xfs_df(geo, kernel=kernel)
        assert err.value.field == "kernel"
    assert xfs_df(geo, kernel=(6, 18, 2)) == xfs_df(geo, kernel=(6, 1))
    with pytest.raises(PlanError, match="reverse-mapping"):
        xfs_df(geo.model_copy(update={"rmapbt": True}))
