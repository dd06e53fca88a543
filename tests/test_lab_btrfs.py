"""btrfs and the other stacks without md rehearsed under a real kernel, in one boot: btrfs's own RAID over
raw disks of mixed sizes (raid1, and raid10 data with raid1c3 metadata), btrfs on an md mirror, ext4 without
a journal on one hardware RAID LUN, and 8 LUNs under one striped LV. Every figure predicted must equal the
VM's: statvfs, each device's size and chunks (`btrfs filesystem show --raw`) and `btrfs filesystem usage -b`'s
Free (estimated) for btrfs; blocks, journal and df for ext4; LVM's extents and alignment for the LUNs."""

from __future__ import annotations

import functools

import pytest

from planners.compute import compute
from planners.grow.btrfs import BtrfsGrowth, btrfs_growth, btrfs_target_plan
from planners.grow.model import GrowRequest
from planners.hardware.disks import DiskSpec, Lun
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.script.build import build_script
from planners.script.grow_btrfs import btrfs_grow_script
from planners.units import KiB, MiB
from runners.lab import LabDisk, Scenario, ensure_kit
from runners.lab.rehearse import rehearsal_tools
from tests.lab_helpers import every_figure_checked, prepare_matrix, shared_batch, skip_unless_lab

pytestmark = pytest.mark.slow

skip_unless_lab()

TB = 10**12
LUNS = Hardware(disk=DiskSpec(lun=Lun(disks=7, level=5, strip=128 * KiB)))
MATRIX = {
    "btr1": Plan(
        name="btr1",
        disks=[DiskSet(count=2, size=2 * TB), DiskSet(count=1, size=4 * TB)],
        filesystem=Filesystem(type="btrfs", data_profile="raid1", metadata_profile="raid1"),
    ),
    "btr10": Plan(
        name="btr10",
        disks=[DiskSet(count=3, size=4 * TB), DiskSet(count=1, size=3 * TB)],
        filesystem=Filesystem(type="btrfs", data_profile="raid10", metadata_profile="raid1c3"),
    ),
    "btrmd": Plan(
        name="btrmd",
        disks=[DiskSet(count=2, size=4 * TB)],
        groups=[MdGroup(name="btrmd", level=1, members=2)],
        filesystem=Filesystem(type="btrfs"),
    ),
    "lun1": Plan(
        name="lun1",
        disks=[DiskSet(count=1, size=24 * TB)],
        hardware=LUNS,
        filesystem=Filesystem(type="ext4", journal=False),
    ),
    "luns8": Plan(
        name="luns8",
        disks=[DiskSet(count=8, size=10 * TB)],
        hardware=LUNS,
        # An LV name of its own: test_lab_direct's "luns", in the same boot, stripes an LV over raw disks
        # too, and a VG straight on disks stays in view of the scenarios after it.
        lvm=Lvm(enabled=True, vg="luns8", lv="striped8", mode="striped"),
        filesystem=Filesystem(type="ext4"),
    ),
}


# btrfs grown in the same boot: built by its build script, then the grow script (device add, balance).
GROWTHS = {
    "btrgrow": ([384 * MiB] * 2, 1, {}),
    "btrconv": ([384 * MiB] * 2, 2, {"data_profile": "raid10"}),
}
GROW_WRAPPER = "set -u\nbash ./build.sh --run --yes || exit $?\nbash ./grow.sh --run --yes\n"


def _growth_scenario(name: str, sizes: list[int], add: int, profiles: dict) -> tuple[Scenario, BtrfsGrowth]:
    fs = Filesystem(type="btrfs", data_profile="raid1", metadata_profile="raid1")
    disks = tuple(LabDisk(size_bytes=s) for s in [*sizes, *[sizes[-1]] * add])
    paths = Scenario(name=name, script="", disks=disks).disk_paths()
    old = Plan(
        name=name,
        disks=[DiskSet(count=1, size=s, physical_sector=512, devices=[p]) for s, p in zip(sizes, paths, strict=False)],
        filesystem=fs,
    )
    new = btrfs_target_plan(old, GrowRequest(add_disks=add, devices=list(paths[len(sizes) :]), **profiles))
    growth = btrfs_growth(old, new)
    files = {"build.sh": build_script(old, compute(old)), "grow.sh": btrfs_grow_script(old, growth)}
    return Scenario(name=name, script=GROW_WRAPPER, disks=disks, files=files, timeout_s=600.0), growth


LAB_TIMEOUT_S = 900.0


def lab_scenarios(kit) -> list:  # type: ignore[no-untyped-def]
    return _prepared(kit.manifest.kernel_release)[0]


@functools.cache
def _prepared(kernel_release: str) -> tuple[list, dict, dict]:
    scenarios, expected = prepare_matrix(MATRIX, rehearsal_tools(kernel_release))
    growths = {}
    for name, (sizes, add, profiles) in GROWTHS.items():
        scenario, growths[name] = _growth_scenario(name, sizes, add, profiles)
        scenarios.append(scenario)
    return scenarios, expected, growths


@pytest.fixture(scope="module")
def lab(request):
    _, expected, growths = _prepared(ensure_kit().manifest.kernel_release)
    return shared_batch(request), expected, growths


@pytest.mark.parametrize("name", MATRIX)
def test_every_figure_matches_the_vm(lab, name):
    batch, expected, _ = lab
    checks = every_figure_checked(batch, expected, name)
    figures = {c.figure for c in checks}
    scaled = expected[name][0]
    assert {"df size (bytes)", "df available (bytes)"} <= figures
    if scaled.filesystem.type == "btrfs":
        assert "btrfs Free (estimated) (bytes)" in figures
        chunks = [f for f in figures if f.startswith("btrfs chunks on ")]
        assert len(chunks) == (1 if scaled.groups else sum(d.count for d in scaled.disks))
    if name == "lun1":
        assert ("ext journal (blocks)", 0) in {(c.figure, c.predicted) for c in checks}
    if name == "luns8":
        assert ("LV stripes", 8) in {(c.figure, c.actual) for c in checks}


@pytest.mark.parametrize("name", GROWTHS)
def test_grown_btrfs_matches_the_vm(lab, name):
    """After the grow script: the size statvfs reports and Free (estimated), as the growth plan says, under
    the lab's kernel (the host tests hold them under this host's)."""
    batch, _, growths = lab
    run = batch.scenario(name)
    assert run.returncode == 0, batch.failure_report(name)
    assert run.collection is not None, run.collection_error
    g = growths[name]
    fs = next(f for f in run.collection.filesystems if f.fstype == "btrfs")
    assert fs.btrfs is not None and len(fs.btrfs.devices) == len(g.devices_before) + len(g.added_devices)
    assert (fs.df_size, fs.btrfs.free_estimated) == (g.df_size_bytes_after, g.free_estimated_bytes_after)
