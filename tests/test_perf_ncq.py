"""Random requests at depth on spinning disks: each disk sorts what the array queues on it (NCQ)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from planners.hardware.disks import DISK_CLASSES, DiskSpec
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.context import NCQ_TAGS, SETTLE_S, queued_iops, rand_iops
from planners.perf.predict import predict
from planners.perf.workloads import PRESETS, Workload


def raid0(n: int, disk: str = "hdd7200") -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=n, size=16_000_000_000_000)],
        groups=[MdGroup(name="md0", level=0, members=n, chunk=512 * 1024, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(disk=DiskSpec(disk_class=disk)),
    )


def iops(p: Plan, in_flight: int) -> float:
    (r,) = predict(p, workloads=[Workload(name="w", rw="randread", bs=4096, iodepth=in_flight)])
    return r.iops


def test_more_requests_in_flight_shorten_each_disks_positioning_until_ncq_is_full():
    p = raid0(12)
    a, b, c, d = (iops(p, n) for n in (128, 256, 384, 512))
    assert a < b < c  # 10.7, 21 and 32 queued per disk: each sorts a deeper queue
    # past NCQ's 32 tags per disk nothing more to sort (the host CPU in each request's path, microseconds, differs)
    assert d == pytest.approx(c, rel=1e-4)


def test_on_a_full_span_the_gain_grows_as_the_cube_root_of_the_queue():
    # Near t = 0 one request's access time has P(T <= t) = 2 t^3 / (3 alpha^2) wherever the head
    # is, so the soonest of a deep queue on a full span (alpha ~ 1.65 revolutions) comes as q^(-1/3).
    disk = DISK_CLASSES["hdd7200"]
    settle = 0.001
    t8, t27 = (1 / queued_iops(disk, 1.0, 512, q, False) for q in (8, 27))
    x = 512 / 165e6  # 512 bytes at the middle zone's rate
    assert (t8 - settle - x) / (t27 - settle - x) == pytest.approx(1.5, rel=0.02)
    assert queued_iops(disk, 1.0, 4096, 1, False) == pytest.approx(rand_iops(disk, 1.0, 4096, False))
    assert queued_iops(disk, 1.0, 4096, 64, False) == queued_iops(disk, 1.0, 4096, NCQ_TAGS, False)


def test_on_a_short_span_the_soonest_of_q_waits_a_revolution_over_q_plus_one():
    # 1 MB of 16 TB: the seek is the settle alone, the waits are q uniform draws over a turn.
    disk = DISK_CLASSES["hdd7200"]
    rev = 60 / 7200
    for q in (2, 4, 16, 32):
        x = 4096 / 220e6  # the outer zone's rate
        t = 1 / queued_iops(disk, 1e-7, 4096, q, False) - SETTLE_S - x
        assert t == pytest.approx(rev / (q + 1), rel=0.01)


def test_the_figure_falls_with_every_request_added_and_rises_as_the_span_shrinks():
    disk = DISK_CLASSES["hdd7200"]
    for span in (1.0, 0.3, 0.01, 1e-4):
        got = [queued_iops(disk, span, 4096, 1 + i / 4, False) for i in range(4 * 31 + 1)]
        assert all(a < b for a, b in pairwise(got))
    spans = [1.0, 0.5, 0.1, 0.01, 0.001]
    for q in (2, 8, 32):
        got = [queued_iops(disk, s, 4096, q, False) for s in spans]
        assert all(a < b for a, b in pairwise(got))


def test_a_7200_rpm_disk_at_queue_depth_16_against_its_datasheet():
    # Seagate Exos X16 product manual: random 4 KiB reads at queue depth 16, write cache off,
    # 170 IOPS. The class preset (80 IOPS at depth 1: ~8.3 ms seek and half a 7200 rpm turn) was
    # not set from it.
    got = queued_iops(DISK_CLASSES["hdd7200"], 1.0, 4096, 16, False)
    assert got == pytest.approx(170, rel=0.25)


def test_flash_has_nothing_to_sort():
    (r,) = predict(raid0(4, "ssd-sata"), workloads=[Workload(name="w", rw="randread", bs=4096, iodepth=512)])
    assert next(t.iops for t in r.terms if t.name == "disks") == pytest.approx(4 * 90000)


@pytest.mark.parametrize("span", [1.0, 0.1, 0.005])
def test_one_queued_request_is_no_faster_than_a_lone_one(span):
    disk = DISK_CLASSES["hdd7200"]
    single = rand_iops(disk, span, 4096, False)
    assert queued_iops(disk, span, 4096, 1.0001, False) == pytest.approx(single, rel=1e-3)
    assert queued_iops(disk, span, 4096, 2, False) > single


def test_a_third_disk_never_slows_three_random_readers():
    # Three bonnie++ seekers over RAID0 of 2 disks queue 1.5 requests per disk, over 3 disks 1: the
    # sorting gain of the deeper queue must not pass what the third disk adds.
    w = [PRESETS["bonnie-seeks"]]
    two, three = (predict(raid0(n), workloads=w)[0].iops for n in (2, 3))
    assert three > two
