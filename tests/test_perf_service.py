"""Per-request service time, controllers and their write-back caches, link kinds and ranges."""

from __future__ import annotations

import pytest

from planners.hardware.disks import DiskPerf, DiskSpec
from planners.hardware.machine import LINK_MB_S, Controller, Hardware, Wiring, resolve_controller
from planners.models import DiskSet, MdGroup, Plan
from planners.perf.predict import predict
from planners.perf.workloads import Workload
from planners.units import KiB

TB = 1_000_204_886_016


def plan(n: int, level: int, hw: Hardware, chunk: int = 128 * KiB) -> Plan:
    return Plan(
        name="svc",
        disks=[DiskSet(count=n, size=TB)],
        groups=[MdGroup(name="md0", level=level, members=n, chunk=chunk, bitmap="none")],
        hardware=hw,
    )


def one(p: Plan, w: Workload):
    (pred,) = predict(p, workloads=[w])
    return pred


LOG_WRITER = Workload(name="log", rw="write", bs=8 * KiB, numjobs=5, iodepth=1, ioengine="psync", direct=True)


def test_small_direct_requests_at_queue_depth_one_pay_the_round_trip():
    # Five writers of 8 KiB at queue depth one behind an FC array with a write-back cache: each
    # request costs the controller's round trip and its trip over the link, not a disk's
    # streaming time, so five in flight make ~9,000 requests/s however many disks there are.
    hw = Hardware(
        disk=DiskSpec(disk_class="hdd10k"),
        wiring=Wiring(link="fc2", disks_per_link=24),
        controller=Controller(kind="fc-array"),
    )
    p = one(plan(24, 10, hw), LOG_WRITER)
    per_request_ms = LOG_WRITER.in_flight / p.iops * 1e3
    assert 0.5 <= per_request_ms <= 0.8, p
    assert p.binding == "queue depth" and "acknowledged by the cache" in p.terms[0].note
    # More disks change nothing; more writers do.
    assert one(plan(48, 10, hw), LOG_WRITER).iops == pytest.approx(p.iops)
    more = LOG_WRITER.model_copy(update={"numjobs": 6})  # md sends both copies over the link: 2 x 91 MB/s
    assert one(plan(24, 10, hw), more).iops == pytest.approx(6 / 5 * p.iops)


def test_round_trip_without_a_cache_adds_to_each_disk_request():
    direct = Hardware(disk=DiskSpec(disk_class="hdd10k"))
    raid = direct.model_copy(update={"controller": Controller(kind="raid", cache_bytes=0)})
    w = Workload(name="r", rw="randread", bs=8 * KiB, iodepth=1)
    bare, behind = one(plan(8, 0, direct), w), one(plan(8, 0, raid), w)
    # Little's law with one request in flight: the response time grows by exactly the round trip.
    assert 1 / behind.iops - 1 / bare.iops == pytest.approx(150e-6, rel=1e-6)
    # With many requests in flight the disks are the limit and the round trip hardly matters.
    deep = w.model_copy(update={"iodepth": 256})
    assert one(plan(8, 0, raid), deep).iops > 0.97 * one(plan(8, 0, direct), deep).iops


def test_a_write_back_cache_drains_random_writes_sorted_and_absorbs_a_short_run():
    hw = Hardware(disk=DiskSpec(disk_class="hdd10k"), controller=Controller(kind="raid"))
    w = Workload(name="oltp", rw="randwrite", bs=8 * KiB, numjobs=4, iodepth=8)
    no_cache = one(plan(24, 10, hw.model_copy(update={"controller": None})), w)
    steady = one(plan(24, 10, hw), w)
    # The controller keeps 32 writes queued per disk, served nearest first: far more than the
    # host's 32 requests (64 disk writes) spread over 24 disks, ~2.7 queued on each, which each
    # disk's NCQ sorts a little (x4 before the disks' own queues were modelled, x2.8 since).
    assert steady.binding == "write cache" and steady.iops > 2.5 * no_cache.iops
    # A run short enough to fit in the cache goes at the host's rate; a long one tends to the drain.
    host = one(
        plan(24, 10, hw.model_copy(update={"controller": Controller(kind="raid", cache_bytes=64 << 30)})),
        w.model_copy(update={"runtime_s": 10.0, "time_based": True}),
    )
    long_run = one(plan(24, 10, hw), w.model_copy(update={"runtime_s": 3600.0, "time_based": True}))
    assert host.iops > long_run.iops > steady.iops
    assert long_run.iops == pytest.approx(steady.iops, rel=0.05)


def test_reads_and_sequential_streams_are_unchanged_by_a_write_cache():
    hw = Hardware(disk=DiskSpec(disk_class="hdd7200"))
    w = Workload(name="r", rw="read", bs=1 << 20, iodepth=8)
    cached = hw.model_copy(update={"controller": Controller(kind="raid", round_trip_us=0)})
    assert one(plan(8, 0, cached), w).mb_s == pytest.approx(one(plan(8, 0, hw), w).mb_s)


def test_fibre_channel_and_parallel_scsi_rates_follow_their_standards():
    assert [LINK_MB_S[k] for k in ("fc1", "fc2", "fc4", "fc8", "fc16", "fc32")] == [100, 200, 400, 800, 1600, 3200]
    assert (LINK_MB_S["ultra160"], LINK_MB_S["ultra320"]) == (160, 320)
    hw = Hardware(disk=DiskSpec(disk_class="hdd15k"), wiring=Wiring(link="fc2", disks_per_link=14))
    p = one(plan(14, 0, hw), Workload(name="s", rw="read", bs=1 << 20, iodepth=32))
    assert p.binding == "link" and p.mb_s == pytest.approx(200)


def test_a_given_round_trip_is_not_a_preset():
    assert resolve_controller(Controller(kind="fc-array")).spread > 0
    assert resolve_controller(Controller(kind="fc-array", round_trip_us=400)).spread == 0


def test_figures_on_presets_come_with_a_range_and_measured_ones_a_narrow_one():
    w = Workload(name="s", rw="read", bs=1 << 20, iodepth=16)
    preset = one(plan(8, 0, Hardware()), w)
    assert preset.mb_s_low < preset.mb_s < preset.mb_s_high and "hdd7200 preset" in preset.assumption
    assert not preset.inputs_stated
    measured = predict(
        plan(8, 0, Hardware()),
        workloads=[w],
        disk_override=DiskPerf(seq_read_mb_s=200, seq_write_mb_s=200, rand_read_iops=150, rand_write_iops=150),
    )[0]
    # A measured disk's range is fio's run-to-run repeatability (±10 %), not a class's spread
    # (measured figures used to carry none; the lab rows then had a range of zero width).
    assert measured.mb_s_low == pytest.approx(0.9 * measured.mb_s) and "measured" in measured.assumption
    assert measured.inputs_stated and "every input stated" in measured.assumption
    assert measured.range_from == ["disk transfer rates: measured (fio's run-to-run repeatability, ±10%)"]
    assert measured.range_terms == ["disks"] or measured.range_terms[0] in ("disks", "queue depth")
    # A link bound figure rests on a standard's rate, not on a preset: no range.
    fc = Hardware(disk=DiskSpec(disk_class="hdd15k"), wiring=Wiring(link="fc1", disks_per_link=8))
    linked = one(plan(8, 0, fc), w)
    assert linked.binding == "link" and linked.mb_s_low == linked.mb_s
