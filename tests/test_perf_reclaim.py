"""A buffered reader's copy ceiling while the page cache has room, and once every page read has another
reclaimed (planners.perf.reclaim)."""

from __future__ import annotations

import pytest

from planners.hardware.machine import Cpu
from planners.models import Plan
from planners.perf.predict import predict
from planners.perf.workloads import Workload
from planners.units import GiB, KiB
from tests.perf_helpers import nvme_md

MEMORY = 64 * GiB


def nvme_raid0(cpu: str = "server") -> Plan:
    return nvme_md(0, 16, Cpu(cpu_class=cpu, cores=64, sockets=2), memory=MEMORY)  # type: ignore[arg-type]


def copy(w: Workload, cpu: str = "server") -> float:
    (p,) = predict(nvme_raid0(cpu), workloads=[w])
    return next(t.mb_s for t in p.terms if t.name == "CPU copy")


def reader(**update) -> Workload:  # type: ignore[no-untyped-def]
    w = Workload(name="r", rw="read", bs=64 * KiB, direct=False, ioengine="psync", target="file")
    return w.model_copy(update=update)


def test_a_run_that_fits_in_memory_never_reclaims():
    """J. Axboe's 32 buffered readers (linux-mm, 2024): 157 GB/s, 4.9 GB/s each, while the cache had room."""
    assert copy(reader(size=16 * GiB)) == pytest.approx(4900)


def test_once_the_cache_is_full_each_page_pays_a_reclaim():
    """The same readers settled at 95.5 GB/s once the cache was full: 2.98 GB/s each."""
    steady = copy(reader(size=None))
    assert steady == pytest.approx(95.5e3 / 32, rel=0.01)
    assert "reclaimed" in next(
        t.note for t in predict(nvme_raid0(), workloads=[reader(size=None)])[0].terms if t.name == "CPU copy"
    )


def test_a_run_past_memory_pays_it_for_the_part_after():
    part = copy(reader(size=2 * MEMORY))
    # The first 64 GiB at 4.9 GB/s, the next 64 GiB at the full cache's rate: the harmonic mean.
    assert part == pytest.approx(2 / (1 / 4900 + 1 / copy(reader(size=None))), rel=1e-6)


def test_an_older_core_pays_more_a_page():
    """Each generation's per-page costs divide by its core speed, as every per-request figure."""
    new, old = copy(reader(size=None)), copy(reader(size=None), "westmere-2010")
    assert old == pytest.approx(0.58 * new, rel=0.01)
