"""The fuzz tests (tests/test_fuzz.py) with a nightly budget: every Hypothesis test draws --examples
inputs, randomly rather than the suite's fixed draws, and Hypothesis prints how many it ran and how
long they took. The per-field edge tests run as in the suite (their values are fixed).

Run: .venv/bin/python benchmarks/bench_fuzz.py [--examples 2000] [-k form]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=2000, help="examples per Hypothesis test (suite: 60 to 300)")
    ap.add_argument("-k", default="", help="only the tests whose names match (pytest -k)")
    args = ap.parse_args()
    os.environ["PODPLAN_FUZZ_EXAMPLES"] = str(args.examples)  # read when tests/fuzz_schema.py is imported
    sys.path.insert(0, str(ROOT))
    import pytest

    t0 = time.perf_counter()
    code = pytest.main(
        [
            "-q",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            "--hypothesis-show-statistics",
            *(["-k", args.k] if args.k else []),
            str(ROOT / "tests" / "test_fuzz.py"),
        ]
    )
    print(f"fuzz: {args.examples} examples per Hypothesis test in {time.perf_counter() - t0:.0f} s (exit {int(code)})")
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
