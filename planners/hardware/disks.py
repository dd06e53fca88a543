"""What each disk can do: the disk classes' presets, a plan's overrides, a LUN of a RAID controller, and a disk's
figures resolved from the three.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from planners.errors import PlanError
from planners.hardware.bounds import MAX_MICROSECONDS, Frozen, Hours, MbPerS, PerSecond
from planners.hardware.prices import Price, Watts, dump_without_unset
from planners.schemes import Scheme, lun_scheme

DiskClassName = Literal["hdd5400", "hdd7200", "hdd10k", "hdd15k", "ssd-sata", "nvme"]


class Lun(BaseModel):
    """A device a RAID controller or an array builds from several disks: to md and LVM one disk.

    The spec's other figures then describe one of its disks (a spindle); podplan adds them up.
    """

    model_config = Frozen

    disks: int = Field(ge=1, le=64, description="Disks the controller builds the LUN from (count).")
    level: Literal[0, 1, 5, 6, 10] = Field(5, description="The controller's RAID level for the LUN.")
    strip: int = Field(64 * 1024, ge=4096, le=1 << 30, description="The controller's strip (chunk) per disk, bytes.")
    rebuild_hours: Hours = Field(
        24.0,
        description="Hours the controller needs to rebuild a failed disk "
        "onto its spare (a day: a slow background rebuild).",
    )
    exports_geometry: bool = Field(
        True,
        description="True: the controller's driver exports the strip and full stripe as the LUN's io_min and io_opt. "
        "False: it exports none (cciss/hpsa on a Smart Array P800: io_min/io_opt 0), so the kernel's readahead "
        "stays at its 128 KiB default and mkfs aligns to no stripe unless the plan's filesystem gives "
        "stripe_unit and stripe_width, which the script then passes.",
    )

    @model_validator(mode="after")
    def _valid(self) -> Lun:
        scheme = self.scheme
        if self.disks < scheme.min_members or (scheme.even_members and self.disks % 2):
            raise PlanError(f"a RAID{self.level} LUN of {self.disks} disks cannot be built", "hardware.disk.lun.disks")
        if self.strip & (self.strip - 1):
            raise PlanError("a LUN's strip must be a power of two", "hardware.disk.lun.strip")
        return self

    @property
    def scheme(self) -> Scheme:
        """The controller's level as a scheme (its mirrors are pairs of disks)."""
        return lun_scheme(self.level)

    @property
    def data_disks(self) -> int:
        """Disks' worth of data in each stripe (what sequential transfers scale with)."""
        return int(self.scheme.data_members(self.disks))

    @property
    def write_ios(self) -> int:
        """Disk I/Os one small random write costs: 1, 2 copies, or read-modify-write of data and parity."""
        return self.scheme.small_write_ios(self.disks)


class DiskSpec(BaseModel):
    """What one disk model does. Every field left out comes from its class preset."""

    model_config = Frozen

    disk_class: DiskClassName = Field("hdd7200", description="Preset the other fields default to.")
    seq_outer_mb_s: MbPerS | None = Field(None, description="Sequential transfer at the outer zone (start), MB/s.")
    seq_inner_mb_s: MbPerS | None = Field(None, description="Sequential transfer at the inner zone (end), MB/s.")
    rand_read_iops: PerSecond | None = Field(
        None, description="Random 4 KiB reads per second over the whole disk; HDD: at queue depth 1, SSD: saturated."
    )
    rand_write_iops: PerSecond | None = Field(None, description="Random 4 KiB writes per second, as rand_read_iops.")
    rpm: int | None = Field(
        None, ge=0, le=30000, description="Spindle speed in revolutions per minute; 0 for SSD/NVMe."
    )
    parallelism: int | None = Field(
        None, ge=1, le=65536, description="Requests the disk serves at once (count): 1 for HDD, flash channels for SSD."
    )
    afr: float | None = Field(
        None,
        ge=1e-6,
        lt=1,
        description="Annual failure rate as a fraction (0.02 = 2 %/year), at least one in a million.",
    )
    ure_per_bit: float | None = Field(None, gt=0, lt=1, description="Unrecoverable read errors per bit read.")
    latency_us: float | None = Field(
        None,
        ge=0,
        le=MAX_MICROSECONDS,
        description="Fixed cost of one request that needs no positioning, "
        "microseconds: flash's datasheet access latency; 0 for a "
        "spinning disk, whose look-ahead and write cache hide it on "
        "sequential requests.",
    )
    rand_read_latency_us: float | None = Field(
        None,
        ge=0,
        le=MAX_MICROSECONDS,
        description="Flash: one random 4 KiB read alone (queue depth 1), the datasheet's random read "
        "latency, microseconds; 0 = not known (the channels' share of the rated IOPS stands in).",
    )
    rand_write_latency_us: float | None = Field(
        None,
        ge=0,
        le=MAX_MICROSECONDS,
        description="Flash: one random 4 KiB write alone, the datasheet's random write latency "
        "(a drive with power-loss protection acknowledges from its cache), microseconds; 0 = not known.",
    )
    flush_us: float | None = Field(
        None,
        ge=0,
        le=MAX_MICROSECONDS,
        description="What a cache flush adds to a write that carries one (md's bitmap and superblock "
        "writes: REQ_PREFLUSH | REQ_FUA; fsync, fdatasync), microseconds; 0 for a drive without a "
        "volatile write cache (power-loss protected flash), whose flushes the kernel drops. Flash "
        "left to its class: 0, with the range widened down to a client drive's 3.5 ms.",
    )
    lun: Lun | None = Field(
        None,
        description="Set when each 'disk' of this model is a hardware RAID LUN; the "
        "other figures then describe one disk inside it.",
    )
    pcie_lanes: int | None = Field(
        None, ge=0, le=16, description="Lanes of the drive's own PCIe link (NVMe: 4; 0 = on the wiring's link), count."
    )
    queue_depth: int | None = Field(
        None,
        ge=1,
        le=65536,
        description="Requests the device takes at once (/sys/block/X/device/queue_depth; SATA NCQ: 32), count.",
    )
    price: Price | None = Field(
        None, description="What one disk costs, in [hardware.cost]'s currency (a LUN: one of its disks)."
    )
    watts_idle: Watts | None = Field(None, description="One disk spinning, doing nothing (datasheet idle), watts.")
    watts_active: Watts | None = Field(None, description="One disk reading and writing (datasheet operating), watts.")

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> object:
        return dump_without_unset(self, handler, COST_FIELDS)


COST_FIELDS = ("price", "watts_idle", "watts_active")
"""DiskSpec's figures that are no disk's speed or odds: planners.cost reads them, the models leave them."""


class DiskPerf(BaseModel):
    """Per-disk figures measured on the real disks (fio on one raw member); they replace the class's.

    Measured figures are taken as flat: no zone or short-stroke correction is applied to them.
    """

    model_config = Frozen

    seq_read_mb_s: MbPerS = Field(description="Sequential read of one disk, MB/s.")
    seq_write_mb_s: MbPerS = Field(description="Sequential write of one disk, MB/s.")
    rand_read_iops: PerSecond = Field(description="Random reads per second of one disk at the measured queue depth.")
    rand_write_iops: PerSecond = Field(description="Random writes per second of one disk at the measured queue depth.")


class ResolvedDisk(BaseModel):
    """A disk with every figure filled in (class preset overlaid with the plan's overrides)."""

    model_config = ConfigDict(frozen=True)

    seq_outer_mb_s: float = Field(description="Outer-zone sequential transfer, MB/s.")
    seq_inner_mb_s: float = Field(description="Inner-zone sequential transfer, MB/s.")
    seq_write_factor: float = Field(1.0, description="Write speed / read speed (1 for HDD), ratio.")
    rand_read_iops: float = Field(description="Random reads per second (see DiskSpec).")
    rand_write_iops: float = Field(description="Random writes per second (see DiskSpec).")
    rpm: int = Field(description="Spindle speed, rpm; 0 for flash.")
    parallelism: int = Field(description="Requests served at once, count.")
    afr: float = Field(description="Annual failure rate, fraction.")
    ure_per_bit: float = Field(description="Unrecoverable read errors per bit read.")
    measured: bool = Field(False, description="True when the figures came from a DiskPerf measurement (flat).")
    latency_us: float = Field(0.0, description="Fixed cost of a request needing no positioning, microseconds.")
    rand_read_latency_us: float = Field(0.0, description="Flash: one random read alone, microseconds; 0 = unknown.")
    rand_write_latency_us: float = Field(0.0, description="Flash: one random write alone, microseconds; 0 = unknown.")
    flush_us: float = Field(0.0, description="A cache flush's cost on a write carrying one, microseconds (DiskSpec).")
    spread: float = Field(
        0.0,
        description="How far real disks of the class stray from the preset's sequential speeds, as a "
        "fraction either way (0.25 = -25 %..+25 %): the class's spread, a datasheet's or a measurement's.",
    )
    rand_spread: float = Field(
        0.0,
        description="The same for the random figures (rand_read_iops, rand_write_iops, flash latency), "
        "which a plan may state apart from the sequential ones, fraction.",
    )
    disk_class: str = Field("", description="The class preset the figures the plan left out come from.")
    stated: tuple[str, ...] = Field((), description="The speed figures the plan stated, not the preset.")
    spindles: int = Field(
        1,
        description="Disks behind the device serving random requests side by side "
        "(a hardware RAID LUN's disks; 1 for a plain disk), count.",
    )
    write_ios: int = Field(
        1, description="Disk I/Os a small random write costs inside the device (a LUN's RAID), count."
    )
    data_disks: int = Field(
        1, description="Disks' worth of data the device's sequential rates add up (a LUN's), count."
    )
    strip: int = Field(
        0,
        description="A LUN's strip, bytes: a request smaller than its full stripe moves on only the "
        "disks it covers; 0 = not a LUN.",
    )
    pcie_lanes: int = Field(
        0,
        description="Lanes of the drive's own PCIe link (an NVMe drive: 4), at the host's PCIe "
        "generation; 0 = behind the wiring's SATA/SAS/FC link, count.",
    )
    queue_depth: int = Field(
        32,
        description="Requests the device takes at once (SATA NCQ: 32 tags); more wait in "
        "the kernel's scheduler, where adjacent ones merge, count.",
    )
    lun: Lun | None = Field(
        None,
        description="The controller's array behind the device when it is a LUN (its afr and ure_per_bit "
        "are then its disks'); None for a plain disk.",
    )


# Datasheet-typical figures for current drives of each class. HDD random IOPS are queue-depth-1
# figures over the full stroke (average seek + half a rotation); flash figures are saturated.
# Flash latency: Intel DC S3700 datasheet (50 us read), Intel DC P3700 datasheet (20 us).
# Random access latency at queue depth 1 (a read waits for its NAND page; a write is acknowledged
# from the drive's power-protected cache): NVMe, Intel DC P4500 (TLC) 85 us read, 20 us write
# (Lenovo's P4500 product guide, "read/write access latency random"); SATA, Intel DC S4500 110 us
# read, 52 us write (Intel's S4500/S4600 product specification, "random latency (typ.)").
# Cache flushes (flush_us, what md's REQ_PREFLUSH | REQ_FUA bitmap writes pay): 0 for every class.
# The flash presets are power-loss protected drives (Intel DC P4500 and S4500: "enhanced power-loss
# data protection", their product briefs). An NVMe drive like the P4500 reports no volatile write
# cache, so the block layer drops both flags (submit_bio_noacct, block/blk-core.c); a SATA one
# reports its cache, but a flush finds nothing volatile to write (its own round trip is not priced:
# an assumption). A spinning disk's cache is volatile, but
# the model already prices each of its random writes as reaching the platter (a positioning each),
# which is what the flush forces: no positioning of its own (where the bitmap lies and the slowest
# member's sector: planners.perf.bitmap.hdd_page_s). A flash drive with a volatile cache (client
# NVMe) states its flush cost; left out, a figure resting on flushes gets a range down to a client
# drive's published 3.5 ms (planners.perf.flush).
# Spread: the outer-zone rates of the class's drives in vendors' datasheets, 2008-2020
# (5400: 100-200 MB/s, 7200: 120-270, 10k: 130-240, 15k: 160-300, SATA SSD 450-560, NVMe 2000-7000),
# as a fraction either way of the preset.
DISK_CLASSES: dict[str, ResolvedDisk] = {
    "hdd5400": ResolvedDisk(
        seq_outer_mb_s=180,
        seq_inner_mb_s=90,
        rand_read_iops=60,
        rand_write_iops=60,
        rpm=5400,
        parallelism=1,
        afr=0.02,
        ure_per_bit=1e-14,
        latency_us=0,
        spread=0.33,
    ),
    "hdd7200": ResolvedDisk(
        seq_outer_mb_s=220,
        seq_inner_mb_s=110,
        rand_read_iops=80,
        rand_write_iops=80,
        rpm=7200,
        parallelism=1,
        afr=0.02,
        ure_per_bit=1e-14,
        latency_us=0,
        spread=0.35,
    ),
    "hdd10k": ResolvedDisk(
        seq_outer_mb_s=230,
        seq_inner_mb_s=140,
        rand_read_iops=140,
        rand_write_iops=140,
        rpm=10000,
        parallelism=1,
        afr=0.01,
        ure_per_bit=1e-16,
        latency_us=0,
        spread=0.3,
    ),
    "hdd15k": ResolvedDisk(
        seq_outer_mb_s=250,
        seq_inner_mb_s=170,
        rand_read_iops=190,
        rand_write_iops=190,
        rpm=15000,
        parallelism=1,
        afr=0.01,
        ure_per_bit=1e-16,
        latency_us=0,
        spread=0.3,
    ),
    "ssd-sata": ResolvedDisk(
        seq_outer_mb_s=540,
        seq_inner_mb_s=540,
        seq_write_factor=0.93,
        rand_read_iops=90000,
        rand_write_iops=80000,
        rpm=0,
        parallelism=8,
        afr=0.01,
        ure_per_bit=1e-17,
        latency_us=50,
        rand_read_latency_us=110,
        rand_write_latency_us=52,
        spread=0.1,
    ),
    "nvme": ResolvedDisk(
        seq_outer_mb_s=3500,
        seq_inner_mb_s=3500,
        seq_write_factor=0.85,
        rand_read_iops=600000,
        rand_write_iops=500000,
        rpm=0,
        parallelism=64,
        afr=0.01,
        ure_per_bit=1e-17,
        latency_us=20,
        rand_read_latency_us=85,
        rand_write_latency_us=20,
        spread=0.5,
        pcie_lanes=4,
    ),
}


# A datasheet's figures for the very model: drives of one model differ by about this much
# (sequential rates are "up to" figures; unit-to-unit variation of a few to ten percent).
DATASHEET_SPREAD = 0.1
# A disk measured with fio: the same job on the same disk repeats within a coefficient of
# variation of about 5 % (podplan validate's repeatability target, benchmarks/bench_validate.py),
# so two of them either way.
MEASURED_SPREAD = 0.1


def resolve_disk(spec: DiskSpec, measured: DiskPerf | None = None) -> ResolvedDisk:
    base = DISK_CLASSES[spec.disk_class]
    given = {k: v for k, v in spec.model_dump(exclude={"disk_class", *COST_FIELDS}).items() if v is not None}
    if "seq_outer_mb_s" in given and "spread" not in given:
        given["spread"] = min(base.spread, DATASHEET_SPREAD)
    # The random figures keep the class's spread until the plan states them (a datasheet's IOPS).
    rand_stated = "rand_read_iops" in given or "rand_write_iops" in given
    given["rand_spread"] = min(base.spread, DATASHEET_SPREAD) if rand_stated else base.spread
    disk = base.model_copy(update={**given, "disk_class": spec.disk_class, "stated": tuple(sorted(given))})
    if disk.seq_inner_mb_s > disk.seq_outer_mb_s:
        raise PlanError("a disk's inner zone cannot be faster than its outer zone", "hardware.disk.seq_inner_mb_s")
    if spec.lun is not None and measured is None:
        lun = spec.lun
        disk = disk.model_copy(
            update=dict(
                seq_outer_mb_s=disk.seq_outer_mb_s * lun.data_disks,
                seq_inner_mb_s=disk.seq_inner_mb_s * lun.data_disks,
                spindles=lun.disks,
                write_ios=lun.write_ios,
                data_disks=lun.data_disks,
                strip=lun.strip,
                parallelism=disk.parallelism * lun.disks,
                lun=lun,
            )
        )
    if measured is not None:
        disk = disk.model_copy(
            update=dict(
                seq_outer_mb_s=measured.seq_read_mb_s,
                seq_inner_mb_s=measured.seq_read_mb_s,
                seq_write_factor=measured.seq_write_mb_s / measured.seq_read_mb_s,
                rand_read_iops=measured.rand_read_iops,
                rand_write_iops=measured.rand_write_iops,
                measured=True,
                spread=MEASURED_SPREAD,
                rand_spread=MEASURED_SPREAD,
                lun=spec.lun,  # measured speeds, but its odds still come from its disks
            )
        )
    return disk
