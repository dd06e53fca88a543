"""The machine around the disks: the wiring they share, the host's CPU, a RAID controller, md's knobs, and
Hardware, which gathers them with the disks; each with its class presets.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from planners.errors import PlanError
from planners.hardware.bounds import INT32_MAX, MAX_MICROSECONDS, Frozen, Hours, MbPerS
from planners.hardware.controllers import CONTROLLERS as CONTROLLERS
from planners.hardware.controllers import Controller as Controller
from planners.hardware.controllers import ControllerKind as ControllerKind
from planners.hardware.controllers import ResolvedController as ResolvedController
from planners.hardware.controllers import resolve_controller as resolve_controller
from planners.hardware.disks import DiskSpec
from planners.hardware.generations import CpuGeneration, cpu_figures
from planners.hardware.platform import Platform
from planners.hardware.prices import PodCost, dump_without_unset
from planners.names import check_text

LinkKind = Literal[
    "sata1",
    "sata2",
    "sata3",
    "sas2",
    "sas3",
    "sas4",
    "fc1",
    "fc2",
    "fc4",
    "fc8",
    "fc16",
    "fc32",
    "ultra160",
    "ultra320",
    "direct",
]
# Payload MB/s a link carries after line coding and frame overhead (8b/10b costs 20 %, FIS/frame
# headers a few % more); "direct" means no shared link worth modelling (NVMe on its own lanes).
# Fibre Channel: the nominal throughput per direction of FC-PI's speed variants (1GFC 100 MB/s,
# 2GFC 200, 4GFC 400, 8GFC 800, 16GFC 1600, 32GFC 3200). Parallel SCSI: the bus's rate as SPI-3
# (Ultra160) and SPI-4 (Ultra320) define it, shared by every device on the bus.
LINK_MB_S: dict[str, float] = {
    "sata1": 135.0,
    "sata2": 270.0,
    "sata3": 550.0,
    "sas2": 550.0,
    "sas3": 1100.0,
    "sas4": 2200.0,
    "fc1": 100.0,
    "fc2": 200.0,
    "fc4": 400.0,
    "fc8": 800.0,
    "fc16": 1600.0,
    "fc32": 3200.0,
    "ultra160": 160.0,
    "ultra320": 320.0,
    "direct": 1e12,
}
# PCIe payload per lane, MB/s: the raw rate after line coding, less ~15 % for packet headers.
PCIE_LANE_MB_S: dict[int, float] = {1: 212.0, 2: 425.0, 3: 837.0, 4: 1674.0, 5: 3348.0}


class Wiring(BaseModel):
    """How the disks reach the host: groups of disks sharing one link, links sharing HBAs.

    Disks are dealt to links in plan order (disks 1-5 on the first port multiplier, ...),
    and links to HBAs evenly; that is how pods are cabled.
    """

    model_config = Frozen

    link: LinkKind = Field("sata3", description="The link each group of disks shares.")
    disks_per_link: int = Field(
        1, ge=1, le=128, description="Disks sharing one link (5 behind a SATA port multiplier)."
    )
    link_mb_s: MbPerS | None = Field(None, description="Override of the link's payload rate, MB/s.")
    hbas: int = Field(0, ge=0, le=64, description="Host adapters the links are spread over; 0 = not modelled.")
    pcie_gen: int = Field(3, ge=1, le=5, description="PCIe generation of each HBA slot.")
    pcie_lanes: int = Field(8, ge=1, le=16, description="PCIe lanes of each HBA slot (count).")
    hba_mb_s: MbPerS | None = Field(None, description="Override of one HBA's ceiling, MB/s (e.g. a PCI card: 133).")

    @property
    def link_rate(self) -> float:
        return self.link_mb_s or LINK_MB_S[self.link]

    @property
    def hba_rate(self) -> float:
        return self.hba_mb_s or PCIE_LANE_MB_S[self.pcie_gen] * self.pcie_lanes


# The two classes, and parts by generation (planners.hardware.generations).
CpuClassName = Literal["server", "desktop-2010"] | CpuGeneration


class Cpu(BaseModel):
    """The host's CPU as the storage stack sees it. Unset fields come from the class preset."""

    model_config = Frozen

    cpu_class: CpuClassName = Field("server", description="Preset the other fields default to.")
    cores: int | None = Field(None, ge=1, le=65536, description="CPU cores (count).")
    raid6_gen_mb_s: MbPerS | None = Field(None, description="Kernel log `raid6: ... gen() N MB/s`, MB/s of data.")
    xor_mb_s: MbPerS | None = Field(None, description="Kernel log `xor: ... N MB/sec`, MB/s of data.")
    md_thread_mb_s: MbPerS | None = Field(
        None,
        description="Data one md raid4/5/6 thread pushes through its stripe cache (state machine and "
        "copies, parity aside), MB/s.",
    )
    buffered_write_mb_s: MbPerS | None = Field(
        None,
        description="One buffered writer through the page cache (copy, allocation, dirty accounting, "
        "writeback submission), MB/s.",
    )
    buffered_read_mb_s: MbPerS | None = Field(None, description="One buffered reader's copy-out ceiling, MB/s.")
    crc32c_mb_s: MbPerS | None = Field(
        None, description="crc32c of 4 KiB sectors on one core (btrfs's data checksums), MB/s of data."
    )
    psync_us: float | None = Field(
        None,
        gt=0,
        le=MAX_MICROSECONDS,
        description="CPU one pread/pwrite costs its thread besides the block layer and the "
        "wait (syscall, fio's bookkeeping), microseconds of one core.",
    )
    libaio_us: float | None = Field(
        None, gt=0, le=MAX_MICROSECONDS, description="The same for one libaio request at depth, microseconds."
    )
    io_uring_us: float | None = Field(
        None, gt=0, le=MAX_MICROSECONDS, description="The same for one io_uring request at depth, microseconds."
    )
    wait_us: float | None = Field(
        None,
        gt=0,
        le=MAX_MICROSECONDS,
        description="A thread going to sleep for a completion and being woken (two context switches), microseconds.",
    )
    block_request_us: float | None = Field(
        None,
        gt=0,
        le=MAX_MICROSECONDS,
        description="The block layer and driver's submission, completion and "
        "interrupt for one request to one device, microseconds.",
    )
    bio_remap_us: float | None = Field(
        None,
        gt=0,
        le=MAX_MICROSECONDS,
        description="md (RAID0/1/10, RAID5 reads) or dm passing one bio on to its members, microseconds.",
    )
    md_stripe_io_us: float | None = Field(
        None,
        gt=0,
        le=MAX_MICROSECONDS,
        description="md's raid5/6 thread handling one member I/O of a stripe (state "
        "machine, dispatch, completion), microseconds.",
    )
    fs_dio_us: float | None = Field(
        None,
        gt=0,
        le=MAX_MICROSECONDS,
        description="The filesystem's direct-I/O path for one request to a file (extent lookup, the dio "
        "structure, its completion), beyond the same request to the device, microseconds.",
    )
    reclaim_us: float | None = Field(
        None,
        gt=0,
        le=MAX_MICROSECONDS,
        description="What a buffered reader pays for each 4 KiB page once the page cache is full and every "
        "page read has another reclaimed (its own direct reclaim and the LRU's locks), microseconds.",
    )
    idle_exit_us: float | None = Field(
        None,
        ge=0,
        le=MAX_MICROSECONDS,
        description="How long an idle core takes to leave the idle state it sleeps in between "
        "requests microseconds apart (C1E: the kernel's intel_idle table for the part), before a "
        "thread woken there runs, microseconds.",
    )
    sockets: int | None = Field(
        None, ge=1, le=16, description="CPU sockets, each with its own PCIe lanes and memory channels (count)."
    )
    pcie_gen: int | None = Field(None, ge=1, le=5, description="PCIe generation of the sockets' root ports.")
    pcie_lanes: int | None = Field(None, ge=1, le=256, description="PCIe lanes one socket gives its devices (count).")
    memory_mb_s: MbPerS | None = Field(
        None, description="Memory bandwidth one socket sustains (a STREAM-like copy, not the channels' peak), MB/s."
    )
    line_transfer_ns: float | None = Field(
        None,
        gt=0,
        le=MAX_MICROSECONDS,
        description="A cache line written by one core moving to another core of the same socket that "
        "shares no cache with it (core-to-core latency), nanoseconds.",
    )
    socket_transfer_ns: float | None = Field(
        None, gt=0, le=MAX_MICROSECONDS, description="The same between cores of two sockets, nanoseconds."
    )
    socket_link_mb_s: MbPerS | None = Field(
        None, description="The links between two sockets, one way (a remote read), MB/s."
    )


class ResolvedCpu(BaseModel):
    model_config = ConfigDict(frozen=True)

    cores: int = Field(description="CPU cores, count.")
    raid6_gen_mb_s: float = Field(description="RAID6 syndrome generation, MB/s of data.")
    xor_mb_s: float = Field(description="RAID5 xor, MB/s of data.")
    md_thread_mb_s: float = Field(description="One md stripe thread, MB/s of data.")
    buffered_write_mb_s: float = Field(description="One buffered writer, MB/s.")
    buffered_read_mb_s: float = Field(description="One buffered reader, MB/s.")
    crc32c_mb_s: float = Field(32000.0, description="crc32c of 4 KiB sectors on one core, MB/s of data.")
    psync_us: float = Field(1.1, description="One pread/pwrite's own CPU, microseconds (see Cpu).")
    libaio_us: float = Field(2.0, description="One libaio request's own CPU at depth, microseconds.")
    io_uring_us: float = Field(1.2, description="One io_uring request's own CPU at depth, microseconds.")
    wait_us: float = Field(3.3, description="Sleeping for a completion and being woken, microseconds.")
    block_request_us: float = Field(1.2, description="Block layer and driver per device request, microseconds.")
    bio_remap_us: float = Field(0.5, description="md or dm passing a bio on, microseconds.")
    md_stripe_io_us: float = Field(2.2, description="md's raid5/6 thread per member I/O, microseconds.")
    fs_dio_us: float = Field(0.21, description="A filesystem's direct-I/O path per request to a file, microseconds.")
    reclaim_us: float = Field(0.54, description="A buffered reader's cost per page reclaimed, microseconds.")
    idle_exit_us: float = Field(4.0, description="An idle core's exit from C1E, microseconds (see Cpu).")
    sockets: int = Field(1, description="CPU sockets, count.")
    pcie_gen: int = Field(4, description="PCIe generation of the root ports.")
    pcie_lanes: int = Field(64, description="PCIe lanes per socket, count.")
    memory_mb_s: float = Field(160000.0, description="Sustained memory bandwidth per socket, MB/s.")
    line_transfer_ns: float = Field(51.0, description="Cache line between two cores of a socket, nanoseconds.")
    socket_transfer_ns: float = Field(108.0, description="Cache line between two sockets, nanoseconds.")
    socket_link_mb_s: float = Field(55000.0, description="Inter-socket links one way, MB/s (0: none).")
    spread: float = Field(0.0, description="How far CPUs of the class stray from the preset's figures, fraction.")
    request_spread: float = Field(0.5, description="How far the per-request CPU figures stray, fraction.")
    stated: tuple[str, ...] = Field((), description="Figures the plan (or the host's kernel log) gave, not the preset.")


# One buffered writer is bound by its copy into the page cache and the kernel's bookkeeping: a
# ~3 GHz Westmere / Sandy Bridge core (the desktop-2010 class: Core 2, first Core i3/i5, Xeon
# 5600) writes 1200-1400 MB/s through XFS at 100 % CPU (D. Oostdyk, "high-speed disk I/O is
# CPU-bound?", LKML, May 2013; "limited by the rate your process can memcpy data into the page
# cache", D. Chinner in reply). The server class sits between that and 2.8 GB/s for a 2017
# desktop core (Ryzen 1700) writing to tmpfs, where no filesystem or writeback takes a share.
# md's stripe thread: one raid5d thread wrote ~600 MB/s of sequential data to 9 disks able to take
# 1440 MB/s on an Atom server CPU (S. Li, "raid5: only dispatch IO from raid5d for harddisk raid",
# 2016) — the desktop-2010 class's figure; a current server core is about twice such a core.
# Parity: the kernel's own raid6 gen() and xor benchmarks as printed at boot by CPUs of the class
# (SSE2-era desktop cores 4-6 GB/s, AVX2/AVX-512 server cores 12-20 GB/s); the host's own log,
# when podplan can read it, replaces them.
# crc32c (btrfs's data checksum, one per 4 KiB sector): 32 GB/s on one core of an AMD EPYC virtual
# machine with three interleaved chains of the crc32q instruction per sector, the way the kernel's
# x86 crc32c runs (benchmarks/bench_crc32c.c: 32.4-33.1 GB/s over three runs; one chain alone
# 6.6-9.9 GB/s, the instruction's 3-cycle latency); crc32q issues once a cycle on both vendors'
# cores since Nehalem, so the 2010 class pays the x7/3 of its clock and generation below.
# Spread: one core of the slowest and fastest parts of a class differ about twofold (the kernel's
# own xor and raid6 benchmarks across a class's CPUs), so a class figure is good to about ±40 %.
CPU_SPREAD = 0.4
# CPU per request, in microseconds of one core (server class: a current ~3 GHz x86 core).
# Measured with benchmarks/bench_request_cpu.py on an AMD EPYC virtual machine, kernel 6.18, fio
# 3.33, 4 KiB random direct reads, fio's own usr + sys CPU per request: on a file in tmpfs (no
# block layer) psync 1.1, libaio 2.0, io_uring 1.2 at depth 32; on a loop device over tmpfs
# psync 4.5, libaio 2.7-2.8, io_uring 2.5-2.7. The difference at depth is the block layer's
# submission and completion (0.9-1.6: 1.2); psync's larger difference (3.3) is its thread
# sleeping and being woken for each request. fio with no I/O (ioengine=null) costs 0.1.
# Published: fio at depth 32 on an Optane P5800X, 6 jobs on a Threadripper Pro, 2.59 M IOPS at
# 79 % of 6 cores: 1.8 us a request (Level1Techs, "Toward 20 million I/Ops", 2021); Axboe's
# tuned io_uring on one core, polled, no fio: 3.8 M IOPS, 0.26 us (Phoronix, Sep 2021), the
# floor. md raid5: "raid5 thread must handle > 450k requests per second. Just doing dispatch and
# completion will make raid5 thread incapable" (S. Li, "raid5: make stripe handling multi-
# threading", linux-raid, 2012): 2.2 us per member I/O. md's and dm's remap of a bio (clone,
# split at chunk boundaries, no request of its own) is taken as 0.5, under half the block
# layer's figure: an assumption. The 2010 class pays each figure x7/3, the ratio of the two
# classes' md thread figures (one core's speed at the same kernel work). Spread +/-50 %: the
# measured and published figures above span 1.8-2.8 us for the same request.
# One buffered reader: 32 threads reading 32 drives in 64 KiB buffered reads, each at 100 % of a core
# (3199 % CPU), moved ~157 GB/s while the page cache had room: 4.9 GB/s a reader (copy out, page
# allocation and insertion, readahead), J. Axboe, "mm/filemap: add read support for RWF_UNCACHED"
# (linux-mm, Nov 2024). Once the cache was full the same readers settled at ~95.5 GB/s, 3.0 GB/s each,
# with 32 kswapd threads burning ~28 more cores: each page read has one reclaimed, 4096/2.98e9 -
# 4096/4.9e9 s = 0.54 us a page on the reader's own core (planners.perf.reclaim). The 2010 class takes
# both at its x7/3. Published per-core memory copies sit well above these figures (one pinned thread,
# CacheBench, 64 MiB: Xeon X5660 9,283 MB/s, E5-2670 5,896, E5-2650 v2 6,249; T. Benson, Intel
# community forum, "Single-threaded memory performance for dual socket Xeon E5-* systems", 2014), so a
# reader is bound by the kernel's work per page, not by the copy; a socket's memory (the memory term)
# bounds several.
# A filesystem's direct-I/O path (iomap: the extent lookup, the dio structure, its completion), on top
# of the same request to the device: one core of a Gen5 NVMe host, t/io_uring polled, 4 KiB random
# reads, 3.2 M IOPS on the raw device and 1.92 M on a file on ext4 and on XFS alike (F. Chang, "iomap:
# add simple dio path for small direct I/O", LKML, Jun 2026): 1/1.92 M - 1/3.2 M = 0.21 us a request.
REQUEST_SPREAD = 0.5
# A thread woken on an idle core runs once the core has left its idle state. Between requests tens
# to hundreds of microseconds apart the cpuidle governor keeps a core in C1E (its target residency
# is below such gaps, C6's is not), and the kernel's own table gives C1E's exit latency
# (drivers/idle/intel_idle.c): Ice Lake SP (icx_cstates, the server class's part) 4 us, target
# residency 4 us, C6 128/384 us; Skylake SP (skx_cstates) 10 us; Nehalem/Westmere
# (nehalem_cstates, the 2010 class) 10 us. The generation presets keep the server class's 4 us.
# Cache-line transfers (md's shared counters and locks, planners.perf.md_locks): the median time
# a compare-and-swap takes to reach another core, two threads pinned apart (nviennot,
# core-to-core-latency, README tables, 2022-2023): Xeon Platinum 8375C (Ice Lake SP, the server
# class's part) 51 ns within a socket, 108 ns between two. The 2010 desktop class: Core i5-4590
# (Haswell, four cores on one ring) 21 ns, the oldest Intel desktop part measured there.
# The platform around the cores. Server: one socket of a 2021 server part, Xeon Scalable 3rd gen
# (Ice Lake SP: 64 PCIe 4.0 lanes, 8 channels of DDR4-3200, 204.8 GB/s peak per socket) and
# EPYC 7003 (128 lanes, the same memory); a STREAM copy sustains about 80 % of the peak: 160 GB/s.
# 2010 desktop: a first Core i3/i5 on a 5-series chipset: 16 PCIe 2.0 lanes from the CPU, two
# channels of DDR3-1333 (21.3 GB/s peak, about 70 % sustained: 15 GB/s).
# Between sockets: Ice Lake SP's three UPI links, 55 GB/s one way (planners.hardware.generations' rule).
_SLOW = 7 / 3
CPU_CLASSES: dict[str, ResolvedCpu] = {
    "server": ResolvedCpu(
        cores=16,
        raid6_gen_mb_s=12000,
        xor_mb_s=20000,
        md_thread_mb_s=1400,
        buffered_write_mb_s=1800,
        buffered_read_mb_s=4900,
        spread=CPU_SPREAD,
        request_spread=REQUEST_SPREAD,
    ),
    "desktop-2010": ResolvedCpu(
        cores=2,
        raid6_gen_mb_s=4500,
        xor_mb_s=6000,
        md_thread_mb_s=600,
        buffered_write_mb_s=1300,
        buffered_read_mb_s=4900 / _SLOW,
        spread=CPU_SPREAD,
        psync_us=1.1 * _SLOW,
        libaio_us=2.0 * _SLOW,
        io_uring_us=1.2 * _SLOW,
        wait_us=3.3 * _SLOW,
        block_request_us=1.2 * _SLOW,
        bio_remap_us=0.5 * _SLOW,
        md_stripe_io_us=2.2 * _SLOW,
        fs_dio_us=0.21 * _SLOW,
        reclaim_us=0.54 * _SLOW,
        idle_exit_us=10.0,
        crc32c_mb_s=32000 / _SLOW,
        request_spread=REQUEST_SPREAD,
        pcie_gen=2,
        pcie_lanes=16,
        memory_mb_s=15000,
        line_transfer_ns=21.0,
    ),
}


for _name in get_args(CpuGeneration):
    CPU_CLASSES[_name] = CPU_CLASSES["server"].model_copy(update=cpu_figures(_name, CPU_CLASSES["server"].model_dump()))


def resolve_cpu(cpu: Cpu) -> ResolvedCpu:
    given = {k: v for k, v in cpu.model_dump(exclude={"cpu_class"}).items() if v is not None}
    return CPU_CLASSES[cpu.cpu_class].model_copy(update={**given, "stated": tuple(sorted(given))})


class MdKnobs(BaseModel):
    """md settings that change speed but not layout."""

    model_config = Frozen

    group_thread_cnt: int = Field(0, ge=0, le=64, description="md/group_thread_cnt: extra stripe threads (0 = one).")
    speed_limit_min_kib_s: int = Field(
        1000, ge=1, le=INT32_MAX, description="/proc/sys/dev/raid/speed_limit_min, KiB/s."
    )
    speed_limit_max_kib_s: int = Field(
        200000, ge=1, le=INT32_MAX, description="/proc/sys/dev/raid/speed_limit_max, KiB/s."
    )

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
        default_factory=dict, description="Figures per disk model, keyed by a disk set's `model` text."
    )
    wiring: Wiring = Field(default_factory=Wiring, description="Links and host adapters.")
    cpu: Cpu = Field(default_factory=Cpu, description="Host CPU.")
    memory_bytes: int = Field(64 << 30, ge=1 << 28, le=1 << 52, description="Host memory, in bytes.")
    md: MdKnobs = Field(default_factory=MdKnobs, description="md speed knobs.")
    controller: Controller | None = Field(
        None, description="A RAID adapter or array controller in front of the disks; None = disks on plain HBAs."
    )
    dirty_ratio: float = Field(
        20.0,
        ge=0,
        le=100,
        description="vm.dirty_ratio: dirty page cache, in percent of available memory, at which writers are throttled.",
    )
    dirty_background_ratio: float = Field(
        10.0,
        ge=0,
        le=100,
        description="vm.dirty_background_ratio: percent of available memory at which writeback starts.",
    )
    write_cache_mb_s: MbPerS | None = Field(
        None,
        description="A declared write-back cache in front of the disks (battery-backed controller): "
        "the rate it absorbs writes at, MB/s; None = no such cache.",
    )
    replace_hours: Hours = Field(
        72.0,
        description="Hours from a failure to a replacement disk being inserted (unused when a hot spare takes over).",
    )
    cost: PodCost | None = Field(None, description="The pod's costs beside its disks' prices, and their currency.")
    platform: Platform | None = Field(
        None, description="The drives' sockets and the IOMMU; absent: the presets' choice."
    )

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> object:
        return dump_without_unset(self, handler, ("cost", "platform"))

    @field_validator("models")
    @classmethod
    def _model_names(cls, models: dict[str, DiskSpec]) -> dict[str, DiskSpec]:
        for name in models:
            check_text(name, "disk model name", "hardware.models")
        return models

    def disk_spec(self, model: str) -> DiskSpec:
        return self.models.get(model, self.disk)
