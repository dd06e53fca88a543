"""The built-in example: a Backblaze-style 45-disk storage pod of 2 TB drives.

Three RAID6 groups of 15 drives, joined by a linear LVM volume, XFS on top: the layout
the original pods used (three arrays under one volume), with md and the filesystem
aligned to the same full stripe.
"""

from __future__ import annotations

from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan

TWO_TB_DRIVE = 2000398934016  # what a "2 TB" SATA drive reports: 3907029168 sectors of 512 bytes


def example_pod() -> Plan:
    return Plan(
        name="pod45",
        disks=[DiskSet(count=45, size=TWO_TB_DRIVE, model="2 TB 7200 rpm SATA", rotational=True)],
        groups=[MdGroup(name=f"md{i}", level=6, members=15, chunk=512 * 1024) for i in range(3)],
        lvm=Lvm(enabled=True, vg="pod", lv="data", mode="linear"),
        filesystem=Filesystem(type="xfs", label="pod45", mount_point="/srv/pod45"),
    )
