"""Score the model on every published case the tests hold: is the measurement inside the stated
low-high range, how far is the central figure, and what widened the range.

    .venv/bin/python scripts/score_published.py [--set held-out|published] [--cases]

Sets: `held-out` (tests/test_perf_heldout.py) and `published` (tests/test_perf_published.py:
its cases, R1, R2 and W1). Each set's summary line gives the fraction inside, the median
|error| and the worst ratio (predicted / measured or its inverse, whichever is above 1); the
issue's goal per set is >= 80 % inside, median <= 25 %, every figure within 2x.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planners.perf.predict import WorkloadPrediction

Row = tuple[str, float, WorkloadPrediction]  # label, measured MB/s (10^6 bytes/s), prediction


def held_out() -> list[Row]:
    import tests.test_perf_heldout as h

    out = []
    for c in h.CASES:
        p = h.prediction(c)
        per_byte = p.mb_s / p.iops if c.per_request and p.iops else 1.0
        out.append((c.label, c.measured * per_byte, p))
    return out


def published() -> list[Row]:
    import tests.test_perf_published as pub

    return [(label, measured, p) for label, measured, p, _ in pub.every_case()]


SETS: dict[str, Callable[[], list[Row]]] = {"held-out": held_out, "published": published}


def ratio(p: WorkloadPrediction, measured: float) -> float:
    r = p.mb_s / measured
    return max(r, 1 / r) if r > 0 else float("inf")


def summary(rows: list[Row]) -> str:
    inside = sum(p.mb_s_low <= m <= p.mb_s_high for _, m, p in rows)
    errors = [abs(p.mb_s / m - 1) for _, m, p in rows]
    worst = max(rows, key=lambda r: ratio(r[2], r[1]))
    return (
        f"{inside} of {len(rows)} inside ({inside / len(rows):.0%}); median |error| "
        f"{statistics.median(errors):.0%}; worst x{ratio(worst[2], worst[1]):.2f} ({worst[0]})"
    )


def case_lines(rows: list[Row]) -> list[str]:
    out = []
    for label, m, p in rows:
        ok = p.mb_s_low <= m <= p.mb_s_high
        out.append(
            f"{'in ' if ok else 'OUT'} {p.mb_s:10,.1f} [{p.mb_s_low:,.1f}-{p.mb_s_high:,.1f}] measured {m:,.1f} "
            f"MB/s ({p.mb_s / m - 1:+.0%}) {label}"
        )
        out += [f"      range from: {why}" for why in getattr(p, "range_from", [])]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=sorted(SETS), action="append", help="the sets to score (default: all)")
    ap.add_argument("--cases", action="store_true", help="one line per case, with what widened its range")
    args = ap.parse_args()
    everything: list[Row] = []
    for name in args.set or list(SETS):
        rows = SETS[name]()
        everything += rows
        if args.cases:
            print(f"## {name}")
            print("\n".join(case_lines(rows)))
        print(f"{name}: {summary(rows)}")
    if not args.set or len(args.set) > 1:
        print(f"all: {summary(everything)}")


if __name__ == "__main__":
    main()
