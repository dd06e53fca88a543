"""Median time to compute one full plan: 60 disks in 3 RAID6 groups, LVM striped, XFS.

Run: .venv/bin/python benchmarks/bench_compute.py [--n 2000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planners.compute import compute
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan


def plan_60() -> Plan:
    return Plan(
        name="bench60",
        disks=[DiskSet(count=60, size=8001563222016)],
        groups=[MdGroup(name=f"md{i}", level=6, members=20, chunk=512 * 1024) for i in range(3)],
        lvm=Lvm(enabled=True, mode="linear"),
        filesystem=Filesystem(type="xfs"),
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    args = ap.parse_args()
    plan = plan_60()
    for _ in range(50):
        compute(plan)
    times = []
    for _ in range(args.n):
        t0 = time.perf_counter()
        compute(plan)
        times.append(time.perf_counter() - t0)
    times.sort()
    med = statistics.median(times)
    p95 = times[int(0.95 * len(times))]
    print(
        f"compute(60 disks, 3 x RAID6, LVM, XFS): median {med * 1e3:.3f} ms, p95 {p95 * 1e3:.3f} ms over {args.n} runs"
    )
    t0 = time.perf_counter()
    for _ in range(200):
        plan_60()
    print(f"building the Plan model itself: {(time.perf_counter() - t0) / 200 * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
