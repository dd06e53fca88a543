"""Benchmark of `podplan validate`: quick-suite duration, repeatability, overhead against plain fio.

Run as root:  python benchmarks/bench_validate.py [--runs 5] [--size 1G] [--device /dev/X]
Without --device a loop device over a sparse file is made (and removed) for the run. The target is
written once before the runs (its previous contents are lost). It prints:
  - the quick suite's wall time per run (target: under 60 s);
  - per workload the coefficient of variation of the reported figure (the steady window's mean) over
    the runs (target < 5 %), and of the whole-run mean for comparison;
  - overhead: the same seq-read job file run by plain fio and through podplan's runner, as wall
    time and as measured throughput (target < 2 %).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from planners.units import parse_size
from runners.fio.jobs import QUICK, ArrayShape, Target, Timing, fio_argv, workload
from runners.fio.result import parse_output
from runners.fio.run import run_fio
from runners.probes.loopdev import attach_loop, detach_loop, sparse_loop
from runners.validate.suite import validate


def cv(values: list[float]) -> float:
    return statistics.stdev(values) / statistics.mean(values) * 100 if len(values) > 1 else 0.0


def prefill(dev: str) -> None:
    """Write the whole target once: reads of never-written blocks (a sparse file, trimmed flash)
    return zeros without touching the medium, so the first run would read faster than the rest."""
    t0 = time.monotonic()
    subprocess.run(
        [
            "fio",
            "--name=prefill",
            f"--filename={dev}",
            "--rw=write",
            "--bs=1M",
            "--direct=1",
            "--ioengine=libaio",
            "--iodepth=4",
            "--refill_buffers=1",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    print(f"prefilled {dev} in {time.monotonic() - t0:.1f} s")


def suite_runs(dev: str, runs: int) -> None:
    prefill(dev)
    per: dict[str, list[float]] = {}
    walls = []
    for i in range(runs):
        rep = validate(dev, destroy_data=dev)
        walls.append(rep.duration_s)
        for w in rep.workloads:
            f = w.figures
            value = (f.bytes_s / 1e6) if w.name.startswith("seq") else f.iops
            per.setdefault(w.name, []).append(value)
            steady = f.steady.attained if f.steady else None
            run = ((f.run_bytes_s or 0) / 1e6 if w.name.startswith("seq") else f.run_iops) if f.from_window else value
            print(
                f"run {i + 1}: {w.name:14} {value:12.1f} {'MB/s' if w.name.startswith('seq') else 'IOPS':4} "
                f"steady={steady} {w.elapsed_s:5.1f} s (whole run {run:.1f})"
            )
            per.setdefault(w.name + " (whole run)", []).append(run)
        print(f"run {i + 1}: quick suite {rep.duration_s:.1f} s")
    print(f"\nquick suite wall time: mean {statistics.mean(walls):.1f} s, max {max(walls):.1f} s (target < 60 s)")
    for name, vals in per.items():
        print(f"repeatability {name:14} mean {statistics.mean(vals):12.1f}  CV {cv(vals):5.2f} % over {len(vals)} runs")


def overhead(dev: str, size: int, repeats: int) -> None:
    timing = Timing(
        runtime_s=QUICK.runtime_s,
        ss_duration_s=QUICK.ss_duration_s,
        ss_ramp_s=QUICK.ss_ramp_s,
        ss_slope_pct=QUICK.ss_slope_pct,
    )
    w = workload("seq-read", Target(path=dev, kind="device", size_bytes=size), ArrayShape(), timing)
    # Steady-state detection would stop the two runs at different moments; compare fixed-length runs.
    text = "\n".join(ln for ln in w.job.text.splitlines() if not ln.startswith("steadystate")) + "\n"
    hand_wall, hand_bw, ours_wall, ours_bw = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        job = os.path.join(tmp, "seq-read.fio")
        with open(job, "w") as f:
            f.write(text)
        for _ in range(repeats):
            out = os.path.join(tmp, "hand.json")
            t0 = time.monotonic()
            subprocess.run(
                ["fio", "--output-format=json", f"--output={out}", job], check=True, stdout=subprocess.DEVNULL
            )
            hand_wall.append(time.monotonic() - t0)
            with open(out) as f:
                hand_bw.append(parse_output(f.read()).jobs[0].bytes_s / 1e6)
            out = os.path.join(tmp, "ours.json")
            res = run_fio(fio_argv(job, out), out, timeout_s=120, on_progress=lambda r, e: None)
            ours_wall.append(res.elapsed_s)
            ours_bw.append(res.result.jobs[0].bytes_s / 1e6)
    hw, ow = statistics.mean(hand_wall), statistics.mean(ours_wall)
    hb, ob = statistics.mean(hand_bw), statistics.mean(ours_bw)
    print(
        f"\noverhead (seq-read, {timing.runtime_s} s fixed, {repeats} pairs): wall by hand {hw:.2f} s, "
        f"podplan {ow:.2f} s ({(ow - hw) / hw * 100:+.2f} %); throughput by hand {hb:.0f} MB/s, "
        f"podplan {ob:.0f} MB/s ({(ob - hb) / hb * 100:+.2f} %) (target within 2 %)"
    )


@contextlib.contextmanager
def disk_loop(directory: str, size: int):
    fd, path = tempfile.mkstemp(prefix="podplan-bench-", dir=directory)
    dev = ""
    try:
        os.posix_fallocate(fd, 0, size)
        os.close(fd)
        dev = attach_loop(path, direct_io=True)
        yield dev
    finally:
        if dev:
            detach_loop(dev)
        os.unlink(path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--size", default="1G")
    ap.add_argument("--device", help="an empty device to write to (default: a loop device made for the run)")
    ap.add_argument(
        "--backing",
        metavar="DIR",
        help="make the loop device over a preallocated file in DIR, with "
        "direct I/O to it (a real disk under the loop instead of memory)",
    )
    ap.add_argument("--overhead-repeats", type=int, default=3)
    args = ap.parse_args()
    size = parse_size(args.size)
    if args.device:
        suite_runs(args.device, args.runs)
        overhead(args.device, size, args.overhead_repeats)
        return
    if args.backing:
        with disk_loop(args.backing, size) as dev:
            print(f"target: {dev}, a loop device with direct I/O over a {size // 2**20} MiB file in {args.backing}")
            suite_runs(dev, args.runs)
            overhead(dev, size, args.overhead_repeats)
        return
    with sparse_loop(size) as dev:
        print(f"target: {dev}, a loop device over a {size // 2**20} MiB sparse file in tmpfs")
        suite_runs(dev, args.runs)
        overhead(dev, size, args.overhead_repeats)


if __name__ == "__main__":
    main()
