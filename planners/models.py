"""The plan: what a sysadmin has (disks) and what they want built (md, LVM, filesystem).

Everything here is frozen and validated on construction, so a Plan that exists can be
computed and scripted. Names and paths that will end up in a shell script are checked
against a strict character set here, at the model, so no shell metacharacter can ever
reach the generated script.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Literal, NamedTuple

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from planners.errors import PlanError
from planners.fs_rules import BTRFS_PROFILES as BTRFS_PROFILES
from planners.fs_rules import check_btrfs, check_journal_device
from planners.hardware.machine import Hardware
from planners.lv_model import LogicalVolume, LvSize
from planners.names import (
    LABELS,
    LV_NAME,
    MD_NAME,
    MOUNT_OPTION,
    MOUNT_OPTIONS_MAX,
    PLAN_NAME,
    VG_LV_MAX,
    VG_NAME,
    check_path,
    check_text,
)
from planners.schemes import Scheme, md_scheme
from planners.units import KiB, MiB, is_power_of_two, parse_size
from planners.versions import ToolVersions


def _size(value: object) -> int:
    return parse_size(value)  # type: ignore[arg-type]


def _optional_size(value: object) -> int | None:
    return None if value is None or value == "" else parse_size(value)  # type: ignore[arg-type]


def _disk_size(value: object) -> int:
    n = parse_size(value, what="disk size")  # type: ignore[arg-type]
    if isinstance(value, str) and "." in value:
        n -= n % 4096  # "1.8TiB" is approximate: keep it a whole number of any sector size
    return n


# Sizes are ints in Python and JSON; plan files may spell them "2TB" or "512K".
Bytes = Annotated[int, BeforeValidator(_size)]
OptionalBytes = Annotated[int | None, BeforeValidator(_optional_size)]

DEFAULT_CHUNK = 512 * KiB  # mdadm >= 3.1.1

DiskBytes = Annotated[int, BeforeValidator(_disk_size)]


def check_device(path: str, what: str = "device path", field: str = "") -> str:
    return check_path(path, what, field, device=True)


DevicePath = Annotated[str, BeforeValidator(lambda v: check_device(str(v)) if isinstance(v, str) else v)]

Frozen = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)  # inf and nan are no measurement


class DiskSet(BaseModel):
    """A set of identical disks. A plan lists one or more sets; mixed sizes are several sets."""

    model_config = Frozen

    count: int = Field(1, ge=1, le=1024, description="Number of disks in this set.")
    size: DiskBytes = Field(description="Capacity of one disk in bytes, as `blockdev --getsize64` reports it.")
    logical_sector: int = Field(512, description="Logical sector size in bytes (512 or 4096).")
    physical_sector: int = Field(4096, description="Physical sector size in bytes (512 or 4096).")
    rotational: bool = Field(True, description="True for spinning disks, False for SSD/NVMe.")
    model: str = Field("", max_length=64, description="Free-text model or label, shown in reports only.")
    devices: list[DevicePath] = Field(
        default_factory=list,
        description="Device paths, one per disk (prefer /dev/disk/by-id/...). Empty: the script asks you to fill them in.",
    )

    @model_validator(mode="after")
    def _valid(self) -> DiskSet:
        check_text(self.model, "disk model", "disks.model")
        if self.logical_sector not in (512, 4096) or self.physical_sector not in (512, 4096):
            raise PlanError("sector sizes must be 512 or 4096 bytes", "disks.logical_sector")
        if self.physical_sector < self.logical_sector:
            raise PlanError("the physical sector cannot be smaller than the logical sector", "disks.physical_sector")
        if self.size % self.logical_sector:
            raise PlanError(
                f"a disk of {self.size} bytes is not a whole number of {self.logical_sector}-byte sectors", "disks.size"
            )
        if self.size < 4 * MiB:
            raise PlanError(
                f"a disk of {self.size} bytes is too small to hold an md member (4 MiB at least)", "disks.size"
            )
        if self.devices and len(self.devices) != self.count:
            raise PlanError(f"{self.count} disks but {len(self.devices)} device paths given", "disks.devices")
        return self


class Disk(NamedTuple):
    """One physical disk of a DiskSet (a light tuple: a 60-disk plan makes many of these)."""

    size: int
    logical_sector: int
    physical_sector: int
    rotational: bool
    model: str
    device: str


RaidLevel = Literal[0, 1, 4, 5, 6, 10]


class MdGroup(BaseModel):
    """One md array built from consecutive disks of the plan (after the previous groups')."""

    model_config = Frozen

    name: str = Field("md0", description="Array name: the device becomes /dev/md/NAME.")
    level: RaidLevel = Field(6, description="RAID level: 0, 1, 4, 5, 6 or 10.")
    layout: str | None = Field(
        None, description="RAID10: n2/n3/f2/f3/o2/o3 (default n2). RAID5/6: left-symmetric etc. None = mdadm default."
    )
    members: int = Field(ge=1, le=384, description="Active member disks.")
    spares: int = Field(0, ge=0, le=64, description="Hot spares attached to this array.")
    chunk: OptionalBytes = Field(
        None,
        description="Chunk size in bytes (power of two, >= 4 KiB). None = mdadm's default (512 KiB); RAID1 has none.",
    )
    metadata: Literal["1.0", "1.1", "1.2"] = Field("1.2", description="md superblock format.")
    bitmap: Literal["internal", "none"] = Field(
        "internal", description="Write-intent bitmap, always passed explicitly."
    )
    bitmap_chunk: OptionalBytes = Field(None, description="Bitmap chunk in bytes; None lets mdadm choose.")

    @model_validator(mode="after")
    def _valid(self) -> MdGroup:
        MD_NAME.check(self.name, "groups.name")
        refusal = None if self.layout is None else self.scheme.layout_refusal(self.layout)
        if refusal:
            raise PlanError(refusal, "groups.layout")
        if self.chunk is not None and (not is_power_of_two(self.chunk) or self.chunk < 4 * KiB):
            raise PlanError(f"chunk {self.chunk} bytes must be a power of two of at least 4 KiB", "groups.chunk")
        if self.bitmap_chunk is not None and (not is_power_of_two(self.bitmap_chunk) or self.bitmap_chunk < 4 * KiB):
            raise PlanError("the bitmap chunk must be a power of two of at least 4 KiB", "groups.bitmap_chunk")
        if self.bitmap == "none" and self.bitmap_chunk is not None:
            raise PlanError("a bitmap chunk was given but the bitmap is none", "groups.bitmap_chunk")
        return self

    @property
    def effective_chunk(self) -> int | None:
        """The chunk md will use: the given one, mdadm's 512 KiB default, or None for RAID1."""
        if not self.scheme.chunked:
            return self.chunk  # normally None; a given chunk reaches md_geometry, which judges it per mdadm version
        return self.chunk if self.chunk is not None else DEFAULT_CHUNK

    @property
    def scheme(self) -> Scheme:
        """Its level's answers: data members, failures survived, copies, reshape targets."""
        return md_scheme(self.level)

    @property
    def disks(self) -> int:
        return self.members + self.spares

    @property
    def device(self) -> str:
        return f"/dev/md/{self.name}"


class Lvm(BaseModel):
    """LVM between md and the filesystem: one VG over every md group, one LV using all of it."""

    model_config = Frozen

    enabled: bool = Field(False, description="Put LVM between md and the filesystem.")
    vg: str = Field("pod", description="Volume group name.")
    lv: str = Field("data", description="Logical volume name.")
    extent_size: OptionalBytes = Field(
        None,
        description="Physical extent size in bytes (vgcreate -s); None = 4 MiB, or for a linear LV the smallest "
        "multiple of the md full stripe LVM takes when 4 MiB is not one (so each array starts on a "
        "full stripe of the LV).",
    )
    data_alignment: OptionalBytes = Field(
        None, description="pvcreate --dataalignment in bytes; None = the md full stripe (chunk x data disks)."
    )
    mode: Literal["linear", "striped"] = Field(
        "linear", description="linear concatenates the groups; striped stripes across them."
    )
    stripe_size: OptionalBytes = Field(
        None,
        description="lvcreate -I in bytes for striped mode (power of two, <= extent size); None = 64 KiB, LVM's default.",
    )

    lv_size: LvSize = Field(
        None,
        description="Size of the LV: bytes (rounded up to whole extents, and to whole stripes when striped, as "
        "lvcreate does), 'rest' or None = all the VG, or 'N%' = N percent of the VG's extents (lvcreate -l N%VG).",
    )

    volumes: list[LogicalVolume] = Field(
        default_factory=list,
        max_length=64,
        description="Several LVs on the VG, in the order lvcreate makes them, each with its filesystem; empty = "
        "the one LV `lv` of `lv_size` with the plan's [filesystem].",
    )

    @model_validator(mode="after")
    def _valid(self) -> Lvm:
        VG_NAME.check(self.vg, "lvm.vg")
        LV_NAME.check(self.lv, "lvm.lv")
        if len(self.vg) + len(self.lv) > VG_LV_MAX:
            raise PlanError(
                f"the volume group and logical volume names hold {len(self.vg) + len(self.lv)} characters together: "
                f"lvcreate takes at most {VG_LV_MAX}",
                "lvm.lv",
            )
        if self.mode == "linear" and self.stripe_size is not None:
            raise PlanError("a stripe size was given but the LVM mode is linear", "lvm.stripe_size")
        if (self.lv_size is not None or self.volumes) and not self.enabled:
            raise PlanError("an LV size or volumes were given but LVM is off (lvm.enabled = false)", "lvm.lv_size")
        if self.volumes:
            _check_volumes(self)
        return self


def _check_volumes(lvm: Lvm) -> None:
    """Several LVs: distinct names, each with a size, the rest only last."""
    names = [v.name for v in lvm.volumes]
    if len(set(names)) != len(names):
        raise PlanError("the LV names of lvm.volumes must be distinct", "lvm.volumes.name")
    if lvm.lv_size is not None:
        raise PlanError("lvm.lv_size sizes the one LV: with lvm.volumes give each its size", "lvm.lv_size")
    if any(v.size == "rest" for v in lvm.volumes[:-1]):
        raise PlanError("only the last LV can take the rest of the VG", "lvm.volumes.size")
    if len(lvm.vg) + max(len(n) for n in names) > VG_LV_MAX:
        raise PlanError(f"a volume group and LV name hold more than {VG_LV_MAX} characters together", "lvm.volumes")


class Filesystem(BaseModel):
    """The filesystem on top (on the LV, or on each md array when LVM is off)."""

    model_config = Frozen

    type: Literal["xfs", "ext4", "ext3", "btrfs"] = Field("xfs", description="Filesystem type.")
    block_size: int = Field(4096, description="Filesystem block size in bytes.")
    reserved_percent: float = Field(5.0, ge=0, le=50, description="ext3/ext4 blocks reserved for root, in percent.")
    label: str = Field(
        "", description="Filesystem label: at most 16 characters for ext3/ext4, 12 for XFS, 255 for btrfs."
    )
    mount_point: str = Field(
        "/srv/pod", description="Where the filesystem is mounted; with several volumes a suffix is added."
    )
    mount_options: list[str] = Field(default_factory=lambda: ["noatime"], description="Mount options for fstab.")
    stripe_unit: OptionalBytes = Field(
        None,
        description="Override of the stripe unit in bytes (su / stride); None = derived from the device below; "
        "0 = no stripe, written out (mkfs.xfs -d noalign, mke2fs -E stride=0,stripe_width=0) so mkfs adopts none.",
    )
    stripe_width: int | None = Field(
        None, ge=0, description="Override of the stripe width in stripe units (sw); None = derived; 0 with no stripe."
    )
    journal: bool = Field(
        True, description="ext4 only: False makes it without a journal (mke2fs -O ^has_journal), for scratch space."
    )
    journal_device: str | None = Field(
        None,
        description="ext4/ext3: a device for the journal outside the filesystem (mke2fs -O journal_dev on it, then "
        "-J device=PATH; mounted with journal_path=PATH); None: the journal is inside. Its data is destroyed.",
    )
    log_device: str | None = Field(
        None,
        description="XFS: a device for the log outside the filesystem (mkfs.xfs -l logdev=PATH, mounted with "
        "logdev=PATH); None: the log is inside. Its data is destroyed.",
    )
    data_profile: str | None = Field(
        None,
        description="btrfs data profile (mkfs.btrfs -d: single, dup, raid0, raid1, "
        "raid1c3, raid1c4, raid10, raid5, raid6); None = mkfs.btrfs's "
        "default for the device count.",
    )
    metadata_profile: str | None = Field(
        None, description="btrfs metadata profile (mkfs.btrfs -m), names as data_profile; None = mkfs.btrfs's default."
    )
    nodesize: int | None = Field(None, description="btrfs tree node size in bytes (mkfs.btrfs -n); None = 16 KiB.")
    sectorsize: int | None = Field(
        None,
        description="btrfs sector size in bytes (mkfs.btrfs -s); None = 4096, the only one a 4 KiB-page kernel mounts.",
    )

    @model_validator(mode="after")
    def _valid(self) -> Filesystem:
        if self.block_size not in (1024, 2048, 4096):
            raise PlanError(f"block size {self.block_size} must be 1024, 2048 or 4096", "filesystem.block_size")
        if self.type == "xfs" and self.block_size != 4096:
            pass  # XFS accepts smaller blocks; the geometry code validates the combination.
        if self.label:
            LABELS[self.type].check(self.label, "filesystem.label")
        check_path(self.mount_point, "mount point", "filesystem.mount_point")
        for opt in self.mount_options:
            MOUNT_OPTION.check(opt, "filesystem.mount_options")
        if len(",".join(self.mount_options)) > MOUNT_OPTIONS_MAX:
            raise PlanError(
                f"the mount options hold {len(','.join(self.mount_options))} characters: at most {MOUNT_OPTIONS_MAX}",
                "filesystem.mount_options",
            )
        btrfs_only = [
            n for n in ("data_profile", "metadata_profile", "nodesize", "sectorsize") if getattr(self, n) is not None
        ]
        if btrfs_only and self.type != "btrfs":
            raise PlanError(
                f"{btrfs_only[0]} is a btrfs setting, and the filesystem is {self.type}", f"filesystem.{btrfs_only[0]}"
            )
        if self.type == "btrfs":
            check_btrfs(self)
        if not self.journal and self.type != "ext4":
            raise PlanError(f"only ext4 can go without a journal ({self.type} cannot)", "filesystem.journal")
        if self.journal_device is not None:
            check_journal_device(self)
        if self.log_device is not None:
            check_device(self.log_device, "log device", "filesystem.log_device")
            if self.type != "xfs":
                raise PlanError(
                    f"a log device is an XFS setting (ext4 has journal_device), and the filesystem is {self.type}",
                    "filesystem.log_device",
                )
        if (self.stripe_unit is None) != (self.stripe_width is None):
            raise PlanError("give both the stripe unit and the stripe width, or neither", "filesystem.stripe_unit")
        if self.stripe_unit is not None and self.stripe_unit % self.block_size:
            raise PlanError("the stripe unit must be a multiple of the block size", "filesystem.stripe_unit")
        if self.stripe_unit and not self.stripe_width:
            raise PlanError(
                "a stripe width of 0 stripe units: give 1 or more, or stripe_unit = 0 for no stripe",
                "filesystem.stripe_width",
            )
        return self

    def volume_label(self, index: int, count: int) -> str:
        """The label of filesystem `index` of `count` (one per md array without LVM): each its own,
        so LABEL= and /dev/disk/by-label name one filesystem. The suffix stays whole and the plan's
        label is shortened to fit the format (mke2fs keeps 16 bytes, mkfs.xfs refuses over 12)."""
        if not self.label or count == 1:
            return self.label
        suffix = f"-{index}"
        return self.label[: LABELS[self.type].max_len - len(suffix)] + suffix


class Tuning(BaseModel):
    """Block-layer settings the script makes persistent with a udev rule."""

    model_config = Frozen

    readahead: OptionalBytes = Field(
        None, description="Readahead of the top device in bytes; None = podplan's recommendation."
    )
    stripe_cache_size: int | None = Field(
        None,
        ge=17,
        le=32768,
        description="md stripe_cache_size in entries (RAID4/5/6); None = podplan's recommendation.",
    )


class Plan(BaseModel):
    """A whole storage plan: disks, md groups, optional LVM, filesystem, tuning, tool versions."""

    model_config = Frozen

    name: str = Field("pod", description="Plan name, used in file names and comments.")
    disks: list[DiskSet] = Field(min_length=1, description="The disks, in the order groups take them.")
    groups: list[MdGroup] = Field(
        default_factory=list,
        max_length=64,
        description="md arrays, in order. None: LVM (when enabled) straight on the disks, each disk one PV, or "
        "without LVM the filesystem straight on the one disk.",
    )
    lvm: Lvm = Field(default_factory=Lvm, description="LVM layer.")
    filesystem: Filesystem = Field(default_factory=Filesystem, description="Filesystem layer.")
    tuning: Tuning = Field(default_factory=Tuning, description="Readahead and stripe cache.")
    tools: ToolVersions = Field(default_factory=ToolVersions, description="Tool versions assumed.")
    hardware: Hardware | None = Field(
        None,
        description="Disk speeds and failure rates, wiring, CPU, md knobs for the performance and reliability "
        "models; None = the defaults of `Hardware` (a plain server of 7200 rpm disks).",
    )

    @model_validator(mode="after")
    def _valid(self) -> Plan:
        PLAN_NAME.check(self.name, "name")
        names = [g.name for g in self.groups]
        if len(set(names)) != len(names):
            raise PlanError("md array names must be distinct", "groups.name")
        needed = sum(g.disks for g in self.groups)
        have = sum(d.count for d in self.disks)
        if needed > have:
            raise PlanError(
                f"the groups need {needed} disks (members and spares) but the plan has {have}", "groups.members"
            )
        if len(self.groups) > 1 and not self.lvm.enabled:
            pass  # Several arrays without LVM: one filesystem each, which is a valid plan.
        if not self.groups and not self.lvm.enabled and have > 1 and self.filesystem.type != "btrfs":
            raise PlanError(
                f"without md groups or LVM the filesystem goes on one disk, but the plan has {have}: "
                "enable LVM to span them, add md groups, or use btrfs across them",
                "groups",
            )
        mounts = [v.mount_point or f"{self.filesystem.mount_point}/{v.name}" for v in self.lvm.volumes]
        if len(set(mounts)) != len(mounts):
            raise PlanError("two LVs of lvm.volumes would mount on the same directory", "lvm.volumes.mount_point")
        paths = [p for d in self.disks for p in d.devices]
        if len(set(paths)) != len(paths):
            raise PlanError("the same device path is listed twice", "disks.devices")
        for field in ("journal_device", "log_device"):
            if getattr(self.filesystem, field) in paths:
                raise PlanError(f"the {field.replace('_', ' ')} is one of the plan's disks", f"filesystem.{field}")
        return self

    def disk_list(self) -> list[Disk]:
        """One Disk per physical disk, in order, with its device path ('' if not given)."""
        return list(
            _disk_list(
                tuple(
                    (d.count, d.size, d.logical_sector, d.physical_sector, d.rotational, d.model, tuple(d.devices))
                    for d in self.disks
                )
            )
        )

    def group_disks(self) -> list[tuple[MdGroup, list[Disk], list[Disk]]]:
        """Each group with its member disks and its spare disks, taken in plan order."""
        disks = self.disk_list()
        out = []
        pos = 0
        for g in self.groups:
            members = disks[pos : pos + g.members]
            spares = disks[pos + g.members : pos + g.disks]
            pos += g.disks
            out.append((g, members, spares))
        return out

    def unassigned_disks(self) -> list[Disk]:
        if not self.groups:
            return []  # without md every disk is a PV (or the one disk holds the filesystem)
        return self.disk_list()[sum(g.disks for g in self.groups) :]


@lru_cache(maxsize=256)
def _disk_list(sets: tuple[tuple[int, int, int, int, bool, str, tuple[str, ...]], ...]) -> tuple[Disk, ...]:
    """`Plan.disk_list` of the disk sets' fields: computing a plan asks for it several times, a sweep
    hundreds of times for the same disks."""
    return tuple(
        Disk(size, logical, physical, rotational, model, devices[i] if devices else "")
        for count, size, logical, physical, rotational, model, devices in sets
        for i in range(count)
    )
