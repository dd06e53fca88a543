"""Time to predict every workload preset for a 60-disk plan (target < 5 ms) and to sweep every
layout of 60 disks (target < 500 ms).

Run: .venv/bin/python benchmarks/bench_perf.py [--n 300] [--sweeps 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_compute import plan_60

from planners.compute import compute
from planners.example import example_pod
from planners.layouts.sweep import layouts, sweep
from planners.models import MdGroup, Plan
from planners.perf.predict import geometry_for_speed, predict
from planners.perf.scale import as_job, parse_scale, shaped, sweep_job
from planners.perf.workloads import PRESETS, VALIDATION
from planners.reliability.loss import reliability


def _median_ms(fn, n: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return statistics.median(times) * 1e3, times[int(0.95 * (len(times) - 1))] * 1e3


def _cpu_ms(fn, n: int, *, cold: bool = False) -> float:  # type: ignore[no-untyped-def]
    """Median CPU time of this process per call: on a machine other work keeps busy it moves far less than
    the wall time, which counts the waits for a core. `cold`: every cache of planners emptied before each
    call, as `podplan sweep` finds them in a new process."""
    times = []
    for _ in range(n):
        if cold:
            _clear_caches()
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times) * 1e3


def _clear_caches() -> None:
    for name, module in list(sys.modules.items()):
        if name.startswith("planners"):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--sweeps", type=int, default=5)
    args = ap.parse_args()
    plan = plan_60()
    result = compute(plan)
    workloads = list(PRESETS.values())
    for _ in range(20):
        predict(plan, result, workloads)
    med, p95 = _median_ms(lambda: predict(plan, result, workloads), args.n)
    cpu = _cpu_ms(lambda: predict(plan, result, workloads), args.n)
    print(
        f"predict({len(workloads)} workloads, 60 disks, 3 x RAID6, LVM): median {med:.3f} ms, p95 {p95:.3f} ms "
        f"over {args.n} runs, {cpu:.3f} ms CPU (target < 5 ms)"
    )
    med, p95 = _median_ms(lambda: reliability(plan, result), args.n)
    print(f"reliability(60 disks): median {med:.3f} ms, p95 {p95:.3f} ms")
    flat = Plan(name="sweep60", disks=plan.disks, groups=[MdGroup(level=6, members=60)])
    first = _median_ms(lambda: sweep(flat), 1)[0]
    med, p95 = _median_ms(lambda: sweep(flat), args.sweeps)
    cpu, cold = _cpu_ms(lambda: sweep(flat), args.sweeps), _cpu_ms(lambda: sweep(flat), args.sweeps, cold=True)
    print(
        f"sweep(60 disks, {len(layouts(flat))} layouts, each computed, predicted and scored): median {med:.0f} ms, "
        f"worst {p95:.0f} ms over {args.sweeps} runs, {cpu:.0f} ms CPU ({cold:.0f} ms with planners' caches "
        f"emptied); the first in this process {first:.0f} ms (target < 500 ms)"
    )
    pod = example_pod()
    job = as_job(shaped(pod, geometry_for_speed(pod), VALIDATION[:3]))
    axes = [parse_scale("numjobs=1..128x2")]
    med, p95 = _median_ms(lambda: sweep_job(pod, geometry_for_speed(pod), job, axes), args.sweeps * 4)
    cpu = _cpu_ms(lambda: sweep_job(pod, geometry_for_speed(pod), job, axes), args.sweeps * 4)
    print(
        f"sweep_job(pod45, 3 workloads x numjobs=1..128x2, the Perf tab's curves while typing): median {med:.0f} ms, "
        f"p95 {p95:.0f} ms, {cpu:.0f} ms CPU (target < 100 ms)"
    )


if __name__ == "__main__":
    main()
