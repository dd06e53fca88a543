"""Whole plans, layer by layer, against the real tools on loop devices.

The host kernel has no md and no device-mapper, so each layer is rebuilt from the sizes
the layer below predicts: mdadm prints the component size it would use; pvcreate,
vgcreate and lvcreate run over loop devices of the predicted array sizes; the
filesystem is made with the script's own mkfs options on a loop device of the predicted
LV size, mounted, and `df -B1` read. The VM lab runs the same stack end to end.
"""

from __future__ import annotations

import os

import pytest

from planners.compute import compute
from planners.fs.ext4.geometry import mke2fs_args
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.results import VolumeResult
from runners.exec import have, run
from runners.probes.loopdev import df_b1, mounted, sparse_loop
from runners.probes.lvm import probe_volume
from runners.probes.md import probe_create

MiB = 1024**2
GiB = 1024**3


def _plan(name, disks, groups, lvm=None, fs="xfs", **fs_kw):
    return Plan(name=name, disks=disks, groups=groups, lvm=lvm or Lvm(), filesystem=Filesystem(type=fs, **fs_kw))


PLANS = [
    _plan("r5-ext4", [DiskSet(count=4, size=256 * MiB)], [MdGroup(level=5, members=4, chunk=64 * 1024)], fs="ext4"),
    _plan(
        "r6-lvm-xfs",
        [DiskSet(count=6, size=200 * MiB)],
        [MdGroup(level=6, members=6, chunk=64 * 1024)],
        Lvm(enabled=True),
    ),
    _plan(
        "r6x2-striped-xfs",
        [DiskSet(count=8, size=300 * MiB)],
        [MdGroup(name=f"md{i}", level=6, members=4, chunk=128 * 1024) for i in range(2)],
        Lvm(enabled=True, mode="striped", stripe_size=256 * 1024),
    ),
    _plan(
        "r5x3-linear-ext4",
        [DiskSet(count=9, size=150 * MiB)],
        [MdGroup(name=f"md{i}", level=5, members=3, chunk=512 * 1024) for i in range(3)],
        Lvm(enabled=True),
        fs="ext4",
        reserved_percent=1.0,
    ),
    _plan(
        "r10-odd-ext4", [DiskSet(count=5, size=256 * MiB)], [MdGroup(level=10, members=5, chunk=64 * 1024)], fs="ext4"
    ),
    _plan("r10-f2-xfs", [DiskSet(count=4, size=400 * MiB)], [MdGroup(level=10, layout="f2", members=4)]),
    _plan("r1-ext3", [DiskSet(count=2, size=512 * MiB)], [MdGroup(level=1, members=2)], fs="ext3"),
    _plan(
        "mixed-r5-xfs-spare",
        [DiskSet(count=3, size=300 * MiB), DiskSet(count=2, size=333 * MiB)],
        [MdGroup(level=5, members=4, spares=1, chunk=256 * 1024, metadata="1.0")],
    ),
    _plan(
        "r4-big-bitmap-ext4", [DiskSet(count=3, size=9 * GiB)], [MdGroup(level=4, members=3, bitmap="none")], fs="ext4"
    ),
]


@pytest.fixture(scope="module")
def tools():
    if os.geteuid() != 0:
        pytest.skip("needs root for loop devices and mount")
    for tool in ("mdadm", "pvcreate", "mkfs.xfs", "mke2fs", "losetup", "mount"):
        if not have(tool):
            pytest.skip(f"{tool} is not installed (scripts/dev.sh setup installs it)")


@pytest.mark.parametrize("plan", PLANS, ids=[p.name for p in PLANS])
def test_every_layer_matches_the_real_tool(tools, plan):
    result = compute(plan)

    for g, (_, members, _) in zip(result.groups, plan.group_disks(), strict=True):
        report = probe_create([d.size for d in members], g.md.create_options)
        assert report.component_bytes == g.md.component_bytes, (g.name, report)

    v = result.volumes[0]
    if v.lvm is not None:
        m = probe_volume(
            [g.md.array_bytes for g in result.groups],
            pvcreate_options=v.lvm.pvcreate_options,
            vgcreate_options=v.lvm.vgcreate_options,
            lvcreate_options=v.lvm.lvcreate_options,
        )
        assert [p.pe_start_bytes for p in m.pvs] == [v.lvm.pe_start_bytes] * len(m.pvs)
        assert m.lv is not None and m.lv.lv_bytes == v.block_device_bytes == v.lvm.lv_bytes

    assert df_of_volume(v) == (v.df_size_bytes, v.df_available_bytes)


def df_of_volume(v: VolumeResult) -> tuple[int, int]:
    """`df -B1` of the volume's filesystem made with the script's own mkfs options on a loop device of its size."""
    with sparse_loop(v.block_device_bytes) as dev:
        if v.xfs is not None:
            run(["mkfs.xfs", "-q", "-f", "-K", *v.xfs.mkfs_options, dev], timeout=300)
        else:
            assert v.ext4 is not None
            run(["mke2fs", "-q", "-F", *mke2fs_args(v.ext4, extended=("nodiscard",)), dev], timeout=300)
        with mounted(dev) as mnt:
            return df_b1(mnt)
