"""XFS with its log on another device (`log_device`, mkfs.xfs -l logdev=) against the real tools: the log on one
loop device, the filesystem on another made with the build script's options, mounted with logdev=, then
`df -B1` and `xfs_info`."""

from __future__ import annotations

import pytest

from planners.compute import compute
from planners.fs.xfs.geometry import xfs_df, xfs_geometry
from planners.models import DiskSet, Filesystem, Lvm, Plan
from planners.script.build import build_script
from runners.exec import have, run
from runners.probes.loopdev import df_b1, mounted, sparse_loops
from runners.probes.xfs import parse_mkfs_output

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
# (size, su, sw): small and large, without and with a stripe (one whose log stripe unit falls back to 32 KiB).
CASES = [(GIB, 0, 0), (10 * GIB, 64 * KIB, 4), (10 * GIB, 512 * KIB, 5)]


@pytest.mark.root
def test_external_log_matches_mkfs_and_df():
    for tool in ("losetup", "mkfs.xfs", "xfs_info", "mount", "df"):
        if not have(tool):
            pytest.skip(f"{tool} is not installed")
    for size, su, sw in CASES:
        with sparse_loops([64 * MIB, size]) as (log, dev):
            geo = xfs_geometry(size, su_bytes=su, sw=sw, log_device=log)
            run(["mkfs.xfs", "-q", "-K", *geo.mkfs_options, dev], timeout=600)
            with mounted(dev, options=f"logdev={log}") as mnt:
                df = df_b1(mnt)
                info = parse_mkfs_output(run(["xfs_info", mnt]).stdout)
            assert (info.agcount, info.agsize_blocks, info.data_blocks) == (
                geo.agcount,
                geo.agsize_blocks,
                geo.data_blocks,
            )
            assert df == xfs_df(geo), (size, su, sw)
            assert df[1] > xfs_df(xfs_geometry(size, su_bytes=su, sw=sw))[1]  # the internal log's blocks come back


def test_log_device_reaches_the_plan_and_script():
    fs = Filesystem(type="xfs", log_device="/dev/disk/by-id/nvme-log")
    plan = Plan(name="x", disks=[DiskSet(count=4, size=10**12)], lvm=Lvm(enabled=True, mode="striped"), filesystem=fs)
    r = compute(plan)
    x = r.volumes[0].xfs
    assert x is not None and x.log_blocks == 0 and "logdev=/dev/disk/by-id/nvme-log" in x.mkfs_options[-1]
    text = build_script(plan, r)
    assert "check_device /dev/disk/by-id/nvme-log 67108864 - -" in text and "2136997888" in text
    assert "noatime,logdev=/dev/disk/by-id/nvme-log" in text
    inside = compute(plan.model_copy(update={"filesystem": Filesystem(type="xfs")}))
    assert r.usable_bytes > inside.usable_bytes
    with pytest.raises(ValueError, match="XFS setting"):
        Filesystem(type="ext4", log_device="/dev/sdz")
