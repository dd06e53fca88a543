"""Benchmark of the btrfs fill model (what fits until ENOSPC) on large sets.

    python benchmarks/bench_btrfs_fill.py [--runs 5]

The model walks the kernel's chunk allocator; runs of alike chunks are taken at once. Walked chunk by
chunk, the 45 x 4 TB raid1 pod (about 84,000 chunks) took 27 s; the target is well under a second so the
TUI's form stays live while a btrfs plan is edited.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planners.fs.btrfs_fill import fill
from planners.fs.btrfs_geometry import btrfs_geometry

CASES = {
    "45 x 4 TB raid1": ([4_000_787_030_016] * 45, "raid1"),
    "45 x 4 TB raid6": ([4_000_787_030_016] * 45, "raid6"),
    "mixed 12 disks raid1c3": ([(2 + i) * 10**12 for i in range(12)], "raid1c3"),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    for name, (sizes, profile) in CASES.items():
        times = []
        for _ in range(args.runs):
            fill.cache_clear()  # the model keeps its last answers: time the walk, not the cache
            t0 = time.perf_counter()
            g = btrfs_geometry(sizes, data_profile=profile)
            times.append(time.perf_counter() - t0)
        print(f"{name:26} median {statistics.median(times) * 1000:8.1f} ms   fits {g.fits_bytes:,} B")


if __name__ == "__main__":
    main()
