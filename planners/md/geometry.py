"""md (mdadm) geometry: data offset, component and array size, topology, create options.

The figures are the ones mdadm prints and the kernel then uses: the component size is
what `mdadm --create -v` reports as "size set to NK", the array size is what the md
personality exports (`blockdev --getsize64`), and io_min/io_opt are the queue limits
the personality sets. mdadm's placement rules are in planners.md.rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from math import gcd
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from planners.errors import PlanError
from planners.md.rules import (
    MAX_DEVS_V1,
    SECTOR,
    bitmap_space_sectors,
    choose_bitmap_chunk,
    data_offset_sectors,
    superblock_offset_sectors,
    usable_sectors,
)
from planners.schemes import md_scheme
from planners.units import KiB, is_power_of_two
from planners.versions import MODELLED, Version, format_version

MdLevel = Literal[0, 1, 4, 5, 6, 10]
DEFAULT_CHUNK = 512 * KiB
RAID1_ROUNDING_KIB = 64  # mdadm rounds RAID1 components to 64 KiB in case of a later reshape
MIN_MDADM: Version = MODELLED["mdadm"][0]
CHUNKLESS_RAID1_SINCE: Version = (4, 2)
RAID0_LAYOUT_SINCE: Version = (4, 2)  # mdadm records the multi-zone RAID0 layout itself

PARITY_LAYOUTS = {
    "left-asymmetric": "left-asymmetric",
    "right-asymmetric": "right-asymmetric",
    "left-symmetric": "left-symmetric",
    "right-symmetric": "right-symmetric",
    "la": "left-asymmetric",
    "ra": "right-asymmetric",
    "ls": "left-symmetric",
    "rs": "right-symmetric",
    "parity-first": "parity-first",
    "parity-last": "parity-last",
}
_RAID10_LAYOUT = re.compile(r"([nfo])([0-9]{1,3})")


class MdGeometry(BaseModel):
    """One md array as mdadm lays it out and the kernel sizes it."""

    model_config = ConfigDict(frozen=True)

    level: int = Field(description="RAID level: 0, 1, 4, 5, 6 or 10.")
    layout: str | None = Field(
        description="Layout name as mdadm spells it (left-symmetric, n2, ...); for RAID0 'original' when the "
        "members make several zones, else None; None for RAID1/4."
    )
    raid_devices: int = Field(description="Active members (count).")
    near_copies: int = Field(description="RAID10 near copies (1 otherwise); count.")
    far_copies: int = Field(description="RAID10 far or offset copies (1 otherwise); count.")
    chunk_bytes: int | None = Field(description="Chunk in bytes; None for RAID1.")
    metadata: str = Field(description="Superblock format: 1.0, 1.1 or 1.2.")
    bitmap: Literal["internal", "none"] = Field(description="Write-intent bitmap (always none for RAID0).")
    bitmap_chunk_bytes: int | None = Field(
        description="Bitmap chunk in bytes: the requested one, or the one mdadm picks; None without a bitmap."
    )
    mdadm: Version = Field(description="mdadm version the figures follow.")
    member_bytes: tuple[int, ...] = Field(description="Size of each member device, in bytes, in order.")
    data_offset_sectors: int = Field(description="Where data starts on every member, in 512-byte sectors.")
    superblock_offset_sectors: tuple[int, ...] = Field(
        description="Superblock position on each member, in 512-byte sectors (v1.0: near the end)."
    )
    bitmap_space_sectors: int = Field(
        description="Room mdadm keeps for a bitmap (reserved even without one), in 512-byte sectors, "
        "computed from the first member."
    )
    member_reserved_bytes: tuple[int, ...] = Field(
        description="Bytes of each member kept by md itself: superblock, bad-block log, bitmap room, "
        "reshape headroom (head for v1.1/1.2, tail for v1.0)."
    )
    member_used_bytes: tuple[int, ...] = Field(description="Bytes of each member holding array data.")
    component_bytes: int = Field(
        description="Per-member size of the array in bytes, as `mdadm --create -v` prints it ('size set to NK'); "
        "for RAID0 the smallest member's share."
    )
    kernel_component_bytes: int = Field(
        description="Per-member size the kernel keeps, in bytes (md/component_size, mdadm --detail 'Used Dev Size'); "
        "differs from component_bytes for RAID10 far layouts with an odd number of chunks per member, and is 0 "
        "for RAID0, whose members the kernel does not size one by one."
    )
    array_bytes: int = Field(description="Capacity of the md device in bytes (blockdev --getsize64).")
    data_disks_num: int = Field(description="Numerator of the data-disk count (count).")
    data_disks_den: int = Field(description="Denominator of the data-disk count (2 for RAID10 n2 on 3 members).")
    io_min_bytes: int = Field(description="Kernel minimum_io_size in bytes (the chunk); 0 = md sets none (RAID1).")
    io_opt_bytes: int = Field(description="Kernel optimal_io_size in bytes (full stripe); 0 = md sets none (RAID1).")
    create_options: tuple[str, ...] = Field(description="Options for `mdadm --create` before the device names.")

    @computed_field(description="Where data starts on every member, in bytes.")  # type: ignore[prop-decorator]
    @property
    def data_offset_bytes(self) -> int:
        return self.data_offset_sectors * SECTOR

    @property
    def component_kib(self) -> int:
        return self.component_bytes // KiB

    @property
    def data_disks(self) -> Fraction:
        return Fraction(self.data_disks_num, self.data_disks_den)

    @computed_field(  # type: ignore[prop-decorator]
        description="Bytes of each member that hold nothing: chunk rounding, and a bigger member's excess."
    )
    @property
    def member_unused_bytes(self) -> tuple[int, ...]:
        return tuple(
            m - r - u
            for m, r, u in zip(self.member_bytes, self.member_reserved_bytes, self.member_used_bytes, strict=True)
        )

    @property
    def copies(self) -> int:
        return self.near_copies * self.far_copies


def md_geometry(
    member_bytes: Sequence[int],
    *,
    level: MdLevel,
    layout: str | None = None,
    chunk_bytes: int | None = None,
    metadata: Literal["1.0", "1.1", "1.2"] = "1.2",
    bitmap: Literal["internal", "none"] = "internal",
    bitmap_chunk_bytes: int | None = None,
    mdadm: Version = (4, 2),
) -> MdGeometry:
    """Geometry of `mdadm --create --level=LEVEL` over these members, or PlanError.

    chunk_bytes None means mdadm's default: 512 KiB, and none for RAID1. For RAID0 the
    bitmap is not applicable: mdadm refuses any --bitmap there, so none is passed.
    """
    # A sweep asks for the same array shape many times over (every group of a layout, each LVM
    # mode): the members are checked first, so the cache only ever sees whole-int sizes.
    members = _check_members(member_bytes, level)
    return _md_geometry(members, level, layout, chunk_bytes, metadata, bitmap, bitmap_chunk_bytes, tuple(mdadm))


@lru_cache(maxsize=1024, typed=True)
def _md_geometry(
    members: tuple[int, ...],
    level: MdLevel,
    layout: str | None,
    chunk_bytes: int | None,
    metadata: Literal["1.0", "1.1", "1.2"],
    bitmap: Literal["internal", "none"],
    bitmap_chunk_bytes: int | None,
    mdadm: Version,
) -> MdGeometry:
    _check_superblock(metadata, mdadm)
    n = len(members)
    layout_name, near, far = _layout(level, layout, n)
    chunk = _chunk(level, chunk_bytes, tuple(mdadm))
    bitmap = _check_bitmap(level, bitmap, bitmap_chunk_bytes)
    chunk_kib = (chunk or 0) // KiB
    dev = [m // SECTOR for m in members]
    offset = data_offset_sectors(dev[0], chunk_kib, metadata, tuple(mdadm))
    usable = [usable_sectors(d, offset, metadata, raid0=level == 0) for d in dev]
    free_kib = _free_kib(members, offset, metadata, level, chunk_kib)
    component_kib, array_sectors, used = _sizes(level, members, usable, free_kib, chunk_kib, near, far)
    if level == 0 and len(set(used)) > 1:
        if tuple(mdadm) < RAID0_LAYOUT_SINCE:
            raise PlanError(
                "RAID0 over members of different sizes needs mdadm 4.2 or newer: older mdadm records no "
                "layout and kernels since 5.4 refuse to start such an array",
                "mdadm",
            )
        layout_name = "original"

    bm_chunk = None
    if bitmap == "internal":
        span = component_kib * n // (near * far) * 2 if level == 10 else component_kib * 2
        bm_chunk = choose_bitmap_chunk(component_kib * 2, span, bitmap_chunk_bytes)

    num, den = _data_disks(level, n, near * far)
    io_min, io_opt = _topology(level, n, chunk or 0, near)
    reserved = [(d - u) * SECTOR for d, u in zip(dev, usable, strict=True)]
    options = _create_options(level, n, layout_name, chunk, metadata, bitmap, bitmap_chunk_bytes)
    return MdGeometry(
        level=level,
        layout=layout_name,
        raid_devices=n,
        near_copies=near,
        far_copies=far,
        chunk_bytes=chunk,
        metadata=metadata,
        bitmap=bitmap,
        bitmap_chunk_bytes=bm_chunk,
        mdadm=tuple(mdadm),
        member_bytes=members,
        data_offset_sectors=offset,
        superblock_offset_sectors=tuple(superblock_offset_sectors(d, metadata) for d in dev),
        bitmap_space_sectors=bitmap_space_sectors(dev[0]),
        member_reserved_bytes=tuple(reserved),
        member_used_bytes=tuple(u * SECTOR for u in used),
        component_bytes=component_kib * KiB,
        kernel_component_bytes=used[0] * SECTOR if level != 0 else 0,
        array_bytes=array_sectors * SECTOR,
        data_disks_num=num,
        data_disks_den=den,
        io_min_bytes=io_min,
        io_opt_bytes=io_opt,
        create_options=options,
    )


def _check_superblock(metadata: Literal["1.0", "1.1", "1.2"], mdadm: Version) -> None:
    """Refuse an mdadm too old for these plans and an unknown superblock format."""
    if tuple(mdadm) < MIN_MDADM:
        raise PlanError(
            f"mdadm {format_version(tuple(mdadm))} is too old for these plans; use mdadm 3.3 or newer", "mdadm"
        )
    if metadata not in ("1.0", "1.1", "1.2"):
        raise PlanError(f"metadata {metadata!r} is not one of 1.0, 1.1, 1.2", "metadata")


def _check_bitmap(
    level: MdLevel, bitmap: Literal["internal", "none"], bitmap_chunk_bytes: int | None
) -> Literal["internal", "none"]:
    """Refuse a bitmap RAID0 cannot have and a bitmap chunk that is no power of two of at least 4 KiB;
    the bitmap the array gets (none on RAID0)."""
    if level == 0:
        if bitmap_chunk_bytes is not None:
            raise PlanError(
                "RAID0 has no redundancy, so it takes no write-intent bitmap or bitmap chunk", "bitmap_chunk"
            )
        bitmap = "none"
    elif bitmap not in ("internal", "none"):
        raise PlanError(f"bitmap {bitmap!r} is not internal or none", "bitmap")
    elif bitmap == "none" and bitmap_chunk_bytes is not None:
        raise PlanError("a bitmap chunk was given but the bitmap is none", "bitmap_chunk")
    if bitmap_chunk_bytes is not None and (not is_power_of_two(bitmap_chunk_bytes) or bitmap_chunk_bytes < 4 * KiB):
        raise PlanError(
            f"bitmap chunk {bitmap_chunk_bytes} bytes must be a power of two of at least 4 KiB", "bitmap_chunk"
        )
    return bitmap


def _free_kib(
    members: tuple[int, ...], offset: int, metadata: Literal["1.0", "1.1", "1.2"], level: MdLevel, chunk_kib: int
) -> list[int]:
    """Each member's free space after md's metadata, in KiB rounded down to the chunk, as mdadm sizes
    the array from it; a member that holds no whole chunk (64 KiB on RAID1) is refused."""
    dev = [m // SECTOR for m in members]
    free_kib = [usable_sectors(d, offset, metadata, raid0=False) // 2 for d in dev]
    if chunk_kib:
        free_kib = [f - f % chunk_kib for f in free_kib]
    least = RAID1_ROUNDING_KIB if level == 1 else 1
    for i, f in enumerate(free_kib):
        if f < least:
            unit = "64 KiB" if level == 1 else f"chunk of {chunk_kib} KiB"
            raise PlanError(
                f"member {i + 1} ({members[i]} bytes) is too small: after md's metadata "
                f"({(dev[i] - usable_sectors(dev[i], offset, metadata, raid0=False)) * SECTOR} bytes) "
                f"it holds no whole {unit}",
                "member_bytes",
            )
    return free_kib


def _sizes(
    level: MdLevel,
    members: tuple[int, ...],
    usable: list[int],
    free_kib: list[int],
    chunk_kib: int,
    near: int,
    far: int,
) -> tuple[int, int, list[int]]:
    """(component KiB, array sectors, sectors used on each member). RAID0 uses each member's own
    usable space in whole chunks; the other levels cut every member to the smallest one."""
    n = len(members)
    if level == 0:
        chunk_sectors = chunk_kib * 2
        used = [u - u % chunk_sectors for u in usable]
        return min(used) // 2, sum(used), used
    component_kib = min(free_kib)
    if level == 1:
        component_kib -= component_kib % RAID1_ROUNDING_KIB
    array_sectors = _array_sectors(level, n, component_kib * 2, chunk_kib * 2, near, far)
    used = [_kernel_component_sectors(level, n, component_kib * 2, array_sectors, chunk_kib * 2, near * far)] * n
    if array_sectors == 0:  # RAID10 far copies: fewer whole chunks per member than copies
        raise PlanError(
            f"each member ({min(members)} bytes) is too small: after md's metadata it holds "
            f"{component_kib // chunk_kib} whole chunks of {chunk_kib} KiB, fewer than the layout's "
            f"{near * far} copies, so the array would hold nothing",
            "member_bytes",
        )
    return component_kib, array_sectors, used


def _check_members(member_bytes: Sequence[int], level: int) -> tuple[int, ...]:
    if level not in (0, 1, 4, 5, 6, 10):
        raise PlanError(f"RAID level {level!r} is not one of 0, 1, 4, 5, 6, 10", "level")
    members = tuple(member_bytes)
    for i, m in enumerate(members):
        if isinstance(m, bool) or not isinstance(m, int) or m <= 0:
            raise PlanError(f"member {i + 1} size {m!r} must be a positive whole number of bytes", "member_bytes")
    n = len(members)
    # mdadm refuses a one-device array without --force, which a plan never passes.
    least = md_scheme(level).min_members
    if n < least:
        raise PlanError(f"RAID{level} needs at least {least} members, got {n}", "members")
    if n > MAX_DEVS_V1:
        raise PlanError(f"v1.x metadata holds at most {MAX_DEVS_V1} members, got {n}", "members")
    if level == 6 and n > 256:
        raise PlanError(f"mdadm supports at most 256 members for RAID6, got {n}", "members")
    return members


def _layout(level: int, layout: str | None, n: int) -> tuple[str | None, int, int]:
    """(mdadm's layout name, near copies, far copies)."""
    if level in (5, 6):
        name = PARITY_LAYOUTS.get(layout or "left-symmetric")
        if name is None:
            raise PlanError(
                f"RAID{level} layout {layout!r} is not one of left-symmetric, left-asymmetric, "
                "right-symmetric, right-asymmetric, parity-first, parity-last",
                "layout",
            )
        return name, 1, 1
    if level == 10:
        m = _RAID10_LAYOUT.fullmatch(layout or "n2")
        if not m:
            raise PlanError(
                f"RAID10 layout {layout!r} must be n, f or o followed by the copies, such as n2 or f2", "layout"
            )
        kind, copies = m.group(1), int(m.group(2))
        if copies < 2:
            raise PlanError(f"RAID10 layout {layout} keeps one copy; the kernel needs at least 2", "layout")
        if copies > n:
            raise PlanError(
                f"RAID10 layout {kind}{copies} keeps {copies} copies, so it needs at least {copies} members, got {n}",
                "layout",
            )
        return f"{kind}{copies}", (copies if kind == "n" else 1), (1 if kind == "n" else copies)
    if layout is not None:
        raise PlanError(f"RAID{level} takes no layout (got {layout!r})", "layout")
    return None, 1, 1


def _chunk(level: int, chunk_bytes: int | None, mdadm: Version) -> int | None:
    if level == 1:
        if chunk_bytes is None:
            return None
        if mdadm >= CHUNKLESS_RAID1_SINCE:
            raise PlanError("RAID1 has no chunk: mdadm 4.2 and later refuse --chunk for RAID1", "chunk")
        return None  # older mdadm ignores it
    if chunk_bytes is None:
        return DEFAULT_CHUNK
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int):
        raise PlanError(f"chunk {chunk_bytes!r} must be a whole number of bytes", "chunk")
    if chunk_bytes < 4 * KiB or not is_power_of_two(chunk_bytes):
        raise PlanError(f"chunk {chunk_bytes} bytes must be a power of two of at least 4 KiB", "chunk")
    if chunk_bytes > 2**30:
        raise PlanError(f"chunk {chunk_bytes} bytes is over md's 1 GiB limit", "chunk")
    return chunk_bytes


def _array_sectors(level: int, n: int, component: int, chunk: int, near: int, far: int) -> int:
    if level == 1:
        return component
    if level in (4, 5):
        return component * (n - 1)
    if level == 6:
        return component * (n - 2)
    # RAID10: whole chunks per member, shared out among the copies.
    chunks = component // chunk
    return (chunks // far) * n // near * chunk


def _kernel_component_sectors(level: int, n: int, component: int, array: int, chunk: int, copies: int) -> int:
    """What the kernel keeps per member (md/component_size, "Used Dev Size").

    RAID10 re-derives it from the array: the array's chunks times the copies, shared out
    over the members and rounded up. With a far layout and an odd number of chunks per
    member that is one chunk less than mdadm asked for.
    """
    if level != 10:
        return component
    return -(-(array // chunk) * copies // n) * chunk


def _data_disks(level: int, n: int, copies: int) -> tuple[int, int]:
    num, den = {0: (n, 1), 1: (1, 1), 4: (n - 1, 1), 5: (n - 1, 1), 6: (n - 2, 1)}.get(level, (n, copies))
    g = gcd(num, den)
    return num // g, den // g


def _topology(level: int, n: int, chunk: int, near: int) -> tuple[int, int]:
    if level == 1:
        return 0, 0
    if level == 0:
        return chunk, chunk * n
    if level in (4, 5):
        return chunk, chunk * (n - 1)
    if level == 6:
        return chunk, chunk * (n - 2)
    return chunk, chunk * (n // near if n % near == 0 else n)


def _create_options(
    level: int, n: int, layout: str | None, chunk: int | None, metadata: str, bitmap: str, bitmap_chunk: int | None
) -> tuple[str, ...]:
    opts = [f"--level={level}", f"--raid-devices={n}"]
    if layout is not None and level != 0:
        opts.append(f"--layout={layout}")
    if chunk is not None:
        opts.append(f"--chunk={chunk // KiB}K")
    opts.append(f"--metadata={metadata}")
    if level != 0:
        opts.append(f"--bitmap={bitmap}")
    if bitmap_chunk is not None:
        opts.append(f"--bitmap-chunk={bitmap_chunk // KiB}K")
    return tuple(opts)
