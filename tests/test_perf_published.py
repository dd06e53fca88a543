"""Published measurements of current hardware (NVMe, md on recent kernels) as tests of the model.

Each case is the plan written from the published hardware (datasheet or class figures where the
drive was not named) and the fio job as published. None of them set a constant: the figures
the model uses are sourced in planners/hardware/. docs/calibration.md has the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from planners.hardware.disks import DiskSpec, Lun
from planners.hardware.machine import Controller, Cpu, Hardware, Wiring
from planners.hardware.platform import Platform
from planners.models import DiskSet, Filesystem, MdGroup, Plan, Tuning
from planners.perf.predict import WorkloadPrediction, predict
from planners.perf.workloads import Workload
from planners.units import KiB
from planners.versions import ToolVersions

GIB_S = 2**30 / 1e6


@dataclass(frozen=True)
class Case:
    label: str
    plan: Plan
    job: Workload
    measured_mb_s: float
    binding: str
    known_miss: str = ""  # why the figure is off by more than 25 % ('' when it is not)


def md_plan(
    name: str, level: int, n: int, hw: Hardware, size: int = 3_840_000_000_000, chunk: int | None = 512 * KiB
) -> Plan:
    return Plan(
        name=name,
        disks=[DiskSet(count=n, size=size)],
        groups=[MdGroup(name="md0", level=level, members=n, chunk=None if level == 1 else chunk, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=hw,
    )


def fio(rw: str, bs: int, engine: str, jobs: int, depth: int) -> Workload:
    return Workload(
        name=f"{rw}-{bs >> 10}k",
        rw=rw,
        bs=bs,
        ioengine=engine,
        numjobs=jobs,  # type: ignore[arg-type]
        iodepth=depth,
    )


NVME_HOST = Hardware(disk=DiskSpec(disk_class="nvme"), wiring=Wiring(link="direct"), cpu=Cpu(cores=16))
# Intel SSD DC P4510 4.0 TB (Intel product brief and ark.intel.com 122579): sequential read 3,000 MB/s,
# random 4 KiB read 636,500 IOPS, write 111,500 (its write rate is left to the class's write factor).
P4510 = DiskSpec(
    disk_class="nvme",
    seq_outer_mb_s=3000,
    seq_inner_mb_s=3000,
    rand_read_iops=636_500,
    rand_write_iops=111_500,
)
# Micron 5100 MAX (Micron's 5100 series datasheet, "performance (steady state)").
M5100_MAX = DiskSpec(
    disk_class="ssd-sata", seq_outer_mb_s=540, seq_inner_mb_s=540, rand_read_iops=93_000, rand_write_iops=74_000
)

CASES = [
    # Yu Kuai, "md/raid10: reduce lock contention for io" v2 (linux-raid, Sep 2022): 4 NVMe drives
    # (model not given: the nvme class), RAID10 --bitmap none, Xeon Platinum 8380 with fio bound
    # to 16 cores (taskset -c 0-15), libaio, 16 jobs x iodepth 256, 4 KiB random reads of
    # /dev/md0: 9.3 GiB/s with the series (7.0 before it, the lock contention it removed).
    Case(
        "raid10 x4 NVMe, 16 jobs libaio",
        md_plan("yk-raid10", 10, 4, NVME_HOST),
        fio("randread", 4 * KiB, "libaio", 16, 256),
        9.3 * GIB_S,
        "disks",
    ),
    # The same v2 posting, the same array and job on a Kunpeng 920 (aarch64, four NUMA nodes):
    # 7.9 GiB/s with the series, fio on any node; 8.0 bound to one node. (The series' first
    # posting measured 6.6 on that machine; its later patches are what v2 adds.)
    Case(
        "raid10 x4 NVMe, Kunpeng 920, any node",
        md_plan("yk-raid10-arm", 10, 4, NVME_HOST),
        fio("randread", 4 * KiB, "libaio", 16, 256),
        7.9 * GIB_S,
        "disks",
    ),
    Case(
        "raid10 x4 NVMe, Kunpeng 920, one node",
        md_plan("yk-raid10-arm1", 10, 4, NVME_HOST),
        fio("randread", 4 * KiB, "libaio", 16, 256),
        8.0 * GIB_S,
        "disks",
    ),
    # Hsuewei, Fio-8striped-NVMe (github.com/Hsuewei/Fio-8striped-NVMe), round 22 (Dec 2020, RHEL 7.5):
    # md RAID0 of 8 Intel P4510 4 TB (mdadm's default chunk), fio on /dev/md0, 28 KiB random reads,
    # libaio, 8 jobs x iodepth 32, after the files of earlier rounds were deleted from the mounted
    # (-o discard) XFS: 809k IOPS, 23.2 GB/s. Each drive at its sequential rate: 28 KiB requests are
    # bound by the drive's bytes, not its 4 KiB IOPS, and need ~10 in flight each, not 54.
    Case(
        "raid0 x8 Intel P4510, 28k randread 8 x QD32",
        md_plan("hs-raid0", 0, 8, Hardware(disk=P4510, wiring=Wiring(link="direct")), size=4 * 10**12),
        fio("randread", 28 * KiB, "libaio", 8, 32),
        23_200.0,
        "disks",
    ),
    # The SSD Review, 'Micron 5100 MAX/ECO Enterprise SSD Review (960GB/1920GB)', page 4: the 5100 MAX
    # 960 GB secure-erased, filled, then 8 KiB random writes at QD256 to steady state: "just over 40K"
    # IOPS. Micron's 5100 datasheet (steady state): MAX random 4 KiB reads up to 93,000 IOPS, writes
    # up to 74,000; 540 MB/s sequential reads. Its random write bytes: 74,000 x 4 KiB, whatever the size.
    Case(
        "Micron 5100 MAX 960GB alone, 8k randwrite QD256 steady state",
        Plan(
            name="m5100",
            disks=[DiskSet(count=1, size=960 * 10**9, rotational=False)],
            groups=[],
            filesystem=Filesystem(type="xfs"),
            hardware=Hardware(disk=M5100_MAX),
        ),
        fio("randwrite", 8 * KiB, "libaio", 1, 256),
        40_000 * 8 * KiB / 1e6,
        "disks",
    ),
    # gist.github.com/wqweto/6286203 (Aug 2013), "SQLIO test of RAID 5 with 4 x Intel 520 SSDs on an HP
    # SmartArray P420i controller": 8 threads x 8 outstanding 8 KiB random writes through the controller's
    # cache (not the file cache) for 360 s on a 36 GB file: 28,507.87 IOs/s, 222.71 MB/s. Not stated: the
    # cache module (the hpe-p420 preset's 1 GiB, 75 % for writes as shipped) and the drives' capacity
    # (the Intel SSD 520 specification's 60-240 GB figures: 550 MB/s reads, 50,000 / 80,000 random 4 KiB
    # reads / writes, "up to", over an 8 GB span). The run is 54 knees long: the figure is the cache's
    # drain, not what it accepts; the model's drain from the drives' "up to" writes is 1.9 times the run's.
    Case(
        "HP P420i RAID5 x4 Intel 520, SQLIO 8k randwrite 8 x 8 outstanding, 360 s",
        Plan(
            name="p420i",
            disks=[DiskSet(count=1, size=3 * 240 * 10**9, model="lun", rotational=False)],
            groups=[],
            filesystem=Filesystem(type="xfs"),
            hardware=Hardware(
                models={
                    "lun": DiskSpec(
                        disk_class="ssd-sata",
                        seq_outer_mb_s=550,
                        seq_inner_mb_s=550,
                        rand_read_iops=50_000,
                        rand_write_iops=80_000,
                        lun=Lun(disks=4, level=5, strip=256 * KiB),
                    )
                },
                controller=Controller(kind="hpe-p420"),
            ),
        ),
        Workload(
            name="sqlio-8k",
            rw="randwrite",
            bs=8 * KiB,
            ioengine="libaio",
            numjobs=8,
            iodepth=8,
            size=36 * 2**30,
            runtime_s=360,
            time_based=True,
            target="file",
        ),
        28_507.87 * 8 * KiB / 1e6,  # SQLIO's "MBs/sec" is MiB/s: 222.71 of them
        "write cache",
        known_miss="the drain from the Intel 520's 'up to' random writes (SandForce, an 8 GB span) is 1.9x the run's",
    ),
]


# NVIDIA/NV-Kernels pull request 182 (Aug 2025, "Update annotations to set CONFIG_IOMMU_DEFAULT_DMA_LAZY",
# numbers from Launchpad bug 2119661): two Grace sockets, four Samsung MZTL63T8HFLT NVMe drives on one
# root port of each, 4 KiB random reads, 16.5 M IOPS in passthrough, 16.4 M lazy, 2.8 M strict; each drive
# alone did 2 M (its datasheet says 1.7 M). Written as md RAID0 of the eight (a 4 KiB read reaches one
# member, as on the raw drives), the drives at their measured 2 M and their PCIe 5.0 x4 link's payload as
# the sequential rate (4 x 3,348 MB/s; the source gives only the random figure), 144 cores, the Ubuntu
# nvidia kernel 6.14. The job is not published: io_uring, 64 jobs x QD64, an assumption.
GRACE_DRIVE = DiskSpec(disk_class="nvme", rand_read_iops=2_000_000, seq_outer_mb_s=13_392, seq_inner_mb_s=13_392)


def grace_plan(mode: str) -> Plan:
    return Plan(
        name="grace",
        disks=[DiskSet(count=8, size=3_840_000_000_000)],
        groups=[MdGroup(name="md0", level=0, members=8, chunk=512 * KiB, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(
            disk=GRACE_DRIVE,
            wiring=Wiring(link="direct"),
            cpu=Cpu(cores=144, sockets=2, pcie_gen=5),
            platform=Platform(drive_sockets=2, iommu=mode),  # type: ignore[arg-type]
        ),
        tools=ToolVersions(kernel="6.14"),
    )


IOMMU_STRICT_MISS = (
    "the invalidation time is one Intel host's single thread's whole wait (planners.hardware.platform); the "
    "Grace SMMUv3's command queue lets several CPUs' invalidations share one CMD_SYNC (arm-smmu-v3's "
    "lock-free command queue, 5.3), so a unit retires them faster than one wait each"
)
IOMMU_CASES = [
    Case(
        f"8 NVMe on 2 Grace sockets, 4k randread, iommu {mode}",
        grace_plan(mode),
        fio("randread", 4 * KiB, "io_uring", 64, 64),
        iops * 4096 / 1e6,
        binding,
        miss,
    )
    for mode, iops, binding, miss in (
        ("passthrough", 16.5e6, "disks", ""),
        ("lazy", 16.4e6, "disks", ""),
        ("strict", 2.8e6, "IOMMU", IOMMU_STRICT_MISS),
    )
]


@pytest.mark.parametrize("case", IOMMU_CASES, ids=[c.label for c in IOMMU_CASES])
def test_the_iommu_strict_mode_binds_many_nvme_drives_where_lazy_and_passthrough_do_not(case: Case) -> None:
    """Before the IOMMU term strict predicted what lazy does, 16 M (+471 %); now 1.63 M (-42 %), the
    two units' invalidation queues: within 2x, outside its range, for the reason said."""
    p = prediction(case)
    err = p.mb_s / case.measured_mb_s - 1
    assert p.binding == case.binding
    if case.known_miss:
        assert abs(err) > 0.25 and 0.5 <= p.mb_s / case.measured_mb_s <= 2.0
    else:
        assert abs(err) <= 0.25 and p.mb_s_low <= case.measured_mb_s <= p.mb_s_high


# W1: chris.branchable.com/posts/write-intent-bitmaps: md RAID5 of four 250 GB SATA disks, ext3,
# bonnie++ block writes: 115 MiB/s without a bitmap, 22 MiB/s with an internal one. Not stated and
# taken as: a 7200 rpm disk of 2007 (75 MB/s outer, 40 inner), mdadm's then-default 64 KiB chunk,
# the bitmap chunk mdadm 2.6 fits in 0.90 metadata's 60 KiB for 250 GB (512 KiB), a 2007 Xeon,
# 2 GiB of memory, kernel 2.6.24, bonnie++'s data set at twice the memory. 0.90 (mdadm 2.6's
# default) keeps superblock and bitmap at the end of each member, as 1.0 does: written as 1.0.
def w1_plan(bitmap: bool) -> Plan:
    return Plan(
        name="w1",
        disks=[DiskSet(count=4, size=250 * 10**9)],
        groups=[
            MdGroup(
                name="md0",
                level=5,
                members=4,
                chunk=64 * KiB,
                bitmap="internal" if bitmap else "none",
                bitmap_chunk=512 * KiB if bitmap else None,
                metadata="1.0",
            )
        ],
        filesystem=Filesystem(type="ext3"),
        tuning=Tuning(stripe_cache_size=256),
        hardware=Hardware(
            disk=DiskSpec(disk_class="hdd7200", seq_outer_mb_s=75, seq_inner_mb_s=40),
            cpu=Cpu(cpu_class="xeon-5300-2007"),
            memory_bytes=2 * 2**30,
        ),
        tools=ToolVersions(kernel="2.6.24"),
    )


W1 = [
    ("W1 raid5 x4 bonnie++ write, no bitmap", False, 115 * 2**20 / 1e6),
    ("W1 same, internal bitmap", True, 22 * 2**20 / 1e6),
]


def w1_prediction(bitmap: bool) -> WorkloadPrediction:
    from planners.perf.workloads import PRESETS

    (p,) = predict(w1_plan(bitmap), workloads=[PRESETS["bonnie-write"].model_copy(update={"size": 4 * 2**30})])
    return p


@pytest.mark.parametrize("label,bitmap,measured", W1, ids=["no-bitmap", "bitmap"])
def test_w1_the_bitmap_costs_a_stream_a_seek_away_and_back_per_chunk(label, bitmap, measured):
    """Outside the model (a 2.6.24 writer takes part in writeback) and the bitmap chunk is derived,
    not stated: the figure stands marked, within 2x; the bitmap's cost is the most of it. The bitmap
    sits at the members' end (0.90), a full stroke from a fresh filesystem's stream at their start:
    each chunk's page write seeks there, waits for the slowest of 4 members' sectors and seeks back
    (planners.perf.bitmap.hdd_page_s). Priced as two average positionings it was +71 %, outside."""
    p = w1_prediction(bitmap)
    assert "before 3.2" in p.outside_model
    assert 0.5 <= p.mb_s / measured <= 2.0
    assert p.mb_s_low <= measured <= p.mb_s_high
    if bitmap:
        assert p.mb_s < 0.3 * w1_prediction(False).mb_s
        assert abs(p.mb_s / measured - 1) <= 0.3


def r1_parity_rows():  # type: ignore[no-untyped-def]
    from tests.test_perf_measurements import R1

    return [(label, plan, measured) for label, plan, measured, _ in R1 if "raid0" not in label]


@pytest.mark.parametrize("label,plan,measured", r1_parity_rows(), ids=lambda x: x if isinstance(x, str) else "")
def test_r1_parity_rows_meet_md_thread_of_a_2_6_32_kernel(label, plan, measured):
    """R1's RAID5/6 rows (tests/test_perf_measurements.py: 2.6.32, a Core i3 540, one dd of full stripes)
    drain through md's thread as a kernel before 4.1 runs it, one 4 KiB stripe head at a time: the
    desktop class's 600 MB/s over the batch commit's 1.3 (planners.perf.era; nothing from R1). Before
    the term: +55 %, +67 %, +65 %, the RAID6 x45 row outside its range; now within 30 %, every row inside."""
    from statistics import median

    from planners.perf.workloads import PRESETS

    (p,) = predict(plan, workloads=[PRESETS["dd-write"]])
    # The page cache drains at md's thread: the copy term's note names it.
    assert "drains 462 MB/s (md thread" in p.terms[0].note and "4.1" in p.terms[0].note
    want = median(measured)
    assert abs(p.mb_s / want - 1) <= 0.30
    assert p.mb_s_low <= want <= p.mb_s_high


# T. Poder, "Using Postgres pg_test_fsync tool for testing low latency writes" (May 2025): a Samsung
# 990 Pro 2 TB (client NVMe, "write back" cache, no power-loss protection) under XFS, pg_test_fsync's
# "one 8kB write" then fdatasync, over and over at the file's start: 608.573 ops/sec, 1643 usecs/op.
# Written as a plan that names the drive's class and leaves its flush out (no datasheet gives it): the
# preset's figure is the power-loss protected drive's, so only the range can hold it, widened by the
# unstated flush (planners.perf.flush) down to a client drive's 3.5 ms. Not in every_case(): its
# central figure is the protected drive's by construction (x38 here), which says nothing of the model.
POD990_FDATASYNC = 608.573 * 8192 / 1e6


def pod990_prediction(flush_us: float | None = None) -> WorkloadPrediction:
    disk = DiskSpec(disk_class="nvme", **({} if flush_us is None else {"flush_us": flush_us}))
    plan = Plan(
        name="pod990",
        disks=[DiskSet(count=1, size=2 * 10**12, rotational=False)],
        groups=[],
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(disk=disk, wiring=Wiring(link="direct")),
    )
    job = Workload(
        name="pg_test_fsync",
        rw="write",
        bs=8192,
        iodepth=1,
        ioengine="psync",
        target="file",
        sync_every=1,
        sync_metadata=False,
        size=8192,
    )
    (p,) = predict(plan, workloads=[job])
    return p


def test_a_client_nvmes_fdatasync_lies_in_the_range_an_unstated_flush_widens():
    p = pod990_prediction()
    assert p.mb_s_low <= POD990_FDATASYNC <= p.mb_s_high
    assert any(line.startswith("drive's cache flush (flush_us): not stated") for line in p.range_from)
    # Stated as a protected drive, the range keeps to the other inputs and misses the client drive.
    plp = pod990_prediction(0)
    assert not plp.mb_s_low <= POD990_FDATASYNC <= plp.mb_s_high


def prediction(c: Case) -> WorkloadPrediction:
    (p,) = predict(c.plan, workloads=[c.job])
    return p


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
def test_published_case(case: Case):
    p = prediction(case)
    err = p.mb_s / case.measured_mb_s - 1
    if case.known_miss:
        assert abs(err) > 0.25  # said so in docs/calibration.md, with the reason
    else:
        assert abs(err) <= 0.25, f"{case.label}: predicted {p.mb_s:.0f}, measured {case.measured_mb_s:.0f} MB/s"
    assert p.mb_s_low <= case.measured_mb_s <= p.mb_s_high
    assert p.binding == case.binding


@dataclass(frozen=True)
class JobCase:
    """A published run written as a plan from what its source states, leaving the rest to presets,
    and its fio job as published (read as podplan reads any job file)."""

    label: str
    source: str
    plan: Plan
    job: str
    measured_mb_s: float
    binding: str
    presets: tuple[str, ...]  # the inputs the source leaves unstated, which the range must name


def job_plan(name: str, level: int, n: int, size: int, disk: DiskSpec, cpu: Cpu, memory: int) -> Plan:
    """An md array with mdadm's defaults (512 KiB chunk, no bitmap on small arrays) under XFS; no
    [tools] kernel: the sources below do not give it."""
    return Plan(
        name=name,
        disks=[DiskSet(count=n, size=size, rotational=disk.disk_class.startswith("hdd"))],
        groups=[MdGroup(name="md0", level=level, members=n, chunk=512 * KiB, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(disk=disk, cpu=cpu, memory_bytes=memory),
    )


JOB_CASES = [
    # ScyllaDB issue #18579 (May 2024): an AWS d3.4xlarge (12 x 2 TB HDD instance storage, 16 vCPUs of a
    # Xeon Platinum 8259CL, Cascade Lake: 8 cores; 128 GiB), md RAID5 over the 12 disks, Ubuntu 22.04,
    # fio as published: 8 MiB sequential direct writes, libaio, iodepth 8, a 10 GiB file: 1113.37 MiB/s.
    # Not stated: the drives' model (the 7200 rpm class), the filesystem (XFS, the only one Scylla
    # supports), the kernel.
    JobCase(
        "RAID5 x12 HDD (AWS d3.4xlarge), 8M direct write qd8",
        "github.com/scylladb/scylladb/issues/18579",
        job_plan(
            "d3", 5, 12, 2 * 10**12, DiskSpec(disk_class="hdd7200"), Cpu(cpu_class="skylake-2017", cores=8), 128 << 30
        ),
        "[fio_write_8M]\ndirectory=/mnt_data/fiotest\nsize=10G\ndirect=1\nrw=write\nrandrepeat=0\n"
        "ioengine=libaio\nbs=8M\niodepth=8\ntime_based=1\nruntime=180\n",
        1113.37 * 2**20 / 1e6,
        "md thread",
        ("disk transfer rates: hdd7200 class preset", "CPU figures from the skylake-2017 class preset"),
    ),
]


def job_prediction(c: JobCase) -> WorkloadPrediction:
    from planners.perf.concurrent import predict_job_file
    from planners.perf.jobfile import parse_job_file
    from planners.perf.predict import geometry_for_speed

    (p,) = predict_job_file(c.plan, geometry_for_speed(c.plan), parse_job_file(c.job, source=c.label))
    return p


@pytest.mark.parametrize("case", JOB_CASES, ids=[c.label for c in JOB_CASES])
def test_published_job_case_inside_a_range_the_presets_widened(case: JobCase) -> None:
    p = job_prediction(case)
    assert abs(p.mb_s / case.measured_mb_s - 1) <= 0.25, f"{case.label}: {p.mb_s:.0f} vs {case.measured_mb_s:.0f}"
    assert p.mb_s_low <= case.measured_mb_s <= p.mb_s_high and p.binding == case.binding
    for preset in case.presets:
        assert any(line.startswith(preset) for line in p.range_from), (preset, p.range_from)
    assert not p.inputs_stated


def table() -> str:
    """The docs' table: case | measured | predicted | range | binding."""
    rows = ["| case | job | measured | predicted | range | error | binding |", "|---|---|---|---|---|---|---|"]
    for c in CASES:
        p = prediction(c)
        iops = c.job.bs < 64 * KiB
        scale = 1e6 / c.job.bs if iops else 1.0
        unit = "/s" if iops else " MB/s"
        rows.append(
            f"| {c.label} | {c.job.name} x{c.job.numjobs} qd{c.job.iodepth} | "
            f"{c.measured_mb_s * scale:,.0f}{unit} | {p.mb_s * scale:,.0f}{unit} | "
            f"{p.mb_s_low * scale:,.0f}-{p.mb_s_high * scale:,.0f} | {p.mb_s / c.measured_mb_s - 1:+.0%} | "
            f"{p.binding} |"
        )
    inside = sum(prediction(c).mb_s_low <= c.measured_mb_s <= prediction(c).mb_s_high for c in CASES)
    return "\n".join(rows) + f"\n\n{inside} of {len(CASES)} inside the range."


def every_case() -> list[tuple[str, float, WorkloadPrediction, bool]]:
    """(label, measured, prediction, per request?) for every published case the model is checked on:
    the ones above, R1 and R2 (tests/test_perf_measurements.py)."""
    from planners.perf.workloads import PRESETS
    from tests.test_perf_measurements import BONNIE, KB_S, R1, R2, r2_plan

    out = [(c.label, c.measured_mb_s, prediction(c), c.job.bs < 64 * KiB) for c in CASES + IOMMU_CASES]
    out += [(c.label, c.measured_mb_s, job_prediction(c), False) for c in JOB_CASES]
    for label, plan, measured, _ in R1:
        (p,) = predict(plan, workloads=[PRESETS["dd-write"]])
        out.append((f"R1 {label} dd write", sorted(measured)[1], p, False))
    for label, bitmap, measured in W1:
        out.append((label, measured, w1_prediction(bitmap), False))
    for fs, stride, test, value in R2:
        (p,) = predict(r2_plan(fs), workloads=[BONNIE[test]])
        want = value * BONNIE[test].bs / 1e6 if test == "seeks" else value * KB_S
        out.append((f"R2 {fs}{' stride' if stride else ''} bonnie++ {test}", want, p, test == "seeks"))
    return out


def coverage_table() -> str:
    head = "| case | measured | predicted | range | error | binding | ends set by | widened by |"
    rows = [head, "|---|---|---|---|---|---|---|---|"]
    inside = 0
    cases = every_case()
    for label, want, p, per_request in cases:
        k = 1e6 / p.block_bytes if per_request else 1.0
        unit = "/s" if per_request else " MB/s"
        ok = p.mb_s_low <= want <= p.mb_s_high
        inside += ok
        span = f"{p.mb_s_low * k:,.0f}-{p.mb_s_high * k:,.0f}" if p.mb_s_high > p.mb_s_low else "none"
        rows.append(
            f"| {label} | {want * k:,.1f}{unit} | {p.mb_s * k:,.1f}{unit}{'*' if p.outside_model else ''} | "
            f"{span}{'' if ok else ' (misses)'} | {p.mb_s / want - 1:+.0%} | {p.binding} | "
            f"{', '.join(p.range_terms) or '-'} | {p.assumption or '-'} |"
        )
    return "\n".join(rows) + f"\n\n{inside} of {len(cases)} measurements inside the stated range."


if __name__ == "__main__":
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # every_case reads tests.test_perf_measurements
    print(table())
    print()
    print(coverage_table())
