"""btrfs's own RAID against the speed model, on throttled virtual disks, in one boot.

The disks are held to test_lab_perf's bytes/s and requests/s, one raw disk is measured and feeds
the model, then btrfs runs across raw disks: raid1 over two (one direct sequential reader reads one
device under the pid read policy, two readers both; a writer writes both copies at one device's
rate), raid0 over three (a reader and a writer meet every device: the sum) and raid10 over four (one
reader takes one copy of each pair, two readers both). Each figure must land within 20 % of the
model's; a figure that misses runs again in one more boot.
"""

from __future__ import annotations

import pytest

from planners.hardware.disks import DiskPerf, DiskSpec
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Filesystem, Plan
from planners.perf.predict import predict
from planners.perf.workloads import Workload, preset
from planners.units import MiB
from runners.lab import LabDisk, fio_scenario
from tests.lab_helpers import measure_again, record_calibration, shared_batch, skip_unless_lab
from tests.test_lab_perf import BPS, IOPS, TOLERANCE, _figure, base_disk, base_scenario, job_file, measured

pytestmark = pytest.mark.slow

skip_unless_lab()

SIZE = 512 * MiB  # per disk: room for btrfs's first chunks of every kind
FILE = 16 * MiB  # written whole before the jobs: a read of a hole or of unwritten extents moves nothing
ARRAYS = {"b1": ("raid1", 2), "b0": ("raid0", 3), "b10": ("raid10", 4)}


def _job(name: str, numjobs: int = 1) -> Workload:
    # Every job reads or writes the one file: with direct I/O each clone's requests reach the disks.
    w = preset(name)
    return w.model_copy(update={"name": f"{name}-j{numjobs}", "numjobs": numjobs, "size": FILE})


JOBS = {
    "b1": [_job("seq-write"), _job("seq-read"), _job("seq-read", 2)],
    "b0": [_job("seq-read"), _job("seq-write")],
    "b10": [_job("seq-read"), _job("seq-read", 2)],
}


def plan(name: str) -> Plan:
    data, n = ARRAYS[name]
    return Plan(
        name=name,
        disks=[DiskSet(count=n, size=SIZE)],
        filesystem=Filesystem(type="btrfs", data_profile=data, metadata_profile="raid1"),
        hardware=Hardware(disk=DiskSpec(disk_class="ssd-sata", parallelism=1)),  # as test_lab_perf's
    )


def btrfs_scenario(name: str, workloads: list[Workload]):  # type: ignore[no-untyped-def]
    """btrfs of the array's profile made on its disks, mounted, its file written whole, then the jobs."""
    data, n = ARRAYS[name]
    setup = (
        f"mkfs.btrfs -f -q -d {data} -m raid1 $PODPLAN_DISKS\n"
        "btrfs device scan >/dev/null\n"
        "mkdir -p /mnt/b\n"
        "mount ${PODPLAN_DISKS%% *} /mnt/b\n"
        f"dd if=/dev/zero of=/mnt/b/f bs=1M count={FILE // MiB} oflag=direct status=none\n"
        "sync"
    )
    disk = LabDisk(size_bytes=SIZE, bps_total=BPS, iops_total=IOPS)
    return fio_scenario(name, (disk,) * n, setup, job_file(workloads), target="/mnt/b/f", timeout_s=180, collect=False)


LAB_TIMEOUT_S = 600.0


def lab_scenarios(kit) -> list:  # type: ignore[no-untyped-def]
    """The raw disk, then each profile's btrfs under its jobs (tests/lab_helpers.BOOTS)."""
    return [base_scenario()] + [btrfs_scenario(name, jobs) for name, jobs in JOBS.items()]


@pytest.fixture(scope="module")
def lab(request):  # type: ignore[no-untyped-def]
    return shared_batch(request)


def compare(disk: DiskPerf, got: dict[str, dict[str, float]]) -> tuple[list[dict], list[dict]]:
    """Every figure's row (predicted beside measured), and those that miss."""
    rows, bad = [], []
    for name, jobs in JOBS.items():
        data, n = ARRAYS[name]
        for pred in predict(plan(name), workloads=jobs, disk_override=disk):
            m = got[name][pred.workload]
            err = (pred.mb_s - m) / m
            rows.append(dict(profile=data, disks=n, workload=pred.workload, predicted=pred.mb_s, measured=m, error=err))
            rows[-1]["binding"] = pred.binding
            if abs(err) > TOLERANCE:
                bad.append(rows[-1])
    return rows, bad


def test_btrfs_profiles_match_the_model_fed_with_one_measured_disk(lab) -> None:  # type: ignore[no-untyped-def]
    disk = base_disk(lab)
    got = {name: measured(lab, name, jobs) for name, jobs in JOBS.items()}
    rows, bad = compare(disk, got)
    missed: dict[str, list[Workload]] = {}
    for r in bad:
        name = next(k for k, (d, _) in ARRAYS.items() if d == r["profile"])
        missed.setdefault(name, []).extend(w for w in JOBS[name] if w.name == r["workload"])
    again = measure_again(missed, btrfs_scenario, _figure, got, timeout_s=600)
    if again:
        print(f"\nran again: {', '.join(again)}")
        rows, bad = compare(disk, got)
    table = "\n".join(
        f"btrfs {r['profile']} x{r['disks']} {r['workload']}: predicted {r['predicted']:.1f}, measured "
        f"{r['measured']:.1f} ({r['error']:+.0%}), {r['binding']}"
        for r in rows
    )
    print(f"\nbaseline disk: {disk}\n{table}")
    record_calibration({"baseline": disk.model_dump(), "rows": rows})
    assert not bad, table
