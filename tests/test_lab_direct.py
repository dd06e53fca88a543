"""Plans without md rehearsed under a real kernel, in one boot: LVM straight over disks (LUNs of a
hardware RAID controller, whose stripe the script passes explicitly, as pvcreate and mkfs would read
it from a real LUN) and a filesystem straight on one disk. Every figure predicted must equal the VM's."""

from __future__ import annotations

import functools

import pytest

from planners.hardware.disks import DiskSpec, Lun
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Filesystem, Lvm, Plan
from planners.units import KiB
from runners.lab import ensure_kit
from runners.lab.rehearse import rehearsal_tools
from tests.lab_helpers import every_figure_checked, prepare_matrix, shared_batch, skip_unless_lab

pytestmark = pytest.mark.slow

skip_unless_lab()

LUNS = Hardware(disk=DiskSpec(lun=Lun(disks=7, level=5, strip=128 * KiB)))
# One VG and LV name per scenario: the batch's teardown stops md arrays, which hides the VGs built on
# them, but a VG straight on a scenario's disks stays in view of the next scenario's LVM.
MATRIX = {
    "luns": Plan(
        name="luns",
        disks=[DiskSet(count=3, size=10**13)],
        hardware=LUNS,
        lvm=Lvm(enabled=True, vg="luns", lv="striped", mode="striped"),
        filesystem=Filesystem(type="ext4", reserved_percent=1.0),
    ),
    "lunlin": Plan(
        name="lunlin",
        disks=[DiskSet(count=2, size=10**13)],
        hardware=LUNS,
        lvm=Lvm(enabled=True, vg="lunlin", lv="linear"),
        filesystem=Filesystem(type="xfs"),
    ),
    "onedisk": Plan(name="onedisk", disks=[DiskSet(count=1, size=2 * 10**12)], filesystem=Filesystem(type="xfs")),
}


LAB_TIMEOUT_S = 900.0


def lab_scenarios(kit) -> list:  # type: ignore[no-untyped-def]
    return _prepared(kit.manifest.kernel_release)[0]


@functools.cache
def _prepared(kernel_release: str) -> tuple[list, dict]:
    return prepare_matrix(MATRIX, rehearsal_tools(kernel_release))


@pytest.fixture(scope="module")
def lab(request):
    return shared_batch(request), _prepared(ensure_kit().manifest.kernel_release)[1]


@pytest.mark.parametrize("name", MATRIX)
def test_every_figure_matches_the_vm(lab, name):
    batch, expected = lab
    checks = every_figure_checked(batch, expected, name)
    assert "mdadm --create" not in batch.scenario(name).stdout
    assert len(checks) >= (8 if expected[name][0].lvm.enabled else 5)
