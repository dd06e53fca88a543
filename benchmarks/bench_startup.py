"""How long `podplan` takes to start, as ratios to what Python takes to import pydantic and rich.

    python benchmarks/bench_startup.py [--runs N] [--root DIR] [--tui] [--instructions]

Each command below is started N times (default 15), in turns with the reference
`python -c "import pydantic, rich"`, so that a change in the machine's load falls on all alike;
the median wall time of each is given, and its ratio to the reference's median. The CPU time
each process used (user + system, from wait4) is given beside it: on a machine other work keeps
busy it moves far less than the wall time. The targets (issue 36): --version and --help within
2x the reference, plan --json within 4x. A first round fills the bytecode caches and is not
counted, as an installed program has them (PYTHONDONTWRITEBYTECODE is taken out of the commands'
environment for that: with it set, every start would compile every module it imports again).
`predict --json` is timed beside them, with no target.

--root DIR times the podplan found in DIR (a checkout of another commit) with this Python, to
give figures before and after a change in one run of the same machine.
--tui also times the TUI's first paint against a bare Textual app's (benchmarks/bench_tui.py's
measure, start for start in turns), and beside them a Textual app that shows only the usable byte
count, computed by podplan: the least a first paint with the plan's figures can take.
--instructions also counts the instructions each start executes to its exit (valgrind's callgrind,
one start each, caches warm): the count hardly moves with the machine's load, where the times on a
shared machine move by tens of percent, so it tells a change of a few percent.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ("import pydantic, rich", [sys.executable, "-c", "import pydantic, rich"])
COMMANDS = (("--version",), ("--help",), ("plan", "--json"), ("predict", "--json"))
TARGETS = {"--version": 2.0, "--help": 2.0, "plan --json": 4.0}
# The bytecode caches are written and read, as an installed program's are.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of argv, its output thrown away."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{argv} exited with status {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def starts() -> dict[str, list[str]]:
    """The reference's command line and each command's, by name."""
    return dict([REFERENCE, *((" ".join(c), [sys.executable, "-m", "app.cli.main", *c]) for c in COMMANDS)])


def measure(root: Path, runs: int) -> dict[str, tuple[float, float]]:
    """The median wall and CPU seconds of the reference and of each command."""
    argvs = starts()
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


def instructions(argv: list[str], cwd: Path) -> int:
    """Instructions one run of argv executes from its start to its exit (callgrind), caches warm."""
    timed(argv, cwd)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "valgrind.log"
        vg = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out", f"--log-file={log}"]
        subprocess.run([*vg, *argv], cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        found = re.search(r"Collected : (\d+)", log.read_text() if log.exists() else "")
    if found is None:
        raise RuntimeError(f"valgrind counted nothing: {argv}")
    return int(found.group(1))


def instruction_ratios(root: Path) -> str:
    """Each command's instructions to its exit as a ratio to the reference's."""
    counts = {name: instructions(argv, root) for name, argv in starts().items()}
    ref = counts.pop(REFERENCE[0])
    lines = [f"instructions to exit (valgrind): python -c 'import pydantic, rich' {ref / 1e6:,.0f} M"]
    for name, n in counts.items():
        target = f", target x{TARGETS[name]:g}" if name in TARGETS else ""
        lines.append(f"podplan {name}: {n / 1e6:,.0f} M (x{n / ref:.2f}{target})")
    return "\n".join(lines)


def tui_ratio(runs: int) -> str:
    """The TUI's first paint on the example pod against a bare Textual app's, as bench_tui.py takes it."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_tui import BARE_APP, FIGURES_ONLY_APP, first_paint  # type: ignore[import-not-found]

    from planners.compute import compute
    from planners.example import example_pod

    needle = f"{compute(example_pod()).usable_bytes:,}".encode()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**ENV, "TERM": "xterm-256color", "XDG_STATE_HOME": tmp}
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
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each start's instructions to its exit (valgrind; a minute or two)",
    )
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    figures = measure(args.root.resolve(), args.runs)
    ref_wall, ref_cpu = figures.pop(REFERENCE[0])
    print(f"python -c 'import pydantic, rich': median {ref_wall * 1000:.0f} ms wall, {ref_cpu * 1000:.0f} ms CPU")
    for name, (wall, cpu) in figures.items():
        verdict = "no target"
        if name in TARGETS:
            verdict = f"{'within' if wall / ref_wall <= TARGETS[name] else 'over'} the target of x{TARGETS[name]:g}"
        print(
            f"podplan {name}: median {wall * 1000:.0f} ms wall (x{wall / ref_wall:.2f}), {cpu * 1000:.0f} ms CPU "
            f"(x{cpu / ref_cpu:.2f}); {verdict}"
        )
    print(f"load average {os.getloadavg()[0]:.2f}")
    if args.instructions:
        print(instruction_ratios(args.root.resolve()))
    if args.tui:
        print(tui_ratio(max(3, args.runs // 3)))


if __name__ == "__main__":
    main()
