"""XFS models shared by the geometry and free-space arithmetic, and the mkfs options."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from planners.versions import MODELLED, Version

MODELLED_XFSPROGS: tuple[Version, Version] = MODELLED["xfsprogs"]
"""xfsprogs versions whose mkfs.xfs rules this module follows: [first, last)."""

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
TIB = 1024 * GIB

AG_MIN_BYTES = 16 * MIB
AG_MAX_BYTES = TIB  # an AG must stay below this, hence the "- 1" in ag_max_blocks
FS_MIN_BYTES = 300 * MIB
LOG_REALISTIC_MIN_BYTES = 64 * MIB
LOG_MAX_BLOCKS = 1024 * 1024
LOG_MAX_BYTES = 2 * GIB - 10 * MIB
LOG_SUNIT_MAX_BYTES = 256 * KIB
LOG_SUNIT_FALLBACK_BYTES = 32 * KIB
INODE_SIZE = 512  # v5 (CRC) filesystems default to 512-byte inodes
INODES_PER_CHUNK = 64


def ag_header_blocks(block_size: int, sector_size: int) -> int:
    """Blocks the four sector-sized AG headers (SB, AGF, AGI, AGFL) occupy at an AG's start."""
    return 3 * sector_size // block_size + 1


class XfsGeometry(BaseModel):
    """What `mkfs.xfs -N` prints for one filesystem, in its own units."""

    model_config = ConfigDict(frozen=True)

    block_size: int = Field(description="Filesystem block size in bytes (mkfs `bsize`).")
    sector_size: int = Field(description="Metadata sector size in bytes (mkfs data `sectsz`).")
    inode_size: int = Field(description="Inode size in bytes (mkfs `isize`).")
    agcount: int = Field(description="Number of allocation groups.")
    agsize_blocks: int = Field(description="Size of every AG but possibly the last, in blocks.")
    data_blocks: int = Field(description="Data section size in blocks (mkfs data `blocks`).")
    imaxpct: int = Field(description="Percent of the data section inodes may use.")
    sunit_blocks: int = Field(description="Data stripe unit in blocks (0 = none).")
    swidth_blocks: int = Field(description="Data stripe width in blocks (0 = none).")
    log_blocks: int = Field(description="Internal log size in blocks.")
    log_sunit_bytes: int = Field(description="Log stripe unit in bytes (0 = none).")
    log_sector_size: int = Field(description="Log sector size in bytes.")
    crc: bool = Field(True, description="v5 metadata checksums.")
    finobt: bool = Field(True, description="Free inode btree (has a per-AG space reservation).")
    sparse_inodes: bool = Field(True, description="Sparse inode chunks.")
    rmapbt: bool = Field(False, description="Reverse-mapping btree.")
    reflink: bool = Field(True, description="Reflink (refcount btree with a per-AG reservation).")
    bigtime: bool = Field(True, description="Timestamps beyond 2038.")
    inobtcount: bool = Field(True, description="Inode btree block counters in the AGI.")
    nrext64: bool = Field(False, description="64-bit extent counters.")
    log_device: str | None = Field(
        None, description="Path of the external log (mkfs.xfs -l logdev=); None: the log is internal."
    )

    @property
    def data_bytes(self) -> int:
        """Bytes the data section really covers (the log included)."""
        return self.data_blocks * self.block_size

    @property
    def log_bytes(self) -> int:
        return self.log_blocks * self.block_size

    @property
    def agsize_bytes(self) -> int:
        return self.agsize_blocks * self.block_size

    @property
    def last_ag_blocks(self) -> int:
        return self.data_blocks - (self.agcount - 1) * self.agsize_blocks

    @property
    def log_agno(self) -> int:
        """AG holding the internal log: mkfs puts it in the middle AG."""
        return self.agcount // 2

    @property
    def su_bytes(self) -> int:
        return self.sunit_blocks * self.block_size

    @property
    def sw(self) -> int:
        return self.swidth_blocks // self.sunit_blocks if self.sunit_blocks else 0

    @property
    def btree_roots(self) -> int:
        """Btree root blocks mkfs puts after each AG's headers (free space by block and by
        size, inodes, and the optional free-inode, reverse-map and refcount btrees)."""
        return 3 + int(self.finobt) + int(self.rmapbt) + int(self.reflink)

    @property
    def mkfs_options(self) -> tuple[str, ...]:
        """Options that make mkfs.xfs build this geometry on the planned device."""
        opts = xfs_mkfs_options(
            su_bytes=self.su_bytes, sw=self.sw, block_size=self.block_size, sector_size=self.sector_size
        )
        if not self.log_device:
            return opts
        # one -l for every log suboption: the stripe unit mkfs would pick stays with the log
        rest = [o for i, o in enumerate(opts) if o != "-l" and (i == 0 or opts[i - 1] != "-l")]
        su = [opts[i + 1] for i, o in enumerate(opts) if o == "-l"]
        return (*rest, "-l", ",".join([*su, f"logdev={self.log_device}"]))


class XfsDf(BaseModel):
    """`df -B1` of an empty XFS filesystem right after mkfs and mount, with the breakdown."""

    model_config = ConfigDict(frozen=True)

    size_bytes: int = Field(description="df `1B-blocks`: data section less the internal log, bytes.")
    avail_bytes: int = Field(description="df `Available`, bytes.")
    metadata_bytes: int = Field(description="Bytes mkfs used: AG headers, btree roots, root inode chunk.")
    reserve_pool_bytes: int = Field(description="Kernel reserve pool (min(5%, 8192 blocks)), bytes.")
    ag_reservation_bytes: int = Field(description="Unused per-AG btree reservations, bytes.")
    set_aside_bytes: int = Field(description="Per-AG AGFL set-aside, bytes.")

    @property
    def used_bytes(self) -> int:
        """df `Used` (XFS reports no root-only reserve, so Size = Used + Available)."""
        return self.size_bytes - self.avail_bytes


def xfs_mkfs_options(*, su_bytes: int, sw: int, block_size: int, sector_size: int) -> tuple[str, ...]:
    """mkfs.xfs options that pin every input of the geometry rules.

    Block and sector size are passed even at their defaults because mkfs otherwise takes
    them from the device (a 512e disk would give 4096-byte sectors and a different log
    stripe unit). Without a stripe, `noalign` stops mkfs adopting one the device stack
    reports. A log stripe unit is passed only when mkfs would otherwise pick one other
    than the data stripe unit (above 256 KiB it falls back to 32 KiB, and says so on
    stderr unless told); the value passed is the one it would pick anyway.
    """
    opts = ["-b", f"size={block_size}", "-s", f"size={sector_size}"]
    if su_bytes:
        opts += ["-d", f"su={_size_arg(su_bytes)},sw={sw}"]
        lsu = log_sunit_bytes(su_bytes, block_size, sector_size)
        if sector_size == 512 and lsu and lsu != su_bytes:
            opts += ["-l", f"su={_size_arg(lsu)}"]
    else:
        opts += ["-d", "noalign"]
    return tuple(opts)


def _size_arg(n: int) -> str:
    for suffix, unit in (("g", GIB), ("m", MIB), ("k", KIB)):
        if n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


def log_sunit_bytes(su_bytes: int, block_size: int, sector_size: int) -> int:
    # Log sectors above 512 bytes make mkfs use a one-block log stripe unit, stripe or not.
    if sector_size > 512:
        return block_size
    if su_bytes > LOG_SUNIT_MAX_BYTES:
        return LOG_SUNIT_FALLBACK_BYTES // block_size * block_size
    return su_bytes
