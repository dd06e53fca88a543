"""mkfs.xfs's rules for the AG layout and the internal log (xfsprogs 5.19 to 6.4).

Written from the rules in xfsprogs' mkfs/xfs_mkfs.c and libxfs/topology.c (6.1); every
figure is checked against `mkfs.xfs -N` by the tests.
"""

from __future__ import annotations

from planners.errors import PlanError
from planners.fs.xfs.model import (
    AG_MAX_BYTES,
    AG_MIN_BYTES,
    FS_MIN_BYTES,
    GIB,
    INODE_SIZE,
    LOG_MAX_BLOCKS,
    LOG_MAX_BYTES,
    LOG_REALISTIC_MIN_BYTES,
    MIB,
    MODELLED_XFSPROGS,
    TIB,
    XfsGeometry,
    ag_header_blocks,
    log_sunit_bytes,
)
from planners.versions import Version, format_version

DEFAULT_BTREE_ROOTS = 5  # bno, cnt, inobt, finobt, refcount: the modelled versions' defaults


def check_xfsprogs(xfsprogs: Version) -> None:
    low, high = MODELLED_XFSPROGS
    if not low <= tuple(xfsprogs) < high:
        raise PlanError(
            f"xfsprogs {format_version(xfsprogs)} is not modelled: podplan knows mkfs.xfs "
            f"{format_version(low)} up to (not including) {format_version(high)}.",
            field="xfsprogs",
        )


def _validate_sizes(size_bytes: int, block_size: int, sector_size: int) -> None:
    for name, value, low, high in (
        # Above 16 KiB blocks the log minimum from transaction sizes can pass 64 MiB,
        # which this model does not compute.
        ("block_size", block_size, 1024, 16384),
        ("sector_size", sector_size, 512, 32768),
    ):
        if value < low or value > high or value & (value - 1):
            raise PlanError(
                f"XFS {name.replace('_', ' ')} {value} must be a power of two from {low} to {high} bytes.",
                field=name,
            )
    if sector_size > block_size:
        raise PlanError(
            f"XFS block size {block_size} cannot be smaller than the sector size {sector_size}.",
            field="block_size",
        )
    if size_bytes % 512:
        raise PlanError(f"XFS data size {size_bytes} bytes is not a multiple of 512.", field="size_bytes")
    if size_bytes < AG_MIN_BYTES:
        raise PlanError(
            f"XFS data size {size_bytes} bytes is below the 16 MiB mkfs.xfs accepts at all.",
            field="size_bytes",
        )


def _validate_stripe(su_bytes: int, sw: int, block_size: int, sector_size: int) -> None:
    if su_bytes < 0 or sw < 0:
        raise PlanError("XFS stripe unit and width cannot be negative.", field="su_bytes")
    if not su_bytes:
        return  # mkfs.xfs reads su=0 as "no stripe", whatever sw says
    if sw < 1:
        raise PlanError(f"An XFS stripe unit ({su_bytes} bytes) needs a stripe width sw of at least 1.", field="sw")
    if su_bytes >= 2**31:  # mkfs.xfs holds it in a signed 32-bit int
        raise PlanError(f"XFS stripe unit {su_bytes} bytes is too large for mkfs.xfs.", field="su_bytes")
    if (su_bytes * sw) // 512 > 2**31 - 1:
        raise PlanError(f"XFS stripe width {su_bytes * sw} bytes (su x sw) is too large for mkfs.xfs.", field="sw")
    if su_bytes % sector_size:
        raise PlanError(
            f"XFS stripe unit {su_bytes} must be a multiple of the sector size {sector_size}.",
            field="su_bytes",
        )
    if su_bytes % block_size:
        raise PlanError(
            f"XFS stripe unit {su_bytes} is not a multiple of the block size {block_size}.",
            field="su_bytes",
        )


def _default_ag_geometry(dblocks: int, blocklog: int, multidisk: bool) -> tuple[int, int]:
    """(agsize, agcount) before stripe alignment: 4 AGs, or more on a striped device."""
    max_ag = (AG_MAX_BYTES - 1) >> blocklog
    if dblocks >= (32 * TIB) >> blocklog or (not multidisk and dblocks >= (4 * TIB) >> blocklog):
        agsize = max_ag
    else:
        if not multidisk and dblocks >= (128 * MIB) >> blocklog:
            shift = 2
        else:
            # Striped devices are assumed to have parallelism to spare: more AGs.
            shift = 5
            for limit, strict in (
                (512 * GIB, False),
                (8 * GIB, False),
                (128 * MIB, True),
                (64 * MIB, True),
                (32 * MIB, True),
            ):
                blocks = limit >> blocklog
                if dblocks < blocks or (not strict and dblocks == blocks):
                    shift -= 1
        agsize = dblocks >> shift
        if dblocks & ((1 << shift) - 1) and agsize < max_ag:
            agsize += 1
    return agsize, -(-dblocks // agsize)


def _align_ag_geometry(
    dblocks: int, agsize: int, agcount: int, sunit: int, swidth: int, blocklog: int
) -> tuple[int, int, int]:
    """Stripe-align the AG size; drop a runt last AG. Returns (dblocks, agsize, agcount)."""
    min_ag = AG_MIN_BYTES >> blocklog
    max_ag = (AG_MAX_BYTES - 1) >> blocklog
    if sunit:
        if agsize % sunit:
            aligned = -(-agsize // sunit) * sunit
            if aligned > max_ag:
                aligned = agsize // sunit * sunit
            agsize = aligned
            agcount = -(-dblocks // agsize)
        # AGs that all start on the same disk of the stripe would put every AG's
        # headers on one spindle: shift them by one stripe unit.
        if agsize % swidth == 0 and swidth != sunit and agcount > 1:
            shifted = agsize - sunit
            if shifted < min_ag:
                shifted = agsize + sunit
            agsize = shifted
            agcount = -(-dblocks // agsize)
    if dblocks % agsize and dblocks % agsize < min_ag:
        dblocks = (agcount - 1) * agsize
        agcount -= 1
    if agsize < min_ag:
        raise PlanError(
            f"XFS allocation groups would be {agsize} blocks, below the {min_ag}-block minimum.",
            field="size_bytes",
        )
    if agsize > dblocks:
        raise PlanError(
            f"XFS allocation group size {agsize} blocks exceeds the data area ({dblocks} blocks).",
            field="size_bytes",
        )
    if agcount > 2**32 - 1:
        raise PlanError(f"{agcount} XFS allocation groups is too many.", field="size_bytes")
    return dblocks, agsize, agcount


def _imaxpct(dblocks: int, blocklog: int) -> int:
    if dblocks < TIB >> blocklog:
        return 25
    if dblocks < (50 * TIB) >> blocklog:
        return 5
    return 1


def _ag_max_usable(agsize: int, block_size: int, sector_size: int) -> int:
    """Largest extent an AG can hold: less its headers (rounded up to whole blocks), the
    AGFL refill reserve (4) and the btree roots."""
    headers = -(-4 * sector_size // block_size)
    return agsize - (headers + 4 + DEFAULT_BTREE_ROOTS)


def _log_blocks(
    dblocks: int, agsize: int, agcount: int, blocklog: int, block_size: int, sector_size: int, align: int
) -> int:
    """Internal log size: 1/2048 of the data, at least 64 MiB, within the AG, aligned."""
    max_log = _ag_max_usable(agsize, block_size, sector_size) - 1
    log = (dblocks * block_size // 2048) >> blocklog
    log = max(log, LOG_REALISTIC_MIN_BYTES >> blocklog)
    log = min(log, max_log, LOG_MAX_BLOCKS, LOG_MAX_BYTES >> blocklog)
    if align <= 1:
        return log
    # The log start is rounded up to the stripe unit in filesystem block numbers,
    # which carry the AG number in the bits above log2(agsize) rounded up.
    ag_base = (agcount // 2) << (agsize - 1).bit_length()
    first_free = ag_base + ag_header_blocks(block_size, sector_size) + DEFAULT_BTREE_ROOTS
    start = -(-first_free // align) * align - ag_base
    if start >= agsize:
        raise PlanError(
            "Due to stripe alignment, the XFS internal log cannot start inside its allocation group.",
            field="su_bytes",
        )
    if log % align:
        up = -(-log // align) * align
        if up > LOG_MAX_BLOCKS or up << blocklog > LOG_MAX_BYTES or up > max_log:
            up = log // align * align
        log = up
    if start + log > agsize and log > align:
        log -= align
    if start + log > agsize:
        raise PlanError(
            "Due to stripe alignment, the XFS internal log does not fit in its allocation group.",
            field="su_bytes",
        )
    return log


def xfs_geometry(
    size_bytes: int,
    *,
    su_bytes: int = 0,
    sw: int = 0,
    block_size: int = 4096,
    sector_size: int = 512,
    rotational: bool = True,
    xfsprogs: Version = (6, 1, 0),
    log_device: str | None = None,
) -> XfsGeometry:
    """The geometry `mkfs.xfs -d size=size_bytes,su=..,sw=..` gives, or PlanError with its reason.

    `log_device` puts the log on that device (-l logdev=): no block of the data section is log.

    `rotational` is accepted for the versions that use it (6.8 and later pick more AGs on
    SSDs); the modelled versions ignore it.
    """
    del rotational  # no modelled version looks at it
    check_xfsprogs(xfsprogs)
    _validate_sizes(size_bytes, block_size, sector_size)
    _validate_stripe(su_bytes, sw, block_size, sector_size)
    blocklog = block_size.bit_length() - 1
    dblocks = size_bytes // block_size
    sunit = su_bytes // block_size
    swidth = sunit * sw if sunit else 0
    agsize, agcount = _default_ag_geometry(dblocks, blocklog, multidisk=bool(sunit))
    dblocks, agsize, agcount = _align_ag_geometry(dblocks, agsize, agcount, sunit, swidth, blocklog)
    if dblocks < FS_MIN_BYTES >> blocklog:
        raise PlanError(
            f"XFS needs more than 300 MiB (mkfs.xfs refuses smaller filesystems); "
            f"{size_bytes} bytes gives {dblocks * block_size}.",
            field="size_bytes",
        )
    log_sunit = log_sunit_bytes(su_bytes, block_size, sector_size) // block_size
    log = 0
    if not log_device:
        log = _log_blocks(dblocks, agsize, agcount, blocklog, block_size, sector_size, log_sunit or sunit)
    if not log_device and log < LOG_REALISTIC_MIN_BYTES >> blocklog:
        raise PlanError(
            f"XFS allocation groups of {agsize * block_size} bytes leave no room for the 64 MiB "
            f"log mkfs.xfs requires: make the filesystem larger.",
            field="size_bytes",
        )
    if agcount < 2:
        raise PlanError("XFS needs at least 2 allocation groups (redundant superblocks).", field="size_bytes")
    return XfsGeometry(
        block_size=block_size,
        sector_size=sector_size,
        inode_size=INODE_SIZE,
        agcount=agcount,
        agsize_blocks=agsize,
        data_blocks=dblocks,
        imaxpct=_imaxpct(dblocks, blocklog),
        sunit_blocks=sunit,
        swidth_blocks=swidth,
        log_blocks=log,
        log_sunit_bytes=log_sunit * block_size,
        log_sector_size=sector_size,
        log_device=log_device,
    )
