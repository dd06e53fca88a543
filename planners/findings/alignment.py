"""Alignment from md up to the filesystem, and the checker that names each misalignment.

The rule the whole chain serves: a full-stripe write at the top must land as whole md
stripes at the bottom, or RAID4/5/6 pays a read-modify-write. Each layer either passes
the md geometry through (linear LVM) or replaces it with its own (striped LVM), and the
filesystem should be told the geometry of the device right under it.
"""

from __future__ import annotations

from collections.abc import Callable

from planners.models import Plan
from planners.results import Finding, VolumeResult
from planners.schemes import md_scheme
from planners.units import KiB, MiB, format_size_compact

PAGE = 4096
KERNEL_MIN_READAHEAD = 128 * KiB
MIN_RECOMMENDED_READAHEAD = 1 * MiB
STRIPE_CACHE_MIN, STRIPE_CACHE_MAX = 17, 32768
STRIPE_CACHE_FLOOR = 1024
STRIPES_IN_FLIGHT = 8

# (array name, io_min, io_opt, chunk, level) per md array, in plan order.
MdIo = list[tuple[str, int, int, int | None, int]]


def fs_stripe(top_io_min: int, top_io_opt: int, block_size: int) -> tuple[int, int]:
    """(stripe unit bytes, stripe width in units) that mkfs would detect from the top device.

    No stripe (0, 0) when the device reports none, or when io_opt is not a whole
    multiple of io_min (mkfs.xfs and mke2fs then ignore the hint).
    """
    if top_io_min <= block_size or top_io_opt <= top_io_min or top_io_opt % top_io_min:
        if top_io_min > block_size and top_io_opt == top_io_min:
            return top_io_min, 1
        return 0, 0
    return top_io_min, top_io_opt // top_io_min


def write_unit(level: int, chunk: int | None, io_opt: int) -> int:
    """The span a write to this array should not straddle (bytes; 0 = none): the full stripe on
    parity RAID, where a part of one costs a read-modify-write; the chunk elsewhere, where a
    request across a chunk boundary is split; nothing on RAID1."""
    return md_scheme(level).write_span(chunk, io_opt)


def kernel_readahead(io_opt: int) -> int:
    """The block layer's own choice for an md device: max(2 x io_opt, 128 KiB)."""
    return max(2 * io_opt, KERNEL_MIN_READAHEAD)


def recommended_readahead(streamed_stripe: int) -> int:
    """Two full stripes of what one sequential stream crosses, at least 1 MiB.

    One buffered stream keeps about readahead/chunk chunks in flight, so two full
    stripes keep every data disk busy with one request queued behind it.
    """
    ra = max(2 * streamed_stripe, MIN_RECOMMENDED_READAHEAD)
    return -(-ra // 512) * 512


def recommended_stripe_cache(chunk: int) -> int:
    """Entries for STRIPES_IN_FLIGHT full stripes: one entry covers one page per member."""
    want = STRIPES_IN_FLIGHT * chunk // PAGE
    return max(STRIPE_CACHE_FLOOR, min(STRIPE_CACHE_MAX, want))


def stripe_cache_bytes(entries: int, members: int) -> int:
    return entries * PAGE * members


def _check_array_starts(plan: Plan, md_io: MdIo, volume: VolumeResult, add: Callable[..., None]) -> None:
    """A linear LV concatenates the arrays; the filesystem's stripe is counted from the LV's start,
    so an array that starts off a full stripe of the LV has every full-stripe write straddle two."""
    lvg = volume.lvm
    assert lvg is not None
    if not md_io:  # LVM straight on disks or LUNs: planners.findings.direct checks where each one starts
        return
    off: list[tuple[str, int, int]] = []
    levels = set()
    for (name, _, io_opt, chunk, level), start in zip(md_io, lvg.pv_lv_offset_bytes, strict=True):
        unit = write_unit(level, chunk, io_opt)
        if start is not None and unit and start % unit:
            off.append((name, start % unit, unit))
            levels.add(level)
    if not off:
        return
    (n0, r0, u0), rest = off[0], off[1:]
    places = (
        f"{n0} starts {format_size_compact(r0)} past a {format_size_compact(u0)} full stripe of the linear LV"
        + "".join(
            f", {n} {format_size_compact(r)}" + (f" past a {format_size_compact(u)} one" if u != u0 else "")
            for n, r, u in rest
        )
    )
    parity = sorted(lv for lv in levels if lv in (4, 5, 6))
    cost = f"a read-modify-write on RAID{'/'.join(map(str, parity))}" if parity else "a request split across md chunks"
    them = off[0][0] if len(off) == 1 else "them"
    if plan.lvm.extent_size is not None:
        units = sorted({u for _, _, u in off})
        why = (
            f"the {format_size_compact(lvg.extent_bytes)} extent set in the plan is not a multiple of "
            f"{' or '.join(format_size_compact(u) for u in units)}: leave it unset and podplan picks one that is"
        )
        field = "lvm.extent_size"
    else:
        first, _, first_opt, first_chunk, first_level = md_io[0]
        why = (
            f"the extent is sized for {first}'s {format_size_compact(write_unit(first_level, first_chunk, first_opt))}"
            ", as pvcreate and the filesystem are aligned to it: arrays of one geometry avoid this"
        )
        field = "groups"
    add(
        "warning",
        "lvm",
        f"{places}, so every full-stripe write to {them} straddles two full stripes and costs {cost} ({why}).",
        field,
    )


def check_plan(plan: Plan, md_io: MdIo, volume: VolumeResult) -> list[Finding]:
    """Name every misalignment between layers, one sentence each.

    md_io: (array name, io_min, io_opt, chunk, level) per group, in plan order; volume:
    the first volume (all volumes of a plan share one alignment recipe).

    The checks run bottom-up in the order the findings are shown: the disks' sectors, the arrays
    against each other, LVM on the arrays, the filesystem on what is under it, the tuning, then
    the disks the plan leaves out or splits into separate filesystems.
    """
    out: list[Finding] = []

    def add(sev: str, layer: str, msg: str, field: str = "") -> None:
        out.append(Finding(severity=sev, layer=layer, message=msg, field=field))  # type: ignore[arg-type]

    _check_block_size(plan, add)
    _check_array_stripes(plan, md_io, add)
    if plan.lvm.enabled:
        _check_extent_start(md_io, volume, add)
        _check_striped_lv(plan, md_io, volume, add)
        if volume.lvm is not None:
            _check_array_starts(plan, md_io, volume, add)
    _check_fs_stripe(plan, md_io, volume, add)
    _check_xfs_log(volume, add)
    _check_tuning(plan, md_io, volume, add)
    _check_disk_use(plan, add)
    return out


def _first_array(md_io: MdIo) -> tuple[int, int | None, int]:
    """(io_opt, chunk, level) of the first array, the one the volume is aligned to; zeros with no md
    (planners.findings.direct checks plans without md)."""
    _, _, io_opt, chunk, level = md_io[0] if md_io else ("", 0, 0, None, 0)
    return io_opt, chunk, level


def _check_block_size(plan: Plan, add: Callable[..., None]) -> None:
    """A filesystem block under the disks' physical sector makes the disk read-modify-write."""
    fs = plan.filesystem
    phys = max(d.physical_sector for d in plan.disks)
    if fs.block_size < phys:
        add(
            "warning",
            "filesystem",
            f"The {fs.block_size}-byte filesystem block is smaller than the disks' {phys}-byte physical sector, "
            "so every small write makes the disk read-modify-write a sector.",
            "filesystem.block_size",
        )


def _check_array_stripes(plan: Plan, md_io: MdIo, add: Callable[..., None]) -> None:
    """Arrays of different full stripes under one volume group: the filesystem fits only one."""
    opts = {io_opt for _, _, io_opt, _, _ in md_io}
    if plan.lvm.enabled and len(opts) > 1:
        add(
            "warning",
            "lvm",
            "The md arrays under the volume group have different full stripes "
            f"({', '.join(format_size_compact(o) for o in sorted(opts))}), so the filesystem can align to only one of them.",
            "groups",
        )


def _check_extent_start(md_io: MdIo, volume: VolumeResult, add: Callable[..., None]) -> None:
    """The first extent must start on an md full stripe, or every LVM block straddles two."""
    pe_start = volume.lvm.pe_start_bytes if volume.lvm else None
    io_opt, _, _ = _first_array(md_io)
    if pe_start is not None and io_opt and pe_start % io_opt:
        add(
            "warning",
            "lvm",
            f"The first extent starts at {format_size_compact(pe_start)}, not a multiple of the md full stripe "
            f"{format_size_compact(io_opt)}, so every LVM block is shifted across md stripes.",
            "lvm.data_alignment",
        )


def _check_striped_lv(plan: Plan, md_io: MdIo, volume: VolumeResult, add: Callable[..., None]) -> None:
    """A striped LV: over one array it is linear; its stripe must be whole md stripes (parity) or
    chunks, and a parity full stripe that is no power of two has no LVM stripe size to match."""
    if plan.lvm.mode != "striped":
        return
    chain = volume.alignment
    lv_stripe = chain.lv_stripe_bytes
    io_opt, chunk, level = _first_array(md_io)
    parity = md_scheme(level).parity > 0
    if chain.lv_stripes == 1 and md_io:
        add(
            "info",
            "lvm",
            "Striped LVM over one md array is one stripe: lvcreate makes the LV linear. Split the disks into two or "
            "more arrays (groups) to stripe over them.",
            "lvm.mode",
        )
    if not (lv_stripe and io_opt):
        return
    target = io_opt if parity else (chunk or io_opt)
    if lv_stripe % target:
        what = "md full stripe" if parity else "md chunk"
        cost = "a read-modify-write on RAID" + str(level) if parity else "a request split across md chunks"
        add(
            "warning",
            "lvm",
            f"The LVM stripe size {format_size_compact(lv_stripe)} is not a multiple of the {what} "
            f"{format_size_compact(target)}, so each LVM stripe is a partial md stripe and costs {cost}.",
            "lvm.stripe_size",
        )
    if parity and io_opt & (io_opt - 1):
        add(
            "info",
            "lvm",
            f"The md full stripe {format_size_compact(io_opt)} is not a power of two, and lvcreate -I must be one, "
            "so no LVM stripe size can match it; a linear LV whose extent is a multiple of it keeps every "
            "array on whole full stripes.",
            "lvm.mode",
        )


def _check_fs_stripe(plan: Plan, md_io: MdIo, volume: VolumeResult, add: Callable[..., None]) -> None:
    """A stripe set in the plan must be the one of the device right under the filesystem: the LVM
    stripe when the LV is striped, else the md chunk and full stripe."""
    fs = plan.filesystem
    lv_stripe = volume.alignment.lv_stripe_bytes
    io_opt, chunk, _ = _first_array(md_io)
    if fs.stripe_unit is None or not chunk:
        return
    want_su, want_width = (lv_stripe, None) if lv_stripe else (chunk, io_opt)
    if fs.stripe_unit == 0:
        # No stripe is a choice (small files, SSD arrays), not a misalignment: say what it gives up.
        add(
            "info",
            "filesystem",
            f"No filesystem stripe, as the plan asks: mkfs is told so, and allocation ignores the "
            f"{format_size_compact(want_su)} stripe unit below (full stripe {format_size_compact(io_opt)}), so "
            "large writes fill whole stripes only where they happen to start on one.",
            "filesystem.stripe_unit",
        )
        return
    if want_su and fs.stripe_unit != want_su:
        add(
            "warning",
            "filesystem",
            f"The filesystem stripe unit {format_size_compact(fs.stripe_unit)} differs from the "
            f"{format_size_compact(want_su)} the device below uses, so allocation is aligned to the wrong boundary.",
            "filesystem.stripe_unit",
        )
    if want_width and fs.stripe_width and fs.stripe_unit * fs.stripe_width != want_width:
        add(
            "warning",
            "filesystem",
            f"The filesystem stripe width {format_size_compact(fs.stripe_unit * fs.stripe_width)} differs from the md "
            f"full stripe {format_size_compact(want_width)}, so large writes do not fill whole md stripes.",
            "filesystem.stripe_width",
        )


def _check_xfs_log(volume: VolumeResult, add: Callable[..., None]) -> None:
    """mkfs.xfs caps the log stripe unit, so log writes may not be full-stripe."""
    su = volume.alignment.fs_stripe_unit_bytes
    if volume.xfs is not None and su and volume.xfs.log_sunit_bytes < su:
        add(
            "info",
            "filesystem",
            f"The XFS log stripe unit is {format_size_compact(volume.xfs.log_sunit_bytes)}, smaller than the "
            f"{format_size_compact(su)} data stripe unit (mkfs.xfs caps it at 32 KiB above 256 KiB, and uses one "
            "block with 4 KiB sectors), so log writes are not full-stripe.",
            "",
        )


def _check_tuning(plan: Plan, md_io: MdIo, volume: VolumeResult, add: Callable[..., None]) -> None:
    """Readahead and stripe cache set in the plan must each hold two full stripes."""
    io_opt, chunk, _ = _first_array(md_io)
    stripe_cache = volume.alignment.stripe_cache_size
    if plan.tuning.readahead is not None and io_opt and plan.tuning.readahead < 2 * io_opt:
        add(
            "warning",
            "tuning",
            f"Readahead {format_size_compact(plan.tuning.readahead)} is under two md full stripes "
            f"({format_size_compact(2 * io_opt)}), so one sequential reader keeps only part of the disks busy.",
            "tuning.readahead",
        )
    if (
        stripe_cache is not None
        and chunk
        and plan.tuning.stripe_cache_size is not None
        and stripe_cache < 2 * chunk // PAGE
    ):
        add(
            "warning",
            "tuning",
            f"stripe_cache_size {stripe_cache} holds less than two full stripes ({2 * chunk // PAGE} entries "
            f"for a {format_size_compact(chunk)} chunk), so full-stripe writes turn into read-modify-writes.",
            "tuning.stripe_cache_size",
        )


def _check_disk_use(plan: Plan, add: Callable[..., None]) -> None:
    """Disks md leaves partly or wholly unused, and arrays that each get a filesystem without LVM."""
    for g, members, _ in plan.group_disks():
        sizes = {d.size for d in members}
        if len(sizes) > 1:
            add(
                "info",
                "md",
                f"{g.name} mixes disk sizes; md uses the smallest member size on every member and leaves the rest unused.",
                "disks",
            )
    unassigned = plan.unassigned_disks()
    if unassigned:
        add("warning", "plan", f"{len(unassigned)} disk(s) are not used by any md group or as spares.", "groups")
    if len(plan.groups) > 1 and not plan.lvm.enabled:
        fs, n = plan.filesystem, len(plan.groups)
        labels = f", and its own label ({fs.volume_label(0, n)} to {fs.volume_label(n - 1, n)})" if fs.label else ""
        add(
            "info",
            "plan",
            f"LVM is off, so each of the {n} md arrays gets its own filesystem and mount point{labels}.",
            "lvm.enabled",
        )
