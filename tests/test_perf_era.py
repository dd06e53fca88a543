"""The kernel a plan states changes md's raid4/5/6 write path: no group threads before 3.12, full stripes
one 4 KiB stripe head at a time before 4.1 (planners.perf.era)."""

from __future__ import annotations

import pytest

from planners.hardware.machine import Cpu
from planners.models import Plan
from planners.perf.era import BATCH_GAIN
from planners.perf.predict import WorkloadPrediction, predict
from planners.perf.workloads import Workload
from planners.units import KiB
from tests.perf_helpers import nvme_md


def nvme_raid6(kernel: str, group_threads: int = 0) -> Plan:
    cpu = Cpu(cpu_class="opteron-2006")
    return nvme_md(6, 8, cpu, chunk=64 * KiB, fs="ext4", kernel=kernel, group_threads=group_threads)


def term(p: WorkloadPrediction, name: str):  # type: ignore[no-untyped-def]
    return next(t for t in p.terms if t.name == name)


def one(plan: Plan, w: Workload) -> WorkloadPrediction:
    (p,) = predict(plan, workloads=[w])
    return p


FULL = Workload(name="w", rw="write", bs=384 * KiB, ioengine="libaio", iodepth=8)
SMALL = Workload(name="r", rw="randwrite", bs=4 * KiB, ioengine="libaio", iodepth=64)


def test_full_stripes_before_4_1_pass_md_thread_one_stripe_head_at_a_time():
    new, old = term(one(nvme_raid6("6.1"), FULL), "md thread"), term(one(nvme_raid6("3.19"), FULL), "md thread")
    assert new.mb_s == pytest.approx(518, rel=0.01)  # the Opteron's thread (docs/calibration.md)
    assert old.mb_s == pytest.approx(new.mb_s / BATCH_GAIN)
    assert "4.1" in old.note and "4.1" not in new.note
    assert term(one(nvme_raid6("4.1"), FULL), "md thread").mb_s == new.mb_s


def test_partial_stripes_were_never_batched():
    assert (
        term(one(nvme_raid6("3.19"), SMALL), "md thread").mb_s == term(one(nvme_raid6("6.1"), SMALL), "md thread").mb_s
    )


def test_group_threads_exist_from_3_12():
    with_threads = term(one(nvme_raid6("4.19", 1), FULL), "md thread")
    assert with_threads.mb_s == pytest.approx(2 * term(one(nvme_raid6("4.19"), FULL), "md thread").mb_s)
    before = term(one(nvme_raid6("3.10", 1), FULL), "md thread")
    assert before.mb_s == pytest.approx(518 / BATCH_GAIN, rel=0.01)
    assert "3.12" in before.note


@pytest.mark.parametrize(
    "level,kernel,marked", [(1, "4.9", True), (1, "4.11", False), (5, "3.10", True), (5, "3.13", False)]
)
def test_a_lock_the_kernel_took_and_the_model_does_not_count_marks_the_figure(level: int, kernel: str, marked: bool):
    plan = nvme_md(level, 2 if level == 1 else 4, Cpu(cores=16), kernel=kernel)
    w = Workload(name="w", rw="randwrite", bs=4 * KiB, ioengine="libaio", iodepth=32, numjobs=8)  # type: ignore[arg-type]
    (p,) = predict(plan, workloads=[w])
    assert ("a lock the model does not count" in p.outside_model) == marked
    (one_job,) = predict(plan, workloads=[w.model_copy(update={"numjobs": 1})])
    assert one_job.outside_model == ""  # one submitter contends with nobody
