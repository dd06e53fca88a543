"""A fresh btrfs as the plan shows it: mkfs.btrfs's chunks and statvfs's figures (planners.fs.btrfs), and what a
fill stores until ENOSPC (planners.fs.btrfs_fill)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from planners.fs.btrfs import PROFILES, btrfs_layout
from planners.fs.btrfs_fill import fill


class BtrfsGeometry(BaseModel):
    """A fresh btrfs as mkfs.btrfs makes it and statvfs reports it."""

    model_config = ConfigDict(frozen=True)

    device_bytes: list[int] = Field(description="Each device's size as btrfs counts it (whole sectors), bytes.")
    used_bytes: list[int] = Field(description="Bytes of chunks mkfs leaves on each device, bytes.")
    data_profile: str = Field(description="Data block-group profile (mkfs.btrfs -d).")
    metadata_profile: str = Field(description="Metadata and system profile (mkfs.btrfs -m).")
    nodesize: int = Field(description="Tree node size (mkfs.btrfs -n), bytes.")
    sectorsize: int = Field(description="Sector size (mkfs.btrfs -s), bytes.")
    data_chunk_bytes: int = Field(description="The first data chunk's logical size, bytes (all of it free).")
    df_size_bytes: int = Field(description="statvfs size: the devices' bytes over the data copies, bytes.")
    df_available_bytes: int = Field(description="statvfs available right after mount, bytes.")
    free_estimated_bytes: int = Field(
        description="`btrfs filesystem usage -b` Free (estimated) right after mount (btrfs-progs 6.2), bytes."
    )
    fits_bytes: int = Field(
        description="What files can hold until ENOSPC: the data chunks' bytes once the kernel's allocator can make no "
        "more (a fallocate fill to ENOSPC stores this but its last partial MiB), bytes."
    )
    stranded_bytes: int = Field(
        description="Device bytes no chunk holds after that fill (`btrfs filesystem show` size - used, each device's "
        "first MiB included), bytes."
    )
    fill_copies_bytes: int = Field(description="Device bytes of the data chunks' extra copies after that fill, bytes.")
    fill_parity_bytes: int = Field(
        description="Device bytes of the data chunks' parity stripes after that fill, bytes."
    )
    data_tolerates: int = Field(description="Device failures the data survives, count.")
    metadata_tolerates: int = Field(description="Device failures the metadata survives, count.")

    @property
    def mkfs_options(self) -> list[str]:
        """mkfs.btrfs options that make exactly this filesystem (the devices go after them)."""
        return [
            "-d",
            self.data_profile,
            "-m",
            self.metadata_profile,
            "-n",
            str(self.nodesize),
            "-s",
            str(self.sectorsize),
        ]


DEFAULT_NODESIZE = 16 * 1024


def btrfs_geometry(
    sizes: Sequence[int],
    *,
    data_profile: str | None = None,
    metadata_profile: str | None = None,
    nodesize: int | None = None,
) -> BtrfsGeometry:
    lay = btrfs_layout(sizes, data_profile=data_profile, metadata_profile=metadata_profile)
    full = fill(lay)
    return BtrfsGeometry(
        device_bytes=list(lay.device_bytes),
        used_bytes=list(lay.used),
        data_profile=lay.data_profile,
        metadata_profile=lay.metadata_profile,
        nodesize=nodesize or DEFAULT_NODESIZE,
        sectorsize=lay.sector,
        data_chunk_bytes=lay.data_chunk_bytes,
        df_size_bytes=lay.df_size_bytes,
        df_available_bytes=lay.df_available_bytes,
        free_estimated_bytes=lay.free_estimated_bytes,
        fits_bytes=full.fits_bytes,
        stranded_bytes=sum(full.unallocated),
        fill_copies_bytes=full.copies_bytes,
        fill_parity_bytes=full.parity_bytes,
        data_tolerates=PROFILES[lay.data_profile].tolerated,
        metadata_tolerates=PROFILES[lay.metadata_profile].tolerated,
    )
