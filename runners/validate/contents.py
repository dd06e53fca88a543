"""What a block device holds, in words, for a target that carries no array or filesystem podplan reads.

`podplan check /dev/sdb` on a disk that holds a mounted ext4, an md member or a partition
table says which, with what identifies it (label, UUID) and who uses it (mount points,
the md or dm device holding it), rather than only that podplan found nothing of its own.
"""

from __future__ import annotations

import os

from runners.host.disks import blkid_probe
from runners.validate.guard import GuardError, block_rdev, listdir_or_empty, parse_mountinfo, partitions, sysfs_dir

# blkid's TYPE for the signatures that are not filesystems, as a sysadmin names them.
_KINDS = {
    "linux_raid_member": "an md RAID member",
    "LVM2_member": "an LVM physical volume",
    "swap": "a swap area",
    "crypto_LUKS": "a LUKS container",
    "zfs_member": "a ZFS pool member",
    "bcache": "a bcache device",
    "ceph": "a Ceph disk",
}


def describe_found(
    probe: dict[str, str], *, mounts: list[str], holders: list[str], parts: list[tuple[str, dict[str, str], list[str]]]
) -> str:
    """A device's contents in one phrase, from blkid's export fields, its mount points, the devices
    holding it and its partitions (name, blkid fields, mount points)."""
    kind = probe.get("TYPE", "")
    ids = [
        f"label {probe['LABEL']}" if probe.get("LABEL") else "",
        f"UUID {probe['UUID']}" if probe.get("UUID") else "",
    ]
    named = f" ({', '.join(i for i in ids if i)})" if any(ids) else ""
    if kind:
        what = f"{_KINDS.get(kind, kind.upper() + ' filesystem')}{named}"
    elif probe.get("PTTYPE"):
        what = f"a {probe['PTTYPE']} partition table"
        if parts:
            what += " with " + "; ".join(
                f"{name} ({describe_found(p, mounts=m, holders=[], parts=[])})" for name, p, m in parts
            )
        else:
            what += " and no partitions"
    else:
        what = "no signature that blkid knows (empty, or data it cannot name)"
    if mounts:
        what += f", mounted on {', '.join(mounts)}"
    if holders:
        what += f", held by {', '.join(holders)}"
    return what


def describe_device(path: str) -> str | None:
    """What the block device at `path` holds, in one phrase; None if `path` is no block device."""
    try:
        rdev = block_rdev(path)
    except GuardError:
        return None
    sysdir = sysfs_dir(rdev)
    try:
        with open("/proc/self/mountinfo") as f:
            mounts = parse_mountinfo(f.read())
    except OSError:
        mounts = {}
    parts = []
    for part in partitions(sysdir):
        name = os.path.basename(part)
        try:
            numbers = block_rdev(f"/dev/{name}")
        except GuardError:
            numbers = None
        parts.append((name, blkid_probe(f"/dev/{name}"), mounts.get(numbers, []) if numbers else []))
    return describe_found(
        blkid_probe(path),
        mounts=mounts.get(rdev, []),
        holders=sorted(listdir_or_empty(os.path.join(sysdir, "holders"))),
        parts=parts,
    )
