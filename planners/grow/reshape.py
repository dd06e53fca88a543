"""md reshape rules: which arrays md can grow, whether mdadm needs a backup file, how long it takes.

From mdadm 4.2's Grow.c and super1.c. A reshape rewrites every stripe in the new layout; the
stripes being rewritten (the critical section) must survive a crash. mdadm avoids copying
them by moving every member's data offset: growing to more data disks needs room *before*
the data (the new layout writes behind the old one), a same-width restripe (RAID5 -> RAID6
with one added disk) room before or after. A widening moves it by `backup blocks / old data
disks` sectors, backup blocks being the least common multiple of the old and new full stripes;
a same-width restripe moves it at least that far, to a rounder offset mdadm picks. The
room before the data is the data offset less the superblock, bad-block log and bitmap room
(v1.1/1.2). Without that room mdadm falls back to copying the critical section: onto the
added disks when the array gets wider, else into a --backup-file, which must then be given.
Passing --backup-file always takes that slower path, so the script passes it only when needed.
"""

from __future__ import annotations

from math import lcm

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PlanError
from planners.md.geometry import MdGeometry
from planners.md.rules import SECTOR, bitmap_space_sectors
from planners.schemes import md_scheme

SUPERBLOCK_SECTORS = {"1.1": 0, "1.2": 8}  # where the v1.x superblock sits, sectors from the start
KERNEL_SB_SECTORS = (32 + 4) * 2  # mdadm counts this much from the superblock, "to match kernel"
BBLOG_SECTORS = 8  # the bad-block log after the bitmap room
BITMAP_GAP_SECTORS = 8  # the bitmap starts this far after the superblock


class BackupNeed(BaseModel):
    """Whether `mdadm --grow` needs --backup-file, and why."""

    model_config = ConfigDict(frozen=True)

    needed: bool = Field(description="True when the script must pass --backup-file.")
    reason: str = Field(description="One sentence: why, in mdadm's terms.")
    offset_change_bytes: int = Field(description="How far mdadm moves the data offset of every member, bytes.")
    room_before_bytes: int = Field(description="Free room before the data on each member, bytes.")
    room_after_bytes: int = Field(description="Free room after the data on each member, bytes.")


def reshape_refusal(level: int, layout: str | None, to_level: int, members: int, new_members: int) -> str | None:
    """Why md cannot do this growth, or None when it can."""
    scheme = md_scheme(level)
    if not scheme.reshapes_into(to_level):
        return (
            f"RAID{level} to RAID{to_level}: podplan plans only RAID5 -> RAID6 (with one more disk), "
            "the level change that adds redundancy without shrinking the array"
        )
    if not scheme.reshape_targets(layout):
        if scheme.mirrors_every_member:
            return "RAID1 with more members is more mirrors, not more capacity; add a new array under LVM instead"
        if scheme.striped_only:
            return (
                "md grows RAID0 only by taking it over as RAID4 and back, which podplan does not plan; "
                "add a new array under LVM instead"
            )
        return (
            f"RAID10 far layout ({layout}) cannot be reshaped: md's raid10 refuses far-mode reshapes "
            "(mdadm: 'Cannot reshape RAID10 in far-mode'); add a new array under LVM instead"
        )
    if new_members < members:
        return f"fewer members ({members} -> {new_members}) shrinks the array; podplan plans growth only"
    return None


def room_before_sectors(md: MdGeometry) -> int:
    """Free sectors before the data on each member (super1.c getinfo_super1's space_before)."""
    if md.metadata == "1.0":
        return 0  # data at sector 0: nothing before it
    sb = SUPERBLOCK_SECTORS[md.metadata]
    bm_space = bitmap_space_sectors(md.component_bytes // SECTOR)
    earliest = sb + max(KERNEL_SB_SECTORS, BITMAP_GAP_SECTORS + bm_space + BBLOG_SECTORS)
    return max(0, md.data_offset_sectors - earliest)


def room_after_sectors(md: MdGeometry) -> int:
    """Free sectors after the data as mdadm counts them (device - data size - data offset).

    On v1.1/1.2 the kernel records a member's data size as everything after the data offset,
    so mdadm sees no room after the data, however much of the tail the component leaves unused.
    """
    return 0


def choose_offset(lo: int, hi: int, least: int, most: int) -> int:
    """mdadm's pick of a new data offset in [least, most]: near the middle of [lo, hi], preferring
    large power-of-two alignment, stopping at 1 MiB."""
    choice = (lo + hi) // 2
    bit = 1
    while bit < 2 * 1024:
        if choice & bit:
            bigger, smaller = choice + bit, choice - bit
            if bigger > most and smaller < least:
                break
            if bigger > most:
                choice = smaller
            elif smaller < least or hi - bigger > smaller - lo:
                choice = bigger
            else:
                choice = smaller
        bit <<= 1
    return choice


def backup_need(md: MdGeometry, *, data_before: int, data_after: int, far: int = 1) -> BackupNeed:
    """mdadm 4.2's choice between moving the data offset and copying the critical section."""
    chunk = (md.chunk_bytes or 0) // SECTOR
    before, after = room_before_sectors(md), room_after_sectors(md)
    if md_scheme(md.level).reshape_by_offset:
        need = chunk * far
        if before < need:
            raise PlanError(
                f"{md.raid_devices}-member RAID10: mdadm moves the data offset by {need * SECTOR} bytes to "
                f"reshape RAID10 and finds only {before * SECTOR} bytes before the data; RAID10 has no "
                "backup-file fallback",
                "groups",
            )
        return BackupNeed(
            needed=False,
            offset_change_bytes=need * SECTOR,
            room_before_bytes=before * SECTOR,
            room_after_bytes=after * SECTOR,
            reason=f"RAID10 reshapes by moving the data offset {need * SECTOR} bytes down; "
            f"{before * SECTOR} bytes are free before the data",
        )
    blocks = lcm(chunk * data_before, chunk * data_after)
    need = blocks // data_before
    room = before if data_after > data_before else max(before, after)
    where = "before" if data_after > data_before else "before or after"
    move = need
    if data_after == data_before and room >= need:
        # A same-width restripe may move either way; mdadm takes the roomier side and a rounder offset.
        off = md.data_offset_sectors
        if before > after:
            move = off - choose_offset(off - before, off, off - before, off - need)
        else:
            move = choose_offset(off, off + after, off + need, off + after) - off
    common = dict(offset_change_bytes=move * SECTOR, room_before_bytes=before * SECTOR, room_after_bytes=after * SECTOR)
    if md.metadata != "1.0" and room >= need:
        return BackupNeed(
            needed=False,
            **common,
            reason=f"metadata {md.metadata} with {room * SECTOR} bytes free {where} the data: mdadm moves "
            f"every member's data offset by {move * SECTOR} bytes (at least the least common multiple of "
            "the old and new full stripes over the old data disks), so no backup file",
        )
    common["offset_change_bytes"] = 0  # the fallback leaves the data offset where it is
    short = (
        "metadata 1.0 keeps no room before the data"
        if md.metadata == "1.0"
        else f"only {room * SECTOR} bytes are free {where} the data, less than the {need * SECTOR} bytes "
        "mdadm must move the data offset by"
    )
    if data_after > data_before:
        return BackupNeed(
            needed=False,
            **common,
            reason=f"{short}; mdadm copies the {blocks * SECTOR}-byte critical section onto the added disks "
            "instead, so no backup file (but a crash early in the reshape needs them to restart)",
        )
    return BackupNeed(
        needed=True,
        **common,
        reason=f"{short}; the reshape keeps the same data disks, so mdadm must copy every stripe it rewrites "
        "to a backup file first (slow: each stripe is written twice), on a disk outside the array",
    )
