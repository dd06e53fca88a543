"""The write-intent bitmap's cost (planners.perf.bitmap): which writes pay a bitmap write, and how
the bitmap chunk, the span and the depth change it. The lab witness is tests/test_lab_bitmap.py."""

from __future__ import annotations

import random
import re

import pytest

from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.bitmap import DAEMON_SLEEP_S, clean_chance
from planners.perf.predict import predict
from planners.perf.workloads import Workload
from planners.units import GiB, MiB

TB = 10**12


def _simulated_clean_share(rate: float, sleep: float, writes: int, seed: int) -> float:
    """The kernel's counter for one chunk (md-bitmap.c): a write sets it to 2 (paying a bitmap write
    when it found 0); every daemon pass takes 2 to 1 and 1 to 0. Writes arrive at random."""
    rng = random.Random(seed)
    t, counter, paid = 0.0, 0, 0
    next_pass = rng.uniform(0, sleep)
    for _ in range(writes):
        t += rng.expovariate(rate)
        while next_pass <= t:
            counter = max(0, counter - 1)
            next_pass += sleep
        paid += counter == 0
        counter = 2
    return paid / writes


@pytest.mark.parametrize("rate", [0.01, 0.05, 0.1, 0.2, 0.5])
def test_the_clean_chance_is_the_kernels_counter_machine(rate):
    simulated = _simulated_clean_share(rate, DAEMON_SLEEP_S, 40000, seed=int(rate * 1000))
    assert clean_chance(rate) == pytest.approx(simulated, abs=0.015)


def test_the_clean_chance_runs_from_every_write_to_none():
    assert clean_chance(0.0) == 1.0
    assert clean_chance(1e-4) > 0.99
    assert clean_chance(10.0) < 1e-6


def _plan(level: int, n: int, bitmap: str = "internal", chunk: int | None = None, size: int = 4 * TB) -> Plan:
    return Plan(
        name="b",
        disks=[DiskSet(count=n, size=size)],
        groups=[MdGroup(name="md0", level=level, members=n, bitmap=bitmap, bitmap_chunk=chunk)],
        filesystem=Filesystem(type="ext4"),
    )


def _iops(plan: Plan, **job) -> float:
    (p,) = predict(plan, workloads=[Workload(name="j", **job)])
    return p.iops


def test_a_small_sync_write_to_a_clean_chunk_waits_for_a_bitmap_write_first():
    # RAID1 of two 7200 rpm disks, 4 KiB random writes one at a time over 4 TB: a chunk of 64 MiB is
    # written once in ~6 minutes, so nearly every write finds it clean: two disk writes in turn. The
    # page write is the longer: a seek to the bitmap at the members' start from a random place
    # (E[sqrt D] 2/3 of the stroke's scale, not 8/15), the slower of the two members' rotational waits
    # (2/3 of a revolution), and the data's seek back from there: 17.6 ms against the data's 12.5.
    job = dict(rw="randwrite", bs=4096, iodepth=1)
    without = _iops(_plan(1, 2, "none"), **job)
    with_bitmap = _iops(_plan(1, 2), **job)
    assert 0.39 < with_bitmap / without < 0.45
    (p,) = predict(_plan(1, 2), workloads=[Workload(name="j", **job)])
    assert "bitmap chunk clean" in p.terms[0].note


def test_a_span_the_daemon_cannot_clean_in_time_costs_nothing():
    # 1 GiB is 16 chunks of 64 MiB, each written many times in every daemon period: always dirty.
    job = dict(rw="randwrite", bs=4096, iodepth=1, size=GiB)
    assert _iops(_plan(1, 2), **job) == pytest.approx(_iops(_plan(1, 2, "none"), **job), rel=0.01)


def test_requests_in_flight_each_pay_their_own_bitmap_write():
    # The lab's RAID1 at 16 in flight: 0.81 bitmap writes per write where 0.79 found their chunk clean.
    ratio = {q: _iops(_plan(1, 2), rw="randwrite", bs=4096, iodepth=q) for q in (1, 16)}
    base = {q: _iops(_plan(1, 2, "none"), rw="randwrite", bs=4096, iodepth=q) for q in (1, 16)}
    assert 0.39 < ratio[1] / base[1] <= ratio[16] / base[16] < 0.6


def test_a_stream_pays_one_bitmap_write_per_chunk_and_a_bigger_chunk_pays_less():
    job = dict(rw="write", bs=1 << 20, iodepth=4)
    none = _iops(_plan(5, 4, "none"), **job)
    small = _iops(_plan(5, 4, chunk=8 * MiB), **job)
    default = _iops(_plan(5, 4), **job)  # mdadm's 64 MiB
    big = _iops(_plan(5, 4, chunk=512 * MiB), **job)
    assert small < default < big <= none
    assert default / none > 0.9  # two seeks per 64 MiB on each member
    assert small / none < 0.75


def test_a_bitmap_at_the_members_end_costs_a_stream_at_their_start_a_full_stroke_each_way():
    # metadata 1.0 (and 0.90) keep superblock and bitmap at the end of each member, 1.2 at the start:
    # a stream near the start seeks the whole stroke there and back with the one, settles with the other.
    job = dict(rw="write", bs=1 << 20, iodepth=4, size=4 * GiB)

    def at(metadata: str) -> float:
        plan = _plan(5, 4, chunk=8 * MiB)
        return _iops(
            plan.model_copy(update={"groups": [plan.groups[0].model_copy(update={"metadata": metadata})]}), **job
        )

    assert at("1.0") < 0.8 * at("1.2")


def test_a_bitmap_page_waits_for_its_sector_on_the_slowest_member():
    # md_super_wait returns when the last member's page write completes: of n uniform rotational
    # waits the longest, n/(n+1) of a revolution; the stream's way back waits half of one.
    from planners.perf.bitmap import hdd_page_s
    from planners.perf.context import SETTLE_S
    from planners.perf.predict import build_ctx, geometry_for_speed

    for n in (2, 4, 8):
        plan = _plan(5 if n > 2 else 1, n, chunk=8 * MiB)
        g = build_ctx(plan, geometry_for_speed(plan)).groups[0]
        revolution = 60 / 7200
        assert hdd_page_s(g, 0.0) == pytest.approx(2 * SETTLE_S + (n / (n + 1) + 0.5) * revolution)


def test_reads_and_raid0_pay_nothing():
    for rw in ("randread", "read"):
        job = dict(rw=rw, bs=4096, iodepth=1)
        assert _iops(_plan(1, 2), **job) == _iops(_plan(1, 2, "none"), **job)
    # RAID0 takes no bitmap (md refuses one): the plan's choice is ignored.
    job = dict(rw="randwrite", bs=4096, iodepth=1)
    assert _iops(_plan(0, 2, "none"), **job) > 0


def test_a_mirrored_write_keeps_every_copy_busy_at_once():
    # The lab's RAID1 without bitmap at depth 1: 198.0/s measured on disks of 197.2/s each; the model
    # gave 144.9/s when it spread the two copies over the members at random (75 % busy).
    from planners.hardware.disks import DiskPerf, DiskSpec
    from planners.hardware.machine import Hardware

    disk = DiskPerf(seq_read_mb_s=4, seq_write_mb_s=4, rand_read_iops=197.2, rand_write_iops=197.2)
    plan = _plan(1, 2, "none", size=256 * MiB).model_copy(
        update={"hardware": Hardware(disk=DiskSpec(disk_class="ssd-sata", parallelism=1))}
    )
    (p,) = predict(plan, workloads=[Workload(name="w", rw="randwrite", bs=4096, iodepth=1)], disk_override=disk)
    assert p.iops == pytest.approx(197.2, rel=0.01)


def _nvme_mirror(bitmap: str, kernel: str, **disk) -> Plan:
    from planners.hardware.disks import DiskSpec
    from planners.hardware.machine import Hardware, Wiring
    from planners.versions import ToolVersions

    return _plan(1, 2, bitmap, chunk=4 * MiB if bitmap == "internal" else None, size=10**12).model_copy(
        update={
            "disks": [DiskSet(count=2, size=10**12, rotational=False)],
            "hardware": Hardware(disk=DiskSpec(disk_class="nvme", **disk), wiring=Wiring(link="direct")),
            "tools": ToolVersions(kernel=kernel),
        }
    )


QD1 = dict(rw="randwrite", bs=4096, iodepth=1)


def test_a_mirror_hands_its_writes_to_mds_thread_with_a_bitmap_or_before_6_5():
    # raid1/raid10 queue a write submitted without a plug for raid1d/raid10d unless (from 6.5) the
    # array has no bitmap: one wake of md's thread more per write at depth 1 on flash.
    old, new = _iops(_nvme_mirror("none", "6.4"), **QD1), _iops(_nvme_mirror("none", "6.5"), **QD1)
    assert old < new
    (p,) = predict(_nvme_mirror("internal", "6.5"), workloads=[Workload(name="j", **QD1)])
    note = next(t.note for t in p.terms if t.name == "queue depth")
    assert "waking md's thread" in note and "bitmap chunk clean" in note


def test_a_volatile_cache_flush_lengthens_each_bitmap_write():
    # md_super_write sends REQ_PREFLUSH | REQ_FUA: free on power-protected flash, a flush otherwise.
    plp = _iops(_nvme_mirror("internal", "6.1"), **QD1)
    cached = _iops(_nvme_mirror("internal", "6.1", flush_us=500), **QD1)
    assert cached < 0.8 * plp


def test_the_clean_chance_follows_the_rate_the_requests_get():
    # A slower host (a deeper idle state to leave on each wake) writes each chunk less often, so
    # more writes find their chunk clean: the chance is the requests' own rate, not the disks'.
    from planners.hardware.machine import Cpu

    def clean(plan: Plan) -> int:
        (p,) = predict(plan, workloads=[Workload(name="j", **QD1)])
        return int(re.search(r"(\d+)% of writes find", p.terms[0].note)[1])

    fast = _nvme_mirror("internal", "6.1")
    slow = fast.model_copy(update={"hardware": fast.hardware.model_copy(update={"cpu": Cpu(idle_exit_us=100)})})
    assert clean(slow) > clean(fast)
