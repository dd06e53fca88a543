"""`podplan validate --health` and `--burn-in`: SMART of every disk under the target, and a burn-in
with a bar per disk and its time left; `--baseline` prints the same health table before its figures."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from rich.table import Table

from app.shared.console import cli_console
from app.usecases.validate_health import DiskHealth
from planners.errors import PlanError

if TYPE_CHECKING:
    from app.usecases.validate_burnin import BurnInOutcome, BurnState

EXIT_OK, EXIT_FAILING, EXIT_INTERRUPTED = 0, 1, 130


def _n(v: int | None, suffix: str = "") -> str:
    return "" if v is None else f"{v:,}{suffix}"


def print_health(console: Console, disks: Sequence[DiskHealth]) -> None:
    """A row per disk with SMART; a line per disk without; each failing disk named with what to do."""
    read = [d for d in disks if d.smart]
    if read:
        t = Table(title="SMART health (smartctl -x)", title_justify="left")
        heads = ("disk", "model", "health", "hours", "°C", "realloc", "pending", "offl unc", "CRC")
        for col in (*heads, "NVMe warn", "media err", "used", "spare"):
            t.add_column(col, justify="left" if col in ("disk", "model", "health") else "right")
        for d in read:
            health = "" if d.passed is None else ("PASSED" if d.passed else "FAILED")
            t.add_row(
                d.device,
                d.model,
                health,
                *(_n(v) for v in (d.power_on_hours, d.temperature_c, d.reallocated, d.pending)),
                *(_n(v) for v in (d.offline_uncorrectable, d.crc_errors)),
                "" if d.critical_warning is None else f"0x{d.critical_warning:02x}",
                _n(d.media_errors),
                _n(d.percentage_used, " %"),
                _n(d.available_spare, " %"),
            )
        console.print(t)
    for d in disks:
        if not d.smart:
            console.print(f"  {d.device}: no SMART ({d.why_not})", markup=False, highlight=False)
    failing = [d for d in read if d.failing]
    for d in failing:
        console.print(f"  failing disk {d.device}: " + "; ".join(d.failing), markup=False, highlight=False)
    for d in read:
        for w in d.watch:
            console.print(f"  watch {d.device}: {w}", markup=False, highlight=False)
    if read and not failing:
        console.print("  no disk failing, none holding pending or unreadable sectors")


def run_health(target: str, *, as_json: bool) -> int:
    from app.usecases.validate_health import health_json, health_session

    out = health_session(target)
    if as_json:
        from app.shared.documents import dumps
        from app.shared.documents_measured import HealthDocument

        print(dumps(HealthDocument(target=target, health=health_json(out.disks))))
    else:
        print_health(cli_console(), out.disks)
    return EXIT_FAILING if out.failing else EXIT_OK


class _Bars:
    """A bar per disk on stderr: bytes done of its size, and the time left at its pace so far."""

    def __init__(self, console: Console, live: bool):
        self.progress = Progress(
            TextColumn("{task.fields[name]:<14}"),
            BarColumn(),
            DownloadColumn(binary_units=True),
            TimeRemainingColumn(),
            console=console,
        )
        self.live = live
        self.tasks: dict[str, TaskID] = {}

    def start(self, state: BurnState) -> None:
        cli_console(stderr=True).print(
            f"burn-in of {state.target}: {'writing then reading' if state.write else 'reading'} "
            f"{len(state.disks)} disk(s) at once, {state.chunk_bytes // 2**20} MiB per dd run",
            highlight=False,
        )
        if not self.live:
            return
        for d in state.disks:
            self.tasks[d.device] = self.progress.add_task("", total=d.size_bytes, name=d.device, completed=d.done_bytes)
        self.progress.start()

    def __call__(self, device: str, done: int, size: int) -> None:
        if device in self.tasks:
            self.progress.update(self.tasks[device], completed=done)

    def stop(self) -> None:
        if self.tasks:
            self.progress.stop()


def run_burn_in_cli(args: argparse.Namespace) -> int:
    from app.usecases.validate_burnin import BurnInRequest, burn_in_session

    bars = _Bars(cli_console(stderr=True), live=not args.json)
    req = BurnInRequest(args.target, args.destroy_data, resume=args.resume, force=args.force)
    try:
        out = burn_in_session(req, bars.start, bars)
    finally:
        bars.stop()
    if args.json:
        from app.shared.documents import dumps
        from app.shared.documents_measured import BurnInDocument, VerdictDoc

        doc = BurnInDocument(
            target=out.state.target,
            write=out.state.write,
            stopped=out.stopped,
            state_file=out.state_file if out.stopped else None,
            disks=[VerdictDoc.of(v) for v in out.verdicts],
        )
        print(dumps(doc))
    else:
        _print_verdicts(cli_console(), out)
    if out.stopped and not any(v.error for v in out.verdicts):
        return EXIT_INTERRUPTED
    return EXIT_FAILING if out.moved or out.stopped or any(v.before.failing for v in out.verdicts) else EXIT_OK


def _print_verdicts(console: Console, out: BurnInOutcome) -> None:
    for v in out.verdicts:
        line = (
            f"  {v.device}: {v.done_bytes:,} of {v.size_bytes:,} bytes {'written and ' if out.state.write else ''}read"
        )
        if v.error:
            line += f"; stopped by an error: {v.error}"
        elif v.after is not None:
            line += f"; counters moved: {', '.join(v.moved)}: replace it" if v.moved else "; no counter moved"
            line += "" if v.after.smart else " (no SMART: only the reads were checked)"
        console.print(line, markup=False, highlight=False)
    print_health(console, [v.after or v.before for v in out.verdicts])
    if out.stopped:
        console.print(f"  stopped: each disk's offset is kept in {out.state_file}; --resume goes on from there")


def add_health_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--health",
        action="store_true",
        help="only read SMART of every disk under TARGET with smartctl (read-only, seconds; no fio)",
    )
    p.add_argument(
        "--burn-in",
        action="store_true",
        help="read every disk under TARGET end to end (with --destroy-data TARGET: write it first), "
        "SMART before and after; Ctrl+C keeps where each disk stopped",
    )
    p.add_argument("--resume", action="store_true", help="with --burn-in: go on from where a stopped burn-in was")


def dispatch(args: argparse.Namespace) -> int:
    if args.hosts or args.job or args.baseline or args.full or args.report or args.scale:
        raise PlanError(
            "--health and --burn-in read the disks here; they take none of --hosts, --job, "
            "--baseline, --full, --report, --scale"
        )
    if args.health and args.burn_in:
        raise PlanError("--burn-in reads SMART before and after: leave out --health")
    if args.burn_in:
        return run_burn_in_cli(args)
    if args.resume or args.destroy_data:
        raise PlanError("--resume and --destroy-data go with --burn-in")
    return run_health(args.target, as_json=args.json)
