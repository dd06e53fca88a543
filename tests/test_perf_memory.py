"""The page cache between a buffered writer and the disks: dirty limits, run length, end_fsync."""

from __future__ import annotations

import pytest

from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.context import build_ctx
from planners.perf.memory import absorb, dirty_thresholds
from planners.perf.predict import predict
from planners.perf.workloads import Workload
from planners.units import KiB
from planners.versions import ToolVersions

GiB = 2**30
TB = 1_000_204_886_016


def plan(memory: int, kernel: str = "6.1") -> Plan:
    # Four 7200 rpm disks in RAID5: a drain (~300 MB/s) far below one writer's copy rate.
    return Plan(
        name="pc",
        disks=[DiskSet(count=4, size=TB)],
        filesystem=Filesystem(type="ext4"),
        groups=[MdGroup(name="md0", level=5, members=4, chunk=512 * KiB, bitmap="none")],
        tools=ToolVersions(kernel=kernel),
        hardware=Hardware(disk=DiskSpec(disk_class="hdd7200"), memory_bytes=memory),
    )


def writer(**kw: object) -> Workload:
    return Workload(name="dd", rw="write", bs=1 << 20, direct=False, ioengine="psync", target="file", **kw)


def one(p: Plan, w: Workload):
    (pred,) = predict(p, workloads=[w])
    return pred


def test_dirty_thresholds_are_the_ratios_of_memory():
    from planners.compute import compute

    p = plan(16 * GiB)
    assert dirty_thresholds(build_ctx(p, compute(p))) == (int(16 * GiB * 0.1), int(16 * GiB * 0.2))


def test_a_run_with_no_end_measures_the_drain():
    steady = one(plan(16 * GiB), writer())
    assert steady.binding != "CPU copy" and not steady.outside_model


def test_a_short_buffered_run_under_the_dirty_limit_is_outside_the_model():
    p = one(plan(16 * GiB), writer(size=1 * GiB))
    assert p.binding == "CPU copy" and "never has" in p.outside_model and "dirty" in p.outside_model
    # end_fsync makes the run wait for the disks: a prediction again, below the copy rate.
    synced = one(plan(16 * GiB), writer(size=1 * GiB, end_fsync=True))
    assert not synced.outside_model and synced.mb_s < p.mb_s


def test_run_length_decides_how_much_lands_in_memory():
    steady = one(plan(16 * GiB), writer()).mb_s
    # 5 GB for 10 s on a 16 GiB host: the first ~2.6 GB go at memory speed, the rest at the drain.
    ten = one(plan(16 * GiB), writer(size=5 * 10**9, runtime_s=10, time_based=True))
    assert not ten.outside_model and steady * 1.5 < ten.mb_s
    # An hour of it is the drain's rate, give or take the first seconds.
    hour = one(plan(16 * GiB), writer(size=5 * 10**9, runtime_s=3600, time_based=True))
    endless = one(plan(16 * GiB), writer(size=5 * 10**9, runtime_s=10**7, time_based=True))
    assert hour.mb_s == pytest.approx(endless.mb_s, rel=0.02) and hour.mb_s < ten.mb_s
    # The same 10 s on a 64 GiB host never reaches the throttle: a 5 GB file cannot hold more dirty.
    assert one(plan(64 * GiB), writer(size=5 * 10**9, runtime_s=10, time_based=True)).outside_model


def test_a_kernel_before_io_less_throttling_is_outside_the_model():
    p = one(plan(16 * GiB, kernel="2.6.32"), writer(size=20 * 10**9))
    assert "3.2" in p.outside_model


def test_absorb_averages_the_two_phases():
    w = writer(runtime_s=10, time_based=True)
    # 1000 MB/s into 2 GB that starts draining at 1 GB at 100 MB/s: full after 1 + 1e9/900e6 s.
    rate, unthrottled = absorb(1000, 100, 2e9, 1e9, w)
    t_full = 1 + 1e9 / 900e6
    assert rate == pytest.approx((1000e6 * t_full + 100e6 * (10 - t_full)) / 10 / 1e6)
    assert not unthrottled
    assert absorb(50, 100, 2e9, 1e9, w) == (50, False)  # the disks keep up: nothing to absorb


def test_fio_counts_from_the_end_of_its_ramp():
    """fio's ramp_time: a runtime starts after it, a size counts the ramp's bytes too (fio 3.33 wrote
    256 MiB at 64 MiB/s with a 1 s ramp and reported 191 MiB over 2.97 s)."""
    # 1000 MB/s into an empty 1 GB cache that drains at 100 MB/s: full at t = 1e9 / 900e6 s.
    t_full = 1e9 / 900e6
    full_bytes = 1000e6 * t_full

    def by(t: float) -> float:
        return 1000e6 * t if t <= t_full else full_bytes + 100e6 * (t - t_full)

    timed = writer(runtime_s=10, time_based=True, ramp_s=0.5)
    rate, unfilled = absorb(1000, 100, 1e9, 0.0, timed)
    assert rate == pytest.approx((by(10.5) - by(0.5)) / 10 / 1e6) and not unfilled
    # A ramp past the knee leaves the drain alone counted.
    assert absorb(1000, 100, 1e9, 0.0, writer(runtime_s=10, time_based=True, ramp_s=5))[0] == pytest.approx(100)
    # 3 GB by size: done at t_full + (3e9 - full_bytes) / 100e6, counted from the ramp's end.
    sized = writer(size=3 * 10**9, ramp_s=2)
    end = t_full + (3e9 - full_bytes) / 100e6
    assert absorb(1000, 100, 1e9, 0.0, sized)[0] == pytest.approx((3e9 - by(2)) / (end - 2) / 1e6)
    # Bytes done within the ramp: fio counts nothing; the rate of that moment is given.
    assert absorb(1000, 100, 1e9, 0.0, writer(size=10**8, ramp_s=5)) == (1000, True)
    # No ramp: the whole run, as before.
    assert absorb(1000, 100, 1e9, 0.0, writer(runtime_s=10, time_based=True))[0] == pytest.approx(by(10) / 10 / 1e6)


def test_a_ramp_lowers_a_buffered_writer_to_what_fio_counts():
    # 5 GB looped for 10 s on a 16 GiB host: memory takes ~2.6 GB of it at the copy rate; after a 30 s
    # ramp the throttle holds the writer from the first counted byte: the rate of an endless run.
    def rate(**kw: float) -> float:
        return float(one(plan(16 * GiB), writer(size=5 * 10**9, time_based=True, **kw)).mb_s)

    endless = rate(runtime_s=10**7)
    assert rate(runtime_s=10, ramp_s=30) == pytest.approx(endless, rel=1e-6)
    assert endless < rate(runtime_s=10) / 1.3
