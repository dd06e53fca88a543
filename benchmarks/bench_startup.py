"""How long `podplan` takes to start, as ratios to what Python takes to import pydantic and rich.

    python benchmarks/bench_startup.py [--runs N] [--root DIR] [--tui]

Each command below is started N times (default 15), in turns with the reference
`python -c "import pydantic, rich"`, so that a change in the machine's load falls on all alike;
the median wall time of each is given, and its ratio to the reference's median. The CPU time
each process used (user + system, from wait4) is given beside it: on a machine other work keeps
busy it moves far less than the wall time. The targets (issue 36): --version and --help within
2x the reference, plan --json within 4x. A first round fills the bytecode caches and is not
counted, as an installed program has them.

--root DIR times the podplan found in DIR (a checkout of another commit) with this Python, to
give figures before and after a change in one run of the same machine.
--tui also times the TUI's first paint against a bare Textual app's (benchmarks/bench_tui.py's
measure, start for start in turns), and beside them a Textual app that shows only the usable byte
count, computed by podplan: the least a first paint with the plan's figures can take.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ("import pydantic, rich", [sys.executable, "-c", "import pydantic, rich"])
COMMANDS = (("--version",), ("--help",), ("plan", "--json"))
TARGETS = {"--version": 2.0, "--help": 2.0, "plan --json": 4.0}


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of argv, its output thrown away."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{argv} exited with status {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def measure(root: Path, runs: int) -> dict[str, tuple[float, float]]:
    """The median wall and CPU seconds of the reference and of each command."""
    argvs = dict(
        [REFERENCE, *((" ".join(c), [sys.executable, "-m", "app.cli.main", *c]) for c in COMMANDS)],
    )
    for argv in argvs.values():
        timed(argv, root)  # the bytecode caches
    walls: dict[str, list[float]] = {name: [] for name in argvs}
    cpus: dict[str, list[float]] = {name: [] for name in argvs}
    for _ in range(runs):
        for name, argv in argvs.items():
            wall, cpu = timed(argv, root)
            walls[name].append(wall)
            cpus[name].append(cpu)
    return {name: (statistics.median(walls[name]), statistics.median(cpus[name])) for name in argvs}


def tui_ratio(runs: int) -> str:
    """The TUI's first paint on the example pod against a bare Textual app's, as bench_tui.py takes it."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import tempfile

    from bench_tui import BARE_APP, FIGURES_ONLY_APP, first_paint  # type: ignore[import-not-found]

    from planners.compute import compute
    from planners.example import example_pod

    needle = f"{compute(example_pod()).usable_bytes:,}".encode()
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(TERM="xterm-256color", XDG_STATE_HOME=tmp)
        starts = {
            "pod": ([sys.executable, "-m", "app.cli.main"], needle),
            "bare": ([sys.executable, "-c", BARE_APP], b"bare-app-painted"),
            "figures": ([sys.executable, "-c", FIGURES_ONLY_APP], needle),
        }
        for argv, painted in starts.values():
            first_paint(argv, painted, env)
        times: dict[str, list[float]] = {name: [] for name in starts}
        for _ in range(runs):
            for name, (argv, painted) in starts.items():
                times[name].append(first_paint(argv, painted, env)[0])
    p, b, f = (statistics.median(times[name]) for name in starts)
    spread = ", ".join(f"{name} {min(t) * 1000:.0f}-{max(t) * 1000:.0f}" for name, t in times.items())
    return (
        f"TUI first paint, example pod, 80x24: {p * 1000:.0f} ms, bare Textual app {b * 1000:.0f} ms: x{p / b:.2f}\n"
        f"a Textual app showing only podplan's usable byte count (its imports and computation): {f * 1000:.0f} ms: "
        f"x{f / b:.2f}, the least a first paint with the figures takes; podplan's screen adds x{(p - f) / b:.2f}\n"
        f"spread (min-max ms, {runs} starts each): {spread}; load average {os.getloadavg()[0]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed starts of each command")
    parser.add_argument("--root", type=Path, default=ROOT, help="the podplan checkout to time (default: this one)")
    parser.add_argument("--tui", action="store_true", help="also time the TUI's first paint against a bare app's")
    args = parser.parse_args()
    figures = measure(args.root.resolve(), args.runs)
    ref_wall, ref_cpu = figures.pop(REFERENCE[0])
    print(f"python -c 'import pydantic, rich': median {ref_wall * 1000:.0f} ms wall, {ref_cpu * 1000:.0f} ms CPU")
    for name, (wall, cpu) in figures.items():
        verdict = "within" if wall / ref_wall <= TARGETS[name] else "over"
        print(
            f"podplan {name}: median {wall * 1000:.0f} ms wall (x{wall / ref_wall:.2f}), {cpu * 1000:.0f} ms CPU "
            f"(x{cpu / ref_cpu:.2f}); {verdict} the target of x{TARGETS[name]:g}"
        )
    if args.tui:
        print(tui_ratio(max(3, args.runs // 3)))


if __name__ == "__main__":
    main()
