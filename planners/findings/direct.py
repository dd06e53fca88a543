"""Plans without md: LVM straight on the disks, or the filesystem straight on one disk.

Alignment then comes from what each disk is. A hardware RAID controller's LUN reports its
strip as minimum_io_size and its full stripe (strip x data disks) as optimal_io_size, as
md does for an array, so pvcreate, mkfs.xfs and mke2fs align to it the same way; a plain
disk reports its physical sector and no stripe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from planners.fs.btrfs import btrfs_readahead
from planners.hardware.machine import Hardware
from planners.lvm.geometry import LvmGeometry
from planners.models import Plan
from planners.results import Finding, VolumeResult
from planners.schemes import Scheme, btrfs_scheme, lun_scheme, md_scheme
from planners.units import format_size_compact

_DEFAULT_HARDWARE = Hardware()


def placeholder(i: int) -> str:
    """The path a build script uses for the i-th disk (from 1) when the plan names none: the script refuses it."""
    return f"/dev/disk/by-id/FILL-IN-disk{i:02d}"


class Under(NamedTuple):
    """One device right under LVM or the filesystem: an md array, or without md a disk."""

    name: str
    device: str
    size: int  # bytes
    io_min: int  # queue/minimum_io_size, bytes
    io_opt: int  # queue/optimal_io_size, bytes (0 = none)
    chunk: int | None  # md chunk or LUN strip, bytes
    level: int  # RAID level (md's or the LUN's); 0 for a plain disk
    kind: str  # "md", "lun" or "disk"
    exports: bool = True  # io_min/io_opt reach the kernel (False: a LUN whose driver exports no geometry)
    sector: int = 512  # physical sector, bytes: the io_min the kernel shows when none is exported

    @property
    def scheme(self) -> Scheme:
        """The md level's or the LUN's scheme (a plain disk: a one-member RAID0)."""
        return lun_scheme(self.level) if self.kind == "lun" else md_scheme(self.level)

    @property
    def exported(self) -> tuple[int, int]:
        """(io_min, io_opt) as the kernel sees them: what mkfs detects and readahead follows. A LUN
        that exports no geometry shows its sector and no optimal size, as a plain disk does."""
        return (self.io_min, self.io_opt) if self.exports else (self.sector, 0)


def lun_exports_geometry(plan: Plan) -> bool:
    """Whether the device under the volume exports its geometry: False only for a LUN whose driver
    exports none (the first disk's, as the alignment chain follows the first device)."""
    lun = (plan.hardware or _DEFAULT_HARDWARE).disk_spec(plan.disks[0].model).lun
    return lun is None or lun.exports_geometry


def direct_unders(plan: Plan) -> list[Under]:
    """Each disk of a plan without md groups, as LVM or the filesystem sees it."""
    hw = plan.hardware or _DEFAULT_HARDWARE
    out = []
    for i, d in enumerate(plan.disk_list(), 1):
        lun = hw.disk_spec(d.model).lun
        if lun is not None:
            full = lun.strip * lun.data_disks
            out.append(
                Under(
                    f"disk{i}",
                    d.device,
                    d.size,
                    lun.strip,
                    full,
                    lun.strip,
                    lun.level,
                    "lun",
                    lun.exports_geometry,
                    d.physical_sector,
                )
            )
        else:
            out.append(Under(f"disk{i}", d.device, d.size, d.physical_sector, 0, None, 0, "disk"))
    return out


def journal_findings(plan: Plan) -> list[Finding]:
    """What leaving ext4's journal out costs (planners.findings.direct holds it as the other choice of what sits
    under the data; the filesystem's other findings are the alignment checker's)."""
    device = plan.filesystem.journal_device
    if device:
        return [
            Finding(
                severity="info",
                layer="filesystem",
                field="filesystem.journal_device",
                message=(
                    f"the journal is on {device}, outside the array's redundancy unless that device has its own: if "
                    "it fails, the filesystem does not mount until e2fsck replays nothing and the journal is "
                    "removed (tune2fs -f -O ^has_journal), and writes in flight are lost."
                ),
            )
        ]
    if plan.filesystem.journal:
        return []
    return [
        Finding(
            severity="warning",
            layer="filesystem",
            field="filesystem.journal",
            message=(
                "ext4 without a journal: after a crash or power loss the whole filesystem must be checked (e2fsck) before "
                "it mounts, and writes in flight may be lost or left half done; fit for scratch space only."
            ),
        )
    ]


def btrfs_findings(volume: VolumeResult) -> list[Finding]:
    """What a btrfs profile risks or wastes, one sentence each."""
    b = volume.btrfs
    if b is None:
        return []
    out = []
    parity = [p for p in (b.data_profile, b.metadata_profile) if btrfs_scheme(p).parity]
    if parity:
        out.append(
            Finding(
                severity="warning",
                layer="filesystem",
                field="filesystem.data_profile",
                message=(
                    f"btrfs {parity[0]} has a write hole: a crash or power loss during a partial-stripe write can leave "
                    "parity that no longer matches, so run `btrfs scrub` after every unclean shutdown; the kernel still "
                    "documents raid5/6 as not for production, and metadata should be raid1 or raid1c3."
                ),
            )
        )
    if b.metadata_profile == "single":
        out.append(
            Finding(
                severity="info",
                layer="filesystem",
                field="filesystem.metadata_profile",
                message=(
                    "btrfs metadata single keeps only mkfs.btrfs's 8 MiB metadata chunk: the kernel adds metadata chunks "
                    "while files are written, so less than the usable figure fits, by up to a few metadata chunks "
                    f"({'1 GiB' if sum(b.device_bytes) > 50 << 30 else '256 MiB'} each)."
                ),
            )
        )
    if b.metadata_tolerates < b.data_tolerates:
        out.append(
            Finding(
                severity="warning",
                layer="filesystem",
                field="filesystem.metadata_profile",
                message=(
                    f"btrfs metadata ({b.metadata_profile}) survives {b.metadata_tolerates} device failure(s) and data "
                    f"({b.data_profile}) {b.data_tolerates}: losing the metadata loses every file, so it should be at "
                    "least as redundant as the data."
                ),
            )
        )
    window = btrfs_readahead(len(b.device_bytes))
    if volume.alignment.readahead_bytes != window:
        out.append(
            Finding(
                severity="info",
                layer="tuning",
                field="tuning.readahead",
                message=(
                    f"btrfs reads files ahead by its own window, {window >> 10} KiB (128 KiB per device, at least "
                    f"4 MiB), not by the {volume.alignment.readahead_bytes >> 10} KiB the device is set to: "
                    "/sys/class/bdi/btrfs-N/read_ahead_kb changes it."
                ),
            )
        )
    if b.stranded_bytes >= max(1 << 30, sum(b.device_bytes) // 100) and len(b.device_bytes) > 1:
        out.append(
            Finding(
                severity="warning",
                layer="disks",
                field="disks",
                message=(
                    f"btrfs {b.data_profile} over these mixed sizes strands {b.stranded_bytes:,} device bytes: filled "
                    "to ENOSPC, no chunk can take them (the largest devices outgrow what the others can pair them with)."
                ),
            )
        )
    return out


def direct_findings(plan: Plan, unders: list[Under], volume: VolumeResult) -> list[Finding]:
    """What a plan without md gets wrong or risks, one sentence each.

    First the plain disks nothing protects; then, over LUNs, devices of different stripes under one
    volume, where the first extent starts, and how a striped or linear LV lies on the LUNs' stripes.
    """
    out: list[Finding] = []

    def add(sev: str, layer: str, msg: str, field: str = "") -> None:
        out.append(Finding(severity=sev, layer=layer, message=msg, field=field))  # type: ignore[arg-type]

    luns = [u for u in unders if u.kind == "lun"]
    plain = len(unders) - len(luns)
    _check_plain_disks(plain, volume, add)
    if not luns:
        return out
    if len({(u.io_min, u.io_opt) for u in luns}) > 1 or plain:
        add(
            "warning",
            "disks",
            "The disks under the volume have different stripes (LUN strips and data disks), "
            "so the filesystem can align to only one of them.",
            "hardware",
        )
    lun, lv = luns[0], volume.lvm
    if not lun.exports:
        _check_lun_exports(plan, lun, volume, add)
    if lv is not None:
        _check_lun_extent_start(lun, lv, add)
        if volume.alignment.lv_stripe_bytes:
            _check_lun_striped_lv(lun, volume.alignment.lv_stripe_bytes, add)
        elif len(lv.lv_pv_extents) > 1:
            _check_lun_linear_lv(lun, lv, add)
    return out


def _check_lun_exports(plan: Plan, lun: Under, volume: VolumeResult, add: Callable[..., None]) -> None:
    """A LUN whose driver exports no geometry: what the kernel and mkfs then do on their own."""
    a = volume.alignment
    said = (
        f"The LUN exports no geometry (io_min and io_opt 0, as the cciss and hpsa drivers of a Smart Array "
        f"show it): the kernel's own readahead stays at {format_size_compact(a.kernel_readahead_bytes)}"
    )
    if a.fs_stripe_unit_bytes or plan.filesystem.type == "btrfs" or plan.filesystem.stripe_unit is not None:
        add("info", "disks", said + ".", "hardware.disk.lun.exports_geometry")
        return
    add(
        "warning",
        "filesystem",
        f"{said}, and mkfs aligns to no stripe (sunit 0): give [filesystem] stripe_unit = "
        f'"{format_size_compact(lun.io_min)}" and stripe_width = {lun.io_opt // lun.io_min} (the LUN\'s strip '
        "and data disks) to align it, and the script passes them.",
        "filesystem.stripe_unit",
    )


def _check_plain_disks(plain: int, volume: VolumeResult, add: Callable[..., None]) -> None:
    """Plain disks under the volume: losing one loses it, unless btrfs keeps copies."""
    b = volume.btrfs
    if plain and not (b and min(b.data_tolerates, b.metadata_tolerates) > 0):  # btrfs's own copies protect it
        what = (
            "A plain disk with no md and no RAID controller: losing it"
            if plain == 1
            else (f"{plain} plain disks with no md and no RAID controller: losing any one of them")
        )
        add("warning", "plan", f"{what} loses the volume.", "groups")


def _check_lun_extent_start(lun: Under, lv: LvmGeometry, add: Callable[..., None]) -> None:
    """The first extent must start on the LUN's full stripe."""
    full = lun.io_opt
    if lv.pe_start_bytes % full:
        add(
            "warning",
            "lvm",
            f"The first extent starts at {format_size_compact(lv.pe_start_bytes)}, not a multiple of the LUN full "
            f"stripe {format_size_compact(full)}, so every LVM block is shifted across the controller's stripes.",
            "lvm.data_alignment",
        )


def _check_lun_striped_lv(lun: Under, stripe: int, add: Callable[..., None]) -> None:
    """A striped LV's stripe must be whole LUN full stripes (parity) or strips; a parity full stripe
    that is no power of two has no LVM stripe size to match."""
    full, strip = lun.io_opt, lun.io_min
    parity = lun.scheme.parity > 0
    target = full if parity else strip
    if stripe % target:
        what = "LUN full stripe" if parity else "LUN strip"
        cost = (
            f"a read-modify-write in the controller's RAID{lun.level}"
            if parity
            else "a request split across the controller's strips"
        )
        add(
            "warning",
            "lvm",
            f"The LVM stripe size {format_size_compact(stripe)} is not a multiple of the {what} "
            f"{format_size_compact(target)}, so each LVM stripe costs {cost}.",
            "lvm.stripe_size",
        )
    if parity and full & (full - 1):
        add(
            "info",
            "lvm",
            f"The LUN full stripe {format_size_compact(full)} is not a power of two, and lvcreate -I must be "
            "one, so no LVM stripe size can match it; linear LVM keeps full-stripe alignment.",
            "lvm.mode",
        )


def _check_lun_linear_lv(lun: Under, lv: LvmGeometry, add: Callable[..., None]) -> None:
    """A linear LV continues on the next PV at the LV offset where the previous one ended: the
    filesystem's stripe units stay on the LUN's stripes only if that offset is a whole stripe."""
    full = lun.io_opt
    offset = 0
    for taken in lv.lv_pv_extents[:-1]:
        offset += taken * lv.extent_bytes
        if offset % full:
            add(
                "warning",
                "lvm",
                f"The linear LV moves to the next LUN at {offset} bytes, not a multiple of the LUN full "
                f"stripe {format_size_compact(full)}, so the filesystem's stripe units straddle the "
                f"controller's stripes there; an extent size that is a multiple of "
                f"{format_size_compact(full)} keeps them aligned.",
                "lvm.extent_size",
            )
            return
