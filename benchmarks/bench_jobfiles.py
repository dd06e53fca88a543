"""Every fio job file of a directory, predicted on the example pod: how many predict, how many are
refused and why, and any traceback.

    .venv/bin/python benchmarks/bench_jobfiles.py DIR [--all] [--verbose]

Only files that do local I/O are counted unless --all is given: every ioengine a file names is of
the sync family, libaio or io_uring, or it names none (fio's default, psync). A file "predicts"
when at least one of its sections does; each refused section is printed with its reason. ${VAR}
in a job file is read from this process's environment, as fio would read it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planners.errors import PlanError
from planners.example import example_pod
from planners.perf.concurrent import predict_job_file
from planners.perf.jobfile import SYNC_ENGINES, parse_job_file
from planners.perf.predict import geometry_for_speed

LOCAL = set(SYNC_ENGINES) | {"libaio", "io_uring"}


def engines(text: str) -> set[str]:
    """The ioengine values a job file names (comments left out)."""
    out = set()
    for raw in text.splitlines():
        line = re.split(r"[;#]", raw, maxsplit=1)[0]
        m = re.match(r"\s*ioengine\s*=\s*(\S+)", line, re.IGNORECASE)
        if m:
            out.add(m.group(1).lower())
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("directory")
    ap.add_argument("--all", action="store_true", help="every .fio file, whatever its engine")
    ap.add_argument("--verbose", action="store_true", help="also the sections' figures")
    args = ap.parse_args()
    plan = example_pod()
    result = geometry_for_speed(plan)
    files = sorted(Path(args.directory).glob("*.fio"))
    counts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    crashed = 0
    t0 = time.perf_counter()
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if not args.all and not engines(text) <= LOCAL:
            continue
        counts["files"] += 1
        try:
            jf = parse_job_file(text, source=path.name, env=os.environ)
            preds = predict_job_file(plan, result, jf)
        except PlanError as exc:
            counts["refused"] += 1
            reasons[exc.message] += 1
            print(f"{path.name}: refused whole: {exc.message}")
            continue
        except Exception:  # noqa: BLE001 - the point is to count them
            crashed += 1
            print(f"{path.name}: TRACEBACK")
            traceback.print_exc()
            continue
        counts["predicted" if jf.workloads else "refused"] += 1
        counts["sections"] += len(jf.workloads)
        counts["sections refused"] += len(jf.refused)
        print(f"{path.name}: {len(jf.workloads)} section(s) predicted, {len(jf.refused)} refused")
        for r in jf.refused:
            print(f"    [{r.section}] {r.reason}")
            reasons[r.reason.split(" refused: ")[-1] if " refused: " in r.reason else r.reason.split("] ", 1)[-1]] += 1
        if args.verbose:
            for p in preds:
                print(f"    {p.workload}: {p.mb_s:,.1f} MB/s, {p.iops:,.0f} IOPS, limited by {p.binding}")
    print(
        f"\n{counts['files']} job files: {counts['predicted']} predict (at least one section), "
        f"{counts['refused']} refused, {crashed} tracebacks; sections: {counts['sections']} predicted, "
        f"{counts['sections refused']} refused; {time.perf_counter() - t0:.1f} s"
    )
    for why, n in reasons.most_common():
        print(f"  {n} x {why}")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
