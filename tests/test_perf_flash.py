"""Flash requests larger than the datasheet's 4 KiB: bound by the drive's bytes, and needing
fewer in flight to get there (planners.perf.flash)."""

from __future__ import annotations

import pytest

from planners.hardware.disks import resolve_disk
from planners.perf.context import flash_slots, rand_iops
from planners.units import KiB
from tests.test_perf_published import M5100_MAX, P4510


def test_a_request_beyond_4k_needs_its_own_rate_times_its_time_in_flight() -> None:
    disk = resolve_disk(P4510)
    # 636,500 IOPS x 85 us at 4 KiB; 28 KiB: 3,000 MB/s / 28 KiB x (85 us + 24 KiB at 3,000 MB/s)
    assert flash_slots(disk, False) == pytest.approx(636_500 * 85e-6)
    assert rand_iops(disk, 1.0, 28 * KiB, False) == pytest.approx(3000e6 / (28 * KiB))
    assert flash_slots(disk, False, 28 * KiB) == pytest.approx(3000e6 / (28 * KiB) * (85e-6 + 24 * KiB / 3000e6))


def test_random_writes_beyond_4k_move_the_steady_states_bytes_and_reads_do_not() -> None:
    disk = resolve_disk(M5100_MAX)
    for bs in (8 * KiB, 64 * KiB):
        assert rand_iops(disk, 1.0, bs, True) == pytest.approx(74_000 * 4 * KiB / bs)
    assert rand_iops(disk, 1.0, 4 * KiB, True) == 74_000
    # a read's bytes: the sequential rate's, above the 4 KiB writes' steady state
    assert rand_iops(disk, 1.0, 8 * KiB, False) == pytest.approx(540e6 / (8 * KiB))
