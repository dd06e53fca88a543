"""What a growth request is and what a growth plan says: frozen models, every figure with its unit."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from planners.errors import PlanError
from planners.models import BTRFS_PROFILES, OptionalBytes, check_device
from planners.names import MD_NAME

Frozen = ConfigDict(frozen=True, extra="forbid")
GrowMode = Literal["reshape", "new-array"]


class GrowRequest(BaseModel):
    """How to grow a plan: disks to add (and their size and paths), a level change, which array."""

    model_config = Frozen

    add_disks: int = Field(0, ge=0, le=384, description="Disks to add (count).")
    size: OptionalBytes = Field(
        None, description="Bytes of each added disk; None = the size of the grown array's disks."
    )
    devices: list[str] = Field(
        default_factory=list, description="Paths of the added disks, in order; empty = placeholders."
    )
    to_level: int | None = Field(None, description="New RAID level of the reshaped array (5 -> 6); None = unchanged.")
    group: str | None = Field(None, description="md array to reshape; None = the last one.")
    mode: GrowMode | None = Field(None, description="reshape an array, or add a new-array under LVM; None = choose.")
    data_profile: str | None = Field(None, description="btrfs: data profile after the balance; None = unchanged.")
    metadata_profile: str | None = Field(
        None, description="btrfs: metadata (and system) profile after the balance; None = unchanged."
    )

    @field_validator("data_profile", "metadata_profile")
    @classmethod
    def _profile(cls, v: str | None) -> str | None:
        if v is not None and v not in BTRFS_PROFILES:
            raise PlanError(f"btrfs profile {v!r} is not one of {', '.join(BTRFS_PROFILES)}", "data_profile")
        return v

    @field_validator("group")
    @classmethod
    def _group(cls, v: str | None) -> str | None:
        return v if v is None else MD_NAME.check(v, "group")

    @field_validator("devices")
    @classmethod
    def _paths(cls, v: list[str]) -> list[str]:
        for p in v:
            check_device(p)
        if len(set(v)) != len(v):
            raise PlanError("the same added device is listed twice", "devices")
        return v


class Step(BaseModel):
    """One step of the growth, in order: what it does, why, and the commands it runs."""

    model_config = ConfigDict(frozen=True)

    title: str = Field(description="What the step does.")
    why: str = Field(description="Why it is needed, one sentence.")
    commands: tuple[str, ...] = Field(description="The commands, shell-quoted, as the script runs them.")


class ArrayGrowth(BaseModel):
    """One md array that is reshaped, or created new, by the growth."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="md array name.")
    device: str = Field(description="/dev/md/NAME.")
    new: bool = Field(description="True for an array created by the growth (new-array mode).")
    members_before: int = Field(description="Active members before (0 for a new array), count.")
    members_after: int = Field(description="Active members after, count.")
    level_before: int | None = Field(description="RAID level before (None for a new array).")
    level_after: int = Field(description="RAID level after.")
    layout_after: str | None = Field(description="Layout after, as mdadm spells it.")
    chunk_bytes: int | None = Field(description="md chunk, unchanged by the growth, bytes.")
    added_devices: tuple[str, ...] = Field(description="Device paths of the added disks (placeholders where unknown).")
    added_disks: tuple[tuple[int, int, int], ...] = Field(
        description="Each added disk as the plan has it, in added_devices' order: bytes, logical and physical "
        "sector size in bytes."
    )
    spares: int = Field(0, description="Hot spares among the added disks of a new array (the last ones), count.")
    create_options: tuple[str, ...] = Field(
        (), description="mdadm --create options of a new array (empty for a reshape)."
    )
    stripe_cache_size: int | None = Field(None, description="stripe_cache_size a new parity array gets, entries.")
    component_bytes: int = Field(description="Per-member size of the array, unchanged by a reshape, bytes.")
    array_bytes_before: int = Field(description="md array size before (0 for a new array), bytes.")
    array_bytes_after: int = Field(description="md array size after, bytes.")
    backup_file: bool = Field(description="True when mdadm --grow needs --backup-file.")
    backup_reason: str = Field(description="Why a backup file is or is not needed.")
    offset_change_bytes: int = Field(
        0,
        description="How far mdadm moves the data offset, bytes (0: it copies the critical section instead, or a new array).",
    )
    hours: float = Field(description="Reshape (or, for a new array, initial sync) time with no other I/O, hours.")
    rate_mb_s: float = Field(description="Per-member rate that time assumes, MB/s.")
    rate_limit: str = Field(description="What limits that rate (the smallest of the model's terms).")


class AlignmentChange(BaseModel):
    """An alignment that no longer fits the grown array, what it costs, and what can be done."""

    model_config = ConfigDict(frozen=True)

    layer: Literal["lvm", "filesystem", "tuning"] = Field(description="The layer concerned.")
    figure: str = Field(description="What no longer fits, with its unit.")
    before: str = Field(description="The value that stays, as recorded.")
    ideal: str = Field(description="The value a fresh build of the grown layout would get.")
    cost: str = Field(description="What keeping the old value costs, one sentence.")
    remedy: str = Field(description="What can be done, one sentence; the script does it when it is safe online.")
    commands: tuple[str, ...] = Field(default=(), description="Commands of the remedy.")
    in_script: bool = Field(False, description="True when the grow script runs the remedy itself.")


class Growth(BaseModel):
    """Everything a growth does and every figure before and after, exact to the byte."""

    model_config = ConfigDict(frozen=True)

    plan_name: str = Field(description="The plan's name.")
    mode: GrowMode = Field(description="reshape or new-array.")
    arrays: tuple[ArrayGrowth, ...] = Field(description="Arrays reshaped or created.")
    volume_device: str = Field(description="Block device under the grown filesystem.")
    mount_point: str = Field(description="Mount point of the grown filesystem.")
    fs_type: str = Field(description="xfs, ext4 or ext3.")
    lvm: bool = Field(description="True when LVM sits between md and the filesystem.")
    vg: str | None = Field(description="Volume group (None without LVM).")
    lv: str | None = Field(description="Logical volume (None without LVM).")
    resized_pvs: tuple[str, ...] = Field(description="md devices that pvresize must grow (reshaped arrays under LVM).")
    new_pvs: tuple[str, ...] = Field(description="md devices that become new PVs (new arrays).")
    pvcreate_options: tuple[str, ...] = Field(description="pvcreate options for new PVs.")
    lv_bytes_before: int | None = Field(description="LV size before, bytes (None without LVM).")
    lv_bytes_after: int | None = Field(description="LV size after lvextend, bytes (None without LVM).")
    device_bytes_before: int = Field(description="Size of the device under the filesystem before, bytes.")
    device_bytes_after: int = Field(description="Size of that device after, bytes.")
    fs_bytes_before: int = Field(description="Filesystem size before, bytes.")
    fs_bytes_after: int = Field(description="Filesystem size after growing it, bytes.")
    df_size_bytes_before: int = Field(description="df -B1 size before, bytes.")
    df_size_bytes_after: int = Field(description="df -B1 size right after xfs_growfs / resize2fs, bytes.")
    df_available_bytes_before: int = Field(description="df -B1 available before (empty filesystem), bytes.")
    df_available_bytes_after: int = Field(description="df -B1 available after (empty filesystem), bytes.")
    fs_detail: str = Field(description="How the filesystem grows (AGs or block groups, log/journal, reserve).")
    alignment: tuple[AlignmentChange, ...] = Field(description="Alignments that no longer fit.")
    readahead_sectors_after: int = Field(description="Readahead the grown layout wants, 512-byte sectors.")
    steps: tuple[Step, ...] = Field(description="The ordered steps.")
    notes: tuple[str, ...] = Field(description="Anything else the user must know, one sentence each.")
