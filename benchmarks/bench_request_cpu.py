"""CPU time one request costs the thread that issues it, per I/O engine, measured with fio.

Run as root:  python benchmarks/bench_request_cpu.py [--runtime 3] [--size 256M]

The target is a loop device over a file in /dev/shm (memory, no medium to wait for), so what is
left is the CPU work of issuing and completing requests. For each engine fio reads 4 KiB at
random, direct, one job, and reports its own user and system CPU; the CPU time per request is
(usr + sys) x runtime / requests, in microseconds of one core. That is the issuing thread's
share: the engine's syscalls, fio's bookkeeping, the block layer's submission and the
completion reaped by the thread. The loop driver's own worker (which copies from memory) runs
in a kernel thread that fio does not count. `ioengine=null` is fio with no I/O at all: its own
cost per request.

null_blk would be the cleaner target (no copy at all) but needs a kernel module; the script
says when it finds one and uses it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CASES = (
    ("null", 1),
    ("psync", 1),
    ("libaio", 1),
    ("libaio", 32),
    ("io_uring", 1),
    ("io_uring", 32),
)


def fio(target: str, engine: str, depth: int, runtime: int, size: str) -> dict[str, float]:
    argv = [
        "fio",
        "--name=req",
        "--rw=randread",
        "--bs=4k",
        f"--ioengine={engine}",
        f"--iodepth={depth}",
        "--numjobs=1",
        "--time_based",
        f"--runtime={runtime}",
        "--ramp_time=1",
        "--norandommap",
        "--randrepeat=0",
        "--output-format=json",
        f"--size={size}",
    ]
    if engine == "null":
        argv += ["--direct=0"]
    else:
        argv += [f"--filename={target}", "--direct=1"]
    if engine in ("libaio", "io_uring") and depth > 1:
        argv += [f"--iodepth_batch_submit={depth // 4}", "--iodepth_batch_complete_min=1"]
    out = subprocess.run(argv, check=True, capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"}).stdout
    job = json.loads(out[out.index("{") :])["jobs"][0]
    iops = job["read"]["iops"]
    cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100.0
    return {
        "iops": iops,
        "cpu": cpu,
        "us_per_req": cpu / iops * 1e6 if iops else 0.0,
        "usr": job["usr_cpu"],
        "sys": job["sys_cpu"],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--size", default="256M")
    args = ap.parse_args()
    nullb = "/dev/nullb0" if os.path.exists("/dev/nullb0") else ""
    with tempfile.NamedTemporaryFile(dir="/dev/shm", suffix=".img") as backing:
        target = nullb
        if not target:
            subprocess.run(["truncate", "-s", args.size, backing.name], check=True)
            subprocess.run(
                [
                    "dd",
                    "if=/dev/zero",
                    f"of={backing.name}",
                    "bs=1M",
                    "status=none",
                    f"count={int(args.size.rstrip('M'))}",
                ],
                check=True,
            )
            target = subprocess.run(
                ["losetup", "-f", "--show", backing.name], check=True, capture_output=True, text=True
            ).stdout.strip()
        try:
            print(f"target {target} ({'null_blk' if nullb else 'loop over /dev/shm'}), {os.cpu_count()} cores")
            print(f"{'engine':<10}{'depth':>6}{'IOPS':>12}{'CPU %':>8}{'usr %':>7}{'sys %':>7}{'us/req':>9}")
            for engine, depth in CASES:
                r = fio(target, engine, depth, args.runtime, args.size)
                print(
                    f"{engine:<10}{depth:>6}{r['iops']:>12,.0f}{r['cpu'] * 100:>8.1f}{r['usr']:>7.1f}"
                    f"{r['sys']:>7.1f}{r['us_per_req']:>9.2f}"
                )
        finally:
            if not nullb:
                subprocess.run(["losetup", "-d", target], check=False)


if __name__ == "__main__":
    sys.exit(main())
