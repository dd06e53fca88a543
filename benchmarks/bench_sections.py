"""Benchmark of `podplan predict --job` on job files of thousands of sections.

    python benchmarks/bench_sections.py [--sections 1000,4088] [--runs 3]

For each count it writes three job files into a temporary directory and runs the real command
line on each (its own process, as a user runs it), printing the median wall time and the peak
memory (the children's ru_maxrss):
  - alike: N one-line sections under one [global], all at once (a generated file);
  - distinct: N sections of distinct block sizes, each behind a stonewall (every row of the table
    differs, nothing is merged: the slowest file of N sections);
  - past fio: 10,000 sections, refused by count at fio's limit (4088 jobs).
Target: a file of as many sections as fio runs answers in a few seconds; the refusal in about
podplan's start-up time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAD = "[global]\nioengine=libaio\ndirect=1\nrw=randread\nsize=1g\n"


def alike(n: int) -> str:
    return HEAD + "bs=4k\n" + "".join(f"[job{i}]\n" for i in range(n))


def distinct(n: int) -> str:
    return HEAD + "stonewall\n" + "".join(f"[job{i}]\nbs={512 * (i + 1)}\n" for i in range(n))


def run(path: Path) -> tuple[float, int, int]:
    """(wall seconds, exit status, peak RSS in MB) of one `podplan predict --job path`."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(
            [sys.executable, "-m", "app.cli.main", "predict", "--no-host-cpu", "--job", str(path)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        _, status, usage = os.wait4(p.pid, 0)  # this child's own rusage: its peak memory alone
        took = time.perf_counter() - start
        err.seek(0)
        if "Traceback" in err.read():
            raise SystemExit(f"{path.name}: traceback")
    return took, os.waitstatus_to_exitcode(status), usage.ru_maxrss // 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", default="1000,4088", help="comma-separated section counts")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for n in (int(x) for x in args.sections.split(",")):
            for kind, text in (("alike", alike(n)), ("distinct", distinct(n))):
                files.append((f"{n} sections, {kind}", Path(tmp, f"{kind}-{n}.fio")))
                files[-1][1].write_text(text)
        files.append(("10000 sections, past fio", Path(tmp, "past.fio")))
        files[-1][1].write_text(alike(10_000))
        for label, path in files:
            runs = [run(path) for _ in range(args.runs)]
            print(
                f"{label:32} median {statistics.median(t for t, _, _ in runs):5.2f} s, exit {runs[0][1]}, "
                f"peak RSS {max(m for _, _, m in runs)} MB"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
