"""Published measurements kept out of the model's calibration, to check it the way it will be
judged: md arrays of NVMe and spinning disks, each written as a plan from what the source states
(a class preset where it names no drive, or the datasheet's figures where it does) and the fio
job as published, parsed as podplan reads any job file. None of them set a figure the model
uses. docs/calibration.md has the table and the sources; `python tests/test_perf_heldout.py`
prints it.

A case is either within 25 % or a stated miss with its reason: the test holds both, so the
table cannot drift from the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Cpu, Hardware, Wiring
from planners.models import DiskSet, Filesystem, MdGroup, Plan, Tuning
from planners.perf.concurrent import predict_job_file
from planners.perf.jobfile import parse_job_file
from planners.perf.predict import WorkloadPrediction, geometry_for_speed
from planners.units import KiB, MiB
from planners.versions import ToolVersions

GiB = 1024 * MiB


@dataclass(frozen=True)
class HeldOut:
    label: str
    source: str
    plan: Plan
    job: str  # the fio job as published (or as the source describes it, said in `source`)
    measured: float  # IOPS when per_request, else MB/s (10^6 bytes)
    per_request: bool
    miss: str = ""  # why the figure is off by more than 25 % ('' when it is not)


def md(
    name: str,
    level: int,
    n: int,
    size: int,
    disk: DiskSpec,
    *,
    chunk: int = 512 * KiB,
    layout: str | None = None,
    bitmap_chunk: int | None = None,
    fs: str = "xfs",
    kernel: str = "6.1",
    cpu: Cpu | None = None,
    memory: int | None = None,
    stripe_cache: int | None = None,
) -> Plan:
    flash = disk.disk_class in ("nvme", "ssd-sata")
    hw = Hardware(
        disk=disk,
        cpu=cpu or Cpu(),
        wiring=Wiring(link="direct") if disk.disk_class == "nvme" else Wiring(),
        **({"memory_bytes": memory} if memory else {}),
    )
    return Plan(
        name=name,
        disks=[DiskSet(count=n, size=size, rotational=not flash)],
        groups=[
            MdGroup(
                name="md0",
                level=level,
                members=n,
                layout=layout,
                chunk=None if level == 1 else chunk,
                bitmap="internal" if bitmap_chunk else "none",
                bitmap_chunk=bitmap_chunk,
            )
        ],
        filesystem=Filesystem(type=fs),
        hardware=hw,
        tools=ToolVersions(kernel=kernel),
        **({"tuning": Tuning(stripe_cache_size=stripe_cache)} if stripe_cache else {}),
    )


NVME = DiskSpec(disk_class="nvme")
HDD = DiskSpec(disk_class="hdd7200")
# The source names the drive: a Solidigm D7-P5520 has power-loss protection (its product brief:
# "enhanced power-loss data protection"; M. Callaghan's fsync after each 16 KiB write on one: 12-58
# us, smalldatum, Jan 2026), so a cache flush finds nothing volatile: flush_us 0, stated.
P5520 = DiskSpec(disk_class="nvme", flush_us=0)
# What a clean chunk costs is now the kernel's path (planners.perf.bitmap); what is left is not.
P5520_BITMAP = (
    "at the measured 15.7k writes/s over 57,228 chunks of 64 MiB only 14 % of the writes find their "
    "chunk clean (the model, at its own 29.5k/s: 3 %), so page writes explain little of the 64 us a "
    "write took against the model's 34 us: the rest is the host's path at depth 1 (the source's "
    "biosnoop has 40-67 us from one write's completion to the next one's page write reaching the "
    "drives, where the model's fio, system call, md and thread hand-off sum to 11 us); the CPU and "
    "its idle states are not stated"
)
MIRROR_BITMAP = (
    "at the measured 5,955 writes/s 83 % of the writes find their 4 MiB chunk clean (the model, at "
    "its own 21k/s: 52 %), and even every write paying the hand-off, a page write and its wake "
    "(the model: 33 + 28 us) is far from the 168 us a write took; the source's biosnoop excerpt "
    "runs at 55-110 us a write with page writes of 10-70 us, so about 100 us of the average is not "
    "in it: not explained (the drives, their write cache and the CPU are not stated). The range now "
    "holds it: the drives' cache flush is not stated, and a client drive's (up to 3.5 ms, "
    "planners.perf.flush) on each page write takes the low end to 142 a second"
)

# A RAM disk (brd) written as flash with the raw device's rates as measured on the same host
# (C09: raw /dev/ram0 under the same job, 14.4M reads and 6.2M writes a second), no link.
RAMDISK = DiskSpec(
    disk_class="nvme",
    seq_outer_mb_s=56_000,
    seq_inner_mb_s=56_000,
    rand_read_iops=14_400_000,
    rand_write_iops=6_200_000,
    rand_read_latency_us=1,
    rand_write_latency_us=1,
    latency_us=1,
    pcie_lanes=0,
)
C09_JOB = (
    "[global]\nioengine=libaio\ndirect=1\nreadwrite=randrw\nrwmixread=70\niodepth=64\nbuffered=0\n"
    "filename=/dev/md0\nsize=1G\nruntime=30\ntime_based\nrandrepeat=0\nnorandommap\nrefill_buffers\n"
    "ramp_time=10\nbs=4k\nnumjobs=400\ngroup_reporting=1\n[job1]\n"
)
ATOMICS_NEARER = (
    "after the fix each request moves conf->nr_pending's cache line twice (planners.perf.md_locks); at "
    "the mean of the two sockets' core-to-core figures (94 and 197 ns, half the next writers on the "
    "other socket) that is 3.4M a second, and the array did 5.2M: the line's next writer is nearer "
    "than an even draw over the cores (the range, from every next writer on the same socket to every "
    "one on the other, 2.1M-5.3M, holds it), or a transfer quicker than the pinned-pair medians"
)

# Server Fault 882009's array: 4 x Seagate Enterprise 10 TB (249 MB/s outer zone, datasheet),
# 512 KiB chunk, internal bitmap of 64 MiB chunks, ext4, the kernel's default stripe cache.
SF_RAID6 = md(
    "sf",
    6,
    4,
    10 * 10**12,
    DiskSpec(disk_class="hdd7200", seq_outer_mb_s=249),
    bitmap_chunk=64 * MiB,
    fs="ext4",
    kernel="4.9",
    memory=8 * GiB,
    stripe_cache=256,
)
SATA_2014 = DiskSpec(disk_class="hdd7200", seq_outer_mb_s=160, seq_inner_mb_s=80)  # "a single disk ~160 MB/s"

CASES = [
    HeldOut(
        "RAID10 x4 Solidigm P5520, bitmap 64M, QD1 4k randwrite",
        "J. Derrick, '[PATCH v3 3/3] md: Use optimal I/O size for last bitmap page', linux-raid, "
        "22 Feb 2023 (merged 6.4): 15.7k IOPS with the patch",
        # "bitmap-size 57228 bits" of 64 MiB: a 3.84 TB array, so 1.92 TB members (IDEMA's
        # 3,750,748,848 sectors: 57228 bits exactly), not the 3.84 TB model of the drive.
        md("c04", 10, 4, 3_750_748_848 * 512, P5520, bitmap_chunk=64 * MiB, kernel="6.4"),
        "[test]\ndirect=1\nfilename=/dev/md0\nrw=randwrite\nbs=4k\nruntime=60\n",
        15_700,
        True,
        P5520_BITMAP,
    ),
    HeldOut(
        "RAID1 x2 NVMe, bitmap 4M, QD1 4k randwrite",
        "J. Derrick's figures in S. Liu, 'Re: [PATCH 2/2] md/bitmap: Add chunk-count-based bitmap "
        "flushing', linux-raid, 10 Oct 2022: mainline 5955 IOPS (avg)",
        md("c05", 1, 2, 1_000_000_000_000, NVME, bitmap_chunk=4 * MiB, kernel="6.0"),
        "[test]\ndirect=1\nfilename=/dev/md0\nrw=randwrite\nruntime=60\n",
        5955,
        True,
        MIRROR_BITMAP,
    ),
    HeldOut(
        "RAID6 6+2 NVMe (250k IOPS each), 4k randread, 1024 threads",
        "G. Ofri, '[PATCH v2] md/raid5: avoid device_lock in read_one_chunk()', linux-raid, 7 Jun 2021 "
        "(merged 5.14): 2M IOPS, the drives' limit; 96 cores, group_thread_cnt 8; the job as described "
        "(1024 threads, one request each)",
        md(
            "c10",
            6,
            8,
            3_840_000_000_000,
            DiskSpec(disk_class="nvme", rand_read_iops=250_000),
            cpu=Cpu(cores=96),
            kernel="5.14",
        ),
        "[g]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=1\nnumjobs=1024\ndirect=1\nfilename=/dev/md0\n",
        2_000_000,
        True,
    ),
    HeldOut(
        "RAID5 9+1 Gen4 NVMe, one array per socket, 4k randread 64 x QD128",
        "J. Finlayson, 'Can't get RAID5/RAID6 NVMe randomread IOPS - AMD ROME', linux-raid, Aug 2021: "
        "plain md on 5.14, 11.7M IOPS over the two sockets' arrays (per array 5.85M); each drive "
        "measured raw at 1.1M",
        md(
            "c11",
            5,
            10,
            15_360_000_000_000,
            DiskSpec(disk_class="nvme", rand_read_iops=1_100_000),
            chunk=128 * KiB,
            cpu=Cpu(cpu_class="epyc-7002", cores=64),
            kernel="5.14",
        ),
        "[g]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=128\nnumjobs=64\ndirect=1\nfilename=/dev/md0\n",
        5_850_000,
        True,
    ),
    HeldOut(
        "RAID1 x2 RAM disks, 2 x EPYC 7002 (128 cores), 4k randrw 70/30 400 x QD64, 5.10",
        "A. Gholami Rudi, 'Unacceptably Poor RAID1 Performance with Many CPU Cores', linux-raid, "
        "15 Jun 2023: 542K read + 232K write IOPS on 5.10 (raw ram0: 14.4M + 6.2M); two EPYC 7002 "
        "of 64 cores each",
        md("c09-r1", 1, 2, 2**30, RAMDISK, cpu=Cpu(cpu_class="epyc-7002", cores=128, sockets=2), kernel="5.10"),
        C09_JOB,
        542_000 + 232_000,
        True,
    ),
    HeldOut(
        "RAID10 x2 RAM disks, same host and job, with the 6.5 fix",
        "Y. Kuai, '[PATCH v2] raid10: avoid spin_lock from fastpath from raid10_unplug()', linux-raid, "
        "21 Jun 2023 (merged 6.5), tested by the reporter above: 3642K read + 1561K write IOPS",
        md("c09-r10", 10, 2, 2**30, RAMDISK, cpu=Cpu(cpu_class="epyc-7002", cores=128, sockets=2), kernel="6.5"),
        C09_JOB,
        3_642_000 + 1_561_000,
        True,
        ATOMICS_NEARER,
    ),
    HeldOut(
        "RAID1 x2 Intel P3500, ext4 file, posixaio 4k randrw 75/25",
        "Substrate benchmarking notes, 'Base Assumptions' (OVH RISE-2, i7-7700K, Ubuntu 5.4), "
        "30 Apr 2020: read 8706 + write 2909 IOPS",
        md(
            "c13",
            1,
            2,
            2_000_000_000_000,
            DiskSpec(
                disk_class="nvme",
                seq_outer_mb_s=2500,
                seq_inner_mb_s=2500,
                rand_read_iops=430_000,
                rand_write_iops=28_000,
            ),
            fs="ext4",
            kernel="5.4",
            cpu=Cpu(cores=4),
        ),
        "[test]\nrandrepeat=1\nioengine=posixaio\ndirect=1\ngtod_reduce=1\nfilename=test\nbs=4k\n"
        "iodepth=64\nsize=4G\nreadwrite=randrw\nrwmixread=75\n",
        8706 + 2909,
        True,
    ),
    HeldOut(
        "RAID0 x4 Intel P4510, raw, 28k randread 8 x QD32",
        "Hsuewei, Fio-8striped-NVMe (GitHub), run 16, Dec 2020 (RHEL 7.5): 238k IOPS",
        md(
            "c12",
            0,
            4,
            4_000_000_000_000,
            DiskSpec(
                disk_class="nvme",
                seq_outer_mb_s=3000,
                seq_inner_mb_s=3000,
                rand_read_iops=636_500,
                rand_write_iops=111_500,
            ),
            kernel="3.10",
        ),
        "[global]\ndirect=1\nioengine=libaio\ngroup_reporting=1\ntime_based\nruntime=90\nramp_time=30\n"
        "[28k_r_r]\nnumjobs=8\niodepth=32\nrw=randread\nbs=28k\nsize=100g\nfilename=/dev/md0\n",
        238_000,
        True,
        "the source's own runs of this job range from 137k to 238k with the drives' fill state (and one "
        "member at 100 % busy): the model takes the datasheet's fresh drive",
    ),
    HeldOut(
        "16 TB 7200 rpm, 30 GB at the start, 4k randread 4 x QD32 (2 disks' worth)",
        "Helm & Walter, 'RAID5 vs Raid10 Performance Benchmark MDADM' (kernel 5.10): one disk 550 "
        "random read IOPS, here as RAID0 of two (each disk the same 32 queued)",
        md("hw-rr", 0, 2, 16 * 10**12, HDD, kernel="5.10"),
        f"[g]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=32\nnumjobs=4\ndirect=1\nfilename=/dev/md0\n"
        f"size={2 * 30 * GiB}\nruntime=60\ntime_based\n",
        1100,
        True,
    ),
    HeldOut(
        "16 TB 7200 rpm, 30 GB at the start, 4k randwrite 4 x QD32",
        "Helm & Walter (above): one disk 480 random write IOPS, here as RAID1 of two (each write on both)",
        md("hw-rw", 1, 2, 16 * 10**12, HDD, kernel="5.10"),
        f"[g]\nrw=randwrite\nbs=4k\nioengine=libaio\niodepth=32\nnumjobs=4\ndirect=1\nfilename=/dev/md0\n"
        f"size={30 * GiB}\nruntime=60\ntime_based\n",
        480,
        True,
        "the source's disk writes 13 % slower than it reads under the same job (480 against 550 a "
        "second, 0.27 ms more a request); the model gives a write the read's positioning (the class "
        "preset rates both 80 IOPS, and nothing in the plan says writes settle longer, as drive "
        "specifications give them: WD Ultrastar DC HC310, average seek 7.4 ms read, 8.2 write), so "
        "the write is the read row's +16 % and that gap",
    ),
    HeldOut(
        "16 TB 7200 rpm, 30 GB at the start, 1M read QD32",
        "Helm & Walter (above): one disk 268 MB/s, here as RAID0 of two",
        md("hw-sr", 0, 2, 16 * 10**12, HDD, kernel="5.10"),
        f"[g]\nrw=read\nbs=1m\nioengine=libaio\niodepth=32\nnumjobs=1\ndirect=1\nfilename=/dev/md0\n"
        f"size={2 * 30 * GiB}\nruntime=60\ntime_based\n",
        536,
        False,
    ),
    HeldOut(
        "RAID10 n2 x2 SATA, one reader",
        "B. Skufca, 'Linux software RAID: why you should always use RAID 10 instead of RAID 1', "
        "blog.a2o.si, Sep 2014: near 160 MB/s, single disk 160 (dd assumed: bs=1M, buffered)",
        md("a2o-n2", 10, 2, 2 * 10**12, SATA_2014, layout="n2", kernel="3.16"),
        "[dd]\nrw=read\nbs=1m\nioengine=psync\ndirect=0\nfilename=/dev/md0\nsize=2g\n",
        160,
        False,
    ),
    HeldOut(
        "RAID10 f2 x2 SATA, one reader",
        "B. Skufca (above): far 320 MB/s",
        md("a2o-f2", 10, 2, 2 * 10**12, SATA_2014, layout="f2", kernel="3.16"),
        "[dd]\nrw=read\nbs=1m\nioengine=psync\ndirect=0\nfilename=/dev/md0\nsize=2g\n",
        320,
        False,
    ),
    HeldOut(
        "RAID6 x4 Seagate 10 TB, ext4, copy a large file out",
        "Server Fault 882009, 'RAID6 resync with fast writes but slow reads' (kernel 4.9), 2017: 220 MB/s "
        "(cp, 128 KiB reads assumed; 8 GiB of memory assumed)",
        SF_RAID6,
        "[cp]\nrw=read\nbs=128k\nioengine=psync\ndirect=0\nsize=100g\nfilename=/mnt/f\n",
        220,
        False,
        "the members' outer-zone rate over 2 data disks gives 465 MB/s; the copy went to the host's "
        "internal SSD, whose sustained write (a SATA SSD past its cache: a few hundred MB/s) is not "
        "stated and is outside the plan, as is where the file lay",
    ),
    HeldOut(
        "RAID6 x4 Seagate 10 TB, ext4, copy a large file in",
        "Server Fault 882009 (above): 145 MB/s",
        SF_RAID6,
        "[cp]\nrw=write\nbs=128k\nioengine=psync\ndirect=0\nsize=100g\nfilename=/mnt/f\n",
        145,
        False,
        "the default stripe cache's drain gives 221 MB/s; the copy's source, the file's place and "
        "the host are not stated",
    ),
]


def prediction(c: HeldOut) -> WorkloadPrediction:
    (p,) = predict_job_file(c.plan, geometry_for_speed(c.plan), parse_job_file(c.job, source=c.label))
    return p


def figures(c: HeldOut) -> tuple[float, float, float]:
    """(predicted, low, high) in the case's unit."""
    p = prediction(c)
    k = p.iops / p.mb_s if c.per_request and p.mb_s else 1.0
    return p.mb_s * k, p.mb_s_low * k, p.mb_s_high * k


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
def test_held_out_case(case: HeldOut) -> None:
    got, low, high = figures(case)
    err = got / case.measured - 1
    if case.miss:
        assert abs(err) > 0.25, f"{case.label}: now within 25 % ({err:+.0%}); drop its miss"
    else:
        assert abs(err) <= 0.25, f"{case.label}: predicted {got:,.0f}, measured {case.measured:,.0f}"
        assert low <= case.measured <= high


def table() -> str:
    rows = ["| case | measured | predicted | range | error | binding |", "|---|---|---|---|---|---|"]
    inside = 0
    errors = []
    for c in CASES:
        p = prediction(c)
        got, low, high = figures(c)
        unit = "/s" if c.per_request else " MB/s"
        ok = low <= c.measured <= high
        inside += ok
        errors.append(abs(got / c.measured - 1))
        rows.append(
            f"| {c.label} | {c.measured:,.0f}{unit} | {got:,.0f}{unit} | {low:,.0f}-{high:,.0f}"
            f"{'' if ok else ' (misses)'} | {got / c.measured - 1:+.0%} | {p.binding} |"
        )
    errors.sort()
    median = errors[len(errors) // 2]
    return (
        "\n".join(rows)
        + f"\n\n{inside} of {len(CASES)} inside the stated range; median |error| {median:.0%}; "
        + f"{sum(e <= 0.25 for e in errors)} within 25 %."
    )


if __name__ == "__main__":
    print(table())
    print()
    for c in CASES:
        if c.miss:
            print(f"- {c.label}: {c.miss}")
