"""The whole disks of this machine, each with whatever already uses it: where a new plan starts.

lsblk gives the disks and what is stacked on them; /proc/mdstat adds md arrays lsblk may not
show (an inactive one); /dev/disk/by-id gives the stable names a build script should use.
Without udev (containers, minimal guests) lsblk knows no signatures, so a disk that looks
free is asked with `blkid -p`, which reads the disk itself. `whole_disks` and `pick_by_id`
are pure; `read_host_disks` does the reading.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PlanError, PodplanError
from planners.layouts.from_disks import FoundDisk
from planners.models import check_device
from runners.exec import CommandError, have, not_found, run
from runners.host.inventory import DiskInfo, parse_lsblk, parse_mdstat, read_sysfs

_FROZEN = ConfigDict(frozen=True)
BY_ID = "/dev/disk/by-id"
MIN_MEMBER_BYTES = 4 * 1024**2  # smaller than this md cannot fit its superblock and data offset
_KNOWN = ("linux_raid_member", "LVM2_member")
# by-id names, best first: model_serial names a person can match to the label on the drive;
# wwn- and eui. names are stable too but opaque.
_READABLE_BY_ID = ("ata-", "nvme-", "scsi-", "usb-", "virtio-", "wwn-")
_OPAQUE_NVME = ("nvme-eui.", "nvme-nvme.")


class InventoryError(PodplanError):
    """The disks could not be listed; the message is one line for the user."""


class DetectedDisk(BaseModel):
    """A whole disk and what uses it."""

    model_config = _FROZEN

    info: DiskInfo = Field(description="What lsblk reports.")
    device: str = Field(description="/dev/disk/by-id/... if there is such a name, else /dev/NAME.")
    uses: tuple[str, ...] = Field(description="What uses it, a few words each; empty when it is free.")
    root: bool = Field(description="True if the root filesystem lives on it.")

    @property
    def free(self) -> bool:
        return not self.uses

    @property
    def big_enough(self) -> bool:
        return self.info.size_bytes >= MIN_MEMBER_BYTES

    def found(self) -> FoundDisk:
        i = self.info
        return FoundDisk(
            device=self.device,
            size=i.size_bytes,
            logical_sector=i.logical_sector,
            physical_sector=i.physical_sector,
            rotational=i.rotational,
            model=i.model,
        )


class HostDisks(BaseModel):
    """What `read_host_disks` found."""

    model_config = _FROZEN

    disks: list[DetectedDisk] = Field(description="Whole disks, in lsblk's order.")
    note: str = Field("", description="What could not be checked, one line ('' if everything was).")


def _by_id_rank(link: str) -> int:
    if link.startswith(_OPAQUE_NVME):
        return len(_READABLE_BY_ID)
    return next((i for i, p in enumerate(_READABLE_BY_ID) if link.startswith(p)), len(_READABLE_BY_ID) + 1)


def pick_by_id(links: Mapping[str, str]) -> dict[str, str]:
    """{link name in /dev/disk/by-id: kernel name it points to} -> {kernel name: best by-id path}."""
    best: dict[str, tuple[int, str]] = {}
    for link, target in links.items():
        if "-part" in link:
            continue
        try:
            check_device(f"{BY_ID}/{link}")  # udev keeps some characters a script must never carry
        except PlanError:
            continue
        candidate = (_by_id_rank(link), link)
        best[target] = min(best.get(target, candidate), candidate)
    return {name: f"{BY_ID}/{link}" for name, (_, link) in best.items()}


def _below(name: str, by_name: Mapping[str, DiskInfo]) -> list[DiskInfo]:
    out: list[DiskInfo] = []
    seen = {name}
    todo = list(by_name[name].children)
    while todo:
        n = todo.pop(0)
        if n in seen or n not in by_name:
            continue
        seen.add(n)
        out.append(by_name[n])
        todo.extend(by_name[n].children)
    return out


def _is_md(d: DiskInfo) -> bool:
    return d.type.startswith("raid") or d.type in ("md", "linear")


def _uses(d: DiskInfo, by_name: Mapping[str, DiskInfo], md_members: Mapping[str, str], signature: str) -> list[str]:
    under = _below(d.name, by_name)
    mounts = [m for x in (d, *under) for m in x.mountpoints]
    parts = [x for x in under if x.type == "part" and x.name in d.children]
    direct = [d, *parts]  # what sits on the disk itself, as opposed to further up the stack
    uses = ["root disk"] if "/" in mounts else []
    names = {x.name for x in direct}
    arrays = sorted({x.name for x in under if _is_md(x)} | {md for member, md in md_members.items() if member in names})
    if arrays or any(x.fstype == "linux_raid_member" for x in direct):
        uses.append("md member" + (f" ({', '.join(arrays)})" if arrays else ""))
    if any(x.fstype == "LVM2_member" for x in direct) or any(
        by_name[c].type == "lvm" for x in direct for c in x.children if c in by_name
    ):
        uses.append("LVM PV")
    if parts:
        uses.append("partitions " + ", ".join(p.name for p in parts))
    others = [
        c for c in d.children if c in by_name and by_name[c].type not in ("part", "lvm") and not _is_md(by_name[c])
    ]
    if others:
        uses.append("holds " + ", ".join(others))
    if "[SWAP]" in mounts:
        uses.append("swap")
    if any(m != "[SWAP]" for m in mounts):
        uses.append("mounted at " + ", ".join(m for m in mounts if m != "[SWAP]"))
    sig = signature or (d.fstype if d.fstype not in _KNOWN else "")
    if sig and not mounts:
        uses.append(f"{sig} signature")
    return uses


def whole_disks(
    devs: Sequence[DiskInfo],
    *,
    by_id: Mapping[str, str] | None = None,
    md_members: Mapping[str, str] | None = None,
    signatures: Mapping[str, str] | None = None,
) -> list[DetectedDisk]:
    """The whole disks among lsblk's devices, each with what uses it.

    `by_id` maps kernel names to by-id paths (`pick_by_id`), `md_members` member names
    (disks or partitions) to their array, `signatures` kernel names to what blkid found.
    Empty devices (a card reader without a card) and RAM disks are left out: nothing to plan.
    """
    by_name = {d.name: d for d in devs}
    out = []
    for d in devs:
        if d.type != "disk" or d.size_bytes <= 0 or d.name.startswith(("zram", "ram")):
            continue
        uses = _uses(d, by_name, md_members or {}, (signatures or {}).get(d.name, ""))
        out.append(
            DetectedDisk(info=d, device=(by_id or {}).get(d.name, d.path), uses=tuple(uses), root="root disk" in uses)
        )
    return out


def blkid_probe(path: str) -> dict[str, str]:
    """What `blkid -p -o export` reads on the device itself (TYPE, LABEL, UUID, PTTYPE, ...); {} nothing."""
    try:
        r = run(["blkid", "-p", "-o", "export", path], timeout=30, check=False)
    except CommandError:
        return {}
    return dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)


def probe_signature(path: str) -> str:
    """What `blkid -p` finds on a device ('' nothing): 'xfs', 'gpt partition table', ..."""
    found = blkid_probe(path)
    if found.get("TYPE"):
        return found["TYPE"]
    return f"{found['PTTYPE']} partition table" if found.get("PTTYPE") else ""


def read_by_id(directory: str = BY_ID) -> dict[str, str]:
    """{link name: kernel name} of the by-id links ({} where udev keeps none)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return {}
    links = {}
    for n in names:
        try:
            links[n] = os.path.basename(os.readlink(os.path.join(directory, n)))
        except OSError:
            continue
    return links


def read_host_disks() -> HostDisks:
    """This machine's whole disks. Raises InventoryError (one line) if lsblk cannot list them."""
    if not have("lsblk"):
        raise InventoryError(f"Cannot list the disks: {not_found('lsblk')}")
    try:
        text = run(["lsblk", "-J", "-b", "-O"], timeout=60).stdout
        devs = parse_lsblk(text)
    except CommandError as exc:
        raise InventoryError(f"Cannot list the disks: {exc}") from None
    except ValueError:
        raise InventoryError("Cannot list the disks: lsblk printed no JSON (util-linux older than 2.27?)") from None
    md_members = {m: a.name for a in parse_mdstat(read_sysfs("/proc/mdstat")) for m in a.members}
    by_id = pick_by_id(read_by_id())
    first = whole_disks(devs, by_id=by_id, md_members=md_members)
    ask = [d.info for d in first if d.free]
    readable = [d for d in ask if os.access(d.path, os.R_OK)]
    with ThreadPoolExecutor(max_workers=8) as pool:  # blkid reads both ends of each disk: seeks on HDDs
        sigs = dict(zip((d.name for d in readable), pool.map(probe_signature, (d.path for d in readable)), strict=True))
    note = ""
    if len(readable) < len(ask):
        note = (
            f"{len(ask) - len(readable)} disks could not be read to look for old signatures (run as root to check them)"
        )
    return HostDisks(disks=whole_disks(devs, by_id=by_id, md_members=md_members, signatures=sigs), note=note)
