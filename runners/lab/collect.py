"""Parsers of what the guest's collector wrote after a scenario: pure functions of text.

The collector's files (see guest/collect.sh) arrive as {relative path: text}; this module
turns them into one frozen LabCollection with bytes as ints. The LVM, XFS and ext4
reports reuse the parsers the host-side probes already use.
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, ConfigDict, Field

from planners.fs.xfs.geometry import XfsGeometry
from runners.probes.btrfs import parse_devices, parse_free_estimated
from runners.probes.ext4 import DumpE2fsHeader, parse_dumpe2fs_header
from runners.probes.lvm import LvReport, PvReport, VgReport, parse_lvs, parse_pvs, parse_vgs
from runners.probes.xfs import parse_mkfs_output

_FROZEN = ConfigDict(frozen=True)


class MdMember(BaseModel):
    model_config = _FROZEN

    device: str = Field(description="Member block device name, e.g. sdb.")
    slot: int | None = Field(description="Role in the array; None for a spare.")
    state: str = Field(description="md's state of the member (in_sync, spare, ...).")
    data_offset_sectors: int | None = Field(description="Data offset from --examine, in 512-byte sectors.")
    super_offset_sectors: int | None = Field(description="Superblock offset from --examine, in 512-byte sectors.")
    avail_dev_sectors: int | None = Field(description="'Avail Dev Size' from --examine, in 512-byte sectors.")


class MdArray(BaseModel):
    model_config = _FROZEN

    name: str = Field(description="Kernel name, e.g. md0.")
    level: str = Field(description="raid0, raid1, raid5, ...")
    raid_devices: int = Field(description="Active member slots, count.")
    array_bytes: int = Field(description="Array size as `blockdev --getsize64` reports it, in bytes.")
    component_bytes: int = Field(description="Space used on each member (sysfs component_size), in bytes.")
    chunk_bytes: int = Field(description="Chunk size, in bytes (0 where the level has none).")
    layout: str | None = Field(description="Layout as `mdadm --detail` names it (left-symmetric, near=2, ...).")
    metadata: str = Field(description="Superblock version, e.g. 1.2.")
    bitmap: str | None = Field(description="`mdadm --detail` Intent Bitmap line (e.g. Internal); None if absent.")
    members: tuple[MdMember, ...] = Field(description="Members and spares, in slot order then spares.")
    stripe_cache_size: int | None = Field(description="Stripe cache entries (raid4/5/6 only).")
    export: dict[str, str] = Field(description="`mdadm --detail --export` as key -> value.")

    @property
    def spares(self) -> int:
        return sum(1 for m in self.members if m.slot is None)


class BlockDevice(BaseModel):
    model_config = _FROZEN

    name: str = Field(description="Kernel name: md0, dm-0, sda.")
    size_bytes: int = Field(description="`blockdev --getsize64`, in bytes.")
    ra_sectors: int = Field(description="`blockdev --getra`, in 512-byte sectors.")
    io_min: int = Field(description="queue/minimum_io_size, in bytes.")
    io_opt: int = Field(description="queue/optimal_io_size, in bytes (0: none).")
    read_ahead_kb: int = Field(description="queue/read_ahead_kb, in KiB.")
    logical_block: int = Field(description="queue/logical_block_size, in bytes.")
    physical_block: int = Field(description="queue/physical_block_size, in bytes.")
    rotational: bool = Field(description="queue/rotational.")
    dm_name: str | None = Field(description="device-mapper name (vg-lv) of a dm device.")
    stripe_cache_size: int | None = Field(description="md/stripe_cache_size of a raid4/5/6 md device, entries.")


class BtrfsReport(BaseModel):
    """A mounted btrfs as `btrfs filesystem show --raw` and `btrfs filesystem usage -b` report it."""

    model_config = _FROZEN

    devices: dict[str, tuple[int, int]] = Field(
        description="Each device by kernel name (sdb, md127): its size and the bytes of chunks on it, bytes."
    )
    free_estimated: int | None = Field(description="`btrfs filesystem usage -b` Free (estimated), bytes.")


def parse_btrfs_report(text: str, kernel_names: dict[str, str]) -> BtrfsReport:
    """The collector's btrfs file (show, then usage); device paths become kernel names, through
    `kernel_names` ({path the scenario gave: kernel name}) where the path is not /dev/NAME itself."""
    devices = {kernel_names.get(path, path.rsplit("/", 1)[-1]): v for path, v in parse_devices(text).items()}
    return BtrfsReport(devices=devices, free_estimated=parse_free_estimated(text))


class FilesystemFound(BaseModel):
    """A filesystem the collector found on a device: its geometry as the tools report it, df when mounted."""

    model_config = _FROZEN

    device: str = Field(description="Kernel name of the device holding it (md0, dm-0).")
    fstype: str = Field(description="xfs, ext4 or btrfs (ext2/ext3 reported as such).")
    xfs: XfsGeometry | None = Field(None, description="`xfs_info` geometry, for XFS.")
    ext: DumpE2fsHeader | None = Field(None, description="`dumpe2fs -h` header, for ext2/3/4.")
    btrfs: BtrfsReport | None = Field(None, description="Devices and usage, for btrfs.")
    mountpoint: str | None = Field(None, description="Where it was mounted when collected, if it was.")
    df_size: int | None = Field(None, description="`df -B1` size, in bytes (mounted only).")
    df_used: int | None = Field(None, description="`df -B1` used, in bytes (mounted only).")
    df_avail: int | None = Field(None, description="`df -B1` available, in bytes (mounted only).")


class LvReadahead(BaseModel):
    model_config = _FROZEN

    name: str = Field(description="LV name.")
    vg: str = Field(description="VG name.")
    setting: str = Field(description="lv_read_ahead as set: 'auto' or a byte count.")
    kernel_bytes: int | None = Field(description="lv_kernel_read_ahead, in bytes; None if inactive.")
    dm_path: str = Field(description="/dev/mapper path of the LV.")


class LabCollection(BaseModel):
    model_config = _FROZEN

    md: tuple[MdArray, ...] = Field(description="md arrays, by name.")
    block: dict[str, BlockDevice] = Field(description="md, dm and sd devices by kernel name.")
    filesystems: tuple[FilesystemFound, ...] = Field(description="Filesystems found on md and dm devices.")
    pvs: tuple[PvReport, ...] = Field(description="`pvs` rows.")
    vgs: tuple[VgReport, ...] = Field(description="`vgs` rows.")
    lvs: tuple[LvReport, ...] = Field(description="`lvs --segments` rows folded per LV.")
    lv_readahead: tuple[LvReadahead, ...] = Field(description="Readahead per LV.")
    mdstat: str = Field(description="/proc/mdstat as read.")
    aliases: dict[str, str] = Field(
        default_factory=dict, description="Kernel name of each device path given (the scenario's disks, by-id links)."
    )

    def kernel_name(self, path: str) -> str:
        """The kernel name of a device path: its alias if one was recorded, else the path's last part."""
        return self.aliases.get(path, path.rsplit("/", 1)[-1])

    def md_array(self, name: str) -> MdArray:
        return next(a for a in self.md if a.name == name)

    def filesystem(self, device: str) -> FilesystemFound:
        return next(f for f in self.filesystems if f.device == device)


def parse_key_values(text: str) -> dict[str, str]:
    """KEY=value lines (`mdadm --detail --export`)."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def parse_detail(text: str) -> dict[str, str]:
    """`mdadm --detail` "Key : value" lines, keys stripped."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(" : ")
        if sep:
            out.setdefault(key.strip(), value.strip())
    return out


def _sectors(text: str, key: str) -> int | None:
    m = re.search(rf"^\s*{key} : (\d+) sectors", text, re.M)
    return int(m.group(1)) if m else None


def parse_examine(text: str) -> dict[str, int | None]:
    """Offsets and sizes from `mdadm --examine` of one member, in sectors."""
    out = {
        k: _sectors(text, label)
        for k, label in (
            ("data_offset_sectors", "Data Offset"),
            ("super_offset_sectors", "Super Offset"),
            ("avail_dev_sectors", "Avail Dev Size"),
        )
    }
    # Superblocks at the end (0.90, 1.0) keep the data at the start: mdadm prints no Data Offset.
    if out["data_offset_sectors"] is None and re.search(r"^\s*Version : (1\.0|0\.90)\s*$", text, re.M):
        out["data_offset_sectors"] = 0
    return out


def parse_block_lines(text: str) -> dict[str, BlockDevice]:
    """collect.sh's block.txt: one `key=value ...` line per device."""
    out = {}
    for line in text.splitlines():
        f = dict(p.split("=", 1) for p in line.split() if "=" in p)
        if "dev" not in f:
            continue
        out[f["dev"]] = BlockDevice(
            name=f["dev"],
            size_bytes=int(f["size"]),
            ra_sectors=int(f["ra"]),
            io_min=int(f["io_min"]),
            io_opt=int(f["io_opt"]),
            read_ahead_kb=int(f["read_ahead_kb"]),
            logical_block=int(f["logical"]),
            physical_block=int(f["physical"]),
            rotational=f["rotational"] == "1",
            dm_name=f.get("dm_name") or None,
            stripe_cache_size=int(f["stripe_cache_size"]) if f.get("stripe_cache_size") else None,
        )
    return out


def parse_df(text: str) -> dict[str, tuple[str, int, int, int]]:
    """`df -B1 --output=source,fstype,size,used,avail,target` -> {source: (target, size, used, avail)}."""
    out = {}
    for line in text.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 6 and parts[2].isdigit():
            out[parts[0]] = (parts[5], int(parts[2]), int(parts[3]), int(parts[4]))
    return out


def _md_array(name: str, files: dict[str, str], block: dict[str, BlockDevice]) -> MdArray:
    sysfs = dict(line.split(" ", 1) for line in files.get(f"md/{name}.sysfs", "").splitlines() if " " in line)
    detail = parse_detail(files.get(f"md/{name}.detail", ""))
    members = []
    for line in files.get(f"md/{name}.members", "").splitlines():
        dev, slot, state = [*line.split(), "", ""][:3]
        members.append(
            MdMember(
                device=dev,
                slot=int(slot) if slot.isdigit() else None,
                state=state,
                **parse_examine(files.get(f"examine/{dev}.txt", "")),
            )
        )
    members.sort(key=lambda m: (m.slot is None, m.slot or 0, m.device))
    bitmap = detail.get("Intent Bitmap")
    return MdArray(
        name=name,
        level=sysfs.get("level", detail.get("Raid Level", "")),
        raid_devices=int(sysfs["raid_disks"]),
        array_bytes=block[name].size_bytes if name in block else 0,
        component_bytes=int(sysfs.get("component_size", "0") or 0) * 1024,
        chunk_bytes=int(sysfs.get("chunk_size", "0") or 0),
        layout=detail.get("Layout"),
        metadata=sysfs.get("metadata_version") or detail.get("Version", ""),
        bitmap=bitmap,
        members=tuple(members),
        stripe_cache_size=int(sysfs["stripe_cache_size"]) if sysfs.get("stripe_cache_size") else None,
        export=parse_key_values(files.get(f"md/{name}.export", "")),
    )


def _json_or_empty(text: str) -> str:
    try:
        json.loads(text)
        return text
    except ValueError:
        return "{}"


def _lv_readahead(text: str) -> list[LvReadahead]:
    rows = [r for rep in json.loads(_json_or_empty(text)).get("report", []) for r in rep.get("seg", rep.get("lv", []))]
    seen: dict[tuple[str, str], LvReadahead] = {}
    for r in rows:
        key = (r["vg_name"], r["lv_name"])
        kernel = r.get("lv_kernel_read_ahead", "")
        seen.setdefault(
            key,
            LvReadahead(
                name=r["lv_name"],
                vg=r["vg_name"],
                setting=r.get("lv_read_ahead", ""),
                kernel_bytes=int(kernel) if kernel.lstrip("-").isdigit() and int(kernel) >= 0 else None,
                dm_path=r.get("lv_dm_path", ""),
            ),
        )
    return list(seen.values())


def parse_collection(files: dict[str, str]) -> LabCollection:
    """All of a scenario's collector files -> LabCollection."""
    block = parse_block_lines(files.get("block.txt", ""))
    # A stopped array can leave its node behind for a while, with no raid_disks: no array to report.
    md_names = sorted(
        k[3:].removesuffix(".sysfs")
        for k, text in files.items()
        if k.startswith("md/") and k.endswith(".sysfs") and "raid_disks " in text
    )
    df = parse_df(files.get("df.txt", ""))
    pairs = (line.split() for line in files.get("aliases.txt", "").splitlines())
    kernel_names = {p[0]: p[1] for p in pairs if len(p) == 2}
    filesystems = []
    for key, text in sorted(files.items()):
        if not key.startswith("fs/"):
            continue
        dev, _, kind = key[3:].rpartition(".")
        xfs = parse_mkfs_output(text) if kind == "xfs_info" else None
        ext = parse_dumpe2fs_header(text) if kind == "dumpe2fs" else None
        btrfs = parse_btrfs_report(text, kernel_names) if kind == "btrfs" else None
        fstype = "xfs" if xfs else next((f for f in ("ext4", "ext3") if ext and _has_ext_feature(ext, f)), "ext2")
        fstype = "btrfs" if kind == "btrfs" else fstype
        dm = block[dev].dm_name if dev in block else None
        sources = (
            [f"/dev/{dev}"] + ([f"/dev/mapper/{dm}"] if dm else []) + [p for p, n in kernel_names.items() if n == dev]
        )
        mounted = next((df[s] for s in sources if s in df), None)
        filesystems.append(
            FilesystemFound(
                device=dev,
                fstype=fstype,
                xfs=xfs,
                ext=ext,
                btrfs=btrfs,
                mountpoint=mounted[0] if mounted else None,
                df_size=mounted[1] if mounted else None,
                df_used=mounted[2] if mounted else None,
                df_avail=mounted[3] if mounted else None,
            )
        )
    return LabCollection(
        md=tuple(_md_array(n, files, block) for n in md_names),
        block=block,
        filesystems=tuple(filesystems),
        pvs=tuple(parse_pvs(_json_or_empty(files.get("pvs.json", "")))),
        vgs=tuple(parse_vgs(_json_or_empty(files.get("vgs.json", "")))),
        lvs=tuple(parse_lvs(_json_or_empty(files.get("lvs.json", "")))),
        lv_readahead=tuple(_lv_readahead(files.get("lvs.json", ""))),
        mdstat=files.get("mdstat.txt", ""),
        aliases=kernel_names,
    )


def _has_ext_feature(ext: DumpE2fsHeader, fstype: str) -> bool:
    if fstype == "ext4":
        return "extent" in ext.features or "extents" in ext.features
    return "has_journal" in ext.features
