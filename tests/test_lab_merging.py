"""Witness of merging at depth: a stream of 4 KiB sequential direct reads on md RAID0, at one and
at 32 requests in flight, in the lab.

Each member's scheduler is mq-deadline (the kernel's default for a SATA or SAS disk); the
members' own counters (/sys/block/X/stat: reads completed, reads merged, sectors read) over a
window of each fio run, once its requests are in flight, give what iostat shows as r/s, rrqm/s
and the average request size. The model
(planners.perf.request_cpu.merged_bytes) says: one request in flight reaches the member as it
is, 4 KiB; 32 in flight are merged into requests of up to 32 x 4 KiB, never past md's chunk.
"""

from __future__ import annotations

import pytest

from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.context import build_ctx
from planners.perf.predict import geometry_for_speed
from planners.perf.request_cpu import merged_bytes
from planners.perf.workloads import Workload
from planners.units import KiB, MiB
from runners.lab import LabDisk
from runners.lab.scenario import Scenario
from tests.lab_helpers import record_calibration, shared_batch, skip_unless_lab

pytestmark = pytest.mark.slow

skip_unless_lab()

SIZE = 256 * MiB
DEPTHS = (1, 32, 1024)
# Members held to 50 requests/s each: far below what the guest submits even on a loaded host, so a
# stream deeper than their queues keeps requests waiting in the scheduler, the state witnessed.
MEMBER_IOPS = 50
SETTLE_S, WINDOW_S = 3, 4
SCRIPT = """set -e
set -- $PODPLAN_DISKS
for d in "$@"; do echo mq-deadline > /sys/block/$(basename $(readlink -f $d))/queue/scheduler; done
mdadm --create /dev/md0 --run --level=0 --raid-devices=2 --chunk=512 "$@"
cat /sys/block/$(basename $(readlink -f $1))/device/queue_depth > "$PODPLAN_OUT/queue_depth.txt"
stat() { for d in "$@"; do cat /sys/block/$(basename $(readlink -f $d))/stat; done; }
"""
# The counters are read over a window that opens once fio has its requests in flight: an emulated
# CPU on a loaded host takes a second or two to submit 1,024 of them (and submitted 580 a second at
# most, so with members faster than that the queue never filled and little merged: 5.4 KiB).
for depth in DEPTHS:
    SCRIPT += (
        f'fio --output-format=json --output="$PODPLAN_OUT/qd{depth}.json" --name=qd{depth} '
        f"--filename=/dev/md0 --rw=read --bs=4k --direct=1 --ioengine=libaio --iodepth={depth} "
        f"--runtime={WINDOW_S + 2 * SETTLE_S} --time_based --size=128m &\n"
        f'sleep {SETTLE_S}; stat "$@" > "$PODPLAN_OUT/before{depth}.txt"\n'
        f'sleep {WINDOW_S}; stat "$@" > "$PODPLAN_OUT/after{depth}.txt"\n'
        "wait $!\n"
    )


def _counts(before: str, after: str) -> tuple[float, float, float]:
    """(reads completed, reads merged, bytes read) by the members over one run."""
    total = [0.0, 0.0, 0.0]
    for b, a in zip(before.splitlines(), after.splitlines(), strict=True):
        x, y = [int(v) for v in b.split()], [int(v) for v in a.split()]
        total[0] += y[0] - x[0]
        total[1] += y[1] - x[1]
        total[2] += (y[2] - x[2]) * 512
    return total[0], total[1], total[2]


LAB_TIMEOUT_S = 400.0


def lab_scenarios(kit) -> list[Scenario]:  # type: ignore[no-untyped-def]
    disk = LabDisk(size_bytes=SIZE, bps_total=4_000_000, iops_total=MEMBER_IOPS)
    return [Scenario(name="merge", script=SCRIPT, disks=(disk, disk), timeout_s=120, collect=False)]


@pytest.fixture(scope="module")
def result(request):  # type: ignore[no-untyped-def]
    return shared_batch(request)


def test_adjacent_small_requests_are_merged_only_with_more_than_one_in_flight(result):
    scen = result.scenario("merge")
    assert scen.returncode == 0, result.failure_report("merge")
    plan = Plan(
        name="m",
        disks=[DiskSet(count=2, size=SIZE)],
        groups=[MdGroup(name="md0", level=0, members=2, chunk=512 * KiB, bitmap="none")],
        filesystem=Filesystem(type="ext4"),
    )
    tags = int(scen.outputs["queue_depth.txt"])
    plan = plan.model_copy(update={"hardware": Hardware(disk=DiskSpec(queue_depth=tags))})
    group = build_ctx(plan, geometry_for_speed(plan)).groups[0]
    rows, table = [], {}
    for depth in DEPTHS:
        reads, merged, moved = _counts(scen.outputs[f"before{depth}.txt"], scen.outputs[f"after{depth}.txt"])
        size = moved / reads
        model = merged_bytes(group, Workload(name="s", rw="read", bs=4096, iodepth=depth), 4096)
        table[depth] = {"reads": reads, "merged": merged, "avg_request": size, "model": model}
        rows.append(
            f"depth {depth}: {reads:.0f} member reads, {merged:.0f} merged, average request "
            f"{size / KiB:.1f} KiB (model {model / KiB:.0f} KiB)"
        )
    print("\n".join(rows))
    record_calibration({"merging": table})
    print(f"member queue depth {tags}")
    # Up to the device's queue depth nothing waits in the scheduler and nothing merges.
    for depth in (1, 32):
        assert table[depth]["avg_request"] == pytest.approx(4096, rel=0.2)
        assert table[depth]["merged"] <= 0.05 * table[depth]["reads"]
    # Past it the waiting requests merge, to about depth / queue depth pieces a request.
    deep = table[1024]
    assert deep["merged"] > deep["reads"]
    assert 0.5 * deep["model"] <= deep["avg_request"] <= 1.5 * deep["model"]
