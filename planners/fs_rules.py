"""The filesystem's own rules that the plan model checks: btrfs's settings and an outside journal."""

from __future__ import annotations

from typing import Protocol

from planners.errors import PlanError
from planners.names import check_path


class FilesystemFields(Protocol):
    """The fields of planners.models.Filesystem these rules read (that module imports this one)."""

    @property
    def type(self) -> str: ...
    @property
    def block_size(self) -> int: ...
    @property
    def journal(self) -> bool: ...
    @property
    def journal_device(self) -> str | None: ...
    @property
    def sectorsize(self) -> int | None: ...
    @property
    def nodesize(self) -> int | None: ...
    @property
    def stripe_unit(self) -> int | None: ...


def check_journal_device(fs: FilesystemFields) -> None:
    assert fs.journal_device is not None
    check_path(fs.journal_device, "journal device", "filesystem.journal_device", device=True)
    if fs.type not in ("ext4", "ext3"):
        raise PlanError(
            f"a journal device is an ext4/ext3 setting, and the filesystem is {fs.type}", "filesystem.journal_device"
        )
    if not fs.journal:
        raise PlanError("journal = false and a journal device contradict each other", "filesystem.journal_device")


BTRFS_PROFILES = ("single", "dup", "raid0", "raid1", "raid1c3", "raid1c4", "raid10", "raid5", "raid6")


def check_btrfs(fs: FilesystemFields) -> None:
    for name in ("data_profile", "metadata_profile"):
        value = getattr(fs, name)
        if value is not None and value not in BTRFS_PROFILES:
            raise PlanError(
                f"btrfs {name.replace('_', ' ')} {value!r} is not one of {', '.join(BTRFS_PROFILES)}",
                f"filesystem.{name}",
            )
    if fs.block_size != 4096:
        raise PlanError("btrfs is planned with its 4096-byte sector (block_size 4096)", "filesystem.block_size")
    if fs.sectorsize is not None and fs.sectorsize != 4096:
        # btrfs reads a block through one page: a sector larger than the 4 KiB page of x86-64 (and of
        # most arm64 kernels) is refused at mount, and mkfs.btrfs makes no sector smaller than 4 KiB.
        raise PlanError(
            f"btrfs sector size {fs.sectorsize} cannot be mounted by a kernel of 4 KiB pages: give 4096",
            "filesystem.sectorsize",
        )
    node = fs.nodesize
    if node is not None and (node & (node - 1) or not 4096 <= node <= 65536):
        raise PlanError(f"btrfs node size {node} must be a power of two from 4 KiB to 64 KiB", "filesystem.nodesize")
    if fs.stripe_unit is not None:
        raise PlanError("btrfs takes no stripe unit", "filesystem.stripe_unit")
