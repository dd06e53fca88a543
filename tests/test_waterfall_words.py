"""The capacity waterfall names each step as what it is on the stack at hand: no empty rows for layers
the stack does not have, the tail past the last extent as a tail, and on ext3 made with -m 0 the last
step as df's Used right after mkfs (held against a real mke2fs and statfs)."""

from __future__ import annotations

import os

import pytest

from planners.compute import compute
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.units import KiB, MiB
from runners.probes.ext4 import make_image
from runners.probes.loopdev import attach_loop, detach_loop, mounted
from tests.test_ext4_helpers import need


def disk(fs: str, reserved: float, size: int = 256 * MiB) -> Plan:
    return Plan(
        name="one",
        disks=[DiskSet(count=1, size=size, logical_sector=512, physical_sector=512)],
        groups=[],
        lvm=Lvm(enabled=False),
        filesystem=Filesystem(type=fs, reserved_percent=reserved),  # type: ignore[arg-type]
    )


def test_rows_of_layers_the_stack_lacks_are_not_shown():
    keys = [s.key for s in compute(disk("ext3", 0.0)).capacity]
    assert keys == ["raw", "fs_size", "fs_metadata", "reserved"]
    lvm = disk("ext4", 5.0).model_copy(update={"lvm": Lvm(enabled=True)})
    assert [s.key for s in compute(lvm).capacity] == ["raw", "lvm", "lvm_align", *keys[1:]]
    md = disk("ext4", 5.0).model_copy(
        update={"disks": [DiskSet(count=4, size=256 * MiB)], "groups": [MdGroup(level=5, members=4, chunk=64 * KiB)]}
    )
    got = [s.key for s in compute(md).capacity]
    assert got[:6] == ["raw", "unassigned", "spares", "md_metadata", "md_remainder", "md_redundancy"]


def test_the_tail_past_the_last_extent_is_named_a_tail():
    p = Plan(
        name="t",
        disks=[DiskSet(count=21, size=4 * 10**12)],
        groups=[MdGroup(name=f"md{i}", level=5, members=7, chunk=512 * KiB) for i in range(3)],
        lvm=Lvm(enabled=True),
    )
    (tail,) = [s for s in compute(p).capacity if s.key == "lvm_align"]
    assert tail.label == "LVM extent tail" and "alignment" not in tail.label + tail.note
    assert "past each PV's last extent" in tail.note


@pytest.mark.root
@pytest.mark.parametrize(("fs", "reserved", "label"), [("ext3", 0.0, "in use after mkfs"), ("ext4", 5.0, "reserved")])
def test_the_last_step_names_what_a_real_mke2fs_and_statfs_leave(tmp_path, fs, reserved, label):
    need("mke2fs", "dumpe2fs", "losetup", "mount", "umount")
    if os.geteuid() != 0:
        pytest.skip("loop devices need root")
    r = compute(disk(fs, reserved))
    last = r.capacity[-1]
    geometry = r.volumes[0].ext4
    assert geometry is not None
    image = str(tmp_path / "fs.img")
    make_image(geometry, image)
    dev = attach_loop(image)
    try:
        with mounted(dev) as mnt:
            st = os.statvfs(mnt)
    finally:
        detach_loop(dev)
    size, free, avail = (n * st.f_frsize for n in (st.f_blocks, st.f_bfree, st.f_bavail))
    assert last.label == label and last.removed_bytes == size - avail
    if fs == "ext3":  # no root reserve, no hold-back: all of it is df's Used
        assert free == avail and last.removed_bytes == size - free
        assert "Used after mkfs" in last.note and "reserve" not in last.note
    else:
        assert last.removed_bytes > size - free and last.note.startswith("root reserve (-m), kernel hold-back")
