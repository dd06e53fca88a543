"""LVM geometry: where the first extent starts, how many extents each PV gives, how big
the logical volume `lvcreate` makes.

Follows lvm2's pvcreate (first PE after a metadata area that ends at 1 MiB, aligned up
to the device's alignment), vgcreate (whole extents after pe_start) and lvcreate
(percentages of free extents, striped allocation in equal parallel areas).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from math import lcm

from pydantic import BaseModel, ConfigDict, Field, computed_field

from planners.errors import PlanError
from planners.units import KiB, MiB, is_power_of_two
from planners.versions import Version

SECTOR = 512
PAGE = 4096
MDA_START = 4096  # the first metadata area starts one page in, after the label sector
DEFAULT_ALIGNMENT = 1 * MiB
DEFAULT_EXTENT = 4 * MiB
DEFAULT_STRIPE = 64 * KiB
MAX_STRIPES = 128
NON_POWER2_EXTENT_UNIT = 128 * KiB
PV_MIN_BYTES = 2 * MiB  # devices/pv_min_size: smaller devices are filtered out
MAX_EXTENT_BYTES = (2**32 - 1) * SECTOR
MAX_PE_COUNT = 2**32 - 1
# Since 2.03.03 the default metadata area fills the first MiB after the first page;
# before, it was 255 sectors and pe_start only reached 1 MiB through alignment.
FULL_MIB_MDA_SINCE: Version = (2, 3, 3)

_PERCENT = re.compile(r"(\d{1,3})%(FREE|VG)")


def metadata_area_end(lvm2: Version = (2, 3, 16)) -> int:
    """Byte offset where the default first metadata area ends (4 KiB pages)."""
    size = 1024 * KiB - PAGE if tuple(lvm2) >= FULL_MIB_MDA_SINCE else 255 * SECTOR
    return MDA_START + size


def aligned_extent(unit: int) -> int:
    """The extent size podplan gives a VG whose arrays need whole `unit`s (bytes; 0 = no need).

    A linear LV puts each array's first extent right after the previous array's last, so
    the next array starts on a full stripe of the LV only if every array holds a whole
    number of full stripes in extents. Making the extent itself a multiple of the full
    stripe does that once, for the VG: every extent boundary is then a full-stripe
    boundary, and so stays every later lvextend onto a new array of the same geometry,
    pvmove and second LV. Trimming each PV's share to a multiple of the full stripe in
    4 MiB extents would also work for this one lvcreate, but leaves free extents that the
    next lvextend would hand out misaligned, and needs PV ranges in the script.

    LVM's own 4 MiB stays when it is already a multiple of the unit. Otherwise the
    smallest multiple of the unit that vgcreate takes (a power of two, or a multiple of
    128 KiB) and that is at least 4 MiB, so extent counts stay as small as LVM's default
    makes them. The 6.5 MiB full stripe of 13 data disks x 512 KiB is such an extent,
    and an md array of whole full stripes then ends on an extent too.
    """
    if not unit or DEFAULT_EXTENT % unit == 0:
        return DEFAULT_EXTENT
    step = unit if is_power_of_two(unit) else lcm(unit, NON_POWER2_EXTENT_UNIT)
    extent = -(-DEFAULT_EXTENT // step) * step
    return extent if extent <= MAX_EXTENT_BYTES else DEFAULT_EXTENT


def pe_start_bytes(
    io_min: int,
    io_opt: int,
    *,
    data_alignment: int | None = None,
    data_alignment_offset: int = 0,
    lvm2: Version = (2, 3, 16),
) -> int:
    """pe_start pvcreate picks for a device reporting these queue limits (bytes).

    Without --dataalignment the alignment starts at 1 MiB and is replaced, not
    multiplied, by minimum_io_size and then optimal_io_size whenever it is not already
    a multiple of them (13 x 512 KiB gives 6.5 MiB, not an LCM). The first metadata
    area's end is then rounded up to that alignment and the offset added. io_min and
    io_opt of 0 mean the device reports none.
    """
    for name, value in (("io_min", io_min), ("io_opt", io_opt), ("data alignment offset", data_alignment_offset)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise PlanError(f"{name} {value!r} must be a whole number of bytes, 0 or more", "lvm.data_alignment")
    if data_alignment:
        if data_alignment < 0 or data_alignment % SECTOR:
            raise PlanError(
                f"data alignment {data_alignment} bytes must be a positive multiple of 512 bytes", "lvm.data_alignment"
            )
        align = data_alignment // SECTOR
    else:
        align = DEFAULT_ALIGNMENT // SECTOR
        # lvm reads the limits in sectors; a value under one sector counts as one.
        for limit in (io_min, io_opt):
            sectors = max(1, limit // SECTOR) if limit else 0
            if sectors and align % sectors:
                align = sectors
    offset = data_alignment_offset // SECTOR
    if data_alignment_offset % SECTOR:
        raise PlanError("the data alignment offset must be a multiple of 512 bytes", "lvm.data_alignment_offset")
    if offset > align:
        raise PlanError(
            f"the data alignment offset ({data_alignment_offset} bytes) must not exceed the alignment "
            f"({align * SECTOR} bytes)",
            "lvm.data_alignment_offset",
        )
    end = metadata_area_end(lvm2)
    align_bytes = align * SECTOR
    start = -(-end // align_bytes) * align_bytes
    return start + (offset * SECTOR if offset else 0)


class LvmGeometry(BaseModel):
    """One volume group over some PVs and the one logical volume made in it."""

    model_config = ConfigDict(frozen=True)

    pv_bytes: tuple[int, ...] = Field(description="Size of each physical volume's device, in bytes.")
    pe_start_bytes: int = Field(description="Offset of the first extent on every PV, in bytes.")
    extent_bytes: int = Field(description="Physical extent size, in bytes.")
    pv_extents: tuple[int, ...] = Field(description="Extents each PV contributes (pv_pe_count), count.")
    stripes: int = Field(description="LV stripes (count); 1 = linear.")
    stripe_bytes: int | None = Field(description="LV stripe size in bytes; None for linear.")
    lv_extents: int = Field(description="Logical extents of the LV, count.")
    lv_pv_extents: tuple[int, ...] = Field(description="Extents the LV takes on each PV, count.")
    pv_lv_offset_bytes: tuple[int | None, ...] = Field(
        description="Byte offset in a linear LV where each PV's first extent in it lies (seg_start of its first "
        "segment), in bytes; None for a PV the LV does not use, and for every PV of a striped LV."
    )
    pvcreate_options: tuple[str, ...] = Field(description="Options for `pvcreate` before the device names.")
    vgcreate_options: tuple[str, ...] = Field(description="Options for `vgcreate` before the VG name.")
    lvcreate_options: tuple[str, ...] = Field(description="Options for `lvcreate` before the VG name (no -n).")

    @computed_field(description="Total extents in the VG (vg_extent_count), count.")  # type: ignore[prop-decorator]
    @property
    def vg_extents(self) -> int:
        return sum(self.pv_extents)

    @computed_field(description="Extents left free in the VG after the LV (vg_free_count), count.")  # type: ignore[prop-decorator]
    @property
    def vg_free_extents(self) -> int:
        return self.vg_extents - self.lv_extents

    @computed_field(description="Size of the LV in bytes (lv_size).")  # type: ignore[prop-decorator]
    @property
    def lv_bytes(self) -> int:
        return self.lv_extents * self.extent_bytes

    @computed_field(description="Bytes of the PVs outside any extent: pe_start and each PV's tail.")  # type: ignore[prop-decorator]
    @property
    def unusable_bytes(self) -> int:
        return sum(self.pv_bytes) - self.vg_extents * self.extent_bytes


def lvm_volume(
    pv_bytes: Sequence[int],
    *,
    pe_start: int,
    extent_bytes: int = DEFAULT_EXTENT,
    stripes: int = 1,
    stripe_bytes: int | None = None,
    lv_extents: int | str = "100%FREE",
    data_alignment: int | None = None,
    used: Sequence[int] = (),
) -> LvmGeometry:
    """VG over these PVs (all created with this pe_start) and one LV, or PlanError.

    lv_extents is a count or, as lvcreate -l takes it, "P%FREE" or "P%VG". data_alignment is what
    pvcreate is told (--dataalignment): the alignment pe_start was rounded up to; pe_start itself
    when not given (pvcreate rounds the metadata area's end up to it, so pe_start stays). `used`: extents
    the LVs made before this one took on each PV (the LV is allocated from what they left).
    """
    pvs = tuple(pv_bytes)
    if not pvs:
        raise PlanError("a volume group needs at least one physical volume", "lvm")
    _check_extent(extent_bytes)
    if isinstance(pe_start, bool) or not isinstance(pe_start, int) or pe_start <= 0 or pe_start % SECTOR:
        raise PlanError(f"pe_start {pe_start!r} must be a positive multiple of 512 bytes", "lvm.data_alignment")
    stripe = _check_stripes(stripes, stripe_bytes, extent_bytes, len(pvs))

    counts = []
    for i, size in enumerate(pvs):
        if isinstance(size, bool) or not isinstance(size, int) or size < PV_MIN_BYTES:
            raise PlanError(f"PV {i + 1} ({size!r} bytes) is under LVM's 2 MiB minimum", "lvm")
        pe = (size // SECTOR * SECTOR - pe_start) // extent_bytes
        if pe < 1:
            raise PlanError(
                f"PV {i + 1} ({size} bytes) has no room for one {extent_bytes}-byte extent after pe_start "
                f"({pe_start} bytes)",
                "lvm",
            )
        if pe > MAX_PE_COUNT:
            raise PlanError(f"PV {i + 1} needs more than 2^32 extents; use a larger extent size", "lvm.extent_size")
        counts.append(pe)

    free = [c - u for c, u in zip(counts, used, strict=True)] if used else counts
    whole = sum(free) if str(lv_extents).upper().endswith("FREE") else sum(counts)
    wanted, approximate = _requested_extents(lv_extents, whole, stripes)
    wanted = min(wanted, sum(free)) if approximate else wanted  # lvcreate reduces a percent to the free space
    taken, rounds = _allocate(free, wanted, stripes)
    got = sum(taken)
    if got == 0 or (not approximate and got < wanted):
        raise PlanError(
            f"the volume group has room for {got} of the {wanted} extents asked for"
            + (f" in {stripes} equal stripes on different PVs" if stripes > 1 else ""),
            "lvm",
        )

    lv_opts = ["--extents", str(lv_extents)]
    if stripes > 1:
        lv_opts += ["--stripes", str(stripes), "--stripesize", _k(stripe)]  # type: ignore[arg-type]
    return LvmGeometry(
        pv_bytes=pvs,
        pe_start_bytes=pe_start,
        extent_bytes=extent_bytes,
        pv_extents=tuple(counts),
        stripes=stripes,
        stripe_bytes=stripe,
        lv_extents=got,
        lv_pv_extents=tuple(taken),
        pv_lv_offset_bytes=_linear_offsets(rounds, len(pvs), extent_bytes) if stripes == 1 else (None,) * len(pvs),
        pvcreate_options=("--dataalignment", _k(data_alignment or pe_start)),
        vgcreate_options=("--physicalextentsize", _k(extent_bytes)),
        lvcreate_options=tuple(lv_opts),
    )


def _linear_offsets(rounds: Sequence[tuple[Sequence[int], int]], n: int, extent: int) -> tuple[int | None, ...]:
    """Where each PV's first run lands in a linear LV: the runs follow one another in allocation order."""
    out: list[int | None] = [None] * n
    at = 0
    for (pv, *_), run in rounds:
        if out[pv] is None:
            out[pv] = at
        at += run * extent
    return tuple(out)


def _k(n: int) -> str:
    """A size as lvm takes it: KiB when whole, else sectors."""
    return f"{n // KiB}k" if n % KiB == 0 else f"{n // SECTOR}s"


def _check_extent(extent: int) -> None:
    if isinstance(extent, bool) or not isinstance(extent, int) or extent <= 0 or extent % SECTOR:
        raise PlanError(f"extent size {extent!r} must be a positive multiple of 512 bytes", "lvm.extent_size")
    if not is_power_of_two(extent) and extent % NON_POWER2_EXTENT_UNIT:
        raise PlanError(
            f"extent size {extent} bytes must be a power of two or a multiple of 128 KiB", "lvm.extent_size"
        )
    if extent > MAX_EXTENT_BYTES:
        raise PlanError(f"extent size {extent} bytes is over LVM's limit of 2^32 sectors", "lvm.extent_size")


def _check_stripes(stripes: int, stripe: int | None, extent: int, n_pvs: int) -> int | None:
    if isinstance(stripes, bool) or not isinstance(stripes, int) or not 1 <= stripes <= MAX_STRIPES:
        raise PlanError(f"stripes {stripes!r} must be between 1 and {MAX_STRIPES}", "lvm.stripes")
    if stripes == 1:
        if stripe is not None:
            raise PlanError("a stripe size was given for a linear LV (one stripe)", "lvm.stripe_size")
        return None
    if stripes > n_pvs:
        raise PlanError(f"{stripes} stripes need at least {stripes} PVs, the VG has {n_pvs}", "lvm.stripes")
    stripe = DEFAULT_STRIPE if stripe is None else stripe
    if isinstance(stripe, bool) or not isinstance(stripe, int) or not is_power_of_two(stripe) or stripe < PAGE:
        raise PlanError(f"stripe size {stripe!r} bytes must be a power of two of at least 4 KiB", "lvm.stripe_size")
    if stripe > extent:
        # lvcreate would quietly shrink it to the extent size; a plan says what it builds.
        raise PlanError(f"stripe size {stripe} bytes is larger than the extent size {extent} bytes", "lvm.stripe_size")
    return stripe


def _requested_extents(spec: int | str, free: int, stripes: int) -> tuple[int, bool]:
    """(extents lvcreate asks the allocator for, whether it may settle for fewer)."""
    if isinstance(spec, bool):
        raise PlanError(f"LV size {spec!r} must be a count of extents or P%FREE / P%VG", "lvm")
    if isinstance(spec, int):
        if spec < 1:
            raise PlanError(f"LV size {spec} must be at least one extent", "lvm")
        return -(-spec // stripes) * stripes, False
    m = _PERCENT.fullmatch(str(spec).strip().upper())
    if not m or not 1 <= int(m.group(1)) <= 100:
        raise PlanError(f"LV size {spec!r} must be a count of extents or 1-100%FREE / %VG", "lvm")
    # Nothing is allocated yet, so %VG and %FREE count the same extents.
    extents = int(m.group(1)) * free // 100
    if extents == 0:
        raise PlanError(f"{spec} of {free} extents is less than one extent", "lvm")
    rest = extents % stripes
    if rest and free < extents - rest + stripes:
        extents -= rest
    return -(-extents // stripes) * stripes, True


def _allocate(free: list[int], wanted: int, stripes: int) -> tuple[list[int], list[tuple[list[int], int]]]:
    """Extents lvcreate takes on each PV, and its rounds in LV order (PVs, extents per stripe),
    following its allocation passes.

    Each round takes one equal run per stripe, each stripe on a different PV. A round
    ranks the candidate PVs by how much of the remaining need they can hold (ties keep
    the VG's PV order) and uses the first `stripes`. After the first round, lvcreate
    continues only where every stripe can go on on its own PV; then, round by round, it
    prefers the PVs the LV already uses and otherwise ranks all PVs. One stripe (linear)
    is the same with a single PV per round.
    """
    n = len(free)
    left = list(free)
    taken = [0] * n
    slot_pv: list[int] = []
    rounds: list[tuple[list[int], int]] = []
    need = wanted // stripes

    def pick(candidates: list[int]) -> list[int] | None:
        order = sorted((i for i in candidates if left[i]), key=lambda i: -min(left[i], need))
        return order[:stripes] if len(order) >= stripes else None

    def take(chosen: Sequence[int]) -> None:
        nonlocal need
        run = min([need] + [left[i] for i in chosen])
        for i in chosen:
            left[i] -= run
            taken[i] += run
        need -= run
        rounds.append((list(chosen), run))

    # "contiguous" pass: one ranked round (a new LV has nothing to be contiguous to).
    if chosen := pick(list(range(n))):
        take(chosen)
        slot_pv = chosen
    # "cling" pass: each stripe continues on its PV, only if all of them still can.
    while need and slot_pv and all(left[i] for i in slot_pv):
        take(slot_pv)
    # "normal" pass: rank the PVs the LV already uses, else all PVs; stop when neither works.
    cling = True
    while need:
        chosen = pick([i for i in range(n) if taken[i]] if cling else list(range(n)))
        if chosen is None:
            if not cling:
                break
            cling = False
            continue
        take(chosen)
        cling = True
    return taken, rounds
