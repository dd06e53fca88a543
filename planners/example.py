"""The built-in example: a Backblaze-style 45-disk storage pod of 2 TB drives.

Three RAID6 groups of 15 drives, joined by a linear LVM volume, XFS on top: the layout
the original pods used (three arrays under one volume), with md and the filesystem
aligned to the same full stripe.
"""

from __future__ import annotations

from collections.abc import Callable

from planners.hardware.disks import DiskSpec, Lun
from planners.hardware.machine import Hardware, Wiring
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


# A LUN reaches the host through its controller's PCIe slot (gen3 x8 here), not over a disk's link:
# its own disks hang off the controller's ports, each on a link of its own.
CONTROLLER = Wiring(link="direct", hbas=1, pcie_gen=3, pcie_lanes=8)


def example_luns() -> Plan:
    """A hardware RAID controller's 8 LUNs, each 7 disks of RAID5 with a 128 KiB strip, under one LV
    striped at 128 KiB, ext4 on top: no md, the controller keeps the redundancy."""
    return Plan(
        name="luns8",
        disks=[DiskSet(count=8, size=6 * 4000787030016, model="7 x 4 TB RAID5 LUN")],
        lvm=Lvm(enabled=True, vg="pod", lv="data", mode="striped"),
        filesystem=Filesystem(type="ext4", mount_point="/srv/luns8"),
        hardware=Hardware(disk=DiskSpec(lun=Lun(disks=7, level=5, strip=128 * 1024)), wiring=CONTROLLER),
    )


def example_scratch() -> Plan:
    """One 24-disk RAID10 LUN with ext4 straight on it, without a journal: scratch space."""
    return Plan(
        name="scratch",
        disks=[DiskSet(count=1, size=12 * 4000787030016, model="24 x 4 TB RAID10 LUN")],
        filesystem=Filesystem(type="ext4", journal=False, reserved_percent=0.0, mount_point="/srv/scratch"),
        hardware=Hardware(disk=DiskSpec(lun=Lun(disks=24, level=10, strip=256 * 1024)), wiring=CONTROLLER),
    )


def example_nvme() -> Plan:
    """XFS straight on a single NVMe drive."""
    return Plan(
        name="nvme",
        disks=[
            DiskSet(
                count=1,
                size=3840755982336,
                logical_sector=512,
                physical_sector=4096,
                rotational=False,
                model="3.84 TB NVMe",
            )
        ],
        filesystem=Filesystem(type="xfs", mount_point="/srv/nvme"),
        hardware=Hardware(disk=DiskSpec(disk_class="nvme")),
    )


def example_btrfs() -> Plan:
    """btrfs's own RAID across six disks of mixed sizes: data raid10, metadata raid1c3."""
    return Plan(
        name="btrfs6",
        disks=[
            DiskSet(count=4, size=4000787030016, model="4 TB 7200 rpm SATA"),
            DiskSet(count=2, size=8001563222016, model="8 TB 7200 rpm SATA"),
        ],
        filesystem=Filesystem(
            type="btrfs", data_profile="raid10", metadata_profile="raid1c3", label="btrfs6", mount_point="/srv/btrfs6"
        ),
    )


def example_btrfs_md() -> Plan:
    """btrfs as one device on an md RAID6: md keeps the redundancy, btrfs its checksums and snapshots."""
    return Plan(
        name="btrfsmd",
        disks=[DiskSet(count=8, size=8001563222016, model="8 TB 7200 rpm SATA")],
        groups=[MdGroup(name="md0", level=6, members=8, chunk=512 * 1024)],
        filesystem=Filesystem(type="btrfs", label="btrfsmd", mount_point="/srv/btrfsmd"),
    )


# Every stack podplan plans, one example each: `podplan example NAME`.
EXAMPLES: dict[str, tuple[str, Callable[[], Plan]]] = {
    "pod45": ("45 disks, 3 x RAID6 of 15 under linear LVM, XFS (the default)", example_pod),
    "luns8": ("8 hardware RAID5 LUNs under one striped LV, ext4, no md", example_luns),
    "scratch": ("one 24-disk RAID10 LUN, ext4 without a journal, no md or LVM", example_scratch),
    "nvme": ("one NVMe drive, XFS straight on it", example_nvme),
    "btrfs6": ("6 mixed disks, btrfs raid10 data and raid1c3 metadata, no md or LVM", example_btrfs),
    "btrfsmd": ("8 disks, md RAID6, btrfs on it as one device (its single/dup defaults)", example_btrfs_md),
}
