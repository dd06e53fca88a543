"""The hardware under a plan: what each disk can do, what it shares a wire with, the host's CPU.

The capacity arithmetic needs only sizes; the performance and reliability models need
speeds, failure rates and the wiring. Every figure has a preset (a disk class, a CPU class)
that any plan can override, because datasheets and kernel logs beat defaults.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from planners.errors import PlanError

Frozen = ConfigDict(frozen=True, extra="forbid")

DiskClassName = Literal["hdd5400", "hdd7200", "hdd10k", "hdd15k", "ssd-sata", "nvme"]


class DiskSpec(BaseModel):
    """What one disk model does. Every field left out comes from its class preset."""

    model_config = Frozen

    disk_class: DiskClassName = Field("hdd7200", description="Preset the other fields default to.")
    seq_outer_mb_s: float | None = Field(None, gt=0, description="Sequential transfer at the outer zone (start), MB/s.")
    seq_inner_mb_s: float | None = Field(None, gt=0, description="Sequential transfer at the inner zone (end), MB/s.")
    rand_read_iops: float | None = Field(
        None, gt=0, description="Random 4 KiB reads per second over the whole disk; HDD: at queue depth 1, SSD: saturated.")
    rand_write_iops: float | None = Field(None, gt=0, description="Random 4 KiB writes per second, as rand_read_iops.")
    rpm: int | None = Field(None, ge=0, description="Spindle speed in revolutions per minute; 0 for SSD/NVMe.")
    parallelism: int | None = Field(
        None, ge=1, description="Requests the disk serves at once (count): 1 for HDD, flash channels for SSD.")
    afr: float | None = Field(None, gt=0, lt=1, description="Annual failure rate as a fraction (0.02 = 2 %/year).")
    ure_per_bit: float | None = Field(None, gt=0, lt=1, description="Unrecoverable read errors per bit read.")


class DiskPerf(BaseModel):
    """Per-disk figures measured on the real disks (fio on one raw member); they replace the class's.

    Measured figures are taken as flat: no zone or short-stroke correction is applied to them.
    """

    model_config = Frozen

    seq_read_mb_s: float = Field(gt=0, description="Sequential read of one disk, MB/s.")
    seq_write_mb_s: float = Field(gt=0, description="Sequential write of one disk, MB/s.")
    rand_read_iops: float = Field(gt=0, description="Random reads per second of one disk at the measured queue depth.")
    rand_write_iops: float = Field(gt=0, description="Random writes per second of one disk at the measured queue depth.")


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


# Datasheet-typical figures for current drives of each class. HDD random IOPS are queue-depth-1
# figures over the full stroke (average seek + half a rotation); flash figures are saturated.
DISK_CLASSES: dict[str, ResolvedDisk] = {
    "hdd5400": ResolvedDisk(seq_outer_mb_s=180, seq_inner_mb_s=90, rand_read_iops=60, rand_write_iops=60, rpm=5400,
                            parallelism=1, afr=0.02, ure_per_bit=1e-14),
    "hdd7200": ResolvedDisk(seq_outer_mb_s=220, seq_inner_mb_s=110, rand_read_iops=80, rand_write_iops=80, rpm=7200,
                            parallelism=1, afr=0.02, ure_per_bit=1e-14),
    "hdd10k": ResolvedDisk(seq_outer_mb_s=230, seq_inner_mb_s=140, rand_read_iops=140, rand_write_iops=140, rpm=10000,
                           parallelism=1, afr=0.01, ure_per_bit=1e-16),
    "hdd15k": ResolvedDisk(seq_outer_mb_s=250, seq_inner_mb_s=170, rand_read_iops=190, rand_write_iops=190, rpm=15000,
                           parallelism=1, afr=0.01, ure_per_bit=1e-16),
    "ssd-sata": ResolvedDisk(seq_outer_mb_s=540, seq_inner_mb_s=540, seq_write_factor=0.93, rand_read_iops=90000,
                             rand_write_iops=80000, rpm=0, parallelism=8, afr=0.01, ure_per_bit=1e-17),
    "nvme": ResolvedDisk(seq_outer_mb_s=3500, seq_inner_mb_s=3500, seq_write_factor=0.85, rand_read_iops=600000,
                         rand_write_iops=500000, rpm=0, parallelism=64, afr=0.01, ure_per_bit=1e-17),
}


def resolve_disk(spec: DiskSpec, measured: DiskPerf | None = None) -> ResolvedDisk:
    base = DISK_CLASSES[spec.disk_class]
    given = {k: v for k, v in spec.model_dump(exclude={"disk_class"}).items() if v is not None}
    disk = base.model_copy(update=given)
    if disk.seq_inner_mb_s > disk.seq_outer_mb_s:
        raise PlanError("a disk's inner zone cannot be faster than its outer zone", "hardware.disk.seq_inner_mb_s")
    if measured is not None:
        disk = disk.model_copy(update=dict(
            seq_outer_mb_s=measured.seq_read_mb_s, seq_inner_mb_s=measured.seq_read_mb_s,
            seq_write_factor=measured.seq_write_mb_s / measured.seq_read_mb_s,
            rand_read_iops=measured.rand_read_iops, rand_write_iops=measured.rand_write_iops, measured=True))
    return disk


LinkKind = Literal["sata1", "sata2", "sata3", "sas2", "sas3", "sas4", "direct"]
# Payload MB/s a link carries after line coding and frame overhead (8b/10b costs 20 %, FIS/frame
# headers a few % more); "direct" means no shared link worth modelling (NVMe on its own lanes).
LINK_MB_S: dict[str, float] = {"sata1": 135.0, "sata2": 270.0, "sata3": 550.0, "sas2": 550.0, "sas3": 1100.0,
                               "sas4": 2200.0, "direct": 1e12}
# PCIe payload per lane, MB/s: the raw rate after line coding, less ~15 % for packet headers.
PCIE_LANE_MB_S: dict[int, float] = {1: 212.0, 2: 425.0, 3: 837.0, 4: 1674.0, 5: 3348.0}


class Wiring(BaseModel):
    """How the disks reach the host: groups of disks sharing one link, links sharing HBAs.

    Disks are dealt to links in plan order (disks 1-5 on the first port multiplier, ...),
    and links to HBAs evenly; that is how pods are cabled.
    """

    model_config = Frozen

    link: LinkKind = Field("sata3", description="The link each group of disks shares.")
    disks_per_link: int = Field(1, ge=1, le=128, description="Disks sharing one link (5 behind a SATA port multiplier).")
    link_mb_s: float | None = Field(None, gt=0, description="Override of the link's payload rate, MB/s.")
    hbas: int = Field(0, ge=0, le=64, description="Host adapters the links are spread over; 0 = not modelled.")
    pcie_gen: int = Field(3, ge=1, le=5, description="PCIe generation of each HBA slot.")
    pcie_lanes: int = Field(8, ge=1, le=16, description="PCIe lanes of each HBA slot (count).")
    hba_mb_s: float | None = Field(None, gt=0, description="Override of one HBA's ceiling, MB/s (e.g. a PCI card: 133).")

    @property
    def link_rate(self) -> float:
        return self.link_mb_s or LINK_MB_S[self.link]

    @property
    def hba_rate(self) -> float:
        return self.hba_mb_s or PCIE_LANE_MB_S[self.pcie_gen] * self.pcie_lanes


CpuClassName = Literal["server", "desktop-2010"]


class Cpu(BaseModel):
    """The host's CPU as the storage stack sees it. Unset fields come from the class preset."""

    model_config = Frozen

    cpu_class: CpuClassName = Field("server", description="Preset the other fields default to.")
    cores: int | None = Field(None, ge=1, description="CPU cores (count).")
    raid6_gen_mb_s: float | None = Field(None, gt=0, description="Kernel log `raid6: ... gen() N MB/s`, MB/s of data.")
    xor_mb_s: float | None = Field(None, gt=0, description="Kernel log `xor: ... N MB/sec`, MB/s of data.")
    md_thread_mb_s: float | None = Field(
        None, gt=0, description="Data one md raid4/5/6 thread pushes through its stripe cache (state machine and "
                                "copies, parity aside), MB/s.")
    buffered_write_mb_s: float | None = Field(
        None, gt=0, description="One buffered writer through the page cache (copy, allocation, dirty accounting, "
                                "writeback submission), MB/s.")
    buffered_read_mb_s: float | None = Field(None, gt=0, description="One buffered reader's copy-out ceiling, MB/s.")


class ResolvedCpu(BaseModel):
    model_config = ConfigDict(frozen=True)

    cores: int = Field(description="CPU cores, count.")
    raid6_gen_mb_s: float = Field(description="RAID6 syndrome generation, MB/s of data.")
    xor_mb_s: float = Field(description="RAID5 xor, MB/s of data.")
    md_thread_mb_s: float = Field(description="One md stripe thread, MB/s of data.")
    buffered_write_mb_s: float = Field(description="One buffered writer, MB/s.")
    buffered_read_mb_s: float = Field(description="One buffered reader, MB/s.")


# "desktop-2010" is the host class of the published pods (Core i3/Core 2, kernel 2.6.32): its one
# buffered writer stalls near 420 MB/s, which R1 measured on RAID0, RAID5 and RAID6 alike.
CPU_CLASSES: dict[str, ResolvedCpu] = {
    "server": ResolvedCpu(cores=16, raid6_gen_mb_s=12000, xor_mb_s=20000, md_thread_mb_s=1400,
                          buffered_write_mb_s=1800, buffered_read_mb_s=3500),
    "desktop-2010": ResolvedCpu(cores=2, raid6_gen_mb_s=4500, xor_mb_s=6000, md_thread_mb_s=600,
                                buffered_write_mb_s=420, buffered_read_mb_s=1500),
}


def resolve_cpu(cpu: Cpu) -> ResolvedCpu:
    given = {k: v for k, v in cpu.model_dump(exclude={"cpu_class"}).items() if v is not None}
    return CPU_CLASSES[cpu.cpu_class].model_copy(update=given)


class MdKnobs(BaseModel):
    """md settings that change speed but not layout."""

    model_config = Frozen

    group_thread_cnt: int = Field(0, ge=0, le=64, description="md/group_thread_cnt: extra stripe threads (0 = one).")
    speed_limit_min_kib_s: int = Field(1000, ge=1, description="/proc/sys/dev/raid/speed_limit_min, KiB/s.")
    speed_limit_max_kib_s: int = Field(200000, ge=1, description="/proc/sys/dev/raid/speed_limit_max, KiB/s.")

    @model_validator(mode="after")
    def _valid(self) -> MdKnobs:
        if self.speed_limit_min_kib_s > self.speed_limit_max_kib_s:
            raise PlanError("speed_limit_min is above speed_limit_max", "hardware.md.speed_limit_min_kib_s")
        return self


class Hardware(BaseModel):
    """Disks' speeds and failure rates, wiring, CPU, memory, md knobs; defaults describe a plain server."""

    model_config = Frozen

    disk: DiskSpec = Field(default_factory=DiskSpec, description="Figures for every disk without a model entry.")
    models: dict[str, DiskSpec] = Field(
        default_factory=dict, description="Figures per disk model, keyed by a disk set's `model` text.")
    wiring: Wiring = Field(default_factory=Wiring, description="Links and host adapters.")
    cpu: Cpu = Field(default_factory=Cpu, description="Host CPU.")
    memory_bytes: int = Field(64 << 30, ge=1 << 28, description="Host memory, in bytes.")
    md: MdKnobs = Field(default_factory=MdKnobs, description="md speed knobs.")
    write_cache_mb_s: float | None = Field(
        None, gt=0, description="A declared write-back cache in front of the disks (battery-backed controller): "
                                "the rate it absorbs writes at, MB/s; None = no such cache.")
    replace_hours: float = Field(72.0, gt=0, description="Hours from a failure to a replacement disk being inserted "
                                                          "(unused when a hot spare takes over).")

    def disk_spec(self, model: str) -> DiskSpec:
        return self.models.get(model, self.disk)
