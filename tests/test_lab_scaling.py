"""Scaling witness: numjobs and iodepth sweeps on RAID0 and RAID6 of throttled virtual disks, one boot.

Every member is held to the same bytes/s and requests/s (as in test_lab_perf), one raw disk is
measured first and feeds the model, then each array runs the sweeps with direct I/O: sequential
1 MiB reads and 4 KiB random reads at numjobs 1, 2, 4, 8, 16, and 4 KiB random reads at iodepth
1 to 64. Each point must land within 20 % of the model's, or be marked outside the model.

A throttled virtual disk is a rate, not a disk: qemu holds a request only once the disk's budget
for the moment is spent, so a request alone on it completes at once instead of taking 1/IOPS.
With few random requests in flight a real member is busy for each one's service time and the
others wait idle; here the others' budgets fill meanwhile and the array gives its summed rate at
any depth. Those points (fewer requests in flight than the 4 per member that validate keeps, so
that every real disk has a queue) are outside what the lab can witness, and marked so.
"""

from __future__ import annotations

import time

import pytest

from planners.hardware.disks import DiskPerf
from planners.perf.predict import predict
from planners.perf.scale import PointPrediction, at_point, mark_knees
from planners.perf.workloads import RANDOM_DEPTH_PER_DISK, VALIDATION, Workload
from planners.units import KiB, MiB
from runners.lab import LabConfig, LabDisk, ensure_kit, fio_scenario, run_batch, scenario_fio_runs
from tests.lab_helpers import record_calibration, skip_unless_lab
from tests.test_lab_perf import BPS, IOPS, MEMBERS, SIZE, TOLERANCE, job_file, measured, plan

pytestmark = pytest.mark.slow

skip_unless_lab()

SEQ = Workload(name="seq", rw="read", bs=MiB, ioengine="libaio", iodepth=1)
RND = Workload(name="rnd", rw="randread", bs=4 * KiB, ioengine="libaio", iodepth=1)
SWEEPS = [
    (SEQ, "numjobs", (1, 2, 4, 8, 16)),
    (RND, "numjobs", (1, 2, 4, 8, 16)),
    (RND, "iodepth", (1, 2, 4, 8, 16, 32, 64)),
]
LEVELS = (0, 6)
CHUNK = 64 * KiB
SHALLOW = (
    "a throttled virtual disk has no service time: with fewer random requests in flight than 4 per "
    "member, qemu's rate lets each through at once, so the members' summed rate is reached at any depth"
)


def lab_outside(w: Workload) -> str:
    """Why a point is outside what the lab's throttled disks can witness ('' when it is not)."""
    return SHALLOW if w.is_random and w.in_flight < RANDOM_DEPTH_PER_DISK * MEMBERS else ""


def points() -> list[tuple[Workload, dict[str, int], Workload]]:
    """(the swept workload, the point, the workload at it named as its own fio section)."""
    out = []
    for w, key, values in SWEEPS:
        for v in values:
            at = at_point(w, {key: v})
            out.append((w, {key: v}, at.model_copy(update={"name": f"{w.name}-{key}-{v}"})))
    return out


@pytest.fixture(scope="module")
def lab():
    disk = LabDisk(size_bytes=SIZE, bps_total=BPS, iops_total=IOPS)
    base = fio_scenario(
        "base",
        (disk,),
        "",
        job_file(list(VALIDATION)),
        target="/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_base-0",
        timeout_s=120,
        collect=False,
    )
    scenarios = [base]
    sweep_job = job_file([at for _, _, at in points()])
    for level in LEVELS:
        setup = (
            f"mdadm --create /dev/md0 --run --level={level} --raid-devices={MEMBERS} --chunk={CHUNK // KiB} "
            + ("" if level == 0 else "--assume-clean --bitmap=none ")
            + "$PODPLAN_DISKS"
        )
        # Two runs, the faster point of each kept (as test_lab_perf does): other work on the host only
        # slows the emulated CPU, and 16 jobs of it are what such a slowdown shows on first.
        scenarios.append(
            fio_scenario(
                f"r{level}",
                (disk,) * MEMBERS,
                setup,
                sweep_job,
                target="/dev/md0",
                timeout_s=900,
                collect=False,
                runs=2,
            )
        )
    started = time.monotonic()
    result = run_batch(scenarios, kit=ensure_kit(), config=LabConfig(timeout_s=2400))
    print(f"\nlab scaling batch: {time.monotonic() - started:.0f} s, accel {result.accel}")
    return result


def _measured(result, name: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    runs = [{j["jobname"]: j for j in doc["jobs"]} for doc in scenario_fio_runs(result, name)]
    return {
        at.name: max(
            (j[at.name]["read"]["iops"] if at.is_random else j[at.name]["read"]["bw_bytes"] / 1e6) for j in runs
        )
        for _, _, at in points()
    }


def test_sweeps_match_the_model_fed_with_one_measured_disk(lab) -> None:  # type: ignore[no-untyped-def]
    base = measured(lab, "base", list(VALIDATION))
    disk = DiskPerf(
        seq_read_mb_s=base["seq-read"],
        seq_write_mb_s=base["seq-write"],
        rand_read_iops=base["rand-read-4k"],
        rand_write_iops=base["rand-write-4k"],
    )
    rows, bad = [], []
    for level in LEVELS:
        p = plan(level, CHUNK)
        got = _measured(lab, f"r{level}")
        for w, key, values in SWEEPS:
            curve = []
            for v in values:
                (pred,) = predict(p, workloads=[at_point(w, {key: v})], disk_override=disk)
                curve.append(PointPrediction(**pred.model_dump(), point={key: v}))
            for pt in mark_knees(curve, key):
                v = pt.point[key]
                value = pt.iops if w.is_random else pt.mb_s
                m = got[f"{w.name}-{key}-{v}"]
                err = (value - m) / m
                outside = pt.outside_model or lab_outside(at_point(w, {key: v}))
                rows.append(
                    dict(
                        level=level,
                        workload=w.name,
                        key=key,
                        value=v,
                        predicted=value,
                        measured=m,
                        error=err,
                        binding=pt.binding,
                        knee=pt.knee_cause,
                        outside=outside,
                    )
                )
                if abs(err) > TOLERANCE and not outside:
                    bad.append(rows[-1])
    table = "\n".join(
        f"RAID{r['level']} {r['workload']} {r['key']}={r['value']}: predicted {r['predicted']:.1f}, "
        f"measured {r['measured']:.1f} ({r['error']:+.0%}), {r['binding']}"
        + (f", knee ({r['knee']})" if r["knee"] else "")
        + (" *" if r["outside"] else "")
        for r in rows
    )
    print(f"\nbaseline disk: {disk}\n{table}")
    record_calibration({"baseline": disk.model_dump(), "rows": rows})
    assert not bad, table
