"""mdadm's own placement rules for v1.x superblocks, in 512-byte sectors.

These are the figures `mdadm --create` computes before it talks to the kernel: where
the data starts, how much room is kept for the write-intent bitmap, what each member
can offer, and the bitmap chunk it picks. Written from the rules in mdadm's super1.c
and Create.c (versions noted where they changed); the kernel-side arithmetic (array
size, topology) lives in planners.md.geometry.
"""

from __future__ import annotations

from planners.errors import PlanError
from planners.versions import Version

SECTOR = 512
ONE_MIB_SECTORS = 2048
SUPERBLOCK_AREA_SECTORS = 24  # 12 KiB: superblock and bad-block log ahead of the bitmap
V10_TAIL_SECTORS = 16 + 8  # 8 KiB kept after the v1.0 superblock, plus the bad-block log
HEADROOM_MAX_SECTORS = 128 * 1024 * 2  # 128 MiB kept for reshapes, aiming at ~0.1% of the device
BITMAP_SUPER_BYTES = 256
BITMAP_MIN_CHUNK = 4096  # sub-page bitmap chunks are not supported by the kernel
BITMAP_DEFAULT_CHUNK = 64 * 1024 * 1024
MAX_DEVS_V1 = (4096 - 256) // 2  # device roles that fit in a 4 KiB v1.x superblock


def bitmap_space_sectors(dev_sectors: int) -> int:
    """Room mdadm keeps for an internal bitmap on a device (or component) of this size.

    Reserved whether or not a bitmap is asked for, so one can be added later.
    """
    if dev_sectors < 64 * 2:
        return 0
    if dev_sectors - 64 * 2 >= 200 * 1024 * 1024 * 2:
        return 128 * 2
    if dev_sectors - 4 * 2 > 8 * 1024 * 1024 * 2:
        return 64 * 2
    return 4 * 2


def data_offset_sectors(first_dev_sectors: int, chunk_kib: int, metadata: str, mdadm: Version) -> int:
    """Data offset mdadm picks from the first member and then uses for every member.

    chunk_kib is 0 where the level has no chunk (RAID1): the headroom then shrinks with
    the device alone instead of stopping at two chunks.
    """
    if metadata == "1.0":
        return 0
    headroom = HEADROOM_MAX_SECTORS
    while (headroom << 10) > first_dev_sectors and (chunk_kib == 0 or headroom // 2 >= chunk_kib * 2 * 2):
        headroom >>= 1
    offset = SUPERBLOCK_AREA_SECTORS + bitmap_space_sectors(first_dev_sectors) + headroom
    if mdadm >= (4, 1):
        return -(-offset // ONE_MIB_SECTORS) * ONE_MIB_SECTORS
    # 3.3 .. 4.0 rounded down instead, and only above 1 MiB.
    if offset > ONE_MIB_SECTORS:
        return offset // ONE_MIB_SECTORS * ONE_MIB_SECTORS
    return offset


def usable_sectors(dev_sectors: int, data_offset: int, metadata: str, *, raid0: bool) -> int:
    """Sectors of one member the array may put data in (before chunk rounding).

    For v1.0 mdadm's size check keeps bitmap room at the end; RAID0 has no array size in
    its superblock, so its data area runs up to the bad-block log and the kernel uses it.
    """
    if metadata == "1.0":
        if raid0:
            return max(0, ((dev_sectors - 16) & ~7) - 8) if dev_sectors >= 16 else 0
        return max(0, (dev_sectors & ~7) - V10_TAIL_SECTORS - bitmap_space_sectors(dev_sectors))
    return max(0, dev_sectors - data_offset)


def superblock_offset_sectors(dev_sectors: int, metadata: str) -> int:
    """Where the superblock sits: 4 KiB-aligned, 8-12 KiB before the end for v1.0."""
    if metadata == "1.0":
        return (dev_sectors - 16) & ~7
    return 0 if metadata == "1.1" else 8


def choose_bitmap_chunk(component_sectors: int, bitmap_sectors: int, requested: int | None) -> int:
    """The bitmap chunk mdadm settles on, or PlanError if the requested one cannot fit.

    The bitmap must fit in the room kept for it (sized from the component); with no
    chunk requested mdadm takes at least 64 MiB. bitmap_sectors is the span the bitmap
    covers: the component, or the array's capacity for RAID10.
    """
    room = bitmap_space_sectors(component_sectors)
    if requested is None:
        room = min(room, 128 * 2)
    if room <= 1:
        raise PlanError(
            "the component is too small (under 64 KiB) to hold an internal bitmap; use --bitmap=none", "bitmap"
        )
    max_bits = (room * SECTOR - BITMAP_SUPER_BYTES) * 8
    min_chunk = BITMAP_MIN_CHUNK
    bits = bitmap_sectors * SECTOR // min_chunk + 1
    while bits > max_bits:
        min_chunk *= 2
        bits = (bits + 1) // 2
    if requested is None:
        return max(min_chunk, BITMAP_DEFAULT_CHUNK)
    if requested < min_chunk:
        raise PlanError(
            f"a bitmap chunk of {requested} bytes needs too many bits for the room mdadm keeps; "
            f"use at least {min_chunk} bytes",
            "bitmap_chunk",
        )
    return requested
