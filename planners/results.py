"""What computing a plan yields. Frozen, JSON-ready, keys that explain themselves."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from planners.cost import Cost
from planners.fs.btrfs_geometry import BtrfsGeometry
from planners.fs.ext4.geometry import Ext4Geometry
from planners.fs.xfs.geometry import XfsGeometry
from planners.hardware.prices import dump_without_unset
from planners.lvm.geometry import LvmGeometry
from planners.md.geometry import MdGeometry
from planners.models import Plan
from planners.versions import ToolVersions

Frozen = ConfigDict(frozen=True)


class Finding(BaseModel):
    """One sentence about the plan: an error makes it unbuildable, a warning costs speed or safety."""

    model_config = Frozen

    severity: Literal["error", "warning", "info"] = Field(description="error, warning or info.")
    layer: Literal["disks", "md", "lvm", "filesystem", "tuning", "plan"] = Field(description="The layer concerned.")
    message: str = Field(description="One sentence saying what and why.")
    field: str = Field("", description="Dotted plan field to highlight, if one is to blame.")


class CapacityStep(BaseModel):
    """One step of the waterfall from raw bytes to what `df` shows as available."""

    model_config = Frozen

    key: str = Field(description="Stable identifier of the step.")
    label: str = Field(description="Human name of the step.")
    removed_bytes: int = Field(description="Bytes this step takes away (0 for the first step), in bytes.")
    remaining_bytes: int = Field(description="Bytes left after this step, in bytes.")
    note: str = Field("", description="How the figure was derived.")


class GroupResult(BaseModel):
    """One md array with the disks it takes."""

    model_config = Frozen

    name: str = Field(description="md array name.")
    device: str = Field(description="Device path, /dev/md/NAME.")
    member_devices: list[str] = Field(description="Member device paths (empty strings where not given).")
    spare_devices: list[str] = Field(description="Hot spare device paths (empty strings where not given).")
    member_raw_bytes: int = Field(description="Sum of member disk sizes, in bytes.")
    spare_raw_bytes: int = Field(description="Sum of spare disk sizes, in bytes.")
    md: MdGeometry = Field(description="md geometry as mdadm and the kernel compute it.")


class AlignmentChain(BaseModel):
    """Every alignment parameter from md up to the filesystem, for one volume."""

    model_config = Frozen

    under: Literal["md", "lun", "disk"] = Field(
        "md",
        description="What is under LVM or the filesystem: md arrays, or without md hardware RAID LUNs or plain "
        "disks (the md_io_* figures are then that device's).",
    )
    md_chunk_bytes: int | None = Field(description="md chunk in bytes (None for RAID1, and without md).")
    lun_strip_bytes: int | None = Field(
        None, description="The LUN's strip in bytes, when LUNs are under LVM or the filesystem without md."
    )
    md_io_min_bytes: int = Field(description="md minimum I/O size (queue/minimum_io_size), in bytes.")
    md_io_opt_bytes: int = Field(description="md optimal I/O size (queue/optimal_io_size), in bytes; the full stripe.")
    pv_data_alignment_bytes: int | None = Field(description="pvcreate --dataalignment, in bytes (None without LVM).")
    pe_start_bytes: int | None = Field(description="Where the first extent starts on each PV, in bytes.")
    extent_bytes: int | None = Field(description="vgcreate -s, in bytes.")
    lv_stripes: int | None = Field(description="lvcreate -i (1 for linear).")
    lv_stripe_bytes: int | None = Field(description="lvcreate -I, in bytes (None for linear).")
    top_io_min_bytes: int = Field(description="minimum_io_size of the device under the filesystem, in bytes.")
    top_io_opt_bytes: int = Field(description="optimal_io_size of the device under the filesystem, in bytes.")
    fs_stripe_unit_bytes: int = Field(description="Filesystem stripe unit in bytes (0 = none).")
    fs_stripe_width_units: int = Field(description="Filesystem stripe width in stripe units (0 = none).")
    ext4_stride_blocks: int | None = Field(description="ext4 -E stride, in filesystem blocks.")
    ext4_stripe_width_blocks: int | None = Field(description="ext4 -E stripe_width, in filesystem blocks.")
    xfs_su_bytes: int | None = Field(description="mkfs.xfs -d su, in bytes.")
    xfs_sw: int | None = Field(description="mkfs.xfs -d sw, in stripe units.")
    readahead_bytes: int = Field(description="Readahead to set on the top device, in bytes.")
    readahead_sectors: int = Field(description="The same in 512-byte sectors, as blockdev --setra takes it.")
    kernel_readahead_bytes: int = Field(
        description="Readahead the kernel picks by itself for the top device, in bytes."
    )
    stripe_cache_size: int | None = Field(description="md stripe_cache_size to set, in entries (RAID4/5/6 only).")
    stripe_cache_bytes: int | None = Field(description="Memory that stripe cache takes per array, in bytes.")


class VolumeResult(BaseModel):
    """One filesystem: on the LV, or on one md array when LVM is off."""

    model_config = Frozen

    device: str = Field(description="The block device the filesystem goes on.")
    mount_point: str = Field(description="Mount point.")
    label: str = Field("", description="Filesystem label (mkfs -L; '' for none): each volume its own.")
    groups: list[str] = Field(description="md arrays under this volume.")
    disks: list[str] = Field(
        default_factory=list,
        description="Without md: the disks under this volume, as device paths ('' where the plan names none).",
    )
    block_device_bytes: int = Field(description="Size of the device under the filesystem, in bytes.")
    lvm: LvmGeometry | None = Field(description="LVM geometry, None without LVM.")
    xfs: XfsGeometry | None = Field(description="XFS geometry, if XFS.")
    ext4: Ext4Geometry | None = Field(description="ext3/ext4 geometry, if ext3/ext4.")
    btrfs: BtrfsGeometry | None = Field(None, description="btrfs chunks and statvfs figures, if btrfs.")
    fs_bytes: int = Field(description="Filesystem size as mkfs creates it, in bytes.")
    df_size_bytes: int = Field(description="What `df -B1` shows as 1B-blocks right after mount, in bytes.")
    df_available_bytes: int = Field(description="What `df -B1` shows as Available right after mount, in bytes.")
    alignment: AlignmentChain = Field(description="Alignment from md to the filesystem.")


class PlanResult(BaseModel):
    """Everything podplan derives from a plan."""

    model_config = Frozen

    plan_name: str = Field(description="The plan's name.")
    tools: ToolVersions = Field(description="Tool versions the figures assume.")
    disk_count: int = Field(description="Disks in the plan.")
    raw_bytes: int = Field(description="Sum of every disk's size, in bytes.")
    spare_bytes: int = Field(description="Bytes on hot spares, in bytes.")
    unassigned_bytes: int = Field(description="Bytes on disks no group uses, in bytes.")
    array_bytes: int = Field(description="Sum of md array sizes, in bytes.")
    df_size_bytes: int = Field(description="Sum of df sizes over the volumes, in bytes.")
    usable_bytes: int = Field(
        description="What users can write, summed over the volumes: df's available, but for btrfs what a fill stores "
        "until ENOSPC (fits_bytes; df's available there is the kernel's estimate), in bytes."
    )
    efficiency: float = Field(description="usable_bytes / raw_bytes.")
    groups: list[GroupResult] = Field(description="md arrays.")
    volumes: list[VolumeResult] = Field(description="Filesystems.")
    capacity: list[CapacityStep] = Field(description="The waterfall from raw to usable_bytes.")
    findings: list[Finding] = Field(description="Misalignments and other remarks, one sentence each.")


class PlanReport(BaseModel):
    """`podplan plan --json`: the plan as understood, and every figure derived from it."""

    # The schema key is spelt "schema" in every dump (a field cannot be: BaseModel has a `schema` method).
    model_config = ConfigDict(frozen=True, serialize_by_alias=True)

    schema_: Literal["podplan/plan/1"] = Field(
        "podplan/plan/1", alias="schema", description="The schema this document follows and its version."
    )
    podplan_version: str = Field(description="Version of podplan that computed the figures.")
    plan: Plan = Field(description="The plan, with every default filled in.")
    result: PlanResult = Field(description="The figures.")
    cost: Cost | None = Field(None, description="Price, power and replacements; left out when the plan gives none.")

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> object:
        return dump_without_unset(self, handler, ("cost",))

    @classmethod
    def build(cls, plan: Plan, result: PlanResult, cost: Cost | None = None) -> PlanReport:
        from planners import __version__

        return cls(podplan_version=__version__, plan=plan, result=result, cost=cost)
