"""How fast the TUI answers: keystroke to updated results on screen, and start to first paint.

    python benchmarks/bench_tui.py [--keys N] [--starts N] [--example] [--instructions]

1. Keystroke latency, 60-disk plan, 80x24, in-process (Textual's headless driver): from the
   moment a key enters the app's queue to the end of the first screen update that carries
   the recomputed figures (the compositor renders every changed line; only the final write
   to a terminal, which headless mode skips, is not counted). Two kinds of keys: typing in
   the disk-count field, and stepping the RAID level with the right arrow.
2. Start to first paint: `podplan PLAN.toml` (the 60-disk plan; with --example, `podplan` on
   the built-in example pod) in a real pseudo-terminal of 80x24, timed from process start until
   the usable byte count appears in its output. Run with the bytecode cache warm (the first run
   fills a private cache, as any installed program has one). A bare Textual app (a header, one
   Static, a footer) is timed the same way in the same run, start for start in turns with
   podplan's, and podplan's time is given as a ratio to it: the machine's speed cancels out.
   The CPU time each process has used by then (all its threads) is given too: on a machine
   that other work keeps busy it moves far less than the wall time.
3. With --instructions (needs valgrind): the instructions each start executes up to its first
   frame, counted by callgrind, the program leaving as soon as that frame is handed to the
   terminal. The count hardly moves from run to run (within 2 %) whatever the machine's
   load, where times move by tens of percent: the measure to tell a change of a few percent.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import os
import pty
import re
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.shared.planfile import save_plan  # noqa: E402
from app.tui.app import PodplanApp  # noqa: E402
from app.tui.form_model import plan_from_values, values_from_plan  # noqa: E402
from app.tui.widgets.results import ResultsPane  # noqa: E402
from planners.compute import compute  # noqa: E402
from planners.example import example_pod  # noqa: E402
from planners.models import Plan  # noqa: E402

SIZE = (80, 24)


def sixty_disk_plan() -> Plan:
    base = example_pod()
    return plan_from_values(base, {**values_from_plan(base), "count": "60"})


async def keystroke_latencies(plan: Plan, rounds: int) -> dict[str, list[float]]:
    app = PodplanApp(plan)
    marks: dict[str, float] = {}
    painted: list[float] = []

    original_refresh = ResultsPane._refresh_figures
    original_reject = ResultsPane.reject

    def refreshed(self: ResultsPane) -> None:
        original_refresh(self)
        marks["updated"] = time.perf_counter()

    def rejected(self: ResultsPane, message: str) -> None:
        original_reject(self, message)
        marks["updated"] = time.perf_counter()

    ResultsPane._refresh_figures = refreshed  # type: ignore[method-assign]
    ResultsPane.reject = rejected  # type: ignore[method-assign]
    out: dict[str, list[float]] = {"count field": [], "level (right arrow)": []}
    try:
        async with app.run_test(size=SIZE) as pilot:
            display = app._display
            summary = app.screen.query_one("#summary")
            render_lines = summary.render_lines

            def timed_render_lines(crop):  # type: ignore[no-untyped-def]
                if "updated" in marks:
                    marks["drawn"] = time.perf_counter()
                return render_lines(crop)

            def timed_display(screen, renderable):  # type: ignore[no-untyped-def]
                display(screen, renderable)
                if renderable is not None and "drawn" in marks and "start" in marks:
                    painted.append(time.perf_counter() - marks.pop("start"))

            summary.render_lines = timed_render_lines  # type: ignore[method-assign]
            app._display = timed_display  # type: ignore[method-assign]
            await pilot.pause()

            async def one(key: str, bucket: str) -> None:
                painted.clear()
                marks.pop("updated", None)
                marks.pop("drawn", None)
                marks["start"] = time.perf_counter()
                await pilot.press(key)
                for _ in range(200):
                    if painted:
                        break
                    await asyncio.sleep(0.001)
                if not painted:
                    raise RuntimeError(f"no screen update after {key!r}")
                out[bucket].append(painted[0])
                await pilot.pause()

            app.screen.query_one("#count").focus()
            await pilot.press("end")
            await pilot.pause()
            for _ in range(rounds):
                await one("backspace", "count field")  # 60 -> 6
                await one("0", "count field")  # 6 -> 60
            app.screen.query_one("#level").focus()
            await pilot.pause()
            for _ in range(rounds):
                await one("right", "level (right arrow)")
            assert app.result is not None
    finally:
        ResultsPane._refresh_figures = original_refresh  # type: ignore[method-assign]
        ResultsPane.reject = original_reject  # type: ignore[method-assign]
    return out


def cpu_seconds(pid: int) -> float:
    """CPU time a process has used so far, all threads (Linux's schedstat: nanoseconds); NaN where unreadable."""
    total = 0
    for stat in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        try:
            total += int(stat.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return float("nan")
    return total / 1e9 if total else float("nan")


def in_terminal(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    """`argv` started in a new 80x24 pseudo-terminal; the process and the terminal's master end."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, close_fds=True)
    os.close(slave)
    return proc, master


def first_paint(argv: list[str], needle: bytes, env: dict[str, str], timeout: float = 20.0) -> tuple[float, float]:
    """Wall and CPU seconds from process start until `needle` appears on its terminal."""
    start = time.perf_counter()
    proc, master = in_terminal(argv, env)
    seen = b""
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([master], [], [], 0.02)
            if ready:
                try:
                    seen += os.read(master, 1 << 16)
                except OSError:
                    break
                if needle in seen:
                    return time.perf_counter() - start, cpu_seconds(proc.pid)
        raise RuntimeError("the usable byte count never appeared on screen")
    finally:
        proc.kill()
        proc.wait()
        os.close(master)


BARE_APP = """
from textual.app import App
from textual.widgets import Footer, Header, Static
class Bare(App):
    def compose(self):
        yield Header()
        yield Static("bare-app-painted")
        yield Footer()
Bare().run()
"""

# The least any TUI that shows the plan's figures can take: podplan's start-up (app.cli.main), the
# imports and the computation of the usable byte count, shown in a bare Textual app's screen, and
# nothing else (no form, no tabs, no tables). podplan's first paint cannot come sooner than this
# one's without painting before the plan is computed; the gap between the two is what podplan's
# own screen costs.
FIGURES_ONLY_APP = """
import app.cli.main
from textual.app import App
from textual.widgets import Footer, Header, Static
from planners.compute import compute
from planners.example import example_pod
class FiguresOnly(App):
    def compose(self):
        yield Header()
        yield Static(f"Usable {compute(example_pod()).usable_bytes:,} B")
        yield Footer()
FiguresOnly().run()
"""


# Prepended to a program counted under valgrind: it leaves once its first frame is on its way to
# the terminal, so that the count covers the start up to the first paint and nothing after it.
FIRST_FRAME_THEN_LEAVE = """
import os
import textual.app
_display = textual.app.App._display
def _display_then_leave(app, screen, renderable):
    _display(app, screen, renderable)
    if renderable is not None:
        os._exit(0)
textual.app.App._display = _display_then_leave
"""


def instructions(code: str, env: dict[str, str], timeout: float = 600.0) -> int:
    """Instructions `python -c code` executes up to its first frame (valgrind's callgrind), in an 80x24 pty."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "valgrind.log"
        argv = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={tmp}/callgrind.out",
            f"--log-file={log}",
            sys.executable,
            "-c",
            FIRST_FRAME_THEN_LEAVE + code,
        ]
        proc, master = in_terminal(argv, env)
        start = time.monotonic()
        try:
            while proc.poll() is None and time.monotonic() - start < timeout:
                ready, _, _ = select.select([master], [], [], 0.1)
                if ready:
                    with contextlib.suppress(OSError):
                        os.read(master, 1 << 16)  # keep the terminal drained, or the program blocks writing
        finally:
            proc.kill()
            proc.wait()
            os.close(master)
        found = re.search(r"Collected : (\d+)", log.read_text() if log.exists() else "")
        if found is None:
            raise RuntimeError(f"valgrind counted nothing: {argv[:3]}")
        return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=30, help="keystrokes of each kind to time")
    parser.add_argument("--starts", type=int, default=5, help="warm starts to time")
    parser.add_argument(
        "--example",
        action="store_true",
        help="time the start on the built-in example pod (`podplan`) instead of the 60-disk plan file",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each start's instructions up to its first frame (valgrind; a minute or two)",
    )
    args = parser.parse_args()

    plan = sixty_disk_plan()
    lat = asyncio.run(keystroke_latencies(plan, args.keys))
    for kind, times in lat.items():
        ms = sorted(t * 1000 for t in times)
        print(
            f"keystroke -> results on screen, 60 disks, {kind}: median {statistics.median(ms):.1f} ms "
            f"(p90 {ms[int(len(ms) * 0.9) - 1]:.1f} ms, n={len(ms)})"
        )
    every = [t for times in lat.values() for t in times]
    print(f"keystroke -> results on screen, all keys: median {statistics.median(every) * 1000:.1f} ms (target < 30 ms)")

    with tempfile.TemporaryDirectory() as tmp:
        plan_file = Path(tmp) / "pod60.toml"
        save_plan(plan, plan_file)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(TERM="xterm-256color", PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache"))
        what, shown = ("example pod", example_pod()) if args.example else ("60 disks", plan)
        argv = [sys.executable, "-m", "app.cli.main", *([] if args.example else [str(plan_file)])]
        needle = f"{compute(shown).usable_bytes:,}".encode()
        cold, _ = first_paint(argv, needle, env)
        bare_argv = [sys.executable, "-c", BARE_APP]
        first_paint(bare_argv, b"bare-app-painted", env)  # fill its bytecode cache too
        # Taken in turns, so that a change in the machine's load falls on both alike.
        warm, bare, warm_cpu, bare_cpu = [], [], [], []
        for _ in range(args.starts):
            for walls, cpus, run, painted in (
                (warm, warm_cpu, argv, needle),
                (bare, bare_cpu, bare_argv, b"bare-app-painted"),
            ):
                wall, cpu = first_paint(run, painted, env)
                walls.append(wall)
                cpus.append(cpu)
        warm.sort()
        bare.sort()
        counts = None
        if args.instructions:
            if shutil.which("valgrind") is None:
                raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
            podplan_code = f"from app.cli.main import main; main({argv[3:]!r})"
            counts = instructions(podplan_code, env), instructions(BARE_APP, env), instructions(FIGURES_ONLY_APP, env)
    print(
        f"start -> first paint, {what}, 80x24: median {statistics.median(warm) * 1000:.0f} ms warm "
        f"(min {warm[0] * 1000:.0f}, max {warm[-1] * 1000:.0f}, n={len(warm)}); "
        f"{cold * 1000:.0f} ms with an empty bytecode cache (target < 500 ms)"
    )
    print(
        f"start -> first paint, bare Textual app, 80x24: median {statistics.median(bare) * 1000:.0f} ms warm; "
        f"podplan takes x{statistics.median(warm) / statistics.median(bare):.2f} of it"
    )
    podplan_cpu, bare_cpu_median = statistics.median(warm_cpu), statistics.median(bare_cpu)
    print(
        f"CPU time to first paint (all threads): podplan median {podplan_cpu * 1000:.0f} ms, bare Textual app "
        f"{bare_cpu_median * 1000:.0f} ms; podplan takes x{podplan_cpu / bare_cpu_median:.2f} of it"
    )
    if counts is not None:
        print(
            f"instructions to first frame (valgrind): podplan {counts[0] / 1e6:,.0f} M, bare Textual app "
            f"{counts[1] / 1e6:,.0f} M; podplan takes x{counts[0] / counts[1]:.2f} of it; a Textual app showing "
            f"only the example pod's usable byte count takes {counts[2] / 1e6:,.0f} M, "
            f"x{counts[2] / counts[1]:.2f} (the least with figures)"
        )


if __name__ == "__main__":
    main()
